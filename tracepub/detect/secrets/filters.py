"""False-positive filters shared by every secret detector (rules, context entropy, detect-secrets).

Traces are full of long random-looking strings that are not secrets: git SHAs, UUIDs, lock-file
integrity hashes, go.sum lines, docker digests, public keys and certificates, base64 payloads.
Redacting them makes a trace less useful and protects nothing, so each detector asks here
before it reports a value:

- ``is_placeholder``: templates and stand-ins (``${VAR}``, ``<token>``, ``{{ secret }}``,
  ``YOUR_API_KEY``, ``sk-xxxxxxxx``, ``changeme``, ``****``).
- ``is_doc_example``: the example keys vendors print in their documentation (a small allow-list
  below, plus AWS's ``...EXAMPLE`` / ``...EXAMPLEKEY`` convention). They are public, appear in
  countless READMEs and must survive redaction (the issue lists them as hard negatives).
- ``is_identifier``: hashes and identifiers (git SHAs, UUIDs, ULIDs, ``sha512-`` integrity,
  ``h1:`` go.sum hashes, ``sha256:`` digests, public keys).
- ``is_reference``: code that names a secret instead of holding one (``os.environ["X"]``,
  ``settings.API_KEY``, ``get_token()``).
- ``looks_random``: the entropy-and-shape test that generic (context-only) detections need.

The rule packs apply only the first two: a rule's regex already says what the value looks like
(a Heroku key *is* a UUID). The context detectors apply all of them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

# --- placeholders -------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(
    r"""^(?:
        \$\{?[A-Za-z_][\w.]*\}? |            # $VAR, ${VAR}
        \$\{\{[^}]*\}\} | \$\([^)]*\) |      # ${{ secrets.X }}, $(cmd)
        <[^<>]{1,80}> |                      # <token>
        \{\{[^{}]*\}\} | \{[A-Za-z_][\w.]*\} |  # {{ x }}, {x}
        %\(?[A-Za-z_]\w*\)?s? | %[A-Z_]+% |  # %(x)s, %VAR%
        (?i:your|my|the|some|example|sample|dummy|fake|test|placeholder|insert|replace|enter|put)[\w-]*(?:key|token|secret|password|pass|pwd|here|value|id)[\w-]* |
        (?i:x{3,}|\*{3,}|\.{3,}|\#{4,}|-{4,}|0{6,}|changeme|change_me|password|passwd|secret|redacted|
            none|null|nil|undefined|true|false|todo|tbd|fixme|required|optional|string|str|empty|
            hidden|masked|example|sample|dummy|test|testing|default|admin|root|foobar|foo|bar|baz|
            hunter2|letmein|pass|your[_-]?\w*|qwerty\d*|
            (?:password|passw0rd|pass|secret|admin|test|changeme|welcome|letmein|root|user|demo)[-_!@#.]?\d{0,6}[!@#.]?|
            123456(?:7(?:8(?:9(?:0)?)?)?)?|abc123|iloveyou)
    )$""",
    re.VERBOSE,
)
# Anywhere inside a value: runs of x, * or #, "your_key_here", "<...>", "${...}".
_PLACEHOLDER_INSIDE = re.compile(
    r"(?i:x{6,}|\*{3,}|•{3,}|\#{4,}|(?:your|my)[_-]?(?:own[_-]?)?(?:api[_-]?|access[_-]?|secret[_-]?|auth[_-]?)?"
    r"(?:key|token|secret|password|pass)|(?:key|token|secret|password)[_-]?(?:goes[_-]?)?here|placeholder|replace[_-]?me|"
    r"change[_-]?me|redacted|dummy[_-]?(?:key|token|secret))|\.\.\.|…"
    r"|\$\{[^}]*\}|\{\{[^}]*\}\}|<[A-Za-z_][\w -]{0,40}>"
)


def is_placeholder(value: str) -> bool:
    """A template, a stand-in written as one, or a masked value: nothing to protect.

    Typed filler (``aaaa...``, ``abcdef...``, ``a1b2c3d4...``, ``1234...``) is not a stand-in here
    (docs/design/secrets.md, "Values in a secret's place"): a rule's prefix or a secret's place
    makes it a secret whatever its body (``AGE-SECRET-KEY-1QQQ...``, ``NRAK-1234...ABCD...``,
    ``aws_secret_access_key = aaaa...``); where only the value's shape speaks (a weak name,
    prose), ``is_filler`` and ``looks_random`` keep it."""
    v = value.strip().strip("'\"`")
    if not v:
        return True
    if _PLACEHOLDER.match(v) or (v.startswith("<") and v.endswith(">")):
        return True
    return bool(_PLACEHOLDER_INSIDE.search(v)) or is_mask(v)


# The characters people mask a value with or write a stand-in of: ``ghp_xxxx...``, ``****``,
# ``sk-....``, ``0000-0000``. A fill of any other character is typed filler (is_filler).
_MASK_CHARS = frozenset("xX*#.•~-_0")


def is_mask(value: str) -> bool:
    """A prefix filled out with a mask character (``ghp_xxxx...``, ``glsa_XXXX..._AAAAAAAA``,
    ``discord=0000...``): runs of mask characters make up half of the value."""
    if len(value) < 8:
        return False
    masked = sum(m.end() - m.start() for m in _RUN.finditer(value) if m.group(1) in _MASK_CHARS)
    return masked * 2 >= len(value)


# A vendor's prefix (``xoxb-``, ``tvly-``, ``ghp_``, ``sk-proj-``), then a body typed as a stand-in:
# ``x``/``X``/``0`` and separators only (``ghp_xxxx...``, ``xoxb-0000000000-...-xxxx...``). A display
# mask (``gho_****``, ``xoxp-...-####``: a tool or a person hid a real token's tail) is not one.
_PREFIXED_MASK = re.compile(
    r"(?P<p>(?![xX]+[-_])[A-Za-z][A-Za-z0-9]{1,11}(?:[-_](?![xX0]+(?:[-_]|\Z))[A-Za-z0-9]{1,11}){0,3}[-_])(?P<b>[xX0_-]{8,})"
)
# Prefixes that are words asking for a value, not a vendor's (``your_xxxx``, ``token-xxxx``).
_STAND_IN_PREFIX = re.compile(
    r"(?i:your|my|our|the|some|example|sample|dummy|fake|placeholder|insert|replace|enter|put|redacted|"
    r"masked|hidden|token|secret|password|pass|key|api|value)\Z"
)


def prefixed_mask(value: str) -> bool:
    """A vendor-prefixed value whose body is a mask (``xoxb-0000000000-0000000000000-xxxx...``,
    ``tvly-xxxx...``, ``ghp_xxxx...``): in a strong or password place it is redacted
    (docs/design/secrets.md, "Values in a secret's place"), since a trace cannot tell a written
    stand-in from a key typed to the vendor's shape; bare in prose it stays a stand-in
    (``is_placeholder``). The prefix must name a vendor, not ask for a value (``your_xxxx``)."""
    m = _PREFIXED_MASK.fullmatch(value)
    if m is None or sum(c in "xX0" for c in m.group("b")) < 8:
        return False
    words = re.split(r"[-_]", m.group("p").rstrip("-_"))
    return not any(_STAND_IN_PREFIX.match(w) for w in words)


def is_filler(value: str) -> bool:
    """Typed, not drawn: a fill (``aaaa...``, ``sntryu_aaaa...``), a run of the alphabet, the
    keyboard or the digits covering half the value (``abcdefghij...123456``, ``qwertyuiop...``),
    or an interleaved count (``a1b2c3d4...``, ``1a2b3c4d...``). A secret's place makes it a
    secret anyway (docs/design/secrets.md); where only the value's shape speaks, it is not one."""
    return is_fill(value) or _run_cover(value) * 2 >= len(value) or bool(_COUNTING.search(value))


