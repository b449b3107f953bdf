"""Every harness's sample: detected as the right format, redacted, and written back in shape.

One pipeline run over sample_traces/ (module fixture) serves the per-sample checks: the planted
fake secret, email and ``jdoe`` are gone; native files keep their lines, keys and value types;
STS files are valid STS and keep every source field; JSON-encoded tool arguments still parse.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from samples import (
    SAMPLES,
    all_keys,
    check_sts,
    generator,
    lines_of,
    maybe_json,
    output_file,
    redact,
    shape,
)

from tracepub.readers import READERS, by_name, detect, reader_for_unit
from tracepub.readers.opencode import OpenCodeLegacy

GEN = generator()
PLACEHOLDER = re.compile(r"<[A-Z_]+_[0-9a-f]{8}>")
PLANTED = GEN.PLANTED
IDS = sorted(PLANTED)


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out")
    summary = redact([SAMPLES], out)
    assert summary.problems == []
    return out


def test_generator_reproduces_committed_samples():
    files = GEN.build()
    on_disk = {p.relative_to(SAMPLES).as_posix() for p in SAMPLES.rglob("*") if p.is_file()}
    on_disk -= {"generate.py", "README.md"}
    on_disk = {p for p in on_disk if "__pycache__" not in p}
    assert on_disk == set(files), "sample_traces/ differs from what generate.py makes: re-run it"
    for rel, data in files.items():
        assert GEN.same(rel, data, (SAMPLES / rel).read_bytes()), (
            f"{rel} differs: re-run sample_traces/generate.py"
        )


def test_every_harness_and_format_has_a_sample():
    harnesses = {s.harness for s in PLANTED.values()}
    assert harnesses == {r.name for r in READERS}


@pytest.mark.parametrize("rel", IDS)
def test_sample_detected_as_its_harness(rel):
    path = SAMPLES / rel
    sample = PLANTED[rel]
    if "/storage/" in rel:
        storage = path.parents[2]
        assert OpenCodeLegacy().claims_dir(storage)
        assert not any(r.claims_dir(storage) for r in READERS if not isinstance(r, OpenCodeLegacy))
        return
    reader = detect(path)
    assert reader is not None, f"{rel} not recognised"
    assert reader.name == sample.harness


def test_subagent_meta_detected_by_content(tmp_path):
    meta = next(SAMPLES.rglob("*.meta.json"))
    assert type(detect(meta)).__name__ == "ClaudeCodeMeta"
    renamed = tmp_path / "sidecar.json"
    renamed.write_bytes(meta.read_bytes())
    assert type(detect(renamed)).__name__ == "ClaudeCodeMeta"


@pytest.mark.parametrize("rel", IDS)
def test_planted_values_are_gone(out, rel):
    sample = PLANTED[rel]
    text = output_file(out, sample.harness, sample.output).read_text(encoding="utf-8")
    for secret in sample.secrets:
        assert secret not in text
    for email in sample.emails:
        assert email not in text
    assert "jdoe" not in text.lower()
    assert PLACEHOLDER.search(text)


def test_aws_secret_access_key_is_gone(out):
    rel = next(r for r in IDS if r.startswith("claude/") and "subagents" not in r)
    text = output_file(out, "claude_code", PLANTED[rel].output).read_text(encoding="utf-8")
    assert PLANTED[rel].also[0] not in text


def test_token_in_url_userinfo_is_typed_as_secret(out):
    text = output_file(out, "hermes", PLANTED["hermes/state.db"].output).read_text(encoding="utf-8")
    assert "x-access-token:<SECRET_" in text


def test_output_paths_have_no_username(out):
    for p in (out / "dataset").rglob("*"):
        assert "jdoe" not in p.relative_to(out).as_posix()


@pytest.mark.parametrize("rel", [r for r in IDS if not PLANTED[r].sts])
def test_native_shape_is_kept(out, rel):
    sample = PLANTED[rel]
    src = SAMPLES / rel
    dst = output_file(out, sample.harness, sample.output)
    if src.suffix == ".json":  # one document, written back as one
        before, after = json.loads(src.read_text()), json.loads(dst.read_text())
        assert shape(after) == shape(before)
        return
    a, b = lines_of(src), lines_of(dst)
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        if not x.strip():
            assert x == y
            continue
        assert shape(json.loads(y)) == shape(json.loads(x))


@pytest.mark.parametrize("rel", [r for r in IDS if PLANTED[r].sts])
def test_sts_output_is_valid(out, rel):
    sample = PLANTED[rel]
    lines = check_sts(output_file(out, sample.harness, sample.output))
    assert lines[0]["harness"] == sample.harness


def _db_rows(path: Path, table: str, where: str = "", args: tuple = ()) -> list[dict]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute(f"SELECT * FROM {table} {where}", args)]
    finally:
        con.close()


def test_opencode_db_keeps_every_field(out):
    rel = "opencode/opencode.db"
    db = SAMPLES / rel
    lines = check_sts(output_file(out, "opencode", PLANTED[rel].output))
    source_keys: set[str] = set()
    messages = _db_rows(db, "message")
    parts = _db_rows(db, "part")
    for table in ("session", "project", "todo"):
        for row in _db_rows(db, table):
            source_keys |= set(row)
    for row in messages + parts:
        source_keys |= set(row) | all_keys(json.loads(row["data"]))
    assert source_keys <= all_keys(lines)
    originals = [line["opencode"] for line in lines[1:] if "opencode" in line]
    assert [o["message"]["id"] for o in originals] == [m["id"] for m in messages]
    assert sum(len(o["parts"]) for o in originals) == len(parts)
    assert set(lines[0]["opencode"]) == {"session", "project", "todos"}
    # the share secret table is not read
    share = _db_rows(db, "session_share")[0]
    assert share["secret"] not in json.dumps(lines)


def test_opencode_tool_input_becomes_arguments_string(out):
    rel = "opencode/opencode.db"
    lines = check_sts(output_file(out, "opencode", PLANTED[rel].output))
    calls = [c for line in lines[1:] for c in line["message"].get("toolCalls", [])]
    assert len(calls) == 1
    args = json.loads(calls[0]["function"]["arguments"])
    assert set(args) == {"command", "description"}
    tool = [line for line in lines[1:] if line["message"]["role"] == "tool"]
    assert tool and tool[0]["message"]["toolCallId"] == calls[0]["id"]


def test_opencode_legacy_keeps_every_field(out):
    rel = next(r for r in IDS if "/storage/" in r)
    storage = (SAMPLES / rel).parents[2]
    lines = check_sts(output_file(out, "opencode", PLANTED[rel].output))
    source_keys: set[str] = set()
    docs = 0
    for p in storage.rglob("*.json"):
        source_keys |= all_keys(json.loads(p.read_text()))
        docs += 1
    assert source_keys <= all_keys(lines)
    originals = [line["opencode"] for line in lines[1:] if "opencode" in line]
    n_msgs = len(list((storage / "message").rglob("*.json")))
    n_parts = len(list((storage / "part").rglob("*.json")))
    assert len(originals) == n_msgs and sum(len(o["parts"]) for o in originals) == n_parts
    assert 3 + n_msgs + n_parts == docs  # project, session, todo


def test_hermes_db_keeps_every_field(out):
    rel = "hermes/state.db"
    db = SAMPLES / rel
    lines = check_sts(output_file(out, "hermes", PLANTED[rel].output))
    session = _db_rows(db, "sessions")[0]
    assert set(lines[0]["hermes"]["session"]) == set(session)
    rows = _db_rows(db, "messages", "ORDER BY id")
    assert len(lines) == 1 + len(rows)
    carried = {
        "role": "role",
        "content": "content",
        "tool_call_id": "toolCallId",
        "tool_calls": "toolCalls",
        "reasoning": "reasoningContent",
    }
    for row, line in zip(rows, lines[1:], strict=True):
        kept, msg = line["hermes"], line["message"]
        for col, value in row.items():
            assert col in kept or (col in carried and carried[col] in msg), (col, row)
            if col in kept and not isinstance(value, str):
                assert kept[col] == value
        assert msg["role"] == row["role"]


def test_hermes_session_log_keeps_every_turn(out):
    rel = next(r for r in IDS if r.startswith("hermes/sessions/"))
    doc = json.loads((SAMPLES / rel).read_text())
    lines = check_sts(output_file(out, "hermes", PLANTED[rel].output))
    assert set(lines[0]["hermes"]) == set(doc) - {"conversations"}
    turns = [line["hermes"] for line in lines[1:] if "hermes" in line]
    assert len(turns) == len(doc["conversations"])
    assert all(set(t) == set(s) for t, s in zip(turns, doc["conversations"], strict=True))
    roles = [line["message"]["role"] for line in lines[1:]]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert lines[3]["message"]["toolCalls"][0]["function"]["name"] == "terminal"


def test_duplicate_hermes_log_is_left_out(out):
    produced = {p.name for p in (out / "dataset" / "hermes").rglob("*.jsonl")}
    state_sessions = {r["id"] for r in _db_rows(SAMPLES / "hermes/state.db", "sessions")}
    # one output per DB session, plus the log-only session and the trajectories
    assert produced == {f"{s}.jsonl" for s in state_sessions} | {
        PLANTED[r].output for r in IDS if r.startswith("hermes/")
    }
    run = json.loads((out / "review" / "run.json").read_text())
    dups = run["summary"]["duplicates"]
    assert len(dups) == 1 and all(f"session_{s}.json" in dups[0] for s in state_sessions)


def _arguments(value, found: list[str]) -> list[str]:
    """Every string under an ``arguments`` key (tool-call arguments in all formats)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "arguments" and isinstance(v, str):
                found.append(v)
            else:
                _arguments(v, found)
    elif isinstance(value, list):
        for v in value:
            _arguments(v, found)
    return found


