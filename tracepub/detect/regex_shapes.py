"""What a regex must contain, read from its parse tree: the prefilter's anchors and gates.

A pattern is only searched in strings that hold its anchor (the longest literal run every match
holds) or one of its gate words; this reads them from Python's own parser (``re._parser``, the
one private module we use: its tree is the regex as ``re`` understands it). Also the forms a
literal takes in a raw JSON line (escaped) and in folded text.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from tracepub.detect.text import folded

# ``re._parser`` has no type stubs (it is private): typed as Any rather than ignored line by line
_parser: Any = importlib.import_module("re._parser")


def line_forms(literal: str) -> set[str]:
    """What to look for in raw JSON lines for a (folded) literal: the literal itself (found in
    the line's decoded view, where ``\\uXXXX`` and the string escapes are resolved) and its
    JSON-escaped form (a tab is ``\\t``, a quote ``\\"``), as written in the raw line."""
    import json

    forms = {literal, folded(json.dumps(literal, ensure_ascii=False)[1:-1])}
    return {f for f in forms if f}


def literal_forms(literal: str) -> list[str]:
    """The folded forms a literal can take in folded text: ASCII folds like the text; a
    non-ASCII letter is not folded in the text, so both its cases are listed (``josé``/``josÉ``)."""
    if literal.isascii():  # one form, folded as a whole (each engine's prefilter folds thousands)
        return [folded(literal.lower())]
    forms = [""]
    for ch in literal.lower():
        options = {folded(ch)}
        if not ch.isascii():
            options |= {c for c in (ch.lower(), ch.upper()) if len(c) == 1}
        forms = [f + o for f in forms for o in sorted(options)]
        if len(forms) > 64:  # pathological: keep the two whole-string cases
            return sorted({folded(literal.lower()), folded(literal.upper()).lower()})
    return forms


def _line_entries(entries: list[tuple]) -> tuple[list[tuple], list[tuple]]:
    """``_plan_line``'s patterns, ungated and gated. The ungated patterns of one detector that
    read the text itself are joined in one alternation (one search instead of several: whether
    any of them matches is all ``_plan_line`` asks, and an alternation matches where one of its
    members does). Not on the folded text, where every digit is ``0``: a pattern starting with
    ``0`` is tried at every digit, and alone ``re`` skips to each by its literal prefix. Only
    patterns with default flags and no groups are joined; the others, and
    a pattern alone, stay as they are, with their anchors."""

    def joinable(rx: re.Pattern) -> bool:  # no group at all: no reference a join could renumber
        return rx.flags == re.UNICODE and not rx.groups

    groups: dict[int, list[tuple]] = {}
    ungated: list[tuple] = []
    gated: list[tuple] = []
    for n, i, rx, on_fold, anchor, is_gated in entries:
        if is_gated:
            gated.append((n, i, rx.search, on_fold))
        elif on_fold or not joinable(rx):
            ungated.append((n, i, rx, on_fold, anchor))
        else:
            groups.setdefault(i, []).append((n, i, rx, on_fold, anchor))
    for i, es in groups.items():
        if len(es) == 1:
            ungated.append(es[0])
        else:
            rx = re.compile("|".join(f"(?:{e[2].pattern})" for e in es))
            ungated.append((es[0][0], i, rx, False, ""))
    ungated.sort(key=lambda e: e[0])
    return [(i, rx.search, on_fold, anchor) for _, i, rx, on_fold, anchor in ungated], gated


# -- windows: run an expensive check on the lines that hold a candidate, not the whole text --
def _anchor(pattern: str) -> str | None:
    """A literal every match of ``pattern`` holds ("" if none, or if the pattern ignores case as
    a whole): the longest run of literal characters in its top-level sequence (``\\(...0000-00-00``
    holds ``0000-00-00``; a string without it cannot match). None if every match starts with a
    non-ASCII character (``[^\\x00-\\x7f]``, ``[^\\x00-\\x7f\\D]``: then ASCII text, which
    ``str.isascii`` tells at no cost, is not searched)."""
    parsed = _parser.parse(pattern)
    if parsed.state.flags & re.IGNORECASE:
        return ""
    ops = list(parsed)
    if (
        ops
        and ops[0][0] is _parser.IN
        and list(ops[0][1])[:2] == [(_parser.NEGATE, None), (_parser.RANGE, (0, 0x7F))]
    ):
        return None  # [^\x00-\x7f...]: no ASCII character
    best, run = "", []
    for op, arg in (*ops, (None, None)):  # consecutive top-level literals: a substring of every match
        if op is _parser.LITERAL:
            run.append(chr(arg))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    return best


_GATE_WORDS_MAX = 8  # more words than this for one pattern: its anchor alone


def _gate_words(pattern: str, anchor: str, on_fold: bool, ascii_only: bool = False) -> list[str]:
    """Words of the folded text one of which every match of ``pattern`` holds: its anchor (see
    ``_anchor``) with the character before it and the characters after it where the pattern
    allows only a few (``cc[ \t]*:``: "cc:", "cc ", "cc\t"; ``[ \t]+0000-00-00[ t]0``: four
    words). The anchor alone (``[anchor]``, folded) where nothing is known, a word would not be
    ASCII, or there would be more than ``_GATE_WORDS_MAX``. A text pattern's words are folded
    (a superset); a folded pattern's words that folded text cannot hold are left out (no match
    holds them). With ``ascii_only``: words for ASCII texts only, where ``\\d`` is ``[0-9]``.
    An anchor of one character gates nothing: a pattern that starts with one of a few literal
    words (``(?:ssh|scp|mosh)[ \t]...@``) is gated by those words instead."""
    plain = [folded(anchor)]
    ops = list(_parser.parse(pattern))
    if len(anchor) < 2 and ops and ops[0][0] is _parser.BRANCH:
        starts = ["".join(chr(av) for _, av in _literal_run(alt)) for alt in ops[0][1][1]]
        if all(starts) and all(w.isascii() for w in starts):
            got = sorted({w for w in starts if folded(w) == w} if on_fold else {folded(w) for w in starts})
            if 0 < len(got) <= _GATE_WORDS_MAX:
                return got
    start, best, run = 0, 0, 0  # the anchor's place: the first longest run of literals, as _anchor
    for k, (op, _) in enumerate((*ops, (None, None))):
        if op is _parser.LITERAL:
            run += 1
            continue
        if run > best:
            start, best = k - run, run
        run = 0
    if best != len(anchor) or "".join(chr(av) for _, av in ops[start : start + best]) != anchor:
        return plain

    def chars(item) -> list[str] | None:  # the characters one item (a literal or class) matches
        op, av = item
        if op is _parser.LITERAL:
            return [chr(av)]
        if op is not _parser.IN:
            return None
        out: list[str] = []
        for iop, iav in av:
            if iop is _parser.LITERAL:
                out.append(chr(iav))
            elif iop is _parser.RANGE and iav[1] - iav[0] < _GATE_WORDS_MAX:
                out += [chr(c) for c in range(iav[0], iav[1] + 1)]
            elif ascii_only and iop is _parser.CATEGORY and iav is _parser.CATEGORY_DIGIT:
                out += "0123456789"  # folded: one word "0"
            else:  # a negation or a category: too many
                return None
        return out

    def one(item) -> list[str] | None:  # a literal, a class, or a repeat of one, at least once
        got = chars(item)
        if got is None and item[0] in (_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT):
            lo, hi, sub = item[1]
            if lo >= 1 and len(sub) == 1:
                return chars(list(sub)[0])
        return got

    def follow(k: int, size: int) -> list[str]:
        """What a match continues with from item ``k`` on: strings one of which follows ("" in
        the list: nothing known)."""
        if k >= len(ops) or size > 2 * _GATE_WORDS_MAX:
            return [""]
        op, av = ops[k]
        if op in (_parser.ASSERT, _parser.ASSERT_NOT):  # reads, does not consume
            return follow(k + 1, size)
        first = chars(ops[k])
        if first is not None:
            rest = follow(k + 1, size + 1)
            both = [c + r for c in first for r in rest]
            return both if len(both) <= 8 * _GATE_WORDS_MAX else [""]
        if op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT):
            lo, hi, sub = av
            first = chars(list(sub)[0]) if len(sub) == 1 and hi >= 1 else None
            if first is not None:  # one of these characters, or (none of them) what follows
                return first if lo >= 1 else [*first, *follow(k + 1, size + 1)]
        return [""]

    before = one(ops[start - 1]) if start > 0 else None
    after = follow(start + best, 0)
    if "" in after:
        after = [""]
    words = {b + anchor + a for b in (before or [""]) for a in after}
    if not all(w.isascii() for w in words):
        return plain
    got = sorted(w for w in words if folded(w) == w) if on_fold else sorted({folded(w) for w in words})
    return got if 0 < len(got) <= _GATE_WORDS_MAX else plain


def _literal_run(items) -> list[tuple]:
    """The literal items a sequence starts with."""
    run = []
    for item in items:
        if item[0] is not _parser.LITERAL:
            break
        run.append(item)
    return run


def _one_class(pattern: str) -> bool:
    """Is ``pattern`` one character class (a match is one character: whether a text holds one
    does not depend on the characters around it)?"""
    parsed = _parser.parse(pattern)
    return not parsed.state.flags & re.IGNORECASE and len(parsed) == 1 and parsed[0][0] is _parser.IN


def _starts_with(pattern: str, literal: str) -> bool:
    """Does every match of ``pattern`` start with ``literal`` (its first items are those literal
    characters, case as written)?"""
    parsed = _parser.parse(pattern)
    if parsed.state.flags & re.IGNORECASE:
        return False
    ops = list(parsed)[: len(literal)]
    return len(ops) == len(literal) and all(
        op is _parser.LITERAL and chr(av) == c for (op, av), c in zip(ops, literal, strict=True)
    )


def _digit_blind(pattern: str) -> bool:
    """Does ``pattern`` match the same (at the same places) when ASCII digits are swapped for
    one another? No digit literal, no range or class that holds some ASCII digits but not all,
    no back-reference; categories (``\\d``, ``\\w``) hold all ten."""
    digits = range(0x30, 0x3A)

    def blind(items) -> bool:
        for op, av in items:
            if op in (_parser.LITERAL, _parser.NOT_LITERAL):
                if av in digits:
                    return False
            elif op is _parser.RANGE:
                lo, hi = av
                if lo <= 0x39 and hi >= 0x30 and not (lo <= 0x30 and hi >= 0x39):
                    return False
            elif op in (_parser.GROUPREF, _parser.GROUPREF_EXISTS):
                return False
            elif op is _parser.IN:
                if not blind(av):
                    return False
            elif op is _parser.BRANCH:
                if not all(blind(b) for b in av[1]):
                    return False
            elif op is _parser.SUBPATTERN:
                if not blind(av[3]):
                    return False
            elif op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT):
                if not blind(av[2]):
                    return False
            elif op in (_parser.ASSERT, _parser.ASSERT_NOT, _parser.ATOMIC_GROUP):
                if not blind(av[1] if op is not _parser.ATOMIC_GROUP else av):
                    return False
            elif op not in (
                _parser.ANY,
                _parser.AT,
                _parser.CATEGORY,
                _parser.NEGATE,
                _parser.FAILURE,
                _parser.SUCCESS,
            ):
                return False  # anything else: do not assume
        return True

    return blind(_parser.parse(pattern))
