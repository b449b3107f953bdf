"""High-entropy values, but only where the context says "this is a secret".

Entropy alone flags every git SHA, UUID, lock-file hash and base64 payload in a trace. Here a
value is a candidate only when it stands in a secret's place:

- assigned to a secret-like name: ``API_KEY=...``, ``export GH_TOKEN=...``,
  ``"client_secret": "..."``, ``password: ...``, ``db.password=...``, ``api_key := "..."``,
  ``apiKey: str = "..."``, ``setenv("TOKEN", "...")``, ``--password ...`` (``.env``, YAML,
  TOML, INI, JSON-as-text, code, command lines; ``KEY=value`` lines inside JSON-escaped text
  with ``\\n`` too);
- the whole string under a secret-like JSON key (the walker's ``leaf.key``: ``{"token": "..."}``);
- credential files are the same thing: ``.npmrc`` ``_authToken=``, ``.pypirc`` ``password =``,
  gh ``hosts.yml`` ``oauth_token:``, docker ``"auth":``, kubeconfig ``token:`` /
  ``client-key-data:``, ``~/.aws/credentials`` ``aws_secret_access_key =``, service-account
  ``private_key_id``. (URL passwords, ``Authorization`` headers, ``.netrc`` and PEM blocks are
  rules in ``patterns/``.)

Names come in three tiers. *Password* names (``password``, ``passwd``, ``DB_PASS``) accept a
human-made value (at least 6 characters, not only letters). *Strong* names (``secret``,
``token``, ``api_key``, ``client_secret``, ``private_key``, ``credentials``) need a
random-looking value; hex and UUIDs count, since many providers' keys are exactly that.
*Weak* names (``key``, ``auth``) need a long random value that is not hex, and are flagged for
review rather than trusted. Names that describe a secret without holding one
(``token_count``, ``max_tokens``, ``api_key_header``, ``public_key``, ``next_page_token``,
``password_reset_url``) are not secret-like. Every value then goes through ``filters``:
placeholders, references to other variables, hashes, digests, public keys, doc examples.

Speed: one Aho-Corasick pass over the lower-cased text finds the few trigger words (``pass``,
``pwd``, ``secret``, ``token``, ``key``, ``auth``, ``cred``, ``pat``, ``salt``); only around those does any
Python run, with one anchored regex match per candidate name.
"""

from __future__ import annotations

import re
from operator import itemgetter

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.secrets import filters
from tracepub.detect.secrets.calls import call_opens, setter_value
from tracepub.detect.secrets.columns import cell_value
from tracepub.detect.secrets.keywords import KeywordIndex
from tracepub.detect.secrets.labels import QUICK as LABEL_QUICK
from tracepub.detect.secrets.labels import label_span, prose_password, value_before, weak_label_may_start
from tracepub.detect.secrets.names import PASSWORD, STRONG, WEAK, code_shaped, last_part_tier, name_tier
from tracepub.detect.secrets.values import auth_blob as _auth_blob
from tracepub.detect.secrets.values import base64_block_end as _base64_block_end
from tracepub.detect.secrets.values import clean as _clean
from tracepub.detect.secrets.values import signed_password, value_ok
from tracepub.detect.secrets.values import type_for as _type_for
from tracepub.model import REDACTED, REVIEW, Leaf, Span

_TRIGGERS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "pat", "salt", "private", "access")
_KEY_WORDS = _TRIGGERS[:9]  # a JSON key holding "private" or "access" alone names no secret