@pytest.mark.parametrize("rel", [r for r in IDS if PLANTED[r].arg_secret])
def test_secret_in_json_tool_argument_is_redacted_and_parses(out, rel):
    sample = PLANTED[rel]
    src_args = _arguments(
        [json.loads(x) for x in lines_of(SAMPLES / rel) if x.strip()] if not rel.endswith(".db") else [], []
    )
    dst = output_file(out, sample.harness, sample.output)
    args = _arguments([json.loads(x) for x in lines_of(dst) if x.strip()], [])
    if src_args:
        assert len(args) == len(src_args)
        assert any(sample.arg_secret in a for a in src_args)
    redacted = [a for a in args if PLACEHOLDER.search(a)]
    assert redacted, "the planted secret was inside a tool argument"
    for a in args:
        assert sample.arg_secret not in a
        assert isinstance(json.loads(a), dict)


@pytest.mark.parametrize("rel", IDS)
def test_info_describes_the_session(rel):
    """``tracepub sessions`` lists ``Reader.info``: cheap facts about a session."""
    from tracepub.sources.discover import discover

    path = SAMPLES / rel
    src = path.parents[2] if "/storage/" in rel else path
    found = discover([src])
    units = [
        u
        for u in found.units
        if u.relpath == PLANTED[rel].output or Path(u.relpath).name == PLANTED[rel].output
    ]
    assert len(units) == 1
    info = reader_for_unit(units[0]).info(units[0])
    assert info.harness == PLANTED[rel].harness
    assert info.id and info.messages >= 1 and info.size > 0
    if not rel.startswith("generic/") and "trajectory" not in rel:
        assert info.start and info.end and info.start <= info.end
    if rel.startswith(("claude/", "pi/", "codex/sessions/2026", "opencode/", "hermes/state", "gemini/")):
        assert info.project and "jdoe" in info.project


