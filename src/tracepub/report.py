"""The review report (review/report.html): one self-contained page a person can check.

The reviewer decides once per distinct value, not once per occurrence, so findings are grouped
by ``value_id``. findings.jsonl is streamed and folded into one small group per value (counts,
a few distinct context snippets, the first files), so memory follows the number of distinct
values, not of findings, and the page stays readable with 100k findings: the first
``DETAILED_VALUES`` values get a full card, the next ``TABLE_VALUES`` a table row, and the rest
are counted and left to ``tracepub review`` and findings.jsonl.

The page loads nothing: inline CSS and a little inline JavaScript (filtering; the page works
without it), and a Content-Security-Policy that forbids any network access.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
import orjson

from tracepub import __version__
from tracepub import decisions as decisions_mod
from tracepub.output import REVIEW, write_text

SNIPPETS_PER_VALUE = 3
FILES_PER_VALUE = 5
DETAILED_VALUES = 1500
TABLE_VALUES = 20_000
LIST_CAP = 200  # problems, skipped files, sessions
IDENTITY_FILE = "identity.json"
_ORDER = {"secret": 0, "custom": 1, "identity": 2, "pii": 3}


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


def iter_findings(out: Path):
    path = out / REVIEW / "findings.jsonl"
    if not path.exists():
        return
    with open(path, "rb") as fh:  # orjson: findings.jsonl is about as big as the input
        for line in fh:
            if line.strip():
                yield orjson.loads(line)


def load_findings(out: Path) -> list[dict]:
    return list(iter_findings(out))


def aggregate(findings) -> Aggregate:
    agg = Aggregate()
    files_seen: dict[str, str] = {}  # interned file names: one string per file, not per finding
    for f in findings:
        agg.total += 1
        vid = f.get("value_id") or f["id"]
        g = agg.groups.get(vid)
        if g is None:
            g = agg.groups[vid] = ValueGroup(vid, f.get("value", ""), finding_id=f["id"])
        file = files_seen.setdefault(f["file"], f["file"])
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
            snip = {"before": ctx.get("before", ""), "after": ctx.get("after", ""), "file": file,
                    "where": "file or folder name" if in_name else f"record {f.get('record')}, {f.get('path', '')}"}
            if not any(s["before"] == snip["before"] and s["after"] == snip["after"] for s in g.snippets):
                g.snippets.append(snip)
        agg.by_type[f["type"]] += 1
        agg.by_detector[f["detector"]] += 1
        agg.by_action[f["action"]] += 1
        agg.by_file[file] += 1
    return agg


def _sort_key(g: ValueGroup) -> tuple:
    return (not g.flagged, _ORDER.get(g.family, 9), g.type, -g.count, g.value_id)


def _get(summary: Any, name: str, default: Any = None) -> Any:
    if isinstance(summary, dict):
        return summary.get(name, default)
    return getattr(summary, name, default)


def _identity(out: Path) -> list[dict]:
    path = out / REVIEW / IDENTITY_FILE
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    items = data.get("values", data.get("identity", [])) if isinstance(data, dict) else data
    return [{"type": i.get("type", ""), "origin": i.get("origin", ""), "masked": i.get("masked", "")}
            for i in items if isinstance(i, dict)]


def _decisions(out: Path) -> dict[str, Any]:
    entries = decisions_mod.read(out)
    folded = decisions_mod.fold(entries)
    return {
        "entries": len(entries),
        "kept": len(folded.keep_ids),
        "added": [(v[:2] + "…" + v[-1:]) if len(v) > 4 else v[:1] + "…" for v in folded.add_values],
        "regexes": list(folded.add_regexes),
        "dropped": sorted(folded.dropped_sessions),
    }


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("tracepub", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = lambda n: f"{n:,}"
    env.filters["size"] = _size
    return env


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    return str(n)


OPEN_ALL = 40  # with this few values every card starts open


def render(out: Path, summary: Any) -> str:
    agg = aggregate(iter_findings(out))
    groups = sorted(agg.groups.values(), key=_sort_key)
    detailed = groups[:DETAILED_VALUES]
    table = groups[DETAILED_VALUES : DETAILED_VALUES + TABLE_VALUES]
    hidden = max(0, len(groups) - DETAILED_VALUES - TABLE_VALUES)
    sections: list[tuple[str, str, list[ValueGroup]]] = []
    flagged = [g for g in detailed if g.flagged]
    if flagged:
        sections.append(("flagged", "Flagged for review", flagged))
    by_family: dict[str, list[ValueGroup]] = {}
    for g in detailed:
        if not g.flagged:
            by_family.setdefault(g.family, []).append(g)
    titles = {"secret": "Secrets", "custom": "Added by the reviewer", "identity": "Your identity",
              "pii": "Personal data"}
    for fam in sorted(by_family, key=lambda f: _ORDER.get(f, 9)):
        sections.append((fam, titles.get(fam, fam.title()), by_family[fam]))
    problems = list(_get(summary, "problems", []) or [])
    skipped = list(_get(summary, "skipped", []) or [])
    sessions = _get(summary, "sessions", 0) or 0
    ctx = {
        "out": str(out),
        "version": __version__,
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "s": {
            "files": _get(summary, "files", 0) or 0,
            "sessions": sessions,
            "records": _get(summary, "records", 0) or 0,
            "bytes_in": _get(summary, "bytes_in", 0) or 0,
            "harnesses": dict(_get(summary, "harnesses", {}) or {}),
            "blobs": dict(_get(summary, "blobs", {}) or {}),
            "ner": _get(summary, "ner"),
        },
        "total": agg.total,
        "n_values": len(groups),
        "n_flagged_values": sum(1 for g in groups if g.flagged),
        "n_kept_values": sum(1 for g in groups if g.action == "kept"),
        "by_type": agg.by_type.most_common(),
        "by_detector": agg.by_detector.most_common(),
        "by_action": agg.by_action.most_common(),
        "by_session": agg.by_file.most_common(LIST_CAP),
        "more_sessions": max(0, len(agg.by_file) - LIST_CAP),
        "clean_sessions": max(0, sessions - len(agg.by_file)),
        "problems": problems[:LIST_CAP],
        "more_problems": max(0, len(problems) - LIST_CAP),
        "skipped": skipped[:LIST_CAP],
        "more_skipped": max(0, len(skipped) - LIST_CAP),
        "identity": _identity(out),
        "selection": (_get(summary, "selection", None) or {}).get("counts", {}),
        "denied": list(_get(summary, "denied", []) or [])[:LIST_CAP],
        "dropped": list(_get(summary, "dropped", []) or [])[:LIST_CAP],
        "decisions": _decisions(out),
        "sections": sections,
        "table": table,
        "hidden": hidden,
        "open_all": len(groups) <= OPEN_ALL,
    }
    return _env().get_template("report.html.j2").render(**ctx)


def write_report(out: Path, summary: Any) -> None:
    write_text(out / REVIEW / "report.html", render(out, summary))
