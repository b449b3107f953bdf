"""Replace detected spans with placeholders and describe each replacement as a finding.

One ``Redactor`` serves one output file at a time (``start_unit``) and is the ``visit``
callback of the walker. Findings carry context taken from the *redacted* text, so a snippet
never shows a neighbouring secret in clear, and the value itself is masked for secrets and the
user's identity (review/ is local, but the identity is never written in clear anywhere).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from tracepub.detect import Engine
from tracepub.model import KEPT, Leaf, Span
from tracepub.placeholders import Namer, for_path
from tracepub.walk import JSON, KEY, Walker, format_path

CONTEXT = 48


def mask(value: str, type_: str) -> str:
    """What the report may show of a value: PII in clear (a person must judge it), the rest masked."""
    if type_.startswith("identity."):
        return value[:1] + "…" if len(value) > 1 else "…"
    if type_.startswith("secret.") or type_.startswith("custom."):
        if len(value) >= 16:
            return value[:4] + "…" + value[-2:]
        return value[:2] + "…"
    return value


class Redactor:
    def __init__(self, engine: Engine, namer: Namer, keep_ids: set[str] | None = None,
                 remove_blobs: bool = True):
        self.engine = engine
        self.namer = namer
        self.keep_ids = keep_ids or set()
        self.walker = Walker(self._visit, self._blob, remove_blobs)
        self.types: Counter[str] = Counter()
        self.blobs: Counter[str] = Counter()
        self.findings: list[dict] = []
        self.file = ""
        self.harness = ""
        self.record_index = 0
        self._record: Any = None
        self._is_prose = None
        self._rendered: dict[tuple, tuple] = {}
        self._rendered_chars = 0
        self._where: dict[tuple, str] = {}  # path -> "$.a.b[0]" (paths repeat line after line)
        # (text, key, prose) of short strings without a space that held nothing (same harness).
        self._clean: set[tuple] = set()

    def start_unit(self, file: str, harness: str, is_prose) -> None:
        if harness != self.harness:
            self.walker.clean_keys.clear()
            self._clean.clear()
        self.file, self.harness, self._is_prose = file, harness, is_prose
        self.findings = []
        self.engine.start_unit()

    def redact_record(self, index: int, value: Any) -> Any:
        self.record_index, self._record = index, value
        return self.walker.walk(value)

    def prose_strings(self, record: Any) -> list[str]:
        """The strings of ``record`` the reader calls prose (for ``Engine.prefetch``)."""
        if self._is_prose is None:
            return []
        out: list[str] = []
        is_prose = self._is_prose

        def walk(v: Any, path: tuple) -> None:
            if isinstance(v, str):
                if len(v) >= 3 and is_prose(record, path):
                    out.append(v)
            elif isinstance(v, dict):
                for k, x in v.items():
                    walk(x, (*path, k))
            elif isinstance(v, list):
                for i, x in enumerate(v):
                    walk(x, (*path, i))

        walk(record, ())
        return out

    def redact_text(self, text: str, path: tuple = (), key: str | None = None) -> str:
        return self._visit(text, path, key)

    # -- walker callbacks ------------------------------------------------------------------
    def _blob(self, kind: str, path: tuple, text: str) -> None:
        self.blobs[kind] += 1

    def _visit(self, text: str, path: tuple, key: str | None) -> str:
        if len(text) < 3:
            return text
        prose = False
        if self._is_prose is not None and JSON not in path and (not path or path[-1] is not KEY):
            prose = self._is_prose(self._record, path)
        short = len(text) <= 64 and " " not in text  # no remembered person fits in it (two words)
        if short and (text, key, prose) in self._clean:
            return text  # ids, timestamps, flags: the same answer as last time, without a Leaf
        spans = self.engine.scan(text, Leaf(self.harness, path, key, prose))
        if not spans:
            if path and path[-1] is KEY and len(self.walker.clean_keys) < 100_000:
                self.walker.clean_keys.add(text)  # an object key with nothing in it: skip it next time
            elif short:
                if len(self._clean) >= 100_000:
                    self._clean.clear()
                self._clean.add((text, key, prose))
            return text
        return self._apply(text, spans, path)

    def _apply(self, text: str, spans: list[Span], path: tuple) -> str:
        in_name = bool(path) and path[0] == "#file"
        # Keyed by the text when short; a long one by its spans list, which the engine's cache
        # hands out again for the same text (the entry keeps it alive, so the id stays unique).
        key: tuple = (text, in_name) if len(text) <= self.RENDER_CACHE_LEN else (id(spans), in_name)
        rendered = self._rendered.get(key)
        if rendered is None or rendered[0] is not spans:
            rendered = (spans, *self._render(text, spans, in_name))
            self._rendered_chars += len(rendered[1])
            if len(self._rendered) >= 50_000 or self._rendered_chars > 16_000_000:
                self._rendered.clear()
                self._rendered_chars = len(rendered[1])
            self._rendered[key] = rendered
        _, new, static = rendered
        where = self._where.get(path)
        if where is None:
            if len(self._where) >= 100_000:
                self._where.clear()
            where = self._where[path] = format_path(path)
        head = f"{self.file}\0{self.record_index}\0{where}\0"
        for s, fields in static:
            self.types[s.type] += 1
            self.findings.append({
                "id": hashlib.sha1(f"{head}{s.start}".encode()).hexdigest()[:12],
                "file": self.file,
                "record": self.record_index,
                "path": where,
                **fields,
            })
        return new

    # Strings repeat (the working folder on every line, tool output in two fields): their
    # rendering is reused. Up to this length the text itself is the key.
    RENDER_CACHE_LEN = 2048

    def _render(self, text: str, spans: list[Span], in_name: bool) -> tuple[str, list[tuple[Span, dict]]]:
        """The redacted text and, per span, the finding fields that do not depend on where the
        text occurs."""
        pieces: list[str] = []
        placed: list[tuple[Span, str, int, int, bool]] = []
        pos = 0
        out_len = 0
        for s in spans:
            value = text[s.start : s.end]
            # A reviewer's added value or regex (custom.*) is always redacted, even if also kept.
            kept = bool(self.keep_ids) and not s.type.startswith("custom.") \
                and self.namer.value_id(value) in self.keep_ids
            ph = value if kept else self.namer.placeholder(s.type, value)
            if in_name:
                ph = value if kept else for_path(ph)
            pieces.append(text[pos : s.start])
            out_len += s.start - pos
            placed.append((s, ph, out_len, out_len + len(ph), kept))
            pieces.append(ph)
            out_len += len(ph)
            pos = s.end
        pieces.append(text[pos:])
        new = "".join(pieces)
        static = []
        for s, ph, a, b, kept in placed:
            value = text[s.start : s.end]
            static.append((s, {
                "start": s.start,
                "end": s.end,
                "type": s.type,
                "detector": s.detector,
                "confidence": s.confidence,
                "action": KEPT if kept else s.action,
                "placeholder": ph if not kept else None,
                "value": mask(value, s.type),
                "value_id": self.namer.value_id(value),
                "context": {"before": new[max(0, a - CONTEXT) : a], "after": new[b : b + CONTEXT]},
            }))
        return new, static
