"""The one pipeline: discover → read → walk → detect → redact → write, one unit at a time.

The main process discovers units, decides their output paths and hands units to worker
processes (``--jobs``). A worker streams its unit record by record: memory stays bounded by one
record, whatever the file size. It writes the redacted file and its findings through temporary
files; the main process then assembles findings.jsonl, the report, the dataset card and the
manifest, in a fixed order, so the output is the same bytes for any number of workers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import json
import os
import shutil
import sys
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from tracepub import __version__
from tracepub.detect import found as found_values
from tracepub.detect.engine import Engine
from tracepub.detect.found import Found, Scanner, merge
from tracepub.detect.prefilter import Prefilter
from tracepub.detect.registry import DetectConfig, build_detectors, path_detectors
from tracepub.model import Problem, Record, Unit
from tracepub.outputs.files import (
    DATASET,
    MANIFEST,
    REVIEW,
    append_file,
    atomic_writer,
    build_manifest,
    file_stamp,
    hashing_writer,
    write_json,
    write_manifest,
)
from tracepub.readers import reader_for_unit
from tracepub.readers.base import records_hashing
from tracepub.redact.placeholders import Namer, load_key
from tracepub.redact.redactor import Redactor
from tracepub.review import decisions
from tracepub.run import incremental
from tracepub.selection import select as selection
from tracepub.selection.deny import Denied, DenyMatcher
from tracepub.sources import harvest
from tracepub.sources.discover import default_sources, discover
from tracepub.walk.walker import dumps_like_bytes

PARTS = "parts"
FINDINGS = "findings.jsonl"
RUN_FILE = "run.json"  # see runstate.py
IDENTITY_FILE = "identity.json"  # the harvest summary, masked: type, origin, masked value


@dataclass
class RunOptions:
    out: Path
    sources: list[Path] = field(default_factory=list)  # empty: every harness's default location
    detect: DetectConfig = field(default_factory=DetectConfig)
    jobs: int = 0  # 0: one per core
    remove_blobs: bool = True
    keep_ids: set[str] = field(default_factory=set)
    progress: bool = False
    card: dict[str, Any] = field(default_factory=dict)  # license, title, ... for the dataset card
    # Which sessions: selection.Selection criteria, applied after discovery (None: all), and
    # deny.DenyRule list (a session matching anywhere is left out). Reviewers' drop_session
    # decisions in DIR/review/decisions.jsonl are always applied.
    selection: Any = None
    deny: list = field(default_factory=list)
    # The sources are the harnesses' default locations (no SOURCES given): generic formats are
    # not looked for there. Stored in run.json so a review re-run discovers the same files.
    defaults: bool = False
    # What identity harvesting found, masked (type, origin, masked): written to review/identity.json.
    identity_summary: list[dict[str, str]] = field(default_factory=list)


@dataclass
class UnitResult:
    harness: str
    source: str
    dest: str  # path under dataset/
    records: int = 0
    bytes_in: int = 0
    types: dict[str, int] = field(default_factory=dict)
    actions: dict[str, int] = field(default_factory=dict)
    blobs: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    ok: bool = True
    denied: dict | None = None  # deny.Hit.to_json() when a deny rule matched: nothing written
    # For incremental runs (review/state.json) and the speed figures.
    deps: list = field(default_factory=list)
    sha256: str = ""
    perf: dict[str, int] = field(default_factory=dict)
    reused: bool = False
    fold: Any = None  # report.FileFold of the findings written (None: read the part back)
    # (sha256, output.file_stamp) of the output file as the worker wrote it: the manifest uses
    # the digest while the file is still that one (None: the manifest hashes the file).
    written: tuple | None = None
    # The values redacted here that are redacted everywhere (detect.found): value -> (type, action),
    # and the same sealed for the next run's reuse (incremental.seal).
    found: Found = field(default_factory=dict)
    sealed: str | None = None


@dataclass
class RunSummary:
    out: str
    files: int = 0
    sessions: int = 0
    records: int = 0
    bytes_in: int = 0
    findings: dict[str, int] = field(default_factory=dict)
    actions: dict[str, int] = field(default_factory=dict)
    blobs: dict[str, int] = field(default_factory=dict)
    harnesses: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)  # sessions read from another store instead
    ner: str | None = None
    manifest_sha256: str = ""
    selection: dict[str, Any] = field(default_factory=dict)  # criteria and counts (selection.summary_block)
    denied: list[dict] = field(default_factory=list)  # {session, file, rule, origin, masked, where, files}
    dropped: list[dict] = field(default_factory=list)  # {session, harness, files}: dropped in review
    reused: int = 0  # files whose source did not change since the last run into DIR: kept as they were
    perf: dict[str, int] = field(default_factory=dict)  # lines skipped unparsed, cache hits, ...

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# -- worker side ------------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}
# Records are handled in batches so NER sees the prose of many records in one spaCy call;
# memory stays bounded by the batch, not the file.
BATCH_RECORDS = 256
BATCH_BYTES = 4 * 1024 * 1024
# A worker's output and findings are written through buffers this large: records and findings
# come a few kB at a time, and fewer, larger writes cost less (the default buffer is 8 kB).
WRITE_BUFFER = 1 << 20
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


def _init_worker(cfg: DetectConfig, key: bytes, keep_ids: set[str], remove_blobs: bool, deny: tuple = (),
                 found: Found | None = None) -> None:
    """``found``: the second pass's values found elsewhere in the dataset (``detect.found``)."""
    args = (cfg, key, keep_ids, remove_blobs, tuple(deny), found)
    if _WORKER.get("args") == args:  # forked from a main process that built it already
        return
    from tracepub.walk import blobs

    engine = Engine(cfg, build_detectors(cfg, found), line_literals=blobs.LINE_LITERALS if remove_blobs else ())
    _WORKER["args"] = args
    _WORKER["deny"] = DenyMatcher(list(deny)) if deny else None
    _WORKER["redactor"] = Redactor(engine, Namer(key), keep_ids, remove_blobs)
    _WORKER["ner"] = engine.ner_model


