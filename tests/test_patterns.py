"""Every rule's examples must match and its negatives must not (issue: rule packs checked by tests)."""

import random
import re

import pytest

from tracepub.detect.secrets.patterns import PatternDetector
from tracepub.detect.secrets.rules import HIGH_CONFIDENCE, UNBOUNDED, load_rules, parse_rules
from tracepub.fakes import expand

RULES = load_rules()


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_examples(rule):
    assert rule.keywords, f"{rule.id} has no keywords: it would run on every string"
    assert all(k == k.lower() and k for k in rule.keywords)
    assert rule.examples, f"{rule.id} has no examples"
    assert rule.type.startswith("secret.") and re.fullmatch(r"secret\.[a-z0-9_]+", rule.type)
    det = PatternDetector([rule])
    rng = random.Random(rule.id)
    for template in rule.examples:
        text = expand(template, rng)
        spans = det.scan(text, None)
        assert spans, f"{rule.id} missed its example {text!r}"
        # The prefilter's promise: every match contains one of the rule's keywords, so a rule
        # that only runs near its keywords misses nothing.
        for m in rule.regex.finditer(text):
            assert any(k in m.group(0).lower() for k in rule.keywords), (
                f"{rule.id}: {m.group(0)!r} has no keyword"
            )
        # Windowed scanning finds the same as a whole-text scan, also inside longer text.
        padded = "x = 1\n" * 50 + text + "\n" + "y = 2\n" * 50
        whole = PatternDetector.apply(rule, padded)
        assert [(s.start, s.end) for s in det.scan(padded, None)] == [(s.start, s.end) for s in whole]
    for template in rule.negatives:
        text = expand(template, rng)
        assert not det.scan(text, None), f"{rule.id} matched its negative {text!r}"


def test_pack_size_and_ids():
    assert len(RULES) >= 150
    assert len({r.id for r in RULES}) == len(RULES)
    # families are split by file
    assert len({r.source for r in RULES}) >= 5


def test_most_rules_are_windowed():
    """Unbounded rules scan whole texts; keep them to the few formats that need it (PEM blocks)."""
    unbounded = [r.id for r in RULES if r.width >= UNBOUNDED]
    assert len(unbounded) <= 3, unbounded


def test_prefix_rules_block_publish_context_rules_do_not():
    high = PatternDetector(RULES, min_confidence=HIGH_CONFIDENCE)
    assert all(r.confidence >= HIGH_CONFIDENCE for r in high.rules)
    ids = {r.id for r in high.rules}
    assert "github-pat" in ids and "private-key" in ids
    assert "mistral-api-key" not in ids and "url-password" not in ids


def test_bad_checksum_is_kept_but_not_high_confidence():
    from tracepub.fakes import github_token

    good = github_token(random.Random(1))
    bad = good[:-1] + ("A" if good[-1] != "A" else "B")
    det = PatternDetector(RULES)
    (g,) = [s for s in det.scan(good, None) if s.type == "secret.github_token"]
    (b,) = [s for s in det.scan(bad, None) if s.type == "secret.github_token"]
    assert g.confidence >= 0.99 and b.confidence < HIGH_CONFIDENCE
    assert not PatternDetector(RULES, min_confidence=HIGH_CONFIDENCE).scan(bad, None)


def test_doc_examples_and_placeholders_are_not_matched():
    det = PatternDetector(RULES)
    for text in (
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "token: ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    ):
        assert not det.scan(text, None), text


def test_context_rule_builds_assignment_forms():
    (rule,) = parse_rules(
        {
            "rules": [
                {
                    "id": "acme",
                    "type": "secret.acme",
                    "context": "acme",
                    "value": "[a-z0-9]{20}",
                    "keywords": ["acme"],
                    "examples": ["x"],
                }
            ]
        },
        "t",
    )
    det = PatternDetector([rule])
    v = "k3j5h6g7f8d9s0a1q2w3"
    for text in (
        f"ACME_KEY={v}",
        f'"acme_token": "{v}"',
        f"acme.secret: '{v}'",
        f"export ACME_TOKEN={v}",
        f'{{\\"acme_key\\": \\"{v}\\"}}',
        f'acme_key := "{v}"',
        f"'acme_key' => '{v}',",
    ):
        spans = det.scan(text, None)
        assert [text[s.start : s.end] for s in spans] == [v], text
    assert not det.scan(f"ACME_KEY={v}x", None)  # a longer value is another shape


def test_unknown_validator_is_an_error():
    with pytest.raises(ValueError):
        parse_rules(
            {
                "rules": [
                    {"id": "x", "type": "secret.x", "regex": "x", "keywords": ["x"], "validator": "nope"}
                ]
            },
            "t",
        )


def test_bundled_rules_compiled_when_used_are_the_rules_compiled_at_load():
    """Bundled rules compile their regex when first used (serial start-up); a rule loaded that
    way has the same regex, secret group, width and literal start as one compiled at load, and
    a user's rule with a bad regex is still an error when loaded."""
    import tomllib
    from importlib import resources

    pack = resources.files("tracepub.patterns")
    for entry in sorted(pack.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".toml"):
            continue
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
        lazy, eager = parse_rules(data, entry.name, lazy=True), parse_rules(data, entry.name)
        assert lazy and "regex" not in vars(lazy[0]) and "regex" in vars(eager[0])
        for a, b in zip(lazy, eager, strict=True):
            assert (a.regex.pattern, a.regex.flags, a.secret_group, a.width, a.literal) == (
                b.regex.pattern,
                b.regex.flags,
                b.secret_group,
                b.width,
                b.literal,
            ), a.id
    with pytest.raises(ValueError, match="bad rule x"):
        parse_rules({"rules": [{"id": "x", "type": "secret.x", "regex": "x(", "keywords": ["x"]}]}, "t")
