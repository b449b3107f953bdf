"""Which datatrove executor runs a stage's tasks: local (this machine: ``dist.local``, datatrove's
own with a pool that notices a dead task), Slurm or Ray.

datatrove is imported here and in ``stages``, when a distributed run starts, never by the
single-machine path; without the extra installed the run stops with one line saying what to
install (``MissingEngine``). Options of ``--engine-opt KEY=VALUE`` that are not tracepub's own
(``tasks``, ``workers``, ``work``, ``retries``, ``executor``, ``poll``, ``keep_work``, ``log``) go to the executor's
constructor as they are, so every datatrove option (Slurm ``partition``, ``time``,
``cpus_per_task``, ``sbatch_args``...; Ray ``cpus_per_task``, ``mem_per_cpu_gb``...) is there
without tracepub naming it.
"""

from __future__ import annotations

import importlib
import subprocess
import time
from collections.abc import Callable
from typing import Any

from tracepub.errors import Refusal

EXECUTORS = {
    "local": ("tracepub.dist.local", "LocalExecutor"),
    "slurm": ("datatrove.executor.slurm", "SlurmPipelineExecutor"),
    "ray": ("datatrove.executor.ray", "RayPipelineExecutor"),
}
INSTALL = "pip install 'tracepub[datatrove]'"


class MissingEngine(Refusal):
    """The extra is not installed (exit 1 with what to install)."""


def require() -> None:
    """datatrove importable, or a one-line refusal naming the extra."""
    try:
        importlib.import_module("datatrove.executor.base")
    except ImportError as exc:
        raise MissingEngine(
            f"--engine datatrove needs datatrove, which is not installed ({exc.name}): {INSTALL}"
        ) from None


def executor_class(kind: str) -> Any:
    if kind not in EXECUTORS:
        raise Refusal(f"unknown executor {kind!r}: one of {', '.join(EXECUTORS)}")
    module, name = EXECUTORS[kind]
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:
        extra = " and ray (pip install ray)" if kind == "ray" else ""
        raise MissingEngine(
            f"the {kind} executor needs {exc.name}, which is not installed: {INSTALL}{extra}"
        ) from None


Factory = Callable[[list[Any], int, str, str], Any]


def factory(kind: str, workers: int, options: dict[str, Any]) -> Factory:
    """A function (pipeline, tasks, logging_dir, job name) -> executor of ``kind``."""
    cls = executor_class(kind)

    def make(pipeline: list[Any], tasks: int, logging_dir: str, job: str) -> Any:
        kw: dict[str, Any] = {"pipeline": pipeline, "tasks": tasks, "logging_dir": logging_dir, **options}
        if kind == "local":  # ``dist.local``: tasks forked from this process, which has the engine
            kw.setdefault("workers", max(1, min(workers, tasks)))
        elif kind == "slurm":
            kw.setdefault("job_name", job)
            if workers > 0:
                kw.setdefault("workers", workers)
        elif workers > 0:
            kw.setdefault("workers", workers)
        return cls(**kw)

    return make


def run(executor: Any, kind: str, poll: float = 30.0) -> None:
    """Run a stage to its end. The local and Ray executors return when their tasks have; the
    Slurm one returns once it has submitted the job array, so this waits until every task is
    marked complete or the job has left the queue (failed tasks are then retried by the caller).
    Ray: joins the cluster of ``RAY_ADDRESS`` (or starts one on this machine) if not joined yet."""
    if kind == "ray":
        import ray

        if not ray.is_initialized():
            ray.init(ignore_reinit_error=True)
    executor.run()
    if kind != "slurm" or getattr(executor, "job_id", None) in (None, -1):
        return
    while executor.get_incomplete_ranks(skip_completed=True):
        if not _in_queue(str(executor.job_id)):
            return
        time.sleep(poll)


def _in_queue(job_id: str) -> bool:
    try:
        out = subprocess.run(["squeue", "-h", "-j", job_id], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return True  # cannot tell: keep waiting
    return out.returncode == 0 and bool(out.stdout.strip())


def quiet(level: str) -> None:
    """datatrove logs every task to its log file under the work folder and, at INFO, to stderr
    (the pipeline, a stats table per task): on one machine that buries tracepub's own summary.
    Here stderr gets ``level`` and up (``--engine-opt log=INFO`` for all of it); the task log
    files keep everything. For tasks started from this process (the local executor: forked);
    Slurm and Ray tasks log as datatrove does, to their own log files."""
    import sys

    from datatrove.executor import base
    from loguru import logger

    level = level.upper()
    fmt = "{time:YYYY-MM-DD HH:mm:ss.SSS} | {level: <8} | {name}:{function}:{line} - {message}"

    def to_stderr() -> None:
        logger.remove()
        logger.add(sys.stderr, level=level, format=fmt)

    def add_task_logger(logging_dir: Any, rank: int, local_rank: int = 0, node_rank: int = -1) -> Any:
        to_stderr()
        logfile = logging_dir.open(f"logs/task_{rank:05d}.log", "w")
        logger.add(logfile, level="DEBUG", format=fmt)
        logger.info(f"Launching pipeline for {rank=}")
        return logfile

    def close_task_logger(logfile: Any) -> None:
        logger.complete()
        to_stderr()
        logfile.close()

    to_stderr()
    base.add_task_logger = add_task_logger
    base.close_task_logger = close_task_logger
