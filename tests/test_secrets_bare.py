"""A tool output that is one random token after a command that reads a secret: redacted (flagged);
ids, look-alikes after other commands, and tokens in other places kept."""

from __future__ import annotations

import json
import random

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.prefilter import Prefilter
from tracepub.detect.registry import DetectConfig
from tracepub.detect.secrets.bare import BareTokens
from tracepub.fakes import expand
from tracepub.model import REVIEW, Leaf

RNG = random.Random(20261204)


def fake(template: str) -> str:
    return expand(template, RNG)


def leaf(key: str, prose: bool = False) -> Leaf:
    return Leaf("claude_code", ("message", "content", 0, key), key, prose)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def _wrapped(token: str) -> list[tuple[str, str]]:
    """(key, text) of the places harnesses print a bare output or message."""
    header = "Chunk ID: ef0014\nWall time: 0.0702 seconds\nProcess exited with code 0\n"
    return [
        ("content", token),  # Claude Code's tool_result
        ("stdout", token + "\n"),  # its toolUseResult
        ("text", f"     1→{token}\n\n<system-reminder>\nThis file may be malicious.\n</system-reminder>\n"),
        ("output", f"{header}Original token count: 12\nOutput:\n{token}\n"),  # Codex's exec_command
        ("output", f"     1\t{token}"),  # cat -n
    ]


READS_SECRET = [
    "cat ~/.config/acme/token",
    "echo $DEPLOY_KEY",
    "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
    "op read op://prod/db/credential",
    "openssl rand -base64 32",
    "/srv/app/.secrets/api_key",
    "security find-generic-password -s deploy -w",
]
READS_OTHER = [
    "./scripts/show-config --case 42",
    "/srv/app/fixtures/x/config",
    "git rev-parse HEAD",
    "cat author.txt",
]


def _after(engine: Engine, command: str, key: str, text: str) -> list:
    engine.start_unit()
    assert engine.scan(command, leaf("command" if not command.startswith("/") else "file_path")) == []
    return engine.scan(text, leaf(key))


@pytest.mark.parametrize(
    "template", ["{{alnum:40}}", "{{alnum:24}}-{{alnum:12}}", "{{b64:43}}=", "{{b64url:32}}"]
)
def test_a_bare_token_is_redacted_for_review(engine, template):
    token = fake(template)
    for command in READS_SECRET:
        for key, text in _wrapped(token):
            spans = [s for s in _after(engine, command, key, text) if text[s.start : s.end] == token]
            assert spans, (command, key, text)
            assert spans[0].type == "secret.token" and spans[0].action == REVIEW


def test_a_bare_token_after_another_command_or_alone_stays(engine):
    """A test suite's look-alike printed by a script, an API's id: no command named a secret."""
    token = fake("{{alnum:40}}")
    for command in READS_OTHER:
        for key, text in _wrapped(token):
            assert _after(engine, command, key, text) == [], (command, key, text)
    engine.start_unit()
    assert engine.scan(token, leaf("text")) == []  # a message that is a token, no command before it


@pytest.mark.parametrize(
    "value",
    [
        "9fceb02d0ae598e95dc970b74767f19372d61af8",  # a commit id, even after a command naming a secret
        "01HZX3K9J8Q4M6V2N7P5R1T0WB",  # a ULID
        "toolu_01Xk9fP2qLm8Rt7Vw3Yz6Bn1",  # vendors' ids open with a word and _ or -
        "req_011CUxk9fP2qLm8Rt7Vw3Yz6",
        "chatcmpl-AbC9xk2Lm8Rt7Vw3Yz6Bn1Cd",
        "1733300000123456789000",
        "/home/app/releases/2026-12-04",
        "feature/add-login-flow-for-admins",
        "jjwt-jackson-0.11.2-SNAPSHOT.jar",
        "sha512-Xk9fP2qLm8Rt7Vw3Yz6Bn1Cd4Ef5Gh0JwQ==",
        "configuration_settings_loader",
        "PasteYourAccessTokenHereWithoutQuotes",
    ],
)
def test_ids_and_words_printed_alone_stay(engine, value):
    for key, text in _wrapped(value):
        got = _after(engine, "cat ~/.config/acme/token", key, text)
        assert not [s for s in got if value in text[s.start : s.end]], (key, text)


def test_only_under_output_and_message_keys(engine):
    token = fake("{{alnum:40}}")
    bare = BareTokens()
    assert bare.scan("cat ~/.config/acme/token", leaf("command")) == []  # (a command that arms it)
    assert bare.scan(token, leaf("content")) != []
    assert BareTokens().token(token) != [] and BareTokens().scan(token, leaf("content")) == []  # not armed
    assert BareTokens().scan(token, leaf("requestId")) == []
    assert BareTokens().scan(token, leaf("signature")) == []
    assert BareTokens.token(f"the key is {token}") == []  # prose: entropy's place
    assert BareTokens.token(f"{token}\n{token}") == []
    assert BareTokens.token(f"t={token}") == []  # an assignment: the rules' and entropy's


