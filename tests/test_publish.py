"""tracepub publish with the real huggingface_hub client against a local fake Hub (tests/hubserver.py).

The promise under test: only the bytes the reviewer signed are uploaded, and a refused
publish sends no commit.
"""

from __future__ import annotations

import json
import shutil

import pytest
from hubserver import TOKEN
from reviewkit import invoke, planted, redacted_dir, value_id

from tracepub.outputs.files import build_manifest, read_manifest, write_manifest

REPO = "me/agent-traces"


def approved(tmp_path, **kw):
    out = redacted_dir(tmp_path, **kw)
    r = invoke("approve", out, "--reviewer", "Jane Doe", "--license", "cc-by-4.0", "--yes")
    assert r.exit_code == 0, r.output
    return out


def signed_files(out) -> dict[str, bytes]:
    names = read_manifest(out)["files"]
    return {n: (out / "dataset" / n).read_bytes() for n in names}


def assert_refused(r, hub, *needles: str) -> None:
    assert r.exit_code == 1, r.output
    assert len(r.output.strip().splitlines()) == 1, r.output  # one clear line
    for n in needles:
        assert n in r.output, r.output
    assert hub.commits == [] and hub.commit_requests() == []
    assert TOKEN not in r.output


def test_published_dataset_downloads_byte_identical_and_private(tmp_path, hub):
    out = approved(tmp_path)
    expected = signed_files(out)
    sha = json.loads((out / "signoff.json").read_text())["manifest_sha256"]

    r = invoke("publish", out, "--repo", REPO)
    assert r.exit_code == 0, r.output
    assert TOKEN not in r.output
    assert "Published:" in r.output

    assert len(hub.commits) == 1
    commit = hub.commits[0]
    assert commit["files"] == expected  # exactly the signed files, nothing else
    assert sha in commit["summary"]
    assert hub.repos[REPO].private is True
    assert all(
        req.authorized for req in hub.requests if req.method == "POST" and "validate-yaml" not in req.path
    )
    assert not any(
        n.startswith(("review/", "manifest", "signoff")) or "/review/" in n for n in commit["files"]
    )

    # Download through the real client: byte for byte what was signed.
    from huggingface_hub import hf_hub_download

    for name, data in expected.items():
        path = hf_hub_download(
            REPO, name, repo_type="dataset", cache_dir=tmp_path / "cache", endpoint=hub.url
        )
        assert open(path, "rb").read() == data
    assert hub.unknown == []


def test_public_flag_makes_a_new_dataset_public(tmp_path, hub):
    out = approved(tmp_path)
    r = invoke("publish", out, "--repo", REPO, "--public", "--json", "--message", "June sessions")
    assert r.exit_code == 0, r.output
    assert hub.repos[REPO].private is False
    data = json.loads(r.output)
    assert data["private"] is False
    assert hub.commits[0]["summary"] == f"June sessions [tracepub manifest sha256:{data['manifest_sha256']}]"
    assert "Signed off by Jane Doe" in hub.commits[0]["description"]


def test_token_from_the_stored_login(tmp_path, hub, monkeypatch):
    import huggingface_hub.constants as hf_constants

    out = approved(tmp_path)
    monkeypatch.delenv("HF_TOKEN")
    with open(hf_constants.HF_TOKEN_PATH, "w") as fh:
        fh.write(TOKEN)
    r = invoke("publish", out, "--repo", REPO)
    assert r.exit_code == 0, r.output
    assert TOKEN not in r.output
    assert all(req.authorized for req in hub.requests if "/commit/" in req.path)


def test_refused_without_signoff(tmp_path, hub):
    out = redacted_dir(tmp_path)
    r = invoke("publish", out, "--repo", REPO)
    assert_refused(r, hub, "no sign-off", "tracepub approve")
    assert hub.requests == []


def test_refused_after_a_byte_changes(tmp_path, hub):
    out = approved(tmp_path)
    f = next((out / "dataset" / "claude_code").rglob("*.jsonl"))
    data = bytearray(f.read_bytes())
    data[10] ^= 1
    f.write_bytes(bytes(data))
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "differs from what was signed", "changed:")
    assert hub.requests == []


def test_refused_after_a_card_edit(tmp_path, hub):
    out = approved(tmp_path)
    card = out / "dataset" / "README.md"
    card.write_text(card.read_text() + "\nedited after approval\n")
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "changed: README.md")


