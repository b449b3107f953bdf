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
_NEVER_GLOBAL = {
    0: None,
    10: None,
    127: None,
    100: range(64, 128),
    169: range(254, 255),
    172: range(16, 32),
    192: range(168, 169),
}


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
                ok = _WORD_AGREES[ch] = (ch.isalnum() or ch == "_") == bool(
                    regex.match(r"\w", ch)
                ) and ch.isdecimal() == bool(regex.match(r"\d", ch))
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
_IPV6_ISH = (
    r"::(?<![A-Za-z0-9_]{5}::)(?<![G-Zg-z_]::)(?<![G-Zg-z_][A-Za-z0-9_]::)(?<![G-Zg-z_][A-Za-z0-9_]{2}::)"
    r"(?<![G-Zg-z_][A-Za-z0-9_]{3}::)|:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:"
)


_IPV6_HINT = re.compile(_IPV6_ISH)


# Lines that can hold an address: every IPv4 has d.d.d.d, every IPv6 "::" or four colons in a row
# of groups. (``\d\.\d{1,3}\.\d{1,3}\.\d`` written from its first dot: ``re`` then stops at dots
# and colons only, not at every digit; a match starts one character later, on the same line.)
_IP_LINES = re.compile(rf"\.(?<=\d\.)\d{{1,3}}\.\d{{1,3}}\.\d|{_IPV6_ISH}")


# Presidio's IPv4 pattern, as the fast path below knows it: every match is 1-3 ASCII digits, a dot,
# 1-3 digits, a dot, 1-3 digits, a dot and a digit; so it starts 1-3 characters before a dot that
# ``_IPV4_DOT`` finds, and ``re`` need not try it at every digit (``_ipv4_finditer``).
_PRESIDIO_IPV4 = (
    r"\b(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\."
    r"(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)"
    r"(?:/(?:[0-2]?\d|3[0-2]))?\b"
)


_IPV4_DOT = re.compile(r"\.(?<=[0-9]\.)(?=[0-9]{1,3}\.[0-9]{1,3}\.[0-9])")


def _ipv4_finditer(rx: re.Pattern, text: str, pos: int = 0, endpos: int | None = None) -> list[re.Match]:
    """``list(rx.finditer(text, pos, endpos))`` for ``_PRESIDIO_IPV4`` compiled (any flags): ``rx``
    tried, in order, only where a match can start, skipping starts inside the last match (tests)."""
    out: list[re.Match] = []
    end = pos
    endpos = len(text) if endpos is None else endpos
    for p in sorted(
        {q - k for q in (m.start() for m in _IPV4_DOT.finditer(text, pos, endpos)) for k in (3, 2, 1)}
    ):
        if p < end:  # also skips positions before pos
            continue
        m = rx.match(text, p, endpos)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