def test_info_counts():
    from tracepub.sources.discover import discover

    found = discover([SAMPLES])
    infos = {(u.harness, Path(u.relpath).name): reader_for_unit(u).info(u) for u in found.units}
    claude = next(
        i
        for (h, n), i in infos.items()
        if h == "claude_code" and not n.startswith("agent-") and n.endswith(".jsonl")
    )
    assert (claude.messages, claude.tool_calls) == (5, 3)
    gemini = next(i for (h, n), i in infos.items() if h == "gemini_cli" and n.endswith(".jsonl"))
    # the rewind drops the third message; the re-appended model message counts once
    assert (gemini.messages, gemini.tool_calls) == (4, 1)
    assert gemini.project == "/home/jdoe/src/acme-web"
    codex = next(i for (h, n), i in infos.items() if h == "codex" and "2026" in n)
    assert (codex.messages, codex.tool_calls) == (2, 2)


def test_unknown_json_is_skipped_and_reported(tmp_path):
    (tmp_path / "settings.json").write_text('{"theme": "dark", "model": "opus"}')
    (tmp_path / "rows.jsonl").write_text('{"a": 1}\n{"b": 2}\n')
    (tmp_path / "notes.txt").write_text("nothing")
    from tracepub.sources.discover import discover

    found = discover([tmp_path])
    assert found.units == []
    assert sorted(Path(p).name for p in found.skipped) == ["rows.jsonl", "settings.json"]
    # a file given by name is reported too, whatever its ending
    found = discover([tmp_path / "notes.txt"])
    assert found.units == [] and found.skipped == [str(tmp_path / "notes.txt")]


