"""Whole-session denial: a session mentioning a denied name anywhere (a key, JSON encoded inside a
tool argument, its file path) never reaches dataset/, and the summary shows the rule and a
masked match, never the match in clear."""
# ruff: noqa: F811 - the utc fixture is imported from test_sessions

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from test_sessions import SID_A, SID_B, SID_C, claude_session, utc  # noqa: F401

from tracepub.cli import cli
from tracepub.model import Record
from tracepub.selection.deny import Denied, DenyMatcher, DenyRule, mask, parse_rules
from tracepub.walk.walker import loads

# -- the matcher ----------------------------------------------------------------------------------


def denied(rules: list[str], line: str) -> str | None:
    """The masked match if the JSON line is denied, else None (through check_record)."""
    m = DenyMatcher(parse_rules(rules, "test"))
    try:
        m.check_record(Record(1, loads(line), raw=line))
    except Denied as d:
        return d.hit.to_json()["masked"]
    return None


def test_plain_rules_are_case_insensitive_substrings():
    assert denied(["client corp"], json.dumps({"text": "Meeting with CLIENT CORP today"})) == "CL…RP"
    assert denied(["Client Corp"], json.dumps({"text": "clientcorp"})) is None


def test_regex_rules_are_case_sensitive_unless_they_say_so():
    line = json.dumps({"host": "db.INTERNAL.acme.example"})
    assert denied([r"re:internal\.acme\.example"], line) is None
    assert denied([r"re:(?i)internal\.acme\.example"], line) == "IN…le"
    assert denied([r"re:\bCONFIDENTIAL\b", r"re:secret-[0-9]+"], json.dumps({"a": "x secret-42"})) == "se…42"


def test_keys_and_json_inside_strings_are_searched():
    assert denied(["Client Corp"], json.dumps({"Client Corp": 1})) is not None
    inner = json.dumps({"query": "SELECT * FROM accounts WHERE owner = 'Client Corp'"})
    call = {"type": "function_call", "name": "sql", "arguments": inner}
    assert denied(["client corp"], json.dumps(call)) is not None
    twice = json.dumps({"args": json.dumps({"payload": json.dumps({"who": "Client Corp"})})})
    assert denied(["client corp"], twice) is not None


def test_escaped_characters_cannot_hide_a_name():
    # The raw line never contains "Client Corp" literally: JSON escapes spell it.
    hidden = '{"text": "\\u0043lient \\u0043orp"}'
    assert loads(hidden)["text"] == "Client Corp"
    assert denied(["client corp"], hidden) is not None
    nested = json.dumps({"arguments": '{"q": "\\u0043lient Corp"}'})  # escaped one level down
    assert denied(["client corp"], nested) is not None
    slash = '{"url": "https:\\/\\/acme.example\\/internal"}'
    assert denied(["acme.example/internal"], slash) is not None
    kelvin = '{"t": "\\u212acme"}'  # KELVIN SIGN lower-cases to "k"
    assert denied(["kcme"], kelvin) is not None
    go_style = '{"t": "a \\u003cb\\u003e tag"}'  # Go escapes < and >
    assert denied(["<b>"], go_style) is not None


def test_the_raw_line_shortcut_agrees_with_a_full_walk():
    rng = random.Random(7)
    pieces = [
        "Client Corp",
        "client  corp",
        "CLIENT CORP",
        "Cl\u00efent",
        "\\u0043lient Corp",
        "x",
        "\u212a",
        "<b>",
        "https://acme.example/internal",
        "\n",
        '"',
        "é",
        "corp",
    ]
    rules = parse_rules(["client corp", "acme.example/internal", "<b>", "kcme"], "test")
    m = DenyMatcher(rules)
    for _ in range(400):
        value = {
            "a": "".join(rng.choice(pieces) for _ in range(4)),
            "b": [
                json.dumps(
                    {"c": "".join(rng.choice(pieces) for _ in range(3))}, ensure_ascii=rng.random() < 0.5
                )
            ],
        }
        line = json.dumps(value, ensure_ascii=rng.random() < 0.5)
        if rng.random() < 0.3:
            line = line.replace("/", "\\/")
        full = slow = None
        try:
            m.check_record(Record(1, loads(line), raw=line))
        except Denied as d:
            full = d.hit.rule
        try:
            m.check_value(loads(line), "x")
        except Denied as d:
            slow = d.hit.rule
        assert (full is None) == (slow is None), line


def test_opaque_blobs_are_not_searched():
    data = "iVBORw0KGgo" + "ClientCorp" * 8 + "AAAA"
    block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
    assert denied(["clientcorp"], json.dumps(block)) is None


def test_rule_validation_and_mask():
    with pytest.raises(ValueError, match="not a valid regex"):
        parse_rules(["re:(unclosed"], "--deny")
    with pytest.raises(ValueError, match="empty"):
        parse_rules(["  "], "--deny")
    with pytest.raises(ValueError, match="empty string"):
        parse_rules(["re:x*"], "--deny")
    assert mask("Client Corp") == "Cl…rp" and mask("acme") == "a…"
    assert DenyRule("re:a+b").is_regex and DenyRule("re:a+b").pattern == "a+b"


# -- end to end -----------------------------------------------------------------------------------


def every_file(out):
    return [p for p in (out / "dataset").rglob("*") if p.is_file()]


