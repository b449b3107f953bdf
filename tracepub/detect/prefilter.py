"""The combined prefilter: which detectors can fire on a string, and can a raw line be skipped.

Every detector declares a ``Trigger`` (``detect/base.py``): literals (case-insensitive) and
escape-safe regexes that must occur in any string it can find something in. ``Prefilter``
merges the triggers of all registered detectors:

- per string (``plan``): one Aho-Corasick pass over the folded text (``folded``) for every
  literal of every detector, then each remaining detector's pattern; only detectors whose
  trigger fired are called, on the lines holding a hit where they say their findings stay
  within a line. Detectors without a trigger are always called.
- per raw JSONL line (``line_hits``): the same check on the undecoded line (and on a view with
  ``\\uXXXX`` and ``\\/`` decoded, where it has any). If nothing fires, no string in the line
  can produce a finding, so the pipeline writes the line back as it was without walking it.
  Any detector without a trigger turns this skip off; so does an extra "line literal" (the
  keys under which opaque blobs are removed). Prose-only detectors count only on lines the
  reader says may hold prose.

Recall comes first: everything here is a superset test. A literal that holds a character JSON
escapes (``"``, ``\\``, control characters) is looked for as written in the raw line and in the
line's view with every escape resolved as detectors see it (``\\uXXXX``, ``\\/``, then
``escaped_view``), and non-ASCII characters are found through that view, so an escape cannot
hide a candidate.
``tests/test_speed_prefilter.py`` checks this on planted values of every kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from tracepub.detect.automaton import Matcher
from tracepub.detect.regex_shapes import (
    _anchor,
    _digit_blind,
    _gate_words,
    _line_entries,
    _one_class,
    _starts_with,
    line_forms,
    literal_forms,
)
from tracepub.detect.text import _DIGIT_FOLD, _FOLD, decoded_view, escaped_view, folded, line_windows

if TYPE_CHECKING:
    from tracepub.detect.base import Detector


_ASCII_BYTES = bytes(range(0x80))  # deleted from UTF-8 bytes: the characters beyond ASCII are left


# Object keys that are written the same in a raw line whatever the encoding (ASCII word characters).
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.-]+")
# After a key (Trigger.keys_spaced): a list or an object, or a string holding whitespace before its
# closing quote, as written in a raw line (whitespace may be escaped; an escaped quote does not end
# it, so a value in JSON written inside a string is read on past its end: more lines, never fewer).
# ``\\uXXXX`` whitespace is found in the line's decoded view.
_SPACED_VALUE = r'(?:\s|\\+[nrt])*(?:[\[{]|\\*"(?:[^"\\\s]|\\+[^nrt\s])*(?:\s|\\+[nrt]))'

# What can follow a shape end (``Trigger.shape_ends``) in folded ASCII text: no letter, digit or "_".
_NOT_WORD_ASCII = tuple(chr(c) for c in range(0x80) if not (chr(c).isalnum() or chr(c) == "_"))

# A window list of None means "the whole string".
Plan = list[tuple[int, "list[tuple[int, int]] | None"]]


class Prefilter:
    """All detectors' triggers in one automaton and one list of patterns."""

    WHOLE = 0.5  # windows covering more than this share of a string: scan the whole string

    def __init__(self, detectors: Sequence[Detector], line_literals: Iterable[str] = (), dfa: bool = True):
        """``dfa``: as ``Matcher``'s (False for an engine that reads little)."""
        self.n = len(detectors)
        self.always: list[int] = []
        self.prose_only: frozenset[int] = frozenset(
            i for i, d in enumerate(detectors) if d.trigger is not None and d.trigger.prose_only
        )
        self.lines: frozenset[int] = frozenset(
            i for i, d in enumerate(detectors) if d.trigger is not None and d.trigger.lines
        )
        # (detector, regex, on folded text). Patterns that start with a literal are fast: the
        # regex engine skips to that literal itself.
        # (detector, regex, on folded text, anchor: a substring every match holds, or "").
        # A string without the anchor is not searched: a substring test costs far less than a
        # regex call, and most strings are short (ids, timestamps).
        self._patterns: list[tuple[int, re.Pattern, bool, str | None]] = []
        self._key_patterns: list[tuple[int, re.Pattern]] = []  # Trigger.keys, on raw lines (folded)
        self._line_patterns: list[tuple[int, re.Pattern]] = []  # Trigger.line_patterns (folded)
        self._line_own: set[int] = set()  # detectors with line_patterns
        self._split: dict[int, int] = {}  # pattern index -> its group's first (Trigger.folded_split)
        leaf_words: dict[str, tuple[set[int], set[int]]] = {}  # word -> (detectors, line detectors)
        checked: dict[str, list[tuple[int, re.Pattern]]] = {}  # shape -> (detector, Trigger.shape_check)
        ends: set[str] = set()  # Trigger.shape_ends: found in ASCII texts as ``tight`` words and at the end
        tight: set[str] = set()
        other: set[str] = set()  # every other word (the two sets above are left out of one automaton)
        line_words: dict[str, set[int]] = {}
        self.line_skip = True  # False: some detector cannot say cheaply what it needs

        def word(w: str) -> tuple[set[int], set[int]]:
            return leaf_words.setdefault(w, (set(), set()))

        for i, d in enumerate(detectors):
            trig = d.trigger
            if trig is None:
                self.always.append(i)
                self.line_skip = False
                continue
            check = re.compile(trig.shape_check) if trig.shape_check else None
            shapes = set(trig.shapes)
            shape_ends = set(trig.shape_ends)
            for w in (*(f for lit in trig.literals for f in literal_forms(lit)), *trig.shapes):
                if not w:
                    continue
                if check is not None and w in shapes:
                    word(w)
                    checked.setdefault(w, []).append((i, check))
                    if w in shape_ends:
                        ends.add(w)
                        for c in _NOT_WORD_ASCII:
                            word(w + c)
                            checked.setdefault(w + c, []).append((i, check))
                            tight.add(w + c)
                    else:
                        other.add(w)
                else:
                    word(w)[1 if i in self.lines else 0].add(i)
                    other.add(w)
                if not trig.line_patterns:
                    for lw in line_forms(w):
                        line_words.setdefault(lw, set()).add(i)
            plain = [k.lower() for k in trig.keys if _PLAIN_KEY.fullmatch(k)]
            for k in trig.keys:  # a key is in the raw line as written
                if not _PLAIN_KEY.fullmatch(k):
                    for lw in line_forms(k.lower()):
                        line_words.setdefault(lw, set()).add(i)
            # as a JSON key: quoted, then a colon (also in JSON inside a string); a detector's
            # line_patterns stand for its keys instead
            if plain and not trig.line_patterns:
                value = _SPACED_VALUE if trig.keys_spaced else ""
                self._key_patterns.append(
                    (
                        i,
                        re.compile(
                            '"(?:'
                            + "|".join(map(re.escape, sorted(plain)))
                            + r')\\*"(?:\s|\\+[nrt])*:'
                            + value
                        ),
                    )
                )
            for pat, on_fold in (*((p, False) for p in trig.patterns), *((p, True) for p in trig.folded)):
                self._patterns.append((i, re.compile(pat), on_fold, _anchor(pat)))
            for group in trig.folded_split:
                first = len(self._patterns)
                for pat in group:
                    self._split[len(self._patterns)] = first
                    self._patterns.append((i, re.compile(pat), True, _anchor(pat)))
            if trig.line_patterns:  # on raw lines these stand for the literals and patterns above
                self._line_own.add(i)
                self._line_patterns += [(i, re.compile(pat)) for pat in trig.line_patterns]
        for lit in line_literals:
            for w in literal_forms(lit):
                for lw in line_forms(w):
                    line_words.setdefault(lw, set()).add(-1)
        # The patterns as ``plan`` reads them, for non-prose and for prose strings: (index, detector,
        # regex, on folded text, anchor, lines, gated). A gated pattern's gate words (its anchor,
        # folded, with the few characters the pattern allows next to it: ``_gate_words``) are more
        # words of the automaton (a superset: "akc" for "AKC"; "cc:", "cc ", "cc\t" for
        # ``cc[ \t]*:``), so a string that lacks them costs nothing more, where a substring test
        # reads the whole string. Not for short words with letters that the case fold makes
        # common ("AC" is "ac" in "back"; but "ap0".."apf" for ``AP[\dABCDEF]`` are rare).
        # ``gated``: 1, or 2 where the words hold for ASCII texts only (``\d`` read as [0-9]).
        gates: dict[str, list[int]] = {}
        entries = []
        for n, (i, rx, on_fold, anchor) in enumerate(self._patterns):
            a = anchor or ""
            gated = 0
            # Not the parts of a split pattern: they start with digits, in every number ("0.0").
            if a and a.isascii() and (not on_fold or folded(a) == a) and n not in self._split:
                for ascii_only in (False, True):
                    words = _gate_words(rx.pattern, a, on_fold, ascii_only)
                    if all(
                        len(w) >= 2 and (on_fold or len(w) >= 3 or not any(c.isalpha() for c in w))
                        for w in words
                    ):
                        gated = 2 if ascii_only else 1
                        for w in words:
                            gates.setdefault(w, []).append(n)
                        break
            if n in self._split and a:
                # A split part searches every string with its group's first character, where the
                # whole pattern searched once: its first character alone first (memchr).
                anchor = a[:1]
            elif gated != 1 and len(a) >= 2 and _starts_with(rx.pattern, a):
                # re skips to a literal prefix itself, about twice as fast as ``in`` looks for two
                # characters (its memchr is for one): no substring test first.
                anchor = ""
            entries.append((n, i, rx, on_fold, anchor, i in self.lines, gated))
        self._plan_patterns = [[e for e in entries if e[1] not in self.prose_only], entries]
        # The same for ASCII texts without a line break (``_plan_line``), without the patterns no
        # ASCII character can start: ([(detector, search, on folded text, anchor)], [(index,
        # detector, search, on folded text)] of the gated ones).
        self._line_patterns_ascii = [
            _line_entries(
                [
                    (n, i, rx, on_fold, anchor, gated)
                    for n, i, rx, on_fold, anchor, _, gated in es
                    if anchor is not None
                ]
            )
            for es in self._plan_patterns
        ]
        self._beyond = frozenset(
            n for n, _, rx, _, anchor, _, _ in entries if anchor is None and _one_class(rx.pattern)
        )
        values: dict[str, tuple[frozenset[int], tuple[int, ...], tuple[int, ...]]] = {
            w: (frozenset(a), tuple(sorted(b)), ()) for w, (a, b) in leaf_words.items()
        }
        for w, ns in gates.items():
            ids, line_ids, _ = values.get(w, (frozenset(), (), ()))
            values[w] = (ids, line_ids, tuple(ns))
        # A shape end (``Trigger.shape_ends``) is looked for as itself in texts beyond ASCII, and
        # in ASCII texts as its ``tight`` words and at the text's end (``_ascii_hits``); a word
        # that is also something else stays in both automata.
        kept = other | gates.keys()
        tails = ends - kept
        self._leaf_auto = Matcher(values, ascii_only=tight - kept, not_ascii=tails, dfa=dfa)
        self._tails = {w.encode("ascii"): k for k, w in enumerate(self._leaf_auto._words) if w in tails}
        self._tail_ends = tuple(self._tails)
        self._line_words = frozenset(k for k, v in enumerate(self._leaf_auto._values) if v[1])
        self._checked = {k: checked[w] for k, w in enumerate(self._leaf_auto._words) if w in checked}
        self._line_auto = Matcher({w: frozenset(ids) for w, ids in line_words.items()}, dfa=dfa)
        self._last: tuple[str | None, list] = (None, [])  # the last string's literal hits
        # Short strings' plans by their text with every ASCII digit 0 (timestamps: one plan for
        # all). Sound when whatever reads the text itself rather than the folded text (patterns,
        # shape checks) cannot tell one ASCII digit from another (``_digit_blind``).
        self._short: dict[tuple, tuple[Plan, list]] | None = (
            {}
            if all(_digit_blind(rx.pattern) for _, rx, on_fold, _ in self._patterns if not on_fold)
            and all(_digit_blind(p) for p in {rx.pattern for group in checked.values() for _, rx in group})
            else None
        )

    # -- literal hits, shared with detectors -----------------------------------------------
    def literal_words(self) -> dict[str, int]:
        """Each literal (folded) the automaton looks for, and its index in ``literal_hits``."""
        return {w: k for k, w in enumerate(self._leaf_auto._words)} if self._leaf_auto else {}

    def literal_hits(self, text: str) -> list[tuple[int, int, int]] | None:
        """(word index, start, end) of every literal of every detector in ``folded(text)``, if
        ``text`` is the string ``plan`` read last (else None). The detectors then called on it
        read their keywords from here rather than lower-casing it and searching it again
        (``detect.keywords.KeywordIndex.share``)."""
        last = self._last
        return last[1] if last[0] is text else None  # it holds a reference: no reuse of ids

    # -- per string ------------------------------------------------------------------------
    SHORT = 64  # strings up to this length have their plans cached by digit shape
    SHORT_MAX = 20_000  # entries; a full table is cleared

    def plan(self, text: str, prose: bool, only: frozenset[int] | None = None) -> Plan:
        """Which detectors to call on ``text``, each on the whole string (None) or on windows
        (``(start, end)`` of the lines holding its trigger hits), in registration order. With
        ``only``: right for those detectors (the others' patterns are not searched)."""
        short = self._short
        if short is None or len(text) > self.SHORT:
            return self._plan(text, prose, only)
        key = (text.encode("utf-8", "surrogatepass").translate(_DIGIT_FOLD), prose, only)
        got = short.get(key)
        if got is None:
            plan = (
                self._plan_line(text, prose)
                if only is None and text.isascii() and "\n" not in text
                else self._plan(text, prose, only)
            )
            if len(short) >= self.SHORT_MAX:
                short.clear()
            short[key] = (plan, self._last[1])
            return plan[:]
        self._last = (text, got[1])  # the same folded text: the same literal hits
        return got[0][:]

    def _plan_line(self, text: str, prose: bool) -> Plan:
        """``_plan(text, prose, None)`` of an ASCII text without a line break (ids, timestamps:
        most strings). Every detector is then called on the whole string (the line holding a hit
        is the text, more than ``WHOLE`` of it), so only *which* detectors fire matters: a
        detector already called is not looked for again, a pattern's first match is enough, and
        no positions are kept. Anchors and gates only skip searches that cannot match."""
        hit: set[int] = set(self.always)
        ascii_fold = text.encode("ascii").translate(_FOLD)
        opened: set[int] | tuple = ()
        auto = self._leaf_auto
        if auto:
            found = self._ascii_hits(ascii_fold)
            self._last = (text, found)
            if found:
                values = auto._values
                checked = self._checked
                opened = set()
                for k, start, _ in found:
                    ids, line_ids, gates = values[k]
                    if ids:
                        hit |= ids
                    if line_ids:
                        hit.update(line_ids)
                    if gates:
                        opened.update(gates)
                    if k in checked:
                        for i, check in checked[k]:
                            if i not in hit and check.match(text, start):
                                hit.add(i)
        ungated, gated = self._line_patterns_ascii[1 if prose else 0]
        fold = ascii_fold.decode("ascii")
        for i, search, on_fold, anchor in ungated:
            if i in hit:
                continue
            subject = fold if on_fold else text
            if anchor and anchor not in subject:
                continue
            if search(subject) is not None:
                hit.add(i)
        if opened:
            for n, i, search, on_fold in gated:
                if n in opened and i not in hit and search(fold if on_fold else text) is not None:
                    hit.add(i)
        if not prose and self.prose_only:
            hit -= self.prose_only
        return [(i, None) for i in sorted(hit)]

    def _ascii_hits(self, ascii_fold: bytes) -> list[tuple[int, int, int]]:
        """The automaton's hits in an ASCII text's folded bytes, with the shape ends
        (``Trigger.shape_ends``) the text ends with: the bytes automaton looks for those only
        with a character after them."""
        found = self._leaf_auto.matches_ascii(ascii_fold)
        if self._tail_ends and ascii_fold.endswith(self._tail_ends):
            n = len(ascii_fold)
            found = found + [(k, n - len(w), n) for w, k in self._tails.items() if ascii_fold.endswith(w)]
        return found

    def _plan(self, text: str, prose: bool, only: frozenset[int] | None) -> Plan:
        hit: set[int] = set(self.always)
        where: dict[int, list[int]] = {}
        opened: set[int] = set()  # gated patterns whose anchor occurs
        # Same length as the text: its offsets are the text's offsets. An ASCII text's folded
        # bytes go to the automaton as they are (byte offsets are character offsets there; a
        # third faster than the str automaton on the same bytes); the folded str is made only
        # if a folded pattern reads it.
        is_ascii = text.isascii()
        ascii_fold = text.encode("ascii").translate(_FOLD) if is_ascii else None
        utf8 = b""
        if ascii_fold is None:  # folded(text), keeping its UTF-8 bytes
            utf8 = text.encode("utf-8", "surrogatepass")
            fold = utf8.translate(_FOLD).decode("utf-8", "surrogatepass")
        else:
            fold = ""
        if self._leaf_auto:
            values = self._leaf_auto._values
            found = self._leaf_auto.matches(fold) if ascii_fold is None else self._ascii_hits(ascii_fold)
            self._last = (text, found)
            if found:
                # A word repeats (a log says "token" thousands of times): the detectors and gates
                # it opens once per word; the positions only of words that give lines.
                line_words = self._line_words
                checked = self._checked
                with_lines = False
                for k in {h[0] for h in found}:
                    ids, line_ids, gates = values[k]
                    if ids:
                        hit |= ids
                    if gates:
                        opened.update(gates)
                    if line_ids or k in checked:
                        with_lines = True
                if with_lines:
                    for k, start, _ in found:
                        if k in line_words:
                            for i in values[k][1]:
                                where.setdefault(i, []).append(start)
                        if k in checked:
                            for i, check in checked[k]:
                                if check.match(text, start):
                                    if i in self.lines:
                                        where.setdefault(i, []).append(start)
                                    else:
                                        hit.add(i)
        limit = len(text) * self.WHOLE
        whole: set[int] = set()  # lines detectors whose hit lines already cover most of the text
        split: dict[int, tuple[int, set[int]]] = {}  # Trigger.folded_split: (covered, line starts) of a group
        entries = self._plan_patterns[1 if prose else 0]
        if only is not None:
            entries = [e for e in entries if e[1] in only]
        for n, i, rx, on_fold, anchor, lines, gated in entries:
            if on_fold:
                if ascii_fold is not None:
                    fold = ascii_fold.decode("ascii")
                    ascii_fold = None
                subject = fold
            else:
                subject = text
            if gated and (n in opened or gated == 1 or is_ascii):  # its gate words decide
                if n not in opened:
                    continue
            elif anchor is None:  # (ASCII-only gate words, a text beyond ASCII: as if ungated)
                if subject.isascii():
                    continue
                # One class of characters beyond ASCII (a digit beyond ASCII): first searched in
                # those characters alone, a few per line in a file read with line numbers ("→").
                if n in self._beyond and not rx.search(
                    utf8.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
                ):
                    continue
            elif anchor and anchor not in subject:
                continue
            if lines:  # one hit per line is enough: go on from the next line
                if i in whole:
                    continue
                m = rx.search(subject)
                if m is not None:
                    pos = where.setdefault(i, [])
                    # A split group's parts count their lines together, each line once (a lone
                    # pattern's matches are on lines one after another: none is seen twice).
                    group = self._split.get(n)
                    covered, seen = (split.get(group) if group is not None else None) or (0, set())
                    while m is not None:
                        start = m.start()
                        pos.append(start)
                        nl = subject.find("\n", start)
                        before = subject.rfind("\n", 0, start)
                        if before not in seen:
                            seen.add(before)
                            covered += (nl if nl >= 0 else len(subject)) - before
                            if covered > limit:
                                whole.add(i)
                                break
                        m = rx.search(subject, nl + 1) if nl >= 0 else None
                    if group is not None:
                        split[group] = (covered, seen)
            elif i not in hit and rx.search(subject):
                hit.add(i)
        if not prose and self.prose_only:
            hit -= self.prose_only
            for i in self.prose_only:
                where.pop(i, None)
        plan: Plan = [(i, None) for i in hit if i not in where]
        for i, positions in where.items():
            if i in whole:
                plan.append((i, None))
                continue
            windows = line_windows(text, positions, limit)
            plan.append((i, windows or None))
        plan.sort(key=lambda p: p[0])
        return plan

    # -- per raw line ----------------------------------------------------------------------
    NONE, PROSE, ANY = 0, 1, 2
    LINE_PREFIXES = (256, 4096)  # line_hits looks at these prefixes of a longer line first

    def line_hits(self, raw: str) -> int:
        """What can fire somewhere in this raw JSON line: ``NONE`` (no string in it can
        produce a finding or lose a blob: write it back as it is), ``PROSE`` (only prose-only
        detectors: the line matters only if it holds prose), or ``ANY``."""
        if not self.line_skip:
            return self.ANY
        # Most lines that hit do so early (the working folder near the start): look there first,
        # in the first 256 characters (Claude Code's cwd: 2955 of 2957 lines that can fire),
        # then 4096. A word found in a prefix is in the line: the full check says ANY too.
        if self._line_auto:
            for n in self.LINE_PREFIXES:
                if len(raw) <= n:
                    break
                head = raw[:n]
                found = (
                    self._line_auto.matches_ascii(head.encode("ascii").translate(_FOLD))
                    if head.isascii()
                    else self._line_auto.matches(folded(head))
                )
                values = self._line_auto._values
                prose_only = self.prose_only
                if any(not values[k] <= prose_only for k, _, _ in found):
                    return self.ANY
        # Detectors read strings with JSON escapes resolved (\uXXXX, \/, and the escaped_view of
        # detect/identity.py: a "\\t" inside a string is a tab to them): check that view too.
        decoded = decoded_view(raw)
        view = escaped_view(decoded if decoded is not None else raw)
        texts = (raw,) if view == raw else (raw, view)
        prose = False
        for text in texts:
            fold = folded(text)
            if self._line_auto:
                for _, ids in self._line_auto.iter(fold):
                    if not ids <= self.prose_only:
                        return self.ANY
                    prose = True
            for i, rx, on_fold, _ in self._patterns:
                if i in self._line_own:
                    continue
                if (not prose or i not in self.prose_only) and rx.search(fold if on_fold else text):
                    if i not in self.prose_only:
                        return self.ANY
                    prose = True
            for i, rx in (*self._line_patterns, *self._key_patterns):
                if rx.search(fold):
                    if i not in self.prose_only:
                        return self.ANY
                    prose = True
        return self.PROSE if prose else self.NONE
