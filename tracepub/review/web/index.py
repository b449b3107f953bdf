"""The page's view of DIR: values, sessions and counts, built once per run of the pipeline.

A request never reads findings.jsonl: with 100k findings that is a second of parsing, and a
reviewer clicks through pages. The index folds findings.jsonl once (``outputs.groups``, the
fold the report uses, so a value here is a value there) and is rebuilt only when a file it was
built from changes (``stamp``: the apply, a drop, approve, or a terminal command in another
shell). Filtering and paging are then list comprehensions over one small object per value.

Session facts that need reading a file (project, dates, messages) come from the redacted file
in dataset/ (what is published: the project folder shows ``<USER_…>``, never the username),
read by the reader that recognises it, once per file version, in a background thread;
a page computes the few it shows if the thread has not got there yet.
"""

from __future__ import annotations

import gc
import os
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracepub.model import SessionInfo, Unit
from tracepub.outdir import OutDir
from tracepub.outputs.files import read_manifest
from tracepub.outputs.groups import Aggregate, ValueGroup, add_finding, iter_findings
from tracepub.readers import detect
from tracepub.review import decisions, runstate
from tracepub.review.interactive import blocks_publish
from tracepub.selection.select import parse_stamp

FAMILY_ORDER = {"secret": 0, "custom": 1, "identity": 2, "pii": 3}
FAMILY_TITLES = {
    "secret": "Secrets",
    "custom": "Added by the reviewer",
    "identity": "Your identity",
    "pii": "Personal data",
}
# Families whose values are never shown in clear (the findings hold them masked already).
MASKED_FAMILIES = ("secret", "identity", "custom")
# The 8 hex digits that end a placeholder (``<EMAIL_1a2b3c4d>``, ``USER_1a2b3c4d`` in a name).
_SUFFIX = re.compile(r"_([0-9a-f]{8})>?$")


def sort_key(g: ValueGroup) -> tuple:
    """The report's order: flagged first, then by family and type, most frequent first."""
    return (not g.flagged, FAMILY_ORDER.get(g.family, 9), g.type, -g.count, g.value_id)


@dataclass(slots=True)
class VRow:
    """One value as the page uses it: a ``ValueGroup``'s properties computed once (its ``type``
    is a ``most_common`` call; a request filters every value), without its counters."""

    value_id: str
    value: str  # masked for secrets, identity and added texts (as the findings hold it)
    type: str
    family: str
    flagged: bool
    kept: bool  # some occurrence is in clear
    all_kept: bool
    blocks: bool  # a high-confidence secret: publish refuses it in clear
    count: int
    placeholder: str | None
    detectors: list[tuple[str, int]]
    conf_min: float
    conf_max: float
    files: list[str]
    n_files: int
    snippets: list[dict[str, str]]
    hay: str  # lower-cased text a search looks in


def _row(g: ValueGroup) -> VRow:
    t = g.type
    dets = g.detectors.most_common()
    return VRow(
        g.value_id,
        g.value,
        t,
        t.partition(".")[0],
        g.flagged,
        g.actions.get("kept", 0) > 0,
        g.action == "kept",
        blocks_publish(g),
        g.count,
        g.placeholder,
        dets,
        g.conf_min,
        g.conf_max,
        list(g.files),
        g.n_files,
        g.snippets,
        "\0".join([g.value, g.placeholder or "", g.value_id, t, *(d for d, _ in dets), *g.files]).lower(),
    )


def stamp_of(out: OutDir) -> tuple:
    """What the index depends on, cheaply: a changed file means a rebuild."""
    parts: list[tuple[int, int] | None] = []
    for p in (out.manifest, out.findings, out.run_file):
        try:
            st = os.stat(p)
            parts.append((st.st_mtime_ns, st.st_size))
        except OSError:
            parts.append(None)
    return tuple(parts)