def run_cli(*args):
    return CliRunner().invoke(cli, ["redact", *map(str, args), "--no-ner", "-j", "1", "--json"])


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "projects"
    # A: the name only inside a JSON-encoded tool result, spelled with escapes one level down
    claude_session(
        root,
        "/home/jdoe/src/app",
        SID_A,
        "2026-03-01T10:00:00Z",
        "2026-03-01T11:00:00Z",
        tool_output='{"rows": [{"customer": "\\u0043LIENT CORP Ltd", "id": 7}]}',
    )
    # B: clean
    claude_session(
        root,
        "/home/jdoe/src/tool",
        SID_B,
        "2026-03-02T10:00:00Z",
        "2026-03-02T11:00:00Z",
        text="refactor the parser",
    )
    # C: the name only in a subagent transcript
    claude_session(
        root,
        "/home/jdoe/src/web",
        SID_C,
        "2026-03-03T10:00:00Z",
        "2026-03-03T11:00:00Z",
        subagent_text="check the client corp staging box",
    )
    return root


def test_denied_sessions_never_reach_dataset(corpus, tmp_path):
    out = tmp_path / "out"
    res = run_cli(corpus, "--out", out)  # first without rules: everything is written
    assert res.exit_code == 0, res.output
    assert sum(SID_A in str(p) for p in every_file(out)) == 1

    res = run_cli(corpus, "--out", out, "--deny", "Client Corp")
    assert res.exit_code == 0, res.output
    files = every_file(out)
    assert [p.name for p in files if p.suffix == ".jsonl"] == [f"{SID_B}.jsonl"]  # no temp, no partial
    for p in files:
        assert "client corp" not in p.read_text(encoding="utf-8").lower()
    summary = json.loads(res.stdout)
    by_session = {d["session"]: d for d in summary["denied"]}
    assert set(by_session) == {SID_A, SID_C}
    a = by_session[SID_A]
    assert a["rule"] == "Client Corp" and a["origin"] == "--deny" and a["masked"] == "CL…RP"
    assert a["where"].startswith("record ")
    assert len(by_session[SID_C]["files"]) == 2  # the subagent took its session along
    # the match as it appeared is nowhere in clear; the rule text never reaches manifest or card
    for text in (
        res.stdout,
        (out / "review" / "run.json").read_text(),
        (out / "review" / "report.html").read_text(),
        (out / "review" / "findings.jsonl").read_text(),
    ):
        assert "CLIENT CORP" not in text and "client corp staging" not in text
    manifest = (out / "manifest.json").read_text()
    card = (out / "dataset" / "README.md").read_text()
    assert "Client Corp" not in manifest and "Client Corp" not in card
    assert json.loads(manifest)["selection"]["counts"]["denied"] == 2
    assert json.loads(manifest)["selection"]["criteria"] == {"deny_rules": 1}
    assert "2 left out by deny rules" in card
    assert SID_A not in (out / "review" / "findings.jsonl").read_text()


def test_deny_matches_the_file_path(tmp_path):
    root = tmp_path / "projects"
    path = claude_session(root, "/home/jdoe/src/x", SID_A, "2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z")
    target = root / "-home-jdoe-src-clientcorp-api"
    path.parent.rename(target)
    claude_session(root, "/home/jdoe/src/y", SID_B, "2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z")
    out = tmp_path / "out"
    res = run_cli(root, "--out", out, "--deny", "ClientCorp")
    assert res.exit_code == 0, res.output
    assert [p.name for p in every_file(out) if p.suffix == ".jsonl"] == [f"{SID_B}.jsonl"]
    [d] = json.loads(res.stdout)["denied"]
    assert d["where"] == "path" and d["masked"] == "cl…rp"
    assert "clientcorp" not in d["file"] and "cl…rp" in d["file"]


def test_deny_rules_from_config_and_regex(corpus, tmp_path):
    cfg = tmp_path / "tracepub.toml"
    cfg.write_text('deny = ["re:staging box", "nothing-here"]\n', encoding="utf-8")
    out = tmp_path / "out"
    res = run_cli(corpus, "--out", out, "--config", cfg)
    assert res.exit_code == 0, res.output
    [d] = json.loads(res.stdout)["denied"]
    assert d["session"] == SID_C and d["rule"] == "re:staging box" and d["origin"].endswith("tracepub.toml")
    cfg.write_text('deny = ["re:(bad"]\n', encoding="utf-8")
    res = run_cli(corpus, "--out", out, "--config", cfg)
    assert res.exit_code == 1 and "not a valid regex" in res.output


def test_bad_deny_option_is_a_usage_error(corpus, tmp_path):
    res = run_cli(corpus, "--out", tmp_path / "o", "--deny", "re:[")
    assert res.exit_code == 2 and "not a valid regex" in res.output


def test_deny_with_worker_processes(corpus, tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(
        cli,
        ["redact", str(corpus), "--out", str(out), "--no-ner", "-j", "2", "--json", "--deny", "client corp"],
    )
    assert res.exit_code == 0, res.output
    assert {d["session"] for d in json.loads(res.stdout)["denied"]} == {SID_A, SID_C}
    assert [p.name for p in every_file(out) if p.suffix == ".jsonl"] == [f"{SID_B}.jsonl"]
