"""The dataset card (dataset/README.md): part of the signed bytes, so settled before signing.

It says what was redacted and how, with counts, the tool version, the harnesses, and (after
approve) the reviewer and date, and it carries the best-effort notice. ``publish`` never edits
it; an option that would change it must be given to ``redact`` or ``approve`` instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracepub import __version__, selection
from tracepub.output import DATASET, write_text

NOTICE = (
    "Redaction is best effort. tracepub replaced secrets and personal data it could find with typed "
    "placeholders, and a person reviewed the result, but automated redaction can miss things "
    "(names in images, secrets split across messages, formats it does not know). If you find "
    "something that should not be here, please open a discussion on this dataset."
)


def render(summary: Any, meta: dict[str, Any]) -> str:
    harnesses = sorted(summary.harnesses)
    tags = ["agent-traces", "tracepub", *[h.replace("_", "-") for h in harnesses]]
    license_ = meta.get("license") or "other"
    title = meta.get("title") or "Coding-agent session traces"
    lines = ["---", f"license: {license_}", "tags:"]
    lines += [f"- {t}" for t in tags]
    lines += ["---", "", f"# {title}", ""]
    lines.append(
        f"{summary.sessions} session file(s) from {', '.join(harnesses) or 'no harness'}, "
        f"redacted with tracepub {__version__}."
    )
    if line := selection.card_line(summary):  # counts only: never folders, ids or deny rules
        lines += ["", line]
    lines += ["", "## Redaction", ""]
    lines.append("Values are replaced by typed placeholders such as `<EMAIL_1a2b3c4d>`; the same value "
                 "has the same placeholder everywhere in this dataset. The suffix is a keyed hash "
                 "whose key was not published. The author's own username, name, email and hostname "
                 "appear as `<USER>`, `<USER_NAME>`, `<USER_EMAIL>`, `<HOSTNAME>`.")
    lines += ["", "| type | replaced |", "|---|---|"]
    for t, n in sorted(summary.findings.items()):
        lines.append(f"| {t} | {n} |")
    if summary.blobs:
        lines += ["", "Opaque blobs removed (images, encrypted reasoning, signatures): "
                  + ", ".join(f"{k}: {v}" for k, v in sorted(summary.blobs.items())) + "."]
    if meta.get("reviewer"):
        lines += ["", f"Reviewed and approved by {meta['reviewer']} on {meta.get('date', '')}."]
    lines += ["", "## Notice", "", NOTICE, ""]
    return "\n".join(lines)


def write_card(out: Path, summary: Any, meta: dict[str, Any]) -> None:
    write_text(out / DATASET / "README.md", render(summary, meta))