def _encode(rec_raw: str | None, new: Any, one_line: bool = False) -> bytes:
    """``one_line``: ``rec_raw`` is a line of a JSONL file (it holds no line break)."""
    if rec_raw is None:
        return orjson.dumps(new)
    return dumps_like_bytes(rec_raw, new, one_line)


def _process(task: Task) -> UnitResult:
    """Redact one unit, streaming: a record at a time is in memory,
    findings go to disk as they are made. Lines on which no trigger fires are written back
    without being walked (``Engine.line_hits``)."""
    red: Redactor = _WORKER["redactor"]
    engine = red.engine
    unit, dest = task.unit, task.dest
    reader = reader_for_unit(unit)
    res = UnitResult(unit.harness, str(unit.source), dest)
    res.deps = incremental.fingerprint(unit)  # before reading: a change meanwhile shows next run
    # the source's sha256 as the reader reads it (no second read to hash it)
    source_digest: Any = hashlib.sha256()
    records: Any = records_hashing(reader, unit, res.problems, source_digest)
    if records is None:
        source_digest = None
        res.sha256 = incremental.content_sha256(unit)
    res.bytes_in = sum(max(0, d[1]) for d in res.deps)
    red.start_unit(dest, unit.harness, reader.is_prose, getattr(reader, "prose_strings", None))
    red.types.clear(), red.blobs.clear()
    before = Counter(engine.stats)
    from tracepub.outputs.report import FileFold

    fold = FileFold()  # the report's view of these findings, folded here rather than in the main process
    actions: Counter[str] = Counter()
    skipped = 0
    skip_ok = engine.prefilter.line_skip
    target, found = task.out / DATASET / task.dest, _part_path(task.out, task.dest)
    if records is None:
        records = reader.records(unit, res.problems)
    batched = engine.prefetches
    deny: DenyMatcher | None = _WORKER.get("deny")
    # Records are lines, written back one a line: none holds a line break (readers split on it).
    lines = unit.kind != "json"

    def needs_walk(rec: Record) -> bool:
        if not skip_ok or rec.raw is None or rec.raw_text:
            return True
        hits = engine.line_hits(rec.raw)
        return hits == Prefilter.ANY or (hits == Prefilter.PROSE and reader.may_have_prose(rec.value))

    try:
        with hashing_writer(target, WRITE_BUFFER) as (fh, digest), atomic_writer(found, "wb", WRITE_BUFFER) as ff:

            def flush(batch: list[Record]) -> None:
                nonlocal skipped
                if deny is not None:
                    for rec in batch:
                        deny.check_record(rec)  # before redaction: the rule sees the original text
                walk = [needs_walk(rec) for rec in batch]
                if batched:  # NER on the prose of the whole batch at once
                    engine.prefetch([s for rec, w in zip(batch, walk, strict=True)
                                     if w and not rec.raw_text for s in red.prose_strings(rec.value)])
                for rec, w in zip(batch, walk, strict=True):
                    line: bytes
                    if not w:
                        line = rec.raw.encode("utf-8")  # type: ignore[union-attr]
                        skipped += 1
                    else:
                        new = red.redact_record(rec.index, rec.value)
                        if new is rec.value and rec.raw is not None:
                            line = rec.raw.encode("utf-8")
                        elif rec.raw_text:
                            line = new.encode("utf-8")
                        else:
                            line = _encode(rec.raw, new, lines)  # bytes as orjson made them: no decode, no encode
                        if red.findings:
                            ff.write(red.findings_jsonl())
                            red.fold_findings(fold, actions)
                            red.findings.clear()
                    fh.write(line)  # a line can be megabytes: no copy to append its line break
                    if lines:
                        fh.write(b"\n")
                    res.records += 1

            batch: list[Record] = []
            size = 0
            for rec in records:
                batch.append(rec)
                size += len(rec.raw) if rec.raw is not None else 0
                if len(batch) >= BATCH_RECORDS or size >= BATCH_BYTES:
                    flush(batch)
                    batch, size = [], 0
            flush(batch)
        res.written = (digest.hexdigest(), file_stamp(target))
        if source_digest is not None:  # every record read: the digest is of the whole file
            res.sha256 = incremental.content_sha256(unit, {unit.source: source_digest.digest()})
    except Denied as d:  # atomic_writer removed its temporary files: nothing of it was written
        res.ok, res.denied, red.findings = False, d.hit.to_json(), []
        actions.clear()
        fold = FileFold()
        with contextlib.suppress(OSError):
            target.unlink()  # an earlier run's file
    except Exception as exc:  # corrupt store, vanished file...: reported, nothing half-written
        res.ok = False
        res.problems.append(Problem(str(unit.source), None, f"failed: {type(exc).__name__}: {exc}"))
        with contextlib.suppress(OSError):
            target.unlink()
        red.findings = []
        actions.clear()
        fold = FileFold()
        with atomic_writer(found, "wb"):
            pass
    res.fold = fold
    res.found = dict(red.found) if res.ok else {}
    if res.found:
        res.sealed = incremental.seal(res.found, unit, red.namer.key)
    res.types = dict(red.types)
    res.blobs = dict(red.blobs)
    res.actions = dict(actions)
    perf = Counter(engine.stats)
    perf.subtract(before)
    res.perf = {k: v for k, v in perf.items() if v} | {"lines": res.records, "lines_skipped": skipped}
    return res


