"""Round 2 of "Values in a secret's place" (docs/design/secrets.md): a vendor's prefix with a
masked body is redacted in a strong or password place and kept bare; and an unquoted ``word_word``
under a password name on a config line is a password, while code's variables stay code."""

from __future__ import annotations

import pytest
from secretkit import covered, secret_values

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.detect.secrets import filters

SLACK = "xoxb-0000000000-0000000000000-" + "x" * 24
TAVILY = "tvly-" + "x" * 32
GHP = "ghp_" + "x" * 36


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f'export SLACK_TOKEN="{SLACK}"', SLACK),
        (f'TAVILY_API_KEY = "{TAVILY}"', TAVILY),
        (f"token: {GHP}", GHP),
        (f'{{"access_token": "{GHP}"}}', GHP),
        ("GITLAB_TOKEN=glpat-XXXXXXXXXXX-XXXXXXXX", "glpat-XXXXXXXXXXX-XXXXXXXX"),
        (f"password: sk_test_{'0' * 24}", f"sk_test_{'0' * 24}"),
    ],
)
def test_a_masked_vendor_key_in_a_secret_place_is_redacted(engine, text, value):
    assert covered(engine, text, value), secret_values(engine, text)


@pytest.mark.parametrize(
    "text",
    [
        GHP,  # bare: how docs print a key's shape
        f"Slack bot tokens look like {SLACK}.",
        f"the token is {GHP}",  # prose
        'api_key = "xxxxxxxxxxxxxxxxxxxxxxxx"',  # no vendor's prefix: a mask
        'API_KEY="your_xxxxxxxxxxxxxxxx"',  # the prefix asks for a value
        'SECRET="xxxx-xxxxxxxxxxxx"',
        # a display mask hides a real token's tail: what is left is ids, not the secret
        '"token4": "xoxp-572370529330-573807301142-572331691188-####################"',
        "Token: gho_************************************",
    ],
)
def test_a_masked_vendor_key_without_a_place_is_a_stand_in(engine, text):
    assert secret_values(engine, text) == [], text


def test_prefixed_mask_shape():
    assert filters.prefixed_mask(SLACK) and filters.prefixed_mask(TAVILY) and filters.prefixed_mask(GHP)
    assert filters.prefixed_mask("sk-proj-" + "x" * 20)
    for v in (
        "x" * 20,
        "xxxx-" + "x" * 12,
        "your_" + "x" * 12,
        "token-" + "x" * 12,
        "ghp_xxxx",
        "ghp_" + "a" * 36,
    ):
        assert not filters.prefixed_mask(v), v
    assert filters.is_placeholder(GHP)  # the rule packs' judgement is unchanged: bare, a stand-in


@pytest.mark.parametrize(
    "text",
    [
        "user = Aladdin\npassword = open_sesame\n",
        "user = Aladdin\n// some comment\n// some other comment\npassword = open_sesame\n",
        "[db]\npassword = blue_harvest_moon\n",
    ],
)
def test_words_on_a_config_line_are_a_password(engine, text):
    value = text.rsplit(" ", 1)[1].strip()
    assert covered(engine, text, value), secret_values(engine, text)


@pytest.mark.parametrize(
    "text",
    [
        "password = get_password()\n",
        "password = self.password\n",
        "password = args.password\n",
        "password = None\n",
        "password = True\n",
        "password = null\n",
        "password = password_hash(plain)\n",
        "password = db_password\n",
        "password = user_input\n",
        "password = hashed_pw\n",
        "password = default_value\n",
        "password = open_sesame + suffix\n",
        "password = DEFAULT_PASSWORD\n",
        "password = newPassword\n",
        # after a colon: a field in Rust or TypeScript (its line end is not seen here)
        "password: encryption_algorithm,\n",
    ],
)
def test_code_under_a_password_name_stays_code(engine, text):
    assert secret_values(engine, text) == [], text