# After the name: an optional closing quote (JSON key, ['key']), then an operator, then a value.
_ASSIGN = re.compile(
    r"""(?P<close>\\?["'`])?\]?[ \t]{0,8}
    (?P<op>:[ \t]{0,4}[A-Za-z_][\w.\[\]|, ]{0,60}?[ \t]{1,4}=(?!=)   # apiKey: str = "..."
        |(?<=[ \t])[A-Za-z_][\w.\[\]*]{0,30}[ \t]{1,4}=(?![=~])     # Go: var apiKey string = "..."
        |:::=|::=|:=|\?=|\+=|\.=|\|\|=|(?:\|\||\?\?)(?=[ \t]{0,4}["'`])|<-|=>|===?|!==?|=|:(?![:/\\])|,
        |(?<=[ \t])-(?=[ \t]{1,4}["'`])                         # vendor token - 'value'
        |(?<=["'])[ \t]{1,8}(?i:(?:android:)?value)[ \t]{0,2}=    # key="AccountKey" value="..."
        |[ \t]+(?:is|was|to)(?=[ \t]))
    [ \t]{0,40}                                                # values aligned in a column
    (?:
        (?P<pfx>[rRbBuUf]{0,2}|@|SecretStr\(|Secret\()(?P<q>\\?["'`])(?P<qv>(?:(?!(?P=q)).){1,4096}?)(?P=q)
      | (?P<uv>[^\s"'`,;\\]{1,8192})
    )""",
    re.VERBOSE,
)
_FLAG = re.compile(
    r"""(?:=|[ \t]{1,4})
    (?:(?P<q>["'])(?P<qv>(?:(?!(?P=q)).){1,1024}?)(?P=q)|(?P<uv>[^\s"'`,;&\\]{1,1024}))""",
    re.VERBOSE,
)
_REAL_ASSIGNMENT = re.compile(r"""(?:\\?["'`])?\]?[ \t]{0,8}(?:[:=]|=>)""")
_NEARBY = re.compile(
    r"[^\n.;!?]{0,80}?(?::|[ \t](?:is|was|=))(?:[ \t]{1,4}|(?:[ \t]{0,4}\r?\n){1,2}[ \t]{0,8})[`'\"]?"
    r"(?P<uv>[A-Za-z0-9+/=_~.-]{16,512})(?![A-Za-z0-9+/=_~.-])"
)
_RUN16 = re.compile(r"[A-Za-z0-9+/=_~.-]{16}")  # _NEARBY's and _HANDED_VALUE's values start so
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-ñ")
# The name that owns a value found after a secret word in prose: code-shaped (``credentialsId``,
# ``usernameVariable``), right before the colon or equals sign.
_PAIR = re.compile(r"([a-z][a-z_]{1,30})=(?=[^=\s])")  # a lower-case name, then its value
_OWNER = re.compile(r"""([A-Za-z_][\w.-]{0,60})["'\]]?[ \t]{0,4}(?::|=)[ \t]{0,4}[`'"]?\Z""")


