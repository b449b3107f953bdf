"""Found once, redacted everywhere.

A detector finds a value where its place says what it is (``API_KEY=…``, ``/home/NAME/``, a
``Bearer`` header). The same value elsewhere has no such place: the second copy in
``token = 'x' | 'x'``, the key echoed in a log line, the colleague's username in ``whoami``
output three records later or in another session. A value redacted once is therefore looked for
everywhere:

- in the same text (``copies``, called by the engine on every text's final spans);
- in the whole dataset: the workers report the values they redacted (``Found``), the pipeline
  merges them, looks for them in every written file (``Scanner``, one automaton pass over the
  bytes) and redacts again, from the sources, the files that still hold one in clear, with
  ``FoundValues`` added to the engine (exact, case-insensitive; PII and usernames between word
  boundaries, secrets anywhere, as for the user's own values).

What is not carried everywhere (``propagates``): the user's own exact values (matched everywhere
already) and reviewers' added texts, values too short to be the same thing by more than chance,
a generic account name (``admin``, ``ubuntu``), a single common word that is not an account
name, and an account name that is short or a common word (``mark``, ``jo``) seen only in a home
path (``/home/html/`` in some documentation is not a person). An account name seen in an
identity place (``detect/places.py``: ``ls -l`` columns, a prompt, ``id`` output) is carried
even when it is a word, but, like the user's own guarded names, only to identity places
(``identity.guarded``; ARCHITECTURE.md, "Identity").

Another person's first name alone ("Thanks, Grace") is redacted in the files the second pass
reads again, but sends none back by itself: traces full of sign-offs would be redacted twice
(twice the CPU of a run on ``bench/throughput.py``'s corpus). The user's own sends its file back.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
from collections.abc import Iterable
from pathlib import Path

import ahocorasick_rs

from tracepub.detect.base import priority
from tracepub.detect.cues import GREETINGS, REPLIES
from tracepub.detect.identity import (
    CUE,
    GENERIC,
    NAMES,
    PLACE,
    USERISH,
    ExactValues,
    accept,
    accounts_of,
    ascii_fold,
    encoded_forms,
    guarded,
    name_forms,
    value_mode,
)
from tracepub.detect.places import SYSTEM_GROUPS
from tracepub.detect.secrets import filters
from tracepub.detect.text import escaped_view, occurrences
from tracepub.model import REDACTED, REVIEW, Leaf, Span

# value -> (type, action): what the pipeline carries from the workers to the second pass.
Found = dict[str, tuple[str, str]]

DETECTOR = "found-elsewhere"
CONFIDENCE = 0.9
MIN_SECRET = 6  # a secret or reviewer's regex match shorter than this is not looked for elsewhere
MIN_WORDY = 3  # nor a username, name or other bounded value shorter than this
# A single word at least this frequent in English (wordfreq's Zipf scale: 3 is once per million
# words; "html" 3.7, "mark" 5.1, "admin" 3.9 are guarded; "maren" 2.4, "kowalski" 2.7 are not)
COMMON_ZIPF = 3.3
# A phrase of words all at least this frequent is not carried ("now" 6.5, "see" 6.4, "will" 6.3;
# "smith" 4.7, "costa" 3.9)
VERY_COMMON_ZIPF = 5.0
_NOT_CARRIED = ("custom.text",)
_CHOSEN = frozenset(("secret.password", "secret.url_password"))  # people choose these: words happen
EXACT = "identity"  # the detector of the user's own values (``ExactValues``): not carried
HOME = "home-path"  # a guarded account name seen only here is not carried


def unbounded(type_: str) -> bool:
    """A secret inside a longer string is still a secret; a name inside a word is not the name."""
    return type_.startswith(("secret.", "custom."))


def typed(value: str, type_: str) -> bool:
    """A typed test key (``1234567890...``, ``abcdef...``, ``aaaa...``): a secret where its place
    says so (docs/design/secrets.md, "Values in a secret's place"), carried as a whole token
    only: inside longer text it would eat every digit run, alphabet string or fill."""
    return type_.startswith("secret.") and (filters.is_filler(value) or filters.sequential(value))


@functools.lru_cache(maxsize=65536)
def _common(word: str) -> bool:
    from wordfreq import zipf_frequency

    return word in GENERIC or zipf_frequency(word, "en") >= COMMON_ZIPF


@functools.lru_cache(maxsize=65536)
def _a_word(word: str) -> bool:
    """Any English word wordfreq knows (Zipf 1.5: a few per billion words; "centipede" 2.4)."""
    from wordfreq import zipf_frequency

    return word in GENERIC or zipf_frequency(word, "en") >= 1.5


@functools.lru_cache(maxsize=65536)
def _very_common(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= VERY_COMMON_ZIPF


def warm() -> None:
    """Load the word frequencies before the workers fork (they share them)."""
    _common("warm")
    _very_common("warm")


def carried_type(value: str, type_: str) -> str:
    """The type a value is carried as. ``resolve`` gives a merged span the type of its most
    sensitive member: "Devin Shah" (a person) around the user's name "devin" comes out as
    ``identity.username``, "devin@mail.io" too; they are carried as what they are."""
    if type_ in USERISH:
        core = value.strip()
        own = type_.startswith("identity.")
        if " " in core:
            return "identity.name" if own else "pii.person"
        if "@" in core and "." in core.rpartition("@")[2]:
            return "identity.email" if own else "pii.email"
    return type_


def propagates(value: str, type_: str, detector: str = "") -> bool:
    """Whether a value redacted in one place is redacted at every other occurrence (an account
    or host name that ``identity.guarded`` holds back: at every other identity place)."""
    carried = carried_type(value, type_)
    if type_.startswith(_NOT_CARRIED) or (
        detector == EXACT and carried == type_ and type_.startswith("identity.")
    ):
        return False
    type_ = carried
    core = value.strip()
    if type_ in _CHOSEN and core.isalpha() and _a_word(core.lower()):
        return False  # a password that is a word (secret, mismatch): carried, it would eat the word
    if unbounded(type_):
        return len(core) >= MIN_SECRET
    if type_ in USERISH:
        if len(core) < 2 or core.lower() in GENERIC:
            return False
        return detector != HOME or not guarded(core, type_.startswith("identity."))
    if len(core) < MIN_WORDY:
        return False
    if core.isalpha() and _common(core.lower()):
        return False
    words = core.split()
    if len(words) > 1 and all(w.isalpha() and _very_common(w.lower()) for w in words):
        return False  # "Now I", "See Also": a phrase a name recognizer took for a person
    return True


def copies(text: str, spans: list[Span]) -> list[Span]:
    """Other occurrences, in ``text``, of the values its spans cover, as spans of the same type,
    detector and action (none overlapping a span already there), counted as ``FoundValues``
    counts them (an account name that is a word: only in identity places)."""
    values: dict[str, Span] = {}
    for s in spans:
        value = text[s.start : s.end]
        if value not in values and propagates(value, s.type, s.detector):
            values[value] = s
    if not values:
        return []
    taken = _Taken(spans)
    low = text.lower()
    if len(low) != len(text):
        low = text  # a case fold that changes length: exact matches only
    view = ""  # the escaped view, made when an occurrence is not a span already
    out: list[Span] = []
    needles = {value: value.lower() if low is not text else value for value in values}
    starts = _starts(low, list(dict.fromkeys(needles.values())))
    for value, s in values.items():
        needle = needles[value]
        kind = None
        for i in starts[needle]:
            j = i + len(needle)
            if not taken.overlaps(i, j):
                if kind is None:
                    kind, view = _kind(value, s.type), view or escaped_view(text)
                if accept(text, view, i, j, kind):
                    out.append(Span(i, j, s.type, s.detector, s.confidence, s.action))
    return out


def _starts(low: str, needles: list[str]) -> dict[str, list[int]]:
    """Where each needle starts in ``low``, overlapping occurrences included, in order: ``str.find``
    for a few needles, one Aho-Corasick pass for many (a log naming 20,000 emails, each searched
    through the whole text, was needles x text)."""
    if len(needles) > _FEW_NEEDLES and all(needles):
        try:
            found = ahocorasick_rs.AhoCorasick(needles).find_matches_as_indexes(low, overlapping=True)
        except UnicodeEncodeError:  # a lone surrogate (JSON allows one): needle by needle
            pass
        else:
            by: dict[str, list[int]] = {n: [] for n in needles}
            for k, a, _ in found:
                by[needles[k]].append(a)
            return {n: sorted(v) for n, v in by.items()}
    return {needle: list(occurrences(low, needle)) for needle in needles}


_FEW_NEEDLES = 8


class _Taken:
    """The spans already there, asked whether one overlaps ``[a, b)`` in a bisection: a text
    with thousands of spans (``ls -l`` output) and as many copies of their value was quadratic."""

    def __init__(self, spans: list[Span]):
        taken = sorted((s.start, s.end) for s in spans)
        self._starts = [a for a, _ in taken]
        self._reach = list(itertools.accumulate((b for _, b in taken), max))  # the furthest end so far

    def overlaps(self, a: int, b: int) -> bool:
        i = bisect.bisect_left(self._starts, b)  # the spans starting before b
        return i > 0 and self._reach[i - 1] > a


def _kind(value: str, type_: str) -> tuple[str, int, bool, bool, bool]:
    """``identity.accept``'s view of a value found elsewhere (``FoundValues.mode``)."""
    low = value.lower()
    return (
        type_,
        FoundValues.mode_of(value, type_),
        type_.startswith("identity."),
        type_ in USERISH,
        set(low) <= frozenset("abcdef"),
    )


