"""The dataset card (dataset/README.md): part of the signed bytes, so settled before signing.

It says what was redacted and how (a table from type to placeholder form, with counts), how to
load the dataset (one ``datasets`` config per kind of file: ``outputs.configs``), the license
the reviewer chose at approve, the tool version and its measured leak figures, the harnesses,
and (after approve) the reviewer and date, and it carries the best-effort notice. ``publish``
never edits it; an option that would change it must be given to ``redact`` or ``approve``
instead. Its YAML header is the Hub's own (``huggingface_hub``'s ``DatasetCardData``), so it is
what the Hub reads, quoted as the Hub's YAML writer quotes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tracepub import __version__
from tracepub.outdir import OutDir
from tracepub.outputs.configs import MISREAD, Kind, kinds
from tracepub.outputs.files import dataset_files, write_text
from tracepub.redact.placeholders import label
from tracepub.redact.policy import operator_for
from tracepub.runtypes import RunSummary
from tracepub.selection import select as selection

NOTICE = (
    "Redaction is best effort. tracepub replaced secrets and personal data it could find with typed "
    "placeholders, and a person reviewed the result, but automated redaction can miss things "
    "(names in images, secrets split across messages, formats it does not know). If you find "
    "something that should not be here, please open a discussion on this dataset."
)
# What this version of tracepub measured on its labelled corpus: README's "Detection quality"
# table (tests/test_card.py checks they agree). One place: update both when the figures change.
MEASURED = {
    "command": "bench/eval.py --size 20MB",
    "corpus": "a generated, labelled 20.7 MB corpus of sessions in all 13 formats",
    "rows": (
        ("secrets leaked (full or partial)", "0.00% (0 + 0 of 1299)"),
        ("user's identity leaked", "0 (of 388)"),
        ("PII leaked", "0.09% (4 of 4299)"),
        ("harmless values removed", "0.00% (0 of 1986)"),
    ),
}
# What it measured on material nobody here wrote: README's first "Detection quality" table
# (tests/test_card.py checks they agree). These are the figures to believe.
MEASURED_OUTSIDE = (
    (
        "gitleaks' rule examples planted in 6 harnesses x 4 places (`bench/recall.py`)",
        "99.8% of secrets fully redacted, 82.3% of look-alikes kept",
    ),
    (
        "Nosey Parker's rule examples, planted the same way (`bench/recall_np.py`)",
        "99.7% of secrets fully redacted, 84.1% of look-alikes kept",
    ),
    (
        "Kingfisher's rule examples, planted the same way (`bench/recall_np.py --suite kingfisher`)",
        "97.2% of secrets fully redacted, 100% of look-alikes kept",
    ),
    (
        "Titus' rule examples, planted the same way (`bench/recall_np.py --suite titus`)",
        "97.0% of secrets fully redacted, 85.4% of look-alikes kept",
    ),
    (
        "secretlint's rule snapshots, each file planted whole the same way (`bench/recall_secretlint.py`)",
        "65.1% of files fully redacted (the rest: written stand-ins, kept as documentation examples)",
    ),
    (
        "random values of Kingfisher's 619 key shapes, a value each in 28 places secrets sit (`bench/recall_shapes.py`)",
        "99.9% of secrets fully redacted",
    ),
    (
        "Presidio's recognizer test cases planted the same way (`bench/pii_outside.py`)",
        "97.4% of the personal data we claim fully redacted, 97.6% of look-alikes kept",
    ),
    (
        "68 MB of real public packages as file reads and shell output (`bench/overredaction.py`)",
        "7.3 harmless redactions per MB",
    ),
    (
        "the owner's identity in 30 places, a colleague's in 24, two settings (`bench/identity.py`)",
        "0 places left in clear",
    ),
)
TASK_CATEGORIES = ["text-generation"]
DEFAULT_LANGUAGE = "en"
_SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"))
_FORMS = {
    "mask": "masked: `*` for all but the last 4 characters",
    "hash": "salted SHA-256 (64 hex characters; the salt was not published)",
    "redact": "removed (empty)",
}
# The header from the card data, then the body as rendered below.
_TEMPLATE = "---\n{{ card_data }}\n---\n{{ body }}"


def size_category(n: int) -> str:
    return next((name for bound, name in _SIZES if n < bound), "n>1M")


def placeholder_form(type_: str, policy: dict[str, str]) -> str:
    """How a value of ``type_`` appears in the dataset: ``<EMAIL_…>``, ``<USER>``, or the operator."""
    op = operator_for(policy, type_)
    if op != "placeholder":
        return _FORMS.get(op, op)
    name = label(type_)
    return f"`<{name}>`" if type_.startswith("identity.") else f"`<{name}_…>`"


def _policy(od: OutDir) -> dict[str, str]:
    """The run's replacement policy (tracepub.toml [replace]), as run.json recorded it."""
    try:
        data = json.loads(od.run_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    replace = (data.get("detect") or {}).get("replace") or {}
    return dict(replace) if isinstance(replace, dict) else {}


def _loading(found: list[Kind], left: list[str]) -> list[str]:
    lines = ["", "## Loading", ""]
    if not found:
        return [*lines, "No file here is in a form `datasets` loads."]
    lines.append("One config per kind of file (`OWNER/NAME` is this dataset's id):")
    lines += ["", "| config | files | rows |", "|---|---|---|"]
    for k in found:
        if k.parsed:
            rows = "one per session, decoded by `teich` (messages, tools, metadata, the raw trace)"
        else:
            rows = "one per line (event), every key a JSON column"
        note = MISREAD.get(k.name)
        lines.append(
            f"| `{k.name}` | {len(k.files)} | {rows}"
            + (f" ({note}, so it is loaded raw)" if note and not k.parsed else "")
            + " |"
        )
    first = found[0].name
    lines += [
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'ds = load_dataset("OWNER/NAME", "{first}", split="train")',
        "```",
    ]
    parsed = [k.name for k in found if k.parsed]
    if parsed:
        names = ", ".join(f"`{n}`" for n in parsed)
        lines += [
            "",
            f"{names} need `pip install teich` (without it `datasets` raises `ImportError`). "
            "To read any config raw, as the harness wrote it, download its files and read them "
            "line by line:",
            "",
            "```python",
            "import json",
            "from huggingface_hub import snapshot_download",
            "",
            f'root = snapshot_download("OWNER/NAME", repo_type="dataset", allow_patterns=["{parsed[0]}/**"])',
            "```",
            "",
            "then `json.loads` each line of each `.jsonl` file under `root`.",
        ]
    if left:
        lines += [
            "",
            f"{len(left)} file(s) are in no config: JSON documents (legacy Gemini CLI, ATIF, `.json` "
            "files), which `datasets` cannot read when a key holds a list in one item and text in "
            "another, and sidecars such as Claude Code's `.meta.json`. Download them as files "
            "(`snapshot_download` as above, with their folder).",
        ]
    return lines


def _redaction(summary: RunSummary, policy: dict[str, str]) -> list[str]:
    findings, actions, blobs = summary.findings, summary.actions, summary.blobs
    lines = ["", "## Redaction", ""]
    lines.append(
        "Each value found is replaced by a typed placeholder; the same value has the same "
        "placeholder everywhere in this dataset. The suffix (`…`, 8 hex characters) is a keyed "
        "hash whose key was not published. The author's own identity, when tracepub knew it, "
        "has fixed forms (`<USER>`, `<USER_NAME>`, `<USER_EMAIL>`, `<HOSTNAME>`); other usernames "
        "in home folders (`/home/<USER_…>/`) are `pii.username`. In file and folder names the "
        "angle brackets are dropped (`-Users-USER_1a2b3c4d-src`)."
    )
    lines += ["", "| type | appears as | occurrences |", "|---|---|---|"]
    for t, n in sorted(findings.items()):
        lines.append(f"| {t} | {placeholder_form(t, policy)} | {n} |")
    if not findings:
        lines.append("| (none found) | | 0 |")
    if actions.get("kept"):
        lines += ["", f"{actions['kept']} occurrence(s) were reviewed and deliberately left in clear."]
    if blobs:
        lines += [
            "",
            "Opaque blobs removed (images, encrypted reasoning, signatures): "
            + ", ".join(f"{k}: {v}" for k, v in sorted(blobs.items()))
            + ".",
        ]
    return lines


def _quality() -> list[str]:
    lines = [
        "",
        "## Detection quality",
        "",
        f"Measured for tracepub {__version__} on material nobody on the project wrote:",
        "",
        "| benchmark | result |",
        "|---|---|",
        *[f"| {m} | {v} |" for m, v in MEASURED_OUTSIDE],
        "",
        f"And for tracepub {__version__} with `{MEASURED['command']}` on {MEASURED['corpus']} "
        "(planted fake secrets, personal data, the user's identity and harmless look-alikes):",
        "",
        "| measure | value |",
        "|---|---|",
    ]
    lines += [f"| {m} | {v} |" for m, v in MEASURED["rows"]]
    lines += [
        "",
        "The corpus is written by the same people as the detectors: treat these as an upper bound "
        "on recall for real traces.",
    ]
    return lines


def render(
    summary: RunSummary,
    meta: dict[str, str],
    found: list[Kind] | None = None,
    left: list[str] | None = None,
    policy: dict[str, str] | None = None,
) -> str:
    from huggingface_hub import DatasetCard, DatasetCardData  # here: 0.25 s to import, the card is last

    found, left, policy = found or [], left or [], policy or {}
    harnesses = sorted(summary.harnesses)
    tags = ["agent-traces", "tracepub", *[h.replace("_", "-") for h in harnesses]]
    title = meta.get("title") or "Coding-agent session traces"
    extra: dict[str, Any] = {}
    if found:
        extra["configs"] = [k.config() for k in found]
        infos = [i for i in (k.info() for k in found) if i is not None]
        if infos:
            extra["dataset_info"] = infos
    data = DatasetCardData(
        license=meta.get("license") or None,
        pretty_name=title,
        tags=tags,
        task_categories=TASK_CATEGORIES,
        size_categories=[size_category(summary.sessions)],
        language=[meta.get("language") or DEFAULT_LANGUAGE],
        **extra,
    )
    lines = ["", f"# {title}", ""]
    lines.append(
        f"{summary.sessions} session file(s) from {', '.join(harnesses) or 'no harness'}, "
        f"redacted with tracepub {__version__}. Each file keeps its harness's own format "
        "(JSONL sessions line for line; SQLite and JSON-tree stores as one STS JSONL file per session)."
    )
    if line := selection.card_line(summary):  # counts only: never folders, ids or deny rules
        lines += ["", line]
    lines += _loading(found, left)
    lines += _redaction(summary, policy)
    lines += ["", "## Review", ""]
    if meta.get("reviewer"):
        lines.append(
            f"Reviewed and approved by {meta['reviewer']} on {meta.get('date', '')}, "
            f"under the license {meta.get('license') or '(none given)'}. "
            "The upload contains exactly the files the reviewer signed off (their sha256 "
            "is in the commit message)."
        )
    else:
        lines.append("Not yet approved.")
    lines += _quality()
    lines += ["", "## Notice", "", NOTICE, ""]
    return str(DatasetCard.from_template(data, template_str=_TEMPLATE, body="\n".join(lines)))


def write_card(out: Path | OutDir, summary: RunSummary, meta: dict[str, str]) -> None:
    """Render the card for the files now under dataset/ (their kinds give the configs)."""
    od = OutDir(out)
    names = [p.relative_to(od.dataset).as_posix() for p in dataset_files(od.dataset)]
    found, left = kinds(od.dataset, [n for n in names if n != OutDir.CARD])
    write_text(od.card, render(summary, meta, found, left, _policy(od)))


def read_meta(out: Path | OutDir) -> dict[str, str]:
    """The card's YAML header's plain values (license, pretty_name; lists such as tags left out)."""
    from huggingface_hub import DatasetCard

    path = OutDir(out).card
    if not path.exists():
        return {}
    data = DatasetCard.load(path, ignore_metadata_errors=True).data.to_dict()
    return {k: v for k, v in data.items() if isinstance(v, str)}
