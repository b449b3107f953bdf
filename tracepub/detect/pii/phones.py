"""Phone numbers: only where the text is written like one, or says it is one.

``phonenumbers``' matcher, run over code and tool output for a dozen regions, took any run of 7-15
digits that some region's numbering plan allows: git ``Date:`` lines (``24 2022 -0600``), log
timestamps, unix times, seeds, decimals, zip codes, its own data tables. A number a person wrote
down has a phone's *form*: a ``+`` (or ``00``) and a country code, or a national format with the
grouping people use (``(415) 555-0132``, ``415-555-0132``, ``020 7946 0958``, ``06 12 34 56 78``);
or its *context* says so: a cue word (phone, tel, call, mobile, fax, WhatsApp...) shortly before it
on its line, and then bare digits (``phone: 4155550132``) count too.

Each candidate is decided cheaply, in this order: its digit count and the characters around it
(a time, a date, a decimal, a version, a longer token), its form, and only then one
``phonenumbers.parse`` per country-code group its form allows (a ``+`` number: one parse; a
national number with a trunk ``0``: the regions with that prefix whose lengths fit), remembered
by digits and region. Numbers kept on purpose: the NANP's fictional ``555-0100``-``555-0199`` and
555 numbers with a repeated-digit line (``555-5555``).
"""

from __future__ import annotations

import functools
import re

from tracepub.detect.pii.checks import iban_groups_before
from tracepub.detect.pii.network import _IPV4ISH
from tracepub.detect.pii.triggers import _PHONE_CANDIDATE
from tracepub.model import Span

# Digit runs with phone separators between them (``_PHONE_CANDIDATE``): ``_PHONE_TRIGGER`` holds
# wherever one with seven digits does.
_CANDIDATE = _PHONE_CANDIDATE

_GROUP = re.compile(r"[0-9]+")

# A cue word before the number on its line (case-insensitive), at most ``_CUE_REACH`` characters before.
_CUE = re.compile(
    r"(?i)(?<![a-z])(?:phone|ph|tel|tele|telephone|telefon|telefono|teléfono|téléphone|tél|mobile|mobil|mob|móvil|"
    r"cell|cellphone|handy|fax|call|called|calling|sms|whatsapp|viber|contact|phone_?number|phone_?no|msisdn|"
    r"telepono|numero ng telepono|cep no|cep tel|cep telefonu|telefon no|"
    r"reach me|dial|☎|📞)(?![a-z])"
)
_CUE_REACH = 32

# Regions tried for a national number (Presidio's list before): grouped by country code, so that
# one parse answers for all regions that share one (US and CA).
REGIONS = ("US", "GB", "DE", "FR", "IN", "BR", "AU", "ES", "IT", "NL", "JP")
# Regions tried only in their own national forms (a lone trunk ``0 532 123 45 67``, Turkish
# ``532 123 45 67``, a bare national mobile ``09171234567``) and after a cue word: read as any
# trunk-0 region's number they would make the grouped forms above match more harmless digits.
MORE = ("TR", "PH")
# Where a bare run of digits (no separator, no cue) is still a phone: a national *mobile* number
# with its trunk 0, 10 or 11 digits (``07911 123456`` written together, ``0612345678``,
# ``05321234567``). Mobile ranges are narrow (one or two leading digits after the 0), which a
# zero-padded id or a timestamp seldom hits; landlines are as varied as any number and stay cued.
BARE_MOBILE = ("GB", "FR", "DE", "TR", "PH")

_HEX_PAIRS = re.compile(r"[0-9a-fA-F]{2} [0-9a-fA-F]{2} ")


def _hex_dump_before(text: str, a: int) -> bool:
    """Two hex pairs, one with a letter, right before ``a``."""
    before = text[max(0, a - 6) : a]
    return bool(_HEX_PAIRS.fullmatch(before)) and any(c.isalpha() for c in before)


# A date or time right next to the candidate: it is a piece of a timestamp, not a number.
_TIME_AFTER = re.compile(r"[ \t]?[:][0-9]")
_TIME_BEFORE = re.compile(r"[0-9][:.]$")
_DATE = re.compile(
    r"(?:19|20)[0-9]{2}[-./][01]?[0-9][-./][0-3]?[0-9]|[0-3]?[0-9][-./][01]?[0-9][-./](?:19|20)[0-9]{2}"
    r"|[01]?[0-9][-./][0-3]?[0-9][-./](?:19|20)[0-9]{2}"
)


def _nanp_fictional(digits: str) -> bool:
    """The NANP's made-up numbers: ``555-0100`` to ``555-0199`` in any area (reserved for fiction;
    written without one too), and 555 with a line of one repeated digit or ``1234`` (``425-555-5555``
    in API docs)."""
    d = digits[1:] if len(digits) == 11 and digits[0] == "1" else digits
    if len(d) == 7:
        d = "000" + d  # a local number: the exchange and line alone
    return len(d) == 10 and d[3:6] == "555" and (d[6:8] == "01" or len(set(d[6:])) == 1 or d[6:] == "1234")


