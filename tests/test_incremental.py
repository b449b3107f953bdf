"""Re-running redact into the same DIR redoes only what changed (review/state.json)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tracepub.fakes import expand
from tracepub.run.pipeline import run
from tracepub.runtypes import RunOptions
from tracepub.sources.settings import detect_config

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import claude_gen  # noqa: E402


@pytest.fixture
def sessions(tmp_path) -> Path:
    src = tmp_path / "src"
    claude_gen.generate(src, 600_000, seed=4)
    return src


def _files(src: Path) -> list[Path]:
    return sorted(src.rglob("*.jsonl"))


def _run(src: Path, out: Path, secrets: tuple[str, ...] = ()) -> dict:
    dc, _, _ = detect_config(secrets, None, None, False)
    return run(RunOptions(out=out, sources=[src], detect=dc, jobs=1)).to_json()


def _dataset(out: Path) -> dict[str, bytes]:
    root = out / "dataset"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.jsonl"))}


def test_second_run_reuses_everything(sessions, tmp_path):
    out = tmp_path / "out"
    first = _run(sessions, out)
    n = first["files"]
    assert n >= 2 and first["reused"] == 0
    before, findings = _dataset(out), (out / "review/findings.jsonl").read_bytes()
    second = _run(sessions, out)
    assert second["reused"] == n and second["files"] == n
    assert second["findings"] == first["findings"] and second["records"] == first["records"]
    assert _dataset(out) == before and (out / "review/findings.jsonl").read_bytes() == findings
    state = json.loads((out / "review/state.json").read_text())
    assert len(state["units"]) == n


def test_run_leaves_automatic_garbage_collection_on(sessions, tmp_path):
    """``run`` turns automatic collection off for the start-up (threshold 0): it is on again
    after a run that started workers (their thresholds) and after one that reused everything
    (the caller's thresholds)."""
    import gc

    from tracepub.run import workers

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        out = tmp_path / "out"
        _run(sessions, out)
        assert gc.get_threshold() == workers.GC_THRESHOLD
        gc.set_threshold(700, 10, 10)
        assert _run(sessions, out)["reused"] >= 2
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_a_changed_file_is_the_only_one_redone(sessions, tmp_path):
    out = tmp_path / "out"
    first = _run(sessions, out)
    before = _dataset(out)
    changed = _files(sessions)[0]
    token = expand("{{github:ghp}}")
    with open(changed, "a") as fh:  # same mtime tricks do not matter: the content hash decides
        fh.write(
            json.dumps(
                {"type": "user", "sessionId": "s", "message": {"role": "user", "content": f"t={token}"}}
            )
            + "\n"
        )
    second = _run(sessions, out)
    assert second["reused"] == first["files"] - 1
    after = _dataset(out)
    diff = [k for k in after if after[k] != before.get(k)]
    assert (
        len(diff) == 1
        and token not in after[diff[0]].decode()
        and "<SECRET_GITHUB_TOKEN_" in after[diff[0]].decode()
    )
    assert (
        second["findings"].get("secret.github_token", 0)
        == first["findings"].get("secret.github_token", 0) + 1
    )


def test_same_bytes_new_mtime_is_reused(sessions, tmp_path):
    out = tmp_path / "out"
    _run(sessions, out)
    f = _files(sessions)[0]
    os.utime(f, (1_000_000_000, 1_000_000_000))
    assert _run(sessions, out)["reused"] == len(_files(sessions))


def test_changed_config_redoes_all(sessions, tmp_path):
    out = tmp_path / "out"
    first = _run(sessions, out)
    second = _run(sessions, out, secrets=("an-internal-value-123",))
    assert second["reused"] == 0 and second["files"] == first["files"]


def test_removed_source_leaves_the_dataset(sessions, tmp_path):
    out = tmp_path / "out"
    first = _run(sessions, out)
    gone = _files(sessions)[-1]
    gone.unlink()
    second = _run(sessions, out)
    assert second["files"] == first["files"] - 1 and second["reused"] == first["files"] - 1
    assert not any(p.name == gone.name for p in (out / "dataset").rglob("*.jsonl"))
    assert len(json.loads((out / "review/state.json").read_text())["units"]) == first["files"] - 1


def test_edited_output_is_rebuilt(sessions, tmp_path):
    out = tmp_path / "out"
    first = _run(sessions, out)
    victim = next((out / "dataset").rglob("*.jsonl"))
    victim.write_text("tampered\n")
    second = _run(sessions, out)
    assert second["reused"] == first["files"] - 1
    assert victim.read_text() != "tampered\n"


def test_a_store_file_counts_once_however_many_sessions_it_holds(tmp_path):
    """OpenCode's DB holds every session: 'Read N MB' is the bytes of the sources, not N times the DB."""
    import shutil
    import sqlite3

    db = tmp_path / "opencode.db"
    shutil.copy(ROOT / "sample_traces" / "opencode" / "opencode.db", db)
    con = sqlite3.connect(db)  # a second session: a copy of the first under other ids
    for table in ("session", "message", "part"):
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
        rows = con.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall()
        for row in rows:
            new = [
                "copy-" + v if c in ("id", "session_id", "message_id") and isinstance(v, str) else v
                for c, v in zip(cols, row, strict=True)
            ]
            con.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(cols))})", new)
    con.commit()
    con.close()
    summary = _run(db, tmp_path / "out")
    assert summary["files"] == 2  # two sessions from the one store file
    assert summary["bytes_in"] == db.stat().st_size
    again = _run(db, tmp_path / "out")  # both sessions reused
    assert again["reused"] == 2
    assert again["bytes_in"] == db.stat().st_size
