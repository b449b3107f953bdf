"""Every rule's examples must match and its negatives must not (issue: rule packs checked by tests)."""

import random

import pytest

from tracepub.detect.patterns import PatternDetector, load_rules
from tracepub.fakes import expand

RULES = load_rules()


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_examples(rule):
    assert rule.keywords, f"{rule.id} has no keywords: it would run on every string"
    assert rule.examples, f"{rule.id} has no examples"
    det = PatternDetector([rule])
    rng = random.Random(rule.id)
    for template in rule.examples:
        text = expand(template, rng)
        spans = det.scan(text, None)
        assert spans, f"{rule.id} missed its example {text!r}"
    for template in rule.negatives:
        text = expand(template, rng)
        assert not det.scan(text, None), f"{rule.id} matched its negative {text!r}"