@functools.lru_cache(maxsize=1)
def _plans() -> dict[str, tuple[int, str, tuple[int, ...]]]:
    """region -> (country code, national prefix, possible lengths of a national significant number)."""
    from phonenumbers.phonemetadata import PhoneMetadata

    out = {}
    for r in REGIONS + MORE:
        m = PhoneMetadata.metadata_for_region(r)
        assert m is not None and m.country_code is not None and m.general_desc is not None, r
        out[r] = (m.country_code, m.national_prefix or "", tuple(m.general_desc.possible_length or ()))
    return out


@functools.lru_cache(maxsize=16384)
def _valid(number: str, region: str | None) -> bool:
    """Whether ``number`` (digits, with a leading ``+`` when international) is a valid number."""
    import phonenumbers

    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(number, region))
    except phonenumbers.NumberParseException:
        return False


@functools.lru_cache(maxsize=16384)
def _mobile(digits: str, region: str) -> bool:
    """Whether ``digits`` (national, with the trunk 0) is a valid mobile number of ``region``."""
    import phonenumbers

    try:
        n = phonenumbers.parse(digits, region)
    except phonenumbers.NumberParseException:
        return False
    return (
        phonenumbers.is_valid_number(n) and phonenumbers.number_type(n) == phonenumbers.PhoneNumberType.MOBILE
    )


def _bare_mobile(digits: str) -> bool:
    if not (10 <= len(digits) <= 11 and digits[0] == "0" and digits[1] != "0") or len(set(digits[2:])) <= 2:
        return False
    plans = _plans()
    return any(
        len(digits) - 1 in plans[r][2] and _mobile(digits, r) for r in BARE_MOBILE if plans[r][1] == "0"
    )


def _valid_national(digits: str, regions: tuple[str, ...]) -> bool:
    """Valid in one of ``regions``: one parse per country code, and only where the length fits."""
    seen: set[int] = set()
    plans = _plans()
    for r in regions:
        cc, prefix, lengths = plans[r]
        if cc in seen:
            continue
        nsn = len(digits) - (len(prefix) if prefix and digits.startswith(prefix) else 0)
        if nsn not in lengths:
            continue
        seen.add(cc)
        if _valid(digits, r):
            return True
    return False


def _split(cand: str) -> tuple[list[str], list[str]] | None:
    """The digit groups of a candidate and the separators between them (``(`` and ``)`` kept as
    written); None when a separator is not one a person writes in a number (two spaces, ``- ``)."""
    groups = _GROUP.findall(cand)
    seps = _GROUP.split(cand)[1:-1]
    for s in seps:
        if s not in (" ", "-", ".", ") ", ")", ")-", " ("):
            return None
    return groups, seps


def _national_regions(cand: str, groups: list[str], seps: list[str]) -> tuple[str, ...]:
    """The regions whose national format the candidate is written in (no ``+``): () when none."""
    digits = "".join(groups)
    n = len(digits)
    plain = [s for s in seps if s not in (") ", ")", ")-")]
    uniform = len(set(plain)) <= 1
    paren = cand.startswith("(")
    rest_lens = [len(x) for x in groups[1:]]
    if groups[0] == "0" and rest_lens in ([3, 3, 2, 2], [3, 3, 4], [3, 7]) and seps[0] in (" ", "-", " ("):
        # A lone trunk 0 before the area code: ``0 532 123 45 67``, ``0-532-...``, ``0 (917) 123 4567``.
        rest = seps[2:] if seps[0] == " (" else seps[1:]
        if (seps[0] != " (" or seps[1] == ") ") and len(set(rest)) <= 1:
            return tuple(r for r in REGIONS + MORE if _plans()[r][1] == "0")
        return ()
    if paren and not (seps and seps[0] in (") ", ")", ")-")):
        return ()
    if cand.endswith(")"):
        return ()
    # NANP: (415) 555-0132, 415-555-0132, 415.555.0132, 1-415-555-0132.
    g = groups[1:] if len(groups) == 4 and groups[0] == "1" else groups
    if [len(x) for x in g] == [3, 3, 4] and g[0][0] in "23456789" and g[1][0] in "23456789":
        if paren or (uniform and plain and plain[0] in "-."):
            return ("US",)
    if not uniform or not plain and not paren or len(groups) < 2 or not 9 <= n <= 12:
        return ()
    if plain and plain[0] == "-" and [len(x) for x in groups] == [5, 4]:
        return ()  # ZIP+4
    first = groups[0]
    if first[0] == "0" and first[:2] != "00" and 2 <= len(first) <= 5:
        # A trunk prefix: the regions that dial one (and Italy, whose numbers keep their 0).
        if all(2 <= len(x) <= 8 for x in groups[1:]):
            return tuple(r for r in REGIONS if _plans()[r][1] == "0" or r == "IT")
        return ()
    if paren and len(first) == 2:
        return ("BR",)  # (11) 91234-5678
    lens = [len(x) for x in groups]
    if lens == [3, 2, 2, 2] and first[0] in "6789" and plain[0] in " .":
        return ("ES",)
    if lens == [5, 5] and first[0] in "6789":
        return ("IN",)
    if lens == [3, 3, 4] and first[0] == "3" and plain[0] in " .":
        return ("IT",)
    if lens == [3, 3, 2, 2] and first[0] in "2345":
        return ("TR",)  # 532 123 45 67, 212.123.45.67
    return ()


