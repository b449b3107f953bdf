"""Fake values of real shape, made at run time.

Rule examples, the sample traces, the evaluation corpus and the tests all need strings that
look exactly like credentials. Writing them literally into the repository would trip push
protection and secret scanners, so they are written as templates and expanded here:
``ghp_{{alnum:36}}`` or ``{{github:ghp}}`` (a token with a valid checksum).
"""

from __future__ import annotations

import base64
import random
import re
import string
import zlib

from tracepub.detect.secrets.validators import _BECH32, base62, bech32_checksum

_ALPHABETS = {
    "alnum": string.ascii_letters + string.digits,
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "upper": string.ascii_uppercase,
    "alpha": string.ascii_letters,
    "b32": string.ascii_uppercase + "234567",
    "lower": string.ascii_lowercase,
    "digits": string.digits,
    "upperdigits": string.ascii_uppercase + string.digits,
    "lowerdigits": string.ascii_lowercase + string.digits,
    "b64": string.ascii_letters + string.digits + "+/",
    "b64url": string.ascii_letters + string.digits + "-_",
    "b58": "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
    "bech32": "qpzry9x8gf2tvdw0s3jn54khce6mua7l",
    "BECH32": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "lowerhex": "0123456789abcdef",
    "crockford": "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
}
_TEMPLATE = re.compile(r"\{\{(\w+)(?::([\w]+))?\}\}")


def token(rng: random.Random, alphabet: str, n: int) -> str:
    # Avoid long runs of one class so entropy checks see a realistic string.
    return "".join(rng.choice(alphabet) for _ in range(n))


def github_token(rng: random.Random, prefix: str = "ghp") -> str:
    body = token(rng, _ALPHABETS["alnum"], 30)
    return f"{prefix}_{body}{base62(zlib.crc32(body.encode()))}"


def luhn_number(rng: random.Random, prefix: str = "4", length: int = 16) -> str:
    digits = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    for check in string.digits:
        candidate = digits + check
        total = 0
        for i, c in enumerate(reversed(candidate)):
            d = int(c)
            if i % 2:
                d = d * 2 - 9 if d * 2 > 9 else d * 2
            total += d
        if total % 10 == 0:
            return candidate
    raise AssertionError("unreachable")


def age_key(rng: random.Random) -> str:
    """An age secret key: Bech32, HRP ``age-secret-key-``, 32 bytes, valid checksum, upper case."""
    data = [rng.randrange(32) for _ in range(52)]
    hrp = "age-secret-key-"
    return (hrp + "1" + "".join(_BECH32[d] for d in data + bech32_checksum(hrp, data))).upper()


def pem_private_key(rng: random.Random, kind: str = "RSA") -> str:
    label = "PRIVATE KEY" if kind in ("", "PKCS8") else f"{kind} PRIVATE KEY"
    body = "\n".join(base64.b64encode(rng.randbytes(48)).decode() for _ in range(4))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n"


def jwt_token(rng: random.Random) -> str:
    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    header = b64(b'{"alg":"HS256","typ":"JWT"}')
    sub, iat = token(rng, _ALPHABETS["lowerdigits"], 12), rng.randrange(10**9, 2 * 10**9)
    payload = b64(f'{{"sub":"{sub}","iat":{iat}}}'.encode())
    return f"{header}.{payload}.{b64(rng.randbytes(32))}"


def expand(template: str, rng: random.Random | None = None) -> str:
    """Expand ``{{kind:arg}}`` placeholders in a template with random values."""
    rng = rng or random.Random(0)

    def sub(m: re.Match) -> str:
        kind, arg = m.group(1), m.group(2)
        if kind in _ALPHABETS:
            return token(rng, _ALPHABETS[kind], int(arg or 32))
        if kind == "github":
            return github_token(rng, arg or "ghp")
        if kind == "npm":
            return github_token(rng, "npm")
        if kind == "luhn":
            return luhn_number(rng, arg or "4")
        if kind == "b64bytes":
            return base64.b64encode(rng.randbytes(int(arg or 32))).decode()
        if kind == "age":
            return age_key(rng)
        if kind == "pem":
            return pem_private_key(rng, arg or "RSA")
        if kind == "pemb64":
            return base64.b64encode(pem_private_key(rng, arg or "RSA").encode()).decode()
        if kind == "basic":
            user = token(rng, _ALPHABETS["lower"], 6)
            return base64.b64encode(
                f"{user}:{token(rng, _ALPHABETS['alnum'], int(arg or 16))}".encode()
            ).decode()
        if kind == "jwt":
            return jwt_token(rng)
        if kind == "uuid":
            h = token(rng, _ALPHABETS["hex"], 32)
            return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"
        raise ValueError(f"unknown template {m.group(0)}")

    return _TEMPLATE.sub(sub, template)
