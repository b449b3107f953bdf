"""``tracepub sessions`` (what is there to publish?) and dropping a session during review.

Listing uses the same discovery and autodetection as ``redact`` and each reader's ``info(unit)``:
no detection runs, so it is as fast as reading the files once. The project folder is shown as
it is on disk (this is the user's own terminal; nothing here is written anywhere).

Dropping (``drop_session``) takes effect at once, without a re-run: the session's files move
from dataset/ to review/dropped/ (review/ is never uploaded), and findings.jsonl, the report,
the dataset card and manifest.json are rebuilt from what the last run recorded in
review/run.json, by the code a run assembles them with (``run.assemble``). A re-run cannot
do this safely: it would need every option of the first run, and values given with
``--secret`` are deliberately not stored. The remaining files keep their
exact bytes; the manifest changes, so an earlier sign-off no longer matches and approve must be
run again. ``restore_session`` moves the files back when they were dropped since the last run;
for a session dropped before it (so never redacted by it), it records the decision and says to
run ``tracepub redact`` again. Either way the decision is appended to review/decisions.jsonl,
and every later ``redact`` into the same DIR leaves dropped sessions out.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonlines
import orjson

from tracepub.outdir import OutDir
from tracepub.outputs.files import read_manifest, write_json
from tracepub.review import decisions
from tracepub.run import assemble
from tracepub.run.results import UnitResult
from tracepub.runtypes import RunSummary
from tracepub.selection.select import Selection, SelectionError, Session, describe, parse_stamp, resolve_ids
from tracepub.sources.discover import Discovery, default_sources, discover


# -- listing -------------------------------------------------------------------------------------
def list_sessions(sources: list[Path], selection: Selection | None = None) -> tuple[list[Session], Discovery]:
    disc = discover(sources or default_sources(), defaults=not sources)
    units = disc.units
    if selection is not None and selection.harnesses:  # cheap: no need to read other harnesses
        units = [u for u in units if selection.harness_ok(u.harness)]
    sessions = describe(units)
    if selection is not None and selection.active:
        sessions = selection.filter(sessions)
    oldest = datetime.min.replace(tzinfo=UTC)
    sessions.sort(
        key=lambda s: (parse_stamp(s.start) is None, parse_stamp(s.start) or oldest, s.harness, s.id)
    )
    return sessions, disc


def _when(stamp: str | None) -> str:
    dt = parse_stamp(stamp)
    return dt.astimezone().strftime("%Y-%m-%d %H:%M") if dt else "-"


def human_size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} B"  # unreachable


def format_table(sessions: list[Session]) -> list[str]:
    """One line per session, aligned; times in local time."""
    rows = [("HARNESS", "SESSION", "PROJECT", "START", "END", "MSGS", "TOOLS", "SIZE")]
    for s in sessions:
        d = s.to_json()
        rows.append(
            (
                s.harness,
                s.id,
                d["project"] or "-",
                _when(d["start"]),
                _when(d["end"]),
                str(d["messages"]),
                str(d["tool_calls"]),
                human_size(d["size"]),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    right = {5, 6, 7}
    return [
        "  ".join(
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]


# -- dropping ------------------------------------------------------------------------------------
class DropError(ValueError):
    """A drop or restore that cannot be done (no run yet, unknown session)."""


@dataclass
class DropResult:
    session: str
    action: str  # "drop_session" / "restore_session"
    files: list[str] = field(default_factory=list)  # dataset paths moved out or back
    immediate: bool = True  # False: recorded; takes effect at the next `tracepub redact`
    manifest_sha256: str = ""

    def message(self) -> str:
        if self.action == "drop_session":
            n = len(self.files)
            return (
                f"Dropped session {self.session} ({n} file(s) removed from dataset/); "
                "approve again before publishing."
            )
        if self.immediate:
            return f"Restored session {self.session} ({len(self.files)} file(s)); approve again before publishing."
        return (
            f"Recorded: session {self.session} will be included again; run `tracepub redact` into the "
            "same folder to redact it."
        )


def _read_run(od: OutDir) -> dict[str, Any]:
    if not od.run_file.exists():
        raise DropError(f"{od.root} has no redaction run yet; run `tracepub redact --out {od.root}` first")
    run: dict[str, Any] = json.loads(od.run_file.read_text(encoding="utf-8"))
    if "units" not in run:
        raise DropError(
            f"{od.root} was written by an older tracepub; run `tracepub redact --out {od.root}` again"
        )
    run.setdefault("stashed", {})
    return run


def _stash_valid(od: OutDir, run: dict[str, Any]) -> bool:
    """The stash belongs to the current run (a new run re-applies drops and leaves it stale)."""
    try:
        return bool(run.get("stash_run_id") == read_manifest(od).get("run_id"))
    except (OSError, ValueError):
        return False


def drop_session(out: Path, session_id: str, reviewer: str | None) -> DropResult:
    """Leave a session (with its subagents) out of DIR/dataset now and on every later run."""
    od = OutDir(out)
    run = _read_run(od)
    present = {u["session"] for u in run["units"] if u.get("session")}
    already = decisions.load(od).dropped_sessions
    try:
        sid = resolve_ids([session_id], present | already, "session")
    except SelectionError as exc:
        raise DropError(str(exc)) from None
    sid_ = next(iter(sid))
    decisions.append(od, "drop_session", reviewer, session=sid_)
    result = DropResult(sid_, "drop_session")
    moving = [u for u in run["units"] if u.get("session") == sid_]
    if not moving:  # dropped before the last run: nothing in dataset/
        result.immediate = sid_ not in present
        return result
    if not _stash_valid(od, run):
        _clear_stash(od, run)
    run["stash_run_id"] = read_manifest(od).get("run_id")
    for u in moving:
        _move(od, od.output(u["dest"]), od.dropped_output(u["dest"]))
        _move(od, od.part(u["dest"]), od.dropped_part(u["dest"]))
        result.files.append(u["dest"])
    run["units"] = [u for u in run["units"] if u.get("session") != sid_]
    run["stashed"][sid_] = moving
    run["summary"].setdefault("dropped", []).append(
        {"session": sid_, "harness": moving[0]["harness"], "files": [u["dest"] for u in moving]}
    )
    result.manifest_sha256 = _reassemble(od, run)
    return result


def restore_session(out: Path, session_id: str, reviewer: str | None) -> DropResult:
    """Undo a drop: at once if it happened since the last run, else at the next ``redact``."""
    od = OutDir(out)
    run = _read_run(od)
    stash_ok = _stash_valid(od, run)
    stashed = set(run["stashed"]) if stash_ok else set()
    dropped = decisions.load(od).dropped_sessions
    listed = {d.get("session") for d in run["summary"].get("dropped", []) if d.get("session")}
    try:
        sid = next(iter(resolve_ids([session_id], stashed | dropped | listed, "session")))
    except SelectionError as exc:
        raise DropError(
            str(exc).replace("no discovered session has this id", "no dropped session has this id")
        ) from None
    decisions.append(od, "restore_session", reviewer, session=sid)
    result = DropResult(sid, "restore_session")
    if sid not in stashed:
        result.immediate = False
        return result
    units = run["stashed"].pop(sid)
    for u in units:
        _move(od, od.dropped_output(u["dest"]), od.output(u["dest"]))
        _move(od, od.dropped_part(u["dest"]), od.part(u["dest"]))
        result.files.append(u["dest"])
    run["units"] = sorted(run["units"] + units, key=lambda u: u.get("n", 0))
    run["summary"]["dropped"] = [d for d in run["summary"].get("dropped", []) if d.get("session") != sid]
    result.manifest_sha256 = _reassemble(od, run)
    return result


def _move(od: OutDir, src: Path, dst: Path) -> None:
    """Move ``src`` to ``dst``; the session's folders it leaves empty go too (not dataset/,
    parts/ or the stash's own)."""
    if not src.exists():
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    os.replace(src, dst)
    keep = {
        od.root,
        od.review,
        od.dataset,
        od.parts,
        od.dropped,
        od.dropped / "dataset",
        od.dropped / "parts",
    }
    parent = src.parent
    while parent not in keep and od.root in parent.parents and parent.exists() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def _clear_stash(od: OutDir, run: dict[str, Any]) -> None:
    shutil.rmtree(od.dropped, ignore_errors=True)
    run["stashed"] = {}


