"""The user's own identity and known secrets, matched exactly in one multi-pattern pass.

Values come from ``tracepub.identity.harvest`` (git config, $USER, home, hostname, credential
files, secret-like environment variables) plus ``--secret`` and ``tracepub.toml``. They are
matched with one Aho-Corasick automaton, case-insensitively, so the cost does not grow with the
number of values. Names and usernames need word boundaries ("al" must not match "also");
secrets do not (a secret inside a longer string is still a secret).
"""

from __future__ import annotations

import re

import ahocorasick_rs

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.secrets.keywords import KeywordIndex
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

# Types matched only at word boundaries.
_BOUNDED = {"identity.username", "identity.name", "identity.hostname", "custom.text"}


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


class ExactValues(Detector):
    """Exact, case-insensitive matching of a fixed set of values, each with its type."""

    name = "identity"
    high_confidence = True
    sees_raw = True  # matches the literal text; uses the escaped view only for word boundaries
    context_free = True

    def __init__(self, values: dict[str, str], name: str = "identity"):
        self.name = name
        self._types: dict[str, str] = {}
        for value, type_ in values.items():
            if not value or not value.strip():
                continue
            low = value.lower()
            # On two values that fold to the same text, keep the most specific type.
            if low in self._types and self._types[low] != type_:
                if type_.startswith("identity.username"):
                    continue
            self._types[low] = type_
        self._ready = bool(self._types)
        self._words = list(self._types)
        # Every occurrence, overlapping ones included (a value inside another value)
        self._auto = ahocorasick_rs.AhoCorasick(self._words, matchkind=ahocorasick_rs.MatchKind.Standard) \
            if self._ready else None
        self.trigger = Trigger(literals=tuple(self._types))
        self._index: KeywordIndex | None = None  # the values, read from the engine's prefilter pass

    def share_hits(self, prefilter) -> None:
        """Called by the engine: value hits come from its prefilter's pass over the string."""
        if self._ready:
            self._index = KeywordIndex(self._types)
            self._index.share(prefilter)
            self._kinds = [(self._types[w], self.bounded(self._types[w])) for w in self._index.keywords]

    def __bool__(self) -> bool:
        return self._ready

    @staticmethod
    def bounded(type_: str) -> bool:
        """Whether a value of this type counts only between word boundaries."""
        return type_ in _BOUNDED

    @property
    def types(self) -> set[str]:
        return set(self._types.values())

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        if not self._ready:
            return []
        found = self._index.find_text(text) if self._index is not None else None
        if found is not None:  # (word index, start, end) in any order: spans are sorted later
            kinds, view, n, name = self._kinds, escaped_view(text), len(text), self.name
            out = []
            for j, start, end in found:
                type_, bounded = kinds[j]
                if bounded and ((start > 0 and _is_word(view[start - 1])) or (end < n and _is_word(view[end]))):
                    continue
                out.append(Span(start, end, type_, name, 1.0))
            return out
        low = text.lower()
        if len(low) != len(text):  # a rare case fold that changes length: search the slow way
            return self._scan_regex(text)
        assert self._auto is not None
        words = self._words
        hits = [(words[k], a, b) for k, a, b in self._auto.find_matches_as_indexes(low, overlapping=True)]
        spans = []
        view = escaped_view(text)
        for word, start, end in hits:
            type_ = self._types[word]
            if self.bounded(type_) and (
                (start > 0 and _is_word(view[start - 1])) or (end < len(text) and _is_word(view[end]))
            ):
                continue
            spans.append(Span(start, end, type_, self.name, 1.0))
        return spans

    def _scan_regex(self, text: str) -> list[Span]:
        spans = []
        for word, type_ in self._types.items():
            for m in re.finditer(re.escape(word), text, re.IGNORECASE):
                s, e = m.span()
                if self.bounded(type_) and (
                    (s > 0 and _is_word(text[s - 1])) or (e < len(text) and _is_word(text[e]))
                ):
                    continue
                spans.append(Span(s, e, type_, self.name, 1.0))
        return spans


