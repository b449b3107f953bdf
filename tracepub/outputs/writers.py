"""How a unit's records become its output file: one ``Writer`` per output format.

A worker hands its writer each redacted record as bytes, in order, and the writer owns the
file: where its bytes go while it is incomplete, its digest (the manifest uses it instead of
reading the file again) and the rename into place. A new output format (Parquet, say) is one
class here with ``open``/``write``/``close``/``abort`` and a case in ``writer_for``; the
pipeline does not change.

``NativeWriter`` writes each harness's own shape back: a JSONL session line for line, a JSON
document as one. It adds no copy per record: the record's bytes go to a large buffer, and the
buffer's blocks are hashed as they reach the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import tempfile
from pathlib import Path
from typing import Protocol

from tracepub.model import Unit
from tracepub.outputs.files import file_stamp, replace_durably, sync_file

# Records come a few kB at a time, and fewer, larger writes cost less (the default buffer is 8 kB).
WRITE_BUFFER = 1 << 20

# (sha256 hex digest, ``files.file_stamp``) of a file as written: the file is still the one
# written while its stamp is that.
Written = tuple[str, tuple[int, int, int, int]]


class Writer(Protocol):
    """Writes one output file. ``open``, any number of ``write``, then ``close`` to put the file
    in place, or ``abort`` to leave nothing (a previous file of that name stays as it was)."""

    def open(self, target: Path) -> None: ...

    def write(self, record: bytes) -> None:
        """One redacted record, as its harness encodes it (no line break)."""
        ...

    def close(self) -> Written:
        """Finish the file and rename it into place; returns its digest and stamp."""
        ...

    def abort(self) -> None:
        """Remove what was written; a no-op after ``close`` (so it can sit in a ``finally``)."""
        ...


class _Sha256Raw(io.RawIOBase):
    """A file descriptor that hashes what it writes, as it writes it: under a buffered writer it
    sees the bytes in the buffer's blocks (or a long record whole), in file order, so the digest
    is that of the file."""

    def __init__(self, fd: int):
        self.fd = fd
        self.sha256 = hashlib.sha256()

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def write(self, b) -> int:  # any buffer, as RawIOBase's
        n = os.write(self.fd, b)
        self.sha256.update(memoryview(b)[:n])
        return n

    def close(self) -> None:
        if not self.closed:
            super().close()
            os.close(self.fd)


class _AtomicFile:
    """A binary file written under a temporary name beside ``target``, hashed while written,
    and renamed onto ``target`` only when complete (rename is atomic on one file system)."""

    def __init__(self, target: Path, buffering: int, sync_folder: bool) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        self.sync_folder = sync_folder
        fd, self.tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        self.target = target
        self.raw = _Sha256Raw(fd)
        self.fh = io.BufferedWriter(self.raw, buffering)

    def commit(self) -> Written:
        sync_file(self.fh)  # the bytes on the disk before the name points at them (``outputs.files``)
        self.fh.close()
        replace_durably(self.tmp, self.target, self.sync_folder)
        return self.raw.sha256.hexdigest(), file_stamp(self.target)

    def discard(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.fh.close()
        with contextlib.suppress(OSError):
            os.unlink(self.tmp)


class NativeWriter:
    """The harness's own format: JSONL records one a line (``lines``), or one JSON document."""

    def __init__(self, lines: bool = True, buffering: int = WRITE_BUFFER, sync_folder: bool = True) -> None:
        self.lines = lines
        self.buffering = buffering
        self.sync_folder = sync_folder  # False: the caller syncs the folder (``files.replace_durably``)
        self._file: _AtomicFile | None = None

    def open(self, target: Path) -> None:
        self._file = _AtomicFile(target, self.buffering, self.sync_folder)

    def write(self, record: bytes) -> None:
        fh = self._file.fh  # type: ignore[union-attr]  # open() came first (the Writer contract)
        fh.write(record)  # a record can be megabytes: no copy to append its line break
        if self.lines:
            fh.write(b"\n")

    def close(self) -> Written:
        assert self._file is not None, "close before open"
        done, self._file = self._file, None
        try:
            return done.commit()
        except BaseException:
            done.discard()
            raise

    def abort(self) -> None:
        if self._file is not None:
            self._file.discard()
            self._file = None


def writer_for(unit: Unit, fmt: str = "native", sync_folder: bool = True) -> Writer:
    """The writer of ``unit``'s output file in the format ``fmt``; ``sync_folder``: as
    ``files.replace_durably``'s."""
    if fmt == "native":
        return NativeWriter(lines=unit.kind != "json", sync_folder=sync_folder)
    raise ValueError(f"unknown output format {fmt!r}")
