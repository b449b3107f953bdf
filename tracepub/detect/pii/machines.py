"""The user's machines and network: addresses in network-configuration output, MAC addresses,
and the names of private machines.

A private address (``192.168.1.23``) in code or docs is an example and stays; the same address in
``ifconfig``/``ip addr`` output, an ``ip route`` line, an ``arp`` table or a hosts file names this
machine or one on its network, so there it goes, with the names a hosts file gives it. A MAC
address names a device where its line says it is one (``ether``, ``HWaddr``, ``Physical Address``,
``MacAddress``...; broadcast, all-zero, multicast and textbook examples aside). Hostnames are personal when they name a private machine: mDNS ``*.local``, the
private-use suffixes (``.internal``, ``.lan``, ``.intranet``, ``.corp``, ``.localdomain``,
``.home.arpa``) and the names laptops get by default (``Janes-MacBook-Air``, ``DESKTOP-7QK2M1B``);
public domains (``github.com``) and the infrastructure names every machine has
(``host.docker.internal``, ``*.svc.cluster.local``, ``metadata.google.internal``) are not.
"""

from __future__ import annotations

import functools
import ipaddress
import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

# Line starts, allowing the line numbers that file-reading tools put in front (``   12→``, ``12\t``).
_BOL = r"(?:^|(?<=\n))(?:[ \t]*\d+(?:→|\t))?"
_V4 = r"(?:[0-9]{1,3}\.){3}[0-9]{1,3}"
_V6 = r"[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:%[\w.-]+)?"
_IP = rf"(?:{_V4}|{_V6})"

# Where an address is this machine's or its network's (the address is group "ip"):
# Each form holds one of ``_ConfigLines``' literals on its line (a literal's digits match any digit).
_CONFIG = re.compile(
    rf"\binet (?:addr:)?(?P<ip>{_V4})(?![\w.:])|\binet6 (?:addr: ?)?(?P<ip6>{_V6})(?![\w.:])"  # ifconfig, ip addr
    rf"|(?<= )(?:src|via) (?P<ip2>{_V4})(?= (?:dev|proto|metric|uid|cache|table|scope)\b)"  # ip route
    rf"|\? \((?P<ip3>{_V4})\) at\b"  # arp -a
    rf"|\bNmap scan report for[ \t]+(?:[\w.-]+[ \t]+\()?(?P<ip4>{_IP})"
    rf"|\bIPv[46] Address[. \t]*:[ \t]*(?P<ip5>{_IP})"  # Windows ipconfig
    rf"|(?:^|(?<=\n))(?:IP address|Router): (?P<ip7>{_V4})(?![\w.:])"  # macOS networksetup -getinfo
    # where a connection's other end is named: curl -v / telnet / psql, ssh's banner and sshd's log, ping
    rf"|\bConnected to (?:(?P<name>[A-Za-z0-9][\w.-]{{0,252}}) )?\((?P<ip8>{_IP})\)|\bTrying (?P<ip9>{_V4})(?::[0-9]{{1,5}})?\.\.\."
    rf"|\bLast login: [^\n]{{0,60}}? from (?P<ip10>{_IP})(?![\w.:])"
    rf"|\bAccepted (?:publickey|password|keyboard-interactive)[^\n]{{0,80}}? from (?P<ip11>{_IP}) port\b"
    rf"|\b\d+ bytes from (?P<ip12>{_V4})(?![\w.])"
)
_IP_GROUPS = ("ip", "ip6", "ip2", "ip3", "ip4", "ip5", "ip7", "ip8", "ip9", "ip10", "ip11", "ip12")
# A hosts-file line: an address at a line start, then names (a comment may follow).
_HOSTS_LINE = re.compile(
    rf"{_BOL}[ \t]*(?P<ip>{_IP})[ \t]+(?P<names>[A-Za-z0-9][\w.-]*(?:[ \t]+[A-Za-z0-9][\w.-]*)*)[ \t]*(?:#[^\n]*)?$",
    re.MULTILINE,
)
_HOSTS_MARK = re.compile(r"127\.0\.0\.1[ \t]+localhost")
_HOSTS_DEFAULT = frozenset(
    {
        "localhost",
        "localhost.localdomain",
        "localhost4",
        "localhost6",
        "ip6-localhost",
        "ip6-loopback",
        "ip6-localnet",
        "ip6-mcastprefix",
        "ip6-allnodes",
        "ip6-allrouters",
        "ip6-allhosts",
        "broadcasthost",
        "localdomain",
        "local",
    }
)


