"""Token shapes Kingfisher's rules named and no rule here had: a vendor prefix specific enough to
carry the match by itself (FullStory's region and dot, dfuse's ``web_``, Ionic's ``ion_``, any
body after Slack's ``xox?-``), a JWT-shaped vendor token whose first part is no base64 JSON, and
an encrypted PEM key whose body opens with short lines. Each is planted as a generated fake in
text and must come out as one placeholder of its type, the whole value gone."""

from __future__ import annotations

import random

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.fakes import expand
from tracepub.redact.placeholders import Namer
from tracepub.redact.redactor import Redactor

KEY = b"k" * 32


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    r = Redactor(Engine(DetectConfig(ner=False)), Namer(KEY))
    r.start_unit("a.jsonl", "claude_code", None)
    return r


SHAPES = {
    "fullstory": ("na1.{{b64:100}}", "secret.fullstory_key"),
    "fullstory-eu": ("eu1.{{b64:96}}==", "secret.fullstory_key"),
    "dfuse": ("web_{{lowerhex:32}}", "secret.dfuse_key"),
    "ionic": ("ion_{{alnum:42}}", "secret.ionic_token"),
    "slack-letters": ("xoxb-{{upperdigits:8}}-{{alnum:12}}-{{alnum:32}}", "secret.slack_token"),
    "slack-user-letters": ("xoxp-{{hex:10}}-{{alnum:14}}-{{alnum:40}}", "secret.slack_token"),
    "ey-three-parts": ("ey{{alnum:34}}.ey{{alnum:154}}.{{b64url:43}}", "secret.token"),
    "ey-long-parts": ("ey{{b64url:110}}.{{b64url:40}}.ey{{b64url:900}}", "secret.token"),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize(
    "frame",
    ["{v}", "see {v} now", "API_KEY={v}\n", '{{"token": "{v}"}}'],
    ids=["bare", "prose", "env", "json"],
)
def test_a_prefixed_shape_becomes_its_placeholder(redactor, name, frame):
    template, type_ = SHAPES[name]
    value = expand(template, random.Random(name))
    out = redactor.redact_text(frame.format(v=value))
    assert value not in out and value[-16:] not in out
    assert out == frame.format(v=Namer(KEY).placeholder(type_, value))


def test_an_encrypted_pem_key_goes_whole(redactor):
    rnd = random.Random(3)
    lines = [expand(f"{{{{b64:{n}}}}}", rnd) for n in (4, 14, 21, 29, 40, 64, 3)]
    block = (
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
        f"DEK-Info: AES-256-CBC,{expand('{{hex:32}}', rnd).upper()}\n\n"
        + "\n".join(lines)
        + "\n-----END RSA PRIVATE KEY-----"
    )
    text = f"key.pem holds:\n{block}\nthat is all"
    out = redactor.redact_text(text)
    assert out == f"key.pem holds:\n{Namer(KEY).placeholder('secret.private_key', block)}\nthat is all"


@pytest.mark.parametrize(
    "text",
    [
        "na1.example.com serves the API",
        "web_server_configuration_default_x",
        "web_00000000000000000000000000000000",
        "xoxb-your-bot-token-goes-here",
        "xoxb-1-2-3-4-5-6-7-8-9-10-11-12",
        "eyebrow_component_styles.render_eyebrow_component",
        "keyboard_layout_switcher_v2.register_shortcuts_table",
        "-----BEGIN RSA PRIVATE KEY-----\nYOUR KEY\nHERE\n-----END RSA PRIVATE KEY-----",
        "the -----BEGIN RSA PRIVATE KEY----- line is followed by base64encodedkeymaterial",
    ],
)
def test_look_alikes_stay(redactor, text):
    assert redactor.redact_text(text) == text
