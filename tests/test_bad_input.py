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
from tracepub.errors import Refusal
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
    raw.insert(
        3,
        b'{"type":"custom","id":"0badf00d","parentId":null,"timestamp":"2026-03-01T10:15:40.000Z",'
        b'"customType":"note","data":"caf\xe9 in /home/jdoe"}',
    )
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
    assert not (out / "dataset" / "hermes").exists() or not list(
        (out / "dataset" / "hermes").rglob("*.jsonl")
    )


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
    con.execute(
        "UPDATE part SET data = ? WHERE id = (SELECT id FROM part WHERE message_id = ? LIMIT 1)",
        (f"{{truncated json, token {token}", mid),
    )
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
    lines = [
        json.loads(x) for x in next((out / "dataset" / "opencode").glob("*.jsonl")).read_text().splitlines()
    ]
    parts = [
        p
        for line in lines
        if "opencode" in line and "parts" in line["opencode"]
        for p in line["opencode"]["parts"]
    ]
    assert any(isinstance(p, str) for p in parts)


def test_unknown_file_given_by_name_is_skipped_not_guessed(tmp_path):
    f = tmp_path / "export.json"
    f.write_text(json.dumps({"items": [{"role": "user"}], "note": "not a conversation format"}))
    _pi_copy(tmp_path / "in")
    summary = redact([f, tmp_path / "in"], tmp_path / "out")
    assert summary.skipped == [str(f)] and summary.files == 1
    with pytest.raises(Refusal, match=r"no sessions found; searched .*export\.json \(1 file\(s\) skipped\)"):
        redact([f], tmp_path / "out2")  # nothing else: the run has nothing to do (#9 item 10)


def test_missing_source_is_refused_before_anything_is_written(tmp_path):
    """A typo in a SOURCE gave an empty dataset and exit 0 (#9 item 10): now exit 1, one line, nothing written."""
    folder = tmp_path / "in"
    _pi_copy(folder)
    out = tmp_path / "out"
    r = CliRunner().invoke(
        cli, ["redact", str(folder), str(tmp_path / "nope"), "--out", str(out), "--jobs", "1"]
    )
    assert r.exit_code == 1, r.output
    assert r.output.strip().splitlines() == [
        f"Error: no such file or folder: {tmp_path / 'nope'}; nothing was read or written"
    ]
    assert not (out / "dataset").exists() and not (out / "review").exists()


def test_no_session_found_lists_the_places_searched(tmp_path, isolated_home):
    """No SOURCES and no sessions under HOME: exit 1, naming every default location searched."""
    (isolated_home / ".claude" / "projects").mkdir(parents=True)  # there, but empty
    r = CliRunner().invoke(cli, ["redact", "--out", str(tmp_path / "out"), "--jobs", "1"])
    assert r.exit_code == 1, r.output
    (line,) = r.output.strip().splitlines()
    assert line.startswith("Error: no sessions found; searched ") and line.endswith("; nothing was written")
    assert f"{isolated_home / '.claude' / 'projects'}, " in line  # searched, and there
    for place in (".codex/sessions", ".pi/agent/sessions", ".hermes/state.db", ".local/share/opencode"):
        assert f"{isolated_home / place}" in line, place
    assert f"{isolated_home / '.codex' / 'sessions'} (missing)" in line
    empty = tmp_path / "empty"
    empty.mkdir()
    r = CliRunner().invoke(cli, ["redact", str(empty), "--out", str(tmp_path / "out"), "--jobs", "1"])
    assert (
        r.exit_code == 1
        and r.output.strip() == f"Error: no sessions found; searched {empty}; nothing was written"
    )


def test_strict_turns_problems_into_exit_1(tmp_path):
    folder = tmp_path / "in"
    _pi_copy(folder)
    (folder / "empty.jsonl").write_bytes(b"")
    runner = CliRunner()
    ok = runner.invoke(cli, ["redact", str(folder), "--out", str(tmp_path / "a"), "--jobs", "1"])
    assert ok.exit_code == 0, ok.output
    strict = runner.invoke(
        cli, ["redact", str(folder), "--out", str(tmp_path / "b"), "--jobs", "1", "--strict"]
    )
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
    writer.execute(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('live', 'user', 'hi', 1)"
    )
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


def _nested(depth: int) -> str:
    return "[" * depth + '"x"' + "]" * depth


