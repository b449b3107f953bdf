"""The worker side of a run: redact one unit into its output file and findings part.

A worker streams its unit record by record, so memory stays bounded by a batch of records,
whatever the file size; what it writes goes through temporary files, so a failed or denied
unit leaves nothing half-written. Workers are forked from the main process after it built the
detection engine and loaded the models (``_warm``), so they share them instead of each
building its own; this module also holds the garbage-collector tuning that makes that sharing
pay. ``run_tasks`` is how the main process hands tasks to them.

A worker exits when the main process dies, however it dies (``_die_with_parent``): killed with
SIGKILL, the main process cannot tell its workers to stop, and they would wait for their next
task forever, each holding its memory (~180 MB) and DIR's lock (they inherit its descriptor).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import orjson

from tracepub.detect import found as found_values
from tracepub.detect.engine import Engine
from tracepub.detect.found import Found
from tracepub.detect.prefilter import Prefilter
from tracepub.detect.registry import DetectConfig, build_detectors
from tracepub.model import Problem, Record, Unit
from tracepub.outdir import OutDir
from tracepub.outputs import groups, report
from tracepub.outputs.files import atomic_writer, sync_dirs
from tracepub.outputs.writers import WRITE_BUFFER, writer_for
from tracepub.readers import reader_for_unit
from tracepub.redact.placeholders import Namer
from tracepub.redact.redactor import Redactor
from tracepub.run import ahead, incremental, splice
from tracepub.run.results import FAILED, UnitResult
from tracepub.run.surrogates import count_surrogates as _count_surrogates
from tracepub.run.surrogates import may_hold as _may_hold_surrogate
from tracepub.run.surrogates import redact as _redact
from tracepub.selection.deny import Denied, DenyMatcher, DenyRule
from tracepub.walk import blobs
from tracepub.walk.walker import dumps_like_bytes

# What ``_init_worker`` built, for ``_process``: a process-wide singleton, because a worker
# process is made for it and forked children inherit it already built.
_WORKER: dict[str, Any] = {}
# Records are handled in batches so NER sees the prose of many records in one spaCy call;
# memory stays bounded by the batch, not the file.
BATCH_RECORDS = 256
BATCH_BYTES = 4 * 1024 * 1024
# Garbage collector thresholds once the engine is built (``_warm``); Python's default is (700, 10, 10).
# With 10 000, young collections walked (and promoted) each batch's parsed records, alive until
# the batch is written; with 100 000 most are freed before a collection comes: collection time
# per 30 MB 0.065 -> 0.032 s (~1% of a worker). Cyclic garbage is rare here (a few objects per 10 000).
# With 1 000 000: what survives a collection is mostly the caches (renderings, spans, ids: bounded,
# cleared when full, so they stop growing at a million or two objects), and each collection walked
# them again: 2.3% of a worker on 200 MB (--jobs 2: 7 young collections, 0.25 s per worker -> none),
# 4.5% on 400 MB (14 young and a middle one, 1.0 s -> one young, 0.42 s); peak memory the same.
GC_THRESHOLD = (1_000_000, 10, 10)


@dataclass
class Task:
    """One unit to redact, and where."""

    index: int
    unit: Unit
    dest: str
    out: Path
    size: int = 0
    # The second pass's: what the first pass recorded of the unit (``splice.Trail``), whose
    # output and findings are where this task writes its own; None: redo every record.
    trail: splice.Trail | None = None
    # The unit read whole already, in the worker (``_process_group``; taken by ``_process``).
    read: ahead.Ahead | None = None


# What a worker is built from (``_init_worker``'s arguments, in order).
WorkerArgs = tuple[DetectConfig, bytes, set[str], bool, tuple[DenyRule, ...], Found | None, bool]


def worker_args(
    cfg: DetectConfig,
    key: bytes,
    keep_ids: set[str],
    remove_blobs: bool,
    deny: list[DenyRule] | tuple[DenyRule, ...],
    found: Found | None = None,
    few: bool = False,
) -> WorkerArgs:
    """``found``: the second pass's values found elsewhere in the dataset (``detect.found``);
    ``few``: the workers read little (``Engine``'s ``few``)."""
    return cfg, key, keep_ids, remove_blobs, tuple(deny), found, few


def _init_worker(
    cfg: DetectConfig,
    key: bytes,
    keep_ids: set[str],
    remove_blobs: bool,
    deny: tuple[DenyRule, ...],
    found: Found | None,
    few: bool = False,
) -> None:
    """Build the worker's redactor (``worker_args``, once per process: a child forked from a main
    process that built it already has it)."""
    args = (cfg, key, keep_ids, remove_blobs, deny, found, few)
    if _WORKER.get("args") == args:
        return
    engine = Engine(
        cfg,
        build_detectors(cfg, found),
        line_literals=blobs.LINE_LITERALS if remove_blobs else (),
        few=few,
    )
    _WORKER["args"] = args
    _WORKER["deny"] = DenyMatcher(list(deny)) if deny else None
    _WORKER["redactor"] = Redactor(engine, Namer(key), keep_ids, remove_blobs)
    _WORKER["ner"] = engine.ner_model
    _WORKER["words"] = splice.Words.of(engine) if found else None


PR_SET_PDEATHSIG = 1  # linux/prctl.h
WATCH_SECONDS = 0.5  # how often the watchdog (where prctl is not there) looks at the parent


def _die_with_parent(parent: int) -> None:
    """Make this worker exit when ``parent`` (the main process) dies. On Linux the kernel sends
    it SIGKILL then (``prctl(PR_SET_PDEATHSIG)``; the executor forks its workers from the
    thread that runs the pool, which lives as long as the pool); elsewhere a daemon thread
    polls ``os.getppid()``, which changes when the parent is gone. The parent may have died
    before this ran: then the worker exits at once."""
    armed = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    if not armed:

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(WATCH_SECONDS)
            os._exit(1)

        threading.Thread(target=watch, name="tracepub-parent-watch", daemon=True).start()
    if os.getppid() != parent:
        os._exit(1)


def _start_worker(parent: int, *args: Any) -> None:
    """A worker process's initializer: tie it to the main process, then build its state."""
    _die_with_parent(parent)
    _init_worker(*args)


def prepare(args: WorkerArgs) -> None:
    """Build the worker state in this process (forked workers inherit it: imports, models)."""
    _init_worker(*args)


def ner_model() -> str | None:
    """The NER model the workers used (None: no worker was built, or NER was off)."""
    return _WORKER.get("ner")


def _encode(rec_raw: str | None, new: Any, one_line: bool = False) -> bytes:
    """``one_line``: ``rec_raw`` is a line of a JSONL file (it holds no line break)."""
    if rec_raw is None:
        return orjson.dumps(new)
    return dumps_like_bytes(rec_raw, new, one_line)


def _process_group(tasks: list[Task]) -> list[UnitResult]:
    """Small units' tasks, each unit read before any is redacted, so that NER reads all their
    prose in one call (``run.ahead``)."""
    red: Redactor = _WORKER["redactor"]
    if len(tasks) == 1 or not red.engine.prefetches:
        return [_process(t) for t in tasks]
    read = [ahead.read(t, red.namer.value_id) for t in tasks]
    red.engine.prefetch([s for a in read if a is not None for s in a.prose])
    for t, a in zip(tasks, read, strict=True):
        t.read = a
    read.clear()  # each unit's records go with it (``_process``)
    return [_process(t) for t in tasks]


def _process(task: Task) -> UnitResult:
    """Redact one unit, streaming: a record at a time is in memory,
    findings go to disk as they are made. Lines on which no trigger fires are written back
    without being walked (``Engine.line_hits``). In the second pass, records that cannot change
    are copied from the first pass's output (``run.splice``)."""
    read, task.read = task.read, None  # (its records are freed with the unit)
    try:
        return _process_unit(task, task.trail is not None, read)
    except splice.Misaligned:
        return _process_unit(task, False, read)


def _process_unit(task: Task, splicing: bool, read: ahead.Ahead | None) -> UnitResult:
    red: Redactor = _WORKER["redactor"]
    engine = red.engine
    unit, dest = task.unit, task.dest
    reader = reader_for_unit(unit)
    res = UnitResult(unit.harness, str(unit.source), dest)
    records: Iterator[Record] | None
    if read is not None:  # read whole already (``_process_group``)
        res.deps, source_digest, records = read.deps, read.digest, iter(read.records)
        res.sha256 = read.sha256
    else:
        # before reading: a change meanwhile shows next run; keyed names: they are stored in review/
        res.deps = incremental.fingerprint(unit, red.namer.value_id)
        source_digest, res.sha256, records = ahead.hashed_records(reader, unit, res.problems)
    res.bytes_in = sum(max(0, d[1]) for d in res.deps)
    red.start_unit(dest, unit.harness, reader.is_prose, getattr(reader, "prose_strings", None))
    red.types.clear()
    red.blobs.clear()
    words: splice.Words | None = _WORKER.get("words")
    # the first pass notes what each record leaves behind, for the second's copies of them
    recorder = splice.Recorder(engine, red.found, red.blobs) if words is None else None
    before = Counter(engine.stats)
    fold = (
        groups.FileFold()
    )  # the report's view of these findings, folded here rather than in the main process
    actions: Counter[str] = Counter()
    skipped = copied = 0
    skip_ok = engine.prefilter.line_skip
    od = OutDir(task.out)
    target, part = od.output(task.dest), od.part(task.dest)
    if records is None:
        records = reader.records(unit, res.problems)
    batched = engine.prefetches
    deny: DenyMatcher | None = _WORKER.get("deny")
    writer = writer_for(unit, sync_folder=False)  # ``run_tasks`` syncs the folders
    # Records are lines, written back one a line: none holds a line break (readers split on it).
    lines = unit.kind != "json"

    def needs_walk(rec: Record) -> bool:
        if not skip_ok or rec.raw is None or rec.raw_text:
            return True
        hits = engine.line_hits(rec.raw)
        return hits == Prefilter.ANY or (hits == Prefilter.PROSE and reader.may_have_prose(rec.value))

    sp: splice.Splice | None = None
    if splicing and words is not None and task.trail is not None and unit.kind != "json":
        with contextlib.suppress(OSError, splice.Misaligned):  # read before this task replaces them
            sp = splice.Splice.open(
                words, task.trail, engine, red.found, red.blobs, red.walker.remove_blobs, target, part
            )
    try:
        writer.open(target)
        try:
            with atomic_writer(part, "wb", WRITE_BUFFER, sync_folder=False) as ff:

                def flush(batch: list[Record]) -> None:
                    nonlocal skipped, copied
                    if deny is not None:
                        for rec in batch:
                            deny.check_record(rec)  # before redaction: the rule sees the original text
                    walk = [needs_walk(rec) for rec in batch]
                    # copies only where a record cannot change; one redone may make later ones change
                    texts = [None] * len(batch) if sp is None else [sp.check(rec) for rec in batch]
                    need = [t is None or sp.watched(t) for t in texts]  # type: ignore[union-attr]
                    watched = 0 if sp is None else len(sp.watch)
                    if batched:  # NER on the prose of the whole batch at once
                        engine.prefetch(
                            [
                                s
                                for rec, w, n in zip(batch, walk, need, strict=True)
                                if w and n and not rec.raw_text
                                for s in red.prose_strings(rec.value)
                            ]
                        )
                    for rec, w, n, t in zip(batch, walk, need, texts, strict=True):
                        line: bytes
                        if sp is not None:
                            if not n and len(sp.watch) != watched:
                                n = sp.watched(t)  # type: ignore[arg-type]  # not None: n was False
                            if not n:
                                line, found_lines = sp.take(rec)
                                for b in found_lines:
                                    ff.write(b)
                                    f = orjson.loads(b)
                                    fold.add(f)
                                    actions[f["action"]] += 1
                                    red.types[f["type"]] += 1
                                writer.write(line)
                                res.records += 1
                                copied += 1
                                continue
                            sp.skip(rec)
                        if not w:
                            line = rec.raw.encode("utf-8")  # type: ignore[union-attr]
                            skipped += 1
                        else:
                            if rec.deep:  # scanned as one text: the walker would parse it (and recurse)
                                red.redact_record(rec.index, "")  # the index its findings name
                                new = red.redact_text(rec.value)
                            else:
                                new = _redact(red, rec, res.problems, unit, lines)
                            if new is rec.value and rec.raw is not None:
                                line = rec.raw.encode("utf-8")
                            elif rec.raw_text:
                                line = new.encode("utf-8")
                            else:
                                line = _encode(
                                    rec.raw, new, lines
                                )  # bytes as orjson made them: no decode, no encode
                            if red.findings:
                                ff.write(red.findings_jsonl())
                                red.fold_findings(fold, actions)
                                red.findings.clear()
                        if w and rec.raw is not None and not rec.raw_text and _may_hold_surrogate(rec.raw):
                            _count_surrogates(rec, line, res.problems, unit, lines)
                        writer.write(line)
                        res.records += 1
                        if sp is not None:
                            sp.redone()
                        elif recorder is not None:
                            recorder.note(res.records - 1)

                batch: list[Record] = []
                size = 0
                for rec in records:
                    batch.append(rec)
                    size += len(rec.raw) if rec.raw is not None else 0
                    if len(batch) >= BATCH_RECORDS or size >= BATCH_BYTES:
                        flush(batch)
                        batch, size = [], 0
                flush(batch)
                if sp is not None:
                    sp.close()
            res.written = writer.close()
        finally:
            writer.abort()  # after an exception: its temporary file goes (a no-op once closed)
            if sp is not None:
                sp.release()
        if source_digest is not None:  # every record read: the digest is of the whole file
            res.sha256 = incremental.content_sha256(unit, {unit.source: source_digest.digest()})
    except Denied as d:  # the writers removed their temporary files: nothing of it was written
        res.ok, res.denied, red.findings = False, d.hit.to_json(), []
        actions.clear()
        fold = groups.FileFold()
        with contextlib.suppress(OSError):
            target.unlink()  # an earlier run's file
    except splice.Misaligned:
        raise  # ``_process`` redoes the whole unit
    except Exception as exc:  # corrupt store, vanished file...: reported, nothing half-written
        res.ok = False
        res.problems.append(Problem(str(unit.source), None, f"{FAILED}{type(exc).__name__}: {exc}"))
        with contextlib.suppress(OSError):
            target.unlink()
        red.findings = []
        actions.clear()
        fold = groups.FileFold()
        with atomic_writer(part, "wb"):
            pass
    res.fold = fold
    res.found = dict(red.found) if res.ok else {}
    if res.found:
        res.sealed = incremental.seal(res.found, unit, red.namer.key)
    res.types = dict(red.types)
    res.blobs = dict(red.blobs)
    res.actions = dict(actions)
    res.trail = recorder.done() if recorder is not None and res.ok else None
    perf = Counter(engine.stats)
    perf.subtract(before)
    res.perf = {k: v for k, v in perf.items() if v} | {"lines": res.records, "lines_skipped": skipped}
    if copied:
        res.perf["lines_copied"] = copied
    return res


def task(i: int, unit: Unit, dest: str, out: Path) -> Task:
    """The task of redacting ``unit`` into ``dest``; its size orders the pool's queue."""
    try:
        size = sum(p.stat().st_size for p in (unit.deps or (unit.source,)))
    except OSError:
        size = 0
    return Task(i, unit, dest, out, size=size)


class Progress(Protocol):
    def update(self, n: int) -> None: ...

    def close(self) -> None: ...


def run_tasks(
    tasks: list[Task], jobs: int, args: WorkerArgs, bar: Progress, group: bool = False
) -> list[UnitResult]:
    """Every task's result, in task order: in this process (``jobs`` 1), or on ``jobs``
    forked processes, largest task first so one big file does not finish last alone.
    ``group``: small units go in groups read ahead (``run.ahead``; the first pass's)."""
    done: list[UnitResult | None] = [None] * len(tasks)
    if jobs <= 1:
        if tasks:
            _warm()
        for g in ahead.groups(tasks, list(range(len(tasks)))) if group else [[n] for n in range(len(tasks))]:
            for n, r in zip(g, _process_group([tasks[n] for n in g]), strict=True):
                done[n] = r
            bar.update(len(g))
    elif tasks:
        _warm()
        order = sorted(range(len(tasks)), key=lambda n: -tasks[n].size)
        cut = ahead.groups(tasks, order) if group else [[n] for n in order]
        with ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(os.getpid(), *args)) as pool:
            futures = {pool.submit(_process_group, [tasks[n] for n in g]): g for g in cut}
            # The workers are forked: the main process compiles the report's template and imports
            # the card's library meanwhile (joined before anything forks again; a failure shows
            # when the report or the card is written).

            def compile_template() -> None:
                with contextlib.suppress(Exception):
                    report.load_template()
                    from huggingface_hub import DatasetCard, DatasetCardData  # noqa: F401

            template = threading.Thread(target=compile_template, daemon=True)
            template.start()
            try:
                for fut in as_completed(futures):
                    g = futures[fut]
                    for n, r in zip(g, fut.result(), strict=True):
                        done[n] = r
                    bar.update(len(g))
            finally:
                template.join()
    # A worker synced each file it wrote, not the folder it renamed it into: each folder once, now.
    folders: set[Path] = set()
    for t in tasks:
        od = OutDir(t.out)
        folders |= {od.output(t.dest).parent, od.part(t.dest).parent}
    sync_dirs(folders)
    return done  # type: ignore[return-value]  # every slot was filled


def _warm() -> None:
    """Load lazy models (spaCy) before forking, so workers share them instead of each loading;
    then move everything built so far out of the garbage collector's view (``gc.freeze``): the
    models and rule tables are never freed, and each full collection would walk all of them
    again (a tenth of a worker's time) and touch the pages the forked workers share. Then
    collections are made rarer (``GC_THRESHOLD``): a worker's caches (spans, renderings, ids:
    hundreds of thousands of objects, none in a cycle) are what a full collection walks, and
    with the default thresholds that was a few percent of a worker's time; young collections
    walked each batch's parsed records. Cyclic garbage is still collected, later."""
    for d in _WORKER["redactor"].engine.detectors:
        warm = getattr(d, "warm", None)
        if warm is not None:
            warm()
    found_values.warm()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)  # (automatic collection was off since ``run`` started)
