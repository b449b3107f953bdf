"""National identity numbers of more countries, each with the check its issuer defines.

Presidio's own recognizers cover US SSN, UK NINO, Spanish NIF and Aadhaar (``presidio.py``). These
are the ones its other country packs know, decided here with their checksums:

- taken on their shape and check alone (the shape is rare in code, the check strong): the
  Singapore NRIC/FIN (``S1234567D``, ``M4332674T``; check letter), the Finnish HETU
  (``131052-308T``, a date, a century sign and a check character), the Spanish NIE (``X1234567L``), the Canadian SIN written ``123-456-782`` (Luhn),
  the Korean RRN (``860824-1234568``, a date and a check digit) and the French NIR written in
  its groups (``1 85 05 78 006 084 36``, a key mod 97);
- taken only after their name on the line (``SIN``, ``TFN``, ``PESEL``, ``personnummer``,
  ``TC kimlik``, ``NHS``, ``Steuer-ID``, ``ID number``), because bare digits with a one-in-ten or
  one-in-eleven check are as often any number: the SIN as 9 digits or ``123 456 782``, the
  Australian TFN, the Polish PESEL (also a valid birth date), the Swedish personnummer (a date and
  Luhn), the Turkish TCKN, the South African ID (a date and Luhn), the NHS number, the German
  tax id, the Dutch BSN (the eleven-test), the Brazilian CPF (two check digits), and the NIR as 15
  bare digits; and the Italian codice fiscale (16 characters, a check
  letter: strong, but its shape of letters and digits has no literal the prefilter's automaton
  could look for, so it waits for its name: ``codice fiscale``, ``C.F.``, ``tax code``).

Business numbers (the Australian ABN and ACN, VAT ids) name companies and are kept.
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _date_ok(yy: str, mm: str, dd: str) -> bool:
    return 1 <= int(mm) <= 12 and 1 <= int(dd) <= 31


def _sg_nric(v: str) -> bool:
    """S/T (citizens), F/G (foreigners before 2022) and M (FINs issued since 2022: offset 3 and its
    own letters)."""
    weights = (2, 7, 6, 5, 4, 3, 2)
    offset = {"T": 4, "G": 4, "M": 3}.get(v[0], 0)
    total = sum(int(d) * w for d, w in zip(v[1:8], weights, strict=True)) + offset
    table = "JZIHGFEDCBA" if v[0] in "ST" else "XWUTRQPNJLK" if v[0] == "M" else "XWUTRQPNMLK"
    return table[total % 11] == v[8]


_CF_ODD = dict(
    zip(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        (
            1,
            0,
            5,
            7,
            9,
            13,
            15,
            17,
            19,
            21,
            1,
            0,
            5,
            7,
            9,
            13,
            15,
            17,
            19,
            21,
            2,
            4,
            18,
            20,
            11,
            3,
            6,
            8,
            12,
            14,
            16,
            10,
            22,
            25,
            24,
            23,
        ),
        strict=True,
    )
)


def _it_fiscal(v: str) -> bool:
    total = 0
    for i, ch in enumerate(v[:15]):
        total += _CF_ODD[ch] if i % 2 == 0 else (int(ch) if ch.isdigit() else ord(ch) - 65)
    return chr(65 + total % 26) == v[15]


def _fi_hetu(m: re.Match) -> bool:
    return (
        _date_ok(m["y"], m["m"], m["d"])
        and "0123456789ABCDEFHJKLMNPRSTUVWXY"[int(m["d"] + m["m"] + m["y"] + m["n"]) % 31] == m["c"]
    )


def _es_nie(v: str) -> bool:
    v = v.replace("-", "")
    num = int("XYZ".index(v[0]).__str__() + v[1:8])
    return "TRWAGMYFPDXBNJZSQVHLCKE"[num % 23] == v[8]


def _kr_rrn(v: str) -> bool:
    d = v.replace("-", "")
    if not _date_ok(d[0:2], d[2:4], d[4:6]):
        return False
    total = sum(int(c) * w for c, w in zip(d[:12], (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5), strict=True))
    return (11 - total % 11) % 10 == int(d[12])


def _fr_nir(v: str) -> bool:
    d = v.replace(" ", "")
    if not d.isdigit() or len(d) != 15:
        return False
    return 97 - int(d[:13]) % 97 == int(d[13:])


def _pl_pesel(d: str) -> bool:
    month = int(d[2:4]) % 20
    if not (1 <= month <= 12 and 1 <= int(d[4:6]) <= 31):
        return False
    total = sum(int(c) * w for c, w in zip(d[:10], (1, 3, 7, 9, 1, 3, 7, 9, 1, 3), strict=True))
    return (10 - total % 10) % 10 == int(d[10])


def _au_tfn(d: str) -> bool:
    weights = (1, 4, 3, 7, 5, 8, 6, 9, 10) if len(d) == 9 else (10, 7, 8, 4, 6, 3, 5, 1)
    return sum(int(c) * w for c, w in zip(d, weights, strict=True)) % 11 == 0


def _se_pnr(d: str) -> bool:
    d = d[-10:]
    return _date_ok(d[0:2], d[2:4], d[4:6]) and luhn(d)


def _tr_tckn(d: str) -> bool:
    if d[0] == "0":
        return False
    n = [int(c) for c in d]
    return (sum(n[0:9:2]) * 7 - sum(n[1:8:2])) % 10 == n[9] and sum(n[:10]) % 10 == n[10]


def _za_id(d: str) -> bool:
    return _date_ok(d[0:2], d[2:4], d[4:6]) and luhn(d)


def _uk_nhs(d: str) -> bool:
    total = sum(int(c) * w for c, w in zip(d[:9], range(10, 1, -1), strict=True))
    check = 11 - total % 11
    return check != 10 and (check % 11) == int(d[9])


def _nl_bsn(d: str) -> bool:
    """The Dutch BSN's eleven-test: the digits weighted 9..2, the last -1, sum to a multiple of 11."""
    total = sum(int(c) * w for c, w in zip(d[:8], range(9, 1, -1), strict=True)) - int(d[8])
    return d != "000000000" and total % 11 == 0


