"""One multi-keyword pass over a text: which literals occur, and where.

Every secret detector starts here, so it must be fast on text that holds nothing: the
keywords go into one Aho-Corasick automaton compiled to a DFA (``ahocorasick_rs``, the Rust
``aho-corasick`` crate), which scans lower-cased text at a few hundred MB/s whatever the
number of keywords.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING

import ahocorasick_rs

from tracepub.detect.text import folded

if TYPE_CHECKING:
    from tracepub.detect.prefilter import Prefilter

# The only characters whose lower case is longer (İ) or ASCII (the Kelvin sign): where one occurs,
# hits in folded text are not hits in ``text.lower()``.
_CASE_ODD = ("\u0130", "\u212a")
_odd_last: list = [None, False]  # (the last text beyond ASCII asked about, whether it holds one)


class _Router:
    """The keyword indexes sharing one prefilter, and their hits in the string it read last:
    one pass over its hits for all of them (each index iterating every detector's hits on its
    own was most of ``find_text``: ~600k hits read per 30 MB for ~140k kept)."""

    def __init__(self) -> None:
        # prefilter word index -> ((slot, keyword index), ...) for keywords without a digit (the
        # word is the keyword); for keywords with one, by the keyword: a word such as "dev000@x.io"
        # stands for every keyword with its digits in those places, hundreds of found values
        self.plain: dict[int, tuple[tuple[int, int], ...]] = {}
        self.digits: dict[int, dict[str, tuple[tuple[int, int], ...]]] = {}
        self.slots = 0
        self.text: str | None = None  # the text and hits list ``out`` was made from
        self.hits: list | None = None
        self.out: list[list[tuple[int, int, int]]] = []

    def add(self, table: dict[int, tuple[tuple[int, str, bool], ...]]) -> int:
        slot = self.slots
        self.slots += 1
        for k, entries in table.items():
            for j, kw, digit in entries:
                if digit:
                    by_kw = self.digits.setdefault(k, {})
                    by_kw[kw] = by_kw.get(kw, ()) + ((slot, j),)
                else:
                    self.plain[k] = self.plain.get(k, ()) + ((slot, j),)
        self.text = self.hits = None
        return slot

    def route(self, text: str, hits: list) -> list[list[tuple[int, int, int]]]:
        """Each slot's ``(keyword index, start, end)`` among ``hits``, in their order."""
        if self.text is text and self.hits is hits:
            return self.out
        out: list[list[tuple[int, int, int]]] = [[] for _ in range(self.slots)]
        plain, digits = self.plain, self.digits
        for k, a, b in hits:
            entries = plain.get(k)
            if entries is None:
                by_kw = digits.get(k)
                if by_kw is None:
                    continue
                entries = by_kw.get(text[a:b].lower())
                if entries is None:
                    continue
            for slot, j in entries:
                out[slot].append((j, a, b))
        self.text, self.hits, self.out = text, hits, out  # (holds the text: no reuse of its id)
        return out


_ROUTERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # prefilter -> _Router


class KeywordIndex:
    """Overlapping matches of fixed lower-case keywords in lower-cased text."""

    def __init__(self, keywords: Iterable[str]):
        self.keywords: list[str] = list(dict.fromkeys(k for k in keywords if k))
        self._ac = (
            ahocorasick_rs.AhoCorasick(self.keywords, implementation=ahocorasick_rs.Implementation.DFA)
            if self.keywords
            else None
        )
        # (prefilter, {prefilter word index: ((keyword index, keyword, has a digit), ...)})
        self._shared: tuple[Prefilter, dict[int, tuple[tuple[int, str, bool], ...]]] | None = None

    def share(self, prefilter: Prefilter) -> None:
        """Read hits from ``prefilter``'s pass over the string (``find_text``) where every keyword is
        one of its literals (ASCII, lower case); otherwise ``find_text`` keeps searching itself."""
        words = prefilter.literal_words()
        table: dict[int, list[tuple[int, str, bool]]] = {}
        for j, kw in enumerate(self.keywords):
            k = words.get(folded(kw))
            if k is None or not kw.isascii() or kw != kw.lower():
                self._shared = None
                return
            table.setdefault(k, []).append((j, kw, any(c.isdigit() for c in kw)))
        self._shared = (prefilter, {k: tuple(v) for k, v in table.items()})
        router = _ROUTERS.get(prefilter)
        if router is None:
            router = _ROUTERS[prefilter] = _Router()
        self._router, self._slot = router, router.add(self._shared[1])

    def __bool__(self) -> bool:
        return self._ac is not None

    def find(self, low: str) -> list[tuple[int, int, int]]:
        """``(keyword index, start, end)`` for every occurrence, overlaps included."""
        if self._ac is None:
            return []
        return self._ac.find_matches_as_indexes(low, overlapping=True)

    def find_text(self, text: str) -> list[tuple[int, int, int]] | None:
        """``find(text.lower())`` without lower-casing or searching ``text`` again: the shared
        prefilter's hits (folded text: ASCII lower case, digits as ``0``) narrowed to this index's
        keywords, a keyword with a digit checked against the text. The same hits in the same
        order (both automata report overlapping matches by end, the longest first). None: not
        shared, not the string the prefilter read last (a cached plan), or the text holds a
        character whose case fold changes length or turns ASCII (then the caller lower-cases it
        and calls ``find``).

        A folded hit of a digit-free ASCII keyword is that keyword in ``text.lower()``: a non-ASCII
        character folds to itself, so every character of the hit is ASCII.
        """
        shared = self._shared
        if shared is None:
            return None
        if not text.isascii():
            odd = _odd_last  # the same text is asked for by each detector that reads the pass
            if odd[0] is not text:
                odd[0], odd[1] = text, _CASE_ODD[0] in text or _CASE_ODD[1] in text
            if odd[1]:
                return None
        hits = shared[0].literal_hits(text)
        if hits is None:
            return None
        return self._router.route(text, hits)[self._slot]  # (callers only read it)
