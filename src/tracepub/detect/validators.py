"""Checksums of token formats that carry one: a valid checksum makes a match near certain.

GitHub (``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``) and npm (``npm_``) tokens end with
six base62 characters encoding the CRC32 of the random part.
"""

from __future__ import annotations

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


VALIDATORS: dict[str, Callable[[str], bool]] = {
    "github": crc32_base62,
    "npm": crc32_base62,
    "luhn": luhn,
}


def check(name: str, value: str) -> bool:
    try:
        return VALIDATORS[name](value)
    except KeyError as exc:
        raise ValueError(f"unknown validator {name!r}") from exc
