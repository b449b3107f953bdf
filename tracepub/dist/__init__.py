"""Distributed runs: the pipeline of ``tracepub redact`` on datatrove's executors (local, Slurm, Ray).

An optional room (``pip install 'tracepub[datatrove]'``): nothing outside it imports it, and it
imports datatrove only when a run asks for it (``executors.load``), so the single-machine path
has no new dependency. The run itself is ``run.pipeline.run``; this room only replaces how its
unit tasks are run (``engine.DatatroveMap``) and stages remote sources (``sources``). Why
datatrove, the stages and what is resumable: ARCHITECTURE.md, "Distributed runs".
"""
