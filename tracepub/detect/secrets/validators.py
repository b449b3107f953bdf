"""Checksums and decoding checks for token formats that carry one.

A valid checksum makes a match near certain (confidence 0.99); a rule may also *require* a
check (``require_valid = true``), which turns a loose shape into a precise one:

- ``github`` / ``npm``: GitHub (``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``) and npm
  (``npm_``) tokens end with six base62 characters encoding the CRC32 of the random part.
- ``bech32``: age secret keys (``AGE-SECRET-KEY-1...``) are Bech32 with a 6-character checksum.
- ``luhn``: card numbers.
- ``pem_base64``: base64 that decodes to a PEM *private* key header (kubeconfig
  ``client-key-data``), as opposed to a certificate or public key.
- ``basic_auth``: base64 that decodes to printable ``user:password`` (``Authorization: Basic``,
  docker ``auth``).
- ``password_like``: not a bare short word (``user:token@host`` in docs is syntax).
- ``user_password``: a command line's ``USER:PASSWORD`` (``curl -u``) with a real secret side.
- ``jwt``: the header part decodes to a JSON object with ``alg``/``typ``/``kid``.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Callable

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def base62(n: int, width: int = 6) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = _B62[r] + out
    return out.rjust(width, "0")


def crc32_base62(token: str) -> bool:
    """``<prefix>_<30 random><6 base62 crc32>``."""
    _, _, body = token.partition("_")
    if len(body) != 36:
        return False
    random, check = body[:30], body[30:]
    return base62(zlib.crc32(random.encode())) == check


def luhn(number: str) -> bool:
    digits = [int(c) for c in number if c.isdigit()]
    if len(digits) < 12:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_BECH32_GEN = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


def bech32_polymod(values: list[int]) -> int:
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= _BECH32_GEN[i] if (top >> i) & 1 else 0
    return chk


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def bech32_checksum(hrp: str, data: list[int]) -> list[int]:
    poly = bech32_polymod(_hrp_expand(hrp) + data + [0] * 6) ^ 1
    return [(poly >> 5 * (5 - i)) & 31 for i in range(6)]


def bech32(value: str) -> bool:
    """A Bech32 string (BIP-173) with a valid checksum; case-insensitive as the spec says."""
    low = value.lower()
    hrp, sep, data = low.rpartition("1")
    if not sep or not hrp or len(data) < 6 or any(c not in _BECH32 for c in data):
        return False
    return bech32_polymod(_hrp_expand(hrp) + [_BECH32.index(c) for c in data]) == 1


def _b64decode(value: str, limit: int | None = None) -> bytes | None:
    v = value.strip().replace("\\n", "").replace("\n", "")
    if limit is not None:
        v = v[: limit - limit % 4]
    v += "=" * (-len(v) % 4)
    try:
        return base64.b64decode(v, altchars=b"-_" if ("-" in v or "_" in v) else None)
    except (binascii.Error, ValueError):
        return None


def pem_base64(value: str) -> bool:
    head = _b64decode(value, 80)
    return head is not None and b"PRIVATE KEY" in head


def basic_auth(value: str) -> bool:
    raw = _b64decode(value)
    if raw is None or len(raw) < 3:
        return False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    user, sep, password = text.partition(":")
    # an empty password is still a credential: an API key sent as the user name (``key:``)
    return bool(sep) and (bool(password) or len(user) >= 4) and text.isprintable()


_PLACEHOLDER_PART = re.compile(r"[$%]|<.*>$|\[.*\]$|\{\{|\{[A-Za-z_][A-Za-z_.]*\}$|\*{3,}|\.{3}")
# What people write for "a user" and "a password" in docs and tests: ``user:pass``, ``test:test``.
_STAND_INS = frozenset(
    """user username login name pass passwd password pwd pw secret token apikey api_key key test xxx yyy zzz
    foo bar baz demo example changeme guest admin root""".split()
)


def _part_is_placeholder(part: str) -> bool:
    """``$PASSWORD``, ``${x}``, ``$(cat f)``, ``<password>``, ``[PASSWORD]``, ``{{ v }}``, ``{password}``
    (a name in braces; ``{aZ3k9...}`` is a value someone left its braces around), ``***``."""
    if _PLACEHOLDER_PART.match(part) or _PLACEHOLDER_PART.search(part[:2]):
        return True
    return part.lower() in _STAND_INS or (len(set(part.lower())) <= 1 and len(part) >= 2)


def user_password(value: str) -> bool:
    """A command line's ``USER:PASSWORD`` argument (``curl -u``), quotes as written (``"a":"b"``,
    ``'a:b'``, ``a:'b'``): holds a colon, and the side that carries the secret (the password, or
    the user when the password is empty: an API key as the user name) is neither a placeholder
    nor a stand-in word, nor equal to the other side (``test:test``)."""
    v = value.replace('"', "").replace("'", "")
    if v.startswith("<") or ":" not in v:
        return False
    user, _, password = v.partition(":")
    secret = password or user
    if not secret or _part_is_placeholder(secret) or secret == user and password:
        return False
    if password and user and _part_is_placeholder(user) and user.startswith(("$", "{{", "<")):
        return False  # "${USER}:x" is a template whatever x is
    return password_like(secret.strip("{}"))


def jwt(value: str) -> bool:
    header = _b64decode(value.split(".", 1)[0])
    if header is None:
        return False
    try:
        obj = json.loads(header)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(obj, dict) and ("alg" in obj or "typ" in obj or "kid" in obj)


def password_like(value: str) -> bool:
    """Not a bare short word: ``user:token@``, ``org:repo@`` are URL syntax and docs, not passwords."""
    return not (value.isalpha() and len(value) <= 8)


VALIDATORS: dict[str, Callable[[str], bool]] = {
    "password_like": password_like,
    "user_password": user_password,
    "github": crc32_base62,
    "npm": crc32_base62,
    "luhn": luhn,
    "bech32": bech32,
    "pem_base64": pem_base64,
    "basic_auth": basic_auth,
    "jwt": jwt,
}


def check(name: str, value: str) -> bool:
    try:
        return VALIDATORS[name](value)
    except KeyError as exc:
        raise ValueError(f"unknown validator {name!r}") from exc