@dataclass
class SessionRow:
    id: str
    harness: str
    dests: list[str]
    kinds: list[str]
    size: int = 0
    findings: int = 0
    flagged: int = 0
    dropped: bool = False
    immediate: bool = True  # a dropped session whose files wait in review/dropped (restored at once)

    @property
    def main(self) -> str:
        """The transcript itself (not a subagent or a sidecar), for the facts and the title."""
        for d in self.dests:
            if "/subagents/" not in d and not d.endswith(".meta.json"):
                return d
        return self.dests[0] if self.dests else ""


@dataclass
class Index:
    out: OutDir
    stamp: tuple = ()
    groups: list[VRow] = field(default_factory=list)
    by_id: dict[str, VRow] = field(default_factory=dict)
    by_suffix: dict[str, str] = field(default_factory=dict)
    by_placeholder: dict[str, str] = field(default_factory=dict)  # the fixed ones: <USER>, <USER_EMAIL>...
    types: Counter = field(default_factory=Counter)  # values per type
    families: Counter = field(default_factory=Counter)
    total: int = 0
    by_action: Counter = field(default_factory=Counter)
    file_findings: Counter = field(default_factory=Counter)
    file_flagged: Counter = field(default_factory=Counter)
    sessions: list[SessionRow] = field(default_factory=list)
    by_session: dict[str, SessionRow] = field(default_factory=dict)
    dest_session: dict[str, str] = field(default_factory=dict)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # the manifest's file table
    run_id: str = ""

    @property
    def flagged_values(self) -> int:
        return sum(1 for g in self.groups if g.flagged)

    def counts(self) -> dict[str, int]:
        """The numbers the Apply page shows before and after."""
        included = [s for s in self.sessions if not s.dropped]
        return {
            "findings": self.total,
            "values": len(self.groups),
            "flagged values": self.flagged_values,
            "kept values": sum(1 for g in self.groups if g.all_kept),
            "redacted": self.by_action.get("redacted", 0) + self.by_action.get("review", 0),
            "kept in clear": self.by_action.get("kept", 0),
            "sessions": len(included),
            "dropped sessions": len(self.sessions) - len(included),
            "files": len(self.files),
            "bytes": sum(int(f.get("size", 0)) for f in self.files.values()),
        }

    def group_for_placeholder(self, placeholder: str) -> VRow | None:
        m = _SUFFIX.search(placeholder)
        vid = self.by_suffix.get(m.group(1)) if m else self.by_placeholder.get(placeholder)
        return self.by_id.get(vid) if vid else None


def build(out: Path | OutDir) -> Index:
    """Fold findings.jsonl, run.json and manifest.json into an ``Index``.

    The fold is ``outputs.groups.add_finding``, the report's own. The cyclic garbage collector
    is held off while it runs and the result is frozen out of its view (``gc.freeze``, as the
    pipeline does): the index is hundreds of thousands of objects that live until the next
    run, and every later collection would walk them all, in every request."""
    od = OutDir(out)
    idx = Index(od, stamp_of(od))
    enabled = gc.isenabled()
    gc.disable()
    try:
        agg = Aggregate()
        files_seen: dict[str, str] = {}
        flagged: Counter = Counter()
        for f in iter_findings(od):
            file = files_seen.setdefault(f["file"], f["file"])
            add_finding(agg, f, file)
            if f.get("action") == "review":
                flagged[file] += 1
        idx.groups = [_row(g) for g in sorted(agg.groups.values(), key=sort_key)]
        del agg.groups
        idx.by_id = {g.value_id: g for g in idx.groups}
        idx.total, idx.by_action = agg.total, agg.by_action
        idx.file_findings, idx.file_flagged = agg.by_file, flagged
        for g in idx.groups:
            idx.types[g.type] += 1
            idx.families[g.family] += 1
            idx.by_suffix.setdefault(g.value_id[:8], g.value_id)
            if g.placeholder and not _SUFFIX.search(g.placeholder):
                idx.by_placeholder.setdefault(g.placeholder, g.value_id)
        try:
            manifest = read_manifest(od)
        except (OSError, ValueError):
            manifest = {}
        idx.files = manifest.get("files", {})
        idx.run_id = manifest.get("run_id", "")
        _sessions(idx, manifest)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
    return idx


