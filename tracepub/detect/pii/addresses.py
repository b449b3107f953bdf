"""Street addresses: a house number, capitalised words and a street type ("12 Baker Street"),
German "...straße 12", French "12 rue ...". City and postal code alone are kept: they name a
place, not a person.
"""

from __future__ import annotations

import functools
import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.pii.checks import line_start
from tracepub.detect.pii.windows import _joined, _Result, _shifted
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

_STREET_TYPES = (
    r"(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Lane|Ln\.?|Drive|Dr\.?|Boulevard|Blvd\.?|Way|Court|Ct\.?|"
    r"Place|Pl\.?|Terrace|Gardens|Parkway|Pkwy\.?|Square|Sq\.?|Highway|Hwy\.?|Crescent)"
)


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
_STREET_TYPE_WORDS = (
    "Street",
    "St",
    "Avenue",
    "Ave",
    "Road",
    "Rd",
    "Lane",
    "Ln",
    "Drive",
    "Dr",
    "Boulevard",
    "Blvd",
    "Way",
    "Court",
    "Ct",
    "Place",
    "Pl",
    "Terrace",
    "Gardens",
    "Parkway",
    "Pkwy",
    "Square",
    "Sq",
    "Highway",
    "Hwy",
    "Crescent",
)


_RUE_WORDS = ("rue", "avenue", "boulevard", "chemin", "place", "allée", "impasse", "quai")


_ADDRESS_KEYS = (
    [(sp + w, 0) for sp in " \t" for w in _STREET_TYPE_WORDS]
    + [(w + sp, 1) for w in _STREET_WORDS for sp in " \t"]
    + [(a + w + b, 2) for a in " \t" for w in _RUE_WORDS for b in " \t"]
)


_ADDRESS_KIND = [k for _, k in _ADDRESS_KEYS]


_WORD_CHAR = re.compile(r"\w")


# Addresses' trigger (see there): the street-type words of ``_ADDRESS_KEYS`` as shapes (a word
# whose start is another's is left out: " ave" stands for " avenue"), checked where they start.
# " st" (in " start", " string": three in four of these hits) is a shape end: in an ASCII text
# it counts with no word character after it (``Trigger.shape_ends``), and " street" on its own.
_ADDRESS_ENDS = (" st", "\tst")


_ADDRESS_SHAPES = tuple(
    sp + w
    for sp in " \t"
    for w in (
        "st",
        "street",
        "ave",
        "rd",
        "road",
        "lane",
        "ln",
        "dr",
        "boulevard",
        "blvd",
        "way",
        "court",
        "ct",
        "pl",
        "terrace",
        "gardens",
        "parkway",
        "pkwy",
        "sq",
        "highway",
        "hwy",
        "crescent",
    )
)


_ADDRESS_CHECK = r"[ \t](?:" + "|".join(sorted(_STREET_TYPE_WORDS, key=len, reverse=True)) + r")(?!\w)"


_ADDRESS_LITERALS = (
    *(w + sp for w in _STREET_WORDS for sp in " \t"),
    *(a + w + b for a in " \t" for w in _RUE_WORDS for b in " \t"),
)


_GERMAN_LINE = (
    "(?:"
    + "|".join(sorted({re.escape(f) for w in _STREET_WORDS for f in (w, w.replace("ß", "ss"))}))
    + r")[ \t]"
)


_BLANKS_DIGIT = re.compile(r"[ \t]*[0-9]")


@functools.cache
def _address_words():
    import ahocorasick_rs

    return ahocorasick_rs.AhoCorasick(
        [w for w, _ in _ADDRESS_KEYS], implementation=ahocorasick_rs.Implementation.DFA
    )


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
    lo = hi = -1  # the last line found (hits come in order: each line is searched for once)
    for k, a, b in hits:
        kind = _ADDRESS_KIND[k]
        if (
            kind == 2
            or (kind == 0 and not _WORD_CHAR.match(text, b))
            or (kind == 1 and _BLANKS_DIGIT.match(text, b))
        ):
            if not lo <= a < hi:
                lo = text.rfind("\n", 0, a) + 1
                hi = text.find("\n", a)
                hi = len(text) if hi < 0 else hi
            starts.add(lo)
    out: list[tuple[int, int]] = []
    for a in sorted(starts):
        b = text.find("\n", a)
        out += [m.span() for m in _ADDRESS.finditer(text, a, len(text) if b < 0 else b)]
    return out


