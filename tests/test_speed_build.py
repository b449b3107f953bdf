"""Fast paths in building engines (bench/NOTES.md, seventh pass), each against what it replaces.

- ``literal_forms`` of an ASCII literal folds it whole: the forms the per-character fold gives.
- An engine that reads little (``few``: file names, a small second pass) builds NFAs, not DFAs:
  the same plans and the same raw-line answers.
- Identity places' ``ps`` column trigger starts with one digit, not a run of them: a match on
  the same lines.
"""

from __future__ import annotations

import random
import re

from tracepub.detect.engine import Engine
from tracepub.detect.places import _TRIGGER_FOLDED
from tracepub.detect.regex_shapes import literal_forms
from tracepub.detect.registry import DetectConfig
from tracepub.detect.text import folded


def _literal_forms_per_character(literal: str) -> list[str]:
    forms = [""]
    for ch in literal.lower():
        options = {folded(ch)}
        if not ch.isascii():
            options |= {c for c in (ch.lower(), ch.upper()) if len(c) == 1}
        forms = [f + o for f in forms for o in sorted(options)]
        if len(forms) > 64:
            return sorted({folded(literal.lower()), folded(literal.upper()).lower()})
    return forms


def test_literal_forms_are_the_per_character_forms():
    rnd = random.Random(5)
    alphabet = [chr(c) for c in range(128)] + list("éÉßİıſK→ñ")
    for _ in range(20_000):
        s = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 10)))
        assert literal_forms(s) == _literal_forms_per_character(s), s


_WORDS = [
    "token", "key", "jdoe", "/home/jdoe", "password=", "ghp_", "AKIA", "commit", "author", "@",
    "sk_live_", "rw-r--r--", "+1 415 555 0100", "Jane Smith", "uid=1000(", "ssh-rsa AAAA", " St",
    "josé", "JOSÉ", "→", "\\n", '\\"', "0.0", "12:34", "::", "://", "\t", "\n", " ", "x",
]  # fmt: skip


def _texts(rnd: random.Random, n: int) -> list[str]:
    return ["".join(rnd.choice(_WORDS) for _ in range(rnd.randint(1, 30))) for _ in range(n)]


def test_few_engines_plan_as_the_others():
    cfg = DetectConfig(identity={"jdoe": "identity.username"}, ner=False)
    fast, few = Engine(cfg), Engine(cfg, few=True)
    rnd = random.Random(7)
    for text in _texts(rnd, 1500):
        for prose in (False, True):
            assert few.prefilter.plan(text, prose) == fast.prefilter.plan(text, prose), text
        raw = '{"k": "' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"}'
        assert few.line_hits(raw) == fast.line_hits(raw), raw


def test_ps_column_trigger_matches_on_the_same_lines_as_a_digit_run_first():
    new = re.compile(_TRIGGER_FOLDED[-1])
    assert new.pattern.startswith("0[ \\t]")
    old = re.compile("0+" + new.pattern[1:])
    rnd = random.Random(3)

    def lines(rx: re.Pattern, s: str) -> list[int]:  # as the prefilter reads a lines trigger
        out, m = [], rx.search(s)
        while m is not None:
            out.append(s.rfind("\n", 0, m.start()))
            nl = s.find("\n", m.start())
            m = rx.search(s, nl + 1) if nl >= 0 else None
        return out

    for _ in range(20_000):
        s = "".join(
            rnd.choice(["0", "00", " ", "\t", ".", "\n", "x", "0.0 "]) for _ in range(rnd.randint(0, 40))
        )
        assert lines(new, s) == lines(old, s), s


def test_national_id_shapes_checked_where_strong_matches_start():
    """The shapes' check (``_STRONG``'s lookbehind at the hit) leaves every line a strong id is
    found on to the detector: ids glued to or inside hex and words, and free."""
    from tracepub.detect.pii.national_ids import NationalIds, national_ids
    from tracepub.detect.prefilter import Prefilter

    pf = Prefilter([NationalIds()])
    ids = ["S1234567D", "131052-308T", "X1234567L", "046-454-286", "1 85 05 78 006 084 36", "860824-1234568"]
    parts = [
        *ids,
        "a3f1234567",
        "deadbeef",
        "0123456789",
        "f",
        "-",
        ".",
        " ",
        "\n",
        "x",
        "9",
        "_",
        "(",
        "SIN: ",
    ]
    rnd = random.Random(11)
    found = 0
    for _ in range(4000):
        text = "".join(rnd.choice(parts) for _ in range(rnd.randint(1, 12)))
        spans = [s for s in national_ids(text) if s.detector != "national-ids:named"]
        if not spans:
            continue
        found += 1
        plan = pf.plan(text, False)
        assert plan, text
        windows = plan[0][1]
        for s in spans:
            assert windows is None or any(a <= s.start and s.end <= b for a, b in windows), text
    assert found > 100
