"""A secret a tool printed alone: the output is one random token, and the command named a secret.

``cat ~/.config/acme/token``, ``echo $DEPLOY_KEY``, ``kubectl get secret db -o jsonpath=...``,
``op read op://…``, ``openssl rand -base64 32``, the Read tool on ``.secrets/api_key``: the value has
no name, no prefix and no prose around it, so neither a rule nor a secret's place (``entropy``)
sees it. What says "secret" is the tool call before it, another record: this detector remembers,
per file, whether the last command or path it saw (under ``command``, ``cmd``, ``file_path``, ...)
names a secret (``_READS_SECRET``: a secret's word, a secret store's read, a decode), and then takes
an output (under ``content``, ``stdout``, ``output``, ``text``, ...) that is, after the few things
harnesses wrap an output in (a file view's line number, Codex's ``exec_command`` header, Claude
Code's ``<system-reminder>`` after a file read), one token of 20 to 4,096 characters (an ECR login
password is ~2,000) that looks random.
Without such a command a bare random token stays: a test suite's look-alike, an id an API printed.
After one, the lines of a PostgreSQL password file (``cat ~/.pgpass``: ``host:port:db:user:password``)
give their passwords too (redacted: that file holds nothing else).

After such a command hex and UUIDs count (Rails' ``master.key``, ``openssl rand -hex``, a Heroku
key), except 40 hex characters, git's commit ids (``git log -1 --format=%H -- src/auth/``). Ids
keep: ULIDs, numbers, paths, versions, words; and values that open with a lower-case word and
``_`` or ``-`` (``toolu_01…``, ``req_011…``, ``chatcmpl-…``, ``cus_…``): that is how vendors write
ids, and the vendors' secrets with such a prefix (``sk_live_``, ``ghp_``, ``xoxb-``) are the rules' to find. What is left is
flagged for review (a nonce a command generated is kept by a click), and like every found value it
is redacted wherever else it occurs.

The state makes this the engine's one ``stateful`` detector: it is called on every string under its
keys, outside the engine's caches, and reset with the file (``start_unit``).
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.secrets import filters
from tracepub.detect.secrets.names import PASSWORD, STRONG, WEAK
from tracepub.detect.secrets.values import value_ok
from tracepub.model import REDACTED, REVIEW, Leaf, Span

# Where harnesses put a tool's output or a message's text (lower case; the engine compares so).
OUTPUT_KEYS = (
    "content",
    "text",
    "stdout",
    "output",
    "aggregated_output",
    "resultdisplay",
    "message",
    "result",
)

_TOKEN = r"[A-Za-z0-9+/_.~-]{20,4096}={0,2}"  # (= only as base64's padding: "t=ghp_…" is an assignment)
_LINE_NUMBER = r"(?:\d{1,6}(?:→|\t))?"  # a file view's line number (Claude Code's Read, cat -n)
_BARE = re.compile(
    r"[ \t\r\n]*"
    # Codex's exec_command output: its header, then the command's output
    r"(?:Chunk ID: [^\n]*\nWall time: [^\n]*\nProcess exited with code \d+\n(?:Original token count: [^\n]*\n)?"
    r"Output:\n)?"
    rf"[ \t]*{_LINE_NUMBER}(?P<v>{_TOKEN})"
    r"[ \t\r\n]*(?:<system-reminder>.*</system-reminder>[ \t\r\n]*)?",
    re.DOTALL,
)
# Where harnesses put a tool call's command line or the path a file tool reads.
COMMAND_KEYS = ("command", "cmd", "script", "file_path", "filepath", "absolute_path", "path")
# A command or path that names a secret: a secret's word (not "author", "keyboard", "passage"), a
# secret store's read, a random secret made, a Kubernetes secret's field, a decode.
# (The reads without a secret's word, which other detectors' triggers do not hold: ``_LINE_COMMAND``.)
_STORE_READS = (
    r"openssl[ \t]+rand|jsonpath|base64[ \t]+(?:-d|--decode)|find-(?:generic|internet)-password"
    r"|(?<![\w-])(?:op|vault|gopass|bw|lpass|pass|secret-tool|keyring)[ \t]+(?:read|show|get|kv|lookup|item|unlock)"
)
_READS_SECRET = re.compile(
    r"(?i:token|secret|passw|passphrase|passcode|credential|api[_-]?key|private[_-]?key|pgpass"
    rf"|(?<![a-z])(?:key|pat|pass|pwd|auth)(?![a-z])|[._/-]key(?![a-z])|{_STORE_READS})"
)
# A line of PostgreSQL's password file (``~/.pgpass``, ``PGPASSFILE``): host:port:database:user:password.
_PGPASS_LINE = re.compile(
    rf"(?m)^[ \t]*{_LINE_NUMBER}(?:[\w.-]+|\*):(?:\d{{1,5}}|\*):(?:[\w.$-]+|\*):(?:[\w.@$-]+|\*)"
    r":(?P<v>[^\s:]{4,128})[ \t]*$"
)
_ID_PREFIX = re.compile(r"[a-z]{1,12}[_-]")
_HEXISH = re.compile(r"[0-9a-fA-F-]+")

# The raw JSON line's side (``Trigger.line_patterns``, on the folded line: lower case, digits 0): one of
# the keys, then a string that is a token with at most blanks, a line number or a header before it.
_LINE_TOKEN = (
    r"""(?:0{1,6}(?:→|\\+t|\t))?[a-z0-9+/_.~-]{20,4096}={0,2}(?=\s|\\+[nrt]|\\*")"""  # (and its end)
)
_LINE_KEYED = (
    r'"(?:'
    + "|".join(OUTPUT_KEYS)
    + r')\\*"(?:\s|\\+[nrt])*:(?:\s|\\+[nrt])*\\*"(?:\s|\\+[nrt])*'
    + _LINE_TOKEN
)
_LINE_PGPASS = (
    r"""(?:[a-z0-9_.-]+|\*):(?:0{1,5}|\*):(?:[a-z0-9_.$-]+|\*):(?:[a-z0-9_.@$-]+|\*):[^\s:\\"]{4,128}"""
)
_LINE_HEADER = r"output:(?:\n|\\+n)[ \t]*" + _LINE_TOKEN
# ... and a command that reads a secret with none of the words other detectors' triggers hold.
_LINE_COMMAND = r'"(?:' + "|".join(COMMAND_KEYS) + rf')\\*"(?:\s|\\+[nrt])*:[^\n]{{0,400}}?(?:{_STORE_READS})'


