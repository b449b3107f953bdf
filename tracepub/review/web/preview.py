"""How many places a text or regex to add would hit, before the reviewer adds it.

It is looked for in dataset/ (the redacted text: what would still be published), in every
string and key of every record, the way the detectors will then match it: a text
case-insensitively and at word boundaries (``custom.text`` is matched like the user's own name,
``detect.identity``), a regex as written. A plain text is first looked for in the raw line
(lower-cased bytes), so only lines that may hold it are parsed. The search stops after
``budget`` seconds and says the count is a lower bound; a regex gets a timeout per string
(the ``regex`` module's), so a catastrophic pattern cannot hang the page.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import regex

from tracepub.review.web.index import Index

BUDGET = 8.0
EXAMPLES = 6
_JSON_ESCAPED = set('"\\') | {chr(c) for c in range(32)}


@dataclass
class Preview:
    hits: int = 0
    files: set[str] = field(default_factory=set)
    examples: list[tuple[str, str, str, str]] = field(default_factory=list)  # before, match, after, file
    complete: bool = True
    seconds: float = 0.0


def compile_query(text: str, is_regex: bool) -> regex.Pattern:
    if is_regex:
        return regex.compile(text)
    return regex.compile(r"(?<!\w)" + regex.escape(text) + r"(?!\w)", regex.IGNORECASE)


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(k)
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)


def _record_strings(raw: bytes) -> list[str]:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return [raw.decode("utf-8", "replace")]
    out: list[str] = []
    _strings(value, out)
    return out


def _chunks(path: Path, kind: str) -> Iterator[bytes]:
    """A JSON document whole, a JSONL file line by line (streamed: a session can be 300 MB)."""
    try:
        with open(path, "rb") as fh:
            if kind == "json":
                yield fh.read()
            else:
                yield from fh
    except OSError:
        return


def run(idx: Index, text: str, is_regex: bool, budget: float = BUDGET) -> Preview:
    pat = compile_query(text, is_regex)
    needle = None
    if not is_regex and text.isascii() and not (set(text) & _JSON_ESCAPED):
        needle = text.lower().encode()
    kinds = {d: k for s in idx.sessions for d, k in zip(s.dests, s.kinds, strict=True)}
    res = Preview()
    t0 = time.monotonic()
    deadline = t0 + budget
    for dest in sorted(idx.files):
        if dest not in kinds:  # the card, not a session
            continue
        for raw in _chunks(idx.out.output(dest), kinds[dest]):
            if time.monotonic() > deadline:
                res.complete = False
                break
            if needle is not None and needle not in raw.lower():
                continue
            for s in _record_strings(raw):
                try:
                    for m in pat.finditer(s, timeout=max(0.05, deadline - time.monotonic())):
                        if m.end() == m.start():
                            continue
                        res.hits += 1
                        res.files.add(dest)
                        if len(res.examples) < EXAMPLES and sum(e[3] == dest for e in res.examples) < 2:
                            res.examples.append(
                                (
                                    s[max(0, m.start() - 60) : m.start()],
                                    m.group(),
                                    s[m.end() : m.end() + 60],
                                    dest,
                                )
                            )
                except TimeoutError:
                    res.complete = False
                    break
        if not res.complete:
            break
    res.seconds = time.monotonic() - t0
    return res
