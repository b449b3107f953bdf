"""Contributing by pull request, Hub timeouts and the staging copy, and publish's messages.

The local Hub (tests/hubserver.py) answers ``create_pr=1`` commits with a pull request (main is
untouched) and can be told never to answer a commit.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hubserver import TOKEN
from reviewkit import invoke
from test_publish import REPO, approved, assert_refused, signed_files

from tracepub.outputs.files import build_manifest, read_manifest, write_manifest

COMMUNITY = "trace-commons/agent-traces"
THEIR_CARD = b"---\nlicense: cc-by-4.0\n---\n# Community agent traces\n"


def community(hub, private: bool = False):
    return hub.add_repo(
        COMMUNITY, private=private, files={"README.md": THEIR_CARD, "sessions/codex/old.jsonl": b"{}\n"}
    )


def staging_left(out: Path) -> list[Path]:
    return [p for p in out.iterdir() if p.name.startswith(".publish-")]


def test_pr_carries_exactly_the_signed_session_files_under_the_prefix(tmp_path, hub):
    out = approved(tmp_path)
    repo = community(hub)
    r = invoke("publish", out, "--repo", COMMUNITY, "--pr", "--public")
    assert r.exit_code == 0, r.output
    assert len(repo.prs) == 1
    sessions = {n: b for n, b in signed_files(out).items() if n != "README.md"}
    assert sessions and repo.prs[0]["files"] == {f"sessions/{n}": b for n, b in sessions.items()}
    assert repo.files == {"README.md": THEIR_CARD, "sessions/codex/old.jsonl": b"{}\n"}  # main untouched
    assert f"Pull request: {hub.url}/datasets/{COMMUNITY}/discussions/1" in r.output
    assert "Published:" not in r.output
    assert TOKEN not in r.output and staging_left(out) == []
    assert not any(req.method == "POST" and req.path.startswith("/api/repos/create") for req in hub.requests)


def test_pr_path_in_repo_prefix(tmp_path, hub):
    out = approved(tmp_path)
    repo = community(hub, private=True)
    r = invoke("publish", out, "--repo", COMMUNITY, "--pr", "--path-in-repo", "data/donated/", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["pr_url"].endswith("/discussions/1")
    assert set(repo.prs[0]["files"]) == {f"data/donated/{n}" for n in signed_files(out) if n != "README.md"}
    assert {f["path"] for f in data["files"]} == set(repo.prs[0]["files"])


def test_pr_gate_and_rescan_apply(tmp_path, hub):
    out = approved(tmp_path)
    community(hub)
    assert_refused(invoke("publish", out, "--repo", COMMUNITY, "--pr"), hub, "is public", "--public")
    f = next((out / "dataset" / "claude_code").rglob("*.jsonl"))
    f.write_text(f.read_text().replace("<USER>", "jdoe", 1))
    assert_refused(
        invoke("publish", out, "--repo", COMMUNITY, "--pr", "--public"), hub, "differs from what was signed"
    )
    old = read_manifest(out)
    write_manifest(out, build_manifest(out, old["config_hash"], old["run_id"]))
    assert invoke("approve", out, "--reviewer", "Jane", "--yes").exit_code == 0
    assert_refused(invoke("publish", out, "--repo", COMMUNITY, "--pr", "--public"), hub, "identity.username")


def test_pr_to_a_missing_dataset_is_refused(tmp_path, hub):
    out = approved(tmp_path)
    assert_refused(invoke("publish", out, "--repo", COMMUNITY, "--pr"), hub, "was not found", "--pr")
    assert COMMUNITY not in hub.repos


def test_pr_dry_run_lists_the_prefixed_paths_and_contacts_nothing(tmp_path, hub):
    out = approved(tmp_path)
    r = invoke("publish", out, "--repo", COMMUNITY, "--pr", "--dry-run")
    assert r.exit_code == 0, r.output
    assert "sessions/claude_code/" in r.output and "README.md" not in r.output
    assert hub.requests == []


def test_path_in_repo_needs_pr_and_a_folder(tmp_path, hub):
    out = approved(tmp_path)
    assert invoke("publish", out, "--repo", REPO, "--path-in-repo", "x").exit_code == 2
    assert invoke("publish", out, "--repo", REPO, "--pr", "--path-in-repo", "../up").exit_code == 2
    assert hub.requests == []


def test_publishing_the_same_dataset_again_says_nothing_changed(tmp_path, hub):
    out = approved(tmp_path)
    assert "Published:" in invoke("publish", out, "--repo", REPO).output
    r = invoke("publish", out, "--repo", REPO)
    assert r.exit_code == 0, r.output
    assert "Nothing changed" in r.output and "no commit was made" in r.output
    assert "Published:" not in r.output and "Sent " not in r.output
    assert len(hub.commits) == 1 and len(hub.commit_requests()) == 1


def test_a_wrong_token_says_to_check_it(tmp_path, hub, monkeypatch):
    out = approved(tmp_path)
    monkeypatch.setenv("HF_TOKEN", "hf_" + "wrong" * 7)
    assert_refused(
        invoke("publish", out, "--repo", REPO), hub, "refused the token", "HF_TOKEN", "hf auth login"
    )


def test_a_file_name_with_a_backslash_or_newline_is_refused_up_front(tmp_path, hub):
    for bad in ("a\\b.jsonl", "a\nb.jsonl"):
        out = approved(tmp_path / str(len(bad) + bad.count("\n")))
        f = next((out / "dataset" / "claude_code").rglob("*.jsonl"))
        f.rename(f.with_name(bad))
        old = read_manifest(out)
        write_manifest(out, build_manifest(out, old["config_hash"], old["run_id"]))
        assert invoke("approve", out, "--reviewer", "Jane", "--yes").exit_code == 0
        for extra in ((), ("--dry-run",)):
            r = invoke("publish", out, "--repo", REPO, *extra)
            assert (
                r.exit_code == 1 and "cannot store the file name" in r.output and repr(bad)[1:-1] in r.output
            )
        assert hub.requests == [] and staging_left(out) == []


def test_a_hub_that_never_answers_the_commit_times_out_and_cleans_up(tmp_path, hub):
    out = approved(tmp_path)
    hub.hang_commits = True
    started = time.monotonic()
    r = invoke("publish", out, "--repo", REPO, "--timeout", "1")
    assert time.monotonic() - started < 30
    assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1, r.output
    assert "did not answer within 1 s" in r.output and "--timeout" in r.output
    assert staging_left(out) == [] and TOKEN not in r.output


def test_ctrl_c_and_sigterm_during_a_hanging_commit_remove_the_staging_copy(tmp_path, hub):
    out = approved(tmp_path)
    hub.hang_commits = True
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    for sig in (signal.SIGINT, signal.SIGTERM):
        before = len(hub.commit_requests())
        p = subprocess.Popen(
            [sys.executable, "-m", "tracepub.cli", "publish", str(out), "--repo", REPO],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while len(hub.commit_requests()) == before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(hub.commit_requests()) > before, "publish never reached the commit"
        assert staging_left(out)  # the copy exists while the commit hangs
        p.send_signal(sig)
        _, err = p.communicate(timeout=30)
        assert p.returncode == 1, err
        assert "interrupted" in err and len(err.strip().splitlines()) == 1, err
        assert staging_left(out) == []


def test_a_staging_copy_left_by_a_killed_publish_is_removed_by_the_next(tmp_path, hub):
    out = approved(tmp_path)
    stale = out / ".publish-dead1234"
    (stale / "claude_code").mkdir(parents=True)
    (stale / "claude_code" / "x.jsonl").write_text("{}\n")
    assert invoke("publish", out, "--repo", REPO).exit_code == 0
    assert staging_left(out) == []