def _machine_address(value: str) -> bool:
    """An address that can name a machine: not loopback, unspecified, broadcast or multicast."""
    try:
        ip = ipaddress.ip_address(value.split("%", 1)[0])
    except ValueError:
        return False
    if ip.is_loopback or ip.is_unspecified or ip.is_multicast:
        return False
    return not (ip.version == 4 and (str(ip).endswith(".255") or ip.is_reserved))


# MAC addresses: six pairs of hex digits, one separator throughout, not inside a longer run
# (fingerprints ``MD5:ab:cd:...`` have sixteen pairs).
# Cisco's notation, three dotted groups of four (``0012.3456.789a``), counts the same way.
_MAC = re.compile(
    r"(?<![0-9A-Fa-f:.-])(?<!\w)(?:[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}"
    r"|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?!\.\w))(?![0-9A-Fa-f]|[:-]\w|\w)"
)
# A MAC address is a device's where its line says so before it: ``ether``, ``link/ether``,
# ``HWaddr``, ``Physical Address``, ``lladdr`` (ip neigh), ``BSSID``/``Access Point``, ``MAC
# Address`` (nmap, system_profiler), ``MacAddress`` (docker, cloud APIs), ``hardware ethernet``
# (DHCP leases), arp's ``at``.
_MAC_CUE = re.compile(
    r"(?i)link/ether|[\t ]ether |ethernet|hwaddr|physical address|lladdr|bssid|mac address|macaddress"
    r"|mac_address|mac[:= ]|access point|\) at |wi-fi id|hardware address"
)  # (each one of the trigger's literals)
_MAC_EXAMPLES = frozenset(
    {
        "001122334455",
        "0123456789ab",
        "aabbccddeeff",
        "123456789abc",
        "112233445566",
        "deadbeefcafe",
        "abcdefabcdef",
        "a1b2c3d4e5f6",
        "010203040506",
        "020000000000",
        "aaaaaaaaaaaa",
        "123456123456",
        "abcdef123456",
    }
)


def _personal_mac(value: str) -> bool:
    hexs = re.sub(r"[:.-]", "", value).lower()
    if len(set(hexs)) <= 1 or hexs in _MAC_EXAMPLES or hexs.startswith("00005e0053"):
        return False  # ff:ff:ff:ff:ff:ff, 00:00:..., textbook examples, RFC 7042's documentation block
    return not int(hexs[:2], 16) & 1  # multicast (01:00:5e:..., 33:33:...)


# -- hostnames ---------------------------------------------------------------------------------------
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_PRIVATE_SUFFIX = r"(?:local|lan|internal|intranet|corp|localdomain|home\.arpa)"
_PRIVATE_NAME = re.compile(
    rf"(?<![\w.$#\\-])(?P<name>{_LABEL}(?:\.{_LABEL})*\.(?i:{_PRIVATE_SUFFIX}))(?![\w-]|\.[A-Za-z0-9]|[(\[]|[ \t]*=(?!=))"
)
# A company's internal machine under its public domain: a private-use label inside the name
# (``db-02.corp.fjordlabs.io``, ``grafana.intra.acme.com``, ``db01.int.acme.net``), a known public
# suffix after it.
_INTERNAL_LABEL = r"(?:corp|internal|intranet|intra|int|lan|priv)"
_INTERNAL_NAME = re.compile(
    rf"(?<![\w.$#\\-])(?P<name>(?:{_LABEL}\.)+(?i:{_INTERNAL_LABEL})(?:\.{_LABEL})+)"
    r"(?![\w-]|\.[A-Za-z0-9]|[(\[]|[ \t]*=(?!=))"
)
# Infrastructure names every machine or cluster has, and code that ends like a suffix.
_INFRA = re.compile(
    r"(?i)^(?:host\.docker\.internal|gateway\.docker\.internal|kubernetes\.docker\.internal|host\.containers\.internal"
    r"|metadata\.google\.internal|.*\.cluster\.local|.*\.compute\.internal|.*\.ec2\.internal|localhost\.localdomain"
    r"|.*\.svc(?:\.[\w-]+)*|.*\.consul|.*\.?localhost\.\w+)$"
)
_CODE_FIRST = frozenset({
    "threading", "werkzeug", "settings", "config", "env", "self", "this", "window", "global", "globals", "thread",
    "contextvars", "asyncio", "storage", "process", "app", "conf", "site", "django", "flask", "greenlet", "gevent",
    "eventlet", "local", "os", "sys", "module", "exports", "package", "vite", "next", "nuxt", "docker-compose",
    "compose", "test", "tests", "example", "foo", "bar", "baz", "my", "your", "some", "proto", "prototype",
})  # fmt: skip
# The names laptops and desktops get out of the box, often their owner's first name.
_DEVICE_NAME = re.compile(
    r"(?<![\w.-])(?P<name>[A-Za-z][A-Za-z0-9']{0,30}-(?i:macbook-air|macbook-pro|macbook|mbp|imac|mac-mini|"
    r"mac-studio|mac-pro|thinkpad)(?:-[0-9]{1,2})?(?:\.(?i:local|lan|home))?)(?![\w-])"
    r"|(?<![\w.-])(?P<win>(?:DESKTOP|LAPTOP)-[A-Z0-9]{7,8})(?![\w-])"
    # macOS's computer name before it becomes a host name ("Jane's MacBook Pro"), and its phones'
    r"|(?<![\w'’-])(?P<mac>[A-Z][A-Za-z-]{0,30}['’]s (?:MacBook(?: Pro| Air)?|iMac|Mac mini|Mac Studio|Mac Pro"
    r"|iPhone|iPad))(?![\w-])"
)
_DEVICE_GENERIC_OWNER = frozenset(
    {
        "apple",
        "my",
        "your",
        "the",
        "new",
        "old",
        "a",
        "an",
        "this",
        "test",
        "dell",
        "lenovo",
        "microsoft",
        "hp",
        "asus",
        "acer",
        "gaming",
        "work",
        "home",
        "linux",
        "windows",
        "mac",
        "macos",
        "ubuntu",
        "intel",
        "arm",
        "m1",
        "m2",
        "m3",
        "m4",
    }
)