def _paths_findings(od: OutDir, dests: set[str]) -> list[dict[str, Any]]:
    """The last run's findings in file and folder names, of the files in ``dests``."""
    if not od.paths_part.exists():
        return []
    with jsonlines.open(od.paths_part, loads=orjson.loads) as reader:
        return [f for f in reader.iter(type=dict, skip_empty=True) if f.get("file") in dests]


def _reassemble(od: OutDir, run: dict[str, Any]) -> str:
    """Rebuild findings.jsonl, the summary, report, card and manifest for the files now present,
    the way a run assembles them (``run.assemble``); the dataset files themselves are not touched."""
    units = run["units"]
    results = [UnitResult.from_record(u) for u in units]
    path_findings = _paths_findings(od, {r.dest for r in results})
    assemble.write_findings(od, path_findings, [r.dest for r in results])
    s = run["summary"]
    summary = RunSummary.from_json(s)
    assemble.tally(summary, results, path_findings)
    counts = summary.selection.setdefault("counts", {})
    counts["dropped"] = len(summary.dropped)
    counts["included"] = len({u.get("session") for u in units})
    old = read_manifest(od)
    agg = assemble.aggregate(od, path_findings, results)
    sha = assemble.finish(
        od,
        summary,
        run.get("options", {}).get("card") or {},
        agg,
        old.get("config_hash", ""),
        old.get("run_id", ""),
    )
    s.update(summary.to_json())
    write_json(od.run_file, run)
    return sha


def to_json(sessions: list[Session], disc: Discovery) -> dict[str, Any]:
    return {
        "sessions": [s.to_json() for s in sessions],
        "skipped": disc.skipped,
        "problems": [str(p) for p in disc.problems],
    }
