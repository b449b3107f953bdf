"""Choosing what to publish: group discovered units into sessions and filter them.

Selection runs in the main process after discovery and before any redaction; the pipeline only
ever sees the units that survive it. Nothing here runs detection: criteria that need to know a
session (its folder, times, id) ask the reader's ``info(unit)``, and only when such a criterion
is in use, so a plain ``redact`` pays nothing.

Sessions, not files: a Claude Code session is its transcript plus the subagent transcripts and
sidecars in ``<session>/subagents/``; a reader may also name a parent in ``SessionInfo.parent``.
Every criterion, every denial and every drop applies to the whole group, so a subagent never
reaches dataset/ without the session it belongs to, or the other way round.

Decisions where the issue is silent (also in ARCHITECTURE.md):

- ``--project GLOB``: ``~`` expands to $HOME. A bare name (no ``/``) is matched against the
  folder's last component (``--project 'api*'``); a path is matched against the whole folder
  and also selects its subfolders (``--project ~/src/app`` includes ``~/src/app/web``).
  Matching is case-sensitive, as ``fnmatch.fnmatchcase`` (``*`` also crosses ``/``).
- ``--since`` / ``--until``: a session is selected when it lies entirely inside the window:
  since <= its first timestamp and its last timestamp <= until (both inclusive). A date alone
  means the whole day (``--until 2026-03-31`` keeps 23:59:59.999). Values without a time zone
  are the local time of this machine; trace timestamps without one are UTC. A session with no
  timestamps is left out when either bound is given (it cannot be shown to lie inside).
- ``--session`` / ``--exclude-session``: the full id or a prefix that is unique among the
  discovered sessions. An id that matches nothing, or several, is an error: a mistyped
  exclusion must not silently publish the session it meant to leave out.
- ``--harness``: the folder name under dataset/ (``claude_code``), case-insensitive, ``-`` and
  ``_`` alike, and a name's first word is enough (``claude``). An unknown name is an error.
- Values of one option are alternatives (OR); different options must all hold (AND); an
  exclusion always wins.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol

from tracepub.model import SessionInfo, Unit
from tracepub.readers import READERS, reader_for_unit
from tracepub.selection.deny import Denied, DenyMatcher, mask

if TYPE_CHECKING:
    from tracepub.runtypes import RunSummary

SUBAGENTS = "subagents"


class SelectionError(ValueError):
    """A criterion that cannot be applied as given (unknown harness, unmatched session id)."""


# -- time ----------------------------------------------------------------------------------------
def parse_when(text: str, end_of_day: bool = False) -> datetime:
    """``2026-03-01``, ``2026-03-01T14:00``, ``2026-03-01 14:00:00+02:00`` -> an aware datetime.

    A date alone is the start of that day (``end_of_day``: its last microsecond); no zone means
    local time."""
    s = text.strip()
    try:
        if len(s) == 10:
            d = date.fromisoformat(s)
            dt = datetime.combine(d, time.max if end_of_day else time.min)
        else:
            dt = datetime.fromisoformat(s.replace(" ", "T", 1))
    except ValueError:
        raise SelectionError(
            f"not a date or date-time: {text!r} (use YYYY-MM-DD or YYYY-MM-DDTHH:MM)"
        ) from None
    if dt.tzinfo is None:
        dt = dt.astimezone()  # local time of this machine
    return dt


def parse_stamp(value: str | None) -> datetime | None:
    """A trace timestamp (ISO-8601, or epoch seconds / milliseconds) as an aware datetime."""
    if not value:
        return None
    s = str(value).strip()
    try:
        if s.replace(".", "", 1).isdigit():
            n = float(s)
            return datetime.fromtimestamp(n / 1000 if n > 1e11 else n, UTC)
        dt = datetime.fromisoformat(s.replace(" ", "T", 1))
    except (ValueError, OverflowError, OSError):
        return None
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


# -- sessions ------------------------------------------------------------------------------------
def _stem(name: str) -> str:
    for suffix in (".meta.json", ".jsonl", ".json", ".db"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def path_ids(unit: Unit) -> tuple[str, str | None]:
    """A unit's id and parent session id from its path alone (no reading): Claude Code keeps
    subagents in ``<session id>/subagents/``."""
    parts = PurePosixPath(unit.relpath).parts
    parent = None
    if SUBAGENTS in parts[:-1]:
        i = len(parts) - 1 - parts[:-1][::-1].index(SUBAGENTS) - 1
        if i > 0:
            parent = parts[i - 1]
    own = unit.key or _stem(parts[-1] if parts else unit.source.name)
    return own, parent


@dataclass
class Session:
    """One session: its units (transcript, subagents, sidecars) and what info() said of them."""

    harness: str
    id: str
    units: list[Unit] = field(default_factory=list)
    infos: list[SessionInfo | None] = field(default_factory=list)
    main: SessionInfo | None = None  # the info of the session's own transcript, if discovered

    @property
    def project(self) -> str | None:
        if self.main is not None and self.main.project:
            return self.main.project
        return next((i.project for i in self.infos if i is not None and i.project), None)

    @property
    def start(self) -> str | None:
        stamps = [(parse_stamp(i.start), i.start) for i in self.infos if i is not None and i.start]
        stamps = [s for s in stamps if s[0] is not None]
        return min(stamps)[1] if stamps else None

    @property
    def end(self) -> str | None:
        stamps = [(parse_stamp(i.end), i.end) for i in self.infos if i is not None and i.end]
        stamps = [s for s in stamps if s[0] is not None]
        return max(stamps)[1] if stamps else None

    def aliases(self) -> set[str]:
        """Its id and the ids its files' names give: a drop recorded after a run that did not
        read the sessions (ids from file names) must still match when a later run does."""
        out = {self.id}
        for u in self.units:
            own, parent = path_ids(u)
            out.add(parent or own)
        return out

    def total(self, name: str) -> int:
        return sum(getattr(i, name) for i in self.infos if i is not None)

    def to_json(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "id": self.id,
            "project": self.project,
            "start": self.start,
            "end": self.end,
            "messages": self.total("messages"),
            "tool_calls": self.total("tool_calls"),
            "size": self.total("size"),
            "files": [str(u.source) + (f"#{u.key}" if u.key else "") for u in self.units],
        }


def safe_info(unit: Unit) -> SessionInfo:
    """``Reader.info``, never failing: a file that cannot be described is still listed."""
    try:
        return reader_for_unit(unit).info(unit)
    except Exception:
        size = 0
        try:
            size = unit.source.stat().st_size
        except OSError:
            pass
        return SessionInfo(unit.harness, path_ids(unit)[0], size=size)


def group(units: Iterable[Unit], infos: list[SessionInfo | None] | None = None) -> list[Session]:
    """Group units into sessions (in first-seen order). With ``infos`` (one per unit) the ids
    are the readers'; without, they come from file names (enough for Claude Code, whose
    transcript is named by its session id)."""
    units = list(units)
    infos = infos if infos is not None else [None] * len(units)
    sessions: dict[tuple[str, str], Session] = {}
    for u, info in zip(units, infos, strict=True):
        own, parent = path_ids(u)
        if info is not None:
            own = info.id or own
            parent = info.parent or parent
        gid = parent or own
        s = sessions.get((u.harness, gid))
        if s is None:
            s = sessions[(u.harness, gid)] = Session(u.harness, gid)
        s.units.append(u)
        s.infos.append(info)
        if parent is None and info is not None and s.main is None:
            s.main = info
    return list(sessions.values())


def describe(units: list[Unit], info: Callable[[Unit], SessionInfo] = safe_info) -> list[Session]:
    return group(units, [info(u) for u in units])


# -- criteria ------------------------------------------------------------------------------------
def normalize_harness(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def known_harnesses() -> list[str]:
    return sorted({r.name for r in READERS})


def resolve_harnesses(names: Iterable[str], known: list[str] | None = None) -> set[str]:
    known = known if known is not None else known_harnesses()
    out: set[str] = set()
    for name in names:
        n = normalize_harness(name)
        hits = [k for k in known if k == n] or [k for k in known if k.startswith(n + "_")]
        if not hits:
            raise SelectionError(f"unknown harness {name!r}; known: {', '.join(known)}")
        out.update(hits)
    return out


def resolve_ids(wanted: Iterable[str], ids: Iterable[str], what: str = "--session") -> set[str]:
    """Full ids or unique prefixes -> full ids (an error for none or several)."""
    ids = sorted(set(ids))
    out: set[str] = set()
    for w in wanted:
        w = w.strip()
        if w in ids:
            out.add(w)
            continue
        hits = [i for i in ids if w and i.startswith(w)]
        if len(hits) == 1:
            out.add(hits[0])
        elif not hits:
            raise SelectionError(
                f"{what} {w!r}: no discovered session has this id (`tracepub sessions` lists them)"
            )
        else:
            raise SelectionError(
                f"{what} {w!r} is ambiguous: {', '.join(hits[:5])}" + (" ..." if len(hits) > 5 else "")
            )
    return out


def _home() -> str:
    return os.environ.get("HOME") or str(Path.home())


def project_matches(folder: str | None, pattern: str) -> bool:
    if not folder:
        return False
    folder = folder.rstrip("/") or "/"
    pat = pattern.strip()
    if pat == "~" or pat.startswith("~/"):
        pat = _home().rstrip("/") + pat[1:]
    pat = pat.rstrip("/") or "/"
    if "/" not in pat:
        return fnmatch.fnmatchcase(PurePosixPath(folder).name, pat)
    return fnmatch.fnmatchcase(folder, pat) or fnmatch.fnmatchcase(folder, pat.rstrip("/") + "/*")


@dataclass
class Selection:
    """The criteria, as given on the command line (plain data: recorded in the manifest)."""

    projects: list[str] = field(default_factory=list)
    since: str | None = None
    until: str | None = None
    harnesses: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    exclude_sessions: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:  # bad dates and harness names fail before any reading
        self._since = parse_when(self.since) if self.since else None
        self._until = parse_when(self.until, end_of_day=True) if self.until else None
        if self._since and self._until and self._since > self._until:
            raise SelectionError(f"--since {self.since} is after --until {self.until}")
        self._harnesses = resolve_harnesses(self.harnesses) if self.harnesses else set()

    @property
    def active(self) -> bool:
        return bool(
            self.projects
            or self.since
            or self.until
            or self.harnesses
            or self.sessions
            or self.exclude_sessions
        )

    @property
    def needs_info(self) -> bool:
        """Only the harness criterion can be decided without reading the sessions."""
        return bool(self.projects or self.since or self.until or self.sessions or self.exclude_sessions)

    def criteria(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in (
                ("project", self.projects),
                ("since", self.since),
                ("until", self.until),
                ("harness", sorted(self._harnesses)),
                ("session", self.sessions),
                ("exclude_session", self.exclude_sessions),
            )
            if v
        }

    @property
    def no_project(self) -> int:
        """Sessions the last ``filter`` left out by ``--project`` only because their project
        folder is unknown (worth a warning: they may belong to it)."""
        return getattr(self, "_no_project", 0)

    def harness_ok(self, harness: str) -> bool:
        return not self._harnesses or harness in self._harnesses

    def filter(self, sessions: list[Session]) -> list[Session]:
        """The sessions that meet every criterion (``--session`` ids resolved against all)."""
        ids = [s.id for s in sessions]
        chosen = resolve_ids(self.sessions, ids, "--session") if self.sessions else None
        excluded = resolve_ids(self.exclude_sessions, ids, "--exclude-session")
        out = []
        self._no_project = 0  # left out by --project because no project folder is known
        for s in sessions:
            if s.id in excluded or (chosen is not None and s.id not in chosen):
                continue
            if not self.harness_ok(s.harness):
                continue
            if self.projects and not any(project_matches(s.project, p) for p in self.projects):
                self._no_project += not s.project
                continue
            if self._since or self._until:
                start, end = parse_stamp(s.start), parse_stamp(s.end)
                if start is None or end is None:
                    continue
                if self._since and start < self._since:
                    continue
                if self._until and end > self._until:
                    continue
            out.append(s)
        return out


# -- the pipeline's hook -------------------------------------------------------------------------
@dataclass
class Plan:
    """What the pipeline redacts, and what it left out and why (for the summary and manifest)."""

    units: list[Unit]
    discovered: int = 0  # sessions
    excluded: int = 0  # sessions left out by the criteria
    no_project: int = 0  # of them, left out by --project with no known project folder
    dropped: list[dict] = field(default_factory=list)  # {session, harness, files}
    denied: list[dict] = field(default_factory=list)  # denied by path, before reading
    session_of: dict[str, str] = field(default_factory=dict)  # str(source)#key -> session id
    sessions: dict[str, list[str]] = field(default_factory=dict)  # session id -> unit keys


def unit_key(u: Unit) -> str:
    return str(u.source) + (f"#{u.key}" if u.key else "")


def plan(
    units: list[Unit], selection: Selection | None, dropped: set[str], deny: DenyMatcher | None = None
) -> Plan:
    """Apply criteria, reviewers' drops and path denial to the discovered units.

    ``deny``: a unit whose path under dataset/ matches is denied here, before anything is
    read, with the rest of its session."""
    sel = selection or Selection()
    discovered = len(group(units))
    units = [u for u in units if sel.harness_ok(u.harness)]  # cheap, before any reading
    sessions = describe(units) if sel.needs_info or dropped else group(units)
    result = Plan(units=[], discovered=discovered)
    kept = sel.filter(sessions) if sel.active else sessions
    result.excluded = max(0, discovered - len(kept))
    result.no_project = sel.no_project
    for s in kept:
        if dropped and s.aliases() & dropped:
            result.dropped.append(
                {
                    "session": s.id,
                    "harness": s.harness,
                    "files": [f"{u.harness}/{u.relpath}" for u in s.units],
                }
            )
            continue
        if deny:
            hit = None
            files = [f"{u.harness}/{u.relpath}" for u in s.units]
            for f in files:
                try:
                    deny.check_path(f)
                except Denied as d:
                    hit = (f, d.hit)
                    break
            if hit is not None:
                result.denied.append(denied_entry(s.id, hit[0], hit[1].to_json(), deny, files))
                continue
        result.units.extend(s.units)
        result.sessions[s.id] = [unit_key(u) for u in s.units]
        for u in s.units:
            result.session_of[unit_key(u)] = s.id
    return result


def hide(text: str, deny: DenyMatcher | None) -> str:
    """``text`` with every match of a deny rule masked (a file name may hold the denied name)."""
    for _ in range(50):
        h = deny.search(text) if deny else None
        if h is None or not h.match:
            break
        i = text.lower().find(h.match.lower())
        if i < 0:
            break
        text = text[:i] + mask(text[i : i + len(h.match)]) + text[i + len(h.match) :]
    return text


def denied_entry(
    session: str, file: str, hit: dict[str, str], deny: DenyMatcher | None, files: list[str]
) -> dict[str, Any]:
    """A denial as the summary shows it: the rule as written, the match masked everywhere."""
    return {
        "session": hide(session, deny),
        "file": hide(file, deny),
        **hit,
        "files": [hide(f, deny) for f in files],
    }


class Outcome(Protocol):
    """What selection needs of a unit's result (``run.results.UnitResult``)."""

    ok: bool
    denied: dict[str, str] | None