_ARTICLE_BEFORE = re.compile(r"(?i)\b(?:the|a|an|our|your|their|his|her|its|my)[ \t]+$")


@functools.lru_cache(maxsize=4096)
def _very_common(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= 4.8


def _hostname_ok(name: str, text: str, start: int) -> bool:
    if _INFRA.match(name):
        return False
    labels = name.lower().split(".")
    first = labels[0]
    if first in _CODE_FIRST or not any(c.isalpha() for c in first) or (len(labels) == 2 and len(first) < 3):
        return False  # code ("threading.local", "st.local = ...", "proto$2.local") and placeholders
    if len(labels) == 2 and _very_common(first):
        return False  # a test's "name.local", "another.local": no one names a machine so
    after = text[start + len(name) : start + len(name) + 5]
    if re.match(r"[ \t]*(?:[!=]==?|&&|\|\||\?\.)", after):
        return False  # code: "if (subtree.local !== null)"
    before = text[max(0, start - 7) : start].lower()
    return not before.endswith(("import ", "from ", "require(", "new "))


@functools.lru_cache(maxsize=1)
def _suffixes():
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)  # the list it ships: offline


@functools.lru_cache(maxsize=4096)
def _public_suffix(name: str) -> bool:
    """The name ends in a registered domain under a public suffix (``acme.com``, not code's ``.api``)."""
    ext = _suffixes()(name)
    return bool(ext.suffix and ext.domain) and f"{ext.domain}.{ext.suffix}".lower() not in _EXAMPLE_DOMAINS


_EXAMPLE_DOMAINS = frozenset(("example.com", "example.org", "example.net"))  # RFC 2606's, as docs write them


def _hostnames(text: str, a: int = 0, b: int | None = None) -> list[Span]:
    b = len(text) if b is None else b
    out = []
    for m in _PRIVATE_NAME.finditer(text, a, b):
        if _hostname_ok(m.group("name"), text, m.start()):
            out.append(Span(m.start(), m.end(), "pii.hostname", "machines:hostname", 0.85))
    for m in _INTERNAL_NAME.finditer(text, a, b):
        if _hostname_ok(m.group("name"), text, m.start()) and _public_suffix(m.group("name")):
            out.append(Span(m.start(), m.end(), "pii.hostname", "machines:hostname", 0.85))
    for m in _DEVICE_NAME.finditer(text, a, b):
        g = next(k for k in ("name", "win", "mac") if m.group(k))
        owner = re.split(r"[-'’]", m.group(g), maxsplit=1)[0].lower()
        if g != "win" and (owner in _DEVICE_GENERIC_OWNER or owner.rstrip("s") in _DEVICE_GENERIC_OWNER):
            continue
        if g == "mac" and _ARTICLE_BEFORE.search(text, max(a, m.start() - 8), m.start()):
            continue  # "the Company's iPhone app": a thing's, not a person's machine
        out.append(Span(m.start(g), m.end(g), "pii.hostname", "machines:device", 0.85))
    return out


class NetworkConfig(Detector):
    """Addresses in network-configuration output and MAC addresses (each on its line), and the
    addresses and names of a hosts file (``HostsFile``). The engine runs the parts."""

    name = "machines"
    trigger = None  # never asked: the engine registers the parts

    def parts(self) -> list[Detector]:
        return [_ConfigLines(), _HostsFile()]

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return [s for p in self.parts() for s in p.scan(text, leaf)]


