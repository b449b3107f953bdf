"""One assembly path for run results: a run and a review drop count the same way.

A store file (a Hermes ``state.db``) holds many sessions; each session is one output file, and
the store's bytes are read once, so ``bytes_in`` counts them once whichever sessions remain.
Dropping a session in review rebuilds the summary, card, report and manifest without a re-run;
it must give what a run of the remaining sessions would.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner
from conftest import SAMPLES

from tracepub.cli import cli


def _hermes_store(root: Path, sessions: int) -> Path:
    """The sample Hermes ``state.db`` with ``sessions`` sessions, each with its own messages."""
    db = root / ".hermes" / "state.db"
    db.parent.mkdir(parents=True)
    shutil.copy(SAMPLES / "hermes" / "state.db", db)
    con = sqlite3.connect(db)
    first = con.execute("SELECT id FROM sessions").fetchone()[0]
    cols = [r[1] for r in con.execute("PRAGMA table_info(messages)") if r[1] not in ("id", "session_id")]
    for n in range(1, sessions):
        sid = f"20260428_10000{n}_extra{n}"
        con.execute(
            "INSERT INTO sessions (id, source, started_at, cwd) "
            "SELECT ?, source, started_at + ?, cwd FROM sessions WHERE id = ?",
            (sid, n * 60, first),
        )
        con.execute(
            f"INSERT INTO messages (session_id, {', '.join(cols)}) "
            f"SELECT ?, {', '.join(cols)} FROM messages WHERE session_id = ?",
            (sid, first),
        )
    con.commit()
    con.close()
    return db


def _redact(src: Path, out: Path) -> dict:
    res = CliRunner().invoke(cli, ["redact", str(src), "--out", str(out), "--no-ner", "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _run_summary(out: Path) -> dict:
    return json.loads((out / "review" / "run.json").read_text())["summary"]


def test_store_bytes_count_once_after_a_drop(tmp_path):
    db = _hermes_store(tmp_path / "src", 4)
    size = db.stat().st_size
    out = tmp_path / "out"
    summary = _redact(db.parent, out)
    assert summary["files"] == 4
    assert summary["bytes_in"] == size
    dropped = json.loads((out / "review" / "run.json").read_text())["units"][0]["session"]
    res = CliRunner().invoke(cli, ["review", str(out), "--drop-session", dropped, "--json"])
    assert res.exit_code == 0, res.output
    after = _run_summary(out)
    assert after["files"] == 3
    assert after["bytes_in"] == size  # the store is still read once, not once per remaining session


def test_a_drop_assembles_what_a_run_without_the_session_gives(tmp_path):
    """findings.jsonl, the counts and the card after a drop equal a run that left the session out."""
    db = _hermes_store(tmp_path / "src", 3)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    _redact(db.parent, out)
    dropped = json.loads((out / "review" / "run.json").read_text())["units"][1]["session"]
    assert CliRunner().invoke(cli, ["review", str(out), "--drop-session", dropped]).exit_code == 0
    key = (out / "review" / "placeholder.key").read_bytes()
    (fresh / "review").mkdir(parents=True)
    (fresh / "review" / "placeholder.key").write_bytes(key)
    res = CliRunner().invoke(
        cli,
        ["redact", str(db.parent), "--out", str(fresh), "--no-ner", "--json", "--exclude-session", dropped],
    )
    assert res.exit_code == 0, res.output
    assert (out / "review" / "findings.jsonl").read_bytes() == (
        fresh / "review" / "findings.jsonl"
    ).read_bytes()
    a, b = _run_summary(out), _run_summary(fresh)
    for k in ("files", "sessions", "records", "bytes_in", "findings", "actions", "blobs", "harnesses"):
        assert a[k] == b[k], k
    manifest_a = json.loads((out / "manifest.json").read_text())["files"]
    manifest_b = json.loads((fresh / "manifest.json").read_text())["files"]
    assert {k: v for k, v in manifest_a.items() if k != "README.md"} == {
        k: v for k, v in manifest_b.items() if k != "README.md"
    }


def test_a_restore_assembles_what_the_run_wrote(tmp_path):
    """Drop then restore: findings.jsonl, the counts and the files are the run's again."""
    db = _hermes_store(tmp_path / "src", 3)
    out = tmp_path / "out"
    _redact(db.parent, out)
    findings = (out / "review" / "findings.jsonl").read_bytes()
    files = json.loads((out / "manifest.json").read_text())["files"]
    summary = _run_summary(out)
    sid = json.loads((out / "review" / "run.json").read_text())["units"][0]["session"]
    for flag in ("--drop-session", "--restore-session"):
        res = CliRunner().invoke(cli, ["review", str(out), flag, sid])
        assert res.exit_code == 0, res.output
    assert (out / "review" / "findings.jsonl").read_bytes() == findings
    after = _run_summary(out)
    for k in ("files", "sessions", "records", "bytes_in", "findings", "actions", "blobs", "harnesses"):
        assert after[k] == summary[k], k
    restored = json.loads((out / "manifest.json").read_text())["files"]
    assert {k: v for k, v in restored.items() if k != "README.md"} == {
        k: v for k, v in files.items() if k != "README.md"
    }