def test_detection_ignores_file_names(tmp_path):
    """Content decides: a Codex rollout renamed like a Claude session is still Codex."""
    codex = next(SAMPLES.glob("codex/sessions/2026/**/*.jsonl"))
    fake = tmp_path / "projects" / "-home-x" / "8f2c1e4a.jsonl"
    fake.parent.mkdir(parents=True)
    fake.write_bytes(codex.read_bytes())
    assert detect(fake).name == "codex"


def test_huge_first_line_is_still_detected(tmp_path):
    pi = next(SAMPLES.glob("pi/**/*.jsonl"))
    lines = pi.read_text().splitlines()
    header = json.loads(lines[0])
    header["notes"] = "x" * 200_000  # longer than the sniffing head
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert detect(big) is by_name("pi")


def test_sts_with_harness_is_not_pi(tmp_path):
    pi = next(SAMPLES.glob("pi/**/*.jsonl"))
    lines = pi.read_text().splitlines()
    header = json.loads(lines[0])
    header["harness"] = "pi"
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert detect(f).name == "sts"
    assert detect(pi).name == "pi"


def test_prose_marks_only_natural_language():
    """NER runs only on user/assistant text, never on tool output or code."""
    from tracepub.readers.base import iter_jsonl

    claude = by_name("claude_code")
    path = next(p for p in SAMPLES.glob("claude/projects/*/*.jsonl"))
    records = [r.value for r in iter_jsonl(path, [])]
    user = next(r for r in records if r.get("type") == "user")
    tool = next(r for r in records if "toolUseResult" in r)
    assert claude.is_prose(user, ("message", "content", 0, "text"))
    assert not claude.is_prose(tool, ("message", "content", 0, "content"))
    assert not claude.is_prose(tool, ("toolUseResult", "stdout"))
    assert not claude.is_prose(user, ("cwd",))
    codex = by_name("codex")
    line = {
        "type": "response_item",
        "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
    }
    assert codex.is_prose(line, ("payload", "content", 0, "text"))
    out = {"type": "response_item", "payload": {"type": "function_call_output", "output": "x"}}
    assert not codex.is_prose(out, ("payload", "output"))
    sts_line = {"type": "message", "message": {"role": "tool", "content": "x"}}
    assert not by_name("opencode").is_prose(sts_line, ("message", "content"))
    sts_line["message"]["role"] = "user"
    assert by_name("opencode").is_prose(sts_line, ("message", "content"))


def test_json_documents_written_as_one_document(out):
    for rel in IDS:
        if rel.endswith(".json") and not PLANTED[rel].sts:
            dst = output_file(out, PLANTED[rel].harness, PLANTED[rel].output)
            text = dst.read_text()
            assert maybe_json(text) is not None
            assert text.startswith("{\n  ")  # the pretty-printed style of the source


def test_claude_older_sibling_agent_file(tmp_path):
    """Older Claude Code versions wrote subagents beside the session: ``agent-<id>.jsonl``."""
    sub = next(SAMPLES.glob("claude/projects/*/*/subagents/agent-*.jsonl"))
    old = tmp_path / ".claude" / "projects" / "-home-jdoe-app" / "agent-1234abcd.jsonl"
    old.parent.mkdir(parents=True)
    old.write_bytes(sub.read_bytes())
    reader = detect(old)
    assert reader is by_name("claude_code")
    assert reader.relpath(old, tmp_path) == "-home-jdoe-app/agent-1234abcd.jsonl"


def test_relpaths_are_relative_to_the_harness_root(tmp_path):
    home = Path("/home/u")
    codex = by_name("codex")
    assert (
        codex.relpath(home / ".codex/sessions/2026/04/29/rollout-a.jsonl", home)
        == "sessions/2026/04/29/rollout-a.jsonl"
    )
    assert (
        codex.relpath(home / ".codex/archived_sessions/rollout-b.jsonl", home / ".codex/archived_sessions")
        == "archived_sessions/rollout-b.jsonl"
    )
    assert (
        by_name("pi").relpath(home / ".pi/agent/sessions/--home-u-app--/s.jsonl", home)
        == "--home-u-app--/s.jsonl"
    )
    assert (
        by_name("gemini_cli").relpath(home / ".gemini/tmp/app/chats/parent/sub.jsonl", home)
        == "app/chats/parent/sub.jsonl"
    )
    assert (
        by_name("claude_code").relpath(home / ".claude/projects/-home-u-app/s/subagents/agent-1.jsonl", home)
        == "-home-u-app/s/subagents/agent-1.jsonl"
    )