def merge(parts: Iterable[Found]) -> Found:
    """One value, one type: the highest-ranked type it was found as (identity > secret > pii),
    then the first in order; flagged for review only if it was flagged everywhere."""
    out: Found = {}
    for part in parts:
        for value, (type_, action) in part.items():
            known = out.get(value)
            if known is None:
                out[value] = (type_, action)
                continue
            best = max((known[0], type_), key=lambda t: (priority(t), t))
            out[value] = (best, REVIEW if known[1] == REVIEW and action == REVIEW else REDACTED)
    return dict(sorted(out.items()))


def forms(value: str) -> set[bytes]:
    """How a value can appear in a written file: as is, JSON-escaped (with and without ASCII
    escapes), and escaped twice (JSON inside a JSON string); lower case (the scan folds case:
    ASCII only, so a value's upper-case and capitalised forms are listed too: ÞÓRSSON)."""
    out = set()
    low = value.lower()
    for v in dict.fromkeys((low, value, value.upper(), value.title())):  # bytes.lower() folds ASCII only
        once = json.dumps(v, ensure_ascii=False)[1:-1]
        ascii_once = json.dumps(v)[1:-1]
        for f in (
            v,
            once,
            ascii_once,
            json.dumps(once, ensure_ascii=False)[1:-1],
            json.dumps(ascii_once)[1:-1],
        ):
            out.add(f.encode("utf-8", "surrogatepass").lower())
    return out


