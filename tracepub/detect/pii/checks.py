"""Checks on a recognizer's match that Presidio does not make: what is not an email (an SSH
remote ``git@``, a no-reply sender), not a phone (a version, a number glued to a word).
"""

from __future__ import annotations

import re

from tracepub.model import Span

_NOT_PERSONAL_EMAIL = re.compile(
    r"(?i)^(?:git|noreply|no-reply|donotreply|do-not-reply|mailer-daemon)@|\[bot\]@"
)


def _trim_email(text: str, s: Span) -> Span | None:
    """Presidio's email pattern takes ``user.email=jane@x.io`` whole (``=`` is legal in a local
    part); in traces that is a key and a value, and only the value is the address."""
    value = text[s.start : s.end]
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
    before = text[max(0, start - 12) : start]
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


# -- emails that are not a person's address (``not_personal_email``) ---------------------------------
# Reserved for documentation and testing (RFC 2606, RFC 6761): never anyone's mailbox.
_RESERVED_DOMAIN = re.compile(r"(?i)(?:^|\.)(?:example\.(?:com|org|net|edu)|example|test|invalid|localhost)$")
# Domains docs and tests use as placeholders.
_PLACEHOLDER_DOMAINS = frozenset(
    {
        "domain.com",
        "yourdomain.com",
        "mydomain.com",
        "yourcompany.com",
        "mycompany.com",
        "company.com",
        "email.com",
        "host.com",
        "foo.com",
        "bar.com",
        "foo.bar",
        "foobar.com",
        "test.com",
        "somewhere.com",
        "somedomain.com",
        "website.com",
        "yoursite.com",
        "mysite.com",
        "server.com",
        "provider.com",
        "acme.com",
        "example.co",
    }
)
# Local parts docs and tests use as placeholders, whatever the domain.
_PLACEHOLDER_LOCAL = frozenset(
    {
        "foo",
        "bar",
        "baz",
        "qux",
        "quux",
        "foobar",
        "user",
        "username",
        "user1",
        "user2",
        "email",
        "e-mail",
        "me",
        "you",
        "test",
        "tester",
        "example",
        "someone",
        "somebody",
        "name",
        "yourname",
        "your.name",
        "your_name",
        "your-name",
        "youremail",
        "your.email",
        "your_email",
        "your-email",
        "myemail",
        "my.email",
        "my_email",
        "first.last",
        "firstname.lastname",
        "firstname",
        "lastname",
        "nobody",
        "anybody",
        "anyone",
        "to",
        "from",
        "sender",
        "recipient",
        "address",
        "mail",
        "login",
        "account",
        "xxx",
        "abc",
        "xyz",
    }
)
# Role and list mailboxes: an organisation's, not a person's.
# Role mailboxes an organisation publishes (RFC 2142 and their like): an organisation's, not a
# person's. Internal team boxes (ops@, billing@, admin@) name the user's employer and stay redacted.
_ROLE_LOCAL = frozenset(
    {
        "info",
        "support",
        "help",
        "helpdesk",
        "contact",
        "sales",
        "security",
        "abuse",
        "postmaster",
        "webmaster",
        "hostmaster",
        "noc",
        "usenet",
        "news",
        "www",
        "uucp",
        "ftp",
        "privacy",
        "legal",
        "press",
        "media",
        "marketing",
        "hello",
        "conduct",
        "feedback",
        "enquiries",
        "inquiries",
        "careers",
        "jobs",
        "licensing",
        "community",
        "announce",
        "newsletter",
        "security-alert",
        "secalert",
        "psirt",
        "bugs",
        "dpo",
        "gdpr",
        "donate",
        "sponsors",
    }
)
_LIST_LOCAL = re.compile(
    r"(?i)-(?:dev|devel|users?|announce|discuss|commits?|bugs|help|request|owner|general|"
    r"patches|security|l|list|talk|core)$"
)
_LIST_DOMAIN = re.compile(
    r"(?i)^(?:lists?|bugs|mailman|groups|googlegroups)\.|\.(?:googlegroups\.com|launchpad\.net)$"
    r"|^bugs\."
)
# SSH algorithm and protocol-extension names ("name@domain", RFC 4251 section 6): ``aes128-gcm@openssh.com``.
_SSH_DOMAINS = frozenset({"openssh.com", "openssh.org", "libssh.org", "ssh.com"})
_ALGO_TOKEN = re.compile(
    r"(?i)(?:^|-)(?:aes\d*|cbc|ctr|gcm|hmac|sha\d*|md5|umac|etm|curve\d+|ecdh|ecdsa|ed25519|ed448|rsa|dss|nistp\d+"
    r"|cert|v\d\d|chacha20|poly1305|rijndael|blowfish|3des|arcfour\d*|zlib|mlkem\d+|sntrup\d+x25519|kex|keepalive"
    r"|sk|streamlocal|hostkeys|x25519|x448)(?:-|$)"
)


