"""``tracepub sessions`` (what is there to publish?) and dropping a session during review.

Listing uses the same discovery and autodetection as ``redact`` and each reader's ``info(unit)``:
no detection runs, so it is as fast as reading the files once. The project folder is shown as
it is on disk (this is the user's own terminal; nothing here is written anywhere).

Dropping (``drop_session``) takes effect at once, without a re-run: the session's files move
from dataset/ to review/dropped/ (review/ is never uploaded), and findings.jsonl, the report,
the dataset card and manifest.json are rebuilt from what the last run recorded in
review/run.json. A re-run cannot do this safely: it would need every option of the first run,
and values given with ``--secret`` are deliberately not stored. The remaining files keep their
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
from collections import Counter
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracepub.outputs.files import (
    DATASET,
    REVIEW,
    atomic_writer,
    build_manifest,
    read_manifest,
    write_json,
    write_manifest,
)
from tracepub.review import decisions
from tracepub.selection.select import Selection, SelectionError, Session, describe, parse_stamp, resolve_ids
from tracepub.sources.discover import Discovery, default_sources, discover

DROPPED = "dropped"  # review/dropped/: files of sessions dropped since the last run


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
    sessions.sort(key=lambda s: (parse_stamp(s.start) is None, parse_stamp(s.start) or oldest, s.harness, s.id))
    return sessions, disc


def _when(stamp: str | None) -> str:
    dt = parse_stamp(stamp)
    return dt.astimezone().strftime("%Y-%m-%d %H:%M") if dt else "-"


def human_size(n: int) -> str:
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
        rows.append((s.harness, s.id, d["project"] or "-", _when(d["start"]), _when(d["end"]),
                     str(d["messages"]), str(d["tool_calls"]), human_size(d["size"])))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    right = {5, 6, 7}
    return ["  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
                      ).rstrip() for r in rows]


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
            return (f"Dropped session {self.session} ({n} file(s) removed from dataset/); "
                    "approve again before publishing.")
        if self.immediate:
            return f"Restored session {self.session} ({len(self.files)} file(s)); approve again before publishing."
        return (f"Recorded: session {self.session} will be included again; run `tracepub redact` into the "
                "same folder to redact it.")


def _run_path(out: Path) -> Path:
    from tracepub.run.pipeline import RUN_FILE

    return out / REVIEW / RUN_FILE


def _read_run(out: Path) -> dict:
    p = _run_path(out)
    if not p.exists():
        raise DropError(f"{out} has no redaction run yet; run `tracepub redact --out {out}` first")
    run = json.loads(p.read_text(encoding="utf-8"))
    if "units" not in run:
        raise DropError(f"{out} was written by an older tracepub; run `tracepub redact --out {out}` again")
    run.setdefault("stashed", {})
    return run


def _stash_valid(out: Path, run: dict) -> bool:
    """The stash belongs to the current run (a new run re-applies drops and leaves it stale)."""
    try:
        return run.get("stash_run_id") == read_manifest(out).get("run_id")
    except (OSError, ValueError):
        return False


def drop_session(out: Path, session_id: str, reviewer: str | None) -> DropResult:
    """Leave a session (with its subagents) out of DIR/dataset now and on every later run."""
    out = Path(out)
    run = _read_run(out)
    present = {u["session"] for u in run["units"] if u.get("session")}
    already = decisions.load(out).dropped_sessions
    try:
        sid = resolve_ids([session_id], present | already, "session")
    except SelectionError as exc:
        raise DropError(str(exc)) from None
    sid_ = next(iter(sid))
    decisions.append(out, "drop_session", reviewer, session=sid_)
    result = DropResult(sid_, "drop_session")
    moving = [u for u in run["units"] if u.get("session") == sid_]
    if not moving:  # dropped before the last run: nothing in dataset/
        result.immediate = sid_ not in present
        return result
    if not _stash_valid(out, run):
        _clear_stash(out, run)
    run["stash_run_id"] = read_manifest(out).get("run_id")
    from tracepub.run.pipeline import _part_path

    stash = out / REVIEW / DROPPED
    for u in moving:
        _move(out / DATASET / u["dest"], stash / DATASET / u["dest"])
        part = _part_path(out, u["dest"])
        _move(part, stash / "parts" / part.name)
        result.files.append(u["dest"])
    run["units"] = [u for u in run["units"] if u.get("session") != sid_]
    run["stashed"][sid_] = moving
    run["summary"].setdefault("dropped", []).append(
        {"session": sid_, "harness": moving[0]["harness"], "files": [u["dest"] for u in moving]})
    result.manifest_sha256 = _reassemble(out, run)
    return result


def restore_session(out: Path, session_id: str, reviewer: str | None) -> DropResult:
    """Undo a drop: at once if it happened since the last run, else at the next ``redact``."""
    out = Path(out)
    run = _read_run(out)
    stash_ok = _stash_valid(out, run)
    stashed = set(run["stashed"]) if stash_ok else set()
    dropped = decisions.load(out).dropped_sessions
    listed = {d.get("session") for d in run["summary"].get("dropped", []) if d.get("session")}
    try:
        sid = next(iter(resolve_ids([session_id], stashed | dropped | listed, "session")))
    except SelectionError as exc:
        raise DropError(str(exc).replace("no discovered session has this id", "no dropped session has this id")
                        ) from None
    decisions.append(out, "restore_session", reviewer, session=sid)
    result = DropResult(sid, "restore_session")
    if sid not in stashed:
        result.immediate = False
        return result
    from tracepub.run.pipeline import _part_path

    stash = out / REVIEW / DROPPED
    units = run["stashed"].pop(sid)
    for u in units:
        _move(stash / DATASET / u["dest"], out / DATASET / u["dest"])
        part = _part_path(out, u["dest"])
        _move(stash / "parts" / part.name, part)
        result.files.append(u["dest"])
    run["units"] = sorted(run["units"] + units, key=lambda u: u.get("n", 0))
    run["summary"]["dropped"] = [d for d in run["summary"].get("dropped", []) if d.get("session") != sid]
    result.manifest_sha256 = _reassemble(out, run)
    return result


def _move(src: Path, dst: Path) -> None:
    if not src.exists():
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    os.replace(src, dst)
    parent = src.parent
    while parent.name not in (DATASET, REVIEW, "parts", DROPPED) and parent.exists() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def _clear_stash(out: Path, run: dict) -> None:
    shutil.rmtree(out / REVIEW / DROPPED, ignore_errors=True)
    run["stashed"] = {}


def _reassemble(out: Path, run: dict) -> str:
    """Rebuild findings.jsonl, the summary, report, card and manifest for the files now present.
    Mirrors the end of ``pipeline.run``; the dataset files themselves are not touched."""
    from tracepub.outputs import card, report
    from tracepub.run.pipeline import FINDINGS, PARTS, RunSummary, _part_path, manifest_extra

    review = out / REVIEW
    units = run["units"]
    dests = {u["dest"] for u in units}
    path_findings = []
    paths_part = review / PARTS / "paths.jsonl"
    if paths_part.exists():
        with open(paths_part, encoding="utf-8") as fh:
            path_findings = [json.loads(line) for line in fh if line.strip()]
    path_findings = [f for f in path_findings if f.get("file") in dests]
    with atomic_writer(review / FINDINGS, "wb") as dst:
        for f in path_findings:
            dst.write((json.dumps(f, ensure_ascii=False) + "\n").encode("utf-8"))
        for u in units:
            part = _part_path(out, u["dest"])
            if part.exists():
                dst.write(part.read_bytes())

    s = run["summary"]
    types = Counter(f["type"] for f in path_findings)
    actions = Counter(f["action"] for f in path_findings)
    blobs: Counter[str] = Counter()
    harnesses: Counter[str] = Counter()
    for u in units:
        types.update(u["types"])
        actions.update(u["actions"])
        blobs.update(u["blobs"])
        harnesses[u["harness"]] += 1
    s.update(files=len(units), sessions=len(units), records=sum(u["records"] for u in units),
             bytes_in=sum(u["bytes_in"] for u in units), findings=dict(sorted(types.items())),
             actions=dict(sorted(actions.items())), blobs=dict(sorted(blobs.items())),
             harnesses=dict(sorted(harnesses.items())))
    counts = s.setdefault("selection", {}).setdefault("counts", {})
    counts["dropped"] = len(s.get("dropped", []))
    counts["included"] = len({u.get("session") for u in units})
    summary = RunSummary(**{f.name: s[f.name] for f in fields(RunSummary) if f.name in s})

    card.write_card(out, summary, run.get("options", {}).get("card") or {})
    report.write_report(out, summary)
    old = read_manifest(out)
    manifest = build_manifest(out, old.get("config_hash", ""), old.get("run_id", ""), manifest_extra(summary))
    sha = write_manifest(out, manifest)
    s["manifest_sha256"] = sha
    write_json(_run_path(out), run)
    return sha


def to_json(sessions: list[Session], disc: Discovery) -> dict[str, Any]:
    return {"sessions": [s.to_json() for s in sessions], "skipped": disc.skipped,
            "problems": [str(p) for p in disc.problems]}
