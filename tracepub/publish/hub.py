"""The Hugging Face Hub as a publish target: one commit to a dataset repository.

What only the Hub needs: its repository ids, its token (``huggingface_hub``'s: HF_TOKEN or the
stored login, never printed; error messages are scrubbed of it), its visibility, and the files
already there. In order: an existing dataset must not be public unless ``--public``, and a
different file at one of our paths refuses unless ``--replace``; then
``create_repo(private=not public, exist_ok=True)``; then the Hub is asked again, since the
dataset may have appeared, public, between the first look and ``create_repo`` (which succeeds
on it): a public one still refuses without ``--public``, and one that was not there before gets
every check of an existing one; then one ``create_commit`` of the staged copies, unless every
file is already there with our bytes (then nothing is committed, and publish says so).

``--pr`` contributes to someone else's dataset: it must exist, no ``create_repo``, and the
commit is a pull request (``create_pr=True``) of the staged session files under a prefix
(``sessions/<harness>/...``); the card is not sent, so the other dataset's README is never
touched. Every other check is the same.

Every call has a timeout (``timeout`` seconds for connecting, each read and each write:
``huggingface_hub``'s shared HTTP client has none, so a Hub that never answers a commit hung
publish forever). A timeout, a refused token and any other failure are one line.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from typing import Any

from huggingface_hub import CommitOperationAdd, HfApi, get_token, set_client_factory
from huggingface_hub.errors import RepositoryNotFoundError
from huggingface_hub.hf_api import DatasetInfo, RepoFile, RepoFolder
from huggingface_hub.utils._http import default_client_factory

from tracepub.errors import Refusal
from tracepub.publish.target import Sent, Staged

REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
PATHS_INFO_CHUNK = 500
TIMEOUT = 60.0  # seconds, per connection, read and write (``--timeout``)
PR_PREFIX = "sessions"  # where community datasets take donations: sessions/<harness>/...
_BAD_NAME = re.compile(r"[\\\x00-\x1f\x7f]")  # backslash or control character (a newline...)


def check_paths(names: list[str]) -> None:
    """Refuse, naming the file, a path the Hub cannot hold: a backslash is a folder separator
    on Windows and the Hub refuses it, and a newline would break the commit's lines. Asked
    before anything is staged or sent (the Hub's own refusal said nothing useful)."""
    for n in names:
        if _BAD_NAME.search(n):
            raise Refusal(
                f"the Hub cannot store the file name {n!r} (a backslash or control character): "
                "nothing was sent; rename the source file and run redact and approve again"
            )


def check_prefix(prefix: str | None) -> str | None:
    """``--path-in-repo``: a folder inside the repository (no ``..``, no backslash or control
    character), or ValueError (bad usage)."""
    if prefix is None:
        return None
    parts = [p for p in prefix.strip("/").split("/") if p]
    if any(p in (".", "..") for p in parts) or _BAD_NAME.search(prefix):
        raise ValueError(
            f"{prefix!r} is not a folder inside the repository: use e.g. sessions or data/traces"
        )
    return "/".join(parts)


def remote_names(names: list[str], pr: bool, prefix: str | None) -> dict[str, str]:
    """Each staged file's path in the repository. A plain publish sends dataset/ as it is; a
    pull request sends the session files under ``prefix`` (default ``sessions``), never our
    card: the dataset contributed to has its own README."""
    if not pr:
        return {n: n for n in names}
    head = (prefix if prefix is not None else PR_PREFIX).strip("/")
    return {n: f"{head}/{n}" if head else n for n in names if n != "README.md"}


@contextlib.contextmanager
def timeouts(seconds: float) -> Iterator[None]:
    """``huggingface_hub``'s shared client with a timeout on every operation, for the duration."""

    def factory() -> Any:
        client = default_client_factory()
        client.timeout = seconds  # httpx: a number is the connect, read, write and pool timeout
        return client

    set_client_factory(factory)
    try:
        yield
    finally:
        set_client_factory(default_client_factory)


def _timed_out(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if any("Timeout" in c.__name__ for c in type(seen).__mro__) or isinstance(seen, TimeoutError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _status(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def failure(exc: BaseException, repo: str, token: str, seconds: float) -> Refusal:
    """One line for a failed Hub call: a timeout, a refused token, or the Hub's own first line."""
    tail = " (nothing is published unless the commit went through; run publish again)"
    if _timed_out(exc):
        return Refusal(
            f"the Hub did not answer within {seconds:g} s (publishing to {repo}): nothing was "
            "published unless the commit went through; check your connection, or pass a longer "
            "--timeout, and run publish again"
        )
    status = _status(exc)
    if status == 401:
        return Refusal(
            f"the Hub refused the token (401 Unauthorized) for {repo}: check HF_TOKEN, or run "
            "`hf auth login`, then publish again"
        )
    if status == 403:
        return Refusal(
            f"the token may not write to {repo} (403 Forbidden): check its permissions (HF_TOKEN, or "
            "`hf auth login` with a write token), then publish again"
        )
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return Refusal(f"upload to {repo} failed: {_scrub(first, token)}{tail}")


def check_repo_id(repo: str) -> str:
    if not REPO_ID.match(repo) or ".." in repo or repo.endswith((".git", ".")):
        raise ValueError(f"{repo!r} is not a Hub repository id: use OWNER/NAME")
    return repo


class HubTarget:
    """A dataset repository on the Hub (``HF_ENDPOINT`` names another Hub, e.g. a test one)."""

    def check_id(self, repo: str) -> str:
        return check_repo_id(repo)

    def check_paths(self, names: list[str]) -> None:
        check_paths(names)

    def send(
        self,
        staged: Staged,
        repo: str,
        *,
        public: bool,
        replace: bool,
        message: str,
        description: str,
        pr: bool = False,
        prefix: str | None = None,
        timeout: float = TIMEOUT,
    ) -> Sent:
        token = get_token()
        if not token:
            raise Refusal("no Hugging Face token: set HF_TOKEN or run `hf auth login`, then publish again")
        api = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None, token=token)
        sent = Sent(private=not public)
        paths = remote_names(staged.names, pr, prefix)

        def look() -> DatasetInfo | None:
            try:
                return api.dataset_info(repo)
            except RepositoryNotFoundError as exc:
                if _status(exc) == 401:
                    raise
                return None

        try:
            with timeouts(timeout):
                info = look()
                if pr:
                    if info is None:
                        raise Refusal(
                            f"dataset {repo} was not found (or the token cannot see it): --pr contributes "
                            "to an existing dataset; check the name, and HF_TOKEN or `hf auth login`"
                        )
                    _check_existing(api, info, staged, paths, repo, sent, public, replace)
                    url = f"{api.endpoint}/datasets/{repo}"
                else:
                    if info is not None:
                        _check_existing(api, info, staged, paths, repo, sent, public, replace)
                    url = api.create_repo(repo, repo_type="dataset", private=not public, exist_ok=True)
                    # The dataset may have appeared (or been made public) between the look above and
                    # create_repo, which succeeds on an existing one (exist_ok) whatever its visibility:
                    # look again right before the commit, so a public dataset is never written to
                    # without --public.
                    after = look()
                    if after is None:
                        raise Refusal(
                            f"dataset {repo} was not found right after creating it: nothing was sent; "
                            "run publish again"
                        )
                    if info is None:  # someone else's dataset may be there now: every check, on it
                        _check_existing(api, after, staged, paths, repo, sent, public, replace, raced=True)
                    elif not after.private and not public:
                        _refuse_public(repo, raced=True)
                sent.url = str(url)
                if sent.unchanged == len(paths):  # every file already there, byte for byte
                    sent.nothing_changed = True
                    return sent
                ops = [
                    CommitOperationAdd(path_in_repo=paths[n], path_or_fileobj=str(staged.root / n))
                    for n in staged.names
                    if n in paths
                ]
                commit = api.create_commit(
                    repo,
                    ops,
                    repo_type="dataset",
                    commit_message=message,
                    commit_description=description,
                    create_pr=pr,
                )
        except Refusal:
            raise
        except Exception as exc:  # HfHubHTTPError, timeouts, connection errors, offline mode...: one line
            raise failure(exc, repo, token, timeout) from None
        sent.commit = getattr(commit, "oid", None)
        sent.pr_url = getattr(commit, "pr_url", None) if pr else None
        return sent


def _check_existing(
    api: HfApi,
    info: DatasetInfo,
    staged: Staged,
    paths: dict[str, str],
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
    names = [n for n in staged.names if n in paths]
    wanted = [paths[n] for n in names]
    remote: dict[str, RepoFile | RepoFolder] = {}
    for i in range(0, len(wanted), PATHS_INFO_CHUNK):
        for f in api.get_paths_info(repo, wanted[i : i + PATHS_INFO_CHUNK], repo_type="dataset"):
            remote[f.path] = f
    different = [
        paths[n]
        for n in names
        if paths[n] in remote and not _same(remote[paths[n]], staged.git_oids[n], staged.files[n]["sha256"])
    ]
    sent.unchanged = sum(1 for n in names if paths[n] in remote and paths[n] not in different)
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
