"""datatrove's local executor, with a pool that notices a task that died.

``LocalPipelineExecutor`` runs its tasks on a ``multiprocess.Pool``: when a task's process is
killed (the OOM killer, a signal), the pool replaces the process but the task's result never
comes, and ``run`` waits for it forever. Here the tasks run on a ``ProcessPoolExecutor``, which
fails every pending task when one of its processes dies (``BrokenProcessPool``); the stage is
then retried like a failed one (``engine.DatatroveMap.run_stage``), keeping the units done.
The rest is datatrove's own: ``_run_for_rank`` (a task's logs, stats and completion mark) and
the skipping of completed tasks. Processes are forked from this one, which built the detection
engine and loaded the model, so the tasks share them (as the ``--jobs`` workers do).
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from typing import Any

from datatrove.executor.local import LocalPipelineExecutor
from datatrove.utils.stats import PipelineStats

# The executor whose tasks this process's children run: set before the pool forks them, so
# they inherit it instead of receiving it pickled (its pipeline holds nothing worth pickling).
_CURRENT: list[Any] = []


def _run_rank(rank: int) -> PipelineStats:
    return _CURRENT[0]._run_for_rank(rank)


class LocalExecutor(LocalPipelineExecutor):
    """``LocalPipelineExecutor`` whose ``run`` fails, rather than hangs, when a task's process dies."""

    def run(self) -> PipelineStats:
        ranks = self.get_incomplete_ranks(
            range(self.local_rank_offset, self.local_rank_offset + self.local_tasks)
        )
        if not ranks:
            return PipelineStats()
        self.save_executor_as_json()
        if self.workers == 1:  # in this process, one task after the other
            stats = [self._run_for_rank(rank) for rank in ranks]
        else:
            _CURRENT[:] = [self]
            try:
                with ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("fork")
                ) as pool:
                    futures = [pool.submit(_run_rank, rank) for rank in ranks]
                    done, _ = wait(futures, return_when=FIRST_EXCEPTION)
                    failed = [f for f in done if f.exception() is not None]
                    if failed:  # the tasks running finish (their units are kept); the others wait
                        pool.shutdown(wait=True, cancel_futures=True)
                        raise failed[0].exception()  # type: ignore[misc]
                    stats = [f.result() for f in futures]
            finally:
                _CURRENT.clear()
        total = sum(stats, start=PipelineStats())
        with self.logging_dir.open("stats.json", "wt") as fh:
            total.save_to_disk(fh)
        return total