_COUNTING = re.compile(r"(?i:a1b2c3d4|1a2b3c4d)")


# The password tier's narrower notion of "not a value" (docs/design/secrets.md, "Passwords"):
# people do use ``secret``, ``admin123``, ``hunter2`` or ``mypassword`` as passwords, so under a
# password name only templates, masks and words that say "put a password here" are stand-ins.
_PW_PLACEHOLDER = re.compile(
    r"""^(?:
        \$\{?[A-Za-z_][\w.]*\}? | \$\{\{[^}]*\}\} | \$\([^)]*\) |   # $VAR, ${VAR}, ${{ x }}, $(cmd)
        <[^<>]{1,80}> | \{\{[^{}]*\}\} | \{[A-Za-z_][\w.]*\} |      # <password>, {{ x }}, {x}
        %\(?[A-Za-z_]\w*\)?s? | %[A-Za-z_]+% |                        # %(x)s, %VAR%
        (?i:(?:your|enter|insert|replace|put|example|sample|placeholder)[\w-]* |
            x{3,}|\*{3,}|\.{3,}|\#{3,}|-{3,}|•{3,}|
            changeme|change_me|(?:password|passwd|passwort|pass|pwd)\d{0,2}|redacted|none|null|nil|undefined|
            true|false|todo|tbd|fixme|required|optional|string|str|empty|hidden|masked|
            foo|bar|baz|qux|foobar|foobarbaz|
            \w*[_-]?(?:here|goes[_-]?here))
    )$""",
    re.VERBOSE,
)
_PW_PLACEHOLDER_INSIDE = re.compile(
    r"(?i:x{6,}|\*{3,}|•{3,}|\#{4,}|your[_-]?(?:own[_-]?)?(?:db[_-]?|user[_-]?|account[_-]?)?(?:password|pass|pwd)"
    r"|placeholder|replace[_-]?me|change[_-]?me|redacted)|\.\.\.|…|\$\{[^}]*\}|\{\{[^}]*\}\}|<[A-Za-z_][\w -]{0,40}>"
)


