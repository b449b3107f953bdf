"""Whether a value found in a secret's place is worth redacting, and what type it gets.

Split from ``entropy.py`` along its seam: that module finds *places* (a secret-like name, then an
operator, then a value; an XML element; a command that sets a name; prose handing a value over),
this one judges the *value* found there, by the name's tier (``names.py``). detect-secrets'
keyword plugin (``secrets_ds.py``) asks the same question of its own findings, so both detectors
keep one notion of "not a value" (URLs, ARNs, timestamps, code names, placeholders, versions).
"""

from __future__ import annotations

import re

from tracepub.detect.secrets import filters, validators
from tracepub.detect.secrets.names import _NOT_SECRET_LAST, PASSWORD, STRONG

_PATHLIKE = re.compile(r"(?:/|~/|\./|\.\./|[A-Za-z]:\\)[^\s]*[/\\]")
_STOPWORDS = frozenset(
    """required optional string str int bool boolean none null nil undefined true false yes no on
    off empty hidden masked secret password passwd token key value values text input enabled
    disabled default auto env environment file prompt ask stdin unset unknown see below above
    same here there example sample dummy test changeme""".split()
)

# What sits between two string literals of code, read as a quoted value: a concatenation
# (``"+new Buffer("``), the next key of an object literal (``",rememberMeLabel:"``).
_CODE_BETWEEN_QUOTES = re.compile(
    r"[+.][ \t]*(?:new[ \t]+)?[A-Za-z_$][\w$.]*[ \t]*\(|[,;)\]}][ \t]*[A-Za-z_$][\w$.-]*[ \t]*[:=(]?\Z"
)
_ROUTE = re.compile(r"[a-z]\w*(?:/\w+)+#[a-z_]+")  # Rails: namespace/controller#action

_HEX_RUN = re.compile(r"[0-9a-fA-F]+")
# Values that are something else whatever their name: a URL (a password in one is url-password's,
# a token in its query the query's name's), an ARN, a SigV4 credential scope (its key id is the AWS
# rules'), a date or timestamp (PasswordLastUsed).
_NOT_A_VALUE = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]{1,20}://|arn:aws[\w-]*:|[A-Z0-9]{10,128}/\d{8}/[\w-]{1,40}/[\w-]{1,40}/aws4_request"
    r"|\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?(?:Z|[+-]\d\d:?\d\d)?\Z"
    r"|[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:"  # an ARN's tail after its service (...:secret:us-west-2:1234...)
)
_SECRET_WORD = re.compile(r"(?i:pass|pwd|secret|token|key|auth|cred)")
_VERSIONED = re.compile(
    r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z][A-Za-z0-9]*)*[-_@]v?\d+\.\d+\.\d+(?:[-.+][A-Za-z0-9]+)*"
)
_SEPARATED_WORDS = re.compile(r"[A-Za-z]+(?:[-_. /:][A-Za-z]+)+")
_TYPE_BY_NAME = (("private", "secret.private_key"), ("token", "secret.token"), ("key", "secret.api_key"))


_B64_VALUE = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def type_for(name: str, tier: int) -> str:
    if tier == PASSWORD:
        return "secret.password"
    low = name.lower()
    for word, type_ in _TYPE_BY_NAME:
        if word in low:
            return type_
    return "secret.generic"


_PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}


def clean(value: str) -> str:
    """Drop what an unquoted value drags along: an unbalanced closing bracket, a final . : or ,"""
    v = value
    while v:
        last = v[-1]
        if last in ".:," or (last in _PAIRS and v.count(last) > v.count(_PAIRS[last])):
            v = v[:-1]
        else:
            break
    return v