class ContextEntropy(Detector):
    """Random-looking values in a secret's place (see the module docstring)."""

    name = "entropy"
    high_confidence = False
    # Only the trigger words can start a finding; a string under a key containing one of them
    # (``{"client_secret": "..."}``) is checked whatever its text. Spans depend on ``leaf.key``.
    trigger = Trigger(literals=_TRIGGERS, key_words=_KEY_WORDS)

    MEMO_CHARS = 4_000_000

    def __init__(self) -> None:
        self._index = KeywordIndex(_TRIGGERS)
        self._memo: dict[str, list[Span]] = {}
        self._memo_chars = 0

    def share_hits(self, prefilter) -> None:
        """Called by the engine: trigger words come from its prefilter's pass over the string."""
        self._index.share(prefilter)

    def scan(self, text: str, leaf: Leaf | None) -> list[Span]:
        spans: list[Span] = []
        if leaf is not None and leaf.key and len(text) >= 6:
            span = self._keyed(text, leaf.key)
            if span is not None:
                spans.append(span)
        if len(text) < 8:
            return spans
        # What the text says does not depend on the key, and traces repeat a tool output under
        # another key a record or two later (the engine caches by key for this detector): the
        # last few texts' findings are kept (bounded in characters).
        found = self._memo.get(text)
        if found is None:
            found = self._in_text(text)
            if len(text) <= self.MEMO_CHARS // 4:
                if self._memo_chars + len(text) > self.MEMO_CHARS or len(self._memo) >= 64:
                    self._memo.clear()
                    self._memo_chars = 0
                self._memo[text] = found
                self._memo_chars += len(text)
        return spans + found if spans else list(found)

    def _in_text(self, text: str) -> list[Span]:
        """Assignments to (and prose about) secret-like names in the text."""
        spans: list[Span] = []
        found = self._index.find_text(text)  # the engine's prefilter pass (no İ: no length change)
        if found is None:
            low = filters.lowered(text)
            if len(low) != len(text):
                return spans
            found = self._index.find(low)
        done = -1
        pat = _TRIGGERS.index("pat")
        labels = _LABEL_HITS
        weak_words = _WEAK_WORD_HITS
        # a label, a separator, 16 value characters (labels.label_span's first test)
        quick = LABEL_QUICK.match
        n = len(text)
        # ``_ident_bounds`` then ``_assignment``, inlined: most hits ("KeyError", "PASSED",
        # "tokens") are names of tier 0, and the Python around them was the detector's cost.
        ident_end = _IDENT_END.match
        tiers = _IDENT_TIERS
        for k, start, end in sorted(found, key=_hit_start):
            if start <= done:
                continue
            if k in weak_words:
                # "private" / "access" name nothing alone (a name holding one also holds key, token or
                # secret, whose own hit reads it): only a label may start here, and Java's "private"
                # is everywhere, so the cheap test of weak_label_may_start comes first
                if (
                    weak_label_may_start(text, start)
                    and quick(text, start)
                    and not _assigned_name(text, start, end)
                ):
                    span = self._label(text, start, start)
                    if span is not None:
                        done = span.end
                        spans.append(span)
                continue
            if k == pat and (
                end < n and text[end].lower().isalpha() or start > 0 and text[start - 1].lower().isalpha()
            ):
                continue  # "path", "pattern", "compat": only a whole word PAT names a token
            a = start
            while a > 0 and text[a - 1] in _IDENT_CHARS and start - a < 80:
                a -= 1
            if a > 0 and text[a - 1] == "\\" and text[a] in "nrt":
                a += 1  # "...\nAPI_KEY=": the n of a JSON-escaped newline is not part of the name
            m = ident_end(text, end)
            done = b = m.end() if m is not None else end
            ident = text[a:b]
            tier = tiers.get(ident)
            if tier is None:
                if len(tiers) >= 16384:
                    tiers.clear()
                tier = tiers[ident] = last_part_tier(ident.lstrip("-").strip("."))
            if tier:
                c = text[b] if b < n else ""
                if c and c in _ASSIGN_FIRST:
                    span = self._assignment(text, a, b, tier)
                elif (
                    c == "("
                    and (at := setter_value(text, a, b))
                    and value_ok(text[at[0] : at[1]], tier, quoted=True)
                ):
                    span = self._span(*at, ident, tier, "call", text)  # Stripe.setApiKey("...") (calls.py)
                else:  # neither _ASSIGN, _FLAG, _ELEMENT, _SET_VALUE nor _REAL_ASSIGNMENT can match here
                    span = self._nearby(text, b, ident.lstrip("-").strip("."), tier, a)
            else:
                span = None
            if span is None and k in labels and quick(text, start) is not None:
                span = self._label(text, start, a)
                if span is not None:
                    done = max(done, span.end)
            if span is not None:
                spans.append(span)
        return spans

    def _label(self, text: str, start: int, a: int) -> Span | None:
        """``vendor SECRET value``, ``vendorTOKEN:value``, ``vendor-PRIVATE-key-value`` (``labels``)."""
        # apolloAPIKEY: the label is the whole "APIKEY" (zipcodeapiSECRET: "api" is the vendor's)
        if start >= 3 and text[start - 3 : start + 3].lower() == "apikey":
            start -= 3
        found = label_span(text, start, a)
        if found is None:
            return None
        vs, ve, label, tier = found
        name = label if _NAMED_TYPE.search(label) else f"{label}_token"
        return self._span(vs, ve, name, tier, "label", text)

    def _keyed(self, text: str, key: str) -> Span | None:
        tier = name_tier(key)
        if not tier:
            return None
        value = text.strip()
        if value_ok(value, tier, quoted=True):
            start = text.index(value)
            return self._span(start, start + len(value), key, tier, "key", text)
        return None

    def _assignment(self, text: str, a: int, b: int, tier: int | None = None) -> Span | None:
        """``tier``: the name's (``last_part_tier``), when the caller knows it."""
        ident = text[a:b]
        flag = ident.startswith("-")
        name = ident.lstrip("-").strip(".")
        tier = last_part_tier(name) if tier is None else tier
        if not tier:
            return None
        c = text[b : b + 1]
        blank = c in (" ", "\t") and not flag  # ("token is", "API key for"): prose mostly
        span = self._assigned(text, a, b, name, tier, flag) if not blank or _operator_after(text, b) else None
        if span is None and c in ('"', "'", ">"):
            span = self._element(text, a, b, name, tier)
        if span is None and blank:
            span = self._set_command(text, a, b, name, tier)
        if span is None and c in " \t|║│┃\n\\\"'," and (cell := cell_value(text, a, b)) is not None:
            span = self._column(text, cell, name, tier)
        if span is None and (not _REAL_ASSIGNMENT.match(text, b) or _handed_before(text, a)):
            # prose; a rejected assignment stays rejected, unless the words before hand a value
            # over ("here's the token:" and the value on the next line)
            span = self._nearby(text, b, name, tier, a)
        return span

    def _element(self, text: str, a: int, b: int, name: str, tier: int) -> Span | None:
        """XML: ``<apiKey>VALUE</apiKey>``, also with the value on a line of its own (and the
        line numbers of a file view), and ``<entry key="db.password">VALUE</entry>``."""
        tag = a > 0 and text[a - 1] == "<" and text[b] == ">"
        if not tag and not (a > 0 and text[a - 1] in "\"'" and text[a - 1] == text[b]):
            return None
        m = _ELEMENT.match(text, b if tag else b + 1)
        if m is None:
            return None
        if tag and not text.startswith(text[a:b], m.end()):
            return None  # <token>x</other>: not this element's value
        value = m.group("v")
        if not value_ok(value, tier, quoted=True):
            return None
        return self._span(m.start("v"), m.end("v"), name, tier, "element", text)

    def _set_command(self, text: str, a: int, b: int, name: str, tier: int) -> Span | None:
        """A command that sets a named value, the value after a blank: ``aws configure set
        aws_secret_access_key X``, ``git config --global github.token X``, ``npm config set
        //registry.example.com/:_authToken X``, ``ngrok config add-authtoken X`` (read as ``config add``)."""
        before = text[max(0, a - 80) : a]  # (cheap tests first: a _SET_BEFORE match ends so, holds one)
        if not (before[-1:] in " \t/:" and any(w in before for w in ("set", "add", "put", "config", "ENV"))):
            return None
        said = before + name[:3] + " " if name[:4].lower() in ("add-", "set-") else ""
        if not (_SET_BEFORE.search(said) if said else _SET_BEFORE.search(text, max(0, a - 80), a)):
            return None
        m = _SET_VALUE.match(text, b)
        if m is None:
            return None
        quoted = m.group("qv") is not None
        value = m.group("qv") if quoted else _clean(m.group("uv"))
        start = m.start("qv") if quoted else m.start("uv")
        if not value_ok(value, tier, quoted=quoted):
            return None
        return self._span(start, start + len(value), name, tier, "command", text)

    def _column(self, text: str, cell: tuple[int, int], name: str, tier: int) -> Span | None:
        """A table's row (the value in the next cell) or a name/value pair (``columns.cell_value``)."""
        value = _clean(text[cell[0] : cell[1]])
        if not value_ok(value, tier, quoted=True):
            return None
        return self._span(cell[0], cell[0] + len(value), name, tier, "column", text)

    def _assigned(self, text: str, a: int, b: int, name: str, tier: int, flag: bool) -> Span | None:
        m = (_FLAG if flag else _ASSIGN).match(text, b)
        if m is None:
            return None
        if not flag:
            op = m.group("op")
            quoted_name = a > 0 and text[a - 1] in "\"'`" or m.group("close") is not None
            if op == "," and not (quoted_name and (name.isupper() or call_opens(text, a)) and m.group("qv")):
                # lists of names; setenv("GH_TOKEN", "..."), Add("AccountKey", "...") and
                # GetEnvOrDefault("api_token", "...") pairs count: a call's first two arguments
                return None
            if op[-1:] == "=" and op[:1].isalpha() and not op.lower().startswith("value"):
                if m.group("qv") is None:
                    return None  # Go: var token string = os.Getenv("X") (a typed declaration holds a literal)
            # code: `password = x` with a lower-case name, or `{"password": x}` (JSON would quote x)
            code_like = op in _CODE_OPS and not name.isupper() and not quoted_name
            setting = op == "=" and _config_pair(text, a, name)
            code_like = code_like and not setting
            code_like = code_like or (quoted_name and op in (":", "=>"))
            if op in _COMPARE and m.group("qv") is not None and tier == STRONG and "secret" in name.lower():
                # creds.Secret != "open-sesame": a string literal a secret is checked against is one
                tier, code_like = PASSWORD, False
            if code_like and a > 0 and text[a - 1] == "$" and m.group("uv") is not None:
                # PHP: $password = goodspec; (a bare word is a constant's text, a variable has its $)
                code_like = not text.startswith(";", m.end("uv")) or m.group("uv")[:1] == "$"
            if op.strip() in ("is", "was", "to") and m.group("qv") is None:
                # "the password is incorrect", "elif token is Number.Float": a word or a name
                # after "is" is prose or code; a password or token there is not a name
                code_like = True
        else:
            code_like = setting = False
        if m.group("qv") is not None:
            value, vstart, quoted = m.group("qv"), m.start("qv"), True
            if "{" in value and "}" in value:
                return None  # f"Bearer {token}", template strings
        else:
            value, vstart, quoted = m.group("uv"), m.start("uv"), False
            if a > 0 and text[a - 1] in "?&":
                value = value.split("&", 1)[0]  # ?api_key=...&next=...: a URL query
            value = _clean(value)
            if any(c in value for c in "()[]{}"):
                return None  # config['password'], token=token).sha, {x}: an expression
            if code_like and _EXPRESSION_GOES_ON.match(text, vstart + len(value)):
                return None  # dh_pass_scheme = x9_63_scheme + (2, ): a value computed from names
            pair = _PAIR.match(value)
            if pair is not None and not name_tier(pair.group(1)):
                return None  # "auth: job=8f3d... attempt=2" (a log line): the value is job's
        if not value_ok(value, tier, quoted=quoted, code_like=code_like, setting=setting):
            return None
        if not flag and m.group("op") == "," and len(value) < 16 and not signed_password(value, tier):
            return None  # ("AES_KEY", "PBE2PARAM_st"): lists of names; a paired secret is long (or signed)
        return self._span(vstart, vstart + len(value), name, tier, "assign", text)

    def _nearby(self, text: str, b: int, name: str, tier: int, a: int = -1) -> Span | None:
        """Prose: "here's the key, use it for the test run: ZGVwbG95...". A long random value
        after a colon or "is" later in the same sentence as a secret word; or right after the
        word where the words before it hand a value over ("here's my key 3f9a...", "use this
        token ghx..."): there a hex key is a key, not a commit."""
        run = _RUN16.search(text, b, b + 130) is not None  # (what both regexes' values start within)
        m = _NEARBY.match(text, b) if run else None
        if m is None and tier == PASSWORD and (pw := prose_password(text, b)) is not None:
            return self._span(pw[0], pw[1], name, tier, "nearby", text)  # "the password for X is V"
        if m is None:  # "here's my key V"; "use V as the admin password" (labels.value_before)
            span = self._handed(text, a, b, name, tier) if a >= 0 and run else None
            vb = value_before(text, a, tier) if span is None and a >= 0 else None
            return span if vb is None else self._span(vb[0], vb[1], name, tier, "nearby", text)
        value = _clean(m.group("uv"))
        gap = m.group(0)[: m.start("uv") - m.start()]
        owner = _OWNER.search(gap)
        if owner is not None and code_shaped(owner.group(1)) and not name_tier(owner.group(1)):
            return None  # usernamePassword(credentialsId: '<uuid>'): the value is credentialsId's
        pair = _PAIR.match(value)
        if pair is not None and not name_tier(pair.group(1)):
            return None  # "auth failed: job=8f3d...": the value is job's
        code_like = gap.rstrip().endswith("=")
        if len(value) < 16 or not value_ok(value, max(tier, STRONG), quoted=False, code_like=code_like):
            return None
        hexlike = filters.is_hex_digest(value) or filters.is_uuid(value)
        if not (filters.looks_random(value, 16) or hexlike):
            return None
        if hexlike and len(value) in (40, 64) and not _handed_before(text, a):
            return None  # a git SHA after "key ...:" is a commit ("here's my key for staging: <hex>" is one)
        return self._span(m.start("uv"), m.start("uv") + len(value), name, min(tier, STRONG), "nearby", text)

    def _handed(self, text: str, a: int, b: int, name: str, tier: int) -> Span | None:
        m = _HANDED_VALUE.match(text, b)
        if m is None or not _handed_before(text, a):
            return None
        value = _clean(m.group("uv"))
        if len(value) < 16 or not value_ok(value, max(tier, STRONG), quoted=False):
            return None
        hexlike = filters.is_hex_digest(value) or filters.is_uuid(value)
        if not (filters.looks_random(value, 16) or hexlike):
            return None
        if m.group("words") and (hexlike or len(value) < 24):
            # words between the secret word and the value ("here's the key I got from the dashboard
            # <token>"): only a long random token; hex there may be what the words name (a commit)
            return None
        return self._span(m.start("uv"), m.start("uv") + len(value), name, min(tier, STRONG), "nearby", text)

    def _span(self, start: int, end: int, name: str, tier: int, how: str, text: str = "") -> Span:
        if text and end - start >= 40:
            end = _base64_block_end(text, start, end)
        if tier == WEAK and _auth_blob((text or "")[start:end]):
            return Span(start, end, "secret.basic_auth", f"{self.name}:{how}", 0.8, REDACTED)
        confidence = {PASSWORD: 0.75, STRONG: 0.8, WEAK: 0.6}[tier]
        action = REVIEW if tier == WEAK else REDACTED
        return Span(start, end, _type_for(name, tier), f"{self.name}:{how}", confidence, action)