def is_password_placeholder(value: str) -> bool:
    """A stand-in under a password name: a template, a mask, a fill, or words asking for one
    (``<password>``, ``${DB_PASS}``, ``%PASS%``, ``****``, ``your_password``, ``changeme``).
    Unlike ``is_placeholder``, common weak passwords (``secret``, ``admin123``) are passwords."""
    v = value.strip().strip("'\"`")
    if not v:
        return True
    if len(set(v)) == 1:
        return True  # aaaaaaaa, 00000000: a fill
    return bool(_PW_PLACEHOLDER.match(v) or _PW_PLACEHOLDER_INSIDE.search(v)) or is_fill(v)


_RUN = re.compile(r"(.)\1{3,}")


def is_fill(value: str) -> bool:
    """A prefix filled out to a token's length (``sntryu_aaaa...``, ``sgp_5555555dAAAAA7777777...``,
    ``...-####...``, ``aaaaaaaaaa1111111111bbbb...``): runs of one character (four or more) make
    up half of it. A random token of any alphabet has next to none (Twitter's bearer tokens
    start with 22 A's, a fifth of them)."""
    if len(value) < 12:
        return False
    return sum(m.end() - m.start() for m in _RUN.finditer(value)) * 2 >= len(value)


@lru_cache(maxsize=8192)
def _run_cover(value: str) -> int:
    """How many characters of ``value`` lie in runs of six or more in alphabet, keyboard or digit
    order (either direction: each neighbour pair a step of one order), or in runs of one
    character (four or more)."""
    low = value.lower()
    n = len(low)
    covered = bytearray(n)
    start = 0
    for i in range(1, n + 1):
        if i < n and low[i - 1 : i + 1] in _STEPS:
            continue
        if i - start >= 6:
            covered[start:i] = b"\x01" * (i - start)
        start = i
    for m in _RUN.finditer(low):
        covered[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
    return sum(covered)


# --- vendor documentation examples ------------------------------------------------------------

# Keys printed in vendors' documentation. They are public by design; redacting them would only
# make tutorials in a trace unreadable. Kept small and exact on purpose: add a value only with its
# public source named here.
DOC_EXAMPLES: frozenset[str] = frozenset(
    {
        # AWS IAM user guide: access key id / secret access key pairs.
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AKIAI44QH8DHBEXAMPLE",
        "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
        "ASIAIOSFODNN7EXAMPLE",
        # AWS STS docs session token stand-in.
        "AQoDYXdzEJr...<remainder of session token>",
        # Stripe API reference: the shared public test key shown to every reader.
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "pk_test_TYooMQauvdEDq54NiTphI7jx",
        # Azure Storage emulator (Azurite) well-known account key, published in Microsoft docs.
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
        # jwt.io's default example token.
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    }
)
# AWS marks every documentation key with a trailing EXAMPLE / EXAMPLEKEY; real keys never end so.
_DOC_SUFFIX = re.compile(r"(?:EXAMPLE|EXAMPLEKEY|EXAMPLETOKEN)$")


def is_doc_example(value: str) -> bool:
    return value in DOC_EXAMPLES or bool(_DOC_SUFFIX.search(value))


# --- hashes and identifiers -------------------------------------------------------------------

_HEX = re.compile(r"[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ULID = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")
_IDENT_PREFIX = re.compile(
    r"""(?x)
    (?:sha1|sha224|sha256|sha384|sha512|md5)-[A-Za-z0-9+/]+={0,2}$   # npm/yarn integrity
    | h1:[A-Za-z0-9+/]+=$                                             # go.sum
    | (?:sha1|sha256|sha384|sha512|blake2b|blake3|md5):[0-9a-fA-F]{16,}$   # docker/OCI digests
    | (?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)\b
    | AAAA[BC]3NzaC1   # base64 of an SSH public key blob
    | -----BEGIN\ (?:PUBLIC\ KEY|CERTIFICATE|X509\ CRL|CERTIFICATE\ REQUEST|NEW\ CERTIFICATE\ REQUEST|RSA\ PUBLIC\ KEY|PGP\ PUBLIC\ KEY\ BLOCK|PGP\ SIGNATURE|SSH2\ PUBLIC\ KEY)
    | LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t   # base64 of -----BEGIN CERTIFICATE-----
    | LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0   # base64 of -----BEGIN PUBLIC KEY-----
    """
)
# Hex lengths of common digests: md5/sha1/sha224/sha256/sha384/sha512 and short git SHAs.
DIGEST_LENGTHS = frozenset({32, 40, 56, 64, 96, 128})


def is_uuid(value: str) -> bool:
    return len(value) == 36 and bool(_UUID.fullmatch(value))


def is_hex_digest(value: str) -> bool:
    return len(value) in DIGEST_LENGTHS and bool(_HEX.fullmatch(value))


def is_identifier(value: str, hex_ok: bool = False) -> bool:
    """A hash, digest, UUID/ULID, integrity string or public key: an identifier, not a secret.

    ``hex_ok``: the value sits under a name that says "secret" (``WEBHOOK_SECRET=<64 hex>``,
    ``"private_key_id": "<40 hex>"``), where hex and UUIDs are the credential's own format.
    """
    v = value.strip()
    if _IDENT_PREFIX.match(v):
        return True
    if hex_ok:
        return False
    return is_hex_digest(v) or is_uuid(v) or (len(v) == 26 and bool(_ULID.fullmatch(v)))


# --- references to secrets (code, not values) -------------------------------------------------

_REFERENCE = re.compile(
    r"""(?x)^(?:
        [A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+(?:\(\))?   # settings.API_KEY, self.token, a::b
        | [A-Za-z_$][\w$.]*\(.*\)?                                     # get_token(...), env("X")
        | [A-Za-z_][\w.]*\[[^\]]*\]                                    # os.environ["X"], config['k']
        | (?:process\.env|import\.meta\.env|os\.environ|ENV|env|secrets|vars|inputs)\b.*
        | !(?:vault|secret|ref|Ref|Sub|GetAtt|env)\b.*                 # YAML tags
        | \$\{?[A-Za-z_]\w*\}?(?:[/:?\#].*)?                             # $BASE_URL/path, ${HOST}:443
        | @[A-Za-z_][\w.]*                                             # @Value, @var
        | [&*]+[A-Za-z_][\w.]*(?:\(\))?                                # &details.password, *ptr
        | (?:true|false|null|none|nil|undefined|yes|no|on|off)
        | -?\d+(?:\.\d+)?                                              # numbers
    )$""",
    re.IGNORECASE,
)


# camelCase, PascalCase, UPPER_SNAKE, lower_snake: how code names things. Random passwords with a
# dot ("pmhLvkLWzN.mjXCuGrX") mix case in ways names do not.
_NAME_SHAPE = re.compile(
    r"[$_]*(?:[A-Z]?[a-z]+(?:[A-Z][a-z]+)*[0-9]{0,2}|[A-Z]+(?:[A-Z][a-z]+)+[0-9]{0,2}|[A-Z][A-Z0-9_]*|[a-z][a-z0-9_]*)"
)
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+(?:\(\))?")


def token_part(part: str) -> bool:
    """A dotted value's part no program names a thing (``ghi456ijk789mno0123456789abcde``: 16 or more
    letters and digits, six digits or more, no underscore): the value is a dotted token."""
    return len(part) >= 16 and "_" not in part and sum(c.isdigit() for c in part) >= 6 and part.isalnum()


def is_reference(value: str, dotted: bool = True) -> bool:
    """Code that names a value: ``settings.API_KEY``, ``os.environ["X"]``, ``get_token()``.
    A dotted name counts only when its parts are shaped like names (``pmhLvkLWzN.mjXCuGrX`` is a
    password), and only where code is likely (``dotted``): in ``.env`` or YAML a value is a value."""
    v = value.strip()
    if not _REFERENCE.match(v):
        return False
    if _DOTTED.fullmatch(v):
        if not dotted:
            return False
        parts = re.split(r"\.|::|->", v.removesuffix("()"))
        return all(_NAME_SHAPE.fullmatch(p) and not token_part(p) for p in parts)
    return True


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_]*")


