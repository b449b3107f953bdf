"""A distributed run: ``tracepub redact``'s pipeline with its map stages on datatrove.

The stages (ARCHITECTURE.md, "Distributed runs"):

1. fetch (map, only for remote sources): copy them to a staging folder (``sources``);
2. plan (this process): the placeholder key, discovery, selection, output names, reuse
   (``run.pipeline``, as one machine does);
3. redact (map): every unit not reused, on datatrove tasks (``stages.RedactShard``);
4. merge (reduce, this process): the values found anywhere, one set for the dataset
   (``detect.found.merge``, in ``run.pipeline``), sealed into the work folder with the
   workers' arguments of the next stage;
5. redo (map): the units whose written bytes still hold one of them, or whose name changes;
6. assemble (this process): findings.jsonl, report, card, manifest (``run.assemble``).

Stages 2, 4 and 6 are ``run.pipeline.run`` itself; ``DatatroveMap`` is what it is given to run
its tasks (instead of ``local_map``). So the output is made by the same code, in the same
order, with the same key: the same bytes as ``tracepub redact``.

Resuming: every unit's result is kept in the work folder under a fingerprint of the unit, its
output path, its index and the workers' arguments, and a task skips the units that have one.
A failed task is retried (``retries``); a run stopped altogether (preempted, killed) is resumed
by giving the same command again. The one exception: the units an interrupted run had started
to redo (stage 5) may hold second-pass bytes already, so their first-pass results are
forgotten and both passes are redone for them; the second pass is then decided from the files
as one machine would.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracepub.dist import executors
from tracepub.dist.work import Work, balance
from tracepub.errors import Refusal
from tracepub.outdir import OutDir
from tracepub.redact.placeholders import load_key
from tracepub.run import pipeline, workers
from tracepub.run.results import UnitResult
from tracepub.runtypes import RunOptions, RunSummary

WORK_DIR = ".dist"  # under DIR, beside dataset/ and review/: never uploaded, not part of the manifest
TASKS_PER_WORKER = 4  # default number of tasks: a few per worker, so one slow task does not finish last alone
BYTES_PER_TASK = 1_000_000_000  # on a cluster: ~90 s of work per task at 10-13 MB per CPU-second


@dataclass
class EngineOptions:
    """``--engine-opt KEY=VALUE``: tracepub's own keys; the rest go to the datatrove executor."""

    executor: str = "local"
    tasks: int = 0  # 0: TASKS_PER_WORKER per worker, at most one per unit
    workers: int = 0  # tasks at once; 0: --jobs (local), no limit (Slurm, Ray)
    work: str | None = None  # the work folder's URL (default DIR/.dist/work)
    retries: int = 2  # a stage whose tasks failed is run again this many times
    poll: float = 30.0  # seconds between looks at a Slurm job's completions
    keep_work: bool = False  # keep the work folder after a successful run (datatrove's logs and stats)
    log: str = "WARNING"  # what datatrove's log messages reach stderr from (``executors.quiet``)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, pairs: Iterable[str]) -> EngineOptions:
        """``KEY=VALUE`` pairs; a value is read as JSON when it is JSON (numbers, booleans, objects
        such as ``sbatch_args={"account": "x"}``), else as a string. ValueError on a bad pair."""
        out = cls()
        for pair in pairs:
            name, eq, text = pair.partition("=")
            name = name.strip().replace("-", "_")
            if not eq or not name:
                raise ValueError(f"--engine-opt {pair!r}: expected KEY=VALUE")
            try:
                value: Any = json.loads(text)
            except ValueError:
                value = text
            if name in ("executor", "work", "log"):
                setattr(out, name, str(value))
            elif name in ("tasks", "workers", "retries"):
                if not isinstance(value, int) or value < 0:
                    raise ValueError(f"--engine-opt {name}: a whole number >= 0, not {text!r}")
                setattr(out, name, value)
            elif name == "poll":
                out.poll = float(value)
            elif name == "keep_work":
                out.keep_work = bool(value)
            else:
                out.extra[name] = value
        if out.executor not in executors.EXECUTORS:
            raise ValueError(
                f"--engine-opt executor: one of {', '.join(executors.EXECUTORS)}, not {out.executor!r}"
            )
        return out


def runner(engine: str, pairs: Iterable[str]) -> Callable[[RunOptions], RunSummary]:
    """What ``tracepub redact --engine ENGINE --engine-opt ...`` runs. ValueError: a usage error."""
    if engine != "datatrove":
        raise ValueError("--engine-opt and URL sources need --engine datatrove")
    eopts = EngineOptions.parse(pairs)
    return lambda opts: run(opts, eopts)


def run(opts: RunOptions, eopts: EngineOptions | None = None) -> RunSummary:
    """``tracepub redact --engine datatrove``: the pipeline with its tasks on datatrove."""
    from tracepub.dist import sources

    eopts = eopts or EngineOptions()
    executors.require()
    executors.quiet(eopts.log)
    # absolute: a task on another node, or a Ray actor, does not start in this folder
    opts = dataclasses.replace(
        opts,
        out=Path(opts.out).absolute(),
        sources=[s if "://" in str(s) else Path(s).absolute() for s in opts.sources],
    )
    od = OutDir(opts.out)
    od.review.mkdir(parents=True, exist_ok=True)
    key = load_key(od.review)  # the key, first: every stage's tasks read it from DIR
    work = Work(eopts.work or str(od.root.resolve() / WORK_DIR / "work"), key)
    mapper = DatatroveMap(od.root, work, eopts)
    opts = sources.stage(opts, work, mapper, od.root / WORK_DIR / "sources")
    summary = pipeline.run(opts, mapper)
    summary.perf.update({f"dist_{k}": v for k, v in sorted(mapper.counts.items())})
    if not eopts.keep_work:
        work.remove("")
    return summary