def value_ok(value: str, tier: int, *, quoted: bool, code_like: bool = False, setting: bool = False) -> bool:
    """Whether ``value`` under a name of ``tier`` is worth redacting. ``setting``: the place is a
    configuration pair (``.env``/INI line, connection string), where a value is never a name."""
    v = value.strip()
    if not v or len(v) > 8192:
        return False
    if _NOT_A_VALUE.match(v) or not quoted and ("<" in v or ">" in v or "::" in v):
        return False  # a URL, an ARN, a timestamp; markup and type expressions (Option<Buf<'_>>, asn1::Int)
    if tier >= STRONG and (quoted or not code_like) and filters.prefixed_mask(v):
        # SLACK_TOKEN="xoxb-0000...-xxxx...", token: ghp_xxxx...: a key typed to its vendor's shape
        # ("the token is ghp_xxxx...", prose, and bare text keep it: a stand-in there)
        return True
    if tier == PASSWORD and not quoted and code_like and password_words(v):
        code_like, setting = False, True  # password = open_sesame: a config line's words, not a variable
    if _CODE_BETWEEN_QUOTES.match(v) or _ROUTE.fullmatch(v):
        return False  # "+new Buffer(", ",rememberMeLabel:", "cms/sites/passwords#update": code, a route
    if (
        filters.is_code_name(v)
        and (tier != PASSWORD or code_like or _SECRET_WORD.search(v) and not setting)
        and not filters.is_filler(v)
    ):
        # EnvironmentVpcList, oldPassword, _isStrongPassword.default: code names a value; in a
        # setting (.env/INI line, connection string) myPassword is a password
        return False
    if tier == STRONG and v.isdigit() and v.isascii():
        # a number under a strong name (discord client secrets, asana tokens): long enough not to be
        # a count, a port, a year or an epoch; a run or a fill is a test key, still a key
        return len(v) >= 16 and not filters.is_placeholder(v)
    if tier == PASSWORD:
        return _password_ok(v, quoted=quoted, code_like=code_like, setting=setting)
    if (
        filters.is_placeholder(v)
        or filters.is_doc_example(v)
        or filters.is_reference(v, dotted=code_like and not quoted)
    ):
        return False
    if v.lower() in _STOPWORDS or _PATHLIKE.match(v):
        return False
    if filters.is_identifier(v, hex_ok=tier >= STRONG or _mixed_hex(v)) or _VERSIONED.fullmatch(v):
        return False  # (jjwt-jackson-0.11.2, a package at a version)
    if "\n" in v or "\t" in v or filters.is_regex_like(v):
        return False
    if not quoted and code_like and filters.is_plain_identifier(v) and not filters.is_filler(v):
        return False  # password = db_password, {"password": include_password}: a variable
    if " " in v:
        return False
    if tier == STRONG:
        return filters.looks_random(v, 10) or typed_token(v)
    # weak: long and random, not typed; hex only as a key's (``_hex_key``: a "key" holding a UUID or
    # a digest's length of hex is nearly always an id or a hash); or base64 of user:password under
    # an auth name (docker's "auth", npm's _auth), however short
    if auth_blob(v):
        return True
    if filters.is_filler(v):
        return False
    if all(c in "0123456789abcdefABCDEF-" for c in v):
        return _hex_key(v)
    return filters.looks_random(v, 16) and filters.shannon(v) >= 3.5


_TOKEN_CHARS = re.compile(r"[A-Za-z0-9+/=_.~%-]+")
_WORD_PART = re.compile(r"[A-Za-z]{3,}")


def typed_token(v: str) -> bool:
    """A strong place's value whatever its letters (docs/design/secrets.md, "Values in a
    secret's place"): token-length (12 to 2048: a JWT or a long vendor key), token characters,
    and not words with a number glued on (a written stand-in: ``test-api-key-12345``). Fills,
    runs and counts (``aaaa...``, ``abcdef...123456``, ``a1b2c3...``), hex of any case or entropy,
    digits and UUID-shaped values are all test keys of the credential's format, and a test key in
    a trace is still a key."""
    if len(v) < 12 or len(v) > 2048 or not _TOKEN_CHARS.fullmatch(v):
        return False
    if filters.is_filler(v) or _HEX_RUN.fullmatch(v.replace("-", "")):
        return True
    letters = _WORD_PART.findall(v)
    if letters and sum(map(len, letters)) >= 0.5 * len(v):
        # the letters carry it: a word or a name with digits (test-api-key-12345, secretName01)
        joined = "_".join(letters)
        if filters.wordy(joined) or filters.is_code_name(joined):
            return False
    return len(set(v)) >= 4


def _hex_key(v: str) -> bool:
    """Hex under a weak name that is a key, not a hash or an id: drawn (varied, not a run), of
    token length, and either mixed-case or of no digest's length (a UUID, 32, 40 or 64 hex
    characters under ``key`` is nearly always an id or a hash)."""
    h = v.replace("-", "")
    if len(h) < 20 or filters.shannon(h) < 3.0 or filters.sequential(h) or filters.is_uuid(v):
        return False
    return _mixed_hex(v) or ("-" not in v and len(h) not in filters.DIGEST_LENGTHS)