# What follows an account name that is a word where it stands in an identity place (a line or
# cell alone, a path component, a compound, user@host, a quoted value), and what precedes a handle.
_PLACE_AFTER = (
    "\n",
    "\r",
    "\t",
    '"',
    "'",
    "|",
    " |",
    "/",
    "\\",
    "@",
    "%",
    ":",
    "_",
    ".",
    "-",
    ")",
    ",",
    *"0123456789",
    "  ",  # a column (who, last)
    *(f" {w}" for w in ("tty", "pts/", "console", *SYSTEM_GROUPS)),  # places._LINE_AFTER
)
# (and places._WORD_LEFT: ssh_config's User, gh's "account" / "as", "Pulling from"; a mention's @)
_PLACE_BEFORE = (
    ":",
    "github.com/",
    "gitlab.com/",
    "bitbucket.org/",
    "@",
    "user ",
    "account ",
    "as ",
    "from ",
)


def linked_people(found: Found, own: dict[str, str] | None = None) -> set[str]:
    """The people among the found values whose other forms are looked for too (``Last, First``,
    ``F. Last``, the first name next to a greeting): the user, and the people whose name gives an
    account name the traces show (``Bo Jensen`` and ``bo`` in ``ls -l``, or ``bo.jensen@…``), that
    is, people working on these machines. Anyone else's name (a package's author) is looked for
    as written: "Hello World" and "Thanks, John" in public text are not those people."""
    types = {**{v: t for v, t in (own or {}).items()}, **{v: t for v, (t, _) in found.items()}}
    accounts = {v.lower() for v, t in types.items() if t in USERISH}
    # An address's local part links only in a form made of both names ("julien@" is anyone's).
    mailboxes = {v.partition("@")[0].lower() for v, t in types.items() if t.endswith(".email")}
    out = set()
    for v, (t, _) in found.items():
        if t in NAMES:
            made = accounts_of(v)
            words = {ascii_fold(w) for w in v.split()}
            if (
                t.startswith("identity.")
                or made & accounts
                or {m for m in made & mailboxes if m not in words}
            ):
                out.add(v)
    return out