# -- which public addresses are personal (``personal_ip``) ------------------------------------------
# A dotted quad is one piece of a longer dotted number when a digit and a dot are right before it or
# a dot and a digit right after (an OID such as 1.3.6.1.4.1.311, a five-part version).
_DOTTED_BEFORE = re.compile(r"[0-9]\.$")
_DOTTED_AFTER = re.compile(r"\.[0-9]")
# The words a version, a section or a release number follows on its line ("section 7.1.3.1",
# "RFC 5445 3.8.2.4", "Bump to 1.1.99.1", "!=3.10.0.1", "-> 1.2.0.3", ",v 1.1.1.1").
_VERSION_BEFORE = re.compile(
    r"(?i)(?:\b(?:versions?|ver|v|vers|release[sd]?|bump(?:ed)?(?:[ \t]+\w+)?[ \t]+to|upgraded?[ \t]+to|update[sd]?[ \t]+to"
    r"|sections?|sec|clause|chapter|paragraph|step|build|revision|rev|rfc[ \t:`]*[0-9]{3,5}(?:\W{1,3}\w+)*|page|figure"
    r"|table|appendix|item|version_info|rc[0-9]*|alpha|beta|pre|snapshot)|§|#section-|[=!<>~^]=|->|=>|\((?:!=|==|>=|<=))"
    r"[\W_]{0,4}$"
    # the next items of a list of sections (``sections `3.1.3.6`_, `3.2.2.10`_``)
    r"|(?i:\bsections?[\W_]{1,3}[0-9]+(?:\.[0-9]+){1,5}(?:[\W_]{1,6}[0-9]+(?:\.[0-9]+){1,5}){0,6}[\W_]{1,6})$"
)
# ASN.1 arcs a certificate or an X.500 name uses: an identifier, not an address, whatever follows.
_OID_ARCS = ("2.5.4.", "2.5.29.", "1.3.6.1", "1.3.14.", "1.3.101.", "1.3.132.", "2.16.840.", "0.9.2342.")
_OID_WORDS = re.compile(r"(?i)oid|object[ _]?identifier|asn\.?1|dotted string")
# Public DNS resolvers and other anycast services: they name a company's service, not anyone's machine.
_SERVICES = frozenset(
    {
        "8.8.8.8",
        "8.8.4.4",
        "1.1.1.1",
        "1.0.0.1",
        "9.9.9.9",
        "149.112.112.112",
        "208.67.222.222",
        "208.67.220.220",
        "4.2.2.1",
        "4.2.2.2",
        "4.2.2.3",
        "4.2.2.4",
        "4.2.2.5",
        "4.2.2.6",
        "64.6.64.6",
        "64.6.65.6",
        "94.140.14.14",
        "76.76.2.0",
        "185.228.168.9",
    }
)
# The front ends of a few large public services, in the blocks their operators announce for their
# own servers (Google's web front ends, not Google Cloud's customer ranges; Meta's; Yahoo's): an
# address there names a company's service (``173.194.35.7`` in an HTTP client's tests is
# google.com), never someone's machine or home line. Not Cloudflare's edge: it fronts anyone's
# website, a personal one too.
_SERVICE_NETS = tuple(
    ipaddress.ip_network(n)
    for n in (
        "64.233.160.0/19", "66.102.0.0/20", "66.249.64.0/19", "72.14.192.0/18", "74.125.0.0/16",
        "108.177.0.0/17", "142.250.0.0/15", "172.217.0.0/16", "173.194.0.0/16", "209.85.128.0/17",
        "216.58.192.0/19", "216.239.32.0/19", "2001:4860::/32", "2404:6800::/32", "2607:f8b0::/32",
        "2800:3f0::/32", "2a00:1450::/32", "2c0f:fb50::/32",  # Google
        "31.13.64.0/18", "157.240.0.0/16", "2a03:2880::/32",  # Meta
        "2001:4998::/32",  # Yahoo
    )
)  # fmt: skip


