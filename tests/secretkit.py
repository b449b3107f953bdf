"""Shared by the secret-detection tests: scan a text as one string leaf and ask what the
``secret.*`` spans cover. One definition, so every suite asks the same question (every
occurrence of the value, every character of it)."""

from __future__ import annotations

from tracepub.detect.engine import Engine
from tracepub.model import Leaf, Span

TEXT = Leaf("test", ("text",), None, False)


def secret_spans(engine: Engine, text: str) -> list[Span]:
    return [s for s in engine.scan(text, TEXT) if s.type.startswith("secret.")]


def secret_values(engine: Engine, text: str) -> list[str]:
    return [text[s.start : s.end] for s in secret_spans(engine, text)]


def covered(engine: Engine, text: str, secret: str) -> bool:
    """Every character of ``secret`` (each occurrence) lies in a secret span."""
    spans = secret_spans(engine, text)
    start = text.find(secret)
    assert start >= 0, (text, secret)
    while start >= 0:
        if not all(any(s.start <= i < s.end for s in spans) for i in range(start, start + len(secret))):
            return False
        start = text.find(secret, start + 1)
    return True