_REGEX_LIKE = re.compile(r"\[[^\]]{1,80}\][+*?{]|\(\?[:=!<P]|\\[dwsbDWS][+*?{]?|\^\[")


def is_regex_like(value: str) -> bool:
    """A regular expression (``[-!#$%&'*+.^_`|~0-9a-zA-Z]+``, ``(?:key|token)``): code, not a value."""
    return bool(_REGEX_LIKE.search(value))


def is_plain_identifier(value: str) -> bool:
    """Letters and underscores only: in code, ``password = db_password`` names a variable."""
    return bool(_IDENTIFIER.fullmatch(value))


# --- randomness -------------------------------------------------------------------------------


def shannon(s: str) -> float:
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


# The 175 letter pairs that make up 90% of the pairs in English identifiers and words (counted
# on the Python standard library's names and docstrings). A random string hits them ~25% of the
# time, an identifier ~85%: ``getSecretValue`` or ``X509_HASH_DIR_CTX`` is words, ``kEL2xYHiL54z``
# is not.
_COMMON_BIGRAMS = frozenset(
    "ab ac ad ag ai al am an ap ar as at au ba be bj bl bo bu ca ce ch ck cl co cr ct cu da de di do "
    "du ea ec ed ee ef el em en ep eq er es et ev ex ey fa fi fo fr fu ge gi gs ha he hi ho ia ib ic "
    "id ie if ig il im in io ip ir is it ke la ld le lf li ll lo ls lt lu ly ma me mi mo mp na nc nd "
    "ne nf ng ni no ns nt ob oc od ol om on oo op or os ot ou ow pa pe pi pl po pp pr pt py qu ra rc "
    "re rg ri rm rn ro rr rs rt ru ry sa sc se sh si so sp ss st su ta te th ti to tr ts tt tu ty ue "
    "ul um un up ur us ut va ve wa wi xc xt yp yt".split()
)
_PIECES = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[A-Z]")
_LONG_DIGITS = re.compile(r"\d{5,}")
_INNER_DIGITS = re.compile(r"(?<=[A-Za-z])\d+(?=[A-Za-z])")
_SEQUENTIAL = ("abcdefghijklmnopqrstuvwxyz", "0123456789", "qwertyuiopasdfghjklzxcvbnm")


