"""Findings grouped by value: what the report shows and what a review decision is about.

The reviewer decides once per distinct value, not once per occurrence, so findings are folded
into one small group per ``value_id`` (counts, a few distinct context snippets, the first
files): memory follows the number of distinct values, not of findings. Folding is done per
file in the workers as the findings are written (``FileFold``) and merged in the main process
(``merge``), which gives what folding findings.jsonl would (``aggregate``) without reading
back a file as big as the input.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from tracepub.outdir import OutDir

SNIPPETS_PER_VALUE = 3
FILES_PER_VALUE = 5


@dataclass
class ValueGroup:
    """Every finding of one distinct value (what a review decision is about)."""

    value_id: str
    value: str  # masked for secrets and identity (see redact.mask)
    placeholder: str | None = None
    count: int = 0
    types: Counter = field(default_factory=Counter)
    detectors: Counter = field(default_factory=Counter)
    actions: Counter = field(default_factory=Counter)
    conf_min: float = 1.0
    conf_max: float = 0.0
    files: dict[str, None] = field(default_factory=dict)  # ordered set, capped
    n_files: int = 0
    snippets: list[dict[str, str]] = field(default_factory=list)
    finding_id: str = ""  # the first finding's id (review accepts it too)

    @property
    def type(self) -> str:
        return self.types.most_common(1)[0][0]

    @property
    def flagged(self) -> bool:
        return self.actions.get("review", 0) > 0

    @property
    def action(self) -> str:
        if self.flagged:
            return "review"
        if self.actions.get("kept") == self.count:
            return "kept"
        return "redacted"

    @property
    def family(self) -> str:
        return self.type.partition(".")[0]


@dataclass
class Aggregate:
    groups: dict[str, ValueGroup] = field(default_factory=dict)
    total: int = 0
    by_type: Counter = field(default_factory=Counter)
    by_detector: Counter = field(default_factory=Counter)
    by_action: Counter = field(default_factory=Counter)
    by_file: Counter = field(default_factory=Counter)


def iter_findings(out: Path | OutDir) -> Iterator[dict[str, Any]]:
    path = OutDir(out).findings
    if not path.exists():
        return
    with open(path, "rb") as fh:  # orjson: findings.jsonl is about as big as the input
        for line in fh:
            if line.strip():
                yield orjson.loads(line)


def load_findings(out: Path | OutDir) -> list[dict[str, Any]]:
    return list(iter_findings(out))


def aggregate(findings) -> Aggregate:
    agg = Aggregate()
    files_seen: dict[str, str] = {}  # interned file names: one string per file, not per finding
    for f in findings:
        add_finding(agg, f, files_seen.setdefault(f["file"], f["file"]))
    return agg


def add_finding(agg: Aggregate, f: dict, file: str) -> None:
    """Fold one finding into ``agg`` (the order of findings matters: first value, placeholder,
    files and snippets are the first ones seen)."""
    agg.total += 1
    vid = f.get("value_id") or f["id"]
    g = agg.groups.get(vid)
    if g is None:
        g = agg.groups[vid] = ValueGroup(vid, f.get("value", ""), finding_id=f["id"])
    g.count += 1
    g.types[f["type"]] += 1
    g.detectors[f["detector"]] += 1
    g.actions[f["action"]] += 1
    conf = float(f.get("confidence", 0))
    g.conf_min, g.conf_max = min(g.conf_min, conf), max(g.conf_max, conf)
    in_name = "#file" in f.get("path", "")
    if f.get("placeholder") and (g.placeholder is None or (g.placeholder[:1] != "<" and not in_name)):
        g.placeholder = f["placeholder"]  # prefer the <TYPE_…> form to a file-name one
    if file not in g.files:
        g.n_files += 1
        if len(g.files) < FILES_PER_VALUE:
            g.files[file] = None
    if len(g.snippets) < SNIPPETS_PER_VALUE:
        ctx = f.get("context") or {}
        snip = {
            "before": ctx.get("before", ""),
            "after": ctx.get("after", ""),
            "file": file,
            "where": "file or folder name" if in_name else f"record {f.get('record')}, {f.get('path', '')}",
        }
        if not any(s["before"] == snip["before"] and s["after"] == snip["after"] for s in g.snippets):
            g.snippets.append(snip)
    agg.by_type[f["type"]] += 1
    agg.by_detector[f["detector"]] += 1
    agg.by_action[f["action"]] += 1
    agg.by_file[file] += 1


# -- folding per file, in the worker processes ------------------------------------------------------
# Reading findings.jsonl back and folding it in the main process is serial work that grows with
# the corpus (seconds per GB). A worker folds the findings of its file as it writes them
# (``FileFold``); the main process merges the folds in findings.jsonl order (``merge``), which
# gives the same ``Aggregate`` as folding findings.jsonl: every rule of ``add_finding`` is kept (first
# value and id, the placeholder preference, the capped file list and its count, the first
# distinct snippets).
_KEEP = "\0keep"  # placeholder fold from a placeholder not of the <TYPE_…> form: unchanged


@dataclass
class _FoldGroup:
    value: str
    finding_id: str
    count: int = 0
    types: Counter = field(default_factory=Counter)
    detectors: Counter = field(default_factory=Counter)
    actions: Counter = field(default_factory=Counter)
    conf_min: float = 1.0
    conf_max: float = 0.0
    placeholder: str | None = None  # the fold from no placeholder
    after_plain: str = _KEEP  # the fold from a placeholder not starting with "<"
    snippets: list[dict[str, str]] = field(default_factory=list)  # the first distinct ones


@dataclass
class FileFold:
    """The findings of one output file, folded for ``merge``. All of them name the same file."""

    file: str = ""
    total: int = 0
    groups: dict[str, _FoldGroup] = field(default_factory=dict)
    by_type: Counter = field(default_factory=Counter)
    by_detector: Counter = field(default_factory=Counter)
    by_action: Counter = field(default_factory=Counter)

    def add(self, f: dict) -> None:
        self.add_static(
            f["file"],
            f["id"],
            f.get("record"),
            f.get("path", ""),
            (
                f.get("value_id") or f["id"],
                f.get("value", ""),
                f["type"],
                f["detector"],
                f["action"],
                float(f.get("confidence", 0)),
                f.get("placeholder"),
                *_context(f),
            ),
        )

    def add_static(self, file: str, fid: str, record, where: str, st: tuple) -> None:
        """``add`` for a finding given as its parts: ``st`` is (value id, value, type, detector,
        action, confidence, placeholder, context before, context after), what the redactor keeps
        once for every occurrence of a text."""
        self.file = file
        self.total += 1
        vid, value, type_, detector, action, conf, ph, before, after = st
        g = self.groups.get(vid)
        if g is None:
            g = self.groups[vid] = _FoldGroup(value, fid)
        g.count += 1
        g.types[type_] += 1
        g.detectors[detector] += 1
        g.actions[action] += 1
        if conf < g.conf_min:
            g.conf_min = conf
        if conf > g.conf_max:
            g.conf_max = conf
        if ph:
            in_name = "#file" in where
            if g.placeholder is None or (g.placeholder[:1] != "<" and not in_name):
                g.placeholder = ph
            if not in_name and (g.after_plain == _KEEP or g.after_plain[:1] != "<"):
                g.after_plain = ph
        if len(g.snippets) < SNIPPETS_PER_VALUE:
            in_name = "#file" in where
            snip = {
                "before": before,
                "after": after,
                "file": file,
                "where": "file or folder name" if in_name else f"record {record}, {where}",
            }
            if not any(s["before"] == before and s["after"] == after for s in g.snippets):
                g.snippets.append(snip)
        self.by_type[type_] += 1
        self.by_detector[detector] += 1
        self.by_action[action] += 1

    def add_spans(self, sf: SpanFold, file: str, record, where: str, fids: list) -> None:
        """``add_static`` for each span of ``sf`` in turn (the findings of one text where it
        occurs: ``fids`` are their ids, in span order), in one step per value."""
        self.file = file
        self.total += sf.total
        in_name = "#file" in where
        groups = self.groups
        snip_where = None
        for (
            vid,
            value,
            first,
            count,
            types,
            detectors,
            actions,
            conf_min,
            conf_max,
            ph_first,
            ph_last,
            snips,
        ) in sf.groups:
            g = groups.get(vid)
            if g is None:
                fid = fids[first]
                g = groups[vid] = _FoldGroup(value, fid if isinstance(fid, str) else fid.decode())
            g.count += count
            _add_counts(g.types, types)
            _add_counts(g.detectors, detectors)
            _add_counts(g.actions, actions)
            if conf_min < g.conf_min:
                g.conf_min = conf_min
            if conf_max > g.conf_max:
                g.conf_max = conf_max
            if in_name:
                if g.placeholder is None and ph_first is not None:
                    g.placeholder = ph_first
            elif ph_last is not None:
                if g.placeholder is None or g.placeholder[:1] != "<":
                    g.placeholder = ph_last
                if g.after_plain == _KEEP or g.after_plain[:1] != "<":
                    g.after_plain = ph_last
            if len(g.snippets) < SNIPPETS_PER_VALUE:
                if snip_where is None:
                    snip_where = "file or folder name" if in_name else f"record {record}, {where}"
                for before, after in snips:
                    if len(g.snippets) >= SNIPPETS_PER_VALUE:
                        break
                    if not any(s["before"] == before and s["after"] == after for s in g.snippets):
                        g.snippets.append(
                            {"before": before, "after": after, "file": file, "where": snip_where}
                        )
        _add_counts(self.by_type, sf.by_type)
        _add_counts(self.by_detector, sf.by_detector)
        _add_counts(self.by_action, sf.by_action)

    def extend(self, other: FileFold) -> None:
        """Append the fold of later findings of the same file (the pieces of a split file)."""
        for vid, o in other.groups.items():
            g = self.groups.get(vid)
            if g is None:
                self.groups[vid] = o
                continue
            g.count += o.count
            g.types.update(o.types)
            g.detectors.update(o.detectors)
            g.actions.update(o.actions)
            g.conf_min, g.conf_max = min(g.conf_min, o.conf_min), max(g.conf_max, o.conf_max)
            g.placeholder = _then(g.placeholder, o)
            if g.after_plain == _KEEP or g.after_plain[:1] != "<":
                g.after_plain = g.after_plain if o.after_plain == _KEEP else o.after_plain
            _more_snippets(g.snippets, o.snippets)
        self.file = self.file or other.file
        self.total += other.total
        self.by_type.update(other.by_type)
        self.by_detector.update(other.by_detector)
        self.by_action.update(other.by_action)


def _add_counts(counter: Counter, counts: dict) -> None:
    get = counter.get
    for k, n in counts.items():
        counter[k] = get(k, 0) + n


@dataclass(slots=True)
class SpanFold:
    """The findings of a text's spans (``add_static``'s ``st`` tuples, in order) folded once, so
    that each place the text occurs folds them a value at a time (``FileFold.add_spans``): a long
    tool output holds the user's name in every path. Per value id, in order of first finding:
    (value id, value, index of its first finding, count, types, detectors, actions, lowest and
    highest confidence, its first placeholder, the placeholder a run of its findings leaves
    behind where they are not in a file name, the first ``SNIPPETS_PER_VALUE`` distinct
    (before, after) contexts). Counts are dicts in order of first finding, as Counters fill."""

    total: int
    groups: list[tuple]
    by_type: dict[str, int]
    by_detector: dict[str, int]
    by_action: dict[str, int]


def span_fold(statics: list[tuple]) -> SpanFold:
    """Fold ``add_static``'s tuples (value id, value, type, detector, action, confidence,
    placeholder, before, after) of one text's spans, in order, for ``FileFold.add_spans``.

    The placeholder rules of ``add_static`` fold a run of findings into: in a file name, the
    first placeholder where there was none; elsewhere, where the group's placeholder (and its
    ``after_plain``) does not start with "<", the run's first placeholder starting with "<",
    else its last one."""
    per: dict[str, list] = {}
    by_type: dict[str, int] = {}
    by_detector: dict[str, int] = {}
    by_action: dict[str, int] = {}
    for i, (vid, value, type_, detector, action, conf, ph, before, after) in enumerate(statics):
        g = per.get(vid)
        if g is None:
            g = per[vid] = [vid, value, i, 0, {}, {}, {}, conf, conf, None, None, []]
        g[3] += 1
        t = g[4]
        t[type_] = t.get(type_, 0) + 1
        t = g[5]
        t[detector] = t.get(detector, 0) + 1
        t = g[6]
        t[action] = t.get(action, 0) + 1
        if conf < g[7]:
            g[7] = conf
        if conf > g[8]:
            g[8] = conf
        if ph:
            if g[9] is None:
                g[9] = ph
            if g[10] is None or g[10][:1] != "<":
                g[10] = ph
        snips = g[11]
        if len(snips) < SNIPPETS_PER_VALUE and (before, after) not in snips:
            snips.append((before, after))
        by_type[type_] = by_type.get(type_, 0) + 1
        by_detector[detector] = by_detector.get(detector, 0) + 1
        by_action[action] = by_action.get(action, 0) + 1
    return SpanFold(len(statics), [tuple(g) for g in per.values()], by_type, by_detector, by_action)


def _context(f: dict) -> tuple[str, str]:
    ctx = f.get("context") or {}
    return ctx.get("before", ""), ctx.get("after", "")


def _then(ph: str | None, later: _FoldGroup) -> str | None:
    """The placeholder after folding ``later``'s findings into a group whose placeholder is ``ph``."""
    if ph is None:
        return later.placeholder
    if ph[:1] == "<" or later.after_plain == _KEEP:
        return ph
    return later.after_plain