def test_records_stream_in_bounded_memory(tmp_path):
    """A JSONL session is read line by line: memory does not grow with the file."""
    import tracemalloc

    line = json.dumps(
        {
            "timestamp": "2026-04-29T10:58:44.350Z",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "call_x", "output": "y" * 2000},
        }
    )
    big = tmp_path / "rollout-big.jsonl"
    with open(big, "w") as fh:
        fh.write(lines_of(next(SAMPLES.glob("codex/sessions/2026/**/*.jsonl")))[0] + "\n")
        for _ in range(8000):  # ~16 MB
            fh.write(line + "\n")
    from tracepub.sources.discover import discover

    unit = discover([big]).units[0]
    reader = reader_for_unit(unit)
    tracemalloc.start()
    n = sum(1 for _ in reader.records(unit, []))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert n == 8001
    assert peak < 2_000_000


def test_subagents_name_their_parent_session():
    from tracepub.sources.discover import discover

    found = discover([SAMPLES / "claude"])
    infos = [reader_for_unit(u).info(u) for u in found.units if u.relpath.endswith(".jsonl")]
    main = next(i for i in infos if i.parent is None)
    sub = next(i for i in infos if i.parent is not None)
    assert sub.parent == main.id and sub.id.startswith("agent-")


def test_opencode_and_hermes_parents(tmp_path):
    import shutil

    from tracepub.sources.discover import discover

    db = tmp_path / "state.db"
    shutil.copy(SAMPLES / "hermes" / "state.db", db)
    con = sqlite3.connect(db)
    con.execute(
        "INSERT INTO sessions (id, source, started_at, parent_session_id) "
        "SELECT 'child', source, started_at + 1, id FROM sessions"
    )
    con.commit()
    con.close()
    infos = {u.key: reader_for_unit(u).info(u) for u in discover([db]).units}
    parent = next(k for k in infos if k != "child")
    assert infos["child"].parent == parent and infos[parent].parent is None


def test_gemini_subagent_names_its_parent(tmp_path):
    from tracepub.sources.discover import discover

    main = next(SAMPLES.glob("gemini/tmp/*/chats/*.jsonl"))
    lines = main.read_text().splitlines()
    meta = json.loads(lines[0])
    sub = tmp_path / "tmp" / "proj" / "chats" / meta["sessionId"] / "child-1.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_text(
        "\n".join([json.dumps({**meta, "sessionId": "child-1", "kind": "subagent"}), *lines[1:]]) + "\n"
    )
    unit = discover([tmp_path]).units[0]
    info = reader_for_unit(unit).info(unit)
    assert (info.id, info.parent) == ("child-1", meta["sessionId"])
    assert unit.relpath == f"proj/chats/{meta['sessionId']}/child-1.jsonl"


def test_claude_is_prose_equals_record_first_form():
    """ClaudeCode.is_prose tests the path before the record: the same answers as the record-first form."""
    import itertools

    def slow(record, path):
        if not isinstance(record, dict):
            return False
        if record.get("type") == "summary":
            return path == ("summary",)
        if record.get("type") not in ("user", "assistant") or record.get("isMeta"):
            return False
        if len(path) >= 2 and path[0] == "message" and path[1] == "content":
            if len(path) == 2:
                return True
            return len(path) == 4 and path[3] in ("text", "thinking")
        return False

    claude = by_name("claude_code")
    records = [
        {"type": t, **m}
        for t in ("user", "assistant", "summary", "system", None)
        for m in ({}, {"isMeta": True}, {"isMeta": False})
    ] + ["text", [1], None]
    elems = ["message", "content", "summary", "text", "thinking", 0, 1, "cwd"]
    paths = [p for n in range(6) for p in itertools.product(elems, repeat=n)]
    for record in records:
        for path in paths:
            assert claude.is_prose(record, path) == slow(record, path), (record, path)
