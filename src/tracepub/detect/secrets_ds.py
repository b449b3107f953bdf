"""detect-secrets' plugins, used for what they are good at: vetted regexes for ~25 providers.

Regex plugins are run through their own ``denylist`` patterns with ``finditer`` so spans carry
exact offsets. The keyword plugin (``password = "..."``) runs per line, and its findings go
through detect-secrets' heuristic filters (sequential strings, UUIDs, templated secrets, ``$``
references, indirect references). The high-entropy plugins are not used on their own: on traces
they flag every git SHA and lock-file hash; context-aware entropy lives in ``detect/entropy.py``.
"""

from __future__ import annotations

import re

from detect_secrets.filters import heuristic
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.keyword import KeywordDetector

from tracepub.detect.base import Detector
from tracepub.detect.filters import is_placeholder
from tracepub.model import Leaf, Span

_SKIP = {"Base64HighEntropyString", "HexHighEntropyString", "KeywordDetector", "IPPublicDetector"}


def _type_of(secret_type: str) -> str:
    return "secret." + re.sub(r"[^a-z0-9]+", "_", secret_type.lower()).strip("_")


def _heuristic_ok(secret: str) -> bool:
    return not (
        heuristic.is_sequential_string(secret)
        or heuristic.is_potential_uuid(secret)
        or heuristic.is_templated_secret(secret)
        or heuristic.is_prefixed_with_dollar_sign(secret)
        or is_placeholder(secret)
    )


class DetectSecrets(Detector):
    name = "detect-secrets"
    high_confidence = False

    def __init__(self) -> None:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

        self._regex: list[tuple[str, str, list[re.Pattern]]] = []
        for secret_type, cls in get_mapping_from_secret_type_to_class().items():
            if cls.__name__ in _SKIP or not issubclass(cls, RegexBasedDetector):
                continue
            self._regex.append((cls.__name__, _type_of(secret_type), list(cls().denylist)))
        self._keyword = KeywordDetector()

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        spans: list[Span] = []
        for plugin, type_, patterns in self._regex:
            for rx in patterns:
                for m in rx.finditer(text):
                    g = 1 if m.re.groups else 0
                    start, end = m.span(g)
                    if start < 0 or end <= start or not _heuristic_ok(text[start:end]):
                        continue
                    spans.append(Span(start, end, type_, f"detect-secrets:{plugin}", 0.8))
        return spans + self._keywords(text)

    def _keywords(self, text: str) -> list[Span]:
        spans = []
        offset = 0
        for line in text.split("\n"):
            if len(line) > 8 and ("=" in line or ":" in line):
                for secret in self._keyword.analyze_line(filename="trace.txt", line=line, line_number=0):
                    value = secret.secret_value or ""
                    if len(value) < 6 or not _heuristic_ok(value) or heuristic.is_indirect_reference(line):
                        continue
                    i = line.find(value)
                    if i >= 0:
                        spans.append(
                            Span(offset + i, offset + i + len(value), "secret.password",
                                 "detect-secrets:KeywordDetector", 0.7)
                        )
            offset += len(line) + 1
        return spans
