"""Presidio's pattern recognizers, run without their per-match bookkeeping.

``PatternRecognizer.analyze`` builds an ``AnalysisExplanation``, times the regex with
``datetime.now()`` and logs at debug level for every match: about 15 µs a match, and a log
output holds thousands of IP addresses and emails. ``analyze`` here follows the same steps on
the recognizer's own patterns, flags and ``validate_result``/``invalidate_result``, with the same
regex engine (``regex``), then Presidio's ``remove_duplicates`` rule, and returns plain
``(start, end, score)`` tuples. ``tests/test_speed_prefilter.py`` checks it against Presidio's
own ``analyze`` on random text. A recognizer that overrides ``analyze`` (IBAN, phone) is not
a plain pattern recognizer: ``supports`` says no, and the caller uses Presidio's method.
"""

from __future__ import annotations

from functools import lru_cache

import regex
from presidio_analyzer import EntityRecognizer, PatternRecognizer

MIN_SCORE = EntityRecognizer.MIN_SCORE
MAX_SCORE = EntityRecognizer.MAX_SCORE


def supports(rec: object) -> bool:
    ok = getattr(rec, "_tracepub_fast", None)
    if ok is None:
        ok = isinstance(rec, PatternRecognizer) and type(rec).analyze is PatternRecognizer.analyze \
            and not getattr(rec, "deny_list", None)
        try:
            rec._tracepub_fast = ok  # type: ignore[attr-defined]
        except AttributeError:  # pragma: no cover - a recognizer with __slots__
            pass
    return ok


@lru_cache(maxsize=256)
def _compiled(pattern: str, flags: int) -> regex.Pattern:
    return regex.compile(pattern, flags=flags)


def analyze(rec: PatternRecognizer, text: str) -> list[tuple[int, int, float]]:
    flags = rec.global_regex_flags
    found: list[tuple[int, int, float]] = []
    for pattern in rec.patterns:
        for m in _compiled(pattern.regex, flags).finditer(text):
            start, end = m.span()
            current = text[start:end]
            if current == "":
                continue
            score = pattern.score
            valid = rec.validate_result(current)
            if valid is not None:
                score = MAX_SCORE if valid else MIN_SCORE
            invalid = rec.invalidate_result(current)
            if invalid is not None and invalid:
                score = MIN_SCORE
            if score > MIN_SCORE:
                found.append((start, end, score))
    return remove_duplicates(found)


def remove_duplicates(results: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """``EntityRecognizer.remove_duplicates`` for one entity type: drop zero scores and results
    contained in another one with an equal or higher score."""
    ordered = sorted(set(results), key=lambda r: (r[0], -(r[1] - r[0]), -r[2]))
    kept: list[tuple[int, int, float]] = []
    active: list[tuple[int, int, float]] = []
    for r in ordered:
        if r[2] == 0:
            continue
        active = [a for a in active if a[1] >= r[0]]
        if any(r[0] >= a[0] and r[1] <= a[1] and r[2] <= a[2] for a in active):
            continue
        kept.append(r)
        active.append(r)
    return kept
