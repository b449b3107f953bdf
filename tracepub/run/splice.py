"""The second pass's redo of a file, a record at a time: records that cannot change are copied.

The second pass (``detect.found``) redacts a file again from its source when its written bytes
still hold a value found elsewhere; before this module it redid every record of such a file,
though on the bench's corpora one or two of its records hold the value in clear and a tenth
hold any found value at all (those change too: their findings name ``found-elsewhere``). A
record of the redo gives the first pass's bytes and findings again when nothing the redo adds
can act on it, so it is copied from the first pass's output file and findings part instead of
being walked and scanned. What the redo adds is the found values detector
(``found.FoundValues``) and what follows from its spans in the same file: the people the
engine remembers for the rest of the file and the values carried everywhere (``red.found``).

A record is redone (``Splice.check``, ``Splice.watched``) when:

- its text, lower-cased, holds one of the found values detector's words (its values and a
  linked person's other forms, as written or JSON-escaped once); or it could hold one hidden
  from that search (a case fold that changes the length, a ``\\u`` escape where a word is not
  ASCII, an escaped backslash where a word holds a character JSON escapes);
- it holds a person the redo remembers and the first pass did not at that point, or the other
  way round (``watch``): a remembered person is redacted wherever else the file names them;
- it holds a lone surrogate's escape (its problems are counted where it is redone).

Everything else about a copied record is what the first pass recorded for it (``Trail``, one
entry per record that changed any of it): the people it made the engine remember (the engine
is told them, so later records see them), the values it first carried everywhere (set in
``red.found`` as the record would have), its blobs' counts. Its findings are the first pass's
lines of that record, counted into types, actions and the report's fold as they are read.
The output is byte for byte what redoing every record gives (``bench/snapshot.py``); where the
first pass's files do not line up with the records (another line count, findings out of
record order) the file is redone whole (``Misaligned``).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import ahocorasick_rs
import orjson

from tracepub.detect.base import Detector, priority
from tracepub.detect.engine import Engine
from tracepub.detect.found import DETECTOR, EXACT
from tracepub.model import REDACTED, Leaf, Record, Span
from tracepub.run import surrogates
from tracepub.walk.walker import Walker, format_path

# What the first pass recorded of a record (by its position in the file): the people it made
# the engine remember, the values it first carried everywhere (value, (type, action)) in order,
# and the blobs it removed by kind.
TrailEntry = tuple[tuple[str, ...], tuple[tuple[str, tuple[str, str]], ...], tuple[tuple[str, int], ...]]
Trail = dict[int, TrailEntry]


# A finding's type as ``Redactor._own_people`` made it from the engine's (it ranks no lower there).
_OWN_PEOPLE = {"identity.name": "pii.person", "identity.email": "pii.email"}


def _absorbed(s: Span, found: list[dict]) -> bool:
    """Whether ``resolve`` leaves the first-pass finding that covers span ``s`` as it was: it
    lies inside one finding of its string (``found``: that string's findings), redacted, whose
    kind ranks above it (``resolve._merge`` picks by rank first; the stretch stays the finding's)."""
    rank = priority(s.type)
    for f in found:
        if f["start"] <= s.start and s.end <= f["end"]:
            type_ = f["type"] if f["detector"] == EXACT else _OWN_PEOPLE.get(f["type"], f["type"])
            return f["action"] == REDACTED and priority(type_) > rank
    return False


class _Changes(Exception):
    """A found value's span in a record changes what the redo makes of it (``Splice._spans``)."""


class Misaligned(Exception):
    """The first pass's output or findings do not match the records read: redo the whole file."""


class Recorder:
    """The first pass's side of it: notes, per record, what ``Trail`` keeps."""

    def __init__(self, engine: Engine, found: dict, blobs: Counter[str]):
        self.engine, self.found, self.blobs = engine, found, blobs
        self.trail: Trail = {}
        self._people = 0
        self._known: set[str] = set()
        self._found = 0
        self._blobs = 0

    def note(self, pos: int) -> None:
        """After the record at ``pos``: what it changed, if anything."""
        engine, found = self.engine, self.found
        people: tuple[str, ...] = ()
        if engine.remembered != self._people:
            now = set(engine.people())
            people = tuple(sorted(now - self._known))
            self._known, self._people = now, len(now)
        values: tuple = ()
        if len(found) != self._found:
            values = tuple(list(found.items())[self._found :])
            self._found = len(found)
        blobs: tuple = ()
        total = self.blobs.total()
        if total != self._blobs:
            blobs = tuple(self.blobs.items())  # cumulative here; made a difference below
            self._blobs = total
        if people or values or blobs:
            self.trail[pos] = (people, values, blobs)

    def done(self) -> Trail:
        """The trail, with each entry's blob counts made that record's own."""
        before: Counter[str] = Counter()
        out: Trail = {}
        for pos, (people, values, blobs) in self.trail.items():
            own: tuple[tuple[str, int], ...] = ()
            if blobs:
                now = Counter(dict(blobs))
                diff = now - before
                own = tuple((k, diff[k]) for k in now if diff[k])
                before = now
            out[pos] = (people, values, own)
        return out


@dataclass
class Words:
    """The found values detector's words as the check reads them (built once per redo worker):
    its trigger's literals, which are what it matches (``ExactValues``: every value and other
    form, lower case, found in the lower-cased text)."""

    detector: Detector  # the found values detector itself
    auto: Any  # ahocorasick_rs.AhoCorasick over the words and their escaped forms
    non_ascii: bool  # a word is not ASCII: a ``\\u`` escape may hide it
    escaped: bool  # a word holds a character JSON escapes: an escaped backslash may hide it

    @classmethod
    def of(cls, engine: Engine) -> Words | None:
        """None: the engine has no found values detector (not a redo)."""
        mine = [d for d in engine.detectors if d.name == DETECTOR]
        words = list(mine[0].trigger.literals) if len(mine) == 1 and mine[0].trigger else []
        if not words:
            return None
        forms = {f for w in words for f in (w, json.dumps(w, ensure_ascii=False)[1:-1])}
        return cls(
            mine[0],
            ahocorasick_rs.AhoCorasick(sorted(forms)),
            any(not w.isascii() for w in words),
            any(json.dumps(w, ensure_ascii=False)[1:-1] != w for w in words),
        )


@dataclass
class Splice:
    """One redone file's records, copied from the first pass where they cannot change."""

    words: Words
    trail: Trail
    engine: Engine
    found: dict
    blobs: Counter[str]
    remove_blobs: bool
    out: BinaryIO  # the first pass's output file
    findings: BinaryIO  # and its findings part
    watch: set[str] = field(default_factory=set)  # people remembered by one pass and not the other
    pos: int = 0
    _before: set[str] = field(default_factory=set)
    _ahead: dict[int, list[bytes]] = field(default_factory=dict)  # findings read, by record
    _next: tuple[int, bytes] | None = None  # the next finding not yet read into ``_ahead``
    _last: int | None = None  # the last record's index (they only grow)
    _memo: dict[str, list[Span]] = field(default_factory=dict)  # text -> the found values' spans

    @classmethod
    def open(
        cls,
        words: Words,
        trail: Trail,
        engine: Engine,
        found: dict,
        blobs: Counter[str],
        remove_blobs: bool,
        output: Path,
        part: Path,
    ) -> Splice:
        """Over the first pass's output file and findings part, read as the records come (a
        batch's findings ahead: ``needed`` reads them)."""
        out = open(output, "rb")  # closed by ``close`` or ``release``
        try:
            findings = open(part, "rb")
        except OSError:
            out.close()
            raise
        sp = cls(words, trail, engine, found, blobs, remove_blobs, out, findings)
        sp._advance()
        return sp

    def check(self, rec: Record) -> str | None:
        """None where what the redo adds may make something else of ``rec`` (the module's
        docstring), else its text as ``watched`` reads it (the people watched for change as
        records are redone: asked again then)."""
        raw = rec.raw
        if raw is not None and surrogates.may_hold(raw):
            return None
        if isinstance(rec.value, str) and (rec.raw_text or rec.deep):
            text = rec.value
        else:
            try:
                text = orjson.dumps(rec.value).decode("utf-8")
            except (TypeError, UnicodeDecodeError):
                return None
        low = text.lower()
        if len(low) != len(text):
            return None
        w = self.words
        if (
            (w.non_ascii and "\\u" in low)
            or (w.escaped and "\\\\" in low)
            or w.auto.find_matches_as_indexes(low)
        ) and self._spans(rec):
            return None
        return low

    def watched(self, low: str) -> bool:
        """Whether a record's text (``check``'s) names someone watched for."""
        if not self.watch:
            return False
        for name in self.watch:
            if name in low or json.dumps(name, ensure_ascii=False)[1:-1] in low:
                return True
        return "\\u" in low or "\\\\" in low

    def _spans(self, rec: Record) -> bool:
        """Whether the found values detector matches in a string of ``rec``, as the redo's walk
        visits them, where its span can change the redo's (its words can be in the text where
        it matches nothing: a first name alone but not after a greeting). A span inside one of
        the first pass's findings in the same string, of a kind that ranks lower (the user's own
        "jdoe" around a found "jdo"), changes nothing: ``resolve`` keeps the finding as it was."""
        detector, leaf, memo = self.words.detector, Leaf("", ()), self._memo
        auto = self.words.auto
        found: dict[str, list[dict]] | None = None

        def visit(text: str, path: tuple, key: str | None) -> str:
            nonlocal found
            if len(text) < 2:
                return text
            if len(text) > Engine.HUGE:
                raise _Changes  # scanned in pieces there
            spans = memo.get(text)
            if spans is None:  # the same strings come back record after record (the working folder)
                spans = detector.scan(text, leaf) if auto.find_matches_as_indexes(text.lower()) else []
                if len(memo) >= 10_000:
                    memo.clear()
                memo[text] = spans
            if spans:
                if found is None:  # the record's findings by string (a record holds thousands)
                    found = {}
                    for line in self._findings(rec.index):
                        f = orjson.loads(line)
                        found.setdefault(f["path"], []).append(f)
                here = found.get(format_path(path), [])
                if not all(_absorbed(s, here) for s in spans):
                    raise _Changes
            return text

        try:
            if isinstance(rec.value, str) and (rec.raw_text or rec.deep):
                visit(rec.value, (), None)
            else:
                Walker(visit, None, self.remove_blobs).walk(rec.value)
        except Exception:  # _Changes, or whatever stops it here, which is the redo's to meet
            return True
        return False

    def skip(self, rec: Record) -> None:
        """``rec`` is redone: pass over its first-pass line and findings."""
        self._line(rec)
        self._findings(rec.index)
        self._ahead.pop(rec.index, None)
        self._before = set(self.engine.people())

    def redone(self) -> None:
        """After a redone record: the people and values it left otherwise than the first pass
        are watched for (a later record naming one is redone too)."""
        entry = self.trail.get(self.pos - 1)
        first = set(entry[0]) if entry else set()
        added = set(self.engine.people()) - self._before
        self.watch.update(p.lower() for p in first ^ added)
        for value, _ in entry[1] if entry else ():
            if value not in self.found:
                self.watch.add(value.lower())  # a later copy of it would carry it first

    def take(self, rec: Record) -> tuple[bytes, list[bytes]]:
        """``rec`` copied: its first-pass line and findings; what it left is set again."""
        line = self._line(rec)
        entry = self.trail.get(self.pos - 1)
        if entry is not None:
            people, values, blobs = entry
            if people:
                self.engine.seed_people(people)
            for value, type_action in values:
                self.found.setdefault(value, type_action)
            for kind, n in blobs:
                self.blobs[kind] += n
        self._findings(rec.index)
        return line, self._ahead.pop(rec.index, [])

    def close(self) -> None:
        """Every first-pass line and finding was used: the files lined up with the records."""
        try:
            if self.out.read(1) or self._next is not None or self._ahead:
                raise Misaligned("first-pass lines or findings left over")
        finally:
            self.release()

    def release(self) -> None:
        self.out.close()
        self.findings.close()

    def _line(self, rec: Record) -> bytes:
        if self._last is not None and rec.index <= self._last:
            raise Misaligned("records not in index order")
        self._last = rec.index
        line = self.out.readline()
        if not line.endswith(b"\n"):
            raise Misaligned("fewer first-pass lines than records")
        self.pos += 1
        return line[:-1]

    def _findings(self, index: int) -> list[bytes]:
        """The first pass's findings of the record ``index``: read up to it (records come in
        index order, and so do their findings)."""
        while self._next is not None and self._next[0] <= index:
            self._ahead.setdefault(self._next[0], []).append(self._next[1])
            self._advance()
        return self._ahead.get(index, [])

    def _advance(self) -> None:
        line = self.findings.readline()
        try:
            self._next = (orjson.loads(line)["record"], line) if line else None
        except (ValueError, KeyError, TypeError) as exc:  # not a findings part as a worker writes it
            raise Misaligned(f"a finding that does not read back: {exc}") from exc
