"""A secret's place with no operator: a vendor's name, a secret word, then the value.

Split from ``entropy.py`` (which finds ``NAME = value``, elements, commands and prose) along the
seam of *how the place is written*: here the name is a label, not a variable. Other tools' rule
suites (Kingfisher's above all) and people's notes write credentials as ``clarifai SECRET
dkHL49dId5...``, ``sportsmonkPRIVATE:abc...``, ``graphhopperSECRETyo-9876...``,
``hellosign-PRIVATE-key-LaKSDJF98...``, ``visualcrossing`` / ``PRIVATE`` / value on three lines,
``d7networkACCESS qwe0987654321XYZ+=Sdf==``: a label word (``secret``, ``token``, ``private``,
``access``, ``key``, ``apikey``, ``password``, alone or joined: ``SECRET_TOKEN``, ``ACCESS KEY``),
then a blank, a colon or equals sign, a line break, a dash, or nothing but a change of case, then
a token-shaped value.

What keeps it from firing in code and prose:

- the label is a word of its own: separated, or glued with a change of case (``zonkaSECRET``,
  ``apolloSecretTOKEN``); lower case glued on both sides (``monkey``, ``tokens``,
  ``accessible``) is not a label. Only ``secret`` and ``token`` may be glued lower case after a
  vendor (``codatoken-<uuid>``, ``datadog-secrettoken-<hex>``), and ``access`` alone
  (``speechtextaccess-<hex>``), and then only before a separator;
- *strong* labels (a word of ``secret``, ``token``, ``password``, or ``api key`` / ``access key``
  / ``private key``) take any random-looking value of 16 characters or more, hex and UUIDs
  included; *weak* ones (``private``, ``access``, ``key`` alone) need a vendor's name
  right before them (not a word of code or prose: ``private String``, ``the access token``,
  ``ssh key``), and a value of at least 16 characters with letters and digits that looks random
  (or hex or a UUID of a key's length; 12 to 15 characters as a strong label's short key, below);
  they are flagged for review, as weak names are;
- the value is judged by ``values.value_ok`` as a strong name's value (placeholders, references,
  code names, versions, paths and identifiers stay).
"""

from __future__ import annotations

import re

from tracepub.detect.secrets import filters
from tracepub.detect.secrets.names import _KEY_NOT, _NOT_SECRET_ANY, _TOKEN_NOT, PASSWORD, STRONG, WEAK, words
from tracepub.detect.secrets.values import clean, label_value_ok, typed_token, value_ok

_WORD = r"(?:secret|token|private|access|api[-_]?key|apikey|key|password|passwd)"
# The label: secret words joined by nothing, one of ``-_`` or a blank (``SECRET_TOKEN``, ``ACCESS KEY``).
_RUN = re.compile(rf"(?i:{_WORD}(?:[-_ ]?{_WORD}){{0,3}})")
_STRONG_RUN = re.compile(
    r"(?i:secret|token|password|passwd|api[-_ ]?key|access[-_ ]?key|private[-_ ]?key|api[-_ ]?token)"
)
# After the label: blanks, maybe a colon or equals sign, maybe a line break or two (also JSON-escaped),
# or a dash, underscore or dot glued (``-PRIVATE-key-<value>``, ``front.key.<value>``), or nothing (a change
# of case).
_SEP = re.compile(
    r"""(?:[ \t]{0,4}[:=][ \t]{0,4}|[ \t]{1,4}|[-_.]|)
    (?:(?:\r?\n|\\n)[ \t]{0,8}){0,2}
    [`'"]?""",
    re.VERBOSE,
)
# The label, a separator and 12 value characters in one match: what every label_span finding starts
# with, tested first (the hits of the entropy detector's trigger words are many, labels few).
QUICK = re.compile(_RUN.pattern + _SEP.pattern + r"[A-Za-z0-9+/=_.~-]{12}", re.VERBOSE)
# Each word of a label is written in one case (SECRET, secret, Secret; SecretTOKEN); the vendor glued
# before it is a word (zonka, d7network, apolloSecret, auth0Client).
_WORDS = re.compile(rf"(?i:{_WORD})")
_GLUED_VENDOR = re.compile(r"[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)*|[A-Z][a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)*")
_VALUE = re.compile(r"[A-Za-z0-9+/=_.~-]{12,2048}(?![A-Za-z0-9+/=_.~-])")
SHORT = 16  # below this, a value needs a vendor's name before its label (_short_ok)
# The word before a weak label: the vendor's name, glued or one separator away.
_VENDOR_BEFORE = re.compile(r"([A-Za-z][A-Za-z0-9]{2,40})(?:[-_. \t]|\r?\n|\\n)?\Z")
# The word before a label that makes it a name of something else (names.py's lists: csrf token, public key).
_NAME_NOT = _TOKEN_NOT | _KEY_NOT | _NOT_SECRET_ANY
# Words before a label that are code or prose, not a vendor.
_NOT_VENDOR = frozenset(
    """the a an my your our their his her its this that these those no any some each every new old
    with for from to of in on at by as is are was be and or not use using set get has have had
    public private protected internal static final const var let val def func function class
    struct enum interface type return new string str bytes int bool char void byte object
    ssh gpg pgp rsa dsa ecdsa host hosts primary foreign sort partition cache map hash lookup
    index unique composite row column field group route query registry item entry record node
    list table order cursor state store local event message tag feature flag cluster
    shard attribute property dimension translation hot shortcut label sign signing
    read write only full grant revoke deny allow denied granted root admin user users
    restricted limited open public anonymous remote direct file disk memory network""".split()
)


