"""An unterminated private-key block (a file read cut short, a YAML value) ends at the file's
next ``key:`` line: base64 has no colon. Running to the end of the string swallowed the next
keys, and one placeholder among them (``webhook_secret: <token>``) made the whole match a
placeholder: the key's body was left in clear."""

from __future__ import annotations

import random

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.fakes import expand
from tracepub.model import Leaf


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


@pytest.mark.parametrize(
    "sep",
    ["\n", "\\n", "\\\\n     4\\u2192", "\\n     5→"],
    ids=["lines", "escaped", "numbered-escaped", "numbered"],
)
def test_a_cut_key_block_in_yaml_is_redacted_and_the_next_keys_kept(engine, sep):
    rnd = random.Random(11)
    b1, b2 = expand("{{b64:64}}", rnd), expand("{{b64:64}}", rnd)
    head = "integrations:\n  private_key: -----BEGIN RSA PRIVATE KEY-----"
    tail = '\n  cloudflare_region: "eu"\n  webhook_secret: <token>\nimage:\n  build: 42\n'
    text = head + sep + b1 + sep + b2 + sep + tail
    spans = [
        s for s in engine.scan(text, Leaf("gemini_cli", ("x",), "output")) if s.type == "secret.private_key"
    ]
    assert len(spans) == 1
    covered = text[spans[0].start : spans[0].end]
    assert b1 in covered and b2 in covered
    assert "cloudflare_region" not in covered and "webhook_secret" not in covered
