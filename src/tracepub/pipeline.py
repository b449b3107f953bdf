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
import hashlib
import json
import os
import shutil
import sys
import uuid
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from tracepub import __version__, decisions, selection
from tracepub.deny import Denied, DenyMatcher
from tracepub.detect import DetectConfig, Engine, path_detectors
from tracepub.discover import default_sources, discover
from tracepub.model import Problem, Unit
from tracepub.output import (
    DATASET,
    MANIFEST,
    REVIEW,
    atomic_writer,
    build_manifest,
    write_json,
    write_manifest,
)
from tracepub.placeholders import Namer, load_key
from tracepub.readers import reader_for_unit
from tracepub.redact import Redactor
from tracepub.walk import dumps_like

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

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# -- worker side ------------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def _init_worker(cfg: DetectConfig, key: bytes, keep_ids: set[str], remove_blobs: bool, deny: list = ()) -> None:
    engine = Engine(cfg)
    _WORKER["deny"] = DenyMatcher(deny) if deny else None
    _WORKER["redactor"] = Redactor(engine, Namer(key), keep_ids, remove_blobs)
    _WORKER["ner"] = engine.ner_model


def _encode(rec_raw: str | None, new: Any) -> str:
    if rec_raw is None:
        return orjson.dumps(new).decode()
    return dumps_like(rec_raw, new)


def process_unit(unit: Unit, dest: str, out_dir: Path) -> UnitResult:
    red: Redactor = _WORKER["redactor"]
    reader = reader_for_unit(unit)
    res = UnitResult(unit.harness, str(unit.source), dest)
    with contextlib.suppress(OSError):
        res.bytes_in = sum(p.stat().st_size for p in unit.deps) if unit.deps else unit.source.stat().st_size
    red.start_unit(dest, unit.harness, reader.is_prose)
    red.types.clear(), red.blobs.clear()
    target = out_dir / DATASET / dest
    deny: DenyMatcher | None = _WORKER.get("deny")
    try:
        with atomic_writer(target) as fh:
            for rec in reader.records(unit, res.problems):
                if deny is not None:
                    deny.check_record(rec)  # before redaction: the rule sees the original text
                new = red.redact_record(rec.index, rec.value)
                if new is rec.value and rec.raw is not None:
                    line = rec.raw
                elif rec.raw_text:
                    line = new
                else:
                    line = _encode(rec.raw, new)
                fh.write(line if unit.kind == "json" else line + "\n")
                res.records += 1
    except Denied as d:  # atomic_writer removed its temporary file: nothing of it was written
        res.ok, res.denied, red.findings = False, d.hit.to_json(), []
        with contextlib.suppress(OSError):
            target.unlink()  # an earlier run's file
    except Exception as exc:  # corrupt store, vanished file...: reported, nothing half-written
        res.ok = False
        res.problems.append(Problem(str(unit.source), None, f"failed: {type(exc).__name__}: {exc}"))
        with contextlib.suppress(OSError):
            target.unlink()
        red.findings = []
    _write_part(out_dir, dest, red.findings)
    res.types = dict(red.types)
    res.blobs = dict(red.blobs)
    res.actions = dict(Counter(f["action"] for f in red.findings))
    return res


def _part_path(out_dir: Path, dest: str) -> Path:
    return out_dir / REVIEW / PARTS / (hashlib.sha1(dest.encode()).hexdigest()[:16] + ".jsonl")


def _write_part(out_dir: Path, dest: str, findings: list[dict], name: str | None = None) -> None:
    path = out_dir / REVIEW / PARTS / name if name else _part_path(out_dir, dest)
    with atomic_writer(path, "wb") as fh:
        for f in findings:
            fh.write(orjson.dumps(f) + b"\n")


def _run_one(args: tuple[Unit, str, Path]) -> UnitResult:
    return process_unit(*args)