def _part_path(out_dir: Path, dest: str) -> Path:
    return out_dir / REVIEW / PARTS / (hashlib.sha1(dest.encode()).hexdigest()[:16] + ".jsonl")


def _write_part(out_dir: Path, dest: str, findings: list[dict], name: str | None = None) -> None:
    path = out_dir / REVIEW / PARTS / name if name else _part_path(out_dir, dest)
    with atomic_writer(path, "wb") as fh:
        for f in findings:
            fh.write(orjson.dumps(f) + b"\n")


def _run_one(task: Task) -> UnitResult:
    return _process(task)


# -- main side ---------------------------------------------------------------------------------
def config_hash(opts: RunOptions, namer: Namer) -> str:
    cfg = asdict(opts.detect)
    cfg["identity"] = sorted(namer.value_id(v) + ":" + t for v, t in cfg["identity"].items())
    cfg["extra_rules"] = [hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in cfg["extra_rules"]]
    cfg["remove_blobs"] = opts.remove_blobs
    cfg["keep"] = sorted(opts.keep_ids)
    cfg["version"] = __version__
    return hashlib.sha256(json.dumps(cfg, sort_keys=True).encode()).hexdigest()


def _safe_part(part: str) -> str:
    """A component of an output path that stays where it is put: ``dest`` is joined under
    dataset/, so a ``..`` (or a separator, or an absolute relpath's root) would write outside
    it. Readers sanitise names they take from content (``_filename``); this holds whatever a
    reader or a redacted component makes."""
    part = part.replace("/", "_")
    return part if part not in ("", ".", "..") else "_" * max(1, len(part))


