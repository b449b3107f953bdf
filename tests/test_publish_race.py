"""A dataset that appears on the Hub while publish runs is checked again right before the commit.

publish looks at the dataset, then calls ``create_repo(exist_ok=True)``, which succeeds on a
dataset someone else created in between, whatever its visibility. The fake Hub's ``on_create``
hook creates the dataset at exactly that moment.
"""

from __future__ import annotations

from reviewkit import invoke
from test_publish import REPO, approved, assert_refused, signed_files


def _appears(hub, private: bool, files: dict[str, bytes] | None = None) -> None:
    def create(repo_id: str) -> None:
        if repo_id not in hub.repos:
            hub.add_repo(repo_id, private=private, files=files)

    hub.on_create = create


def test_dataset_made_public_between_the_check_and_create_repo_is_refused(tmp_path, hub):
    out = approved(tmp_path)
    _appears(hub, private=False)
    r = invoke("publish", out, "--repo", REPO)
    assert_refused(r, hub, "became public while publishing", "--public")
    assert "(private)" not in r.output
    assert hub.repos[REPO].files == {}


def test_dataset_made_public_meanwhile_is_fine_with_public(tmp_path, hub):
    out = approved(tmp_path)
    _appears(hub, private=False)
    r = invoke("publish", out, "--repo", REPO, "--public")
    assert r.exit_code == 0, r.output
    assert "(public)" in r.output
    assert hub.repos[REPO].files == signed_files(out)


def test_dataset_with_other_files_appearing_meanwhile_needs_replace(tmp_path, hub):
    out = approved(tmp_path)
    name = next(n for n in signed_files(out) if n.endswith(".jsonl"))
    _appears(hub, private=True, files={name: b"someone else's file\n"})
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "differ from the signed ones", "--replace")
    assert hub.repos[REPO].files == {name: b"someone else's file\n"}


def test_private_dataset_made_public_before_the_commit_is_refused(tmp_path, hub):
    out = approved(tmp_path)
    hub.add_repo(REPO, private=True)

    def flip(repo_id: str) -> None:
        hub.repos[repo_id].private = False

    hub.on_create = flip
    assert_refused(invoke("publish", out, "--repo", REPO), hub, "became public while publishing")


def test_new_private_dataset_still_publishes(tmp_path, hub):
    out = approved(tmp_path)
    r = invoke("publish", out, "--repo", REPO)
    assert r.exit_code == 0, r.output
    assert "(private)" in r.output and hub.repos[REPO].private is True
    assert hub.repos[REPO].files == signed_files(out)