def _sessions(idx: Index, manifest: dict[str, Any]) -> None:
    try:
        run = runstate.read(idx.out)
    except (OSError, ValueError):
        run = {}
    rows: dict[str, SessionRow] = {}

    def add(units: list[dict[str, Any]], dropped: bool) -> None:
        for u in units:
            sid = u.get("session") or u.get("dest", "")
            row = rows.get(sid)
            if row is None:
                row = rows[sid] = SessionRow(sid, u.get("harness", ""), [], [], dropped=dropped)
            row.dests.append(u["dest"])
            row.kinds.append(u.get("kind", "jsonl"))
            idx.dest_session[u["dest"]] = sid
            size = idx.files.get(u["dest"], {}).get("size")
            row.size += int(size if size is not None else u.get("bytes_in", 0))
            row.findings += idx.file_findings.get(u["dest"], 0)
            row.flagged += idx.file_flagged.get(u["dest"], 0)

    add(run.get("units", []), False)
    stash_ok = run.get("stash_run_id") == manifest.get("run_id")
    for units in (run.get("stashed", {}) if stash_ok else {}).values():
        add(units, True)
    later = {d.get("session") for d in run.get("summary", {}).get("dropped", []) if d.get("session")}
    later |= decisions.load(idx.out).dropped_sessions
    for sid in sorted(later - set(rows)):
        rows[sid] = SessionRow(sid, "", [], [], dropped=True, immediate=False)
    idx.sessions = sorted(rows.values(), key=lambda s: (s.dropped, -s.flagged, -s.findings, s.harness, s.id))
    idx.by_session = rows


# -- values ----------------------------------------------------------------------------------------
def value_state(g: VRow, keep_ids: set[str]) -> tuple[str, str]:
    """(what the dataset holds now, what it will hold after Apply): kept or redacted."""
    now = "kept" if g.kept else "redacted"  # any occurrence in clear: the value is kept
    wanted = "kept" if g.value_id in keep_ids and g.family != "custom" else "redacted"
    return now, wanted


@dataclass
class ValueFilter:
    family: str = ""
    type: str = ""
    state: str = ""  # flagged, redacted, kept, pending
    detector: str = ""
    q: str = ""

    @classmethod
    def from_params(cls, params: Any) -> ValueFilter:
        get = params.get
        return cls(*(str(get(k) or "").strip()[:200] for k in ("family", "type", "state", "detector", "q")))

    def active(self) -> bool:
        return any((self.family, self.type, self.state, self.detector, self.q))

    def params(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v}


def select_values(idx: Index, flt: ValueFilter, keep_ids: set[str]) -> list[VRow]:
    """The values matching ``flt``, in the report's order (server-side: the page gets one page)."""
    q = flt.q.lower()
    det = flt.detector.lower()
    out = []
    for g in idx.groups:
        if flt.family and g.family != flt.family:
            continue
        if flt.type and g.type != flt.type:
            continue
        if det and not any(det in d.lower() for d, _ in g.detectors):
            continue
        if q and q not in g.hay:
            continue
        if flt.state:
            now, wanted = value_state(g, keep_ids)
            if flt.state == "flagged" and not g.flagged:
                continue
            if flt.state in ("kept", "redacted") and wanted != flt.state:
                continue
            if flt.state == "pending" and now == wanted:
                continue
        out.append(g)
    return out


