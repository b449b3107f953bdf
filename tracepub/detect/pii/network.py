"""IP addresses: which ones name a machine someone owns.

Private, loopback, link-local, CGNAT and documentation ranges identify no one and are kept;
globally routable ones are personal data (a user's home or office). Dotted version numbers
and OIDs are not addresses.
"""

from __future__ import annotations

import ipaddress
import re

_IPV4ISH = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")


_DOTTED_QUAD = re.compile(r"([0-9]{1,3})\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}")


# First octets of IPv4 blocks that are never global (RFC 6890): 0/8, 10/8, 127/8; and, by the
# second octet, 100.64/10, 169.254/16, 172.16/12, 192.168/16. Logs are full of these.
_NEVER_GLOBAL = {0: None, 10: None, 127: None, 100: range(64, 128), 169: range(254, 255), 172: range(16, 32),
                 192: range(168, 169)}


_WORD_AGREES: dict[str, bool] = {}


def _same_word_chars(text: str) -> bool:
    """Do ``re`` and ``regex`` agree on which characters of ``text`` are word characters (``\\w``,
    hence ``\\b``)? Always on ASCII; beyond it they differ on marks, joiners and some numerals.
    Where they agree, a pattern of ASCII literals, ``\\b`` and ``\\d`` matches the same in both."""
    import regex

    for ch in set(text):
        if ch > "\x7f":
            ok = _WORD_AGREES.get(ch)
            if ok is None:
                ok = _WORD_AGREES[ch] = (ch.isalnum() or ch == "_") == bool(regex.match(r"\w", ch)) \
                    and ch.isdecimal() == bool(regex.match(r"\d", ch))
            if not ok:
                return False
    return True


def _never_global(text: str) -> bool:
    """An IPv4 address (possibly with a /prefix) in a block that is never global."""
    m = _DOTTED_QUAD.match(text)
    if m is None:
        return False
    block = _NEVER_GLOBAL.get(int(m.group(1)), ())
    return block is None or bool(block and int(text.split(".", 2)[1]) in block)


def is_public_ip(text: str) -> bool:
    if _DOTTED_QUAD.fullmatch(text) and _never_global(text):  # decided without parsing
        return False
    try:
        return ipaddress.ip_address(text.strip("[]")).is_global
    except ValueError:
        return False


# What every IPv6 form Presidio matches holds (its patterns start where no word character or
# colon is before): "::" with nothing or a hex group of 1-4 right before it, or four colons
# between groups. "test_x.py::test_y" and "std::vector" are not addresses. (ASCII word
# characters only: where re and regex disagree on \w, the line is looked at.)
_IPV6_ISH = (r"::(?<![A-Za-z0-9_]{5}::)(?<![G-Zg-z_]::)(?<![G-Zg-z_][A-Za-z0-9_]::)(?<![G-Zg-z_][A-Za-z0-9_]{2}::)"
             r"(?<![G-Zg-z_][A-Za-z0-9_]{3}::)|:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:")


_IPV6_HINT = re.compile(_IPV6_ISH)


# Lines that can hold an address: every IPv4 has d.d.d.d, every IPv6 "::" or four colons in a row
# of groups. (``\d\.\d{1,3}\.\d{1,3}\.\d`` written from its first dot: ``re`` then stops at dots
# and colons only, not at every digit; a match starts one character later, on the same line.)
_IP_LINES = re.compile(rf"\.(?<=\d\.)\d{{1,3}}\.\d{{1,3}}\.\d|{_IPV6_ISH}")


# Presidio's IPv4 pattern, as the fast path below knows it: every match is 1-3 ASCII digits, a dot,
# 1-3 digits, a dot, 1-3 digits, a dot and a digit; so it starts 1-3 characters before a dot that
# ``_IPV4_DOT`` finds, and ``re`` need not try it at every digit (``_ipv4_finditer``).
_PRESIDIO_IPV4 = (r"\b(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\."
                  r"(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)"
                  r"(?:/(?:[0-2]?\d|3[0-2]))?\b")


_IPV4_DOT = re.compile(r"\.(?<=[0-9]\.)(?=[0-9]{1,3}\.[0-9]{1,3}\.[0-9])")


def _ipv4_finditer(rx: re.Pattern, text: str, pos: int = 0, endpos: int | None = None) -> list[re.Match]:
    """``list(rx.finditer(text, pos, endpos))`` for ``_PRESIDIO_IPV4`` compiled (any flags): ``rx``
    tried, in order, only where a match can start, skipping starts inside the last match (tests)."""
    out: list[re.Match] = []
    end = pos
    endpos = len(text) if endpos is None else endpos
    for p in sorted({q - k for q in (m.start() for m in _IPV4_DOT.finditer(text, pos, endpos)) for k in (3, 2, 1)}):
        if p < end:  # also skips positions before pos
            continue
        m = rx.match(text, p, endpos)
        if m is not None:
            out.append(m)
            end = m.end()
    return out
