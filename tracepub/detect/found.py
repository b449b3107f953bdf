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

What is not carried everywhere (``propagates``): the user's own identity and reviewers' added
texts (exact values already), values too short to be the same thing by more than chance, and a
single word that is a common word or a generic account name (``mark``, ``admin``, ``ubuntu``):
those are redacted where a detector saw them, not in every sentence (ARCHITECTURE.md, "Found
once, redacted everywhere").
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from pathlib import Path

import ahocorasick_rs

from tracepub.detect.base import priority
from tracepub.detect.identity import ExactValues
from tracepub.detect.text import escaped_view
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
# Generic account names: redacted in a home path, never looked for in prose and code.
GENERIC = frozenset({
    "shared", "public", "user", "users", "username", "runner", "ubuntu", "root", "admin", "guest",
    "vagrant", "ec2-user", "node", "app", "default", "you", "me", "name", "home", "nobody", "linuxbrew",
    "administrator", "www-data", "jenkins", "circleci", "travis", "codespace", "vscode", "coder", "dev",
    "developer", "test", "tester", "docker", "git", "postgres", "mysql", "redis", "nginx", "apache",
})
_NOT_CARRIED = ("identity.", "custom.text")


def unbounded(type_: str) -> bool:
    """A secret inside a longer string is still a secret; a name inside a word is not the name."""
    return type_.startswith(("secret.", "custom."))


@functools.lru_cache(maxsize=65536)
def _common(word: str) -> bool:
    from wordfreq import zipf_frequency

    return word in GENERIC or zipf_frequency(word, "en") >= COMMON_ZIPF


@functools.lru_cache(maxsize=65536)
def _very_common(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= VERY_COMMON_ZIPF


def warm() -> None:
    """Load the word frequencies before the workers fork (they share them)."""
    _common("warm")
    _very_common("warm")


def propagates(value: str, type_: str) -> bool:
    """Whether a value redacted in one place is redacted at every other occurrence."""
    if type_.startswith(_NOT_CARRIED):
        return False
    core = value.strip()
    if unbounded(type_):
        return len(core) >= MIN_SECRET
    if len(core) < MIN_WORDY:
        return False
    if core.isalpha() and _common(core.lower()):
        return False
    words = core.split()
    if len(words) > 1 and all(w.isalpha() and _very_common(w.lower()) for w in words):
        return False  # "Now I", "See Also": a phrase a name recognizer took for a person
    return True


def _bounded_at(view: str, start: int, end: int) -> bool:
    return (start == 0 or not _word(view[start - 1])) and (end == len(view) or not _word(view[end]))


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def copies(text: str, spans: list[Span]) -> list[Span]:
    """Other occurrences, in ``text``, of the values its spans cover, as spans of the same type,
    detector and action (none overlapping a span already there)."""
    values: dict[str, Span] = {}
    for s in spans:
        value = text[s.start : s.end]
        if value not in values and propagates(value, s.type):
            values[value] = s
    if not values:
        return []
    taken = sorted((s.start, s.end) for s in spans)
    low = text.lower()
    if len(low) != len(text):
        low = text  # a case fold that changes length: exact matches only
    view = escaped_view(text)
    out: list[Span] = []
    for value, s in values.items():
        needle = value.lower() if low is not text else value
        bounded = not unbounded(s.type)
        i = low.find(needle)
        while i >= 0:
            j = i + len(needle)
            if (not bounded or _bounded_at(view, i, j)) and not _overlaps(taken, i, j):
                out.append(Span(i, j, s.type, s.detector, s.confidence, s.action))
            i = low.find(needle, i + 1)
    return out


def _overlaps(taken: list[tuple[int, int]], a: int, b: int) -> bool:
    return any(x < b and a < y for x, y in taken)


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
    escapes), and escaped twice (JSON inside a JSON string); lower case (the scan folds case)."""
    out = set()
    low = value.lower()
    for v in (low, value):
        once = json.dumps(v, ensure_ascii=False)[1:-1]
        ascii_once = json.dumps(v)[1:-1]
        for f in (v, once, ascii_once, json.dumps(once, ensure_ascii=False)[1:-1], json.dumps(ascii_once)[1:-1]):
            out.add(f.encode("utf-8", "surrogatepass").lower())
    return out


class Scanner:
    """Which files still hold one of the values in clear: one Aho-Corasick pass over their bytes
    (lower-cased), read in blocks. A superset (a value inside a placeholder's neighbour, a word
    boundary not checked): the second pass decides what is redacted."""

    BLOCK = 8 << 20

    def __init__(self, values: Iterable[str]):
        words = sorted({f for v in values for f in forms(v)})
        self._longest = max((len(w) for w in words), default=0)
        self._auto = ahocorasick_rs.BytesAhoCorasick(words) if words else None

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

    high_confidence = False

    def __init__(self, found: Found):
        super().__init__({v: t for v, (t, _) in found.items()}, name=DETECTOR)
        self._review = {v.lower() for v, (_, a) in found.items() if a == REVIEW}

    @staticmethod
    def bounded(type_: str) -> bool:
        return not unbounded(type_)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        spans = super().scan(text, leaf)
        return [Span(s.start, s.end, s.type, DETECTOR, CONFIDENCE,
                     REVIEW if text[s.start : s.end].lower() in self._review else REDACTED) for s in spans]