def label_span(text: str, start: int, lo: int) -> tuple[int, int, str, int] | None:
    """The value after a label starting at ``start`` (a trigger word's hit), as ``(start, end,
    label, tier)``; ``lo``: where the name around the hit begins (the vendor glued before it)."""
    if QUICK.match(text, start) is None:
        return None  # (most hits: KeyError, token_count = 5, "key in d": one C call, no label)
    m = _RUN.match(text, start)
    if m is None:
        return None
    label = m.group(0)
    strong = _STRONG_RUN.search(label) is not None
    end = m.end()
    n = len(text)
    prev = text[start - 1] if start > 0 else ""
    first = label[0]
    if not all(_one_case(w.group(0)) for w in _WORDS.finditer(label)) or prev in "+/=:":
        return None  # KEy, sEcReT; +KEY/: letters of a base64 run, not a word
    if prev.isalnum():
        j = start - 1
        while j > 0 and text[j - 1].isalnum() and start - j <= 40:
            j -= 1
        if start - j > 30 or _in_base64(text, j) or not _GLUED_VENDOR.fullmatch(text, j, start):
            return None  # ...4xJDKVtHCN2MQWpl...cKEY: inside a base64 line, not after a vendor's name
        # glued after a vendor: the label starts with a change of case (zonkaSECRET, apolloSecret)
        if not (first.isupper() and (prev.islower() or prev.isdigit())):
            # (speechtextaccess-<hex>: no English word ends in "access" as some end in "key")
            glued_access = prev.isalpha() and label.lower() == "access"
            if not (glued_access or strong and label[:6].lower() in ("secret", "token")):
                return None
            if end >= n or text[end] not in "-_ \t:=":
                return None  # (codatoken-<uuid> yes; bigtokens, nosecretary no)
    nxt = text[end] if end < n else ""
    if nxt.isalpha():
        last = label[-1]
        if last.islower() == nxt.islower():
            return None  # keyboard, tokens, privately, SECRETS: the word goes on
    vendor = _VENDOR_BEFORE.search(text, max(0, start - 48), start)
    if vendor is not None:
        before = words(vendor.group(1))
        if before and before[-1] in _NAME_NOT:
            return None  # csrf-token=, publicToken, cache key: names says what the value is not
    if not strong:
        if vendor is None:
            return None
        word = vendor.group(1)
        if word.lower() in _NOT_VENDOR or word.isdigit():
            return None
    s = _SEP.match(text, end)
    if s is None:
        return None
    v = _VALUE.match(text, s.end())
    if v is None:
        return None
    value = clean(v.group(0))
    if s.end() == end and value[:1].islower() == label[-1].islower() and value[:1].isalpha():
        return None  # glued with no change of case: the same word
    if len(value) < SHORT and not _short_ok(value, strong or s.end() > end, vendor):
        return None
    named = vendor is not None and _is_vendor(vendor.group(1))
    if not label_value_ok(value, strong, named=named, assigned=any(c in s.group(0) for c in ":=")):
        return None
    vstart = v.start()
    tier = STRONG if strong else WEAK
    return vstart, vstart + len(value), label, tier


