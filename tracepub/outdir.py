"""DIR, the output folder: every path under it (``OutDir``), and one writer at a time (``locked``).

Every stage reads and writes under DIR (dataset/, review/, manifest.json, signoff.json, ...).
Their names live here, once, so no module spells a path of another's and a new file under DIR
has one place to be named.

The lock, ``DIR/.tracepub.lock``: two commands writing into one DIR (two ``redact`` runs, or ``redact`` while ``review`` re-runs
the redaction) interleave their files: one crashes, the other "succeeds" with a dataset that is
half of each, and approve would sign it. So every command that writes into DIR (redact,
review's deciding modes, approve, publish, which stages copies there) holds this lock from
before its first write to its end, and a second one refuses at once instead of waiting.

The lock is ``fcntl.flock`` on a file beside dataset/ (never inside it: it is not uploaded and
the manifest does not see it). The kernel drops it when the holder's process dies, however it
dies, so there is no stale lock to clean up; the file itself stays (removing a locked file lets
a third command lock a new file of the same name while the second still holds the old one).
It holds the holder's pid, only for the refusal message. Worker processes forked by the holder
share the lock; it is released explicitly at the end, for them too. Where ``fcntl`` does not
exist (Windows) no lock is taken.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from tracepub.errors import Refusal

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = ".tracepub.lock"


class OutDir:
    """The paths under one DIR. Plain and cheap (a path and properties): made wherever a
    function is given DIR, so callers can pass a ``Path`` or an ``OutDir``.

    What is uploaded is dataset/ and nothing else; review/ holds what a reviewer and a re-run
    need (never uploaded); manifest.json and signoff.json bind the sign-off to dataset/'s bytes.
    """

    __slots__ = ("root",)

    CARD = "README.md"  # the dataset card, under dataset/ (part of the signed bytes)
    PATHS_PART = "paths.jsonl"  # the findings part of file and folder names, under review/parts/
    STAGING_PREFIX = ".publish-"  # publish's private copies, beside dataset/

    def __init__(self, root: Path | str | OutDir) -> None:
        self.root: Path = root.root if isinstance(root, OutDir) else Path(root)

    def __repr__(self) -> str:
        return f"OutDir({str(self.root)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OutDir) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    # -- dataset/: what is published ------------------------------------------------------------
    @property
    def dataset(self) -> Path:
        return self.root / "dataset"

    @property
    def card(self) -> Path:
        return self.dataset / self.CARD

    def output(self, dest: str) -> Path:
        """A unit's output file; ``dest`` is its path under dataset/ (``claude_code/...``)."""
        return self.dataset / dest

    # -- beside dataset/: what binds the sign-off ------------------------------------------------
    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"

    @property
    def signoff(self) -> Path:
        return self.root / "signoff.json"

    @property
    def lock(self) -> Path:
        return self.root / LOCK_FILE

    # -- review/: never uploaded -------------------------------------------------------------------
    @property
    def review(self) -> Path:
        return self.root / "review"

    @property
    def parts(self) -> Path:
        """Each output file's findings (one part per file), concatenated into findings.jsonl."""
        return self.review / "parts"

    def part(self, dest: str) -> Path:
        """The findings part of the output file ``dest``: named by a hash of ``dest`` (a flat
        folder, and the name does not spell the user's folders)."""
        return self.parts / (hashlib.sha1(dest.encode()).hexdigest()[:16] + ".jsonl")

    @property
    def paths_part(self) -> Path:
        return self.parts / self.PATHS_PART

    @property
    def findings(self) -> Path:
        return self.review / "findings.jsonl"

    @property
    def report(self) -> Path:
        return self.review / "report.html"

    @property
    def run_file(self) -> Path:
        """Sources, options and summary of the last run (``review.runstate``)."""
        return self.review / "run.json"

    @property
    def values(self) -> Path:
        """Keyed hashes of the exact values the last run matched, and the deny rules (0600)."""
        return self.review / "values.json"

    @property
    def identity(self) -> Path:
        """What identity harvesting found, masked (the report shows it)."""
        return self.review / "identity.json"

    @property
    def state(self) -> Path:
        """Per output file, what produced it (``run.incremental``)."""
        return self.review / "state.json"

    @property
    def decisions(self) -> Path:
        return self.review / "decisions.jsonl"

    @property
    def key(self) -> Path:
        """The placeholder key (``redact.placeholders.load_key`` reads it from review/)."""
        return self.review / "placeholder.key"

    @property
    def dropped(self) -> Path:
        """Files of sessions dropped since the last run (``review.sessions``): dataset/ and parts/ below."""
        return self.review / "dropped"

    def dropped_output(self, dest: str) -> Path:
        return self.dropped / "dataset" / dest

    def dropped_part(self, dest: str) -> Path:
        return self.dropped / "parts" / self.part(dest).name


@contextlib.contextmanager
def locked(out: Path | OutDir, create: bool = False) -> Iterator[None]:
    """Hold DIR's lock for the ``with`` block, or refuse (``Refusal``) if another command holds it.

    ``create``: make DIR first (redact); otherwise a DIR that does not exist is not locked (the
    command itself refuses it, and there is nothing in it to protect)."""
    if fcntl is None:
        yield
        return
    od = OutDir(out)
    root, path = od.root, od.lock
    if not root.is_dir():
        if not create:
            yield
            return
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise Refusal(f"cannot create {root}: {exc.strerror or exc}") from None
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise Refusal(f"cannot open the lock file {path}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise Refusal(f"cannot lock {path}: {exc.strerror or exc}") from None
            pid = _holder(fd)
            raise Refusal(
                f"another tracepub command is writing to {root}"
                + (f" (pid {pid})" if pid else "")
                + "; wait for it to finish"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _holder(fd: int) -> int | None:
    """The pid the holder wrote (None if it has not written it yet)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