def not_personal_email(text: str, start: int, end: int) -> bool:
    """An address-shaped string that is no one's address: a reserved or placeholder domain, a
    placeholder, role or list mailbox, an SSH algorithm name, a package reference
    (``axios@1.20.0``: the "domain" is a version), or no valid address at all
    (``example..email@gmail.com``, percent-encoded local parts)."""
    value = text[start:end]
    local, _, domain = value.rpartition("@")
    low_local, low_domain = local.lower(), domain.lower()
    if index_metadata(text, start):
        return True
    labels = low_domain.split(".")
    if not any(c.isalpha() for c in labels[-1]) or all(lab.isdigit() for lab in labels[:-1] if lab):
        return True  # pkg@1.2.3, x@1.2.3.beta
    if _RESERVED_DOMAIN.search(low_domain) or low_domain in _PLACEHOLDER_DOMAINS:
        return True
    if ".." in local or local.startswith(".") or local.endswith(".") or re.search(r"%[0-9A-Fa-f]{2}", local):
        return True
    base = low_local.split("+", 1)[0]
    if (
        base in _PLACEHOLDER_LOCAL
        or base in _ROLE_LOCAL
        or _LIST_LOCAL.search(base)
        or _LIST_DOMAIN.search(low_domain)
    ):
        return True
    if low_domain in _SSH_DOMAINS or (low_domain.endswith(tuple("." + d for d in _SSH_DOMAINS))):
        return True
    return bool(_ALGO_TOKEN.search(low_local) and ("-" in low_local or low_local in ("keepalive", "zlib")))


# Package metadata that the public index serves: PyPI's JSON API (``pypi.org/pypi/<name>/json``),
# whose "info" names the project's author and maintainer a few lines from its own
# ``"package_url": "https://pypi.org/project/…"``. Published by the index, as a credit is by the
# project (docs/design/personal-data.md, "Public credits"); a private index serves another host.
_INDEX_KEY = re.compile(r'"[ \t]*(?:author|maintainer)(?:_email)?[ \t]*"[ \t]*:[ \t]*"[ \t]*$')
# (written in any escaping: ``\\"``, ``\\/`` read by ``escaped_view`` as the character and a space)
_INDEX_URL = re.compile(r"(?:package|project)_url\W{1,8}https:\W{1,4}pypi\.org\W{1,3}project\W")
_INDEX_REACH = 4000


def may_be_index_metadata(text: str) -> bool:
    """Whether ``index_metadata`` can hold anywhere in ``text`` (pip's logs name pypi.org too)."""
    return _INDEX_URL.search(text) is not None


def index_metadata(text: str, start: int) -> bool:
    """The value at ``start`` is the author or maintainer (name or address) of a PyPI JSON document."""
    if _INDEX_KEY.search(text, line_start(text, start, 40), start) is None:
        return False
    lo, hi = max(0, start - _INDEX_REACH), start + _INDEX_REACH
    return _INDEX_URL.search(text, lo, hi) is not None


_URL_USERINFO = re.compile(r"(?i)[a-z][a-z0-9+.-]*://[^/\s@:]*:$")


def url_password(text: str, start: int) -> bool:
    """The address candidate starts right after ``scheme://user:``: its local part is a password."""
    return _URL_USERINFO.search(text, max(0, start - 200), start) is not None