def _mixed_hex(v: str) -> bool:
    """Hex with both cases (``4Fa83E1Dc6b92CAeE780C9b47dd9bE34``) of token length: a key, never a
    digest (hash tools print one case)."""
    h = v.replace("-", "")
    return len(h) >= 20 and any(c in "abcdef" for c in h) and any(c in "ABCDEF" for c in h)


# What follows "password:" in logs and prose without being one (Password: incorrect).
_PW_STOPWORDS = _STOPWORDS - {"secret", "test", "sample", "dummy", "example"} | frozenset(
    """incorrect invalid wrong expired set updated changed reset ok accepted rejected missing provided
    supplied encrypted protected saved stored generated sent forgotten required authentication
    function return const static public private protected lambda async await yield import class
    self this object bytes string typeof instanceof nullptr""".split()
)


_SNAKE_WORDS = re.compile(r"[a-z]{2,}(?:_[a-z]{2,}){1,3}")
# Words of a variable's name in code: what a program calls the value it holds (``user_input``,
# ``hashed_pw``, ``default_value``, ``form_data``), besides the secret words themselves.
_CODE_WORDS = frozenset(
    """pass passwd password passwords pwd pw pword passphrase secret secrets token tokens key keys auth
    cred creds credential credentials hash hashed salt salted digest encoded decoded encrypted decrypted
    cipher plain plaintext raw input inputs value values val var vars data arg args argv param params
    kwargs opts opt option options result res ret str string text bytes buf buffer new old tmp temp
    default defaults user users username login form field fields env environ config conf cfg setting
    settings request req response resp entry item obj self cls generated random rand gen stored saved
    current cur prev next first last given provided supplied entered typed confirm confirmed repeat
    db sql api http url uri host port name names file path dir get set none null true false empty
    init initial orig original final real mock fake test dummy sample example""".split()
)


def password_words(v: str) -> bool:
    """An unquoted lower-case ``word_word`` under a password name that no program would name a
    variable holding it (``password = open_sesame``): in a config file (``user = Aladdin``, then
    ``password = open_sesame``) it is the password. A variable's name says what it holds or where
    it came from (``db_password``, ``user_input``, ``hashed_pw``, ``default_value``): those stay
    code. Calls, attributes and expressions never reach here (the places reject them, and
    ``is_reference`` reads ``args.password``)."""
    if not _SNAKE_WORDS.fullmatch(v) or _SECRET_WORD.search(v):
        return False
    # (and the words that end a name describing a thing, names.py's: encryption_algorithm,
    # key_type, cert_file; cryptography's ``py_password = encryption_algorithm`` then ``.getattr``)
    return not any(w in _CODE_WORDS or w in _NOT_SECRET_LAST for w in v.split("_"))


def words_only(v: str) -> bool:
    """Words or a name made of words (``Incorrect``, ``pass-through``, ``encryption_algorithm``)."""
    return bool((v.isalpha() or _SEPARATED_WORDS.fullmatch(v)) and filters.wordy(v))


_SIGN = re.compile(r"[^\w.-]")


def signed_password(v: str, tier: int) -> bool:
    """A password with a sign in it (``Hq7#vR2mLp9kW``): no name, however short (a short value paired
    with a name is otherwise a list's next name: ``("DB_PASSWORD", "DB_HOST")``)."""
    return tier == PASSWORD and _SIGN.search(v) is not None


