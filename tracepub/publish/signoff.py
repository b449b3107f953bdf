"""``tracepub approve DIR``: a named reviewer signs off the exact bytes of dataset/.

The chain is: every file's sha256 is in manifest.json; signoff.json holds the sha256 of
manifest.json and the manifest's random ``run_id``. The card (dataset/README.md) names the
reviewer and the date, so it is settled *before* the manifest is hashed; nothing signed is
edited afterwards. A signoff.json copied from another folder does not validate: that folder's
manifest has another run id, hence another hash.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracepub import __version__
from tracepub.errors import Refusal
from tracepub.outdir import OutDir
from tracepub.outputs import card
from tracepub.outputs.files import (
    FileTable,
    compute_files,
    dataset_files,
    diff_files,
    read_manifest,
    write_json,
    write_manifest,
)
from tracepub.outputs.groups import aggregate, iter_findings
from tracepub.review import runstate
from tracepub.runtypes import RunSummary


@dataclass
class Plan:
    """What approve is about to sign (and publish would send)."""

    files: FileTable
    bytes: int
    sessions: int
    harnesses: dict[str, int]
    actions: dict[str, int]
    findings: dict[str, int]
    flagged_values: int
    problems: int
    card: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


def _diff_line(diff: list[str]) -> str:
    shown = ", ".join(diff[:3]) + (f" and {len(diff) - 3} more" if len(diff) > 3 else "")
    return shown


def load_manifest(out: Path) -> dict[str, Any]:
    od = OutDir(out)
    if not od.manifest.exists():
        raise Refusal(f"{od.manifest} is missing: run `tracepub redact SOURCES --out {out}` first")
    try:
        return read_manifest(od)
    except ValueError as exc:
        raise Refusal(f"{od.manifest} is not valid JSON ({exc}): run `tracepub redact` again") from exc


def disk_files(out: Path) -> FileTable:
    """sha256 and size of every file under dataset/, refusing symlinks (tracepub never writes one,
    and one would upload whatever it points to)."""
    dataset = OutDir(out).dataset
    for p in dataset_files(dataset):
        if p.is_symlink():
            raise Refusal(
                f"{p} is a symbolic link; tracepub never writes one: remove it and run the command again"
            )
    return compute_files(dataset)


def verify_disk(out: Path) -> dict[str, Any]:
    """The manifest, if and only if dataset/ holds exactly the files and bytes it lists."""
    manifest = load_manifest(out)
    diff = diff_files(manifest.get("files", {}), disk_files(out))
    if diff:
        raise Refusal(
            f"dataset/ does not match manifest.json ({_diff_line(diff)}): run `tracepub review {out}` "
            "or `tracepub redact` again to regenerate it, then approve"
        )
    return manifest


def plan(out: Path, license_: str | None = None, title: str | None = None) -> Plan:
    manifest = verify_disk(out)
    state = runstate.read(out)
    summary = state.get("summary", {})
    files = manifest["files"]
    harnesses: Counter[str] = Counter(name.split("/", 1)[0] for name in files if "/" in name)
    if not harnesses:
        raise Refusal(
            f"{OutDir(out).dataset} holds no session file, so there is nothing to approve: "
            "run `tracepub redact SOURCES --out DIR` with sessions first"
        )
    flagged = sum(1 for g in aggregate(iter_findings(out)).groups.values() if g.flagged)
    meta = _card_meta(state, license_, title)
    return Plan(
        files=files,
        bytes=sum(f["size"] for f in files.values()),
        sessions=sum(harnesses.values()),
        harnesses=dict(sorted(harnesses.items())),
        actions=dict(summary.get("actions", {})),
        findings=dict(summary.get("findings", {})),
        flagged_values=flagged,
        problems=len(summary.get("problems", [])),
        card={"license": meta.get("license") or "", "title": meta.get("title") or ""},
    )


def _card_meta(
    state: dict[str, Any], license_: str | None, title: str | None, language: str | None = None
) -> dict[str, str]:
    meta = dict(state.get("options", {}).get("card", {}) or {})
    for key, value in (("license", license_), ("title", title), ("language", language)):
        if value:
            meta[key] = value
    return meta


def require_license(out: Path, license_: str | None) -> None:
    """A dataset is published under a license its reviewer chose: none given to redact or approve
    is a refusal, never a silent ``other`` (the Hub shows "other" with no terms at all)."""
    if license_ or runstate.read(out).get("options", {}).get("card", {}).get("license"):
        return
    raise Refusal(
        f"no license chosen for the dataset card: run `tracepub approve {out} --reviewer NAME "
        "--license ID` (a Hub license id such as cc-by-4.0, cc0-1.0, mit, apache-2.0)"
    )


def approve(
    out: Path,
    reviewer: str,
    license_: str | None = None,
    title: str | None = None,
    now: datetime | None = None,
    language: str | None = None,
) -> dict[str, str]:
    """Settle the card, rewrite the manifest, write signoff.json; returns the signoff."""
    if not reviewer.strip():
        raise Refusal("--reviewer must name the person who reviewed the dataset")
    manifest = verify_disk(out)
    require_license(out, license_)
    now = now or datetime.now(UTC)
    state = runstate.read(out)
    meta = _card_meta(state, license_, title, language)
    if license_ or title or language:
        runstate.update_card(out, {"license": license_, "title": title, "language": language})
    card.write_card(
        out,
        RunSummary.from_json(state.get("summary", {})),
        {**meta, "reviewer": reviewer.strip(), "date": now.date().isoformat()},
    )
    files = disk_files(out)
    # Only the card may have changed since verification; anything else changed meanwhile.
    diff = [d for d in diff_files(manifest["files"], files) if d != f"changed: {OutDir.CARD}"]
    if diff:
        raise Refusal(f"dataset/ changed while approving ({_diff_line(diff)}): run approve again")
    manifest = {**manifest, "files": files}
    sha = write_manifest(out, manifest)
    signoff = {
        "reviewer": reviewer.strip(),
        "time": now.isoformat(timespec="seconds"),
        "manifest_sha256": sha,
        "run_id": manifest["run_id"],
        "tool_version": __version__,
    }
    write_json(OutDir(out).signoff, signoff)
    return signoff


def check_signoff(out: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The (signoff, manifest) pair, if the signoff is this folder's and matches manifest.json."""
    od = OutDir(out)
    path = od.signoff
    if not path.exists():
        raise Refusal(
            f"no sign-off in {out}: review the report, then run `tracepub approve {out} --reviewer NAME`"
        )
    try:
        signoff = json.loads(path.read_text(encoding="utf-8"))
        sha, run_id = signoff["manifest_sha256"], signoff["run_id"]
    except (ValueError, KeyError, TypeError) as exc:
        raise Refusal(
            f"{path} is not a valid sign-off: run `tracepub approve {out} --reviewer NAME` again"
        ) from exc
    load_manifest(out)  # a clear refusal if missing or broken
    data = od.manifest.read_bytes()  # hash and parse the same bytes
    manifest = json.loads(data)
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha or manifest.get("run_id") != run_id:
        raise Refusal(
            "signoff.json does not match manifest.json (the dataset was regenerated after approval, "
            f"or the sign-off comes from another folder): run `tracepub approve {out} --reviewer NAME` again"
        )
    return signoff, manifest
