"""The engine: runs the detectors a string can trigger on it, and returns its final spans.

One instance per worker, built once (the prefilter's automata, the rules, the NER model) and
kept warm: its caches are what make repeated tool output cheap. The detectors themselves are
chosen in ``registry.py``.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import ahocorasick_rs

from tracepub.detect.base import Detector, priority
from tracepub.detect.found import copies
from tracepub.detect.pii.name_shape import on_copyright_line
from tracepub.detect.prefilter import Plan
from tracepub.detect.registry import DetectConfig, build_detectors
from tracepub.detect.text import escaped_view, occurrences
from tracepub.model import REDACTED, Leaf, Span
from tracepub.redact.resolve import resolve


class Engine:
    """Runs the detectors a string can trigger, drops allowed values, resolves overlaps.

    Speed (ARCHITECTURE.md, "Speed"): a combined prefilter (``detect.prefilter``) picks the
    detectors whose cheap trigger occurs in the string, so text that holds nothing costs one
    Aho-Corasick pass and a few regex searches. Results are cached per distinct string: traces
    repeat tool output two or three times (Claude's ``tool_result`` and ``toolUseResult``,
    Codex's ``function_call_output`` and ``exec_command_end``), under different keys, so the
    spans of detectors that ignore the key (``context_free``) are cached by text alone and the
    second copy costs a hash and a look-up. Long strings are keyed by a 16-byte digest, so the
    cache holds no text; it is bounded by entry count (about 100 bytes an entry).

    Detectors see JSON escapes resolved (``escaped_view``, same offsets) unless they declare
    ``sees_raw``; the prefilter reads the text as it is (a trigger in the view is in the text).

    People found in a file are remembered for the rest of that file: a name NER or a commit
    trailer found is redacted wherever else it appears (STS lines keep the source's copy of a
    prompt beside ``message.content``; a name in a prompt comes back in a tool output). The
    memory is per file (``start_unit``) and outside the cache, so output does not depend on how
    files are spread over worker processes.
    """

    SMALL = 64  # strings up to this length are keyed by themselves (keys, ids, short values)
    FEW_PEOPLE = 2  # up to this many people remembered, they are looked for one by one
    CACHE_MAX = 100_000  # entries per table; a full table is cleared (bounded memory)

    def __init__(
        self,
        cfg: DetectConfig,
        detectors: list[Detector] | None = None,
        line_literals: tuple[str, ...] = (),
        few: bool = False,
    ):
        """``few``: the engine reads a few short texts (file and folder names): its automata are
        the kind quick to build (``Matcher``'s ``dfa``), the same answers."""
        from tracepub.detect.prefilter import Prefilter

        self.cfg = cfg
        given = detectors if detectors is not None else build_detectors(cfg)
        self.detectors = [part for d in given for part in d.parts()]
        self.prefilter = Prefilter(self.detectors, line_literals, dfa=not few)
        for d in self.detectors:  # keyword detectors read their hits from the prefilter's pass
            share = getattr(d, "share_hits", None)
            if share is not None:
                share(self.prefilter)
        self._free = [getattr(d, "context_free", False) for d in self.detectors]
        # Home-path usernames the exact values found too (the user's own: most of them) are dropped
        # before resolve, which would keep the exact value's span anyway (``resolve.shadows``).
        # Both are context-free and run in registration order, the exact values first.
        from tracepub.detect.identity import ExactValues, HomePaths

        exact = [i for i, d in enumerate(self.detectors) if type(d) is ExactValues]
        home = [i for i, d in enumerate(self.detectors) if isinstance(d, HomePaths)]
        self._exact_i, self._home_i = (
            (exact[0], home[0]) if exact and home and exact[0] < home[0] else (-1, -1)
        )
        # The exact values' types that rank as high as a home-path username or higher: one of
        # their spans more confident than it, redacted, over the same text shadows it.
        self._home_under: frozenset[str] = frozenset()
        self._home_confidence = 1.0
        if self._home_i >= 0:
            home_d, exact_d = self.detectors[self._home_i], self.detectors[self._exact_i]
            assert isinstance(home_d, HomePaths) and isinstance(exact_d, ExactValues)
            self._home_confidence = home_d.CONFIDENCE
            self._home_under = frozenset(t for t in exact_d.types if priority(t) >= priority(home_d.TYPE))
        self._allow = {v.lower() for v in cfg.allow_values}
        self._allow_rx = [re.compile(p) for p in cfg.allow_regexes]
        # (text or digest, prose) -> [spans of context-free detectors, contextual steps to run,
        # those spans final (allowed values dropped, overlaps resolved) or None until needed]
        self._by_text: dict[tuple, list] = {}
        # (text or digest, prose, key, harness) -> final spans
        self._by_leaf: dict[tuple, list[Span]] = {}
        self.stats: Counter[str] = Counter()
        self._raw = [getattr(d, "sees_raw", False) for d in self.detectors]
        self._raw_ids = frozenset(i for i, r in enumerate(self._raw) if r)
        # Detectors that also run on any string under one of their keys (Trigger.keys).
        self._by_key: dict[str, list[int]] = {}
        # ... and on any string under a key containing one of their key_words (secret-like names).
        self._key_words = [
            (w.lower(), i)
            for i, d in enumerate(self.detectors)
            for w in (d.trigger.key_words if d.trigger is not None else ())
        ]
        self._key_extra: dict[str, tuple[int, ...]] = {}
        # Stateful detectors (``secrets.bare``: what a file's last command read) see every string
        # under their keys, outside the caches (``scan``), and start again with each file.
        self._stateful = [d for d in self.detectors if d.stateful]
        # (they read nothing under other keys: most strings, ids and timestamps, are not asked)
        self._stateful_keys = frozenset(
            k.lower() for d in self._stateful if d.trigger is not None for k in d.trigger.keys
        )
        for i, d in enumerate(self.detectors):
            for k in d.trigger.keys if d.trigger is not None and d not in self._stateful else ():
                self._by_key.setdefault(k.lower(), []).append(i)
        self._people: set[str] = set()
        # [names, leftmost-first automaton (UTF-8), overlapping one (bytes, for ASCII texts), the same (str)]
        self._people_auto: list | None = None
        self._people_line_auto: ahocorasick_rs.AhoCorasick | None = None  # for raw lines (line_hits)
        self._people_version = 0  # changes whenever _people does
        self._seen_memo: dict[str | bytes, tuple] = {}  # text key -> (people version, people seen)
        self._last: tuple[str | None, str | bytes] = (None, "")  # the text last scanned, its cache key

    def start_unit(self) -> None:
        for d in self._stateful:
            d.start_unit()
        self._people.clear()
        self._people_auto = self._people_line_auto = None
        self._people_version += 1

    def seed_people(self, names) -> None:
        """Start with these people remembered (a piece of a split file: those found before it)."""
        self._people.update(names)
        self._people_auto = self._people_line_auto = None
        self._people_version += 1

    def people(self) -> list[str]:
        return sorted(self._people)

    @property
    def remembered(self) -> int:
        """How many people the engine remembers in this file (it only grows until ``start_unit``)."""
        return len(self._people)

    @property
    def ner_model(self) -> str | None:
        for d in self.detectors:
            if getattr(d, "ner_model", None):
                return d.ner_model  # type: ignore[attr-defined]
        return None

    # Strings longer than HUGE (256 kB) are scanned in pieces of about PIECE characters, cut at a line
    # break where one is near, each read with OVERLAP characters of its neighbours on both
    # sides: a value up to OVERLAP long lies whole in one piece. Time and memory then grow
    # linearly with the string whatever it holds (a 100 MB run of one letter makes millions of
    # trigger hits in one pass over it). Shorter strings, nearly all, are scanned whole.
    HUGE = 256 << 10
    PIECE = 128 << 10
    OVERLAP = 16 << 10

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        if len(text) > self.HUGE:
            return self._scan_pieces(text, leaf)
        spans = self._scan(text, leaf)
        if self._stateful and leaf.key and leaf.key.lower() in self._stateful_keys:
            for d in self._stateful:
                more = d.scan(text, leaf)
                if more:
                    spans = self._final(text, spans + more)
        if self._people and " " in text:  # a remembered name has two words or more
            # The same string again (under any key) with the same people: the same answer.
            tk = self.text_key(text)
            memo = self._seen_memo.get(tk)
            if memo is not None and memo[0] == self._people_version:
                seen = memo[1]
            else:
                seen = self._seen_people(text)
                if len(self._seen_memo) >= 20_000:
                    self._seen_memo.clear()
                self._seen_memo[tk] = (self._people_version, seen)
            if seen:
                spans = resolve(spans + seen)
        for s in spans:
            if s.type == "pii.person" and s.action == REDACTED and " " in text[s.start : s.end].strip():
                value = text[s.start : s.end]
                if value not in self._people:
                    self._people.add(value)
                    self._people_auto = self._people_line_auto = None
                    self._people_version += 1
        return spans

    def _scan_pieces(self, text: str, leaf: Leaf) -> list[Span]:
        spans: list[Span] = []
        for a, b in pieces(text, self.PIECE, self.OVERLAP):
            for s in self.scan(text[a:b], leaf):
                spans.append(Span(s.start + a, s.end + a, s.type, s.detector, s.confidence, s.action))
        spans = resolve(spans)
        more = copies(text, spans)  # a value found in one piece, again in another
        return resolve(spans + more) if more else spans

    def _seen_people(self, text: str) -> list[Span]:
        """Every occurrence of a remembered person, overlapping ones included, at word bounds.
        Most texts hold none: one or two names are looked for with ``str.find``; more, with a
        leftmost-first Aho-Corasick pass (ahocorasick-rs: twice as fast as an overlapping one,
        and it finds a match whenever there is one), then the overlapping pass if it found one.
        The automata are rebuilt whenever a person is added: the cheap-to-build kind, and the
        overlapping one only once a text holds a name."""
        people = self._people_auto
        if people is None:
            words = sorted(self._people)
            people = self._people_auto = [words, None, None, None]
        words = people[0]
        found: list[tuple[int, int, int]] | None = None
        if len(words) > self.FEW_PEOPLE:
            # Is anyone there? Asked of the text's UTF-8 (ahocorasick-rs is several times faster
            # on bytes than on str): a name occurs in a text where its UTF-8 occurs in the text's.
            # An ASCII text's byte offsets are its character offsets: found there as bytes too.
            ascii_text = text.isascii()
            first = people[1]
            if first is None:
                first = people[1] = _people_automaton(words, True, overlapping=False)
            data = text.encode("ascii") if ascii_text else text.encode("utf-8", "surrogatepass")
            if not first.find_matches_as_indexes(data):
                return []
            slot = 2 if ascii_text else 3
            auto = people[slot]
            if auto is None:
                auto = people[slot] = _people_automaton(words, ascii_text, overlapping=True)
            try:
                found = auto.find_matches_as_indexes(data if ascii_text else text, overlapping=True)
            except UnicodeEncodeError:  # a lone surrogate (JSON allows one): search word by word
                pass
        if found is None:
            found = [(k, i, i + len(w)) for k, w in enumerate(words) for i in occurrences(text, w)]
        out = []
        for _, start, end in found:
            if (
                (start == 0 or not text[start - 1].isalnum())
                and (end == len(text) or not text[end].isalnum())
                and not on_copyright_line(text, start)  # a rights holder stays (ARCHITECTURE.md)
            ):
                out.append(Span(start, end, "pii.person", "names:seen-in-file", 0.85))
        return out

    def _scan(self, text: str, leaf: Leaf) -> list[Span]:
        # Tiny distinct strings (ids, timestamps: ~20k per 30 MB) make this path's fixed cost
        # count: tables and counters are read once.
        tk = text if len(text) <= self.SMALL else _digest(text)
        self._last = (text, tk)
        prose = leaf.prose
        lk = (tk, prose, leaf.key, leaf.harness)
        by_leaf = self._by_leaf
        spans = by_leaf.get(lk)
        stats = self.stats
        if spans is not None:
            stats["cache_hits"] += 1
            return spans
        stats["scanned"] += 1
        view = escaped_view(text)
        entry = self._by_text.get((tk, prose))
        if entry is None:
            free: list[Span] = []
            contextual: Plan = []
            is_free = self._free
            exact_i, home_i = self._exact_i, self._home_i
            exact: list[Span] = []
            for step in self._plan(text, view, prose):
                i = step[0]
                if is_free[i]:
                    got = self._run(step, text, view, leaf)
                    if i == exact_i:
                        exact = got
                    elif i == home_i and exact and got:
                        # Where ``resolve.shadows`` holds (a narrower test: rank >= from the types
                        # above, then confidence strictly higher), without a look-up per span.
                        strong, confidence = self._home_under, self._home_confidence
                        shadowed = {
                            (s.start, s.end)
                            for s in exact
                            if s.type in strong
                            and s.confidence > confidence
                            and s.action == REDACTED
                            and s.end > s.start
                        }
                        if shadowed:
                            got = [s for s in got if (s.start, s.end) not in shadowed]
                    free.extend(got)
                else:
                    contextual.append(step)
            entry = [free, contextual, None]
            _put(self._by_text, (tk, prose), entry, self.CACHE_MAX)
        else:
            stats["text_hits"] += 1
        steps = entry[1]
        key = leaf.key
        if key and (self._by_key or self._key_words):
            for_key = self._for_key(key)
            if for_key:
                extra = [i for i in for_key if all(s[0] != i for s in steps)]
                if extra:
                    steps = [*steps, *((i, None) for i in extra)]
        added: list[Span] = []
        for step in steps:
            added.extend(self._run(step, text, view, leaf))
        if added:
            spans = self._final(text, entry[0] + added)
        else:
            # Only context-free spans: the same final spans under every key (a tool output
            # again as Claude's toolUseResult), worked out once. The lists are only read.
            spans = entry[2]
            if spans is None:
                spans = entry[2] = self._final(text, list(entry[0]))
        _put(by_leaf, lk, spans, self.CACHE_MAX)
        return spans

    def _final(self, text: str, spans: list[Span]) -> list[Span]:
        """A text's spans without allowed values, overlaps resolved, and every other copy of a
        value they cover redacted too (``found.copies``: ``token = 'x' | 'x'``)."""
        if spans:
            if self._allow or self._allow_rx:
                spans = [s for s in spans if not self._allowed(text[s.start : s.end])]
            if len(spans) > 1:
                spans = resolve(spans)
            more = copies(text, spans)
            if more:
                spans = resolve(spans + more)
        return spans

    def text_key(self, text: str) -> str | bytes:
        """What the caches know ``text`` by: itself when short, else a 16-byte digest (made
        once: the text just scanned has it already)."""
        last = self._last
        if last[0] is text:
            return last[1]
        return text if len(text) <= self.SMALL else _digest(text)

    def _for_key(self, key: str) -> tuple[int, ...]:
        """Detectors to run on any string under ``key`` (Trigger.keys / key_words), cached."""
        found = self._key_extra.get(key)
        if found is None:
            low = key.lower()
            ids = dict.fromkeys(self._by_key.get(low, ()))
            ids.update(dict.fromkeys(i for w, i in self._key_words if w in low))
            found = tuple(ids)
            _put(self._key_extra, key, found, self.CACHE_MAX)
        return found

    def _plan(self, text: str, view: str, prose: bool) -> Plan:
        """Triggers are checked on what each detector reads: the escaped view, or the text."""
        if view is text:
            return self.prefilter.plan(text, prose)
        raw = self._raw
        steps = [s for s in self.prefilter.plan(view, prose) if not raw[s[0]]]
        steps += [s for s in self.prefilter.plan(text, prose, self._raw_ids) if raw[s[0]]]
        return sorted(steps, key=lambda s: s[0])

    def _run(
        self, step: tuple[int, list[tuple[int, int]] | None], text: str, view: str, leaf: Leaf
    ) -> list[Span]:
        i, windows = step
        detector = self.detectors[i]
        if not self._raw[i]:
            text = view
        if windows is None:
            return detector.scan(text, leaf)
        self.stats["windows"] += len(windows)
        scan_windows = getattr(detector, "scan_windows", None)
        if scan_windows is not None:  # finds on these lines, reads context around them
            return scan_windows(text, windows, leaf)
        out: list[Span] = []
        for a, b in windows:
            for s in detector.scan(text[a:b], leaf):
                out.append(
                    Span(s.start + a, s.end + a, s.type, s.detector, s.confidence, s.action) if a else s
                )
        return out

    @property
    def prefetches(self) -> bool:
        return any(hasattr(d, "prefetch") for d in self.detectors)

    def prefetch(self, prose: list[str]) -> None:
        """Hand the prose of many records to detectors that work faster in batches (NER)."""
        if prose:
            for d in self.detectors:
                fetch = getattr(d, "prefetch", None)
                if fetch is not None:
                    fetch(prose)

    def line_hits(self, raw: str) -> int:
        """``Prefilter.NONE``/``PROSE``/``ANY``: what can fire in this raw JSON line. People
        found earlier in the file are found again anywhere (``scan``): a line naming one is walked."""
        hits = self.prefilter.line_hits(raw)
        if hits != self.prefilter.ANY and self._people and self._people_in_line(raw):
            return self.prefilter.ANY
        return hits

    def _people_in_line(self, raw: str) -> bool:
        """Does a remembered person occur in this raw line, as written or JSON-escaped?"""
        from tracepub.detect.text import decoded_view

        if self._people_line_auto is None:
            import json

            forms = sorted({form for v in self._people for form in (v, json.dumps(v)[1:-1])})
            self._people_line_auto = ahocorasick_rs.AhoCorasick(forms)
        auto = self._people_line_auto
        decoded = decoded_view(raw)
        return bool(auto.find_matches_as_indexes(raw)) or (
            decoded is not None and bool(auto.find_matches_as_indexes(decoded))
        )

    def _allowed(self, value: str) -> bool:
        return value.lower() in self._allow or any(rx.fullmatch(value) for rx in self._allow_rx)


def _people_automaton(words: list[str], on_bytes: bool, overlapping: bool):
    """Remembered people as one automaton: leftmost-first (is anyone there?) or the overlapping
    one (where?); the kinds quick to build, since they are rebuilt whenever a person is added."""
    kind = ahocorasick_rs.MatchKind.Standard if overlapping else ahocorasick_rs.MatchKind.LeftmostFirst
    impl = (
        ahocorasick_rs.Implementation.ContiguousNFA
        if overlapping
        else ahocorasick_rs.Implementation.NoncontiguousNFA
    )
    if on_bytes:
        return ahocorasick_rs.BytesAhoCorasick(
            [w.encode("utf-8", "surrogatepass") for w in words], matchkind=kind, implementation=impl
        )
    return ahocorasick_rs.AhoCorasick(words, matchkind=kind, implementation=impl)


def _digest(text: str) -> bytes:
    """A long text's cache key: 16 bytes of SHA-256 (collision-resistant, so a crafted text
    cannot take another's spans; with the SHA extensions of current CPUs twice blake2b's speed)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]


def _put(table: dict, key: object, value: object, limit: int) -> None:
    if len(table) >= limit:
        table.clear()
    table[key] = value


def pieces(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """(start, end) of the pieces a long text is scanned in (``Engine.HUGE``): about ``size``
    characters each, cut after a line break in the last 4 kB before the cut where there is one,
    each widened by ``overlap`` on both sides."""
    n = len(text)
    out = []
    start = 0
    while start < n:
        end = min(n, start + size)
        if end < n:
            nl = text.rfind("\n", max(start, end - 4096), end)
            if nl > start:
                end = nl + 1
        out.append((max(0, start - overlap), min(n, end + overlap)))
        start = end
    return out