def wordy(v: str) -> bool:
    """Shaped like words or identifiers (``PKCS12PrivateKeyTypes``, ``my-app-name``,
    ``base64.decodebytes``): most letter pairs, taken within camel-case pieces, are common
    English pairs, and they cover most of the value. Random tokens fail both tests."""
    if _LONG_DIGITS.search(v):
        return False
    if len(_INNER_DIGITS.findall(v)) >= 2 and v.isalnum():
        return (
            False  # "9inibyru3fup6a376", "pr2iboowu25gsi": digits strewn between letters, as no name has them
        )
    pieces = _PIECES.findall(v)
    if not pieces or sum(map(len, pieces)) / len(pieces) < 2.5:
        return False  # "tWrn2stEet": case flips every two letters, as no name does
    grams = [p[i : i + 2].lower() for p in pieces for i in range(len(p) - 1)]
    if len(grams) < max(3, 0.4 * sum(c.isalnum() for c in v)):
        return False
    return sum(g in _COMMON_BIGRAMS for g in grams) / len(grams) >= 0.7


_CODE_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|-|::)[A-Za-z_$][\w$]*)*")
_DIGIT_RUN = re.compile(r"\d+")
# Camel-case pieces with the number a name glues to a word (x25519, MLKEM1024, Pkcs1).
_CODE_PIECES = re.compile(r"[A-Z]{2,}\d*(?![a-z])|[A-Z]?[a-z]+\d*|[A-Z]\d+|[A-Z]|\d+")