def assign_dests(units: list[Unit], red: Redactor, found: list[Found] | None = None) -> tuple[list[str], list[dict]]:
    """Output paths: the harness folder, then the source's relative path with its components
    redacted (usernames live in folder names); duplicates get ``-2``, ``-3``.
    Returns the paths and the findings made in file and folder names; the values found in
    them that are redacted everywhere are appended to ``found``."""
    taken: set[str] = set()
    dests: list[str] = []
    findings: list[dict] = []
    for u in units:
        red.start_unit("", u.harness, None)
        parts = [_safe_part(red.redact_text(p, ("#file",))) for p in Path(u.relpath).parts]
        if found is not None and red.found:
            found.append(red.found)
        dest = "/".join([u.harness, *parts])
        if dest in taken:
            stem, dot, suffix = dest.rpartition(".")
            n = 2
            while f"{stem}-{n}{dot}{suffix}" in taken:
                n += 1
            dest = f"{stem}-{n}{dot}{suffix}"
        taken.add(dest)
        dests.append(dest)
        for f in red.finding_dicts():
            f["file"] = dest
            findings.append(f)
    return dests, findings


def run(opts: RunOptions) -> RunSummary:
    """Redact ``opts.sources`` into ``opts.out`` (the module's docstring).

    Automatic garbage collection is off from here until ``_warm`` freezes what start-up built
    and sets the workers' thresholds (what the ``gc`` documentation advises before a fork
    without exec): imports, rules and the spaCy model make hundreds of thousands of objects and
    under a megabyte of cyclic garbage (frozen with the rest), and the collections their
    allocations set off walked that growing heap again and again, a tenth of a second of the
    serial start-up. It is off by a threshold of 0, not ``gc.disable()``, which spaCy's model
    load undoes (srsly's msgpack reader calls ``gc.enable()``)."""
    before = gc.get_threshold()
    gc.set_threshold(0)
    try:
        return _run(opts)
    finally:
        if gc.get_threshold()[0] == 0:  # no worker was started (``_warm`` sets the thresholds)
            gc.set_threshold(*before)


