"""The Hugging Face Hub as a publish target: one commit to a dataset repository.

What only the Hub needs: its repository ids, its token (``huggingface_hub``'s: HF_TOKEN or the
stored login, never printed; error messages are scrubbed of it), its visibility, and the files
already there. In order: an existing dataset must not be public unless ``--public``, and a
different file at one of our paths refuses unless ``--replace``; then
``create_repo(private=not public, exist_ok=True)``; then the Hub is asked again, since the
dataset may have appeared, public, between the first look and ``create_repo`` (which succeeds
on it): a public one still refuses without ``--public``, and one that was not there before gets
every check of an existing one; then one ``create_commit`` of the staged copies.
"""

from __future__ import annotations

import os
import re

from huggingface_hub import CommitOperationAdd, HfApi, get_token
from huggingface_hub.errors import RepositoryNotFoundError
from huggingface_hub.hf_api import DatasetInfo, RepoFile, RepoFolder

from tracepub.errors import Refusal
from tracepub.publish.target import Sent, Staged

REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
PATHS_INFO_CHUNK = 500


def check_repo_id(repo: str) -> str:
    if not REPO_ID.match(repo) or ".." in repo or repo.endswith((".git", ".")):
        raise ValueError(f"{repo!r} is not a Hub repository id: use OWNER/NAME")
    return repo


class HubTarget:
    """A dataset repository on the Hub (``HF_ENDPOINT`` names another Hub, e.g. a test one)."""

    def check_id(self, repo: str) -> str:
        return check_repo_id(repo)

    def send(
        self, staged: Staged, repo: str, *, public: bool, replace: bool, message: str, description: str
    ) -> Sent:
        token = get_token()
        if not token:
            raise Refusal("no Hugging Face token: set HF_TOKEN or run `hf auth login`, then publish again")
        api = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None, token=token)
        sent = Sent(private=not public)

        def look() -> DatasetInfo | None:
            try:
                return api.dataset_info(repo)
            except RepositoryNotFoundError:
                return None

        try:
            info = look()
            if info is not None:
                _check_existing(api, info, staged, repo, sent, public, replace)
            url = api.create_repo(repo, repo_type="dataset", private=not public, exist_ok=True)
            # The dataset may have appeared (or been made public) between the look above and
            # create_repo, which succeeds on an existing one (exist_ok) whatever its visibility: look
            # again right before the commit, so a public dataset is never written to without --public.
            after = look()
            if after is None:
                raise Refusal(
                    f"dataset {repo} was not found right after creating it: nothing was sent; "
                    "run publish again"
                )
            if info is None:  # someone else's dataset may be there now: every check, on it
                _check_existing(api, after, staged, repo, sent, public, replace, raced=True)
            elif not after.private and not public:
                _refuse_public(repo, raced=True)
            ops = [
                CommitOperationAdd(path_in_repo=n, path_or_fileobj=str(staged.root / n)) for n in staged.names
            ]
            commit = api.create_commit(
                repo, ops, repo_type="dataset", commit_message=message, commit_description=description
            )
        except Refusal:
            raise
        except Exception as exc:  # HfHubHTTPError, connection errors, offline mode...: one line, no token
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise Refusal(
                f"upload to {repo} failed: {_scrub(first, token)}"
                " (nothing is published unless the commit went through; run publish again)"
            ) from None
        sent.url = str(url)
        sent.commit = getattr(commit, "oid", None)
        return sent


def _check_existing(
    api: HfApi,
    info: DatasetInfo,
    staged: Staged,
    repo: str,
    sent: Sent,
    public: bool,
    replace: bool,
    raced: bool = False,
) -> None:
    """Refuse to write into an existing dataset that is public (unless ``--public``) or holds
    other bytes at one of our paths (unless ``--replace``); set ``sent.private`` from it.
    ``raced``: the dataset did not exist when first looked at and appeared before the commit."""
    if not info.private and not public:
        _refuse_public(repo, raced)
    if info.private and public:
        sent.notes.append(f"{repo} already exists and is private; it stays private")
    sent.private = bool(info.private)
    names = staged.names
    remote: dict[str, RepoFile | RepoFolder] = {}
    for i in range(0, len(names), PATHS_INFO_CHUNK):
        for f in api.get_paths_info(repo, names[i : i + PATHS_INFO_CHUNK], repo_type="dataset"):
            remote[f.path] = f
    different = [
        n
        for n in names
        if n in remote and not _same(remote[n], staged.git_oids[n], staged.files[n]["sha256"])
    ]
    sent.unchanged = sum(1 for n in names if n in remote and n not in different)
    if different and not replace:
        raise Refusal(
            f"{len(different)} file(s) already in {repo} differ from the signed ones "
            f"(e.g. {different[0]}): nothing was sent; pass --replace to overwrite them"
        )


def _refuse_public(repo: str, raced: bool) -> None:
    if raced:
        raise Refusal(
            f"dataset {repo} became public while publishing (it was absent or private when tracepub "
            "looked), so this upload would be public: nothing was sent; pass --public if you mean it, "
            "or publish to another repository"
        )
    raise Refusal(
        f"dataset {repo} already exists and is public, so this upload would be public: "
        "pass --public if you mean it, or publish to another repository"
    )


def _same(remote: RepoFile | RepoFolder, oid: str, sha256: str) -> bool:
    """The remote file holds our bytes: by its LFS sha256, or else its git blob id."""
    lfs = getattr(remote, "lfs", None)
    if lfs is not None:
        sha = lfs.get("sha256") if isinstance(lfs, dict) else getattr(lfs, "sha256", None)
        return bool(sha == sha256)
    return getattr(remote, "blob_id", None) == oid


def _scrub(text: str, token: str) -> str:
    return text.replace(token, "***") if token else text
