"""Many words in one Aho-Corasick pass (ahocorasick-rs), every overlapping match: the prefilter's
automata over folded text and raw lines."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import ahocorasick_rs


class Matcher:
    """Every (start, value) of the given words in a text, overlapping ones included: one
    Aho-Corasick pass (ahocorasick-rs: three times pyahocorasick's speed on these word sets)."""

    def __init__(
        self, words: dict, ascii_only: Iterable[str] = (), not_ascii: Iterable[str] = (), dfa: bool = True
    ):
        """``ascii_only``/``not_ascii``: words looked for only in ASCII texts (``matches_ascii``) or
        only in the others (``matches``); elsewhere a capital before them makes them words that
        folded text never holds (same word indexes in both automata). ``dfa`` False: an NFA,
        ten times quicker to build and half as fast to search, for a matcher that reads little
        (file and folder names); the same matches."""
        self._words = list(words)
        self._values = [words[w] for w in self._words]
        self._longest = max((len(w) for w in self._words), default=0) + 1  # (+1: the "A" some carry)
        in_str, in_bytes = frozenset(ascii_only), frozenset(not_ascii)
        self.one_kind = frozenset(k for k, w in enumerate(self._words) if w in in_str or w in in_bytes)
        # The DFA: twice the speed of the default (an NFA) on these word sets, for more memory
        # (a few MB for all detectors' literals).
        impl = ahocorasick_rs.Implementation.DFA if dfa else ahocorasick_rs.Implementation.ContiguousNFA
        self._ac = (
            ahocorasick_rs.AhoCorasick(
                [("A" + w if w in in_str else w) for w in self._words],
                matchkind=ahocorasick_rs.MatchKind.Standard,
                implementation=impl,
            )
            if self._words
            else None
        )
        # The same words as UTF-8 bytes, for ASCII texts (``matches_ascii``); built here, before
        # the workers fork, so they share it.
        self._bac = (
            ahocorasick_rs.BytesAhoCorasick(
                [("A" + w if w in in_bytes else w).encode("utf-8", "surrogatepass") for w in self._words],
                matchkind=ahocorasick_rs.MatchKind.Standard,
                implementation=impl,
            )
            if self._words
            else None
        )

    def __bool__(self) -> bool:
        return self._ac is not None

    # A long text is searched a block at a time (blocks overlap by the longest word, so every
    # match lies whole in one): a run of "a" holds a match of a 10-"a" word at every position,
    # and one list of all of them for a 100 MB line would take gigabytes.
    BLOCK = 1 << 20

    def iter(self, text: str) -> Iterator[tuple[int, Any]]:
        """(start, value) of every match, in blocks; a match in two blocks' overlap may come twice."""
        values, ac = self._values, self._ac
        assert ac is not None
        overlap = self._longest - 1
        for a in range(0, max(1, len(text) - overlap), self.BLOCK):
            block = text[a : a + self.BLOCK + overlap] if a or len(text) > self.BLOCK + overlap else text
            for k, start, _ in ac.find_matches_as_indexes(block, overlapping=True):
                yield a + start, values[k]

    def matches(self, text: str) -> list[tuple[int, int, int]]:
        """(word index, start, end) of every match; ``value(k)`` is word k's value."""
        return self._ac.find_matches_as_indexes(text, overlapping=True)  # type: ignore[union-attr]

    def matches_ascii(self, data: bytes) -> list[tuple[int, int, int]]:
        """``matches`` of an ASCII text given as its bytes: the same list (same words, same
        automaton kind, and the str automaton searches the text's UTF-8 bytes too), but for the
        words looked for in one kind of text only (``__init__``)."""
        return self._bac.find_matches_as_indexes(data, overlapping=True)  # type: ignore[union-attr]

    def value(self, k: int) -> Any:
        return self._values[k]