def scan_forms(
    value: str, type_: str, linked: bool = False, accounts: frozenset[str] = frozenset()
) -> set[str]:
    """The texts whose presence in a file means ``value`` may be there to redact: the value, or
    for a guarded account name its identity-place forms; for a person ``linked_people`` holds,
    the other forms; for the user (``identity.name``) also the first name's greeting and sign-off
    forms and, when the first name is one of the ``accounts`` (lower case), the last name (the
    first pass may have redacted the first name as the username out of "Þórsson, Eyvindur": the
    second pass reads the source again)."""
    out: set[str] = set()
    own = type_.startswith("identity.")
    forms = name_forms(value.strip()) if type_ in NAMES and linked else []
    words = value.split()
    if forms and own and ascii_fold(words[0]) in accounts:
        out.update((" ".join(words[1:]), words[-1]))
    for v, mode in [(value, FoundValues.mode_of(value, type_)), *forms]:
        if mode == PLACE:
            out.update(v + a for a in _PLACE_AFTER)
            out.update(b + v for b in _PLACE_BEFORE)
        elif mode == CUE:
            if not own:
                continue  # (the module's docstring: a colleague's first name alone sends no file back)
            out.update(f"{g}{sep}{v}" for g in GREETINGS + REPLIES for sep in (" ", ", ", ",  ", "! ", ": "))
            out.update(
                (f"{v} here", f"{v}'s here", f"—{v}", f"— {v}", f"-- {v}", f"–{v}", f"– {v}", f"\n{v}")
            )
        else:
            out.update((v, *encoded_forms(v, type_)))
    return out


class Scanner:
    """Which files still hold one of the values in clear: one Aho-Corasick pass over their bytes
    (lower-cased), read in blocks. A superset (a value inside a placeholder's neighbour, a word
    boundary not checked): the second pass decides what is redacted. Given the found values
    with their types, a guarded account name or a first name is looked for in its places'
    forms only (``scan_forms``): "will" in prose sends no file to the second pass."""

    BLOCK = 8 << 20

    def __init__(self, values: Found | Iterable[str], own: dict[str, str] | None = None):
        """``own``: the user's own values (``DetectConfig.identity``): their accounts link people."""
        if isinstance(values, dict):
            linked = linked_people(values, own)
            accounts = frozenset(
                v.lower()
                for v, t in {**(own or {}), **{v: t for v, (t, _) in values.items()}}.items()
                if t in USERISH
            )
            texts = {f for v, (t, _) in values.items() for f in scan_forms(v, t, v in linked, accounts)}
        else:
            texts = set(values)
        words = sorted({f for v in texts for f in forms(v)})
        self._longest = max((len(w) for w in words), default=0)
        # A DFA: it reads every output file (built in ~0.05 s for 2,000 words, it searches them in
        # a third of the default NFA's time).
        self._auto = (
            ahocorasick_rs.BytesAhoCorasick(words, implementation=ahocorasick_rs.Implementation.DFA)
            if words
            else None
        )

    def holds(self, path: Path) -> bool:
        if self._auto is None:
            return False
        tail = b""
        try:
            with open(path, "rb") as fh:
                while True:
                    block = fh.read(self.BLOCK)
                    if not block:
                        return False
                    data = tail + block.lower()
                    if self._auto.find_matches_as_indexes(data):
                        return True
                    tail = data[-self._longest :] if self._longest > 1 else b""
        except OSError:
            return False


class FoundValues(ExactValues):
    """The dataset's found values as exact values, each with the type and action it was found
    with (the same placeholder everywhere)."""

    name = DETECTOR
    high_confidence = False

    def __init__(self, found: Found, own: dict[str, str] | None = None):
        """``own``: the user's own values (``DetectConfig.identity``): their accounts link people too."""
        self._linked = linked_people(found, own)
        super().__init__({v: t for v, (t, _) in found.items()})
        self._review = {v.lower() for v, (_, a) in found.items() if a == REVIEW}

    @staticmethod
    def bounded(type_: str) -> bool:
        return not unbounded(type_)

    def formable(self, value: str, type_: str) -> bool:
        return value in self._linked

    @staticmethod
    def mode_of(value: str, type_: str) -> int:
        return value_mode(value, type_, not unbounded(type_) or typed(value.strip(), type_))

    def mode(self, value: str, type_: str) -> int:
        return self.mode_of(value, type_)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        spans = super().scan(text, leaf)
        return [
            Span(
                s.start,
                s.end,
                s.type,
                DETECTOR,
                CONFIDENCE,
                REVIEW if text[s.start : s.end].lower() in self._review else REDACTED,
            )
            for s in spans
        ]