def _br_cpf(d: str) -> bool:
    """The Brazilian CPF's two check digits (mod 11), a run of one digit aside."""
    if len(set(d)) == 1:
        return False
    for n in (9, 10):
        check = sum(int(c) * w for c, w in zip(d[:n], range(n + 1, 1, -1), strict=True)) * 10 % 11 % 10
        if check != int(d[n]):
            return False
    return True


def _de_taxid(d: str) -> bool:
    if d[0] == "0":
        return False
    product = 10
    for c in d[:10]:
        s = (int(c) + product) % 10 or 10
        product = 2 * s % 11
    return (11 - product) % 10 == int(d[10])


_B = r"(?<![\w.-])"  # not glued to a longer token
_E = r"(?![\w-]|[.,][0-9])"

# Shapes taken on their check alone.
_STRONG = re.compile(
    rf"{_B}(?P<sg>[STFGM][0-9]{{7}}[A-Z]){_E}"
    rf"|{_B}(?P<fi>(?P<d>0[1-9]|[12][0-9]|3[01])(?P<m>0[1-9]|1[0-2])(?P<y>[0-9]{{2}})[-+A-FU-Y](?P<n>[0-9]{{3}})"
    rf"(?P<c>[0-9A-FHJ-NPR-Y])){_E}"
    rf"|{_B}(?P<nie>[XYZ]-?[0-9]{{7}}-?[A-Z]){_E}"
    rf"|{_B}(?P<sin>[1-79][0-9]{{2}}-[0-9]{{3}}-[0-9]{{3}}){_E}"
    rf"|{_B}(?P<rrn>[0-9]{{6}}-[1-8][0-9]{{6}}){_E}"
    rf"|{_B}(?P<nir>[12] [0-9]{{2}} (?:0[1-9]|1[0-2]|[2-9][0-9]) [0-9]{{2}} [0-9]{{3}} [0-9]{{3}} [0-9]{{2}}){_E}"
)
_STRONG_CHECKS = {
    "sg": _sg_nric,
    "nie": _es_nie,
    "sin": lambda v: luhn(v.replace("-", "")),
    "rrn": _kr_rrn,
    "nir": _fr_nir,
}
# What every ``_STRONG`` match holds, folded (digits as 0, lower case): the trigger's shapes. They
# are rare words (a letter of a few, seven digits; six digits and a century sign...), so that the
# prefilter's automaton does not report every run of digits.
_STRONG_SHAPES = (
    *(c + "0000000" for c in "stfgmxyz"),
    *(c + "-0000000" for c in "xyz"),
    *("000000" + c + "000" for c in "-+abcdefuvwxy"),
    "000-000-000",
    "000000-0000000",
    "0 00 00 00 000 000 00",
)


