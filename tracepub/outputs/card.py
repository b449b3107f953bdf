"""The dataset card (dataset/README.md): part of the signed bytes, so settled before signing.

It says what was redacted and how, with counts, the tool version, the harnesses, and (after
approve) the reviewer and date, and it carries the best-effort notice. ``publish`` never edits
it; an option that would change it must be given to ``redact`` or ``approve`` instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tracepub import __version__
from tracepub.outputs.files import DATASET, write_text
from tracepub.selection import select as selection

CARD = "README.md"
DEFAULT_LICENSE = "other"
NOTICE = (
    "Redaction is best effort. tracepub replaced secrets and personal data it could find with typed "
    "placeholders, and a person reviewed the result, but automated redaction can miss things "
    "(names in images, secrets split across messages, formats it does not know). If you find "
    "something that should not be here, please open a discussion on this dataset."
)


def _get(summary: Any, name: str, default: Any) -> Any:
    if isinstance(summary, dict):
        return summary.get(name, default)
    return getattr(summary, name, default)


def render(summary: Any, meta: dict[str, Any]) -> str:
    harnesses = sorted(_get(summary, "harnesses", {}) or {})
    findings: dict[str, int] = _get(summary, "findings", {}) or {}
    actions: dict[str, int] = _get(summary, "actions", {}) or {}
    blobs: dict[str, int] = _get(summary, "blobs", {}) or {}
    tags = ["agent-traces", "tracepub", *[h.replace("_", "-") for h in harnesses]]
    license_ = meta.get("license") or DEFAULT_LICENSE
    title = meta.get("title") or "Coding-agent session traces"
    # JSON strings are valid YAML scalars: a title with ':' or '#' cannot break the header.
    lines = ["---", f"license: {license_}", f"pretty_name: {json.dumps(title, ensure_ascii=False)}", "tags:"]
    lines += [f"- {t}" for t in tags]
    lines += ["---", "", f"# {title}", ""]
    lines.append(
        f"{_get(summary, 'sessions', 0)} session file(s) from {', '.join(harnesses) or 'no harness'}, "
        f"redacted with tracepub {__version__}. Each file keeps its harness's own format "
        "(JSONL sessions line for line; SQLite and JSON-tree stores as one STS JSONL file per session)."
    )
    if line := selection.card_line(summary):  # counts only: never folders, ids or deny rules
        lines += ["", line]
    lines += ["", "## Redaction", ""]
    lines.append("Values are replaced by typed placeholders such as `<EMAIL_1a2b3c4d>`; the same value "
                 "has the same placeholder everywhere in this dataset. The suffix is a keyed hash "
                 "whose key was not published. The author's own username, name, email and hostname "
                 "appear as `<USER>`, `<USER_NAME>`, `<USER_EMAIL>`, `<HOSTNAME>`.")
    lines += ["", "| type | occurrences |", "|---|---|"]
    for t, n in sorted(findings.items()):
        lines.append(f"| {t} | {n} |")
    if not findings:
        lines.append("| (none found) | 0 |")
    if actions.get("kept"):
        lines += ["", f"{actions['kept']} occurrence(s) were reviewed and deliberately left in clear."]
    if blobs:
        lines += ["", "Opaque blobs removed (images, encrypted reasoning, signatures): "
                  + ", ".join(f"{k}: {v}" for k, v in sorted(blobs.items())) + "."]
    lines += ["", "## Review", ""]
    if meta.get("reviewer"):
        lines.append(f"Reviewed and approved by {meta['reviewer']} on {meta.get('date', '')}. "
                     "The upload contains exactly the files the reviewer signed off (their sha256 "
                     "is in the commit message).")
    else:
        lines.append("Not yet approved.")
    lines += ["", "## Notice", "", NOTICE, ""]
    return "\n".join(lines)


def write_card(out: Path, summary: Any, meta: dict[str, Any]) -> None:
    write_text(out / DATASET / CARD, render(summary, meta))


def read_meta(out: Path) -> dict[str, str]:
    """The card's YAML header as flat ``key: value`` pairs (what tracepub itself writes)."""
    path = out / DATASET / CARD
    if not path.exists():
        return {}
    lines = path.read_text(encoding="utf-8").splitlines()
    meta: dict[str, str] = {}
    if not lines or lines[0] != "---":
        return meta
    for line in lines[1:]:
        if line == "---":
            break
        key, sep, value = line.partition(":")
        if sep and not line.startswith((" ", "-")) and value.strip():
            v = value.strip()
            meta[key.strip()] = json.loads(v) if v.startswith('"') else v
    return meta
