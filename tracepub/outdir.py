"""One writer at a time per output folder: an exclusive lock on ``DIR/.tracepub.lock``.

Two commands writing into one DIR (two ``redact`` runs, or ``redact`` while ``review`` re-runs
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
import os
from collections.abc import Iterator
from pathlib import Path

from tracepub.errors import Refusal

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = ".tracepub.lock"


@contextlib.contextmanager
def locked(out: Path, create: bool = False) -> Iterator[None]:
    """Hold DIR's lock for the ``with`` block, or refuse (``Refusal``) if another command holds it.

    ``create``: make DIR first (redact); otherwise a DIR that does not exist is not locked (the
    command itself refuses it, and there is nothing in it to protect)."""
    if fcntl is None:
        yield
        return
    if not out.is_dir():
        if not create:
            yield
            return
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise Refusal(f"cannot create {out}: {exc.strerror or exc}") from None
    path = out / LOCK_FILE
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
                f"another tracepub command is writing to {out}"
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