def _digits(check):
    return lambda v: check(re.sub(r"[^0-9]", "", v))


def _passport(v: str) -> bool:
    """Digits enough and varied; not a date written as eight digits (a passport's expiry, 20310402)."""
    date = (
        len(v) == 8
        and v.isdigit()
        and v[:2] in ("19", "20")
        and "01" <= v[4:6] <= "12"
        and "01" <= v[6:] <= "31"
    )
    return sum(c.isdigit() for c in v) >= 3 and len(set(v)) >= 4 and not date


_S = r"[ _-]?"  # between a name's words: prose, snake_case and camelCase keys (``tax_file_number``, ``nhsNumber``)


# Numbers taken after their name: (name regex, number regex, check on the matched number).
def _us_ssn(d: str) -> bool:
    """No check digit: only the blocks never issued (area 000, 666, 900-999; group 00; serial 0000)."""
    return d[:3] not in ("000", "666") and d[0] != "9" and d[3:5] != "00" and d[5:] != "0000"


_NAMED = (
    (rf"ssn|social{_S}security(?:{_S}(?:number|no|num))?", r"[0-8][0-9]{2}([- ]?)[0-9]{2}\1[0-9]{4}", _digits(_us_ssn)),
    (rf"sin|social{_S}insurance(?:{_S}(?:number|no|num))?|nas|num[ée]ro d'assurance sociale|assurance sociale",
     r"[1-79][0-9]{2}([- ]?)[0-9]{3}\1[0-9]{3}", _digits(luhn)),
    (r"codice fiscale|c\.f\.|cf|fiscal code|tax code",  # (a check letter, but its shape is any 16 letters+digits)
     r"[A-Z]{6}[0-9]{2}[ABCDEHLMPRST][0-9]{2}[A-Z][0-9]{3}[A-Z]", _it_fiscal),
    (rf"tfn|tax{_S}file(?:{_S}(?:number|no|num))?", r"[0-9]{3}([- ]?)[0-9]{3}\1[0-9]{2,3}", _digits(_au_tfn)),
    (r"pesel", r"[0-9]{11}", _digits(_pl_pesel)),
    (rf"personnummer|personnr|person{_S}number|pnr|personal{_S}identity{_S}(?:code|number|no)"
     rf"|swedish{_S}id(?:{_S}code|{_S}number)?",
     r"(?:18|19|20)?[0-9]{6}[-+ ]?[0-9]{4}", _digits(_se_pnr)),
    (r"t\.?c\.?(?: kimlik)?(?: no)?|tckn|kimlik(?: no| numarası)?|turkish (?:national )?id(?: number| no)?", r"[1-9][0-9]{10}", _digits(_tr_tckn)),
    (rf"(?:sa |rsa |south african )?id(?:entity)?{_S}(?:number|no)|identity{_S}number|(?:rsa|south african) id"
     r"|permanent resident(?: number)?", r"[0-9]{13}", _digits(_za_id)),
    # Korean RRN after its name: numbers issued since October 2020 have no check digit (the strong
    # shape above keeps the check for a bare one), so here a birth date and a sex digit.
    (r"rrn|resident registration(?: number| no)?|주민등록번호", r"[0-9]{6}-?[1-8][0-9]{6}",
     _digits(lambda d: _date_ok(d[0:2], d[2:4], d[4:6]))),
    (rf"nhs(?:{_S}(?:number|no|num))?", r"[0-9]{3}([- ]?)[0-9]{3}\1[0-9]{4}", _digits(_uk_nhs)),
    (rf"steuer{_S}id|steuer{_S}identifikationsnummer|idnr|identifikationsnummer",
     r"[0-9]{2}([ ]?)[0-9]{3}\1[0-9]{3}\1[0-9]{3}", _digits(_de_taxid)),
    (r"nir|s[ée]curit[ée] sociale|num[ée]ro de s[ée]cu|insee",
     r"[12][0-9]{12}[0-9]{2}|[12](?: [0-9]{2}){3} [0-9]{3} [0-9]{3} [0-9]{2}", _fr_nir),
    (r"bsn|burgerservicenummer|sofinummer", r"[0-9]{4}\.?[0-9]{2}\.?[0-9]{3}|[0-9]{9}", _digits(_nl_bsn)),
    (r"cpf", r"[0-9]{3}\.?[0-9]{3}\.?[0-9]{3}-?[0-9]{2}", _digits(_br_cpf)),
    # A passport number after its name: no check digit outside the machine-readable zone, so the
    # shapes most countries print (US/UK nine digits, a letter or two and six to eight digits, the
    # German nine of letters and digits with three digits or more).
    (rf"passport(?:{_S}(?:number|no|num|nr))?", r"[A-Z]{0,2}[0-9]{6,9}|[0-9A-Z]{9}", _passport),
)  # fmt: skip
_NAMED_RX = [(re.compile(rf"{_B}(?:{num}){_E}"), check) for _, num, check in _NAMED]
# All the names in one pass (group ``n<i>``: which one).
_NAMES = re.compile(
    "(?i)(?<![a-z])(?:"
    + "|".join(f"(?P<n{i}>{name})" for i, (name, _, _) in enumerate(_NAMED))
    + ")(?![a-z])"
)
_NAME_REACH = 40  # the name shortly before the number, on its line
_AFTER_REACH = 24  # or right after it: at most three words between ("... is my PESEL")


