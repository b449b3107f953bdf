"""One type per kind of secret, whichever detector found it (#8).

detect-secrets names its findings in prose (``NPM tokens``, ``JSON Web Token``, ``AWS Access
Key``); normalised as they were, a report listed ``secret.npm_tokens`` beside the rule pack's
``secret.npm_token`` and ``secret.json_web_token`` beside ``secret.jwt``: two rows, two
placeholder labels for one kind. The plugins' findings now take the pack's type.
"""

from __future__ import annotations

import random
import re

import pytest

from tracepub.detect.secrets.rules import load_rules
from tracepub.detect.secrets.secrets_ds import DetectSecrets
from tracepub.fakes import expand, github_token
from tracepub.model import Leaf

TEXT = Leaf("test", ("text",), None, False)
RNG = random.Random(81)


@pytest.fixture(scope="module")
def ds() -> DetectSecrets:
    return DetectSecrets()


@pytest.fixture(scope="module")
def rule_types() -> set[str]:
    return {r.type for r in load_rules()}


def _types(ds: DetectSecrets, text: str) -> set[str]:
    return {s.type for s in ds.scan(text, TEXT)}


def _stem(t: str) -> str:
    """A type with plural and filler words folded away: what makes two names one kind."""
    t = re.sub(r"^secret\.", "", t)
    t = re.sub(r"(?:_access)?_(?:keys?|tokens?|credentials|secret|api_key)$", "", t)
    return t.replace("json_web", "jwt")


def test_plugin_findings_take_the_rule_packs_type(ds, rule_types):
    cases = {
        "secret.npm_token": f"//registry.npmjs.org/:_authToken={github_token(RNG, 'npm')}",
        "secret.stripe_key": f"stripe = {expand('sk_live_{{alnum:24}}', RNG)}",
        "secret.github_token": f"GH={github_token(RNG, 'ghp')}",
        "secret.aws_access_key_id": f"id = {expand('AKIA{{upperdigits:16}}', RNG)}",
        "secret.aws_secret_access_key": f'aws_secret_key = "{expand("{{b64:40}}", RNG)}"',
    }
    for want, text in cases.items():
        got = _types(ds, text)
        assert want in got, (text, got)
        assert want in rule_types, want


def test_no_plugin_type_doubles_a_rule_type(ds, rule_types):
    """Every plugin type is the pack's own, or a kind the pack has no type of the same stem for."""
    stems = {_stem(t): t for t in rule_types}
    for plugin, type_, _ in ds._regex:
        if type_ in rule_types:
            continue
        assert _stem(type_) not in stems, (plugin, type_, stems[_stem(type_)])
