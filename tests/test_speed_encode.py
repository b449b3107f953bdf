"""Fast paths of writing a record back (``workers._encode``): the same bytes as the slow way."""

from __future__ import annotations

import json
import random

from tracepub.run.workers import _encode
from tracepub.walk.walker import _style, dumps_like, dumps_like_bytes


def _value(rng: random.Random, depth: int = 0):
    pick = rng.random()
    if depth > 2 or pick < 0.4:
        return rng.choice(["x", "café ✓", "a\nb", "\u00e9\\u00", "", 1, 2.5, None, True, "𝄞", '{"k": 1}'])
    if pick < 0.7:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice("abcde") + str(i): _value(rng, depth + 1) for i in range(rng.randint(0, 3))}


def test_one_line_style_equals_searching_for_line_breaks():
    """``one_line`` (a JSONL line: no line break, so none is searched for) gives the bytes of the
    full guess on any one-line text, whatever its separators, escapes and surrounding blanks."""
    rng = random.Random(3)
    for _ in range(3000):
        value = _value(rng)
        seps = rng.choice([(",", ":"), (", ", ": "), (",", ": "), (", ", ":")])
        text = json.dumps(value, separators=seps, ensure_ascii=rng.random() < 0.5)
        text = rng.choice(["", " ", "\t", "\u00a0"]) + text + rng.choice(["", " ", "\r", "\t "])
        assert "\n" not in text
        assert _style(text, one_line=True) == _style(text), text
        new = _value(rng)
        assert (
            dumps_like_bytes(text, new, one_line=True)
            == dumps_like_bytes(text, new)
            == dumps_like(text, new).encode("utf-8", "backslashreplace")
        ), text
        assert _encode(text, new, True) == _encode(text, new), text
