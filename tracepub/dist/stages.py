"""The map stages' tasks, as datatrove pipeline steps: redact a shard of units, fetch a shard of
remote source files.

A datatrove task (a rank) is a process somewhere (a local fork, a Slurm array task, a Ray
actor) that gets only this step: a stage name, DIR and the work folder's URL. Everything else
(its shard, the tasks, the workers' arguments) it reads from the work folder (``work.Work``,
sealed with DIR's placeholder key). What it leaves: each unit's output file and findings part
under DIR, written by the same worker code as ``tracepub redact`` (``run.workers``), then the
unit's result, sealed, under ``<stage>/results/<index>``. A result is written after the files
it describes are in place, so a task killed at any point leaves units with a result (done) and
units without (redone on the retry: the same bytes again, written through temporary files);
none is done twice in the output and none is lost.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from datatrove.pipeline.base import PipelineStep

from tracepub.dist.work import Work
from tracepub.redact.placeholders import load_key
from tracepub.run import workers


def open_work(out: str, work_url: str) -> Work:
    """The work folder, opened with the key of DIR (``out``), which every task can read."""
    return Work(work_url, load_key(Path(out) / "review"))


def result_name(stage: str, index: int) -> str:
    return f"{stage}/results/{index:08d}"


def shard_name(stage: str, rank: int) -> str:
    return f"{stage}/shards/{rank:05d}"


def after_unit(stage: str, rank: int, done: int) -> None:
    """Called after each unit a task finishes (``done`` so far in this task). Nothing here: the
    tests replace it to kill or fail a task midway."""


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


class RedactShard(PipelineStep):
    """Redact the units of one shard of a stage (``redact``: the first pass, ``redo``: the second)."""

    name = "redact a shard of units"
    type = "tracepub"

    def __init__(self, stage: str, out: str, work_url: str) -> None:
        super().__init__()
        self.stage, self.out, self.work_url = stage, out, work_url

    def run(self, data: Any = None, rank: int = 0, world_size: int = 1) -> None:
        work = open_work(self.out, self.work_url)
        args = work.get(f"{self.stage}/args")
        shard = work.get(shard_name(self.stage, rank))
        if args is None or shard is None:
            raise RuntimeError(
                f"stage {self.stage}: no plan for task {rank} in {work.url} (another DIR's key?)"
            )
        prepared = False
        done = 0
        for task, fp in shard:
            name = result_name(self.stage, task.index)
            kept = work.get(name)
            if kept is not None and kept.get("fp") == fp:
                self.stat_update("units_kept")
                continue
            if not prepared:  # a forked task has the engine already (``_init_worker`` returns at once)
                workers.prepare(args)
                prepared = True
            (result,) = workers.run_tasks([task], 1, args, _NoBar())
            work.put(name, {"fp": fp, "task": task, "result": result})
            self.stat_update("units_done")
            done += 1
            after_unit(self.stage, rank, done)


class FetchShard(PipelineStep):
    """Copy one shard of remote source files to the staging folder (``sources``)."""

    name = "fetch a shard of source files"
    type = "tracepub"

    def __init__(self, out: str, work_url: str) -> None:
        super().__init__()
        self.out, self.work_url = out, work_url

    def run(self, data: Any = None, rank: int = 0, world_size: int = 1) -> None:
        from fsspec.core import url_to_fs

        work = open_work(self.out, self.work_url)
        shard = work.get(shard_name("fetch", rank))
        if shard is None:
            raise RuntimeError(f"stage fetch: no plan for task {rank} in {work.url}")
        fss: dict[str, Any] = {}
        done = 0
        for url, remote, local, size, mtime in shard:
            target = Path(local)
            if _same(target, size, mtime):
                self.stat_update("files_kept")
                continue
            if url not in fss:
                fss[url] = url_to_fs(url)[0]
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.fetch")
            try:
                fss[url].get_file(remote, str(tmp))
                if mtime is not None:
                    os.utime(tmp, ns=(mtime, mtime))  # the next run sees an unchanged file (incremental)
                os.replace(tmp, target)
            finally:
                tmp.unlink(missing_ok=True)
            self.stat_update("files_fetched")
            self.stat_update("bytes_fetched", value=size or 0)
            done += 1
            after_unit("fetch", rank, done)


def _same(path: Path, size: int | None, mtime: int | None) -> bool:
    """A staged copy that is still the remote file: same size and modification time (a remote
    that gives no time is fetched again every run)."""
    if mtime is None or size is None:
        return False
    try:
        st = path.stat()
    except OSError:
        return False
    return st.st_size == size and st.st_mtime_ns == mtime
