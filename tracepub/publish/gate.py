"""``tracepub publish DIR --repo OWNER/NAME``: upload exactly the signed bytes, or nothing.

In order, and refusing at the first failure:

1. signoff.json exists, and its hash and run id match manifest.json (``signoff.check_signoff``);
2. the manifest recomputed from disk equals the signed one: no changed, added or removed byte,
   temporary files included (``verify.verify``);
3. ``--license``, if given, equals the card's (publish never edits a signed file);
4. every file is copied to a private staging folder while hashed, and each copy must hash to
   the signed sha256 (``verify.staged``): from here on, nothing that happens in dataset/ can
   change what is sent;
5. the copies are re-scanned with the high-confidence detectors (credential rules, the user's
   identity and secrets, the reviewer's added values and regexes); any hit refuses (``rescan``);
6. only then is the target contacted (``hub.HubTarget``: visibility, existing files, one
   commit whose message carries the manifest sha256).

``--dry-run`` runs 1-5 on dataset/ itself and lists what would be sent; it contacts nothing.
Steps 1-5 are the same for every target; a target is one module behind ``target.Target``.
``--pr`` changes only what step 6 does (a pull request of the session files, under a prefix,
to an existing dataset): the same sign-off, files and re-scan gate it.

The staging copy is removed on every way out: an error, a refusal, a timeout, Ctrl-C and
SIGTERM (turned into ``KeyboardInterrupt`` while publish runs, so the ``finally`` runs), and
copies a killed publish left behind are removed by the next one (it holds DIR's lock, so no
other publish is using them).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from tracepub import __version__
from tracepub.errors import Refusal
from tracepub.outdir import OutDir
from tracepub.outputs.files import FileTable
from tracepub.publish.hub import TIMEOUT, HubTarget, remote_names
from tracepub.publish.rescan import refuse_hits, rescan
from tracepub.publish.target import Target
from tracepub.publish.verify import staged, verify

TARGETS: dict[str, type[Target]] = {"hub": HubTarget}


@dataclass
class Result:
    repo: str
    dry_run: bool
    private: bool
    files: list[dict[str, Any]] = field(default_factory=list)  # path, size, sha256
    bytes: int = 0
    manifest_sha256: str = ""
    commit_message: str = ""
    url: str | None = None
    commit: str | None = None
    unchanged: int = 0  # files already on the target with the same content
    nothing_changed: bool = False  # every file was there already: no commit was made
    pr: bool = False
    pr_url: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


def target_for(name: str = "hub") -> Target:
    return TARGETS[name]()


def _commit_message(message: str | None, sha: str, n: int) -> str:
    head = (message or f"Add {n} redacted file(s) with tracepub").strip().splitlines()[0]
    return f"{head} [tracepub manifest sha256:{sha}]"


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """SIGTERM (and SIGHUP) raise ``KeyboardInterrupt`` meanwhile, as Ctrl-C does, so a killed
    publish still runs its ``finally`` blocks (the staging copy is removed)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def publish(
    out: Path,
    repo: str,
    *,
    public: bool = False,
    dry_run: bool = False,
    message: str | None = None,
    replace: bool = False,
    license_: str | None = None,
    secrets: tuple[str, ...] = (),
    secrets_files: tuple[Path, ...] = (),
    target: Target | None = None,
    pr: bool = False,
    path_in_repo: str | None = None,
    timeout: float = TIMEOUT,
) -> Result:
    target = target or target_for()
    target.check_id(repo)
    signoff, manifest = verify(out, license_)
    signed: FileTable = manifest["files"]
    names = sorted(signed)
    paths = remote_names(names, pr, path_in_repo)
    target.check_paths(sorted(paths.values()))
    if not paths:
        raise Refusal(f"{OutDir(out).dataset} holds no session file to contribute: nothing was sent")
    sha = signoff["manifest_sha256"]
    sent_names = [n for n in names if n in paths]
    result = Result(
        repo=repo,
        dry_run=dry_run,
        private=not public,
        manifest_sha256=sha,
        pr=pr,
        files=[
            {"path": paths[n], "size": signed[n]["size"], "sha256": signed[n]["sha256"]} for n in sent_names
        ],
        bytes=sum(signed[n]["size"] for n in sent_names),
        commit_message=_commit_message(message, sha, len(sent_names)),
    )
    missing: list[str] = []
    if dry_run:
        hits = rescan(OutDir(out).dataset, names, out, signoff["reviewer"], secrets, secrets_files, missing)
        if hits:
            refuse_hits(hits, out)
        _note_missing(result, missing)
        result.notes.append(f"re-scan: {len(names)} file(s) checked, no high-confidence value found")
        result.notes.append(
            "dry run: nothing was sent and the Hub was not contacted "
            "(existing files and visibility are checked only by a real publish)"
        )
        return result
    with _interruptible(), staged(out, signed) as copies:
        hits = rescan(copies.root, names, out, signoff["reviewer"], secrets, secrets_files, missing)
        if hits:
            refuse_hits(hits, out)
        _note_missing(result, missing)
        description = (
            f"Signed off by {signoff['reviewer']} at {signoff['time']}; run {signoff['run_id']}; "
            f"tracepub {__version__}. Every file's sha256 is in the signed manifest."
        )
        sent = target.send(
            copies,
            repo,
            public=public,
            replace=replace,
            message=result.commit_message,
            description=description,
            pr=pr,
            prefix=path_in_repo,
            timeout=timeout,
        )
    result.private, result.unchanged = sent.private, sent.unchanged
    result.url, result.commit = sent.url, sent.commit
    result.nothing_changed, result.pr_url = sent.nothing_changed, sent.pr_url
    result.notes.extend(sent.notes)
    return result


def _note_missing(result: Result, missing: list[str]) -> None:
    if missing:
        kinds = ", ".join(sorted(set(missing)))
        result.notes.append(
            f"re-scan: {len(missing)} exact value(s) that redact matched were not available now "
            f"({kinds}); the signed files were redacted for them, but the re-scan could not look "
            "for them (give them with --secret/--secrets-file)"
        )