def _more_snippets(snippets: list[dict[str, str]], later: list[dict[str, str]]) -> None:
    for snip in later:
        if len(snippets) >= SNIPPETS_PER_VALUE:
            return
        if not any(s["before"] == snip["before"] and s["after"] == snip["after"] for s in snippets):
            snippets.append(snip)


def merge(agg: Aggregate, fold: FileFold) -> None:
    """Fold a file's findings into ``agg`` as ``aggregate`` would have, one by one."""
    if not fold.total:
        return
    file = fold.file
    agg.total += fold.total
    for vid, o in fold.groups.items():
        g = agg.groups.get(vid)
        if g is None:
            g = agg.groups[vid] = ValueGroup(vid, o.value, finding_id=o.finding_id)
        g.count += o.count
        g.types.update(o.types)
        g.detectors.update(o.detectors)
        g.actions.update(o.actions)
        g.conf_min, g.conf_max = min(g.conf_min, o.conf_min), max(g.conf_max, o.conf_max)
        g.placeholder = _then(g.placeholder, o)
        if file not in g.files:  # add_finding counts every finding once the list is full (kept as it is)
            if len(g.files) < FILES_PER_VALUE:
                g.n_files += 1
                g.files[file] = None
            else:
                g.n_files += o.count
        _more_snippets(g.snippets, o.snippets)
    agg.by_type.update(fold.by_type)
    agg.by_detector.update(fold.by_detector)
    agg.by_action.update(fold.by_action)
    agg.by_file[file] += fold.total


def fold_part(path: Path) -> FileFold:
    """The fold of a findings part written by an earlier run (a reused file)."""
    fold = FileFold()
    if path.exists():
        with open(path, "rb") as fh:
            for line in fh:
                if line.strip():
                    fold.add(orjson.loads(line))
    return fold
