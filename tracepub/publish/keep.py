"""A sign-off survives a re-run that writes byte-identical files: a sign-off binds the bytes.

``redact`` (or a review re-run) into an approved DIR used to void the sign-off even when it
wrote exactly the signed bytes, because the card went back to "Not yet approved" and the
manifest got a new run id. Now a run that finds a valid sign-off (signoff.json matching
manifest.json) renders the card with the signed card's settings and the sign-off's reviewer
and date; if every file, the card included, then has the signed bytes, the signed manifest is
kept as it is, so the sign-off still matches. Any changed byte (a session, a count in the
card) and the card is rendered unapproved and a new manifest written, as before.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from huggingface_hub import DatasetCard

from tracepub.outdir import OutDir


@dataclass
class Signed:
    meta: dict[str, str]  # what approve put into the card: license, title, language, reviewer, date
    manifest: dict[str, Any]  # the signed manifest
    sha256: str


def signed_state(od: OutDir) -> Signed | None:
    """DIR's sign-off, if signoff.json matches manifest.json (hash and run id); else None."""
    try:
        signoff = json.loads(od.signoff.read_text(encoding="utf-8"))
        data = od.manifest.read_bytes()
        manifest = json.loads(data)
        sha, run_id, reviewer, time = (
            signoff["manifest_sha256"],
            signoff["run_id"],
            signoff["reviewer"],
            signoff["time"],
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if hashlib.sha256(data).hexdigest() != sha or manifest.get("run_id") != run_id:
        return None
    meta = {"reviewer": str(reviewer), "date": str(time)[:10]}
    try:
        card = DatasetCard.load(od.card, ignore_metadata_errors=True).data.to_dict()
    except (OSError, ValueError):
        card = {}
    for key, name in (("license", "license"), ("pretty_name", "title")):
        if isinstance(card.get(key), str):
            meta[name] = card[key]
    lang = card.get("language")
    if isinstance(lang, list) and lang and isinstance(lang[0], str):
        meta["language"] = lang[0]
    return Signed(meta, manifest, sha)


def same_files(signed: Signed, files: dict[str, Any]) -> bool:
    """Every file under dataset/ has the signed bytes (none added or removed)."""
    return {n: (f["sha256"], f["size"]) for n, f in files.items()} == {
        n: (f["sha256"], f["size"]) for n, f in signed.manifest.get("files", {}).items()
    }
