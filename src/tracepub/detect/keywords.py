"""One multi-keyword pass over a text: which literals occur, and where.

Every secret detector starts here, so it must be fast on text that holds nothing: the
keywords go into one Aho-Corasick automaton compiled to a DFA (``ahocorasick_rs``, the Rust
``aho-corasick`` crate), which scans lower-cased text at a few hundred MB/s whatever the
number of keywords. (pyahocorasick's trie, used for exact values in ``identity.py``, slows
down with many keywords that start with different characters: each character then costs a
linear search among the root's children.)
"""

from __future__ import annotations

from collections.abc import Iterable

import ahocorasick_rs


class KeywordIndex:
    """Overlapping matches of fixed lower-case keywords in lower-cased text."""

    def __init__(self, keywords: Iterable[str]):
        self.keywords: list[str] = list(dict.fromkeys(k for k in keywords if k))
        self._ac = (
            ahocorasick_rs.AhoCorasick(self.keywords, implementation=ahocorasick_rs.Implementation.DFA)
            if self.keywords
            else None
        )

    def __bool__(self) -> bool:
        return self._ac is not None

    def find(self, low: str) -> list[tuple[int, int, int]]:
        """``(keyword index, start, end)`` for every occurrence, overlaps included."""
        if self._ac is None:
            return []
        return self._ac.find_matches_as_indexes(low, overlapping=True)