def is_code_name(v: str) -> bool:
    """Shaped as code names things, whatever the words' frequencies: ``EnvironmentVpcList``,
    ``_isStrongPassword.default``, ``mlkem.MLKEM1024PrivateKey``, ``set-password``,
    ``t.GeneralJWSInput``. Pieces of three letters or more (camel case, snake case, dotted), at
    most one lone letter (a random mix of cases breaks into many), few digit runs, pieces with
    vowels, and letter pairs that are mostly common ones (a looser version of ``wordy``'s test: random tokens
    score ~25%)."""
    if len(v) < 6 or not _CODE_NAME.fullmatch(v):
        return False
    if len(v) >= 16 and _HEX.fullmatch(v) and any(c.isdigit() for c in v):
        return False  # ABCDEF1234567890ABCDEF...: hex, whatever pairs its letters make
    pieces = _CODE_PIECES.findall(v)
    letters = [p.rstrip("0123456789") for p in pieces]
    # pieces of three letters or more, digits aside ("sOnVa9KxBW_MI0XY6AN" breaks into s, On, Va9,
    # Kx, BW, MI0, XY6, AN: no word in it)
    worded = [p for p in letters if len(p) >= 3]
    if len(worded) < 2 or sum(len(p) == 1 for p in pieces) > 1 or len(_DIGIT_RUN.findall(v)) > 3:
        return False
    if sum(map(len, worded)) < 0.6 * sum(map(len, letters)):
        return False  # "P4wf3RE84X.ipfSnVEX": most letters in scraps of one or two
    if sum(any(c in "aeiouAEIOU" for c in p) for p in worded) < 0.6 * len(worded):
        return False  # "YRCHel09RR.KPrzgwAg": pieces without vowels are not words
    grams = [p[i : i + 2].lower() for p in letters for i in range(len(p) - 1)]
    return bool(grams) and sum(g in _COMMON_BIGRAMS for g in grams) / len(grams) >= 0.55


# Each order forwards and backwards; "0123456789" also wraps into "1234567890".
_SEQUENCES = tuple(x for s in _SEQUENTIAL for x in (s + s[:5], (s + s[:5])[::-1]))
_STEPS = frozenset(s[i : i + 2] for s in _SEQUENCES for i in range(len(s) - 1))


def sequential(v: str) -> bool:
    """``abcdef``, ``0123456789``, ``qwerty``, or a value mostly made of such runs
    (``abcdefghijklmnopqrstuvwxyz123456``). A drawn token that merely holds one
    (``00QCjAl4MlV-WPXM-ABCDEFGHIJKL-0HmjFx-vbGua``) is not sequential: the whole value is not
    typed."""
    low = v.lower()
    return len(low) >= 6 and (any(low in s + s for s in _SEQUENTIAL) or _run_cover(low) * 2 >= len(low))


def entropy_floor(n: int, hex_only: bool = False) -> float:
    """Minimum Shannon entropy (bits/char) for a random-looking value of length ``n``.

    A random base62 string of n characters scores close to log2(n) until n nears 62; hex tops
    out at 4. The floor sits well below both and above words and repeated patterns. Hex has its
    own, under the 0.1% quantile of random hex of each length (measured on 20,000 draws: 2.47 at
    16 characters, 2.70 at 20, 2.87 at 24, 3.12 at 32): the base62 floor turned away a third of
    random 20-character hex keys, a seventh of 24-character ones and 1.7% of 32-character ones.
    """
    if hex_only:
        return 2.0 if n < 16 else 2.4 if n < 20 else 2.6 if n < 24 else 2.8 if n < 32 else 3.0
    if n < 12:
        return 2.5
    if n < 20:
        return 3.0
    return 3.3


_HEX_ONLY = re.compile(r"[0-9a-f]+|[0-9A-F]+")


def entropy_enough(value: str, minimum: float) -> bool:
    """A rule's ``entropy`` minimum, which for a value of hex digits alone is at most the hex floor
    of its length (``entropy_floor``): a minimum written for base64 turns random hex away."""
    if _HEX_ONLY.fullmatch(value):
        minimum = min(minimum, entropy_floor(len(value), True))
    return shannon(value) >= minimum


def looks_random(value: str, min_len: int = 12) -> bool:
    """Long enough, high entropy, not word-shaped, not a run or a keyboard walk."""
    v = value.strip()
    if len(v) < min_len or " " in v:
        return False
    if shannon(v) < entropy_floor(len(v), _HEX_ONLY.fullmatch(v) is not None):
        return False
    if wordy(v) or sequential(v):
        return False
    classes = sum(
        (
            any(c.islower() for c in v),
            any(c.isupper() for c in v),
            any(c.isdigit() for c in v),
            any(not c.isalnum() for c in v),
        )
    )
    return classes >= 2 or len(v) >= 24


# --- one lower-cased copy per text -------------------------------------------------------------

_last: tuple[str, str] = ("", "")


def lowered(text: str) -> str:
    """``text.lower()``, computed once for the detectors that all prefilter on it."""
    global _last
    if _last[0] is text:
        return _last[1]
    low = text.lower()
    _last = (text, low)
    return low