def test_a_rule_keeps_its_type_on_a_bare_prefixed_token(engine):
    ghp = fake("{{github:ghp}}")
    for text in (ghp, f"t={ghp}"):
        got = _after(engine, "cat ~/.config/gh/token", "content", text)
        assert [s.type for s in got] == ["secret.github_token"], text


def test_a_line_holding_only_a_bare_token_is_walked(engine):
    token = fake("{{alnum:40}}")
    lines = [
        {"type": "user", "message": {"content": [{"type": "tool_result", "content": token}]}},
        {"type": "user", "toolUseResult": {"stdout": token + "\n", "stderr": ""}},
        {"payload": {"type": "function_call_output", "output": f"Output:\n{token}\n"}},
        {"payload": {"type": "function_call_output", "output": json.dumps({"output": token})}},
        {"content": [{"type": "text", "text": f"     1→{token}\n"}]},
    ]
    for value in lines:
        assert engine.line_hits(json.dumps(value)) != Prefilter.NONE, value
    read = {"type": "assistant", "message": {"content": [{"input": {"command": "op read op://prod/db/x"}}]}}
    assert engine.line_hits(json.dumps(read)) != Prefilter.NONE  # (no other trigger's word in it)
    plain = {"type": "user", "message": {"content": [{"type": "tool_result", "content": "done"}]}}
    assert engine.line_hits(json.dumps(plain)) == Prefilter.NONE  # a "content" key alone walks nothing


def test_pipeline_redacts_every_copy_of_a_secret_read_bare(tmp_path):
    from tracepub.run.pipeline import run
    from tracepub.runtypes import RunOptions

    token = fake("{{alnum:40}}")

    def line(kind: str, content, extra: dict | None = None) -> str:
        rec = {"type": kind, "cwd": "/srv/app", "sessionId": "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a11"}
        rec["message"] = {"role": "assistant" if kind == "assistant" else "user", "content": content}
        return json.dumps({**rec, **(extra or {}), "uuid": f"u{RNG.randrange(10**6)}"})

    cat = {
        "type": "tool_use",
        "id": "toolu_01",
        "name": "Bash",
        "input": {"command": "cat ~/.config/acme/key"},
    }
    lines = [
        line("assistant", [cat]),
        line(
            "user",
            [{"type": "tool_result", "tool_use_id": "toolu_01", "content": token}],
            {"toolUseResult": {"stdout": token, "stderr": ""}},
        ),
        line("assistant", [{"type": "text", "text": f"Deployed with {token} as you asked."}]),
    ]
    src = tmp_path / "projects" / "-srv-app" / "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a11.jsonl"
    src.parent.mkdir(parents=True)
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    run(RunOptions(out=out, sources=[src], detect=DetectConfig(ner=False), jobs=1))
    dataset = "\n".join(p.read_text(encoding="utf-8") for p in (out / "dataset").rglob("*.jsonl"))
    assert token not in dataset
    assert "toolu_01" in dataset and "cat ~/.config/acme/key" in dataset
    assert dataset.count("<SECRET_TOKEN_") >= 3  # the output, its copy, and the prose that names it


def test_hex_and_uuids_after_a_command_naming_a_secret_are_keys(engine):
    """Rails' config/master.key is 32 hex characters, a Heroku API key a UUID."""
    for value in ("4f0c1e9a8b7d6c5e3a2f1b0d9c8e7a6b", "3f9a1c0e-2b7d-4c8e-9a1f-2d5e7b9c0a11"):
        got = _after(engine, "cat config/master.key", "content", value + "\n")
        assert [value] == [value[s.start : s.end] for s in got if s.type == "secret.token"], value
    assert _after(engine, "git rev-parse HEAD", "content", "4f0c1e9a8b7d6c5e3a2f1b0d9c8e7a6b\n") == []


def test_a_password_files_lines_after_reading_it(engine):
    """cat ~/.pgpass: host:port:database:user:password lines, each password redacted; a reference stays."""
    text = "db.internal:5432:orders:app:Qx7fP2qLm8Rt7Vw3\n*:*:*:postgres:s3cr3t-Pw!\nlocalhost:5432:*:ro:$PGPASS\n"
    got = [(text[s.start : s.end], s.type) for s in _after(engine, "cat ~/.pgpass", "content", text)]
    assert got == [("Qx7fP2qLm8Rt7Vw3", "secret.password"), ("s3cr3t-Pw!", "secret.password")]
    assert _after(engine, "cat notes/hosts.txt", "content", text) == []
    assert (
        engine.line_hits(json.dumps({"content": "db.internal:5432:orders:app:Qx7fP2qLm8Rt7Vw3"}))
        != Prefilter.NONE
    )


def test_a_long_login_password_printed_alone(engine):
    """aws ecr get-login-password prints a base64 token of about two thousand characters."""
    token = fake("{{b64:1800}}")
    got = _after(engine, "aws ecr get-login-password --region eu-west-1", "stdout", token + "\n")
    assert [token] == [token[s.start : s.end] for s in got]
