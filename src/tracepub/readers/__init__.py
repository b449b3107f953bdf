"""Reader registry and content-based autodetection.

Adding a harness: write a ``Reader`` subclass in a new module here and add an instance to
``READERS`` (specific formats before generic ones: the first reader whose ``sniff`` accepts a
file owns it). A file no reader accepts is reported and skipped, never guessed at.
"""

from __future__ import annotations

from pathlib import Path

from tracepub.model import Unit
from tracepub.readers.base import Reader, read_head
from tracepub.readers.claude import ClaudeCode, ClaudeCodeMeta

READERS: list[Reader] = [
    ClaudeCode(),
    ClaudeCodeMeta(),
]


def by_name(name: str) -> Reader:
    """The reader that writes ``dataset/<name>/`` (the first registered under that name)."""
    for r in READERS:
        if r.name == name:
            return r
    raise KeyError(name)


def reader_for_unit(unit: Unit) -> Reader:
    """Units remember their reader by class name, since several readers may share a harness name."""
    for r in READERS:
        if type(r).__name__ == unit.reader:
            return r
    return by_name(unit.harness)


def detect(path: Path) -> Reader | None:
    """The reader that recognises this file by content, or None."""
    suffix = path.suffix.lower()
    candidates = [r for r in READERS if suffix in r.suffixes]
    if not candidates:
        return None
    try:
        head = read_head(path)
    except OSError:
        return None
    for r in candidates:
        try:
            if r.sniff(path, head):
                return r
        except Exception:  # a sniffer must never stop discovery
            continue
    return None