def _run(opts: RunOptions) -> RunSummary:
    from tracepub.review import runstate

    given = opts  # what run.json stores; decisions are re-read from review/ on every run
    opts = runstate.with_decisions(opts)
    out = opts.out
    review = out / REVIEW
    review.mkdir(parents=True, exist_ok=True)
    key = load_key(review)
    namer = Namer(key)
    defaults = opts.defaults or not opts.sources
    sources = opts.sources or default_sources()
    disc = discover(sources, defaults=defaults)
    deny = DenyMatcher(opts.deny) if opts.deny else None
    shutil.rmtree(review / "dropped", ignore_errors=True)  # sessions.drop_session's stash: stale now
    plan = selection.plan(disc.units, opts.selection, decisions.load(out).dropped_sessions, deny)
    units = plan.units
    opts = harvest.with_learned(opts, units)  # the owners the sessions' working folders name

    path_red = Redactor(Engine(opts.detect, path_detectors(opts.detect)), namer, opts.keep_ids)
    path_found: list[Found] = []
    dests, path_findings = assign_dests(units, path_red, path_found)

    summary = RunSummary(out=str(out))
    summary.skipped = disc.skipped
    summary.duplicates = disc.duplicates
    problems: list[Problem] = list(disc.problems)

    chash = config_hash(opts, namer)
    state = incremental.State(out, incremental.run_key(chash, _unit_options(opts)), namer.value_id)
    started = time.perf_counter()
    results = _redact_units(opts, key, units, dests, state)
    found = merge([*path_found, *(r.found for r in results if r.ok)])
    if found:
        dests, path_findings, path_red = _everywhere(opts, key, units, dests, results, found)
    for i, r in enumerate(results):
        if r.ok and not r.reused:
            state.record(r.dest, units[i], r.deps, r.sha256, out / DATASET / r.dest, _part_path(out, r.dest),
                         _result_json(r))
    redacted = time.perf_counter()
    summary.ner = _WORKER["ner"] if "ner" in _WORKER else None
    summary.reused = sum(1 for r in results if r.reused)
    perf: Counter[str] = Counter()
    for r in results:
        perf.update(r.perf)
    summary.perf = dict(sorted(perf.items()))
    state.save()
    left_out = selection.settle(plan, units, results, dests, deny)  # a denied file takes its session along
    path_findings = [f for f in path_findings if f["file"] not in left_out]

    produced = {r.dest for r in results if r.ok}
    _remove_stale(out / DATASET, produced)
    _remove_stale_parts(out, {_part_path(out, r.dest).name for r in results if r.ok} | {"paths.jsonl"})
    _write_part(out, "", path_findings, name="paths.jsonl")  # findings in file and folder names

    types: Counter[str] = Counter(f["type"] for f in path_findings)
    actions: Counter[str] = Counter(f["action"] for f in path_findings)
    blobs: Counter[str] = Counter()
    harnesses: Counter[str] = Counter()
    counted: set = set()  # a store file (OpenCode/Hermes DB) holds many sessions: its bytes count once
    for r in results:
        problems.extend(r.problems)
        if not r.ok:
            continue
        summary.files += 1
        summary.records += r.records
        if r.deps:
            fresh = [d for d in r.deps if d[0] not in counted]
            counted.update(d[0] for d in fresh)
            summary.bytes_in += sum(max(0, d[1]) for d in fresh)
        else:
            summary.bytes_in += r.bytes_in
        harnesses[r.harness] += 1
        types.update(r.types)
        actions.update(r.actions)
        blobs.update(r.blobs)
    summary.sessions = summary.files
    summary.findings = dict(sorted(types.items()))
    summary.actions = dict(sorted(actions.items()))
    summary.blobs = dict(sorted(blobs.items()))
    summary.harnesses = dict(sorted(harnesses.items()))
    summary.problems = [str(p) for p in problems]
    summary.denied, summary.dropped = plan.denied, plan.dropped
    summary.selection = selection.summary_block(plan, opts.selection, len(opts.deny),
                                                selection.included(plan, units, results))
    # Paths in problems and skipped files hold usernames: what is written (run.json, the report)
    # goes through the same redaction as file names, so the identity is never written in clear.
    path_red.start_unit("", "", None)
    summary.skipped = [path_red.redact_text(p) for p in summary.skipped]
    summary.problems = [path_red.redact_text(p) for p in summary.problems]
    for entry in (*summary.denied, *summary.dropped):
        if isinstance(entry, dict) and isinstance(entry.get("files"), list):
            entry["files"] = [path_red.redact_text(f) if isinstance(f, str) else f for f in entry["files"]]

    # findings.jsonl is a copy of every part (as big as the input): made beside the rest, in a
    # thread (file reads and writes release the interpreter lock), before the summary is returned.
    background = ThreadPoolExecutor(1)
    concat = background.submit(_concat_findings, out, [r.dest for r in results if r.ok])
    try:
        _assemble(opts, given, defaults, sources, summary, plan, units, results, path_red, path_findings, chash)
    finally:
        background.shutdown()
    concat.result()
    summary.perf["redact_ms"] = round((redacted - started) * 1000)  # workers (and reuse checks)
    summary.perf["assemble_ms"] = round((time.perf_counter() - redacted) * 1000)  # findings, report, card, manifest
    return summary


def _assemble(opts: RunOptions, given: RunOptions, defaults: bool, sources: list, summary: RunSummary, plan: Any,
              units: list[Unit], results: list[UnitResult], path_red: Redactor, path_findings: list[dict],
              chash: str) -> None:
    """run.json, identity.json, the dataset card, the report and the manifest."""
    from tracepub.review import runstate

    out = opts.out
    review = out / REVIEW
    runstate.save(dataclasses.replace(given, defaults=defaults), sources, summary.to_json(),
                  units=_scrub_units(selection.unit_records(plan, units, results), path_red))  # for drop_session
    write_json(review / IDENTITY_FILE, {"identity": opts.identity_summary, "ner": summary.ner})
    from tracepub.outputs import card, report

    card.write_card(out, summary, opts.card)
    # The report's fold of findings.jsonl, from the folds the workers made of their files.
    agg = report.Aggregate()
    for f in path_findings:
        report.add_finding(agg, f, f["file"])
    for r in results:
        if r.ok:
            report.merge(agg, r.fold if r.fold is not None else report.fold_part(_part_path(out, r.dest)))
    report.write_report(out, summary, agg)
    written = {r.dest: r.written for r in results if r.ok and r.written is not None}  # hashed by the workers
    manifest = build_manifest(out, chash, uuid.uuid4().hex, manifest_extra(summary), written)
    summary.manifest_sha256 = write_manifest(out, manifest)


