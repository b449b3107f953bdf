"""The review report (review/report.html): self-contained, grouped by distinct value."""

from __future__ import annotations

import html
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from tracepub.output import REVIEW, write_text


def load_findings(out: Path) -> list[dict]:
    path = out / REVIEW / "findings.jsonl"
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def write_report(out: Path, summary: Any) -> None:
    findings = load_findings(out)
    groups: dict[str, list[dict]] = defaultdict(list)
    for f in findings:
        groups[f["value_id"]].append(f)
    rows = []
    for vid, fs in sorted(groups.items(), key=lambda kv: (kv[1][0]["action"] != "review", kv[1][0]["type"])):
        f = fs[0]
        ctx = html.escape(f["context"]["before"]) + "<mark>" + html.escape(f["value"]) + "</mark>" + html.escape(
            f["context"]["after"])
        rows.append(
            f"<tr><td>{html.escape(vid)}</td><td>{html.escape(f['type'])}</td><td>{html.escape(f['detector'])}</td>"
            f"<td>{f['action']}</td><td>{len(fs)}</td><td><code>{ctx}</code></td></tr>"
        )
    body = (
        "<!doctype html><meta charset=utf-8><title>tracepub review</title>"
        f"<h1>tracepub review</h1><p>{summary.files} files, {sum(summary.findings.values())} findings.</p>"
        "<table><tr><th>value</th><th>type</th><th>detector</th><th>action</th><th>n</th><th>context</th></tr>"
        + "".join(rows) + "</table>"
    )
    write_text(out / REVIEW / "report.html", body)
