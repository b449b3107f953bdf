"""Checks on a recognizer's match that Presidio does not make: what is not an email (an SSH
remote ``git@``, a no-reply sender), not a phone (a version, a number glued to a word).
"""

from __future__ import annotations

import re

from tracepub.model import Span

_NOT_PERSONAL_EMAIL = re.compile(r"(?i)^(?:git|noreply|no-reply|donotreply|do-not-reply|mailer-daemon)@|\[bot\]@")


def _trim_email(text: str, s: Span) -> Span | None:
    """Presidio's email pattern takes ``user.email=jane@x.io`` whole (``=`` is legal in a local
    part); in traces that is a key and a value, and only the value is the address."""
    value = text[s.start:s.end]
    local = value.split("@", 1)[0]
    cut = max(local.rfind(c) for c in "=:/")
    if cut < 0:
        return s
    if cut + 1 >= len(local):
        return None
    return Span(s.start + cut + 1, s.end, s.type, s.detector, s.confidence, s.action)


def _version_like(text: str, start: int) -> bool:
    """``agent/8.0.76.214``, ``v1.2.3.4``, ``version 2.1.0.0``: a four-part version, not an address
    (``http://81.2.69.160/`` keeps its two slashes and stays an address)."""
    before = text[max(0, start - 12):start]
    if before.endswith("/") and not before.endswith("//"):
        return True
    return before[-1:] in ("v", "V") or before.rstrip().lower().endswith(("version", "ver", "release"))


def _glued(text: str, s: Span) -> bool:
    """A number that is a piece of a longer token: the last group of a UUID (``…-750250401117``
    passes Aadhaar's checksum one time in ten), a hex id, a path segment."""
    before = text[s.start - 1] if s.start > 0 else " "
    after = text[s.end] if s.end < len(text) else " "
    if before.isalnum() or after.isalnum() or before == "_" or after == "_":
        return True
    if before == "-" and s.start > 1 and text[s.start - 2].isalnum():
        return True
    return after == "-" and s.end + 1 < len(text) and text[s.end + 1].isalnum()
