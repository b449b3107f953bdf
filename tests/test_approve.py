"""tracepub approve: signs exactly the bytes on disk, with the card settled before hashing."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

from reviewkit import claude_session, invoke, planted, redacted_dir, value_id

from tracepub.outputs import card
from tracepub.outputs.files import compute_files, read_manifest


def test_approve_settles_the_card_then_binds_the_signoff_to_the_manifest(tmp_path):
    out = redacted_dir(tmp_path)
    r = invoke(
        "approve", out, "--reviewer", "Jane Doe", "--license", "cc-by-4.0", "--title", "My traces", "--yes"
    )
    assert r.exit_code == 0, r.output
    signoff = json.loads((out / "signoff.json").read_text())
    manifest_bytes = (out / "manifest.json").read_bytes()
    manifest = read_manifest(out)
    assert signoff["reviewer"] == "Jane Doe"
    assert signoff["manifest_sha256"] == hashlib.sha256(manifest_bytes).hexdigest()
    assert signoff["run_id"] == manifest["run_id"]
    assert signoff["tool_version"]
    # The card names reviewer and date and is part of the signed bytes.
    text = (out / "dataset" / "README.md").read_text()
    today = datetime.now(UTC).date().isoformat()
    assert f"Reviewed and approved by Jane Doe on {today}" in text
    assert card.read_meta(out) == {"license": "cc-by-4.0", "pretty_name": "My traces"}
    assert manifest["files"] == compute_files(out / "dataset")
    # What will be published was shown.
    assert "About to sign 2 file(s)" in r.output and "README.md" in r.output
    assert "Findings by action:" in r.output and "flagged value(s)" in r.output


def test_license_given_to_approve_survives_a_review_rerun(tmp_path):
    out = redacted_dir(tmp_path)
    assert invoke("approve", out, "--reviewer", "Jane", "--license", "mit", "--yes").exit_code == 0
    assert invoke("review", out, "--keep", value_id(out, "pii.email")).exit_code == 0
    assert card.read_meta(out)["license"] == "mit"
    # ...but the re-run card is not approved any more.
    assert "Not yet approved" in (out / "dataset" / "README.md").read_text()


def test_declining_the_prompt_signs_nothing(tmp_path):
    out = redacted_dir(tmp_path)
    manifest = (out / "manifest.json").read_bytes()
    card_before = (out / "dataset" / "README.md").read_bytes()
    r = invoke("approve", out, "--reviewer", "Jane", input="n\n")
    assert r.exit_code == 1
    assert "not approved" in r.output
    assert not (out / "signoff.json").exists()
    assert (out / "manifest.json").read_bytes() == manifest
    assert (out / "dataset" / "README.md").read_bytes() == card_before


def test_confirming_the_prompt_signs(tmp_path):
    out = redacted_dir(tmp_path)
    r = invoke("approve", out, "--reviewer", "Jane", input="y\n")
    assert r.exit_code == 0, r.output
    assert (out / "signoff.json").exists()


def _refused(out, r) -> None:
    assert r.exit_code == 1
    assert "does not match manifest.json" in r.output
    assert len(r.output.strip().splitlines()) == 1  # one clear line
    assert not (out / "signoff.json").exists()


def test_refuses_when_a_byte_changed(tmp_path):
    out = redacted_dir(tmp_path)
    f = next((out / "dataset" / "claude_code").rglob("*.jsonl"))
    f.write_bytes(f.read_bytes().replace(b"Deploy", b"deploy", 1))
    r = invoke("approve", out, "--reviewer", "Jane", "--yes")
    _refused(out, r)
    assert "changed: claude_code/" in r.output


def test_refuses_when_a_file_was_added_or_removed(tmp_path):
    out = redacted_dir(tmp_path)
    (out / "dataset" / ".session.jsonl.abc.tmp").write_text("half-written")
    r = invoke("approve", out, "--reviewer", "Jane", "--yes")
    _refused(out, r)
    assert "added: .session.jsonl.abc.tmp" in r.output
    (out / "dataset" / ".session.jsonl.abc.tmp").unlink()
    next((out / "dataset" / "claude_code").rglob("*.jsonl")).unlink()
    r = invoke("approve", out, "--reviewer", "Jane", "--yes")
    _refused(out, r)
    assert "removed: claude_code/" in r.output


def test_refuses_a_symlink_in_dataset(tmp_path):
    out = redacted_dir(tmp_path)
    (out / "dataset" / "link.jsonl").symlink_to(tmp_path / "sources")
    r = invoke("approve", out, "--reviewer", "Jane", "--yes")
    assert r.exit_code == 1 and "symbolic link" in r.output


def test_refuses_without_a_manifest(tmp_path):
    out = redacted_dir(tmp_path)
    (out / "manifest.json").unlink()
    r = invoke("approve", out, "--reviewer", "Jane", "--yes")
    assert r.exit_code == 1 and "manifest.json is missing" in r.output


def test_reviewer_is_required(tmp_path):
    out = redacted_dir(tmp_path)
    assert invoke("approve", out, "--yes").exit_code == 2


def test_refuses_a_dataset_without_sessions(tmp_path):
    out = tmp_path / "out"
    claude_session(tmp_path / "sources" / "-home-jdoe-src-app", planted())
    r = invoke("redact", tmp_path / "sources", "--out", out, "--no-ner", "--jobs", "1", "--deny", "Bluebird")
    assert r.exit_code == 0, r.output
    r = invoke("approve", out, "--reviewer", "Jane", "--yes")
    assert r.exit_code == 1 and "nothing to approve" in r.output
