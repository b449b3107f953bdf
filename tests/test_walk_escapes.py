"""Escapes never hide a value (#8 item 6).

JSON the walker cannot parse (cut short by a tool, nested too deep, written inside other text)
and ``\\uXXXX`` / ``\\/`` escapes are decoded for detection (``tracepub.walk.escapes``): a key
spelled ``\\u0041KIA...``, a token with an escaped slash, a value inside escaped quotes are found,
and what is not redacted keeps its bytes. Checked on the walker with the real detection engine,
on the offset bookkeeping alone, and end to end on a Claude Code session.
"""

from __future__ import annotations

import json
import random

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.fakes import expand
from tracepub.model import Leaf
from tracepub.walk import escapes
from tracepub.walk.walker import Walker

RNG = random.Random(6)


@pytest.fixture(scope="module")
def walker() -> Walker:
    engine = Engine(DetectConfig(ner=False))

    def visit(text: str, path: tuple, key: str | None) -> str:
        spans = engine.scan(text, Leaf("claude_code", path, key, False))
        if not spans:
            return text
        out, last = [], 0
        for s in sorted(spans, key=lambda s: s.start):
            out += [text[last : s.start], f"<{s.type.upper().replace('.', '_')}_1a2b3c4d>"]
            last = s.end
        return "".join(out + [text[last:]])

    return Walker(visit)


def redact(walker: Walker, text: str) -> str:
    return walker.walk({"content": text})["content"]


def test_unicode_escape_inside_a_key(walker):
    """``\\u0041KIA...``: an AWS key id with its first letter escaped (JSON with ensure_ascii, once
    or twice), in JSON cut short and in code."""
    key = "AKIA" + expand("{{upperdigits:16}}", RNG)
    escaped = "\\u0041" + key[1:]
    for text in (
        f'{{"output": "export AWS_ACCESS_KEY_ID={escaped}\\nexport X=1", "trunc',
        f'{{"output": "AWS_ACCESS_KEY_ID=\\\\u0041{key[1:]}", "cut',
        f'const id = "{escaped}";',
    ):
        out = redact(walker, text)
        assert key[4:] not in out and "<SECRET_" in out, (text, out)


def test_escaped_slash_inside_a_token(walker):
    """``Uu0U\\/o72...``: a base64 token with its slash escaped, under a token key of JSON cut short."""
    token = expand("{{alnum:10}}", RNG) + "\\/" + expand("{{alnum:30}}", RNG)
    text = f'{{"token": "{token}", "expires_in": 3600, "scope": "repo'
    out = redact(walker, text)
    assert token.split("\\/")[1] not in out and out.startswith('{"token": "<SECRET_'), out
    assert out.endswith('", "expires_in": 3600, "scope": "repo')


def test_value_inside_escaped_quotes(walker):
    """JSON written inside text (ShareGPT and Hermes tool responses): ``x = \\"v\\"``."""
    value = expand("{{lowerdigits:30}}", RNG)
    text = f'<tool_response>{{"content": "asana_TOKEN ?= \\"{value}\\""}}</tool_response>'
    out = redact(walker, text)
    assert value not in out
    assert out.startswith('<tool_response>{"content": "asana_TOKEN ?= \\"<SECRET_') and out.endswith(
        '\\""}</tool_response>'
    )


def test_json_too_deep_to_parse(walker):
    """Deeper than the parsers go: its literals are still read, under their keys."""
    secret = expand("{{alnum:32}}", RNG)
    text = '{"a": ' * 1200 + f'{{"client_secret": "{secret}\\n"}}' + "}" * 1200
    out = redact(walker, text)
    assert secret not in out and "<SECRET_" in out


def test_untouched_text_keeps_its_escapes(walker):
    """No finding: the same object back; a finding elsewhere: the other escapes as written."""
    plain = '{"path": "C:\\\\Program Files\\\\tool", "url": "https:\\/\\/example.com\\/a", "e": "caf\\u00e9", "cut'
    doc = {"content": plain}
    assert walker.walk(doc) is doc
    gh = expand("{{github:ghp}}", RNG)
    out = redact(walker, plain + f' and "token": "{gh}"')
    assert gh not in out and out.startswith(plain)


def test_decode_and_carry_back():
    """The offset map: replacements over decoded text land over the escapes they came from; a
    kept piece that also occurs inside a replaced value does not cut it short."""
    text = 'k="\\u0041B\\/C" and \\/x \\ud83d\\ude00 end'
    decoded, starts = escapes.decode(text)
    assert decoded == 'k="AB/C" and /x \U0001f600 end'
    assert (
        escapes.carry_back(text, decoded, starts, decoded.replace("AB/C", "<SECRET_X_1a2b3c4d>"))
        == 'k="<SECRET_X_1a2b3c4d>" and \\/x \\ud83d\\ude00 end'
    )
    # " and " also occurs inside the secret: placed from both sides the pieces disagree -> decoded text
    text2 = "v=\\u0041 and B and c"
    decoded2, starts2 = escapes.decode(text2)
    redacted2 = decoded2.replace("A and B", "<S>")
    assert escapes.carry_back(text2, decoded2, starts2, redacted2) == "v=<S> and c"


def test_truncated_output_end_to_end(tmp_path):
    """A Claude Code tool result that is JSON cut mid-token: the token's prefix shape is enough,
    the dataset stays valid JSONL with the same number of lines."""
    from tracepub.run.pipeline import RunOptions, run

    gh = expand("{{github:ghp}}", RNG)[:25]
    aws = "\\u0041KIA" + expand("{{upperdigits:16}}", RNG)
    output = json.dumps({"items": [{"id": i, "note": "x" * 40} for i in range(30)]})[:-2]
    output += f', {{"env": "AWS_ACCESS_KEY_ID={aws}\\nGITHUB_TOKEN={gh}'  # cut here
    rec = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/srv/app",
        "sessionId": "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a12",
        "version": "2.1.74",
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": output}],
        },
        "uuid": "u1",
        "timestamp": "2026-03-12T13:17:35.480Z",
    }
    src = tmp_path / "projects" / "-srv-app" / "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a12.jsonl"
    src.parent.mkdir(parents=True)
    src.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    run(RunOptions(out=out, sources=[src], detect=DetectConfig(ner=False), jobs=1))
    (written,) = list((out / "dataset").rglob("*.jsonl"))
    lines = written.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    content = json.loads(lines[0])["message"]["content"][0]["content"]
    assert gh[4:] not in content and aws[6:] not in content, content[-200:]
    assert content.startswith('{"items": [{"id": 0, "note": "' + "x" * 40)
