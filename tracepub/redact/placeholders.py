"""Typed, consistent placeholders: the same value gets the same placeholder across a dataset.

The suffix is a keyed hash (HMAC-SHA256) of the value, not a counter, so that (a) a re-run and a
run with any number of worker processes produce the same bytes, and (b) nobody holding the
dataset can confirm a guessed value by hashing it. The key lives in ``DIR/review/`` (never
uploaded) and is created on the first run.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

KEY_FILE = "placeholder.key"
SUFFIX_HEX = 8  # 32 bits: collisions stay unlikely up to tens of thousands of values per type

# Types whose placeholder carries no suffix: there is one user, so one <USER>.
_FIXED = {
    "identity.username": "USER",
    "identity.name": "USER_NAME",
    "identity.email": "USER_EMAIL",
    "identity.hostname": "HOSTNAME",
    "identity.home": "HOME",
}
# Short names for common PII types; anything else is derived from the type string.
_NAMES = {
    "pii.email": "EMAIL",
    "pii.phone": "PHONE",
    "pii.person": "PERSON",
    "pii.ip": "IP",
    "pii.credit_card": "CREDIT_CARD",
    "pii.iban": "IBAN",
    "pii.username": "USER",
    "pii.address": "ADDRESS",
    "pii.national_id": "NATIONAL_ID",
    "pii.url_credentials": "URL_CREDENTIALS",
}
_NON_WORD = re.compile(r"[^A-Z0-9]+")


def load_key(review_dir: Path) -> bytes:
    """Read the dataset's HMAC key, creating it (mode 0600) on first use."""
    path = review_dir / KEY_FILE
    if path.exists():
        return bytes.fromhex(path.read_text().strip())
    review_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key.hex() + "\n")
    return key


def label(type_: str) -> str:
    """The upper-case type label of a placeholder: ``secret.github_token`` → ``SECRET_GITHUB_TOKEN``."""
    if type_ in _FIXED:
        return _FIXED[type_]
    if type_ in _NAMES:
        return _NAMES[type_]
    head, _, rest = type_.partition(".")
    base = rest if head == "pii" else type_
    return _NON_WORD.sub("_", base.upper()).strip("_") or "REDACTED"


class Namer:
    """Turns (type, value) into a placeholder; one instance per run, shared by all files."""

    def __init__(self, key: bytes):
        self._key = key
        self._ids: dict[str, str] = {}  # values repeat (the username in every path): hash once

    @property
    def key(self) -> bytes:
        return self._key

    def value_id(self, value: str) -> str:
        """A stable, keyed id of a value: what review decisions and the report refer to."""
        vid = self._ids.get(value)
        if vid is None:
            if len(self._ids) >= 100_000:
                self._ids.clear()
            vid = self._ids[value] = hmac.new(
                self._key, value.encode("utf-8", "surrogatepass"), hashlib.sha256
            ).hexdigest()[:16]
        return vid

    def placeholder(self, type_: str, value: str) -> str:
        name = label(type_)
        if type_ in _FIXED:
            return f"<{name}>"
        return f"<{name}_{self.value_id(value)[:SUFFIX_HEX]}>"


def for_path(placeholder: str) -> str:
    """Placeholders inside file and folder names lose their angle brackets (invalid on Windows)."""
    return placeholder.strip("<>")
