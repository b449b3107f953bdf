"""The detector contract: small plugin classes in the style of detect-secrets.

A detector looks at one string and its ``Leaf`` context and returns spans. It must be cheap to
call on text that holds nothing (most text): do a fast rejection first. Register a new detector
in ``detect/__init__.py:build_detectors``.
"""

from __future__ import annotations

from typing import ClassVar

from tracepub.model import Leaf, Span


class Detector:
    name: ClassVar[str] = "detector"
    # Detectors that publish re-runs as a last check: only rules precise enough to refuse an upload.
    high_confidence: ClassVar[bool] = False

    def scan(self, text: str, leaf: Leaf) -> list[Span]:  # pragma: no cover - interface
        raise NotImplementedError


# Ranking used when spans overlap: the user's identity beats a secret beats other PII.
PRIORITY = {"identity": 3, "secret": 2, "pii": 1, "custom": 3}


def priority(type_: str) -> int:
    return PRIORITY.get(type_.partition(".")[0], 0)
