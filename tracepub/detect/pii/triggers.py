"""The cheap necessary conditions of the PII recognizers (see ``detect.base.Trigger``).

Each is a shape in folded text (lower case, digits as ``0``) or a literal that every match
holds, so the prefilter's one pass decides which recognizer to call and on which lines.
"""

from __future__ import annotations

import re

# Digit runs that could be a phone number; not glued to letters, hyphens or dots (UUIDs, hashes, versions).
# (A leading lookahead on the first character lets ``re`` skip to candidates: twice as fast.)
_PHONE_CANDIDATE = re.compile(r"(?=[+(0-9])(?<![\w.+/-])\+?\(?[0-9][0-9 \t().-]{5,22}[0-9](?![\w-]|\.\d)")


_NINO_HINT = re.compile(
    r"(?=[A-CEGHJ-PR-TW-Z])\b[A-CEGHJ-PR-TW-Z]{2}[ -]?[0-9]{2}[ -]?[0-9]{2}[ -]?[0-9]{2}[ -]?[A-D]\b"
)


# How every ``_NINO_HINT`` match ends: a letter A-D after a digit (a blank or hyphen between), then
# a word boundary. Searched first: ``re`` stops at A-D only, not at every capital (half the time).
_NINO_END = re.compile(r"[A-D](?:(?<=[0-9][A-D])|(?<=[0-9][ -][A-D]))\b")


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
_PHONE_TRIGGER = (
    r"0(?<![a-z0-9_./-]0)(?!(?<![+(]0)0{0,2}\.0{1,3}\.0{1,3}\.0{1,3}[ \t().-]*+(?!0))"
    r"(?:[ \t().-]*+0){6}[0 \t().-]{0,34}?(?<=0)(?![\w-]|\.0)"
)


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
    r"|(?<=[a-z][a-z] 0)(?<![a-z0-9_][a-z][a-z] 0)0 ?00 ?00 ?[a-d])"
)


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


def _iban_shapes() -> tuple[str, ...]:
    """An IBAN is valid only for a country Presidio knows a format for: its code and two digits."""
    from presidio_analyzer.predefined_recognizers.generic.iban_patterns import regex_per_country

    return tuple(sorted(f"{cc.lower()}00" for cc in regex_per_country))