class DatatroveMap:
    """``run.pipeline.MapTasks`` on datatrove: a stage's tasks, sharded over datatrove tasks."""

    def __init__(self, out: Path, work: Work, eopts: EngineOptions) -> None:
        self.out = Path(out).resolve()
        self.work = work
        self.eopts = eopts
        self.counts: dict[str, int] = {}

    def __call__(
        self,
        stage: str,
        tasks: list[workers.Task],
        jobs: int,
        args: workers.WorkerArgs,
        bar: workers.Progress,
    ) -> list[tuple[workers.Task, UnitResult]]:
        from tracepub.dist.stages import RedactShard, result_name, shard_name

        work = self.work
        if stage == "redact":
            self._forget_redo()
        if not tasks:
            return []
        args_fp = work.fingerprint(["args", args])
        fps = [work.fingerprint([stage, t.index, t.dest, t.unit, args_fp]) for t in tasks]
        sizes = [t.size for t in tasks]
        shards = balance(sizes, self.task_count(sizes, jobs))
        work.remove(f"{stage}/shards")
        work.put(f"{stage}/args", args)
        for rank, shard in enumerate(shards):
            work.put(shard_name(stage, rank), [(tasks[p], fps[p]) for p in shard])
        if stage == "redo":  # before any of them is rewritten: a resumed run must know (``_forget_redo``)
            work.put("redo/indices", [t.index for t in tasks])

        def collect() -> list[dict[str, Any] | None]:
            names = [result_name(stage, t.index) for t in tasks]
            with ThreadPoolExecutor(8) as pool:
                got = list(pool.map(work.get, names))
            return [
                g if g is not None and g.get("fp") == fp else None for g, fp in zip(got, fps, strict=True)
            ]

        results = collect()
        todo = [p for p, r in enumerate(results) if r is None]
        self.counts[f"{stage}_units"] = len(tasks)
        self.counts[f"{stage}_tasks"] = len(shards)
        self.counts[f"{stage}_kept"] = len(tasks) - len(todo)
        if todo:
            if self.eopts.executor == "local":
                workers.prepare(args)  # forked tasks inherit the engine and the loaded model
                workers._warm()  # noqa: SLF001  (what ``run_tasks`` does before it forks)
            step = RedactShard(stage, str(self.out), work.url)
            # datatrove's completion marks hold for these shards and this set of units to do: a
            # task marked complete in an attempt whose results were since forgotten runs again
            logs = work.logs(f"{stage}/logs-{work.fingerprint([stage, shards, fps, todo])[:12]}")
            results = self.run_stage(stage, [step], len(shards), logs, collect, jobs)
        bar.update(len(tasks))
        return [(t, r["result"]) for t, r in zip(tasks, results, strict=True)]  # type: ignore[index]

    def task_count(self, sizes: list[int], jobs: int) -> int:
        """``tasks``, or: on this machine a few per worker; on a cluster about one per
        ``BYTES_PER_TASK`` of input (a task's start-up, the engine and the model, is then a few
        percent of it), and a few per worker when ``workers`` is given. At most one per unit."""
        units = len(sizes)
        if self.eopts.tasks:
            return max(1, min(self.eopts.tasks, units))
        workers = self.workers(jobs)
        if self.eopts.executor == "local":
            return max(1, min(units, TASKS_PER_WORKER * max(1, workers)))
        by_size = -(-sum(sizes) // BYTES_PER_TASK)
        return max(1, min(units, max(by_size, TASKS_PER_WORKER * workers)))

    def workers(self, jobs: int) -> int:
        if self.eopts.workers:
            return self.eopts.workers
        return jobs if self.eopts.executor == "local" else -1

    def run_stage(
        self, stage: str, pipeline_steps: list[Any], tasks: int, logs: str, collect: Any, jobs: int
    ) -> list[Any]:
        """Run the stage's datatrove tasks until every unit has a result, retrying failed tasks
        (datatrove skips the tasks marked complete; a task skips the units it finds done)."""
        make = executors.factory(self.eopts.executor, self.workers(jobs), self.eopts.extra)
        error: BaseException | None = None
        results: list[Any] = []
        for attempt in range(self.eopts.retries + 1):
            self.counts[f"{stage}_attempts"] = attempt + 1
            try:
                executors.run(
                    make(pipeline_steps, tasks, logs, f"tracepub-{stage}"),
                    self.eopts.executor,
                    self.eopts.poll,
                )
                error = None
            except Exception as exc:  # a task failed: the others' work is kept; retried below
                error = exc
            results = collect()
            missing = sum(1 for r in results if r is None)
            if not missing:
                return results
        why = f" (last error: {type(error).__name__}: {error})" if error else ""
        raise Refusal(
            f"stage {stage}: {missing} unit(s) have no result after {self.eopts.retries + 1} "
            f"attempt(s){why}; give the same command again to resume (logs: {logs})"
        )

    def _forget_redo(self) -> None:
        """The resume rule for the second pass (module docstring): the units an interrupted run
        had started to redo get both passes again."""
        from tracepub.dist.stages import result_name

        indices = self.work.get("redo/indices")
        for i in indices or ():
            self.work.remove(result_name("redact", i))
        self.work.remove("redo")
