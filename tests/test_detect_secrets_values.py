"""How a value found in a secret's place is judged (docs/design/secrets.md, "Values in a secret's
place"): in a strong or password place the value is a secret whatever its letters (a fill, a run,
hex, digits, UUID-shaped) unless it is a reference, a mask, a written stand-in or code; in a weak
place it must still look drawn; a vendor prefix makes a typed body a secret; masks stay stand-ins;
typed test keys are redacted where found but not carried through the dataset."""

from __future__ import annotations

import random

import pytest
from secretkit import TEXT, covered, secret_values

from tracepub.detect import found
from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.detect.secrets import filters

_rng = random.Random(13)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def _draw(alphabet: str, n: int) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _mixed_hex(n: int) -> str:
    while True:
        v = _draw("0123456789abcdefABCDEF", n)
        if any(c in "abcdef" for c in v) and any(c in "ABCDEF" for c in v):
            return v


_ALPHA = "abcdefghijklmnopqrstuvwxyz"
# Typed test keys in a strong place: fills, runs, counts, low-entropy hex, digits, UUID-shaped.
STRONG_TYPED = [
    ("aws_secret_access_key => {v}", "a" * 40),
    ('"client_secret":"{v}"', "a" * 23 + "-"),
    ("okta_api_token = {v}", "00" + "a" * 40),
    ("license_key: {v}", "a" * 36 + "NRAL"),
    ("SPOTIFY_API_KEY = {v}", _ALPHA + "123456"),
    ("simfin_token: {v}", _ALPHA.upper() + "123456"),
    ("APILAYER_SECRET={v}", "".join(f"{i % 10}{c}" for i, c in enumerate(_ALPHA[:16], 1))),
    ("CRM_SECRET={v}", "123456" * 5),
    ("ASANA_API_TOKEN: {v}", "1234567890123456"),
    ("ZENROWS_TOKEN = {v}", "abcdef" * 6),
    ("API_TOKEN={v}", "0987654321fedcba" * 2),
    ("LOGZ_API_TOKEN={v}", "dcba4321-10fe-32hg-54ji-lk0987654321"),
]


@pytest.mark.parametrize(("template", "value"), STRONG_TYPED)
def test_typed_value_in_a_strong_place_is_a_secret(engine, template, value):
    text = template.format(v=value)
    assert covered(engine, text, value), (text, secret_values(engine, text))


def test_a_drawn_value_holding_a_run_is_a_secret(engine):
    """A run inside a drawn token does not make the token typed (an Okta token with
    ``ABCDEFGHIJKL`` in its middle)."""
    value = "00" + _draw(_ALPHA + _ALPHA.upper() + "0123456789", 12) + "-ABCDEFGHIJKL-" + _draw(_ALPHA, 10)
    for text in (f"okta_secret:  {value}", f"Authorization: SSWS {value}"):
        assert covered(engine, text, value), text
    assert not filters.sequential(value)


def test_mixed_case_hex_under_a_weak_name_is_a_key(engine):
    value = _mixed_hex(32)
    assert covered(engine, f"box-key = {value}", value)


def test_hex_of_no_digest_length_under_a_weak_name_is_a_key(engine):
    value = _draw("0123456789abcdef", 50)
    assert covered(engine, f"acme_key = {value}", value)
    for n in (32, 40, 64):  # a hash's length under "key": a hash or an id
        digest = _draw("0123456789abcdef", n)
        assert secret_values(engine, f"acme_key = {digest}") == []


@pytest.mark.parametrize(
    "value",
    [
        "sntryu_" + "a" * 64,
        "AGE-SECRET-KEY-1" + "Q" * 58,
        "NRAK-123456788ABCDEFGHIJKLMNOPQR",
    ],
)
def test_vendor_prefix_makes_a_typed_body_a_secret(engine, value):
    assert covered(engine, f"see {value} here", value), secret_values(engine, f"see {value} here")
    assert not filters.is_placeholder(value)


KEPT = [
    # masks: x, *, #, 0 fills; a vendor's prefix with a masked body only bare, with no place (in a
    # strong or password place it is redacted: test_detect_secrets_masks.py)
    "ghp_" + "x" * 36,
    "see tvly-" + "x" * 32 + " for the shape",
    "discord=" + "0" * 18,
    "password=######",
    'api_key: "****************"',
    # written stand-ins and references
    "API_KEY=your_api_key_here",
    'client_secret = "<your-client-secret>"',
    "SECRET_TOKEN=test-api-key-12345",
    '"password": "$password"',
    "auth_token = ${AUTH_TOKEN}",
    # weak names still want a drawn value
    "key = " + _ALPHA + "123456",
    "lookup_key = " + "a" * 32,
    "key: " + "".join(_rng.choice("0123456789abcdef") for _ in range(32)),
    # integrity and identifiers under key-ish names
    '"integrity": "sha512-' + "A" * 86 + '=="',
    "checksum: " + "0123456789abcdef" * 4,
    '"commit": "' + "a1" * 20 + '"',
    '"etag": "' + "abcdef" * 5 + '"',
    # an ARN's tail after its secret's service
    '"ARN": "arn:aws:secretsmanager:us-west-2:123456789012:secret:MyTestDatabaseSecret-a1b2c3"',
]


@pytest.mark.parametrize("text", KEPT)
def test_stand_ins_masks_and_identifiers_are_kept(engine, text):
    assert secret_values(engine, text) == [], text


@pytest.mark.parametrize("value", ["12345678901234567890", "a" * 40, _ALPHA + "123456", "a1b2c3d4e5f6g7h8"])
def test_a_typed_test_key_is_carried_as_a_whole_token(value):
    """Redacted at its other copies, but only as a whole token: inside a longer digit run or
    alphabet string it is not the same value, and carried there it would eat them all."""
    fv = found.FoundValues({value: ("secret.generic", "redacted")})
    alone = f'other = "{value}"'
    inside = f"x = '0{value}9abc'"
    assert [alone[s.start : s.end] for s in fv.scan(alone, TEXT)] == [value]
    assert fv.scan(inside, TEXT) == []
    drawn = _draw(_ALPHA + "0123456789", 24)
    fv = found.FoundValues({drawn: ("secret.generic", "redacted")})
    assert fv.scan(f"x{drawn}y", TEXT)  # a drawn key inside a longer string is still the key


def test_filler_and_sequences():
    assert filters.is_filler("a" * 20)
    assert filters.is_filler(_ALPHA + "0123456789")
    assert filters.is_filler("1a2b3c4d5e6f7g8h")
    assert filters.is_mask("ghp_" + "x" * 36) and not filters.is_mask("ghp_" + "a" * 36)
    drawn = _draw(_ALPHA + "0123456789", 30)
    assert not filters.is_filler(drawn) and not filters.sequential(drawn)
    assert filters.sequential("qwertyuiop") and filters.sequential("9876543210")