def _context_ok(text: str, a: int, b: int) -> bool:
    """Not a piece of a time, a date, a decimal or a version (the characters around it)."""
    if _TIME_AFTER.match(text, b) or _TIME_BEFORE.search(text, max(0, a - 2), a):
        return False
    if text.startswith((".", ","), b) and text[b + 1 : b + 2].isdigit():
        return False
    return True


def _cued(text: str, a: int) -> bool:
    nl = text.rfind("\n", max(0, a - _CUE_REACH), a)
    return _CUE.search(text, nl + 1 if nl >= 0 else max(0, a - _CUE_REACH), a) is not None


def warm() -> None:
    """Load the regions' numbering plans (before worker processes fork, so they share them)."""
    _plans()
    _valid("+442079460958", None)
    for r in REGIONS:
        _valid("0" * 9, r)


def find(text: str, windows: list[tuple[int, int]] | None = None) -> list[Span]:
    """Phone numbers in ``text`` (on ``windows``, whole lines of it: None, all of it)."""
    out: list[Span] = []
    for w0, w1 in windows or [(0, len(text))]:
        for m in _CANDIDATE.finditer(text, w0, w1):
            span = _decide(text, m.start(), m.group())
            if span is not None:
                out.append(Span(span[0], span[1], "pii.phone", "phones", span[2]))
    return out


def _decide(text: str, a: int, cand: str) -> tuple[int, int, float] | None:
    ndigits = sum(c.isdigit() for c in cand)
    if ndigits < 7 or ndigits > 15 or _IPV4ISH.match(cand):
        return None  # (a dotted quad: an address or a version)
    if _DATE.search(cand):
        return None
    split = _split(cand)
    if split is None:
        # The candidate runs into other numbers ("+44 20 7946 0958  2024"): its first part.
        cut = re.match(r"\+?\(?[0-9]+(?:(?:[ .\-]|\) ?)[0-9]+)*", cand)
        if cut is None or cut.end() == len(cand):
            return None
        cand = cand[: cut.end()]
        split = _split(cand)
        if split is None or sum(c.isdigit() for c in cand) < 7:
            return None
    b = a + len(cand)
    if not _context_ok(text, a, b) or iban_groups_before(text, a):
        return None
    groups, seps = split
    digits = "".join(groups)
    if (
        cand.startswith("+")
        and a >= 2
        and text[a - 1] in " \t"
        and (text[a - 2].isdigit() or text[a - 2] == ")")
    ):
        return None  # arithmetic: "5 +3600000000"
    if cand.startswith("+") or (digits.startswith("00") and len(groups[0]) in (4, 5) and len(groups) > 1):
        intl = digits[2:] if not cand.startswith("+") else digits
        if len(intl) < 8:
            return None
        # "+44 20 7946 0958 2024": drop trailing groups until it parses (at most two).
        for k in range(len(groups), max(0, len(groups) - 3), -1):
            d = "".join(groups[:k])
            d = d[2:] if not cand.startswith("+") else d
            if len(d) < 8:
                break
            if _valid("+" + d, None):
                if _nanp_fictional(d):
                    return None
                end = _end_of_group(cand, k)
                return a, a + end, 0.85
        return None
    if all(len(g) == 2 for g in groups) and _hex_dump_before(text, a):
        return None  # a hex dump ("7e 91 15 b4 ... 56 1b 08 10 34 47 39")
    regions = _national_regions(cand, groups, seps)
    if regions and _valid_national(digits, regions):
        return None if _nanp_fictional(digits) else (a, b, 0.75)
    if not seps and _bare_mobile(digits):
        return a, b, 0.7
    if _cued(text, a) and len(set(s for s in seps if s.strip("()"))) <= 1:
        if _valid_national(digits, REGIONS + MORE) and not _nanp_fictional(digits):
            return a, b, 0.7
    return None


def _end_of_group(cand: str, k: int) -> int:
    """Where the ``k``-th digit group of ``cand`` ends."""
    for i, m in enumerate(_GROUP.finditer(cand), 1):
        if i == k:
            return m.end()
    return len(cand)