class _ConfigLines(Detector):
    name = "machines"
    context_free = True
    # The words of each ``_CONFIG`` form (a literal's digits match any digit), and the words a MAC
    # address needs on its line (``_MAC_CUE``).
    trigger = Trigger(
        literals=(
            "inet 0",
            "inet6 ",
            "inet addr:",
            " src 0",
            " via 0",
            "? (0",
            "nmap scan report",
            "ipv4 address",
            "ipv6 address",
            "link/ether",
            "\tether ",
            " ether ",
            "ethernet",
            "hwaddr",
            "physical address",
            "lladdr",
            "bssid",
            "mac address",
            "macaddress",
            "mac_address",
            "mac:",
            "mac=",
            "mac ",
            "access point",
            ") at ",
            "wi-fi id",
            "hardware address",
            "ip address: 0",
            "router: 0",
            "connected to ",
            "trying 0",
            "last login:",
            "accepted ",
            "bytes from 0",
        ),
        lines=True,
    )

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        text = escaped_view(text)
        out: list[Span] = []
        for m in _CONFIG.finditer(text):
            g = next(k for k in _IP_GROUPS if m.group(k))
            if _machine_address(m.group(g)):
                out.append(Span(m.start(g), m.end(g), "pii.ip", "machines:netconfig", 0.85))
                name = m.group("name")  # a name that resolves to a private address is a private machine's
                private = ipaddress.ip_address(m.group(g).split("%", 1)[0]).is_private
                if name and private and not name.replace(".", "").isdigit():
                    out.append(
                        Span(m.start("name"), m.end("name"), "pii.hostname", "machines:netconfig", 0.85)
                    )
        for m in _MAC.finditer(text):
            nl = text.rfind("\n", max(0, m.start() - 120), m.start())
            if not _MAC_CUE.search(text, nl + 1 if nl >= 0 else max(0, m.start() - 120), m.start()):
                continue
            if _personal_mac(m.group()):
                out.append(Span(m.start(), m.end(), "pii.mac_address", "machines:mac", 0.9))
        return out


class _HostsFile(Detector):
    """A hosts file (every one has a ``localhost`` line): each other address and the names after it."""

    name = "machines"
    context_free = True
    # (every hosts file has "127.0.0.1 localhost"; on a raw JSON line its tab is written \t)
    trigger = Trigger(folded=(r"000\.0\.0\.0(?:[ \t]|\\+t)+localhost",))

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        text = escaped_view(text)
        return hosts_lines(text) if _HOSTS_MARK.search(text) is not None else []


# The lines of a hosts lookup's output that name machines (``detect.lookups``): host's answers.
HAS_ADDRESS = re.compile(
    rf"{_BOL}(?P<names>[A-Za-z0-9][\w.-]*) has (?:IPv6 )?address (?P<ip>{_IP})[ \t]*$", re.M
)
_SOCKET_KINDS = frozenset(("STREAM", "DGRAM", "RAW"))  # getent ahosts' second column


def hosts_lines(text: str, lines: re.Pattern = _HOSTS_LINE, detector: str = "machines:hosts") -> list[Span]:
    """Each machine address of a hosts-file line (or ``lines``' other form) and the names given it."""
    out: list[Span] = []
    for m in lines.finditer(text):
        if not _machine_address(m.group("ip")):
            continue
        out.append(Span(m.start("ip"), m.end("ip"), "pii.ip", detector, 0.85))
        pos = m.start("names")
        for word in m.group("names").split():
            i = text.index(word, pos)
            pos = i + len(word)
            if word.lower() not in _HOSTS_DEFAULT and not word.isdigit() and word not in _SOCKET_KINDS:
                out.append(Span(i, pos, "pii.hostname", detector, 0.85))
    return out


class Hostnames(Detector):
    """Private machine names (``_PRIVATE_NAME``, ``_DEVICE_NAME``)."""

    name = "machines"
    context_free = True
    trigger = Trigger(
        literals=(
            ".local",
            ".lan",
            ".internal",
            ".intra",
            ".int.",
            ".priv",
            ".intranet",
            ".corp",
            ".home.arpa",
            "-macbook",
            "-mbp",
            "-imac",
            "-mac-",
            "-thinkpad",
            "desktop-",
            "laptop-",
            "s macbook",
            "s imac",
            "s mac ",
            "s iphone",
            "s ipad",
        ),
        lines=True,
    )

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return _hostnames(escaped_view(text))
