"""Lone surrogates in the records a worker redacts (JSON allows ``"\\ud800"``; no UTF-8 holds it).

Split from ``run.workers``: where one stops a record's redaction it is redone with U+FFFD in
its place, and each replaced one is counted as a problem of the file.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from tracepub.model import Problem, Record, Unit
from tracepub.redact.redactor import Redactor

# A lone surrogate in JSON text: a ``\\ud800``-``\\udbff`` escape with no low half after it, or a
# ``\\udc00``-``\\udfff`` one with no high half before it, at any depth of JSON inside strings
# (where the escape has more backslashes before it).
_LONE = r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\+u[dD][c-fC-F][0-9a-fA-F]{2})|(?<!u[dD][89abAB][0-9a-fA-F]{2})(?<!u[dD][89abAB][0-9a-fA-F]{2}\\)\\u[dD][c-fC-F][0-9a-fA-F]{2}"
_LONE_TEXT = re.compile(_LONE)
_LONE_BYTES = re.compile(_LONE.encode("ascii"))
# Where any surrogate's escape starts: one search, half the time of ``"\\ud" in`` and ``"\\uD" in``.
_ESCAPE = re.compile(r"\\u[dD]")


def may_hold(raw: str | None) -> bool:
    """Whether a record can hold a lone surrogate: its JSON text has a ``\\ud`` escape, or it has
    no text (a row a store reader built)."""
    return raw is None or _ESCAPE.search(raw) is not None


def redact(red: Redactor, rec: Record, problems: list[Problem], unit: Unit, lines: bool) -> Any:
    """``red.redact_record`` of ``rec``; where a lone surrogate stops it (one in an object key of
    JSON inside a string cannot be written into a finding's path), the record is redacted again
    with every lone surrogate read as U+FFFD, as the walker reads them in strings: the file is
    not lost for one character. Only a record whose text can hold one (a ``\\ud`` escape, or
    no text: a row a store reader built) pays for the copy of the counts this takes."""
    if not may_hold(rec.raw):
        return red.redact_record(rec.index, rec.value)
    types, blobs = Counter(red.types), Counter(red.blobs)
    try:
        return red.redact_record(rec.index, rec.value)
    except UnicodeEncodeError:
        red.findings.clear()  # this record's, made before it stopped (``flush`` writes them per record)
        red.types.clear()
        red.types.update(types)
        red.blobs.clear()
        red.blobs.update(blobs)
        new = red.redact_record(rec.index, _no_lone_surrogates(rec.value))
        if rec.raw is None:  # a line's replacements are counted from its text (``count_surrogates``)
            problems.append(
                Problem(
                    str(unit.source), rec.index if lines else None, "lone surrogate(s) replaced by U+FFFD"
                )
            )
        return new


_SURROGATE = re.compile("[\ud800-\udfff]")  # in a str a pair is one character: these are lone


def _no_lone_surrogates(value: Any) -> Any:
    """``value`` with each lone surrogate, in keys and strings, and each lone ``\\udXXX`` escape in
    JSON text inside a string, made U+FFFD."""
    if isinstance(value, str):
        value = _SURROGATE.sub("\ufffd", value)
        return _LONE_TEXT.sub(lambda m: "\\ufffd", value) if "\\u" in value else value
    if isinstance(value, dict):
        return {_no_lone_surrogates(k): _no_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_lone_surrogates(v) for v in value]
    return value


def count_surrogates(rec: Record, line: bytes, problems: list[Problem], unit: Unit, lines: bool) -> None:
    r"""Report a record whose lone surrogates were replaced. JSON allows ``"\ud800"``; no UTF-8 holds
    it, so a string that redaction visits has each one read, and written, as U+FFFD (a string it
    does not change keeps its escape). That changes a byte of the session: it is counted, with
    the file and the line. Only records whose text holds a ``\ud`` escape get here."""
    before = len(_LONE_TEXT.findall(rec.raw or ""))
    gone = before - len(_LONE_BYTES.findall(line)) if before else 0
    if gone > 0:
        problems.append(
            Problem(
                str(unit.source),
                rec.index if lines else None,
                f"{gone} lone surrogate(s) (a \\udXXX escape without its other half) replaced by U+FFFD",
            )
        )