def manifest_extra(summary: RunSummary) -> dict[str, Any]:
    return {"summary": {"files": summary.files, "findings": summary.findings, "blobs": summary.blobs},
            "selection": summary.selection}


def _scrub_units(records: list[dict], red: Redactor) -> list[dict]:
    """Unit source and relative paths name the user (``-home-NAME-src``); nothing reads them
    back (drop_session matches session ids), so run.json keeps them redacted like file names."""
    for r in records:
        for k in ("source", "relpath"):
            if isinstance(r.get(k), str):
                r[k] = red.redact_text(r[k])
    return records


def _unit_options(opts: RunOptions) -> Any:
    """Options besides the detection config that change a unit's output (incremental key)."""
    return {"remove_blobs": opts.remove_blobs, "deny": getattr(opts, "deny", None)}


def _redact_units(opts: RunOptions, key: bytes, units: list[Unit], dests: list[str],
                  state: Any) -> list[UnitResult]:
    """Reuse unchanged units, run the rest on ``jobs`` processes (largest first, so one big
    file does not finish last alone), and return one result per unit in unit order: the output
    does not depend on the number of processes or their timing."""
    out = opts.out
    results: list[UnitResult | None] = [None] * len(units)
    tasks: list[Task] = []
    for i, (u, d) in enumerate(zip(units, dests, strict=True)):
        entry = state.reusable(u, d, out / DATASET / d, _part_path(out, d))
        found = _reused_found(entry, u, key)
        if entry is not None and found is not None:
            reused = results[i] = _result_from(entry["result"], d)
            reused.found, reused.sealed = found, entry["result"].get("found")
            reused.deps = entry["deps"]  # (keyed names): a store file's bytes still count once
            state.keep(d, entry)
            continue
        tasks.append(_task(i, u, d, out))
    initargs = (opts.detect, key, opts.keep_ids, opts.remove_blobs, tuple(opts.deny))
    _init_worker(*initargs)  # here too: forked workers inherit it (imports, models) for free
    jobs = max(1, min(opts.jobs or os.cpu_count() or 1, len(tasks)))
    bar = _progress(len(tasks), opts.progress)
    for t, r in zip(tasks, _run_tasks(tasks, jobs, initargs, bar), strict=True):
        results[t.index] = r
    bar.close()
    return results  # type: ignore[return-value]


def _reused_found(entry: dict | None, unit: Unit, key: bytes) -> Found | None:
    """A reusable unit's found values ({} for none), or None if they cannot be opened (redo it)."""
    if entry is None:
        return None
    sealed = entry["result"].get("found", False)
    if sealed is False:  # an entry of an older version: its values are unknown
        return None
    return {} if sealed is None else incremental.unseal(sealed, unit, key)


def _everywhere(opts: RunOptions, key: bytes, units: list[Unit], dests: list[str], results: list[UnitResult],
                found: Found) -> tuple[list[str], list[dict], Redactor]:
    """The second pass (``detect.found``): the values redacted somewhere are redacted everywhere.
    File and folder names are named again with them; a file whose name changes, or whose
    written bytes still hold one of them in clear, is redacted again from its source with
    them added to the engine. ``results`` is updated in place; returns the new output paths,
    the findings in names, and the redactor of names (it also redacts problems and paths)."""
    out = opts.out
    path_red = Redactor(Engine(opts.detect, path_detectors(opts.detect, found)), Namer(key), opts.keep_ids)
    new_dests, path_findings = assign_dests(units, path_red)
    scanner = Scanner(found, opts.detect.identity)
    with ThreadPoolExecutor(max(1, opts.jobs or os.cpu_count() or 1)) as pool:  # the automaton releases the GIL
        holds = list(pool.map(lambda r: r.ok and scanner.holds(out / DATASET / r.dest), results))
    redo = [i for i, r in enumerate(results) if r.ok and (new_dests[i] != dests[i] or holds[i])]
    if redo:
        tasks = [_task(i, units[i], new_dests[i], out) for i in redo]
        initargs = (opts.detect, key, opts.keep_ids, opts.remove_blobs, tuple(opts.deny), found)
        _init_worker(*initargs)
        jobs = max(1, min(opts.jobs or os.cpu_count() or 1, len(tasks)))
        for t, r in zip(tasks, _run_tasks(tasks, jobs, initargs, _NoBar()), strict=True):
            r.found = results[t.index].found  # what the first pass found there (the reuse check)
            r.perf["files_redone"] = 1
            results[t.index] = r
    return new_dests, path_findings, path_red