def _service(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return any(ip.version == n.version and ip in n for n in _SERVICE_NETS)


# Inside an SVG path's data attribute, on its line: digits run together with dots and signs.
_SVG_PATH = re.compile(r"""(?<![\w-])d=\\?["'][ \t]*[MmLl][^"'\n<>=]*$""")
_ASCENDING = "01234567890123456789"


def _example_v4(value: str) -> bool:
    """A made-up address of the kind docs and tests write: every octet one digit (``1.2.3.4``), all
    the same (``123.123.123.123``), a repeated pair (``18.52.18.52``), two-digit repdigits
    (``11.22.33.44``), or digits in a counting run of six or more (``12.34.56.78``, ``54.123.4.56``)."""
    octets = value.split(".")
    if len(octets) != 4:
        return False
    if (
        all(len(o) == 1 for o in octets)
        or len(set(octets)) == 1
        or (octets[0] == octets[2] and octets[1] == octets[3])
    ):
        return True
    if all(len(o) == 2 and o[0] == o[1] for o in octets):
        return True
    n = [int(o) for o in octets]
    if n[1] + 1 == n[2] and n[2] + 1 == n[3]:
        return True  # 16.17.18.19, 12.1.2.3, 200.8.9.10: counting octets
    digits = "".join(octets)
    return any(
        digits[i : i + 6] in _ASCENDING or digits[i : i + 6] in _ASCENDING[::-1]
        for i in range(len(digits) - 5)
    )


def _personal_v6(value: str) -> bool:
    """IPv6 names a machine only in the global unicast space 2000::/3 (code shapes such as ``1::2``,
    ``ff02::1`` multicast, ``dead::beef`` are outside it), and not in the documentation ranges
    (2001:db8::/32, 3fff::/20) or the old 6bone 3ffe::/16; an IPv4 inside (``::ffff:1.2.3.4``)
    is judged as that IPv4."""
    try:
        ip = ipaddress.IPv6Address(value.split("%", 1)[0].strip("[]"))
    except ValueError:
        return False
    v4 = ip.ipv4_mapped or (
        "." in value and ip.packed[:12] == bytes(12) and ipaddress.IPv4Address(ip.packed[12:])
    )
    if v4:
        s = str(v4)
        return is_public_ip(s) and not _example_v4(s) and s not in _SERVICES and not _service(v4)
    first = ip.packed[0]
    if first & 0xE0 != 0x20 or ip.is_multicast or not ip.is_global:
        return False
    if len(_HEXSPEAK.findall(value.lower())) >= 2:
        return False  # 2001:19f0:feee::dead:beef:cafe: made up
    return not (ip in _DOC_V6 or ip in _6BONE or ip in _DOC_V6_NEW or _service(ip))


_HEXSPEAK = re.compile(
    r"(?<![0-9a-f])(?:dead|beef|cafe|babe|face|feed|f00d|c0de|deaf|fade|b00b|d00d|abcd|1234)(?![0-9a-f])"
)
_DOC_V6 = ipaddress.IPv6Network("2001:db8::/32")
_DOC_V6_NEW = ipaddress.IPv6Network("3fff::/20")
_6BONE = ipaddress.IPv6Network("3ffe::/16")


def personal_ip(text: str, start: int, end: int) -> bool:
    """Whether the public address ``text[start:end]`` names someone's machine where it is written.

    Not: a piece of a longer dotted number (OIDs, versions), a version or section number after
    its word ("section 4.2.1.10", "Bump to 1.1.99.1"), an ASN.1 arc (``2.5.29.17``, or any quad
    starting 0-2 on a line that speaks of OIDs), a public resolver or anycast service
    (``8.8.8.8``) or a large service's front end (``_SERVICE_NETS``), a made-up example
    (``_example_v4``), multicast, or IPv6 outside the global unicast space (``_personal_v6``)."""
    value = text[start:end]
    if ":" in value:
        return _personal_v6(value)
    bare = value.split("/", 1)[0]
    if _DOTTED_BEFORE.search(text, max(0, start - 2), start) or _DOTTED_AFTER.match(text, end):
        return False
    if _SVG_PATH.search(text, max(0, start - 4000), start) is not None:
        return False  # numbers of an SVG path's data (``d="M8 0C3.58 … 7.59.4.07``)
    if text[start - 1 : start] == "/" and text[start - 2 : start - 1] not in ("/", ""):
        return False  # a path's segment (``/project/opencv-python/4.6.0.66/``): a version, not a host
    nl = text.rfind("\n", max(0, start - 80), start)
    line = nl + 1 if nl >= 0 else max(0, start - 80)
    if _VERSION_BEFORE.search(text, max(line, start - 40), start):
        return False
    if bare.startswith(_OID_ARCS) or (
        bare[0] in "012" and bare[1] == "." and _OID_WORDS.search(text, line, start)
    ):
        return False
    if bare in _SERVICES or _example_v4(bare):
        return False
    try:
        ip = ipaddress.IPv4Address(bare)
    except ValueError:
        return False
    return not (ip.is_multicast or ip.is_reserved or _service(ip))