def national_ids(text: str) -> list[Span]:
    from tracepub.detect.text import folded

    out: list[Span] = []
    f = folded(text)
    for m in _STRONG.finditer(text) if any(s in f for s in _STRONG_SHAPES) else ():
        g = next(k for k in ("sg", "fi", "nie", "sin", "rrn", "nir") if m.group(k))
        value = m.group(g)
        ok = _fi_hetu(m) if g == "fi" else _STRONG_CHECKS[g](value)
        if ok:
            out.append(Span(m.start(g), m.end(g), "pii.national_id", f"national-ids:{g}", 0.85))
    for n in _NAMES.finditer(text):
        num_rx, check = _NAMED_RX[int((n.lastgroup or "n0")[1:])]
        num = num_rx.search(text, n.end(), min(len(text), n.end() + _NAME_REACH))
        if num is None or "\n" in text[n.end() : num.start()]:
            # The name after the number, in a short clause ("19910924-2397 är mitt pnr"): the last
            # number shortly before it on its line.
            lo = max(0, n.start() - _AFTER_REACH)
            before = [
                m for m in num_rx.finditer(text, lo, n.start()) if "\n" not in text[m.end() : n.start()]
            ]
            num = before[-1] if before and len(text[before[-1].end() : n.start()].split()) <= 3 else None
        if num is not None and check(num.group()):
            out.append(Span(num.start(), num.end(), "pii.national_id", "national-ids:named", 0.8))
    return out


class NationalIds(Detector):
    name = "national-ids"
    context_free = True
    # The names (as literals; the short ones with what can follow them) and the strong shapes.
    trigger = Trigger(
        literals=(*(w + c + x for w, x in (("social", "insurance"), ("social", "security"), ("tax", "file"),
                                             ("personal", "identity"),
                                             ("id", "number"), ("id", "no"), ("identity", "number"),
                                             ("nhs", "number"), ("nhs", "no"), ("person", "number"))
                    for c in ("", " ", "_", "-")),
                  "assurance sociale", "pesel", "personnummer", "personnr",
                  "person number", "pnr", "personal identity", "swedish id", "rsa id", "south african id",
                  "permanent resident", "turkish id", "turkish national id", "rrn", "resident registration",
                  "주민등록번호", "kimlik", "tckn", "identity number", "id number", "id no", "steuer", "idnr",
                  "identifikationsnummer", "sécurité sociale", "securite sociale", "insee", "numéro de sécu",
                  "codice fiscale", "c.f.", "fiscal code", "tax code", "passport", "burgerservicenummer", "sofinummer",
                  *(w + c for w in ("sin", "ssn", "nas", "tfn", "nhs", "nir", "t.c.", "cf", "bsn", "cpf") for c in (" ", ":", "=", "#",
                                                                                            '"', "'", ")", "_"))),
        shapes=_STRONG_SHAPES,
        shape_check=_B,  # as every ``_STRONG`` match starts: the automaton finds the shapes in hex too
        lines=True,
    )  # fmt: skip

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return national_ids(escaped_view(text))


def named(name: str, value: str) -> bool:
    """Whether ``value`` is the national id its name (a JSON key: ``ssn``, ``tax_file_number``) says,
    with the check of that id: the value of JSON parsed out of a tool's output, with no text around."""
    text = f"{name.replace('_', ' ')}: {value}"
    return any(s.end - s.start == len(value) and s.end == len(text) for s in national_ids(text))