@pytest.mark.parametrize("depth", [500, 990, 1100, 100_000])
def test_deeply_nested_line_is_reported_as_nested_too_deep(tmp_path, depth):
    """A 100k-deep line was reported as "not JSON", and one 990 levels deep failed its whole
    file with a RecursionError (#9 item 10): now "nested too deep", kept as text and redacted."""
    token = expand("{{github:ghp}}", random.Random(depth))
    lines = CODEX.read_text().splitlines()
    rec = json.loads(lines[1])
    lines.insert(2, json.dumps(rec)[:-1] + f', "deep": {_nested(depth)}, "t": "GH_TOKEN={token}"}}')
    src = tmp_path / "in" / CODEX.name
    src.parent.mkdir()
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    summary = redact([src], out)
    assert summary.problems == [
        f"{src}:3: line is nested more than 400 levels deep; kept as plain text and scanned"
    ]
    got = lines_of(next((out / "dataset" / "codex").rglob(CODEX.name)))
    assert len(got) == len(lines) + 1 and token not in got[2] and "<SECRET_GITHUB_TOKEN_" in got[2]
    assert all(json.loads(x) for i, x in enumerate(got) if x and i != 2)


def test_deep_json_inside_a_string_is_reported_too(tmp_path):
    lines = CODEX.read_text().splitlines()
    rec = json.loads(lines[1])
    rec["arguments"] = '{"a": ' + _nested(980) + "}"  # JSON text in a string, 980 levels deep
    lines.insert(2, json.dumps(rec))
    src = tmp_path / "in" / CODEX.name
    src.parent.mkdir()
    src.write_text("\n".join(lines) + "\n")
    summary = redact([src], tmp_path / "out")
    assert summary.files == 1 and summary.problems == [
        f"{src}:3: line is nested more than 400 levels deep; kept as plain text and scanned"
    ]


def _store_of_12(path: Path) -> list[str]:
    """The sample Hermes state.db with 11 more sessions (copies of its one), messages on pages of their own."""
    shutil.copy(SAMPLES / "hermes" / "state.db", path)
    con = sqlite3.connect(path)
    (sid,) = con.execute("SELECT id FROM sessions").fetchone()
    cols = [r[1] for r in con.execute("PRAGMA table_info(messages)") if r[1] != "id"]
    for i in range(1, 12):
        new = f"{sid}_{i:02d}"
        con.execute(
            "INSERT INTO sessions SELECT ?, source, user_id, model, model_config, system_prompt, "
            "parent_session_id, started_at + ?, ended_at, end_reason, message_count, tool_call_count, "
            "input_tokens, output_tokens, cwd, git_branch, git_repo_root, title FROM sessions WHERE id = ?",
            (new, i, sid),
        )
        rest = ", ".join(c for c in cols if c != "session_id")
        con.execute(
            f"INSERT INTO messages (session_id, {rest}) SELECT ?, {rest} FROM messages WHERE session_id = ?",
            (new, sid),
        )
    con.commit()
    con.execute("VACUUM")
    ids = [r[0] for r in con.execute("SELECT id FROM sessions ORDER BY started_at, id")]
    pages = [r[0] for r in con.execute("SELECT pageno FROM dbstat WHERE name = 'messages'")]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    for page in pages:  # the messages table unreadable, the sessions table intact
        start = (page - 1) * size
        data[start : start + size] = b"\xa5" * size
    path.write_bytes(bytes(data))
    return ids


def test_corrupt_store_gives_one_message_naming_the_file_and_the_sessions_skipped(tmp_path):
    """Every session of a store whose messages cannot be read failed alike: twelve identical
    lines naming no session (#9 item 10). Now one, with the file, the error and what was skipped."""
    folder = tmp_path / "in"
    _pi_copy(folder)
    db = folder / "state.db"
    ids = _store_of_12(db)
    summary = redact([folder], tmp_path / "out")
    about = [p for p in summary.problems if "state.db" in p]
    assert about == [
        f"{db}: cannot read as Hermes (state.db): DatabaseError: database disk image is malformed; "
        f"skipped 12 session(s): {', '.join(ids[:5])} and 7 more"
    ]
    assert _pi_done(tmp_path / "out")


def test_a_line_padded_with_blanks_json_does_not_know_is_reported_not_parsed(tmp_path):
    """Python's strip() takes a vertical tab or U+0085 that JSON does not: the standard library's
    fallback then read ``\\x0b0`` as the number 0, and the line went through unreported."""
    lines = CODEX.read_text().splitlines()
    lines.insert(2, "\x0b0")
    lines.insert(3, '{"type": "note"}\x85')
    src = tmp_path / "in" / CODEX.name
    src.parent.mkdir()
    src.write_text("\n".join(lines) + "\n")
    summary = redact([src], tmp_path / "out")
    assert f"{src}:3: line is not JSON; kept as plain text and scanned" in summary.problems
    assert f"{src}:4: line is not JSON; kept as plain text and scanned" in summary.problems
    dst = next((tmp_path / "out" / "dataset" / "codex").rglob(CODEX.name))
    assert dst.read_bytes().count(b"\n") == len(lines)  # not splitlines(): it splits at \x0b and \x85
