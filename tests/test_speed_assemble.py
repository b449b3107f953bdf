"""After the workers: findings.jsonl copied in the kernel, dataset files hashed as the workers'
writers write them. Same bytes, same manifest as reading and hashing every file again."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from pathlib import Path

import pytest

from tracepub.outputs import files as output
from tracepub.outputs.files import append_file, compute_files, file_stamp, read_manifest
from tracepub.outputs.writers import NativeWriter
from tracepub.run.pipeline import run
from tracepub.runtypes import RunOptions
from tracepub.sources.settings import detect_config

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import claude_gen  # noqa: E402


def _parts(tmp_path: Path) -> list[Path]:
    rng = random.Random(5)
    parts = []
    for n, size in enumerate([0, 1, 4095, 70_000, (1 << 20) + 3, 17]):
        p = tmp_path / f"part{n}"
        p.write_bytes(rng.randbytes(size))
        parts.append(p)
    return parts


def _concat(parts: list[Path], dest: Path) -> bytes:
    with output.atomic_writer(dest, "wb") as fh:
        fh.write(b"head\n")  # buffered bytes before the first copy land first
        for p in parts:
            append_file(p, fh)
        fh.write(b"tail\n")
    return dest.read_bytes()


def test_append_file_is_the_concatenation_with_or_without_copy_file_range(tmp_path, monkeypatch):
    parts = _parts(tmp_path)
    want = b"head\n" + b"".join(p.read_bytes() for p in parts) + b"tail\n"
    assert _concat(parts, tmp_path / "kernel") == want
    real = getattr(os, "copy_file_range", None)
    calls = {"n": 0}

    def fails_midway(src: int, dst: int, count: int) -> int:  # some bytes copied, then unsupported
        calls["n"] += 1
        if calls["n"] % 2 == 0 or real is None:
            raise OSError(18, "cross-device")
        return real(src, dst, min(count, 1000))

    monkeypatch.setattr(os, "copy_file_range", fails_midway, raising=False)
    assert _concat(parts, tmp_path / "midway") == want
    monkeypatch.delattr(os, "copy_file_range", raising=False)
    assert _concat(parts, tmp_path / "python") == want


@pytest.mark.parametrize("lines", [True, False])
@pytest.mark.parametrize("buffering", [1, 64, 1 << 20])
def test_native_writer_digest_is_the_files(tmp_path, buffering, lines):
    rng = random.Random(buffering)
    dest = tmp_path / "out.jsonl"
    records = [rng.randbytes(rng.choice([0, 1, 10, 500, 3000, 200_000])) for _ in range(300)]
    writer = NativeWriter(lines, buffering)
    writer.open(dest)
    for r in records:
        writer.write(r)
    sha256, stamp = writer.close()
    writer.abort()  # a no-op once closed
    data = dest.read_bytes()
    assert data == b"".join(r + b"\n" if lines else r for r in records)
    assert sha256 == hashlib.sha256(data).hexdigest() and stamp == file_stamp(dest)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_native_writer_leaves_nothing_when_aborted(tmp_path):
    dest = tmp_path / "out"
    dest.write_bytes(b"an earlier run's\n")
    writer = NativeWriter()
    writer.open(dest)
    writer.write(b"x" * 100_000)
    writer.abort()
    assert list(tmp_path.iterdir()) == [dest] and dest.read_bytes() == b"an earlier run's\n"


def test_known_digest_is_used_only_while_the_file_is_the_one_written(tmp_path):
    d = tmp_path / "dataset"
    (d / "a").mkdir(parents=True)
    f = d / "a" / "x.jsonl"
    f.write_bytes(b"one\n")
    fake = "0" * 64  # not the file's digest: shows whether the known one was taken
    assert compute_files(d, {"a/x.jsonl": (fake, file_stamp(f))})["a/x.jsonl"]["sha256"] == fake
    stamp = file_stamp(f)
    f.write_bytes(b"two!\n")  # changed after it was written: hashed again
    assert compute_files(d, {"a/x.jsonl": (fake, stamp)}) == compute_files(d)
    assert compute_files(d)["a/x.jsonl"] == {"sha256": hashlib.sha256(b"two!\n").hexdigest(), "size": 5}


def _run(src: Path, out: Path, jobs: int) -> dict:
    dc, _, _ = detect_config((), None, None, False)
    return run(RunOptions(out=out, sources=[src], detect=dc, jobs=jobs)).to_json()


@pytest.mark.parametrize("jobs", [1, 2])
def test_manifest_hashes_are_the_files_on_disk_first_and_incremental_runs(tmp_path, jobs):
    src = tmp_path / "src"
    claude_gen.generate(src, 600_000, seed=4)
    out = tmp_path / "out"
    first = _run(src, out, jobs)
    assert first["files"] >= 2 and first["reused"] == 0
    manifest = read_manifest(out)
    assert manifest["files"] == compute_files(out / "dataset")
    findings = (out / "review/findings.jsonl").read_bytes()
    parts = out / "review/parts"
    names = ["paths.jsonl"] + sorted(p.name for p in parts.iterdir() if p.name != "paths.jsonl")
    assert sorted(findings.splitlines()) == sorted(
        b"".join((parts / n).read_bytes() for n in names).splitlines()
    )
    # Reused files are hashed from disk; a changed source is rewritten (and hashed by its worker).
    changed = sorted(src.rglob("*.jsonl"))[0]
    with open(changed, "a") as fh:
        fh.write(
            json.dumps({"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}})
            + "\n"
        )
    second = _run(src, out, jobs)
    assert second["reused"] == first["files"] - 1
    again = read_manifest(out)
    assert again["files"] == compute_files(out / "dataset")
    assert again["files"] != manifest["files"]
    assert (out / "review/findings.jsonl").read_bytes() == findings  # "hi" has nothing to find