def settle(
    p: Plan, units: list[Unit], results: Sequence[Outcome], dests: list[str], deny: DenyMatcher | None
) -> set[str]:
    """After the workers: a session any of whose files was denied is left out as a whole.

    ``results[i]`` belongs to ``units[i]`` (written to ``dests[i]``); a denied result carries
    the hit (``UnitResult.denied``). Siblings already written are marked not ok, so the
    pipeline removes them with the other stale files before the manifest is taken. Returns the
    dataset paths left out."""
    by_session: dict[str, list[int]] = {}
    for i, u in enumerate(units):
        by_session.setdefault(p.session_of.get(unit_key(u), unit_key(u)), []).append(i)
    removed: set[str] = set()
    for sid, idx in by_session.items():
        hits = [i for i in idx if results[i].denied]
        if not hits:
            continue
        first = hits[0]
        for i in idx:
            results[i].ok = False
            removed.add(dests[i])
        p.denied.append(
            denied_entry(sid, dests[first], results[first].denied or {}, deny, [dests[i] for i in idx])
        )
    return removed


def included(p: Plan, units: list[Unit], results: Sequence[Outcome]) -> int:
    """Sessions with at least one file written."""
    return len({p.session_of.get(unit_key(u)) for u, r in zip(units, results, strict=True) if r.ok})


