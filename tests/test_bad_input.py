"""Bad input gets a clear message and loses nothing; the run goes on; ``--strict`` exits 1."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from samples import SAMPLES, generator, lines_of, redact

from tracepub.cli import cli
from tracepub.fakes import expand
from tracepub.readers import sqlite as sq

PLANTED = generator().PLANTED
PI = next(SAMPLES.glob("pi/**/*.jsonl"))
CODEX = next(SAMPLES.glob("codex/sessions/2026/**/*.jsonl"))


def _pi_copy(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    dst = folder / PI.name
    shutil.copy(PI, dst)
    return dst


def _pi_done(out: Path) -> bool:
    return any((out / "dataset" / "pi").rglob(PI.name))


def test_non_json_line_is_kept_redacted_and_reported(tmp_path):
    token = expand("{{github:ghp}}", random.Random(7))
    lines = CODEX.read_text().splitlines()
    lines.insert(2, f"<<< merge conflict leftover: GH_TOKEN={token} >>>")
    src = tmp_path / "in" / CODEX.name
    src.parent.mkdir()
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    summary = redact([src], out)
    assert f"{src}:3: line is not JSON; kept as plain text and scanned" in summary.problems
    dst = next((out / "dataset" / "codex").rglob(CODEX.name))
    got = lines_of(dst)
    assert len(got) == len(lines) + 1  # same lines, same final newline
    assert got[2].startswith("<<< merge conflict leftover: GH_TOKEN=<SECRET_") and token not in got[2]
    # the rest of the file was processed
    sample = PLANTED[CODEX.relative_to(SAMPLES).as_posix()]
    text = dst.read_text()
    assert all(s not in text for s in sample.secrets)
    assert all(json.loads(x) for i, x in enumerate(got) if x and i != 2)


def test_invalid_utf8_is_reported_and_the_rest_kept(tmp_path):
    raw = PI.read_bytes().split(b"\n")
    raw.insert(3, b'{"type":"custom","id":"0badf00d","parentId":null,"timestamp":"2026-03-01T10:15:40.000Z",'
                  b'"customType":"note","data":"caf\xe9 in /home/jdoe"}')
    src = tmp_path / "in" / PI.name
    src.parent.mkdir()
    src.write_bytes(b"\n".join(raw))
    out = tmp_path / "out"
    summary = redact([src], out)
    assert any(p.startswith(f"{src}:4: invalid UTF-8") for p in summary.problems)
    dst = next((out / "dataset" / "pi").rglob(PI.name))
    got = lines_of(dst)
    assert len(got) == len(raw)
    assert "caf\ufffd in /home/<USER>" in got[3]
    assert "jdoe" not in dst.read_text()


def test_empty_file_is_reported_and_run_goes_on(tmp_path):
    folder = tmp_path / "in"
    _pi_copy(folder)
    (folder / "empty.jsonl").write_bytes(b"")
    summary = redact([folder], tmp_path / "out")
    assert f"{folder / 'empty.jsonl'}: empty file; skipped" in summary.problems
    assert _pi_done(tmp_path / "out")


def test_unreadable_file_is_reported_and_run_goes_on(tmp_path, monkeypatch):
    folder = tmp_path / "in"
    _pi_copy(folder)
    locked = folder / "locked.jsonl"
    shutil.copy(CODEX, locked)
    locked.chmod(0)
    if os.geteuid() == 0:  # root reads anything: make the read fail the way it would for a user
        import tracepub.sources.discover as disc

        real = disc.read_head

        def read_head(path, *a, **kw):
            if Path(path) == locked:
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, *a, **kw)

        monkeypatch.setattr(disc, "read_head", read_head)
    try:
        summary = redact([folder], tmp_path / "out")
    finally:
        locked.chmod(0o644)
    assert f"{locked}: cannot read: Permission denied" in summary.problems
    assert _pi_done(tmp_path / "out")
    assert not list((tmp_path / "out" / "dataset").rglob("locked.jsonl"))


def test_corrupt_sqlite_is_reported_and_run_goes_on(tmp_path):
    folder = tmp_path / "in"
    _pi_copy(folder)
    (folder / "opencode.db").write_bytes(sq.MAGIC + random.Random(1).randbytes(8000))
    summary = redact([folder], tmp_path / "out")
    assert any(p.startswith(f"{folder / 'opencode.db'}: cannot read as OpenCode") for p in summary.problems)
    assert _pi_done(tmp_path / "out")


def test_damaged_sqlite_pages_fail_one_session_only(tmp_path):
    """The schema page reads, the data pages do not: the session is reported, nothing half-written."""
    folder = tmp_path / "in"
    _pi_copy(folder)
    data = bytearray((SAMPLES / "hermes" / "state.db").read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for i in range(page, len(data)):
        data[i] = 0xA5
    (folder / "state.db").write_bytes(bytes(data))
    out = tmp_path / "out"
    summary = redact([folder], out)
    assert any(str(folder / "state.db") in p for p in summary.problems)
    assert _pi_done(out)
    assert not (out / "dataset" / "hermes").exists() or not list((out / "dataset" / "hermes").rglob("*.jsonl"))


def test_locked_sqlite_is_reported_and_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(sq, "BUSY_TIMEOUT", 0.05)
    folder = tmp_path / "in"
    _pi_copy(folder)
    db = folder / "state.db"
    shutil.copy(SAMPLES / "hermes" / "state.db", db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # the harness is writing
    holder.execute("UPDATE sessions SET title = 'x'")
    assert Path(f"{db}-journal").exists()
    try:
        summary = redact([folder], tmp_path / "out")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert any(p.startswith(f"{db}: cannot read as Hermes") and "locked" in p for p in summary.problems)
    assert _pi_done(tmp_path / "out")


def test_sqlite_source_is_opened_read_only(tmp_path):
    db = tmp_path / "opencode.db"
    shutil.copy(SAMPLES / "opencode" / "opencode.db", db)
    before = db.read_bytes()
    redact([db], tmp_path / "out")
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db", "out"]  # no journal or WAL left
    con = sq.connect(db)
    with pytest.raises(sqlite3.OperationalError):
        con.execute("CREATE TABLE x (y)")
    con.close()


def test_bad_row_data_in_opencode_db_is_kept_as_text(tmp_path):
    db = tmp_path / "opencode.db"
    shutil.copy(SAMPLES / "opencode" / "opencode.db", db)
    token = expand("hf_{{alpha:34}}", random.Random(3))
    con = sqlite3.connect(db)
    mid = con.execute("SELECT id FROM message LIMIT 1").fetchone()[0]
    con.execute("UPDATE part SET data = ? WHERE id = (SELECT id FROM part WHERE message_id = ? LIMIT 1)",
                (f"{{truncated json, token {token}", mid))
    con.commit()
    con.close()
    out = tmp_path / "out"
    summary = redact([db], out)
    assert any("data is not JSON; kept as text" in p for p in summary.problems)
    text = next((out / "dataset" / "opencode").glob("*.jsonl")).read_text()
    assert "{truncated json, token <SECRET_" in text and token not in text


def test_corrupt_legacy_part_is_kept_as_text(tmp_path):
    storage = tmp_path / "storage"
    shutil.copytree(SAMPLES / "opencode" / "storage", storage)
    part = sorted((storage / "part").rglob("*.json"))[0]
    part.write_text(part.read_text()[:40])
    out = tmp_path / "out"
    summary = redact([storage], out)
    assert f"{part}: not JSON; kept as plain text and scanned" in summary.problems
    lines = [json.loads(x) for x in next((out / "dataset" / "opencode").glob("*.jsonl")).read_text().splitlines()]
    parts = [p for line in lines if "opencode" in line and "parts" in line["opencode"] for p in line["opencode"]["parts"]]
    assert any(isinstance(p, str) for p in parts)


def test_unknown_file_given_by_name_is_skipped_not_guessed(tmp_path):
    f = tmp_path / "export.json"
    f.write_text(json.dumps({"items": [{"role": "user"}], "note": "not a conversation format"}))
    summary = redact([f], tmp_path / "out")
    assert summary.skipped == [str(f)] and summary.files == 0


def test_missing_source_is_a_problem(tmp_path):
    summary = redact([tmp_path / "nope"], tmp_path / "out")
    assert summary.problems == [f"{tmp_path / 'nope'}: no such file or folder"]


def test_strict_turns_problems_into_exit_1(tmp_path):
    folder = tmp_path / "in"
    _pi_copy(folder)
    (folder / "empty.jsonl").write_bytes(b"")
    runner = CliRunner()
    ok = runner.invoke(cli, ["redact", str(folder), "--out", str(tmp_path / "a"), "--jobs", "1"])
    assert ok.exit_code == 0, ok.output
    strict = runner.invoke(cli, ["redact", str(folder), "--out", str(tmp_path / "b"), "--jobs", "1", "--strict"])
    assert strict.exit_code == 1
    assert "1 problem(s) reported and --strict was given" in strict.output
    assert _pi_done(tmp_path / "b")  # the work is done; the exit status says it was not clean


def test_wal_store_is_read_without_leaving_files(tmp_path):
    """A running harness keeps a WAL: its uncheckpointed rows are read. A closed one leaves
    none, and reading must not create -wal/-shm files beside the store."""
    db = tmp_path / "in" / "state.db"
    db.parent.mkdir()
    shutil.copy(SAMPLES / "hermes" / "state.db", db)
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("INSERT INTO sessions (id, source, started_at) VALUES ('live', 'cli', 1777300300.0)")
    writer.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('live', 'user', 'hi', 1)")
    writer.commit()
    assert Path(f"{db}-wal").exists()
    summary = redact([db], tmp_path / "out1")
    assert summary.harnesses == {"hermes": 2} and summary.problems == []
    writer.close()  # checkpoints and removes the WAL
    assert sorted(p.name for p in db.parent.iterdir()) == ["state.db"]
    summary = redact([db], tmp_path / "out2")
    assert summary.harnesses == {"hermes": 2} and summary.problems == []
    assert sorted(p.name for p in db.parent.iterdir()) == ["state.db"]


def test_lone_surrogate_escape_is_scanned_and_the_line_stays_json(tmp_path):
    """JSON allows "\\ud800" alone; no UTF-8 string holds it. The string is still scanned (the
    surrogate read as U+FFFD), the secret beside it redacted, and every line written as valid
    JSON (a line nothing changes is written back as read, escape and all)."""
    token = expand("{{github:ghp}}", random.Random(11))
    lines = CODEX.read_text().splitlines()
    rec = json.loads(lines[1])
    rec["note"] = f"lone \ud800 half, GH_TOKEN={token} and a key: \udfff"
    lines[1] = json.dumps(rec, separators=(",", ":"))  # ensure_ascii: the surrogates as \\ud800 escapes
    rec = json.loads(lines[2])
    rec["note"] = "nothing here \udbff"
    lines[2] = json.dumps(rec, separators=(",", ":"))
    src = tmp_path / "in" / CODEX.name
    src.parent.mkdir()
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    summary = redact([src], out)
    assert not [p for p in summary.problems if "failed" in p], summary.problems
    got = lines_of(next((out / "dataset" / "codex").rglob(CODEX.name)))
    assert len(got) == len(lines) + 1  # same lines, same final newline
    note = json.loads(got[1])["note"]
    assert token not in note and "<SECRET_" in note and note.startswith("lone \ufffd half")
    assert json.loads(got[2])["note"] == "nothing here \ufffd"
    assert all(json.loads(x) for x in got if x)
