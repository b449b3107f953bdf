"""Person names from structure: where text says "this is a person", anywhere in a trace.

NER is unreliable on code and tool output, yet that is where most names are: ``git log``
authors, commit trailers (``Co-authored-by:``, ``Signed-off-by:``), ``Name <email>``,
``package.json`` authors and contributors, ``pyproject.toml`` authors, git config ``name =``,
copyright lines and LICENSE files, ``git shortlog``, and ``name:`` keys in YAML/JSON. Each form
has a fixed shape, so a regex finds the candidate and a small check (capitalised words, no
digits, not an organisation or a bot: ``name_shape.py``) decides. Trailers and ``Author:`` lines trust the
structure more (a lower-case handle there is still a person).
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.pii.checks import index_metadata
from tracepub.detect.pii.name_shape import (
    _first_letter_form,
    _trim,
    _trim_leading,
    all_common_words,
    looks_like_name,
    on_copyright_line,
    placeholder_email_in,
)
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

_TOKEN = r"[^\W\d_][\w'’.-]*"
# Line starts, allowing the line numbers that file-reading tools put in front (``   12→``, ``12\t``).
_BOL = r"^(?:[ \t]*\d+(?:→|\t))?"
_CANDIDATE = rf"{_TOKEN}(?:[ \t]+{_TOKEN}){{0,4}}"

# git log / trailers: ``Author: Name <email>``, ``Co-authored-by: Name <email>``.
_TRAILER = re.compile(
    rf"(?im){_BOL}[ \t>]*(?:author|commit|committer|co-authored-by|signed-off-by|reviewed-by|acked-by|tested-by|"
    r"reported-by|suggested-by|helped-by|reviewed-on-behalf-of|cc)[ \t]*:[ \t]*([^<>\n:]{1,80}?)[ \t]*(?:<[^<>\n]*>|$)"
)
# ``Name <email>`` anywhere (git log --format, AUTHORS, MAINTAINERS, mailmap, package.json author).
_NAME_EMAIL = re.compile(rf"({_CANDIDATE})[ \t]*<[^<>@\s]+@[^<>\s]+>")

# ``name = "X"`` / ``name: X`` / ``"author": "X"`` in config files (git config, YAML, TOML, JSON).
_KEYED = re.compile(
    rf"""(?im)(?:{_BOL}[ \t-]*|["'{{,][ \t]*)["']?[ \t]*(name|author|full_?name|display_?name|owner|maintainer|contact(?:_name)?|"""
    r"""customer(?:_name)?|user_?name|real_?name|author_?name|sender(?:_name)?|recipient(?:_name)?|committer|"""
    r"""reviewer|assignee|reporter)["']?[ \t]*[:=][ \t]*["']([^"'\n<>]{3,80}?)[ \t]*"""
    r"""(?:<[^"'\n]*>)?[ \t]*(?:\([^"'\n]*\))?["']"""
    rf"""|{_BOL}[ \t-]*(name|author|full_?name|owner|maintainer|contact|assignee|reporter|reviewer|committer)"""
    r"""[ \t]*[:=][ \t]*([^"\n#<>]{3,80}?)[ \t]*$"""
)
# ``"contributors": ["Name <email>", ...]`` and ``authors = ["Name <email>"]``.
_LIST = re.compile(
    r"""(?is)["']?(?:contributors|maintainers|authors)["']?[ \t]*[:=][ \t]*\[([^\]]{1,4000})\]"""
)
_LIST_ITEM = re.compile(r"""["']([^"'<>\n]{3,80}?)[ \t]*(?:<[^"'\n]*>)?[ \t]*(?:\([^"'\n]*\))?["']""")
# ``git blame``: ``^1f2e3d4 (Jane Doe 2025-11-12 10:00:00 +0100 40) code`` (a path may sit before the paren).
_BLAME = re.compile(
    r"(?=[\^0-9a-f])(?<![\w^])\^?[0-9a-f]{7,40}[ \t]+(?:\S+[ \t]+)?\(([^()\n]{2,80}?)[ \t]+[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]"
)
# ``git shortlog -sn``: a count, a tab, a name.
_SHORTLOG = re.compile(r"(?m)^[ \t]*[0-9]+\t([^\t\n]{3,80})$")
# A name written next to an email in tables and CSV: ``| Jane Doe | jane@x.com |``, ``Jane Doe, jane@x.com``.
_NEAR_EMAIL = re.compile(
    rf"({_TOKEN}(?:[ \t]+{_TOKEN}){{1,3}})[ \t]*[|,;(\t\"'][ \t|\"']*[\w.+-]+@[\w-]+\.[\w.-]+"
)
# The ends of their matches, as regexes: every match holds one. ``re`` tries the two above at
# every letter (~0.3 us a character); these at a "<" or a separator only, so a line with an
# address but neither form ("git@github.com", "user@host") costs a fast search, not the name regex.
_NAME_EMAIL_END = re.compile(r"<[^<>@\s]+@[^<>\s]+>")
_NEAR_EMAIL_END = re.compile(r"[|,;(\t\"'][ \t|\"']*[\w.+-]+@[\w-]+\.[\w.-]+")

# In prose, words that introduce a person ("thanks Jane Doe", "ask Li Wei to", "customer Ana Sousa").
# On the name's line ("thank you" split by a line break is not a cue): everything stays on a line.
_CUE_ALTS = (
    r"thanks|thank[ \t]+you|hi|hey|hello|dear|ask|asked|ping|pinged|cc|add|added|invite|invited|tell|told|"
    r"email|emailed|call|called|contact|message|from|by|with|customer|client|colleague|manager|engineer|"
    r"user|owner|reviewer|author|maintainer|assignee|for|to|and|per"
)
_CUE = re.compile(rf"(?i:\b(?:{_CUE_ALTS})\b[ \t,:]+)({_TOKEN}[ \t]+{_TOKEN}(?:[ \t]+{_TOKEN})?)")
_NAME_KEYS = {
    "name",
    "author",
    "full_name",
    "fullname",
    "display_name",
    "displayname",
    "contact_name",
    "real_name",
    "realname",
    "author_name",
    "authorname",
    "sender_name",
    "recipient_name",
    "user_name",
    "customer_name",
    "contributors",
    "maintainers",
    "authors",
    "owner",
    "committer",
    "reviewer",
    "assignee",
}

# Package metadata's lists of people: an entry with its profile URL (npm's person string, "Jane
# Roe (https://github.com/jroe)") is the published project's credit, not private data.
_LISTED = frozenset({"contributors", "maintainers", "authors"})


# A cue, then (``_trim_leading``, ``looks_like_name``) a word that starts with a capital: ASCII
# lower case excluded, any other letter kept (a superset of ``str.isupper``).
_CUE_TRIGGER_PLAIN = rf"(?i:\b(?:{_CUE_ALTS})\b)[ \t,:]+[^\W\d_a-z]"


_CUE_TRIGGER = _first_letter_form(_CUE_ALTS) + r"\b[ \t,:]+[^\W\d_a-z]"
# Every key in ``_KEYED`` ends with one of these words, then ``["']?[ \t]*[:=]``.
_KEY_WORDS = (
    "name",
    "author",
    "owner",
    "maintainer",
    "contact",
    "customer",
    "sender",
    "recipient",
    "committer",
    "reviewer",
    "assignee",
    "reporter",
)


class _Part(Detector):
    """One structure of ``StructuredNames``; ``find`` gets the escaped view."""

    name = "names"
    context_free = True  # all but _KeyNames read the text alone

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return self.find(escaped_view(text), leaf)

    def find(self, text: str, leaf: Leaf) -> list[Span]:  # pragma: no cover - interface
        raise NotImplementedError


class _KeyNames(_Part):
    """``{"author": "Jane Doe"}``: the key says it is a person (any text under it)."""

    trigger = Trigger(keys=tuple(sorted(_NAME_KEYS)), keys_spaced=True)  # two words at least
    context_free = False

    def find(self, text: str, leaf: Leaf) -> list[Span]:
        key = (leaf.key or "").lower()
        if key not in _NAME_KEYS or len(text) > 120 or len(text.split(None, 1)) < 2:
            return []
        if key in _LISTED and "(http" in text:
            return []  # ``"contributors": ["Jane Roe (https://github.com/jroe)"]``: a public credit
        value = re.sub(r"\s*<[^<>]*>\s*|\s*\([^()]*\)\s*$", "", text).strip()
        if key in _GENERIC_KEYS and all_common_words(value):
            return []  # {"name": "Top Devices"}: a label
        if value and looks_like_name(value, 2):
            i = text.find(value)
            return [Span(i, i + len(value), "pii.person", "names:key", 0.85)]
        return []


class _TrailerNames(_Part):
    """``Author: Name <email>``, ``Co-authored-by: Name``: the keywords of ``_TRAILER`` (all end
    in one of these literals, or are ``cc`` before a colon)."""

    trigger = Trigger(literals=("author", "commit", "-by", "behalf-of"), folded=(r"cc[ \t]*:",), lines=True)

    def find(self, text: str, leaf: Leaf) -> list[Span]:
        if ":" not in text:
            return []
        spans = []
        for m in _TRAILER.finditer(text):
            value = m.group(1).strip()
            # With its <email> (git log, trailers) a lower-case handle is a person; without one
            # ("author: pydata" in a blog's front matter) only a capitalised full name is.
            with_email = m.group().rstrip().endswith(">")
            if value and (
                looks_like_name(value, 1, strict=False) if with_email else looks_like_name(value, 2)
            ):
                s = m.start(1) + m.group(1).find(value)
                spans.append(Span(s, s + len(value), "pii.person", "names:trailer", 0.9))
        return spans


class _EmailNames(_Part):
    """``Name <x@y>`` and ``Name, x@y.z``: an ``@`` followed by ``...>`` or, after a local-part
    character, by ``domain.tld``."""

    trigger = Trigger(
        folded=(r"@(?:(?<=[\w.+-]@)[\w-]+\.[\w.-]|[^<>\s]{0,254}>)",), lines=True
    )  # bounded: linear

    def find(self, text: str, leaf: Leaf) -> list[Span]:
        spans = []
        if "<" in text and _NAME_EMAIL_END.search(text) is not None:
            for m in _NAME_EMAIL.finditer(text):
                cut = _trim(m.group(1), m.start(1))
                if placeholder_email_in(m.group()[len(m.group(1)) :]):
                    continue
                if cut and looks_like_name(text[cut[0] : cut[1]], 1) and not on_copyright_line(text, cut[0]):
                    spans.append(Span(cut[0], cut[1], "pii.person", "names:name-email", 0.9))
        for m in _NEAR_EMAIL.finditer(text) if _NEAR_EMAIL_END.search(text) is not None else ():
            cut = _trim(m.group(1), m.start(1))
            if placeholder_email_in(m.group()[len(m.group(1)) :]):
                continue
            if cut and looks_like_name(text[cut[0] : cut[1]], 2) and not on_copyright_line(text, cut[0]):
                spans.append(Span(cut[0], cut[1], "pii.person", "names:near-email", 0.8))
        return spans


# ``name``-like keys that as often hold a product, a label or a test fixture ("Top Devices",
# "Response Syntax", "Chinese Dinner"): what they hold is a person only with a person's record
# around it, a field that only people have within two lines (an email, a login, a phone, a
# chat handle, a birth date, a first or last name).
_GENERIC_KEYS = frozenset({"name", "display_name", "displayname", "owner", "contact"})
_PERSON_NEAR = re.compile(
    r"""(?i)@[\w-]+\.[a-z]{2,}|(?<![a-z])(?:e-?mail|login|user_?name|phone|mobile|slack|github|handle|twitter|telegram"""
    r"""|discord|dob|birth\w*|ssn|surname|(?:first|last|given|family|middle|nick)_?name|pronouns|gender|salary"""
    r"""|manager|employee\w*|person)["']?[ \t]*[:=]"""
)


def _person_near(text: str, start: int, end: int) -> bool:
    """A person-only field within two lines of ``text[start:end]`` (and 400 characters)."""
    lo, hi = max(0, start - 400), min(len(text), end + 400)
    a = start
    for _ in range(3):
        nl = text.rfind("\n", lo, a - 1) if a > lo else -1
        a = nl + 1 if nl >= 0 else lo
    b = end
    for _ in range(3):
        nl = text.find("\n", b + 1, hi)
        b = hi if nl < 0 else nl
    return _PERSON_NEAR.search(text, a, b) is not None


class _KeyedNames(_Part):
    """``name = "X"``, ``author: X`` in config text (``_KEYED``); under a generic key
    (``_GENERIC_KEYS``) only with a person's fields around it (``_person_near``, read in the
    whole string: ``scan_windows``)."""

    # The key words; on raw lines, a key word, its separator, then (the value has two words at
    # least) whitespace within the value: ``"name":"Bash"`` in a JSON record is not one.
    trigger = Trigger(
        literals=_KEY_WORDS,
        lines=True,
        line_patterns=(rf"""(?:{"|".join(_KEY_WORDS)})["']?[ \t]*[:=][ \t]*["']?[^"\n<>]{{0,81}}?[ \t]""",),
    )

    def find(self, text: str, leaf: Leaf, windows: list[tuple[int, int]] | None = None) -> list[Span]:
        if "=" not in text and ":" not in text:
            return []
        spans = []
        for a, b in windows or [(0, len(text))]:
            for m in _KEYED.finditer(text, a, b):
                g = 2 if m.group(2) is not None else 4
                value = m.group(g).strip()
                if not value or not looks_like_name(value, 2):
                    continue
                key = (m.group(g - 1) or "").lower()
                if key in ("author", "maintainer") and index_metadata(text, m.start(g)):
                    continue  # the author of a package on the public index, as it publishes them
                if key in _GENERIC_KEYS and (
                    all_common_words(value) or not _person_near(text, m.start(), m.end())
                ):
                    continue  # a label (``name="Take Away"``), or no person's record around it
                s = m.start(g) + m.group(g).find(value)
                spans.append(Span(s, s + len(value), "pii.person", "names:key", 0.8))
        return spans

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        return self.find(escaped_view(text), leaf, windows)


class _ListNames(_Part):
    """``"contributors": [...]``: the list may span lines, so the whole string is read."""

    trigger = Trigger(literals=("contributors", "maintainers", "authors"))

    def find(self, text: str, leaf: Leaf) -> list[Span]:
        spans = []
        for lm in _LIST.finditer(text):
            for im in _LIST_ITEM.finditer(lm.group(1)):
                value = im.group(1).strip()
                if "(http" in im.group():
                    continue  # "Jane Roe (https://github.com/jroe)": a public credit (as ``_LISTED``)
                if looks_like_name(value, 2):
                    s = lm.start(1) + im.start(1) + im.group(1).find(value)
                    spans.append(Span(s, s + len(value), "pii.person", "names:list", 0.85))
        return spans


class _BlameNames(_Part):
    """``git blame``: a parenthesis, the author, a date (``_BLAME``)."""

    # The author (no digits: ``looks_like_name``) ends at the first digit; folded, a digit is 0.
    trigger = Trigger(folded=(r"\([^()\n0]{2,80}?[ \t]+0000-00-00[ t]0",), lines=True)

    def find(self, text: str, leaf: Leaf) -> list[Span]:
        spans = []
        for m in _BLAME.finditer(text):
            value = m.group(1).strip()
            if looks_like_name(value, 1, strict=False):
                s = m.start(1) + m.group(1).find(value)
                spans.append(Span(s, s + len(value), "pii.person", "names:blame", 0.9))
        return spans


class _ShortlogNames(_Part):
    """``git shortlog -sn``: a count, a tab, a name (ASCII digits: folded, a digit is ``0``; on a
    raw line the tab is found in the line's view with escapes resolved)."""

    trigger = Trigger(folded=(r"\t(?<=0\t)",), lines=True)

    def find(self, text: str, leaf: Leaf) -> list[Span]:
        spans = []
        for m in _SHORTLOG.finditer(text):
            value = m.group(1).strip()
            if looks_like_name(value, 2):
                s = m.start(1) + m.group(1).find(value)
                spans.append(Span(s, s + len(value), "pii.person", "names:shortlog", 0.8))
        return spans


# In prose, a title before a surname ("Mr. Mayers", "Dr Okafor") and a self-introduction before a
# name ("my name is Dan", "call me Priya"): a single capitalised word counts there, as NER's
# one-word entities do next to their cue, if it is no stop word or technical word
# (``prose_names.name_like``) and not among the most frequent English words (wordfreq Zipf
# < ``_TITLE_ZIPF``: "call me Maybe", "Mr. Right" stay; "Dan" 4.5 and "Smith" 4.9 are names).
_TITLE_ZIPF = 5.2
_TITLE = re.compile(
    r"(?<![\w.])(?:Mr|Mrs|Ms|Mx|Dr|Prof)\.? ([^\W\d_a-z][^\W\d_]{1,30}(?: [^\W\d_a-z][^\W\d_]{1,30})?)"
    r"|(?i:\bmy name is|\bcall me|\bi am called) (?!(?:Mr|Mrs|Ms|Mx|Dr|Prof)\b)"
    r"([^\W\d_a-z][^\W\d_]{1,30}(?: [^\W\d_a-z][^\W\d_]{1,30})?)"
)
# Literals for the prefilter's automaton (cheaper than a pattern over every string): the titles
# with the dot or the space after them, and the introductions.
_TITLE_LITERALS = (
    *(t + c for t in ("mr", "mrs", "ms", "mx", "dr", "prof") for c in (". ", " ")),
    "my name is ",
    "call me ",
    "am called ",
)


class _TitleNames(_Part):
    """Prose: a surname after a title, a name after "my name is" (``_TITLE``)."""

    trigger = Trigger(literals=_TITLE_LITERALS, lines=True, prose_only=True)

    def find(self, text: str, leaf: Leaf) -> list[Span]:
        if not leaf.prose:
            return []
        from wordfreq import zipf_frequency

        from tracepub.detect.pii.prose_names import name_like

        def ok(word: str) -> bool:
            return name_like(word) and zipf_frequency(word, "en") < _TITLE_ZIPF

        out = []
        for m in _TITLE.finditer(text):
            g = 1 if m.group(1) else 2
            words = m.group(g).split()
            if not ok(words[0]):
                continue  # "Mr. Right", "call me Maybe"
            if len(words) == 2 and not ok(words[1]):
                words = words[:1]  # "Dr. Okafor Said": the second word is prose
            value = " ".join(words)
            if looks_like_name(value, 1):
                out.append(Span(m.start(g), m.start(g) + len(value), "pii.person", "names:title", 0.85))
        return out


class _CueNames(_Part):
    """Prose: "thanks Jane Doe", "ask Li Wei" (``_CUE``), on prose lines that hold a cue and a
    capitalised word after it."""

    trigger = Trigger(patterns=(_CUE_TRIGGER,), lines=True, prose_only=True)

    def find(self, text: str, leaf: Leaf) -> list[Span]:
        return _prose_names(text) if leaf.prose else []


_PARTS: tuple[type[_Part], ...] = (
    _KeyNames,
    _TrailerNames,
    _EmailNames,
    _KeyedNames,
    _ListNames,
    _BlameNames,
    _ShortlogNames,
    _CueNames,
    _TitleNames,
)


class StructuredNames(Detector):
    """Names from the structures above; everything it finds is redacted. The engine runs its
    parts (``parts``), each behind its own trigger; ``scan`` runs them all on one string."""

    name = "names"
    high_confidence = False
    trigger = None  # never asked: the engine registers the parts

    def __init__(self) -> None:
        self._parts = [cls() for cls in _PARTS]

    def parts(self) -> list[Detector]:
        return list(self._parts)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        view = escaped_view(text)  # same offsets; JSON written inside a string has its lines back
        return [s for part in self._parts for s in part.find(view, leaf)]


def _prose_names(text: str) -> list[Span]:
    out = []
    for m in _CUE.finditer(text):
        cut = _trim_leading(m.group(1), m.start(1))
        if cut and looks_like_name(text[cut[0] : cut[1]], 2):
            out.append(Span(cut[0], cut[1], "pii.person", "names:prose-cue", 0.85))
    return out