def summary_block(p: Plan, selection: Selection | None, deny_rules: int, included: int) -> dict[str, Any]:
    """``selection`` in the run summary and the manifest: criteria and counts, never deny rule text."""
    criteria = selection.criteria() if selection else {}
    if deny_rules:
        criteria["deny_rules"] = deny_rules
    return {
        "criteria": criteria,
        "counts": {
            "discovered": p.discovered,
            "excluded": p.excluded,
            "denied": len(p.denied),
            "dropped": len(p.dropped),
            "included": included,
            **({"no_project": p.no_project} if p.no_project else {}),
        },
    }


def card_line(summary: RunSummary) -> str | None:
    """One sentence for the dataset card: counts only (no folders, ids or deny rules)."""
    sel = summary.selection or {}
    c = sel.get("counts")
    if not c or not (sel.get("criteria") or c.get("denied") or c.get("dropped") or c.get("excluded")):
        return None
    parts = []
    if c.get("excluded"):
        parts.append(f"{c['excluded']} not selected")
    if c.get("denied"):
        parts.append(f"{c['denied']} left out by deny rules")
    if c.get("dropped"):
        parts.append(f"{c['dropped']} dropped by the reviewer")
    text = f"Selection: {c.get('included', 0)} of {c.get('discovered', 0)} discovered sessions are included"
    return text + (f" ({', '.join(parts)})." if parts else ".")