def _operator_after(text: str, b: int) -> bool:
    """Whether ``_ASSIGN`` may match after the blank at ``b``: past the blanks, an operator's first
    character, "is" / "was", or a word with ``=`` within 35 characters (Go's ``var k string =``)."""
    p = b
    while p < len(text) and text[p] in _BLANKS:
        p += 1
    c = text[p : p + 1]
    return c != "" and (
        c in ":?+.|<=!,-"
        or text.startswith(("is", "was", "to"), p)
        or (c in _NAME_START and text.find("=", p + 1, p + 36) >= 0)
    )


# ``_ident_bounds``' forward half as a regex: at most 80 name characters after the trigger word.
_IDENT_END = re.compile(r"[A-Za-z0-9_.\-ñ]{0,80}")
_IDENT_TIERS: dict[str, int] = {}  # a name as found in the text -> its tier (``_assignment``'s test)
# Every match of ``_ASSIGN``, ``_FLAG``, ``_ELEMENT`` and ``_REAL_ASSIGNMENT`` starts with one
# of these (a closing quote or bracket, a blank, an operator's first character, an XML tag's end).
_ASSIGN_FIRST = frozenset("\\\"'`] \t:?+=!,.|<>\n")  # (a line's end: a name/value pair, columns.py)
_BLANKS = " \t"
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
# Operators of code (a lower-case name there may be assigned a variable, not a value).
# Where ``Name=value`` is a setting, not code: a pair of a connection string (``;Pwd=x;``) or
# an INI / properties line with a capitalised name and no blanks around ``=`` (``Password=x``).
_LINE_START = re.compile(r"(?:\A|\n|\\n)(?:[ \t]|\\t)*(?:\d{1,6}→[ \t]*)?\Z")


