"""bench/recall_shapes.py's drawing of values from other suites' capture patterns, on hand-written
rules in their format (no checkout of those repositories needed)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import recall_shapes  # noqa: E402

RULE = r"""(?xi)
    \b
    acme
    (?:.|[\n\r]){0,32}?
    (?:SECRET|KEY|TOKEN)
    (?:.|[\n\r]){0,32}?
    \b
    (
      [a-z0-9]{32}
    )
    \b
"""


def test_the_secret_capture_is_read_with_its_flags():
    pattern, flags = recall_shapes._capture(RULE)
    assert flags & re.IGNORECASE and flags & re.VERBOSE
    assert re.fullmatch(pattern, "a" * 31 + "B", flags)


def test_a_rule_with_a_user_beside_the_secret_has_one_secret_capture():
    uri = r"(?x) postgres :// ([a-z0-9._-]{3,}) (?# username) : ([a-z0-9._-]{3,}) (?# password) @ host"
    pattern, _ = recall_shapes._capture(uri)
    assert pattern.strip() == "[a-z0-9._-]{3,}"


def test_draws_are_distinct_fit_and_the_same_every_run():
    pattern, flags = recall_shapes._capture(RULE)
    values = recall_shapes.draw(pattern, flags, 5)
    assert len(values) == 5 and len(set(values)) == 5
    assert all(re.fullmatch(pattern, v, flags) and len(v) == 32 for v in values)
    assert recall_shapes.draw(pattern, flags, 5) == values


def test_values_the_templates_cannot_hold_are_not_drawn():
    values = recall_shapes.draw(r"""[a-z"' <>]{20}""", 0, 3)
    assert all(not re.search(r"""["' <>]""", v) for v in values)