# Home folders of any user, in plain and in the harnesses' encoded folder names.
_GENERIC_USERS = {
    "shared", "public", "user", "users", "username", "runner", "ubuntu", "root", "admin", "guest",
    "vagrant", "ec2-user", "node", "app", "default", "you", "me", "name", "home", "nobody", "linuxbrew",
    "all users", "default user", "administrator", "your-username", "yourname", "your_username", "youruser",
    "www-data", "jenkins", "circleci", "travis", "codespace", "vscode", "coder", "dev", "developer",
}
_HOME = re.compile(
    r"(?:(?<![\w.-])/home/|(?<![\w.-])/Users/|\b[A-Za-z]:\\{1,2}Users\\{1,2})"
    r"([A-Za-z0-9_][A-Za-z0-9._-]{0,63})"
)
# Encoded folder names (Claude ``-Users-NAME-src-app``, pi ``--home-NAME-src--``): the name ends at "-".
_ENCODED_HOME = re.compile(r"(?<![A-Za-z0-9])-(?:home|Users)-([A-Za-z0-9_][A-Za-z0-9._]{0,63})(?=-|$|[^\w.])")


def _finditer_at(rx: re.Pattern, text: str, starts: list[int]) -> list[re.Match]:
    """``rx.finditer(text)``, given every position where a match can start: a match tried at
    each of them in order, skipping those inside the last match. Home-path patterns begin with
    look-behinds and alternatives, so ``re`` tries them at every character (about 10 MB/s);
    every match holds "home" or "Users" at a fixed distance from its start."""
    out = []
    end = 0
    for p in sorted(set(starts)):
        if p < end:  # also skips negative positions
            continue
        m = rx.match(text, p)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


def _home_matches(text: str) -> list[re.Match]:
    """``[*_HOME.finditer(text), *_ENCODED_HOME.finditer(text)]``, tried where a match can start:
    before "home" or "Users", by the character in front of it ("/home/", "-Users-", "C:\\Users";
    a start where the pattern cannot match adds nothing)."""
    plain: list[int] = []
    encoded: list[int] = []
    for word in ("home", "Users"):
        q = text.find(word, 1)  # (a match starts before the word)
        while q >= 0:
            c = text[q - 1]
            if c == "/":
                plain.append(q - 1)
            elif c == "-":
                encoded.append(q - 1)
            elif c == "\\" and word == "Users":
                plain += (q - 3, q - 4)
            q = text.find(word, q + 1)
    if not encoded:
        return _finditer_at(_HOME, text, plain)
    return [*_finditer_at(_HOME, text, plain), *_finditer_at(_ENCODED_HOME, text, encoded)]


class HomePaths(Detector):
    """Usernames inside home-folder paths (``/home/NAME``, ``/Users/NAME``, ``C:\\Users\\NAME``,
    ``-home-NAME-src``): other people's usernames are personal data too."""

    name = "home-path"
    high_confidence = False
    context_free = True
    trigger = Trigger(literals=("home", "users"), lines=True)  # a path never spans lines

    # Sees the literal text (``C:\\Users\\nick`` must not lose its "n" to an escape) and the view.
    sees_raw = True

    TYPE, CONFIDENCE = "pii.username", 0.9

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return [Span(a, b, self.TYPE, self.name, self.CONFIDENCE) for a, b in self._found(text)]

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        """``scan`` on each window, its spans shifted (made once, not made and copied)."""
        return [Span(a + w0, b + w0, self.TYPE, self.name, self.CONFIDENCE) for w0, w1 in windows
                for a, b in self._found(text[w0:w1])]

    @staticmethod
    def _found(text: str) -> dict[tuple[int, int], None]:
        if "home" not in text and "Users" not in text:
            return {}
        view = escaped_view(text)
        found: dict[tuple[int, int], None] = {}
        names = _NAMES
        for t in (text, view) if view is not text else (text,):
            for m in _home_matches(t):
                raw = m.group(1)
                size = names.get(raw)
                if size is None:
                    size = _name_size(raw)
                    if len(names) >= 10_000:
                        names.clear()
                    names[raw] = size
                if size:
                    start = m.start(1)
                    found[(start, start + size)] = None
        return found


# A home folder's name as matched -> the length of the username in it, 0 for none (the same few
# names recur in every path of a session)
_NAMES: dict[str, int] = {}


def _name_size(raw: str) -> int:
    name = raw.rstrip(".")
    if name.lower() in _GENERIC_USERS or name.startswith(".") or name.isdigit():
        return 0
    return len(name)