def test_refused_after_a_file_is_added(tmp_path, hub):
    out = approved(tmp_path)
    (out / "dataset" / "claude_code" / ".session.jsonl.x1.tmp").write_text("{}\n")
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "added: claude_code/.session.jsonl.x1.tmp")


def test_refused_after_a_file_is_removed(tmp_path, hub):
    out = approved(tmp_path)
    next((out / "dataset" / "claude_code").rglob("*.jsonl")).unlink()
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "removed: claude_code/")


def test_refused_after_review_regenerated_the_dataset(tmp_path, hub):
    out = approved(tmp_path)
    assert invoke("review", out, "--keep", value_id(out, "pii.email")).exit_code == 0
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "signoff.json does not match manifest.json")


def test_refused_with_a_signoff_copied_from_another_folder(tmp_path, hub):
    a = approved(tmp_path / "a")
    b = redacted_dir(tmp_path / "b")  # same sources and options, never approved
    shutil.copy(a / "signoff.json", b / "signoff.json")
    assert_refused(invoke("publish", b, "--repo", REPO), hub, "signoff.json does not match manifest.json")
    # Even with identical dataset bytes, b's manifest has its own run id.
    shutil.copytree(a / "dataset", b / "dataset", dirs_exist_ok=True)
    manifest = read_manifest(b)
    manifest["files"] = read_manifest(a)["files"]
    write_manifest(b, manifest)
    assert_refused(invoke("publish", b, "--repo", REPO), hub, "signoff.json does not match manifest.json")


def test_refused_with_a_signoff_naming_another_run_id(tmp_path, hub):
    out = approved(tmp_path)
    so = json.loads((out / "signoff.json").read_text())
    so["run_id"] = "0" * 32
    (out / "signoff.json").write_text(json.dumps(so))
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "signoff.json does not match")


def test_refused_when_the_rescan_finds_a_kept_secret(tmp_path, hub):
    p = planted()
    out = redacted_dir(tmp_path, p)
    assert invoke("review", out, "--keep", value_id(out, "secret.github_token")).exit_code == 0
    assert invoke("approve", out, "--reviewer", "Jane", "--yes").exit_code == 0
    r = invoke("publish", out, "--repo", REPO)
    assert_refused(r, hub, "re-scan", "secret.github_token")
    assert p.github not in r.output  # shown masked
    assert hub.requests == []


def test_refused_when_signed_bytes_hold_a_secret_the_redactor_missed(tmp_path, hub):
    """A crafted dataset: a token planted in the bytes after redaction, manifest rebuilt, signed."""
    p = planted(seed=11)
    out = redacted_dir(tmp_path)
    f = next((out / "dataset" / "claude_code").rglob("*.jsonl"))
    # JSON-escaped, so only a scan of the decoded strings sees the whole token.
    escaped = p.github[:6] + "\\u00" + format(ord(p.github[6]), "02x") + p.github[7:]
    f.write_text(f.read_text() + json.dumps({"type": "user", "note": "x"})[:-1] + f', "t": "{escaped}"}}\n')
    old = read_manifest(out)
    write_manifest(out, build_manifest(out, old["config_hash"], old["run_id"]))
    assert invoke("approve", out, "--reviewer", "Jane", "--yes").exit_code == 0
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "re-scan", "secret.github_token")
    assert_refused(invoke("publish", out, "--repo", REPO, "--dry-run"), hub, "re-scan")


def test_refused_when_the_users_identity_is_in_clear(tmp_path, hub):
    out = redacted_dir(tmp_path)
    f = next((out / "dataset" / "claude_code").rglob("*.jsonl"))
    f.write_text(f.read_text().replace("<USER>", "jdoe", 1))
    old = read_manifest(out)
    write_manifest(out, build_manifest(out, old["config_hash"], old["run_id"]))
    assert invoke("approve", out, "--reviewer", "Jane", "--yes").exit_code == 0
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "identity.username")


def test_refused_when_a_file_name_holds_the_identity(tmp_path, hub):
    out = redacted_dir(tmp_path)
    f = next((out / "dataset" / "claude_code").rglob("*.jsonl"))
    f.rename(f.with_name("notes-jdoe.jsonl"))
    old = read_manifest(out)
    write_manifest(out, build_manifest(out, old["config_hash"], old["run_id"]))
    assert invoke("approve", out, "--reviewer", "Jane", "--yes").exit_code == 0
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "identity.username", "(file name)")


