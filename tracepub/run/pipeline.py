"""The run: discover → select → output paths → workers → the second pass → assemble.

The main process discovers units, decides their output paths and hands units to worker
processes (``run.workers``, ``--jobs``), reusing units whose sources did not change
(``run.incremental``). Values redacted anywhere are then looked for everywhere (the second
pass, ``_everywhere``), and the results are assembled (``run.assemble``) in a fixed order, so
the output is the same bytes for any number of workers.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import os
import shutil
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

import orjson

from tracepub import __version__
from tracepub.detect.engine import Engine
from tracepub.detect.found import Found, Scanner, merge
from tracepub.detect.registry import path_detectors
from tracepub.errors import Refusal
from tracepub.model import Problem, Unit
from tracepub.outdir import OutDir
from tracepub.outputs.files import atomic_writer, write_json
from tracepub.readers import READERS
from tracepub.redact.placeholders import Namer, load_key
from tracepub.redact.redactor import Redactor
from tracepub.review import decisions, runstate
from tracepub.run import assemble, incremental, workers
from tracepub.run.results import UnitResult, unit_problems, unit_records
from tracepub.runtypes import RunOptions, RunSummary
from tracepub.selection import select as selection
from tracepub.selection.deny import DenyMatcher
from tracepub.sources import harvest
from tracepub.sources.discover import default_sources, discover, nothing_found


def config_hash(opts: RunOptions, namer: Namer) -> str:
    cfg = asdict(opts.detect)
    cfg["identity"] = sorted(namer.value_id(v) + ":" + t for v, t in cfg["identity"].items())
    cfg["extra_rules"] = [hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in cfg["extra_rules"]]
    cfg["remove_blobs"] = opts.remove_blobs
    cfg["keep"] = sorted(opts.keep_ids)
    cfg["version"] = __version__
    if not cfg["replace"]:
        del cfg["replace"]  # the default: hashed as before the option existed
    return hashlib.sha256(json.dumps(cfg, sort_keys=True).encode()).hexdigest()


def _safe_part(part: str) -> str:
    """A component of an output path that stays where it is put: ``dest`` is joined under
    dataset/, so a ``..`` (or a separator, or an absolute relpath's root) would write outside
    it. Readers sanitise names they take from content (``_filename``); this holds whatever a
    reader or a redacted component makes."""
    part = part.replace("/", "_")
    return part if part not in ("", ".", "..") else "_" * max(1, len(part))


# The longest name a file system takes (bytes, NAME_MAX on Linux and macOS). A file is written
# as ``.NAME.XXXXXXXX.tmp`` beside its place first (``outputs.writers``): 14 bytes more, and 8
# are left for the ``-N`` of a duplicate name.
NAME_MAX = 255
FILE_NAME_MAX = NAME_MAX - 14 - 8


def _fit(part: str, limit: int) -> str:
    """``part`` if its UTF-8 fits in ``limit`` bytes, else cut (at a character) with ``~`` and a
    hash of the whole name before its extension: redaction lengthens names (``jdoe`` ->
    ``<USER>``), and a source folder near 255 bytes made a name no file system takes, which
    lost the session. The same name is always cut the same way, and two names cut to one
    start still differ by their hash."""
    data = part.encode("utf-8", "surrogateescape")
    if len(data) <= limit:
        return part
    stem, dot, ext = part.rpartition(".")
    if not dot or not stem or len(ext.encode("utf-8", "surrogateescape")) > 16:
        stem, ext = part, ""
    tail = "~" + hashlib.sha256(data).hexdigest()[:12] + (f".{ext}" if ext else "")
    room = limit - len(tail.encode("utf-8"))
    head = stem.encode("utf-8", "surrogateescape")[:room].decode("utf-8", "ignore")
    return head + tail


def assign_dests(
    units: list[Unit], red: Redactor, found: list[Found] | None = None, notes: list[Problem] | None = None
) -> tuple[list[str], list[dict]]:
    """Output paths: the harness folder, then the source's relative path with its components
    redacted (usernames live in folder names) and cut to what a file system takes (``_fit``);
    duplicates get ``-2``, ``-3``.
    Returns the paths and the findings made in file and folder names; the values found in
    them that are redacted everywhere are appended to ``found``, and a line for each name cut
    to ``notes`` (nothing is changed without a line in the summary)."""
    taken: set[str] = set()
    dests: list[str] = []
    findings: list[dict] = []
    for u in units:
        red.start_unit("", u.harness, None)
        named = [_safe_part(red.redact_text(p, ("#file",))) for p in Path(u.relpath).parts]
        parts = [_fit(p, FILE_NAME_MAX if i == len(named) - 1 else NAME_MAX) for i, p in enumerate(named)]
        if notes is not None and parts != named:
            notes.extend(
                Problem(
                    str(u.source),
                    None,
                    f"name {len(a.encode('utf-8', 'surrogateescape'))} bytes "
                    f"long once redacted, more than a file system takes: written as {b}",
                )
                for a, b in zip(named, parts, strict=True)
                if a != b
            )
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


# How the unit tasks of a stage ("redact": the first pass, "redo": the second) are run: given the
# stage, its tasks, the number of jobs, the workers' arguments and a progress bar, the (task,
# result) of every task (in any order; a distributed engine may add the tasks an interrupted
# attempt of the same stage had: ``tracepub.dist``). The default runs them on this machine.
MapTasks = Callable[
    [str, list[workers.Task], int, workers.WorkerArgs, workers.Progress],
    Iterable[tuple[workers.Task, UnitResult]],
]


def local_map(
    stage: str, tasks: list[workers.Task], jobs: int, args: workers.WorkerArgs, bar: workers.Progress
) -> Iterable[tuple[workers.Task, UnitResult]]:
    """The tasks on this machine's processes (``--jobs``)."""
    return zip(tasks, workers.run_tasks(tasks, jobs, args, bar, group=stage == "redact"), strict=True)


def run(opts: RunOptions, map_tasks: MapTasks = local_map) -> RunSummary:
    """Redact ``opts.sources`` into ``opts.out`` (the module's docstring). ``map_tasks``: what
    runs the workers' tasks (``local_map``; ``tracepub.dist`` runs them on a distributed engine).

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
        return _run(opts, map_tasks)
    finally:
        if gc.get_threshold()[0] == 0:  # no worker was started (``_warm`` sets the thresholds)
            gc.set_threshold(*before)


def _run(opts: RunOptions, map_tasks: MapTasks) -> RunSummary:
    given = opts  # what run.json stores; decisions are re-read from review/ on every run
    opts = runstate.with_decisions(opts)
    od = OutDir(opts.out)
    defaults = opts.defaults or not opts.sources
    sources = opts.sources or default_sources()
    disc = discover(sources, defaults=defaults)
    refused = nothing_found(sources, disc, defaults)
    if refused is not None:  # before anything is written: an earlier run's DIR stays as it was
        raise Refusal(refused)
    od.review.mkdir(parents=True, exist_ok=True)
    key = load_key(od.review)
    namer = Namer(key)
    deny = DenyMatcher(opts.deny) if opts.deny else None
    shutil.rmtree(od.dropped, ignore_errors=True)  # sessions.drop_session's stash: stale now
    plan = selection.plan(disc.units, opts.selection, decisions.load(od.root).dropped_sessions, deny)
    units = plan.units
    opts = harvest.with_learned(opts, units)  # the owners the sessions' working folders name

    path_red = Redactor(Engine(opts.detect, path_detectors(opts.detect), few=True), namer, opts.keep_ids)
    path_found: list[Found] = []
    names: list[Problem] = []  # output names cut to fit (assign_dests)
    dests, path_findings = assign_dests(units, path_red, path_found, names)

    summary = RunSummary(out=str(od.root))
    summary.skipped = disc.skipped
    summary.duplicates = disc.duplicates
    problems: list[Problem] = list(disc.problems)

    chash = config_hash(opts, namer)
    state = incremental.State(od.root, incremental.run_key(chash, _unit_options(opts)), namer.value_id)
    started = time.perf_counter()
    results = _redact_units(opts, key, units, dests, state, map_tasks)
    found = merge([*path_found, *(r.found for r in results if r.ok)])
    if found:
        dests, path_findings, path_red = _everywhere(
            opts, key, units, dests, results, found, names, map_tasks
        )
    for i, r in enumerate(results):
        if r.ok and not r.reused:
            state.record(r.dest, units[i], r.deps, r.sha256, od.output(r.dest), od.part(r.dest), r.to_json())
    redacted = time.perf_counter()
    summary.ner = workers.ner_model()
    summary.reused = sum(1 for r in results if r.reused)
    perf: Counter[str] = Counter()
    for r in results:
        perf.update(r.perf)
    summary.perf = dict(sorted(perf.items()))
    state.save()
    left_out = selection.settle(plan, units, results, dests, deny)  # a denied file takes its session along
    path_findings = [f for f in path_findings if f["file"] not in left_out]

    _remove_stale(od, {r.dest for r in results if r.ok})
    _remove_stale_parts(od, {od.part(r.dest).name for r in results if r.ok} | {od.PATHS_PART})
    _write_paths_part(od, path_findings)  # findings in file and folder names

    problems.extend(names)
    problems.extend(unit_problems(units, results, {type(r).__name__: r.label for r in READERS}))
    assemble.tally(summary, results, path_findings)
    summary.problems = [str(p) for p in problems]
    summary.denied, summary.dropped = plan.denied, plan.dropped
    summary.selection = selection.summary_block(
        plan, opts.selection, len(opts.deny), selection.included(plan, units, results)
    )
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
    written = [r for r in results if r.ok]
    background = ThreadPoolExecutor(1)
    concat = background.submit(assemble.write_findings, od, path_findings, [r.dest for r in written])
    try:
        # run.json (what drop_session and a review re-run need) and identity.json, then the rest
        runstate.save(
            dataclasses.replace(given, defaults=defaults),
            sources,
            summary.to_json(),
            units=_scrub_units(unit_records(plan, units, results), path_red),
        )
        write_json(od.identity, {"identity": opts.identity_summary, "ner": summary.ner})
        digests = {r.dest: r.written for r in written if r.written is not None}  # hashed by the workers
        assemble.finish(
            od,
            summary,
            opts.card,
            assemble.aggregate(od, path_findings, written),
            chash,
            uuid.uuid4().hex,
            digests,
        )
    finally:
        background.shutdown()
    concat.result()
    summary.perf["redact_ms"] = round((redacted - started) * 1000)  # workers (and reuse checks)
    summary.perf["assemble_ms"] = round(
        (time.perf_counter() - redacted) * 1000
    )  # findings, report, card, manifest
    return summary


def _scrub_units(records: list[dict[str, Any]], red: Redactor) -> list[dict[str, Any]]:
    """Unit source and relative paths name the user (``-home-NAME-src``); nothing reads them
    back (drop_session matches session ids), so run.json keeps them redacted like file names."""
    for r in records:
        for k in ("source", "relpath"):
            if isinstance(r.get(k), str):
                r[k] = red.redact_text(r[k])
    return records


def _unit_options(opts: RunOptions) -> dict[str, Any]:
    """Options besides the detection config that change a unit's output (incremental key)."""
    return {"remove_blobs": opts.remove_blobs, "deny": opts.deny}


def _jobs(opts: RunOptions, tasks: int) -> int:
    return max(1, min(opts.jobs or os.cpu_count() or 1, tasks))


def _redact_units(
    opts: RunOptions,
    key: bytes,
    units: list[Unit],
    dests: list[str],
    state: incremental.State,
    map_tasks: MapTasks = local_map,
) -> list[UnitResult]:
    """Reuse unchanged units, run the rest on the workers, and return one result per unit in
    unit order: the output does not depend on the number of processes or their timing."""
    od = OutDir(opts.out)
    results: list[UnitResult | None] = [None] * len(units)
    tasks: list[workers.Task] = []
    for i, (u, d) in enumerate(zip(units, dests, strict=True)):
        entry = state.reusable(u, d, od.output(d), od.part(d))
        found = _reused_found(entry, u, key)
        if entry is not None and found is not None:
            # its deps are keyed names, as a worker's: a store file's bytes still count once
            reused = results[i] = UnitResult.reused_from(entry["result"], d, entry["deps"])
            reused.found, reused.sealed = found, entry["result"].get("found")
            state.keep(d, entry)
            continue
        tasks.append(workers.task(i, u, d, od.root))
    args = workers.worker_args(opts.detect, key, opts.keep_ids, opts.remove_blobs, opts.deny)
    workers.prepare(args)  # here too: forked workers inherit it (imports, models) for free
    bar = _progress(len(tasks), opts.progress)
    for t, r in map_tasks("redact", tasks, _jobs(opts, len(tasks)), args, bar):
        results[t.index] = r
    bar.close()
    return results  # type: ignore[return-value]  # every unit was reused or run


def _reused_found(entry: dict[str, Any] | None, unit: Unit, key: bytes) -> Found | None:
    """A reusable unit's found values ({} for none), or None if they cannot be opened (redo it)."""
    if entry is None:
        return None
    sealed = entry["result"].get("found", False)
    if sealed is False:  # an entry of an older version: its values are unknown
        return None
    return {} if sealed is None else incremental.unseal(sealed, unit, key)


def _everywhere(
    opts: RunOptions,
    key: bytes,
    units: list[Unit],
    dests: list[str],
    results: list[UnitResult],
    found: Found,
    names: list[Problem],
    map_tasks: MapTasks = local_map,
) -> tuple[list[str], list[dict[str, Any]], Redactor]:
    """The second pass (``detect.found``): the values redacted somewhere are redacted everywhere.
    File and folder names are named again with them; a file whose name changes, or whose
    written bytes still hold one of them in clear, is redacted again from its source with
    them added to the engine. ``results`` is updated in place; returns the new output paths,
    the findings in names, and the redactor of names (it also redacts problems and paths)."""
    od = OutDir(opts.out)
    path_red = Redactor(
        Engine(opts.detect, path_detectors(opts.detect, found), few=True), Namer(key), opts.keep_ids
    )
    names.clear()  # the names are made again
    new_dests, path_findings = assign_dests(units, path_red, notes=names)
    scanner = Scanner(found, opts.detect.identity)
    with ThreadPoolExecutor(
        max(1, opts.jobs or os.cpu_count() or 1)
    ) as pool:  # the automaton releases the GIL
        holds = list(pool.map(lambda r: r.ok and scanner.holds(od.output(r.dest)), results))
    redo = [i for i, r in enumerate(results) if r.ok and (new_dests[i] != dests[i] or holds[i])]
    if redo:
        tasks = [workers.task(i, units[i], new_dests[i], od.root) for i in redo]
        for t in tasks:  # the first pass's output is there to copy records from (``run.splice``)
            if new_dests[t.index] == dests[t.index]:
                t.trail = results[t.index].trail
        # Its automata hold the found values too: a DFA takes ~0.25 s more to build (before the
        # workers fork), which its faster search pays back only over more files than most runs send.
        few = sum(_size(od.output(results[i].dest)) for i in redo) < REDO_DFA_BYTES
        args = workers.worker_args(opts.detect, key, opts.keep_ids, opts.remove_blobs, opts.deny, found, few)
        workers.prepare(args)
        for t, r in map_tasks("redo", tasks, _jobs(opts, len(tasks)), args, _NoBar()):
            r.found = results[t.index].found  # what the first pass found there (the reuse check)
            r.perf["files_redone"] = 1
            results[t.index] = r
    return new_dests, path_findings, path_red


# Files sent back to the second pass, in bytes, from which its engine's automata are DFAs.
REDO_DFA_BYTES = 16 << 20


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _remove_stale(od: OutDir, produced: set[str]) -> None:
    """Files left by an earlier run that this run did not produce must not be published."""
    dataset = od.dataset
    if not dataset.exists():
        return
    for p in sorted(dataset.rglob("*"), reverse=True):
        rel = p.relative_to(dataset).as_posix()
        if p.is_file() and rel not in produced and rel != od.CARD:
            p.unlink()
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()


def _remove_stale_parts(od: OutDir, keep: set[str]) -> None:
    if od.parts.exists():
        for p in od.parts.iterdir():
            if p.name not in keep:
                p.unlink()


def _write_paths_part(od: OutDir, findings: list[dict[str, Any]]) -> None:
    """The findings in file and folder names, kept apart from the files' parts: a review drop
    takes the dropped files' out of findings.jsonl, and a restore brings them back."""
    with atomic_writer(od.paths_part, "wb") as fh:
        for f in findings:
            fh.write(orjson.dumps(f) + b"\n")


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool) -> workers.Progress:
    if not enabled or not sys.stderr.isatty():
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="file", desc="redacting", file=sys.stderr)
