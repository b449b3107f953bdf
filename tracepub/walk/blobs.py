"""Opaque blobs: values nobody can inspect, so they are removed rather than scanned.

Base64 images may show a secret on screen; encrypted reasoning and signatures cannot be read,
so no detector can vouch for them. DESIGN.md: removed by default and counted in the report.
The string is replaced by a marker (keys and types stay as they were).
"""

from __future__ import annotations

import re

# Keys whose string value is always opaque, whatever the harness.
_OPAQUE_KEYS = {
    "signature": "signature",  # Claude thinking blocks
    "thinkingSignature": "signature",  # pi
    "thoughtSignature": "signature",  # pi, Gemini
    "textSignature": "signature",  # pi
    "encrypted_content": "encrypted",  # Codex reasoning / compaction
    "encryptedContent": "encrypted",
}
_MARKERS = {
    "image": "<IMAGE_REMOVED>",
    "file": "<FILE_REMOVED>",
    "signature": "<SIGNATURE_REMOVED>",
    "encrypted": "<ENCRYPTED_REMOVED>",
}
_DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+)?(?:;[\w=.+-]+)*;base64,", re.ASCII)
_B64 = re.compile(r"[A-Za-z0-9+/=\r\n_-]+", re.ASCII)
# An inline image of any real size; shorter base64 under a "data" key is left to the detectors.
MIN_BLOB = 16


# What must occur in a raw JSON line for ``classify`` to remove anything from it: the opaque
# keys (all contain "signature" or "encrypted") and "data" (``data:`` URLs, ``"data"`` keys).
# The pipeline's line-level skip relies on this: a new blob rule must keep it a superset.
LINE_LITERALS = ("signature", "encrypted", "data")
# The keys under which ``classify`` can find a blob whatever the text; under any other key only
# a text starting with DATA_URL_START can be one (the walker tests this before calling it).
KEYS = frozenset((*_OPAQUE_KEYS, "data"))
DATA_URL_START = "data:"


def classify(key: str | None, text: str, parent: dict | None) -> str | None:
    """Return the blob kind (image, file, signature, encrypted) or None for ordinary text."""
    if key in _OPAQUE_KEYS and text:
        return _OPAQUE_KEYS[key]
    if len(text) < 16:
        return None
    if text.startswith("data:") and len(text) >= 64:
        m = _DATA_URL.match(text)
        if m:
            mime = m.group(1) or ""
            return "image" if mime.startswith("image/") else "file"
    if key == "data" and parent is not None:
        kind = parent.get("type")
        if kind == "redacted_thinking":
            return "encrypted"
        mime = parent.get("mimeType") or parent.get("media_type") or parent.get("mime_type")
        # An image block ({"type": "base64", "data": ...} or {"data", "mimeType"}) is removed at any size.
        if (kind == "base64" or isinstance(mime, str)) and len(text) >= MIN_BLOB and _B64.fullmatch(text):
            return "image" if not isinstance(mime, str) or mime.startswith("image/") else "file"
    return None


def marker(kind: str) -> str:
    return _MARKERS[kind]
