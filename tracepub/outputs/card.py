"""The dataset card (dataset/README.md): part of the signed bytes, so settled before signing.

It says what was redacted and how, with counts, the tool version, the harnesses, and (after
approve) the reviewer and date, and it carries the best-effort notice. ``publish`` never edits
it; an option that would change it must be given to ``redact`` or ``approve`` instead. Its YAML
header is the Hub's own (``huggingface_hub``'s ``DatasetCardData``), so it is what the Hub reads,
quoted as the Hub's YAML writer quotes it.
"""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import DatasetCard, DatasetCardData

from tracepub import __version__
from tracepub.outdir import OutDir
from tracepub.outputs.files import write_text
from tracepub.runtypes import RunSummary
from tracepub.selection import select as selection

DEFAULT_LICENSE = "other"
NOTICE = (
    "Redaction is best effort. tracepub replaced secrets and personal data it could find with typed "
    "placeholders, and a person reviewed the result, but automated redaction can miss things "
    "(names in images, secrets split across messages, formats it does not know). If you find "
    "something that should not be here, please open a discussion on this dataset."
)
# The header from the card data, then the body as rendered below.
_TEMPLATE = "---\n{{ card_data }}\n---\n{{ body }}"


def render(summary: RunSummary, meta: dict[str, str]) -> str:
    harnesses = sorted(summary.harnesses)
    findings, actions, blobs = summary.findings, summary.actions, summary.blobs
    tags = ["agent-traces", "tracepub", *[h.replace("_", "-") for h in harnesses]]
    license_ = meta.get("license") or DEFAULT_LICENSE
    title = meta.get("title") or "Coding-agent session traces"
    data = DatasetCardData(license=license_, pretty_name=title, tags=tags)
    lines = ["", f"# {title}", ""]
    lines.append(
        f"{summary.sessions} session file(s) from {', '.join(harnesses) or 'no harness'}, "
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
    return str(DatasetCard.from_template(data, template_str=_TEMPLATE, body="\n".join(lines)))


def write_card(out: Path | OutDir, summary: RunSummary, meta: dict[str, str]) -> None:
    write_text(OutDir(out).card, render(summary, meta))


def read_meta(out: Path | OutDir) -> dict[str, str]:
    """The card's YAML header's plain values (license, pretty_name; lists such as tags left out)."""
    path = OutDir(out).card
    if not path.exists():
        return {}
    data = DatasetCard.load(path, ignore_metadata_errors=True).data.to_dict()
    return {k: v for k, v in data.items() if isinstance(v, str)}
