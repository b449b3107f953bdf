"""The same bytes out whatever the number of worker processes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tracepub.redact.placeholders import KEY_FILE
from tracepub.run.pipeline import run
from tracepub.runtypes import RunOptions
from tracepub.sources.settings import detect_config

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import claude_gen  # noqa: E402


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("sessions")
    claude_gen.generate(src, 1_500_000, seed=11)
    return src


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _redact(src: Path, out: Path, jobs: int, key: bytes) -> dict:
    (out / "review").mkdir(parents=True)
    (out / "review" / KEY_FILE).write_text(key.hex() + "\n")  # same placeholders in both runs
    dc, _, _ = detect_config((), None, None, True)
    summary = run(RunOptions(out=out, sources=[src], detect=dc, jobs=jobs))
    return summary.to_json()


def test_jobs_1_and_2_write_the_same_bytes(sessions, tmp_path):
    assert any(p.stat().st_size > 400_000 for p in sessions.rglob("*.jsonl"))
    key = bytes(range(32))
    one = _redact(sessions, tmp_path / "one", 1, key)
    two = _redact(sessions, tmp_path / "two", 2, key)
    assert one["files"] == two["files"] >= 2 and one["findings"] == two["findings"]
    assert sum(one["findings"].values()) > 100
    assert _tree(tmp_path / "one" / "dataset") == _tree(tmp_path / "two" / "dataset")
    assert (tmp_path / "one/review/findings.jsonl").read_bytes() == (
        tmp_path / "two/review/findings.jsonl"
    ).read_bytes()
    m1, m2 = (json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("one", "two"))
    assert m1["files"] == m2["files"] and m1["config_hash"] == m2["config_hash"]


def test_samples_of_every_harness_same_bytes_for_any_jobs(tmp_path):
    """The bundled sample traces (every harness, SQLite stores included): jobs 1 == jobs 2."""
    samples = ROOT / "sample_traces"
    key = bytes(range(32, 64))
    one = _redact(samples, tmp_path / "one", 1, key)
    two = _redact(samples, tmp_path / "two", 2, key)
    assert one["files"] == two["files"] > 10 and len(one["harnesses"]) >= 5
    assert one["findings"] == two["findings"] and not one["problems"]
    assert _tree(tmp_path / "one" / "dataset") == _tree(tmp_path / "two" / "dataset")
    assert (tmp_path / "one/review/findings.jsonl").read_bytes() == (
        tmp_path / "two/review/findings.jsonl"
    ).read_bytes()