class BareTokens(Detector):
    """A random token printed alone after a command that reads a secret (the module docstring)."""

    name = "bare-token"
    high_confidence = False
    context_free = False  # the key, and the file's last command, decide
    sees_raw = True
    stateful = True  # the engine: every string under its keys, outside the caches; start_unit per file
    trigger = Trigger(
        keys=(*OUTPUT_KEYS, *COMMAND_KEYS),
        line_patterns=(_LINE_KEYED, _LINE_HEADER, _LINE_COMMAND, _LINE_PGPASS),
    )

    MAX = 8192  # longer strings hold more than a token (a file view, a reminder)

    def __init__(self) -> None:
        self._armed = False  # the last command or path seen names a secret

    def start_unit(self) -> None:
        self._armed = False

    def scan(self, text: str, leaf: Leaf | None) -> list[Span]:
        key = ((leaf.key if leaf is not None else None) or "").lower()
        if key in COMMAND_KEYS:
            self._armed = _READS_SECRET.search(text) is not None
            return []
        if not self._armed or len(text) > self.MAX or key not in OUTPUT_KEYS:
            return []
        return self.token(text) or _pgpass(text)

    @staticmethod
    def token(text: str) -> list[Span]:
        """The span of the one random token ``text`` is (its wrapping aside), if it is one."""
        m = _BARE.fullmatch(text)
        if m is None:
            return []
        value = m.group("v")
        hexish = _HEXISH.fullmatch(value) is not None
        if _ID_PREFIX.match(value) or value.isdigit() or "//" in value or (hexish and len(value) == 40):
            return []
        # hex and UUIDs judged as under a strong name (a key's own formats), any other token as under a weak one
        if not (
            value_ok(value, STRONG if hexish else WEAK, quoted=False) and filters.looks_random(value, 20)
        ):
            return []
        return [Span(m.start("v"), m.end("v"), "secret.token", "bare-token:output", 0.6, REVIEW)]


def _pgpass(text: str) -> list[Span]:
    """The passwords of a password file's lines (``cat ~/.pgpass``), stand-ins and references aside."""
    return [
        Span(m.start("v"), m.end("v"), "secret.password", "bare-token:pgpass", 0.8, REDACTED)
        for m in _PGPASS_LINE.finditer(text)
        if value_ok(m.group("v"), PASSWORD, quoted=True)
    ]
