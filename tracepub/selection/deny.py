"""Whole-session denial: a session that mentions a denied name anywhere is left out entirely.

Rules come from ``deny`` in tracepub.toml and ``--deny``. A plain string matches as a
case-insensitive substring (a client's name must be caught as "ACME", "Acme" or "acme"; leaving
out one session too many is the safe direction); ``re:PATTERN`` is a Python regex, matched as
written (case-sensitive unless it says ``(?i)``).

The check runs in the worker, record by record, *before* the record is redacted, on every string
leaf and every key, JSON encoded inside strings included (the same ``Walker`` the redactor uses).
It is cheap: with only plain strings, one Aho-Corasick pass over the raw line rules out almost
every record, and only a line that might match is walked. A match raises ``Denied``; the
pipeline's temporary file is then removed, so nothing of the session reaches dataset/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import ahocorasick_rs

from tracepub.model import Record
from tracepub.walk import blobs
from tracepub.walk.walker import _maybe_json

PREFIX = "re:"


@dataclass(frozen=True, slots=True)
class DenyRule:
    """A rule as the user wrote it (``re:`` kept), and where it came from."""

    text: str
    origin: str = "--deny"

    @property
    def is_regex(self) -> bool:
        return self.text.startswith(PREFIX)

    @property
    def pattern(self) -> str:
        return self.text[len(PREFIX) :] if self.is_regex else self.text


def parse_rules(texts: list[str] | tuple[str, ...], origin: str) -> list[DenyRule]:
    """Validate rules early (a bad regex is a usage error, not a surprise in a worker)."""
    rules = []
    for t in texts:
        rule = DenyRule(t, origin)
        if not rule.pattern.strip():
            raise ValueError(f"{origin}: empty deny rule {t!r}")
        if rule.is_regex:
            try:
                rx = re.compile(rule.pattern)
            except re.error as exc:
                raise ValueError(f"{origin}: deny rule {t!r} is not a valid regex: {exc}") from None
            if rx.search(""):
                raise ValueError(
                    f"{origin}: deny rule {t!r} matches the empty string (it would deny everything)"
                )
        rules.append(rule)
    return rules


def mask(match: str) -> str:
    """What a report may show of a denied match: enough to recognise, not to read (``Cl…rp``)."""
    if len(match) >= 6:
        return match[:2] + "…" + match[-2:]
    return match[:1] + "…"


@dataclass(slots=True)
class Hit:
    rule: DenyRule
    match: str
    where: str  # "record 12", "path"

    def to_json(self) -> dict[str, str]:
        return {
            "rule": self.rule.text,
            "origin": self.rule.origin,
            "masked": mask(self.match),
            "where": self.where,
        }


class Denied(Exception):  # noqa: N818 - a control-flow signal, not an error
    def __init__(self, hit: Hit):
        super().__init__(hit.rule.text)
        self.hit = hit


# Characters a JSON encoder must escape (or may, as \uXXXX with ensure_ascii): a plain rule with
# one cannot be looked for in a raw line.
_UNSAFE = re.compile(r'["\\\x00-\x1f]|[^\x00-\x7f]')
# Escapes in a raw line that may hide a character of an ASCII rule: \u0020-\u007f (Go writes
# <>& so), \u0130 and \u212a (they lower-case to ASCII), and \/.
_HIDING = re.compile(r"\\u(?:00[2-7][0-9a-fA-F]|0130|212[aA])|\\/")


class DenyMatcher:
    def __init__(self, rules: list[DenyRule] | tuple[DenyRule, ...]):
        self.rules = list(rules)
        self._plain = [r for r in self.rules if not r.is_regex]
        self._regex = [(r, re.compile(r.pattern)) for r in self.rules if r.is_regex]
        # the plain rules' texts, leftmost first (the first match in the text is the one shown)
        self._ac = (
            ahocorasick_rs.AhoCorasick(
                [r.pattern.lower() for r in self._plain], matchkind=ahocorasick_rs.MatchKind.LeftmostFirst
            )
            if self._plain
            else None
        )
        self._combined: re.Pattern | None = None
        if len(self._regex) > 1:
            try:
                self._combined = re.compile("|".join(f"(?:{r.pattern})" for r, _ in self._regex))
            except re.error:  # e.g. global flags not at the start: search them one by one
                self._combined = None
        # The raw-line shortcut is sound only for plain rules that an encoder never escapes.
        self._raw_ok = not self._regex and not any(_UNSAFE.search(r.pattern) for r in self._plain)
        self._where = ""

    def __bool__(self) -> bool:
        return bool(self.rules)

    def search(self, text: str) -> Hit | None:
        if self._ac is not None:
            lowered = text.lower()
            for i, start, end in self._ac.find_matches_as_indexes(lowered):
                rule = self._plain[i]
                shown = text[start:end] if len(lowered) == len(text) else lowered[start:end]
                return Hit(rule, shown, self._where)
        if self._regex:
            if self._combined is not None and not self._combined.search(text):
                return None
            for rule, rx in self._regex:
                m = rx.search(text)
                if m:
                    return Hit(rule, m.group(0), self._where)
        return None

    def check_value(self, value: Any, where: str) -> None:
        """Raise ``Denied`` if any string or key in ``value`` matches (JSON-in-strings included)."""
        self._where = where
        search = self.search
        for text in strings(value):
            hit = search(text)
            if hit is not None:
                raise Denied(hit)

    def check_record(self, rec: Record) -> None:
        where = f"record {rec.index}"
        if rec.raw_text:
            self.check_value(rec.value, where)
            return
        raw = rec.raw
        if self._raw_ok and raw is not None and ("\\" not in raw or not _HIDING.search(raw)):
            self._where = where
            if self.search(raw) is None:
                return  # no leaf can hold a rule that the whole line does not
        self.check_value(rec.value, where)

    def check_path(self, path: str) -> None:
        self._where = "path"
        hit = self.search(path)
        if hit is not None:
            raise Denied(hit)


_OPAQUE = blobs._OPAQUE_KEYS
_JSON_START = frozenset("{[ \t\r\n")


def strings(value: Any) -> Iterator[str]:
    """Every object key and string leaf, JSON encoded inside strings decoded, opaque blobs
    skipped: what ``walk.Walker`` visits, without the paths and copies redaction needs (this is
    several times faster, and denial needs no more)."""
    stack: list[tuple[Any, str | None, dict | None]] = [(value, None, None)]
    pop, push = stack.pop, stack.append
    while stack:
        v, key, parent = pop()
        if isinstance(v, str):
            if not v or ((len(v) >= blobs.MIN_BLOB or key in _OPAQUE) and blobs.classify(key, v, parent)):
                continue
            inner = _maybe_json(v) if v[0] in _JSON_START else None
            if inner is not None:
                push((inner, key, None))
            else:
                yield v
        elif isinstance(v, dict):
            for k, x in v.items():
                if k:
                    yield k
                push((x, k, v))
        elif isinstance(v, list):
            for x in v:
                push((x, key, None))
