"""Presidio's pattern recognizers, run without their per-match bookkeeping.

``PatternRecognizer.analyze`` builds an ``AnalysisExplanation``, times the regex with
``datetime.now()`` and logs at debug level for every match: about 15 µs a match, and a log
output holds thousands of IP addresses and emails. ``analyze`` here follows the same steps on
the recognizer's own patterns, flags and ``validate_result``/``invalidate_result``, with the same
regex engine (``regex``), then Presidio's ``remove_duplicates`` rule, and returns plain
``(start, end, score)`` tuples. ``tests/test_speed_prefilter.py`` checks it against Presidio's
own ``analyze`` on random text. A recognizer that overrides ``analyze`` (IBAN, phone) is not
a plain pattern recognizer: ``supports`` says no, and the caller uses Presidio's method (for
phones, ``phone_analyze`` below).
"""

from __future__ import annotations

import weakref
from functools import lru_cache

import regex
from phonenumbers import phonenumbermatcher as pm
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


# Presidio's email pattern, as the fast path below knows it: a local part of ``_LOCAL`` characters,
# one "@", a domain of word characters, hyphens and dots. Every match holds one "@", its start lies
# in the run of local-part characters before it and its end in the run of domain characters after
# it; ``regex`` would try it at every word boundary of the line (~0.15 us a character).
_LOCAL = r"[!#$%&'*+\-/=?^_`{|}~\.\w]"
EMAIL_PATTERN = (r"\b((([!#$%&'*+\-/=?^_`{|}~\w])|([!#$%&'*+\-/=?^_`{|}~\w][!#$%&'*+\-/=?^_`{|}~\.\w]{0,}"
                 r"[!#$%&'*+\-/=?^_`{|}~\w]))[@]\w+(?:-+\w+)*(?:\.\w+(?:-+\w+)*)+)\b")


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
    for pattern in rec.patterns:
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


# -- phones ---------------------------------------------------------------------------------------
# ``PhoneRecognizer.analyze`` runs ``phonenumbers.PhoneNumberMatcher`` once per supported region
# and keeps every match (start, end) at its one score, then ``remove_duplicates``. The matcher
# walks the text the same way for every region; only ``parse`` (and the checks on what it parsed)
# reads the region, and a candidate written with a leading "+" and a known country code parses
# the same whatever the region. ``phone_analyze`` runs the same matchers, with parse-and-verify
# of a candidate string remembered: once for all regions when its country code came from the
# "+", else once per region. The checks on the characters around a candidate (a Latin letter
# or a currency sign glued on) read the text and are not remembered.
_VERDICTS: dict[tuple, object] = {}  # (candidate, region or _ANY_REGION) -> PhoneNumber or False
_ANY_REGION = "+"  # (no region code is "+"; None is one the matcher accepts)
_VERDICTS_MAX = 16_384


def phone_supports(rec: object) -> bool:
    """Presidio's own phone recognizer at leniency VALID, and ``phone_analyze`` still agreeing
    with it on this installed ``phonenumbers`` (``_phones_agree``): the fast path reads private
    parts of ``phonenumbers``, so a release that changes them falls back to Presidio's method
    instead of failing or finding something else."""
    from presidio_analyzer.predefined_recognizers import PhoneRecognizer

    return type(rec).analyze is PhoneRecognizer.analyze and rec.leniency == pm.Leniency.VALID \
        and _phones_agree(rec)  # type: ignore[attr-defined]


# Numbers in the formats and surroundings the fast path treats specially (a "+" country code,
# national formats of several regions, too-short groups, extensions, glued letters, brackets).
_SELF_CHECK = (
    "call +44 20 7946 0958 or +1 (415) 555-0132 ext. 12 today",
    "Tel. 030 901820, Fax 089/1234567; mobile 0151 23456789",
    "(02) 9374 4000 / 1800 801 920 | 555-0100 x204 | order 200 4967 2024-11-29",
    "id a0151234567b, +33 1 09 75 83 51, +91 98765 43210, 03-1234-5678, 011 55 11 91234 5678",
)


_AGREE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # recognizer -> agrees


def _phones_agree(rec) -> bool:
    found = _AGREE.get(rec)
    if found is None:
        try:
            found = all(
                phone_analyze(rec, t) == remove_duplicates(
                    [(r.start, r.end, r.score) for r in rec.analyze(t, ["PHONE_NUMBER"], None)])
                for t in _SELF_CHECK)
        except Exception:  # noqa: BLE001 - a changed private API: use Presidio's own method
            found = False
        _AGREE[rec] = found
    return found


def _verdict(candidate: str, region: str):
    """What ``PhoneNumberMatcher._parse_and_verify`` decides about ``candidate`` apart from its
    neighbours (at leniency VALID): the parsed number, or False."""
    found = _VERDICTS.get((candidate, _ANY_REGION))
    if found is None:
        found = _VERDICTS.get((candidate, region))
    if found is not None:
        return found
    key: tuple = (candidate, _ANY_REGION)  # the same answer for every region...
    if not pm.fullmatch(pm._MATCHING_BRACKETS, candidate) or pm._PUB_PAGES.search(candidate):
        found = False
    elif _too_short(candidate, region):
        key, found = (candidate, region), False
    else:
        numobj, ok = None, False
        try:
            numobj = pm.parse(candidate, region, keep_raw_input=True)
            ok = pm._verify(pm.Leniency.VALID, numobj, candidate, None)  # (reads the number and candidate)
        except pm.NumberParseException:
            pass
        if numobj is None or numobj.country_code_source != pm.CountryCodeSource.FROM_NUMBER_WITH_PLUS_SIGN:
            key = (candidate, region)  # ...unless the region could have mattered
        found = False
        if ok:
            numobj.country_code_source = pm.CountryCodeSource.UNSPECIFIED
            numobj.raw_input = None
            numobj.preferred_domestic_carrier_code = None
            found = numobj
    if len(_VERDICTS) >= _VERDICTS_MAX:
        _VERDICTS.clear()
    _VERDICTS[key] = found
    return found


