"""The output folder: atomic writes and the manifest that sign-off binds to.

Nothing is written half-way: every file goes to a temporary name in the same folder and is
renamed into place once complete (rename is atomic on one file system), so an interrupted run
leaves the previous file or none, never a truncated one.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from tracepub import __version__

DATASET = "dataset"
REVIEW = "review"
MANIFEST = "manifest.json"
SIGNOFF = "signoff.json"


@contextlib.contextmanager
def atomic_writer(dest: Path, mode: str = "w", buffering: int = -1) -> Iterator[IO[Any]]:
    """``buffering``: as ``open``'s (a worker's outputs use a large buffer: fewer, larger writes)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, buffering, encoding=None if "b" in mode else "utf-8",
                       newline=None if "b" in mode else "") as fh:
            yield fh
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class _Sha256Raw(io.RawIOBase):
    """A file descriptor that hashes what it writes, as it writes it: under a buffered writer it
    sees the bytes in the buffer's blocks (or a long line whole), in file order, so the digest is
    that of the file (a worker's output: the manifest then does not read it again)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.sha256 = hashlib.sha256()

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:  # type: ignore[override]
        n = os.write(self.fd, b)
        self.sha256.update(memoryview(b)[:n])
        return n

    def close(self) -> None:
        if not self.closed:
            super().close()
            os.close(self.fd)


@contextlib.contextmanager
def hashing_writer(dest: Path, buffering: int = io.DEFAULT_BUFFER_SIZE) -> Iterator[tuple[IO[bytes], Any]]:
    """``atomic_writer`` in binary mode that also yields the sha256 object of the bytes written
    (complete once the block ends)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        raw = _Sha256Raw(fd)
        with io.BufferedWriter(raw, buffering) as fh:
            yield fh, raw.sha256
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text(dest: Path, text: str) -> None:
    with atomic_writer(dest) as fh:
        fh.write(text)


def write_json(dest: Path, value: Any) -> None:
    write_text(dest, json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False) + "\n")


def append_file(src: Path, fh: IO[bytes]) -> None:
    """Append the bytes of ``src`` to the binary file ``fh``. Copied in the kernel
    (``os.copy_file_range``) where it can be: no round trip of every byte through Python
    (findings.jsonl, as big as the input: 2.3 -> 0.4 s per GB here); else read and written
    in 1 MB blocks. The bytes are the same either way."""
    fh.flush()
    with open(src, "rb") as inp:
        copy = getattr(os, "copy_file_range", None)
        if copy is not None:
            try:
                while copy(inp.fileno(), fh.fileno(), 1 << 30):  # 0: the end of ``src``
                    pass
                fh.seek(0, os.SEEK_END)  # the buffered file's position follows the descriptor's
                return
            except OSError:  # not supported here (file system, kernel): the rest copied the slow way
                fh.seek(0, os.SEEK_END)  # ``fh`` is only ever appended to: its end is where to go on
                inp.seek(os.lseek(inp.fileno(), 0, os.SEEK_CUR))
        for chunk in iter(lambda: inp.read(1 << 20), b""):
            fh.write(chunk)


def sha256_file(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def dataset_files(dataset_dir: Path) -> list[Path]:
    """Every file under dataset/, temporary files included (they would be uploaded too)."""
    if not dataset_dir.exists():
        return []
    return sorted(p for p in dataset_dir.rglob("*") if p.is_file() or p.is_symlink())


def file_stamp(path: Path) -> tuple[int, int, int, int]:
    """What says a file is still the one written: device, inode, size, mtime (ns)."""
    st = path.stat()
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def compute_files(dataset_dir: Path, known: dict[str, tuple[str, tuple]] | None = None) -> dict[str, dict[str, Any]]:
    """sha256 and size of every dataset file. ``known``: digests of files as they were written
    (relative path -> (sha256, ``file_stamp`` right after the rename)), used for a file whose
    stamp is still that (a run's workers hash their outputs as they write them); any other file
    is read and hashed, by a few threads (hashlib and file reads release the interpreter lock)."""
    from concurrent.futures import ThreadPoolExecutor

    known = known or {}
    table: dict[str, dict[str, Any]] = {}
    todo: list[tuple[str, Path]] = []
    order = []
    for p in dataset_files(dataset_dir):
        rel = p.relative_to(dataset_dir).as_posix()
        order.append(rel)
        entry = known.get(rel)
        if entry is not None and p.is_file() and not p.is_symlink() and file_stamp(p) == tuple(entry[1]):
            table[rel] = {"sha256": entry[0], "size": entry[1][2]}
        else:
            todo.append((rel, p))
    if todo:
        with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1, len(todo)))) as pool:
            digests = list(pool.map(sha256_file, [p for _, p in todo]))
        for (rel, p), digest in zip(todo, digests, strict=True):
            table[rel] = {"sha256": digest, "size": p.stat().st_size}
    return {rel: table[rel] for rel in order}


def build_manifest(out_dir: Path, config_hash: str, run_id: str, extra: dict | None = None,
                   known: dict[str, tuple[str, tuple]] | None = None) -> dict:
    manifest = {
        "tool": "tracepub",
        "tool_version": __version__,
        "run_id": run_id,
        "config_hash": config_hash,
        "files": compute_files(out_dir / DATASET, known),
    }
    if extra:
        manifest.update(extra)
    return manifest


def manifest_bytes(manifest: dict) -> bytes:
    return (json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def write_manifest(out_dir: Path, manifest: dict) -> str:
    """Write manifest.json; returns its sha256 (what approve signs)."""
    data = manifest_bytes(manifest)
    with atomic_writer(out_dir / MANIFEST, "wb") as fh:
        fh.write(data)
    return hashlib.sha256(data).hexdigest()


def read_manifest(out_dir: Path) -> dict:
    return json.loads((out_dir / MANIFEST).read_text(encoding="utf-8"))


def manifest_sha256(out_dir: Path) -> str:
    return sha256_file(out_dir / MANIFEST)


def diff_files(signed: dict[str, dict], actual: dict[str, dict]) -> list[str]:
    """Human-readable differences between two file tables (empty when identical)."""
    out = []
    for name in sorted(set(signed) | set(actual)):
        if name not in actual:
            out.append(f"removed: {name}")
        elif name not in signed:
            out.append(f"added: {name}")
        elif signed[name] != actual[name]:
            out.append(f"changed: {name}")
    return out