# -- cards and national ids (``number_in_place``) ----------------------------------------------------
# Words that say a number is a payment card, on its line shortly before it.
_CARD_CUE = re.compile(
    r"(?i)card|credit|debit|visa|master ?card|amex|american express|discover|diners|jcb|maestro|(?<![a-z])cc(?![a-z])"
    r"|(?<![a-z])pan(?![a-z])|payment|(?<![a-z])pay(?![a-z])|charge|checkout|kreditkarte|carte|tarjeta|cart[aã]o"
    r"|(?<![a-z])cvv|billing"
)
_AADHAAR_CUE = re.compile(r"(?i)aadhaar|aadhar|uidai|(?<![a-z])uid(?![a-z])")
_GROUPED_CARD = re.compile(
    r"[0-9]{4}([ -])[0-9]{4}\1[0-9]{4}\1[0-9]{4}(?:\1[0-9]{3})?|[0-9]{4}([ -])[0-9]{6}\2[0-9]{5}"
)
_GROUPED_4 = re.compile(r"[0-9]{4}([ -])[0-9]{4}\1[0-9]{4}")
# A card number written as one run, by its issuer's prefix and length (Visa 4 and 16 digits,
# Mastercard 51-55 and 2221-2720, Amex 34/37 and 15, Discover 6011/644-649/65, JCB 3528-3589):
# Luhn passes one run in ten, a prefix and a length cut that again, and a log line says the
# digits are data (a payment, a request) rather than code's constants.
_ISSUER = re.compile(
    r"4[0-9]{15}|5[1-5][0-9]{14}|2(?:22[1-9]|2[3-9][0-9]|[3-6][0-9]{2}|7[01][0-9]|720)[0-9]{12}"
    r"|3[47][0-9]{13}|6(?:011|4[4-9][0-9]|5[0-9]{2})[0-9]{12}|35(?:2[89]|[3-8][0-9])[0-9]{12}"
)
# A log line: a timestamp at its start (ISO, syslog's ``Jun 02 10:11:12``, bracketed) or a level
# (``ERROR``, ``level=info``, ``"level": "warn"``) before the number.
_LOG_START = re.compile(
    r"[\[(]?(?:[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2}"
    r"|[0-9]{2}:[0-9]{2}:[0-9]{2}[.,][0-9]{3})"
)
_LOG_LEVEL = re.compile(
    r"(?<![A-Za-z])(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL|NOTICE)(?![A-Za-z])"
    r"|(?i:\blevel\W{1,3}(?:info|warn|warning|error|debug|trace|fatal|critical)\b)"
)
_LOG_REACH = 200
_CUE_REACH = 48


def line_start(text: str, pos: int, reach: int) -> int:
    """Where the line holding ``pos`` starts, looking back at most ``reach`` characters (a string of
    one long line must not cost a search to its start per candidate)."""
    lo = max(0, pos - reach)
    nl = text.rfind("\n", lo, pos)
    return nl + 1 if nl >= 0 else lo


def _cue_before(rx: re.Pattern, text: str, start: int) -> bool:
    return rx.search(text, line_start(text, start, _CUE_REACH), start) is not None


def log_line(text: str, pos: int) -> bool:
    """``pos`` is on a log line: one that starts with a timestamp, or with a log level before
    ``pos`` (issue #8: card numbers inside log lines)."""
    lo = line_start(text, pos, _LOG_REACH)
    head = text[lo:pos]
    return _LOG_START.match(head.lstrip()) is not None or _LOG_LEVEL.search(head) is not None


def decimal_piece(text: str, start: int, end: int) -> bool:
    """The digits are a piece of a decimal number (``0.15111111104488373``, ``-95.4183170000000018``)."""
    if start >= 2 and text[start - 1] in ".," and text[start - 2].isdigit():
        return True
    return end + 1 < len(text) and text[end] in ".," and text[end + 1].isdigit()


# An IBAN's head (country code, check digits) and its groups of four right before a number: the
# digits are the rest of that account number (one whose checksum failed is still no phone or card).
_IBAN_HEAD = re.compile(r"(?:^|[^A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: [A-Za-z0-9]{4}){0,7} $")


def iban_groups_before(text: str, start: int) -> bool:
    return (
        start >= 5
        and text[start - 1] == " "
        and _IBAN_HEAD.search(text[max(0, start - 46) : start]) is not None
    )


def number_in_place(text: str, start: int, end: int, entity: str) -> bool:
    """Whether a checksum-valid number is written where it is that kind of number: a card in a
    card's grouping or after a card word, an Aadhaar number in 4-4-4 groups or after its name, a
    NIF with its upper-case letter; never a piece of a decimal."""
    if decimal_piece(text, start, end) or iban_groups_before(text, start):
        return False
    value = text[start:end]
    if entity == "CREDIT_CARD":
        return (
            bool(_GROUPED_CARD.fullmatch(value))
            or _cue_before(_CARD_CUE, text, start)
            or (_ISSUER.fullmatch(value) is not None and log_line(text, start))
        )
    if entity == "IN_AADHAAR":
        return bool(_GROUPED_4.fullmatch(value)) or _cue_before(_AADHAAR_CUE, text, start)
    if entity == "ES_NIF":
        return value[-1:].isupper()
    return True