def _config_pair(text: str, a: int, name: str) -> bool:
    """Whether the name at ``a`` opens a setting (``;Password=x``, ``Password=x`` on its own line)."""
    if a > 0 and text[a - 1] == ";":
        return True
    b = a + len(name)
    return (
        name[:1].isupper()
        and text.startswith("=", b)
        and not text.startswith(" ", b + 1)
        and _LINE_START.search(text, max(0, a - 40), a) is not None
    )


_COMPARE = frozenset(("==", "===", "!=", "!=="))
_CODE_OPS = frozenset(("=", "==", "===", "!=", "!==", ".=", "+=", "||=", "<-"))
# XML: the element's end (or an attribute's closing quote, then the end), blanks and line breaks
# (JSON-escaped ones too, and a file view's line numbers), the value, blanks, the closing tag.
_ELEMENT = re.compile(
    r"""(?:\\?["'])?>(?:\s|\\[nrt]|\d{1,6}→)*(?P<v>[^\s<>"'`\\]{1,4096})(?:\s|\\[nrt]|\d{1,6}→)*</"""
)
# Before a name whose value follows a blank: a command that sets it.
_SET_BEFORE = re.compile(
    r"(?:\b(?:configure|config|secrets?|env|vars?|credentials?|keys?)[ \t]+(?:set|add|put)"
    r"|\bgit[ \t]+config(?:[ \t]+--?[\w-]+)*|\bset|(?:\A|\n|\\n)[ \t]*ENV)[ \t]+(?:[^\s]*[/:])?\Z"  # ENV: a Dockerfile's
)
_SET_VALUE = re.compile(
    r"""[ \t]{1,4}(?:(?P<q>["'])(?P<qv>[^"'\n]{1,1024})(?P=q)|(?P<uv>[^\s"'`;&|\\]{1,1024}))"""
)
# Prose that hands a value over, before the secret word ("here's my", "use this", "try the new").
_HANDED_BEFORE = re.compile(
    r"(?i:here(?:'s|’s|s|[ \t]+is|[ \t]+are)|this[ \t]+is|that's|use|using|try|with|paste|pasted|got|set|updated?"
    r"|(?:give|send|gave|sent)[ \t]+you)"
    r"[ \t]+(?:(?:my|the|our|your|this|a|an|new|that)[ \t]+)?(?:[A-Za-z][\w-]{0,20}[ \t]+){0,2}\Z"
)