def _password_ok(v: str, *, quoted: bool, code_like: bool, setting: bool) -> bool:
    """The password tier (docs/design/secrets.md, "Passwords"): people choose passwords, so a
    value in a password's place is one whatever its letters (``whiteduke``, ``secret``,
    ``myPassword``), unless it is a stand-in (``filters.is_password_placeholder``), a reference
    (``$VAR``, ``self.password``, ``getenv(...)``), or, where code is likely and the value is not
    a string literal, words or a name (``password = db_password``, "the password is incorrect")."""
    if filters.is_password_placeholder(v) or filters.is_doc_example(v):
        return False
    if filters.is_reference(v, dotted=code_like and not quoted):
        return False
    if v.lower() in _PW_STOPWORDS or _PATHLIKE.match(v) or v.endswith(":"):
        return False  # (Password: <input ...>: a label)
    if filters.is_identifier(v) or _VERSIONED.fullmatch(v):
        return False
    if "\n" in v or "\t" in v or filters.is_regex_like(v):
        return False
    if not quoted and code_like and filters.is_plain_identifier(v) and not filters.is_filler(v):
        return False  # password = db_password, {"password": include_password}: a variable
    if len(v) < 6 or len(v) > 256:
        return False
    if v.isalpha() and len(v) <= 16:
        if v.isupper() or v[0].isupper() and v[1:].islower():
            return False  # one capitalised or upper-case word (Buffer, Submit, SUBMIT): a type, a label
    if not quoted and not setting and (code_like or not (v.isalpha() and v.islower())) and words_only(v):
        # "Incorrect", "pass-through": words where code or prose is likely; a Rust or JS field
        # (password: encryption_algorithm, PrivateKeyUsagePeriod) outside a setting is a name
        return False
    if "." in v and filters.is_code_name(v) and (code_like or not quoted) and filters.is_reference(v):
        return False  # bufferParser.readString: a dotted name in code (XuL1erlk24.HaDikeaL: no name's parts)
    if " " in v and (len(v.split()) > 3 or not quoted):
        return False  # a sentence, not a passphrase; unquoted, prose
    return len(set(v)) >= 3


_B64_LINE = re.compile(
    r"(?:\r?\n|(?:\\r)?\\n)(?:[ \t]{0,8}\d{1,6}→)?[ \t]{0,8}[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=])"
)


def base64_block_end(text: str, start: int, end: int) -> int:
    """A base64 value that wraps over lines (a key body pasted without its PEM header): the
    following lines of base64 belong to it."""
    if not _B64_VALUE.fullmatch(text, start, end):
        return end
    for _ in range(200):
        m = _B64_LINE.match(text, end)
        if m is None:
            break
        end = m.end()
    return end


def auth_blob(v: str) -> bool:
    """Base64 of ``user:password`` (``Y2k6...``): a credential whatever its length."""
    return len(v) >= 8 and _B64_VALUE.fullmatch(v) is not None and validators.basic_auth(v)


# --- a label's value (``vendor SECRET value``: labels.py finds the place) ------------------------

_LABEL_PARTS = re.compile(r"[-_.]")
_LABEL_PAIR = re.compile(r"[A-Za-z][A-Za-z_]{0,30}=")


