"""Writing under DIR: atomic writes, and the manifest that sign-off binds to.

Nothing is written half-way: every file goes to a temporary name in the same folder and is
renamed into place once complete (rename is atomic on one file system), so an interrupted run
leaves the previous file or none, never a truncated one.

Durable too: a rename is atomic for running programs, not for the disk. After a power cut the
new name can point at a file whose bytes never reached the disk (a signed name with unsigned,
empty or old bytes), or the rename itself can be lost. So the file's bytes are synced before
the rename (``sync_file``) and the folder after it (``replace_durably``): every file that a
sign-off binds (dataset files, the card, the manifest, signoff.json) and every other file under
DIR goes through one of these two. A run's workers sync each output's bytes but leave its folder
to ``run_tasks``, which syncs every folder they wrote into once, when they are done and before
anything names their files (state, manifest): one folder sync per folder, not two per session.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

from tracepub import __version__
from tracepub.outdir import OutDir

# (sha256, ``file_stamp``) of files as their writers wrote them, by path under dataset/.
Known = dict[str, tuple[str, tuple[int, int, int, int]]]
# A file table: path under dataset/ -> {"sha256", "size"} (what the manifest lists).
FileTable = dict[str, dict[str, Any]]


def sync_file(fh: IO[Any]) -> None:
    """Flush ``fh`` and have the kernel write its bytes to the disk (before it is renamed into place)."""
    fh.flush()
    os.fsync(fh.fileno())


def sync_dir(folder: Path) -> None:
    """Write ``folder``'s entries (a rename into it) to the disk. Where a folder cannot be opened
    or synced (Windows, some network file systems) there is nothing more to do: skipped."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replace_durably(tmp: str | Path, dest: Path, sync_folder: bool = True) -> None:
    """Rename the complete, synced ``tmp`` onto ``dest``, then sync the folder: once this
    returns, ``dest`` holds the new bytes on the disk, whatever happens next. ``sync_folder``
    False: the caller syncs the folder later (``sync_dirs``)."""
    os.replace(tmp, dest)
    if sync_folder:
        sync_dir(dest.parent)


def sync_dirs(folders: set[Path]) -> None:
    """``sync_dir`` of each folder, once."""
    for folder in sorted(folders):
        sync_dir(folder)


@contextlib.contextmanager
def atomic_writer(
    dest: Path, mode: str = "w", buffering: int = -1, sync_folder: bool = True
) -> Iterator[IO[Any]]:
    """``buffering``: as ``open``'s (a worker's outputs use a large buffer: fewer, larger writes).
    ``sync_folder``: as ``replace_durably``'s."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        with os.fdopen(
            fd,
            mode,
            buffering,
            encoding=None if "b" in mode else "utf-8",
            newline=None if "b" in mode else "",
        ) as fh:
            yield fh
            sync_file(fh)
        replace_durably(tmp, dest, sync_folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text(dest: Path, text: str) -> None:
    with atomic_writer(dest) as fh:
        fh.write(text)


def write_json(dest: Path, value: object) -> None:
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


def compute_files(dataset_dir: Path, known: Known | None = None) -> FileTable:
    """sha256 and size of every dataset file. ``known``: digests of files as they were written
    (relative path -> (sha256, ``file_stamp`` right after the rename)), used for a file whose
    stamp is still that (a run's workers hash their outputs as they write them); any other file
    is read and hashed, by a few threads (hashlib and file reads release the interpreter lock)."""
    known = known or {}
    table: FileTable = {}
    todo: list[tuple[str, Path]] = []
    order: list[str] = []
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


def build_manifest(
    out: Path | OutDir,
    config_hash: str,
    run_id: str,
    extra: dict[str, Any] | None = None,
    known: Known | None = None,
) -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "tool": "tracepub",
        "tool_version": __version__,
        "run_id": run_id,
        "config_hash": config_hash,
        "files": compute_files(OutDir(out).dataset, known),
    }
    if extra:
        manifest.update(extra)
    return manifest


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return (json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def write_manifest(out: Path | OutDir, manifest: dict[str, Any]) -> str:
    """Write manifest.json; returns its sha256 (what approve signs)."""
    data = manifest_bytes(manifest)
    with atomic_writer(OutDir(out).manifest, "wb") as fh:
        fh.write(data)
    return hashlib.sha256(data).hexdigest()


def read_manifest(out: Path | OutDir) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(OutDir(out).manifest.read_text(encoding="utf-8"))
    return data


def diff_files(signed: FileTable, actual: FileTable) -> list[str]:
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