# -- main side ---------------------------------------------------------------------------------
def config_hash(opts: RunOptions, namer: Namer) -> str:
    cfg = asdict(opts.detect)
    cfg["identity"] = sorted(namer.value_id(v) + ":" + t for v, t in cfg["identity"].items())
    cfg["extra_rules"] = [hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in cfg["extra_rules"]]
    cfg["remove_blobs"] = opts.remove_blobs
    cfg["keep"] = sorted(opts.keep_ids)
    cfg["version"] = __version__
    return hashlib.sha256(json.dumps(cfg, sort_keys=True).encode()).hexdigest()


def assign_dests(units: list[Unit], red: Redactor) -> tuple[list[str], list[dict]]:
    """Output paths: the harness folder, then the source's relative path with its components
    redacted (usernames live in folder names); duplicates get ``-2``, ``-3``.
    Returns the paths and the findings made in file and folder names."""
    taken: set[str] = set()
    dests: list[str] = []
    findings: list[dict] = []
    for u in units:
        red.start_unit("", u.harness, None)
        parts = [red.redact_text(p, ("#file",)) for p in Path(u.relpath).parts]
        dest = "/".join([u.harness, *parts])
        if dest in taken:
            stem, dot, suffix = dest.rpartition(".")
            n = 2
            while f"{stem}-{n}{dot}{suffix}" in taken:
                n += 1
            dest = f"{stem}-{n}{dot}{suffix}"
        taken.add(dest)
        dests.append(dest)
        for f in red.findings:
            f["file"] = dest
        findings.extend(red.findings)
    return dests, findings


def run(opts: RunOptions) -> RunSummary:
    from tracepub import runstate

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

    path_red = Redactor(Engine(opts.detect, path_detectors(opts.detect)), namer, opts.keep_ids)
    dests, path_findings = assign_dests(units, path_red)

    summary = RunSummary(out=str(out))
    summary.skipped = disc.skipped
    summary.duplicates = disc.duplicates
    problems: list[Problem] = list(disc.problems)

    jobs = opts.jobs or os.cpu_count() or 1
    jobs = max(1, min(jobs, len(units)))
    tasks = [(u, d, out) for u, d in zip(units, dests, strict=True)]
    results: list[UnitResult] = []
    bar = _progress(len(tasks), opts.progress)
    if jobs == 1:
        _init_worker(opts.detect, key, opts.keep_ids, opts.remove_blobs, opts.deny)
        summary.ner = _WORKER["ner"]
        for t in tasks:
            results.append(_run_one(t))
            bar.update(1)
    else:
        with ProcessPoolExecutor(jobs, initializer=_init_worker,
                                 initargs=(opts.detect, key, opts.keep_ids, opts.remove_blobs, opts.deny)) as pool:
            for r in pool.map(_run_one, tasks, chunksize=1):
                results.append(r)
                bar.update(1)
        from tracepub.detect.pii import ner_model_name

        summary.ner = ner_model_name() if opts.detect.ner else None
    bar.close()
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
    for r in results:
        problems.extend(r.problems)
        if not r.ok:
            continue
        summary.files += 1
        summary.records += r.records
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

    _concat_findings(out, [r.dest for r in results if r.ok])
    chash = config_hash(opts, namer)
    runstate.save(dataclasses.replace(given, defaults=defaults), sources, summary.to_json(),
                  units=_scrub_units(selection.unit_records(plan, units, results), path_red))  # for drop_session
    write_json(review / IDENTITY_FILE, {"identity": opts.identity_summary, "ner": summary.ner})
    from tracepub import card, report

    card.write_card(out, summary, opts.card)
    report.write_report(out, summary)
    manifest = build_manifest(out, chash, uuid.uuid4().hex, manifest_extra(summary))
    summary.manifest_sha256 = write_manifest(out, manifest)
    return summary


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
                with open(part, "rb") as src:
                    for chunk in iter(lambda s=src: s.read(1 << 20), b""):
                        fh.write(chunk)


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