def _short_ok(value: str, apart: bool, vendor: re.Match | None) -> bool:
    """A key of 12 to 15 characters (ipinfo's 14, Eagle Eye's 15) only as ``vendor TOKEN value`` /
    ``vendor_secret key=value`` / ``vendor ACCESS value``: a label right after a vendor's name
    (letters only, no word of code or prose, no label word), letters and digits only, both present.
    ``apart``: the label is strong or a separator follows it (``id_kma_keyPkgReceiversV2`` is a name)."""
    if vendor is None or not apart:
        return False
    if not (_is_vendor(vendor.group(1)) and vendor.group(1).isalpha()):
        return False  # the secret token V, sha256 token V: prose, a label word, a digest's name
    if not (value.isalnum() and value.isascii()):
        return False
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False
    # drawn, or a test key of the vendor's format (abcdef12345678: a run, a count), as values.typed_token
    # counts one in any strong place; words with a number glued on stay (secretName01)
    return value_ok(value, STRONG, quoted=False) and (filters.looks_random(value, 12) or typed_token(value))


def _in_base64(text: str, j: int) -> bool:
    """The word glued before a label starts inside base64 (after ``+``, ``/`` or padding ``==``), not
    after a name's ``=`` (``versioneye_key=versioneyeSECRETkey-...``)."""
    return j > 0 and (text[j - 1] in "+/" or text[j - 2 : j] == "==")


def _is_vendor(word: str) -> bool:
    """The word before a label can be a vendor's name: not code or prose, not a label word, not a number."""
    return word.lower() not in _NOT_VENDOR and not word.isdigit() and _WORDS.fullmatch(word) is None


def _one_case(word: str) -> bool:
    w = word.replace("-", "").replace("_", "")
    return w.isupper() or w.islower() or (w[:1].isupper() and w[1:].islower()) or w.lower() == "apikey"


# Prose that gives a password, after the word: "the password for the staging DB is V", "password for
# admin: V", "the DB password was changed to V", "has been set to V" (a name right before ``:`` or
# ``=`` is the assignment's).
_PROSE_PASSWORD = re.compile(
    r"""(?:[ \t]{1,4}for[ \t]{1,4}[^\n.;:!?=]{1,40}?)?"""
    r"""(?:[ \t]{0,4}:|[ \t]{1,4}(?:(?:(?:is|was|ha(?:s|ve)[ \t]{1,4}been)[ \t]{1,4})?(?:changed|reset|set|updated)[ \t]{1,4}to|is|was))"""
    r"""[ \t]{1,4}[`'"]?(?P<v>[^\s`'"]{6,64})"""
)


def prose_password(text: str, end: int) -> tuple[int, int] | None:
    """The password that prose gives after a password word ending at ``end``: people choose
    passwords, so letters with a digit or a sign, not a word (``is incorrect``, ``is None``,
    ``for x in y:`` then code) and no reference (``values.value_ok``'s password rules)."""
    m = _PROSE_PASSWORD.match(text, end)
    if m is None:
        return None
    v = clean(m.group("v"))
    if not any(c.isalpha() for c in v) or all(c.isalpha() for c in v):
        return None
    if not value_ok(v, PASSWORD, quoted=False):
        return None
    return m.start("v"), m.start("v") + len(v)


# Prose that names the secret after its value: "use V as the admin password", "set V as the API token".
_VALUE_BEFORE = re.compile(
    r"""\b(?i:use|using|set|try|with)[ \t]{1,4}[`'"]?(?P<v>[A-Za-z0-9+/=_~.!@#$%^&*-]{8,128})[`'"]?"""
    r""" (?i:as) (?:(?i:the|my|our|your|a|an|its)[ \t]{1,4})?(?:[\w-]{1,20}[ \t]{1,4})?\Z"""
)
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*")


def value_before(text: str, start: int, tier: int) -> tuple[int, int] | None:
    """The value prose gives before a secret's name starting at ``start`` (``_VALUE_BEFORE``): one
    with a digit or a sign, not a variable's name, worth its tier. Looked for only where " as "
    stands just before the name (the cheap test: most secret words in prose have no value before)."""
    if start < 12 or " as " not in text[max(0, start - 32) : start].lower():
        return None
    m = _VALUE_BEFORE.search(text, max(0, start - 200), start)
    if m is None:
        return None
    v = m.group("v")
    if all(c.isalpha() for c in v) or _ENV_NAME.fullmatch(v) or not value_ok(v, tier, quoted=True):
        return None
    return m.span("v")


def weak_label_may_start(text: str, start: int) -> bool:
    """Whether a label may start at this "private" / "access": written lower case it needs a vendor's
    name one separator before (``pandadoc private V``) or glued (``speechtextaccess-V``), not
    indentation or an operator."""
    if not text[start].islower():
        return True
    glued = text[start - 1].isalpha() and text.startswith("access", start)
    return start >= 2 and (text[start - 1] in "-_. \t\n" and text[start - 2].isalnum() or glued)
