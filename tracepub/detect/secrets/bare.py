"""A tool's output, or a message, that is one random token and nothing else.

``cat ~/.config/acme/token``, ``echo $DEPLOY_KEY``, ``kubectl get secret -o jsonpath=...``, the
Read tool on ``.secrets/api_key``, a user pasting a key as the whole message: the value has no
name, no prefix and no prose around it, so neither a rule nor a secret's place (``entropy``)
sees it. The place is the string itself: under an output or message key (``content``,
``stdout``, ``output``, ``text``, ...), after the few things harnesses wrap an output in (a file
view's line number, Codex's ``exec_command`` header, Claude Code's ``<system-reminder>`` after
a file read), one token of 20 to 512 characters that looks random.

Ids are what else prints that way, and they keep: hex (commits, container ids, digests), UUIDs
and ULIDs, numbers, paths, versions, words; and values that open with a lower-case word and
``_`` or ``-`` (``toolu_01…``, ``req_011…``, ``chatcmpl-…``, ``cus_…``): that is how vendors
write ids, and the vendors' secrets with such a prefix (``sk_live_``, ``ghp_``, ``xoxb-``) are
the rules' to find. What is left is flagged for review (a generated nonce printed by a command
is kept by a click), and like every found value it is redacted wherever else it occurs.
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.secrets import filters
from tracepub.detect.secrets.names import WEAK
from tracepub.detect.secrets.values import value_ok
from tracepub.model import REVIEW, Leaf, Span

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

_TOKEN = r"[A-Za-z0-9+/_.~-]{20,512}={0,2}"  # (= only as base64's padding: "t=ghp_…" is an assignment)
_BARE = re.compile(
    r"[ \t\r\n]*"
    # Codex's exec_command output: its header, then the command's output
    r"(?:Chunk ID: [^\n]*\nWall time: [^\n]*\nProcess exited with code \d+\n(?:Original token count: [^\n]*\n)?"
    r"Output:\n)?"
    r"[ \t]*(?:\d{1,6}(?:→|\t))?"  # a file view's line number (Claude Code's Read, cat -n)
    rf"(?P<v>{_TOKEN})"
    r"[ \t\r\n]*(?:<system-reminder>.*</system-reminder>[ \t\r\n]*)?",
    re.DOTALL,
)
_ID_PREFIX = re.compile(r"[a-z]{1,12}[_-]")
_HEXISH = re.compile(r"[0-9a-fA-F-]+")

# The raw JSON line's side (``Trigger.line_patterns``, on the folded line: lower case, digits 0): one of
# the keys, then a string that is a token with at most blanks, a line number or a header before it.
_END = r"""(?=\s|\\+[nrt]|\\*")"""
_LINE_KEYED = (
    r'"(?:' + "|".join(OUTPUT_KEYS) + r')\\*"(?:\s|\\+[nrt])*:(?:\s|\\+[nrt])*\\*"(?:\s|\\+[nrt])*'
    r"(?:0{1,6}(?:→|\\+t|\t))?[a-z0-9+/_.~-]{20,512}={0,2}" + _END
)
_LINE_HEADER = r"output:(?:\n|\\+n)[ \t]*(?:0{1,6}(?:→|\\+t|\t))?[a-z0-9+/_.~-]{20,512}={0,2}" + _END


class BareTokens(Detector):
    """The whole string one random token (see the module docstring)."""

    name = "bare-token"
    high_confidence = False
    context_free = False  # the key decides
    trigger = Trigger(keys=OUTPUT_KEYS, line_patterns=(_LINE_KEYED, _LINE_HEADER))

    MAX = 4096  # longer strings hold more than a token (a file view, a reminder)

    def scan(self, text: str, leaf: Leaf | None) -> list[Span]:
        if len(text) > self.MAX or leaf is None or (leaf.key or "").lower() not in OUTPUT_KEYS:
            return []
        m = _BARE.fullmatch(text)
        if m is None:
            return []
        value = m.group("v")
        if _ID_PREFIX.match(value) or _HEXISH.fullmatch(value) or value.isdigit() or "//" in value:
            return []
        if not (value_ok(value, WEAK, quoted=False) and filters.looks_random(value, 20)):
            return []
        return [Span(m.start("v"), m.end("v"), "secret.token", f"{self.name}:output", 0.6, REVIEW)]