def label_value_ok(value: str, strong: bool, named: bool = False, assigned: bool = False) -> bool:
    """A label's value (docs/design/secrets.md, "Labels"): token-shaped, 16 characters or more (12
    where the place vetted a short key), letters and digits, not words and an id. A strong label (``SECRET``, ``TOKEN``) is a strong
    place: a typed key counts there as anywhere else (``finnhub SECRET abcdef1234567890abcd``,
    ``values.typed_token``); hex or a UUID too. A weak one (``ACCESS``, ``PRIVATE``, ``KEY``, with a
    vendor's name before it) wants a token-shaped value: letters and digits, drawn or typed, or hex
    of a digest's length or a UUID (``monkeylearn ACCESS <40 hex>``, ``insightly_key = <uuid>``);
    the vendor's name is what a cache key or an object id lacks (``cache_key``: no label at all).
    ``named``: a label right after a vendor's name (``bannerbear SECRET V``, labels.py). A strong one is
    a strong place as an assignment is: a letters-only or typed value is not asked to look drawn; a
    weak one (``glassnode KEY V``, ``planyo_key=V``) takes a single class of characters, 20 or
    more, only as a key's: digits, or letters drawn or typed (a run, not a name or a word).
    ``assigned``: the label had ``:`` or ``=`` after it (``acme_key = V``): there a weak label's hex
    of a hash's length is the variable place's, where ``value_ok`` keeps it (a cache key, an
    object id); a UUID still counts (``insightly_key = <uuid>``)."""
    if len(value) < 12:
        return False  # (12 to 15 only where the place vetted a short key: a vendor, a strong label)
    digits, letters = any(c.isdigit() for c in value), any(c.isalpha() for c in value)
    if not (digits and letters):
        # one class only: a strong label's value may be all digits (value_ok's rule for numbers)
        # or 20 random letters (GOFmqiBAGwokFOEewtZQUv); a weak label's is a word or a number
        if not (value.isalnum() and value.isascii()) or len(value) < (20 if letters or not strong else 16):
            return False
        if not (strong or named):
            return False
        # (a typed one too, under a strong label after a vendor's name: vatlayer SECRET
        # abcdefghijklmnopqrstuvwxyzabcdef; after prose, "the SECRET abcdef...", it is an example)
        if not value_ok(value, STRONG, quoted=False):
            return False
        if not strong:  # a weak label after a vendor's name: a key's digits, or a drawn or typed key
            return digits or filters.looks_random(value, 20) or typed_token(value)
        return digits or named or filters.looks_random(value, 20)
    if _LABEL_PAIR.match(value):
        return False  # "limit token: job=2434ff47a7ec9d8a": the value is job's
    if not value[0].isalnum():
        return False  # (.eu-west-1.api.aws: the rest of a host name)
    if filters.is_uuid(value):
        return value_ok(value, STRONG, quoted=False)  # (33333333-cccc-dddd-...: hex, not words)
    parts = _LABEL_PARTS.split(value)
    worded = sum(p.isalpha() and len(p) >= 2 and (len(p) < 16 or filters.wordy(p)) for p in parts)
    if worded >= 2 and not any(filters.token_part(p) or _drawn_run(p) for p in parts):
        # store-to-its-cloudhsm-cluster-1628626947750, pkcs_9_at_userPKCS12: words, an id (a long run of
        # letters is no word, and a part of letters and digits makes it a token: sk_56_23_<36 letters>,
        # abc.def.ghi123jkl456mno789pqr)
        return False
    if len(parts) > 1 and all(
        p.isdigit() or p.isalpha() and (len(p) <= 4 or filters.wordy(p)) for p in parts
    ):
        return (
            False  # store-1628627769469: a word and a number (an example's id; 36 digits.XYZabcd... is not)
        )
    dotted = value.split(".")
    if "." in value and not any(len(p) >= 16 for p in dotted) and not all(map(_mixed_part, dotted)):
        # forge.pkcs5.pbkdf2: a dotted name (a kubeadm token is 6.16; abc123.def456.ghi789 is one)
        return False
    if not value_ok(value, STRONG, quoted=False):
        return False
    if filters.is_hex_digest(value) and not strong and assigned:
        return False  # acme_key = <md5>: a hash or an id (value_ok's rule for the variable place)
    if filters.is_hex_digest(value) or filters.is_uuid(value):
        # hex of a digest's length or a UUID: a key after a label, strong or weak, written as one or
        # assigned (insightly_key = <uuid>): a vendor's name comes before a weak label (labels.py),
        # which a cache key or an object id does not have
        return True
    return (named and strong) or filters.looks_random(value, min(len(value), 16)) or _typed_label_value(value)


def _mixed_part(part: str) -> bool:
    """A dotted value's part of three or more letters and digits, both (``abc123``, ``g7h8i9-j0k1``)."""
    return len(part) >= 3 and any(c.isdigit() for c in part) and any(c.isalpha() for c in part)


def _drawn_run(part: str) -> bool:
    """A part of 20 or more letters that is no word or name (``abcdefghijABCDEFGHIJ...``): a key's body."""
    return len(part) >= 20 and part.isalpha() and not filters.wordy(part) and not filters.is_code_name(part)


_LABEL_TYPED = re.compile(r"[A-Za-z0-9_.+-]+[=+]*")
_LETTER_RUN = re.compile(r"[A-Za-z]{4,}")


def _typed_label_value(v: str) -> bool:
    """A typed key after a label (``abcdef1234567890abcd``, ``pk_abcdefghij...12345``): letters,
    digits, ``-``, ``_``, ``.``, ``+`` and base64's padding only (a path is not one:
    ``runtime/2018-05-10``; ``label_value_ok`` keeps dotted names out), and no run of letters that
    is a word (``CloudFrontOriginAccessIdentity2014_11_06``: a name and a date)."""
    if not _LABEL_TYPED.fullmatch(v) or any(filters.wordy(w) for w in _LETTER_RUN.findall(v)):
        return False
    return typed_token(v)
