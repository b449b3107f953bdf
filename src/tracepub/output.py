"""The output folder: atomic writes and the manifest that sign-off binds to.

Nothing is written half-way: every file goes to a temporary name in the same folder and is
renamed into place once complete (rename is atomic on one file system), so an interrupted run
leaves the previous file or none, never a truncated one.
"""

from __future__ import annotations

import contextlib
import hashlib
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


def write_text(dest: Path, text: str) -> None:
    with atomic_writer(dest) as fh:
        fh.write(text)


def write_json(dest: Path, value: Any) -> None:
    write_text(dest, json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False) + "\n")


def sha256_file(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def dataset_files(dataset_dir: Path) -> list[Path]:
    """Every file under dataset/, temporary files included (they would be uploaded too)."""
    if not dataset_dir.exists():
        return []
    return sorted(p for p in dataset_dir.rglob("*") if p.is_file() or p.is_symlink())


def compute_files(dataset_dir: Path) -> dict[str, dict[str, Any]]:
    """sha256 and size of every dataset file. Hashed by a few threads (hashlib and file reads
    release the interpreter lock): after a run the main process hashes as much as it read."""
    from concurrent.futures import ThreadPoolExecutor

    files = dataset_files(dataset_dir)
    with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1, len(files)))) as pool:
        digests = list(pool.map(sha256_file, files))
    return {
        p.relative_to(dataset_dir).as_posix(): {"sha256": digest, "size": p.stat().st_size}
        for p, digest in zip(files, digests, strict=True)
    }


def build_manifest(out_dir: Path, config_hash: str, run_id: str, extra: dict | None = None) -> dict:
    manifest = {
        "tool": "tracepub",
        "tool_version": __version__,
        "run_id": run_id,
        "config_hash": config_hash,
        "files": compute_files(out_dir / DATASET),
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