def _handed_before(text: str, a: int) -> bool:
    """``_HANDED_BEFORE`` right before ``a`` (every match ends with a blank: tested first)."""
    return a > 0 and text[a - 1] in _BLANKS and _HANDED_BEFORE.search(text, max(0, a - 60), a) is not None


_HANDED_VALUE = re.compile(
    r"""(?:(?P<words>,?[ \t]{1,4}(?:[A-Za-z'’]{1,12}[ \t]{1,4}){1,6}?)?[ \t]{0,4}(?:[:=-][ \t]{0,4})?"""
    r"""|[ \t]{1,4}(?:[:=-][ \t]{0,4})?|[ \t]{0,4}:?[ \t]{0,4}\r?\n[ \t]{0,8})"""
    r"""[`'"]?(?P<uv>[A-Za-z0-9+/=_~.-]{16,512})(?![A-Za-z0-9+/=_~.-])"""
)


# After an unquoted value in code: an operator and another operand, so the value is an expression.
_EXPRESSION_GOES_ON = re.compile(r"""[ \t]{1,4}(?:[-+*/%|&^]|\?\?|\|\||&&)[ \t]{1,4}[\w"'(\[]""")


# Trigger words that may open a label (``labels``): secret, token, key, private, access, pass(word).
_LABEL_HITS = frozenset(_TRIGGERS.index(w) for w in ("secret", "token", "key", "private", "access", "pass"))
_WEAK_WORD_HITS = frozenset((_TRIGGERS.index("private"), _TRIGGERS.index("access")))


