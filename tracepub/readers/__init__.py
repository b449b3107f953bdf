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
from tracepub.readers.codex import Codex
from tracepub.readers.gemini import GeminiCli, GeminiCliLegacy
from tracepub.readers.generic import Atif, OpenAIMessages, OpenAIMessagesDoc, ShareGPT, ShareGPTDoc, Sts
from tracepub.readers.hermes import HermesDb, HermesSessionLog, HermesTrajectories
from tracepub.readers.opencode import OpenCodeDb, OpenCodeLegacy
from tracepub.readers.pi import Pi

READERS: list[Reader] = [
    ClaudeCode(),
    ClaudeCodeMeta(),
    Codex(),
    Pi(),
    GeminiCli(),
    GeminiCliLegacy(),
    OpenCodeDb(),
    OpenCodeLegacy(),
    HermesDb(),
    HermesSessionLog(),
    HermesTrajectories(),
    # generic formats: only for SOURCES given on the command line
    Sts(),
    OpenAIMessages(),
    OpenAIMessagesDoc(),
    ShareGPT(),
    ShareGPTDoc(),
    Atif(),
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


def detect(path: Path, generic: bool = True, head: bytes | None = None) -> Reader | None:
    """The reader that recognises this file by content, or None.

    ``generic=False`` leaves the generic interchange formats out (discovery under $HOME).
    """
    suffix = path.suffix.lower()
    candidates = [r for r in READERS if suffix in r.suffixes and (generic or not r.generic)]
    if not candidates:
        return None
    if head is None:
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