# Addresses that are no one's home: organisations' addresses printed in license texts and docs
# (the FSF's in every GPL header), and the placeholders of examples and tests ("123 Main St",
# "123 Sesame St", "123 Example Street").
_PUBLIC_ADDRESSES = re.compile(
    r"(?i)^(?:51 Franklin St(?:reet|\.)?|59 Temple Place|675 Mass(?:achusetts)? Ave(?:nue|\.)?|1600 Amphitheatre Parkway"
    r"|1 Infinite Loop|One Microsoft Way|1 Hacker Way|221B Baker Street)$"
)
_PLACEHOLDER_STREETS = frozenset(
    {
        "example",
        "sesame",
        "anywhere",
        "any",
        "fake",
        "foo",
        "bar",
        "test",
        "sample",
        "nowhere",
        "somewhere",
        "fictional",
        "imaginary",
        "random",
        "my",
        "your",
        "some",
    }
)
_PLACEHOLDER_NUMBERS = frozenset({"1", "12", "123", "1234", "12345", "111", "100", "456", "999"})


def _common_english(word: str) -> bool:
    from tracepub.detect.pii.name_shape import _common_word

    return _common_word(word.lower())


def _personal_address(value: str) -> bool:
    """A street line that can be someone's home (``_PUBLIC_ADDRESSES`` and placeholders aside; a
    German-looking street word that is an English word, "Engineering 1", "String 2", is none)."""
    if _PUBLIC_ADDRESSES.match(value):
        return False
    words = value.split()
    if words[0][:1].isdigit():
        names = [w.lower() for w in words[1:-1]]
        if any(n in _PLACEHOLDER_STREETS for n in names):
            return False
        if names == ["main"] and words[0].rstrip(",") in _PLACEHOLDER_NUMBERS:
            return False
        return True
    if (
        words[0][:1].isupper()
        and not words[0][:1].isdigit()
        and len(words) == 2
        and _common_english(words[0])
    ):
        return False  # German form: the word before the number
    return True


# A person's name before a street line: on its line ("Jane Doe, 12 Baker Street", after a label
# such as "Ship to:") or alone on the line before (a postal address block).
_LABEL = re.compile(
    r"(?i)^(?:[ \t]*\d+(?:→|\t))?[ \t]*(?:(?:ship|deliver|send|bill|mail)(?:ed|ing)?[ \t]+to|address|"
    r"addressee|recipient|to|attn\.?|c/o)?[ \t]*[:\-]?[ \t]*"
)


_NAME_REACH = 160  # a name and a label before a street line: never longer


def _name_before(text: str, start: int) -> tuple[int, int] | None:
    from tracepub.detect.pii.name_shape import all_common_words, looks_like_name

    line = line_start(text, start, _NAME_REACH)
    before = text[line:start]
    if before.strip():
        head = before.rstrip(" \t,;")
        lab = _LABEL.match(head)
        cand_start = line + (lab.end() if lab else 0)
        cand = text[cand_start : line + len(head)]
    elif line > 0:
        prev = line_start(text, line - 1, _NAME_REACH)
        lab = _LABEL.match(text, prev, line - 1)
        cand_start = lab.end() if lab else prev
        cand = text[cand_start : line - 1].rstrip(" \t,;\r")
    else:
        return None
    cand_strip = cand.strip()
    if not cand_strip or not looks_like_name(cand_strip, 2) or all_common_words(cand_strip):
        return None
    a = cand_start + cand.find(cand_strip)
    return a, a + len(cand_strip)


def _spans(text: str, found: list[tuple[int, int]]) -> list[Span]:
    out = []
    for a, b in found:
        if not _personal_address(text[a:b]):
            continue
        out.append(Span(a, b, "pii.address", "addresses", 0.75))
        who = _name_before(text, a)
        if who is not None:
            out.append(Span(who[0], who[1], "pii.person", "addresses:name", 0.8))
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
    trigger = Trigger(
        literals=_ADDRESS_LITERALS,
        shapes=_ADDRESS_SHAPES,
        shape_check=_ADDRESS_CHECK,
        shape_ends=_ADDRESS_ENDS,
        line_patterns=(r"0[a-z]?,?[ \t]", _GERMAN_LINE),
        lines=True,
    )

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        if not _ADDRESS_HINT.search(text):
            return []
        text = escaped_view(text)
        return _spans(text, address_spans(text))

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        """All the lines in one regex call (``_joined``): a match stays on its line."""
        view = escaped_view(text)
        joined, starts = _joined(view, windows)
        found = [_Result("", a, b, 0.75) for a, b in address_spans(joined)]
        return _spans(view, [(r.start, r.end) for r in _shifted(found, windows, starts)])