def page_of(items: list, page: int, per: int) -> tuple[list, int, int]:
    """(the items of page ``page`` (1-based, clamped), that page, the number of pages)."""
    pages = max(1, -(-len(items) // per))
    page = min(max(1, page), pages)
    return items[(page - 1) * per : page * per], page, pages


# -- session facts (read from dataset/, cached per file version) -----------------------------------------
@dataclass
class Facts:
    project: str | None = None
    start: str | None = None
    end: str | None = None
    messages: int = 0
    tool_calls: int = 0


class FactsCache:
    """Project, dates and counts of a session, from its files in dataset/ (or review/dropped/).
    One entry per path, valid while the file's size and mtime are the ones it was read at."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[tuple[int, int], SessionInfo | None]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _stamp(path: Path) -> tuple[int, int] | None:
        try:
            st = path.stat()
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns

    def _file(self, path: Path, dest: str, kind: str) -> SessionInfo | None:
        stamp = self._stamp(path)
        if stamp is None:
            return None
        with self._lock:
            got = self._cache.get(str(path))
            if got is not None and got[0] == stamp:
                return got[1]
        info = None
        reader = detect(path)
        if reader is not None:
            try:
                info = reader.info(Unit(reader.name, path, dest, kind, reader=type(reader).__name__))
            except Exception:  # a file that cannot be described is still listed
                info = None
        with self._lock:
            self._cache[str(path)] = (stamp, info)
        return info

    def facts(self, idx: Index, row: SessionRow) -> Facts:
        infos = []
        main = None
        for dest, kind in zip(row.dests, row.kinds, strict=True):
            path = idx.out.dropped_output(dest) if row.dropped else idx.out.output(dest)
            info = self._file(path, dest, kind)
            if info is not None:
                infos.append(info)
                if dest == row.main:
                    main = info
        starts = [(parse_stamp(i.start), i.start) for i in infos if i.start and parse_stamp(i.start)]
        ends = [(parse_stamp(i.end), i.end) for i in infos if i.end and parse_stamp(i.end)]
        project = (main.project if main and main.project else None) or next(
            (i.project for i in infos if i.project), None
        )
        return Facts(
            project,
            min(starts)[1] if starts else None,
            max(ends)[1] if ends else None,
            sum(i.messages for i in infos),
            sum(i.tool_calls for i in infos),
        )

    def known(self, idx: Index, row: SessionRow) -> bool:
        """Whether every file of ``row`` is described already (sorting by date uses only those)."""
        for dest in row.dests:
            path = idx.out.dropped_output(dest) if row.dropped else idx.out.output(dest)
            stamp = self._stamp(path)
            if stamp is None:
                continue
            with self._lock:
                got = self._cache.get(str(path))
            if got is None or got[0] != stamp:
                return False
        return True

    def warm(self, idx: Index, stop: threading.Event) -> None:
        """Describe every session (the background thread), until ``stop``."""
        for row in list(idx.sessions):
            if stop.is_set():
                return
            self.facts(idx, row)


def select_sessions(
    idx: Index, cache: FactsCache, harness: str, state: str, q: str, sort: str
) -> list[SessionRow]:
    q = q.lower()
    rows = []
    for s in idx.sessions:
        if harness and s.harness != harness:
            continue
        if state == "dropped" and not s.dropped or state == "included" and s.dropped:
            continue
        if state == "flagged" and not s.flagged:
            continue
        if q and q not in s.id.lower() and not any(q in d.lower() for d in s.dests):
            facts = cache.facts(idx, s) if cache.known(idx, s) else None
            if facts is None or q not in (facts.project or "").lower():
                continue
        rows.append(s)
    if sort == "start":

        def start(s: SessionRow) -> tuple:
            f = cache.facts(idx, s) if cache.known(idx, s) else None
            when = parse_stamp(f.start) if f and f.start else None
            return (when is None, when.timestamp() if when else 0, s.id)

        rows.sort(key=start)
    elif sort == "size":
        rows.sort(key=lambda s: (-s.size, s.id))
    elif sort == "id":
        rows.sort(key=lambda s: (s.harness, s.id))
    return rows
