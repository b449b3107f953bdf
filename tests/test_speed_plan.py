"""The prefilter's faster forms of triggers and plans give what the plain forms give
(ARCHITECTURE.md, "Speed"): checked on generated strings, no timing."""

from __future__ import annotations

import random
import re
import sys

from tracepub.prefilter import _anchor


def test_may_name_triggers_match_where_may_name_matches():
    """``pii._MAY_NAME_TRIGGERS`` (the capital factored out, the cue's first letter as a class)
    hold a match in exactly the texts ``_MAY_NAME`` holds one in."""
    from tracepub.detect import pii

    fast = [re.compile(p) for p in pii._MAY_NAME_TRIGGERS]
    assert fast == list(pii._MAY_NAME_RX)
    rng = random.Random(7)
    cues = pii._CUE_ALTS.split("|")
    speech = pii._SPEECH_ALTS.split("|")
    pieces = [*cues, *(c.upper() for c in cues), *(c.title() for c in cues), *speech, *(s.upper() for s in speech),
              "de", "van", "st.", "Jane", "Doe", "O'Brien", "Jean-Luc", "éva", "Ünal", "ñ", "x", "_", "1", "٣",
              " ", "\t", "\n", ",", ":", "-", ".", "'", "’", "'s", "’s", "‐", "–", "\u0130", "\u0131", "\u212a",
              "\u017f", "Ǆ", "ǅ", "A", "b"]
    for _ in range(6000):
        text = "".join(rng.choice(pieces) + rng.choice(("", " ", "", "  ", "\n")) for _ in range(rng.randint(1, 8)))
        assert (pii._MAY_NAME.search(text) is not None) == any(rx.search(text) for rx in fast), text


def test_non_ascii_digit_class_is_the_lookbehind_form():
    """``[^\\x00-\\x7f\\D]`` (one class: ``re`` scans for it in C) is ``[^\\x00-\\x7f](?<=\\d)`` on
    every code point, and the prefilter still skips it on ASCII text (no anchor: None)."""
    one, plain = re.compile(r"[^\x00-\x7f\D]"), re.compile(r"[^\x00-\x7f](?<=\d)")
    for cp in range(sys.maxunicode + 1):
        c = chr(cp)
        assert (one.fullmatch(c) is None) == (plain.fullmatch(c) is None), hex(cp)
    assert _anchor(r"[^\x00-\x7f\D]") is None
    assert _anchor(r"[^\x00-\x7f](?<=\d)") is None
    assert _anchor(r"[^\x00-\x7e]") == ""


def test_short_plans_cached_by_digit_shape_are_the_plans():
    """A short string's plan comes from the table of plans by digit shape (``Prefilter.plan``):
    the same plan, and the same literal hits for the detectors, as planning it afresh."""
    from tracepub.detect import DetectConfig, Engine
    from tracepub.prefilter import _digit_blind

    prefilter = Engine(DetectConfig()).prefilter
    assert prefilter._short is not None  # every text-reading pattern and shape check is digit-blind
    assert not _digit_blind(r"[1-9]") and not _digit_blind("a5") and not _digit_blind(r"(a)\1")
    assert _digit_blind(r"[A-Z]{2}[0-9]{2}\d\w[^\W\d_]")
    rng = random.Random(11)
    pieces = ["2025-01-0", "T12:3", "Z", "DE89", "GB82 ", "+1 415 555 0", "(212) 555-", "AKC", "AP", "SK", "AC",
              "tg", "irc", "cc:", "Thanks Jane", "@x.io", "a@b", "::", ":1:2:3:", "٣", "→", "Street ", "12 Main",
              "0", "7", "9", " ", "\n", "\t", ".", "-", "x", "Q", "é", "1234", "56789"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))[:prefilter.SHORT] for _ in range(3000)]
    texts += [t.translate(str.maketrans("0123456789", "9876543210")) for t in texts]  # same digit shapes
    for text in texts:
        for prose in (False, True):
            got = prefilter.plan(text, prose)
            hits = prefilter.literal_hits(text)
            assert got == prefilter._plan(text, prose, None), text
            assert hits == prefilter.literal_hits(text), text
    assert len(prefilter._short) < 2 * len(texts)  # shapes were shared