def _run_tasks(tasks: list[Task], jobs: int, initargs: tuple, bar) -> list[UnitResult]:
    done: list[UnitResult | None] = [None] * len(tasks)
    if jobs <= 1:
        if tasks:
            _warm()
        for n, t in enumerate(tasks):
            done[n] = _run_one(t)
            bar.update(1)
    elif tasks:
        _warm()
        order = sorted(range(len(tasks)), key=lambda n: -tasks[n].size)
        with ProcessPoolExecutor(jobs, initializer=_init_worker, initargs=initargs) as pool:
            futures = {pool.submit(_run_one, tasks[n]): n for n in order}
            # The workers are forked: the main process compiles the report's template meanwhile
            # (joined before anything forks again; a failure shows when the report is written).
            from tracepub.outputs import report

            def compile_template() -> None:
                with contextlib.suppress(Exception):
                    report.load_template()

            template = threading.Thread(target=compile_template, daemon=True)
            template.start()
            try:
                for fut in as_completed(futures):
                    done[futures[fut]] = fut.result()
                    bar.update(1)
            finally:
                template.join()
    return done  # type: ignore[return-value]


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
    from tracepub.outputs import report  # noqa: F401  (workers fold findings with it: imported once, here, not in each)

    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)  # (automatic collection was off since ``run`` started)


def _task(i: int, unit: Unit, dest: str, out: Path) -> Task:
    try:
        size = sum(p.stat().st_size for p in (unit.deps or (unit.source,)))
    except OSError:
        size = 0
    return Task(i, unit, dest, out, size=size)


def _result_json(r: UnitResult) -> dict[str, Any]:
    # ``found``: the values the unit redacted that are redacted everywhere, sealed
    # (incremental.seal): a reused unit's values are still looked for in every other file.
    return {"harness": r.harness, "records": r.records, "bytes_in": r.bytes_in, "types": r.types,
            "actions": r.actions, "blobs": r.blobs, "problems": [asdict(p) for p in r.problems],
            "found": r.sealed if r.found else None}


def _result_from(data: dict[str, Any], dest: str) -> UnitResult:
    r = UnitResult(data["harness"], "", dest, records=data["records"], bytes_in=data["bytes_in"],
                   types=data["types"], actions=data["actions"], blobs=data["blobs"],
                   problems=[Problem(**p) for p in data["problems"]], reused=True)
    r.perf = {"lines_reused": r.records}
    return r


def _remove_stale(dataset: Path, produced: set[str]) -> None:
    """Files left by an earlier run that this run did not produce must not be published."""
    if not dataset.exists():
        return
    for p in sorted(dataset.rglob("*"), reverse=True):
        rel = p.relative_to(dataset).as_posix()
        if p.is_file() and rel not in produced and rel != "README.md":
            p.unlink()
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()


def _remove_stale_parts(out: Path, keep: set[str]) -> None:
    parts = out / REVIEW / PARTS
    if parts.exists():
        for p in parts.iterdir():
            if p.name not in keep:
                p.unlink()


def _concat_findings(out: Path, dests: list[str]) -> None:
    review = out / REVIEW
    with atomic_writer(review / FINDINGS, "wb") as fh:
        for name in ["paths.jsonl", *(_part_path(out, d).name for d in dests)]:
            part = review / PARTS / name
            if part.exists():
                append_file(part, fh)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool):
    if not enabled or not sys.stderr.isatty():
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="file", desc="redacting", file=sys.stderr)


__all__ = ["RunOptions", "RunSummary", "run", "MANIFEST"]