def test_identity_deliberately_kept_by_the_reviewer_may_be_published(tmp_path, hub):
    out = redacted_dir(tmp_path)
    r = invoke("review", out, "--keep", value_id(out, "identity.username"))
    assert r.exit_code == 0 and "published in clear" in r.output
    assert invoke("approve", out, "--reviewer", "Jane", "--yes").exit_code == 0
    r = invoke("publish", out, "--repo", REPO)
    assert r.exit_code == 0, r.output
    assert any(b"/home/jdoe/" in data for data in hub.commits[0]["files"].values())


def test_the_reviewers_own_name_in_the_card_does_not_block(tmp_path, hub, monkeypatch):
    out = redacted_dir(tmp_path)
    # The reviewer signs with their login name, which is also the harvested identity.
    assert invoke("approve", out, "--reviewer", "jdoe", "--yes").exit_code == 0
    r = invoke("publish", out, "--repo", REPO)
    assert r.exit_code == 0, r.output


def test_dry_run_lists_exactly_what_would_be_sent_and_contacts_nothing(tmp_path, hub):
    out = approved(tmp_path)
    r = invoke("publish", out, "--repo", REPO, "--dry-run", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["dry_run"] is True and data["private"] is True
    assert {f["path"] for f in data["files"]} == set(signed_files(out))
    assert data["manifest_sha256"] in data["commit_message"]
    assert hub.requests == []
    r = invoke("publish", out, "--repo", REPO, "--dry-run")
    assert r.exit_code == 0 and "Would send 2 file(s)" in r.output and "README.md" in r.output
    assert hub.requests == []


def test_existing_different_file_is_refused_without_replace(tmp_path, hub):
    out = approved(tmp_path)
    name = next(n for n in signed_files(out) if n.endswith(".jsonl"))
    hub.add_repo(REPO, private=True, files={name: b"someone else's file\n", "other.txt": b"kept\n"})
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "differ from the signed ones", "--replace")
    r = invoke("publish", out, "--repo", REPO, "--replace")
    assert r.exit_code == 0, r.output
    assert hub.repos[REPO].files[name] == signed_files(out)[name]
    assert hub.repos[REPO].files["other.txt"] == b"kept\n"  # publishing adds; it deletes nothing


def test_identical_existing_files_are_fine(tmp_path, hub):
    out = approved(tmp_path)
    assert invoke("publish", out, "--repo", REPO).exit_code == 0
    r = invoke("publish", out, "--repo", REPO)
    assert r.exit_code == 0, r.output
    assert len(hub.commits) == 1  # nothing new to commit


def test_existing_public_dataset_needs_public_flag(tmp_path, hub):
    out = approved(tmp_path)
    hub.add_repo(REPO, private=False)
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "is public", "--public")
    assert invoke("publish", out, "--repo", REPO, "--public").exit_code == 0


def test_license_option_must_match_the_signed_card(tmp_path, hub):
    out = approved(tmp_path)
    assert_refused(invoke("publish", out, "--repo", REPO, "--license", "mit"), hub, "re-approve")
    assert hub.requests == []
    assert invoke("publish", out, "--repo", REPO, "--license", "cc-by-4.0").exit_code == 0


def test_no_token_is_refused(tmp_path, hub, monkeypatch):
    out = approved(tmp_path)
    monkeypatch.delenv("HF_TOKEN")
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "no Hugging Face token", "HF_TOKEN")
    assert hub.requests == []


def test_token_never_printed_even_when_the_hub_fails(tmp_path, hub, monkeypatch):
    out = approved(tmp_path)
    hub.add_repo(REPO, private=True)
    # The server echoes the Authorization header in its error: the scrubber must hide it.
    import hubserver

    def failing(self, repo, body):
        self._json(500, {"error": f"boom: {self.headers.get('Authorization')}"})

    monkeypatch.setattr(hubserver._Handler, "_commit", failing)
    r = invoke("publish", out, "--repo", REPO)
    assert r.exit_code == 1
    assert "upload to me/agent-traces failed" in r.output
    assert TOKEN not in r.output


@pytest.mark.parametrize("repo", ["noslash", "a/b/c", "../x", "me/"])
def test_bad_repo_id_is_usage_error(tmp_path, hub, repo):
    out = approved(tmp_path)
    assert invoke("publish", out, "--repo", repo).exit_code == 2
    assert hub.requests == []