# ``_least_any_country()`` for phonenumbers releases it was computed on (tests check the entry of
# the installed release against the computation): computing it loads the metadata of every region
# (~250 modules), a tenth of a second of the serial start-up, for one number. Another release
# computes it.
_LEAST_ANY_COUNTRY = {"9.0.43": 4}


@lru_cache(maxsize=1)
def _least_any_country() -> int:
    """The least length a valid number of any country code can have (``_least_for``)."""
    from phonenumbers import __version__
    from phonenumbers.phonenumberutil import COUNTRY_CODE_TO_REGION_CODE

    known = _LEAST_ANY_COUNTRY.get(__version__)
    if known is not None:
        return known
    return min(_least_for(cc) for cc in COUNTRY_CODE_TO_REGION_CODE)


def _least_for(cc: int) -> int:
    """The least ``possible_length`` of the general description of the regions sharing the
    country code ``cc`` (0: one of them has none)."""
    from phonenumbers.phonemetadata import PhoneMetadata
    from phonenumbers.phonenumberutil import COUNTRY_CODE_TO_REGION_CODE, REGION_CODE_FOR_NON_GEO_ENTITY

    lengths = []
    for r in COUNTRY_CODE_TO_REGION_CODE.get(cc, ()):
        meta = (PhoneMetadata.metadata_for_nongeo_region(cc, None) if r == REGION_CODE_FOR_NON_GEO_ENTITY
                else PhoneMetadata.metadata_for_region(r, None))
        possible = meta.general_desc.possible_length if meta is not None and meta.general_desc else ()
        lengths.append(min(possible) if possible else 0)
    return min(lengths, default=0)


@lru_cache(maxsize=64)
def _short_limit(region: str) -> int:
    """Fewer digits than this cannot make a valid number when parsed for ``region`` without a
    "+" (0: no limit known). Its national significant number has at most as many digits as the
    candidate has characters that can become one (``_digit_chars``); it is one of the region's
    country code, whose valid numbers have a least length (``possible_length`` of the general
    description, for every region sharing that code), or, after the region's international
    dialling prefix (at least as long as its pattern's shortest match) and a country code of
    one digit or more, one of any country code."""
    import re._parser as sre_parse

    from phonenumbers.phonemetadata import PhoneMetadata

    meta = PhoneMetadata.metadata_for_region(region, None)
    if meta is None or not meta.country_code or not meta.international_prefix:
        return 0
    idd = sre_parse.parse(meta.international_prefix).getwidth()[0]
    return max(0, min(_least_for(meta.country_code), _least_any_country() + idd + 1))


def _too_short(candidate: str, region: str) -> bool:
    """No valid number for ``region`` can come out of ``candidate`` (``_short_limit``)."""
    if "+" in candidate or "\uff0b" in candidate:
        return False
    digits = sum(1 for c in candidate if not c.isascii() or c.isalnum())  # every character that can become a digit
    return digits < _short_limit(region)


@lru_cache(maxsize=1)
def _matcher_class():
    class Matcher(pm.PhoneNumberMatcher):
        """``PhoneNumberMatcher`` with ``_parse_and_verify``'s parse-and-verify remembered
        (``_verdict``); its checks on the neighbouring characters as they are. ``path`` records
        each verdict it asked for, in order."""

        def __init__(self, text: str, region: str, leniency: int):
            super().__init__(text, region, leniency=leniency)
            self.path: list[tuple[str, bool]] = []

        def _parse_and_verify(self, candidate, offset):
            if offset > 0 and not pm._LEAD_PATTERN.match(candidate):
                previous_char = self.text[offset - 1]
                if self._is_invalid_punctuation_symbol(previous_char) or self._is_latin_letter(previous_char):
                    return None
            last_char_index = offset + len(candidate)
            if last_char_index < len(self.text):
                next_char = self.text[last_char_index]
                if self._is_invalid_punctuation_symbol(next_char) or self._is_latin_letter(next_char):
                    return None
            numobj = _verdict(candidate, self.preferred_region)
            self.path.append((candidate, bool(numobj)))
            return pm.PhoneNumberMatch(offset, candidate, numobj) if numobj else None

    return Matcher


def phone_analyze(rec, text: str) -> list[tuple[int, int, float]]:
    """``PhoneRecognizer.analyze`` (``phone_supports``) as ``(start, end, score)`` tuples, in its order.

    The matcher's walk over the text depends on the region only through the verdicts it asks
    for (everything else reads the text): a region whose verdicts on an earlier region's path
    are the same takes that path, and finds the same matches, without walking it again."""
    matcher = _matcher_class()
    found: list[tuple[int, int, float]] = []
    walked: list[tuple[list[tuple[str, bool]], list[tuple[int, int, float]]]] = []
    for region in rec.supported_regions:
        for path, matches in walked:
            if all(bool(_verdict(c, region)) == ok for c, ok in path):
                found += matches
                break
        else:
            m = matcher(text, region, rec.leniency)
            matches = [(x.start, x.end, rec.SCORE) for x in m]
            walked.append((m.path, matches))
            found += matches
    return remove_duplicates(found)