_NAMED_TYPE = re.compile(r"(?i:token|key|secret|pass)")
_hit_start = itemgetter(1)  # a hit's start (C, not a Python call per hit)


def _assigned_name(text: str, start: int, end: int) -> bool:
    """The weak word is part of a secret's name right before ``=`` or ``:`` (``ASANA_ACCESS_TOKEN='1/2:x'``):
    that name's own hit reads the whole value, which a label's shorter value would cut."""
    a, b = _ident_bounds(text, start, end)
    return _NAME_OP.match(text, b) is not None and last_part_tier(text[a:b]) > 0


# ``=`` or ``:`` then a value's first character (not base64's padding ``==`` or a final ``=``).
_NAME_OP = re.compile(r"""(?::|=(?!=))[ \t]{0,4}["'`]?[^\s"'`=]""")


def _ident_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow ``[start, end)`` to the whole name around a trigger word (``export FOO_TOKEN``)."""
    a, b, n = start, end, len(text)
    while a > 0 and text[a - 1] in _IDENT_CHARS and start - a < 80:
        a -= 1
    while b < n and text[b] in _IDENT_CHARS and b - end < 80:
        b += 1
    # "...\nAPI_KEY=": the n of a JSON-escaped newline is not part of the name
    if a > 0 and text[a - 1] == "\\" and text[a] in "nrt":
        a += 1
    return a, b
