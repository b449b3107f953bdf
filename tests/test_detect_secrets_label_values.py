"""A label's value (``vendor SECRET value``), judged by ``values.label_value_ok``: a strong label
is a strong place, where a typed key counts (docs/design/secrets.md, "Values in a secret's
place"); a weak one wants a token-shaped value; words, ids and dotted names never count."""

from __future__ import annotations

import random

import pytest

from tracepub.detect.secrets.values import label_value_ok

_rng = random.Random(7)
_HEX = "0123456789abcdef"


def _hex(n: int) -> str:
    return "".join(_rng.choice(_HEX) for _ in range(n))


@pytest.mark.parametrize(
    "value",
    [
        "abcdef1234567890abcd",  # finnhub SECRET: a typed key
        "ABCDEFGHIJ0123456789KLMNOPQRST9876543210",
        "xyz1234567890abcdefGHIJKLMN",
        "pk_abcdefghijklmnopqrstuvwxyz1234567890abcde12345",
        "123456789ab-cd12-ef34-gh56-ijklmnopqrst",
        _hex(40),
        "kE3xPq9LmZ2vR7tYw4Ns",  # drawn
        "zyxwvutsrqponmlkjihgfedcba9876543210ZYXWVUTSRQPONM+=",  # base64's alphabet and padding
        "123456789012345678901234567890123456.XYZabcdXYZabcdXYZabcd",  # dotted, a long part
        "33333333-cccc-dddd-eeee-444444444444",  # UUID-shaped hex, not words
    ],
)
def test_a_strong_label_takes_a_typed_key(value):
    assert label_value_ok(value, strong=True)


@pytest.mark.parametrize(
    "value",
    [
        "1234ABCDEFGHIJKLMNOPQRSTUVWXYZabcd",  # toggl ACCESS: typed, token-shaped
        "abcdefabcd1234abcdefabcd",
        _hex(40),  # monkeylearn ACCESS <40 hex>: a key's length written as a label
        "987e6543-d21c-4b1d-a456-789654321abc",
    ],
)
def test_a_weak_label_takes_a_token_shaped_value(value):
    assert label_value_ok(value, strong=False)  # written as a label or assigned (insightly_key = <uuid>)


@pytest.mark.parametrize("value", ["abcdefghijklmnopqrstuvwxyzabcdef", "ZYXWVUTSRQPONMLKJIHGFEDC", "A" * 40])
def test_a_strong_label_takes_typed_letters(value):
    assert label_value_ok(value, strong=True, named=True)  # vatlayer SECRET abcdefghij...
    assert not label_value_ok(value, strong=True)  # the SECRET abcdefghij...: prose, an example
    assert not label_value_ok(value, strong=False)  # a weak label wants letters and digits


@pytest.mark.parametrize(
    ("value", "strong"),
    [
        ("abcdef12345", True),  # short
        ("store-to-its-cloudhsm-cluster-1628626947750", True),  # words and an id
        ("custom-key-store-1628627769469", True),
        ("forge.pkcs5.pbkdf2.derive", True),  # a dotted name
        ("job=2434ff47a7ec9d8a1b", True),  # a log pair
        (".eu-west-1.api.aws.example", True),  # the rest of a host name
        ("GeneralJWSInputValue", False),  # a name
        ("getSecretValueCommand2", True),
        ("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", False),  # a fill under a weak label
        ("runtime/2018-05-10", False),  # account-access-runtime/2018-05-10: a path
        ("Identity2014_11_06", True),  # CloudFrontOriginAccessIdentity2014_11_06: a name, a date
    ],
)
def test_what_a_label_value_is_not(value, strong):
    assert not label_value_ok(value, strong=strong)
