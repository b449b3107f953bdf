"""Presidio's pattern recognizers, run without their per-match bookkeeping.

``PatternRecognizer.analyze`` builds an ``AnalysisExplanation``, times the regex with
``datetime.now()`` and logs at debug level for every match: about 15 µs a match, and a log
output holds thousands of IP addresses and emails. ``analyze`` here follows the same steps on
the recognizer's own patterns, flags and ``validate_result``/``invalidate_result``, with the same
regex engine (``regex``), then Presidio's ``remove_duplicates`` rule, and returns plain
``(start, end, score)`` tuples. ``tests/test_speed_prefilter.py`` checks it against Presidio's
own ``analyze`` on random text. A recognizer that overrides ``analyze`` (IBAN) is not a plain
pattern recognizer: ``supports`` says no, and the caller uses Presidio's method.
"""

from __future__ import annotations

from functools import lru_cache

import regex
from presidio_analyzer import EntityRecognizer, Pattern, PatternRecognizer

MIN_SCORE = EntityRecognizer.MIN_SCORE
MAX_SCORE = EntityRecognizer.MAX_SCORE


def supports(rec: object) -> bool:
    ok = getattr(rec, "_tracepub_fast", None)
    if ok is None:
        ok = (
            isinstance(rec, PatternRecognizer)
            and type(rec).analyze is PatternRecognizer.analyze
            and not getattr(rec, "deny_list", None)
        )
        try:
            rec._tracepub_fast = ok  # type: ignore[attr-defined]
        except AttributeError:  # pragma: no cover - a recognizer with __slots__
            pass
    return ok


def patterns_of(rec: PatternRecognizer) -> list[Pattern]:
    """``rec.patterns``: Presidio sets it in two branches of ``__init__`` without declaring its
    type, which mypy cannot follow; read from the instance's attributes."""
    return vars(rec)["patterns"]


@lru_cache(maxsize=256)
def _compiled(pattern: str, flags: int) -> regex.Pattern:
    return regex.compile(pattern, flags=flags)


# Presidio's email pattern, as the fast path below knows it: a local part of ``_LOCAL`` characters,
# one "@", a domain of word characters, hyphens and dots. Every match holds one "@", its start lies
# in the run of local-part characters before it and its end in the run of domain characters after
# it; ``regex`` would try it at every word boundary of the line (~0.15 us a character).
_LOCAL = r"[!#$%&'*+\-/=?^_`{|}~\.\w]"
EMAIL_PATTERN = (
    r"\b((([!#$%&'*+\-/=?^_`{|}~\w])|([!#$%&'*+\-/=?^_`{|}~\w][!#$%&'*+\-/=?^_`{|}~\.\w]{0,}"
    r"[!#$%&'*+\-/=?^_`{|}~\w]))[@]\w+(?:-+\w+)*(?:\.\w+(?:-+\w+)*)+)\b"
)


@lru_cache(maxsize=8)
def _email_runs(flags: int) -> tuple[regex.Pattern, regex.Pattern]:
    """The run of local-part characters ending at a position (matched backwards) and the run of
    domain characters from one, with the flags the pattern is compiled with."""
    return regex.compile(f"(?r){_LOCAL}*", flags=flags), regex.compile(r"[\w.-]*", flags=flags)


def email_finditer(rx: regex.Pattern, text: str) -> list:
    """``list(rx.finditer(text))`` for ``EMAIL_PATTERN`` compiled (any flags): for each "@" in
    order, ``rx`` searched from the start of the local-part run before it (not before the last
    match's end) to the end of the domain run after it (``regex``, like ``re``, reads the text
    before ``pos`` for ``\b``); the same matches (tests)."""
    local, domain = _email_runs(rx.flags)
    out = []
    end = 0
    at = text.find("@")
    while at >= 0:
        if at >= end:
            m = rx.search(text, local.match(text, end, at).start(), domain.match(text, at + 1).end())
            if m is not None:
                out.append(m)
                end = m.end()
        at = text.find("@", at + 1)
    return out


def analyze(rec: PatternRecognizer, text: str) -> list[tuple[int, int, float]]:
    flags = rec.global_regex_flags
    found: list[tuple[int, int, float]] = []
    for pattern in patterns_of(rec):
        rx = _compiled(pattern.regex, flags)
        for m in email_finditer(rx, text) if pattern.regex == EMAIL_PATTERN else rx.finditer(text):
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
