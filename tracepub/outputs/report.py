"""The review report (review/report.html): one self-contained page a person can check.

It shows findings grouped by value (``outputs.groups``: one group per ``value_id``), so the
page stays readable with 100k findings: the first ``DETAILED_VALUES`` values get a full card,
the next ``TABLE_VALUES`` a table row, and the rest are counted and left to ``tracepub review``
and findings.jsonl.

The page loads nothing: inline CSS and a little inline JavaScript (filtering; the page works
without it), and a Content-Security-Policy that forbids any network access. The policy allows
no inline script but that one, by its sha256 (``script``): the page shows text from the
sessions, and were one value ever to slip past the escaping, a script of its own could read the
page and send it out by navigation. The script lives in ``templates/report.js``, is put in the
page as it is, and has no inline event handlers.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from tracepub import __version__, shown
from tracepub.outdir import OutDir
from tracepub.outputs.files import write_text
from tracepub.outputs.groups import Aggregate, ValueGroup, aggregate, iter_findings
from tracepub.outputs.groups import span_fold as span_fold  # redact.redactor imports it from here
from tracepub.review import decisions as decisions_mod
from tracepub.runtypes import RunSummary

DETAILED_VALUES = 1500
TABLE_VALUES = 20_000
LIST_CAP = 200  # problems, skipped files, sessions
_ORDER = {"secret": 0, "custom": 1, "identity": 2, "pii": 3}


def _sort_key(g: ValueGroup) -> tuple:
    return (not g.flagged, _ORDER.get(g.family, 9), g.type, -g.count, g.value_id)


def _identity(out: Path | OutDir) -> list[dict[str, str]]:
    path = OutDir(out).identity
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    items = (data.get("values", data.get("identity", [])) if isinstance(data, dict) else data) or []
    return [
        {"type": i.get("type", ""), "origin": i.get("origin", ""), "masked": i.get("masked", "")}
        for i in items
        if isinstance(i, dict)
    ]


def _decisions(out: Path | OutDir) -> dict[str, Any]:
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
        loader=jinja2.PackageLoader("tracepub.outputs", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        finalize=shown.finalize,  # control and bidi characters in any value shown escaped
    )
    env.filters["num"] = lambda n: f"{n:,}"
    env.filters["size"] = _size
    return env


_TEMPLATE: list[jinja2.Template] = []
_TEMPLATE_LOCK = threading.Lock()


def load_template() -> jinja2.Template:
    """The report's template, compiled once per process (~50 ms): the pipeline has it compiled
    in a thread while the workers run, instead of after them."""
    with _TEMPLATE_LOCK:
        if not _TEMPLATE:
            _TEMPLATE.append(_env().get_template("report.html.j2"))
        return _TEMPLATE[0]


_SCRIPT: list[tuple[str, str]] = []


def script() -> tuple[str, str]:
    """The page's one script and its CSP source (``'sha256-…'`` of exactly the bytes between
    ``<script>`` and ``</script>``)."""
    if not _SCRIPT:
        text = (resources.files("tracepub.outputs") / "templates" / "report.js").read_text(encoding="utf-8")
        digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
        _SCRIPT.append((text, f"sha256-{digest}"))
    return _SCRIPT[0]


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    return str(n)


OPEN_ALL = 40  # with this few values every card starts open


def render(out: Path | OutDir, summary: RunSummary, agg: Aggregate | None = None) -> str:
    """The page; ``agg`` is the fold of findings.jsonl when the caller has it already."""
    if agg is None:
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
    titles = {
        "secret": "Secrets",
        "custom": "Added by the reviewer",
        "identity": "Your identity",
        "pii": "Personal data",
    }
    for fam in sorted(by_family, key=lambda f: _ORDER.get(f, 9)):
        sections.append((fam, titles.get(fam, fam.title()), by_family[fam]))
    problems, skipped, sessions = summary.problems, summary.skipped, summary.sessions
    code, code_hash = script()
    ctx = {
        "script": code,
        "script_hash": code_hash,
        "out": str(OutDir(out).root),
        "version": __version__,
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "s": {
            "files": summary.files,
            "sessions": sessions,
            "records": summary.records,
            "bytes_in": summary.bytes_in,
            "harnesses": dict(summary.harnesses),
            "blobs": dict(summary.blobs),
            "ner": summary.ner,
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
        "selection": (summary.selection or {}).get("counts", {}),
        "denied": summary.denied[:LIST_CAP],
        "dropped": summary.dropped[:LIST_CAP],
        "decisions": _decisions(out),
        "sections": sections,
        "table": table,
        "hidden": hidden,
        "open_all": len(groups) <= OPEN_ALL,
    }
    return load_template().render(**ctx)


def write_report(out: Path | OutDir, summary: RunSummary, agg: Aggregate | None = None) -> None:
    write_text(OutDir(out).report, render(out, summary, agg))
