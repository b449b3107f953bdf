"""detect-secrets' plugins, used for what they are good at: vetted regexes and its keyword plugin.

Regex plugins run through their own ``denylist`` patterns with ``finditer`` so spans carry exact
offsets; the keyword plugin (``password = "..."``) runs per line, and its findings go through
detect-secrets' heuristic filters (sequential strings, UUIDs, templated secrets, ``$``
references, indirect references). The high-entropy plugins are not used on their own: on traces
they flag every git SHA and lock-file hash; context-aware entropy lives in ``detect/entropy.py``.

Everything it reports also passes ``detect/filters.py`` (``agrees``): no git SHA, UUID,
integrity hash, digest, public key, placeholder, reference or vendor doc example, and keyword
values must pass the entropy detector's password test. Its findings carry confidence 0.65, below
the rules', so a rule's more specific type wins when both find the same value. Speed: a trigger
per plugin (below) and the keyword plugin only where a keyword is followed by an operator.
"""

from __future__ import annotations

import re

import ahocorasick_rs
from detect_secrets.filters import heuristic
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.keyword import KeywordDetector

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.secrets import filters, validators
from tracepub.detect.secrets.names import PASSWORD, name_tier
from tracepub.detect.secrets.values import value_ok, words_only
from tracepub.detect.text import folded, line_windows
from tracepub.model import Leaf, Span

# High-entropy plugins flag every hash; IPPublic is PII's business; PrivateKeyDetector matches the
# bare header text ("BEGIN RSA PRIVATE KEY" in code that parses keys), where the private-key rule
# requires a key body and covers the whole block.
# SlackDetector's ``xox[abposr]-(\d+-)+[a-z0-9]+`` takes placeholders and short fakes (``xoxb-12345-abcd234``,
# ``xoxp-1234-1234-1234-...``, ``xoxe.xoxp-1-initial``); the rule pack has every Slack token shape.
_SKIP = {
    "Base64HighEntropyString",
    "HexHighEntropyString",
    "KeywordDetector",
    "IPPublicDetector",
    "PrivateKeyDetector",
    "SlackDetector",
}
# Plugins whose first group is the token's prefix (``(ghp|gho|...)_...``), not its value: their
# span is the whole match.
_WHOLE_MATCH = {"GitHubTokenDetector", "GitLabTokenDetector"}
_TOKEN_CHAR = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
CONFIDENCE = 0.65
# The keyword plugin only finds a value right after a name and an operator (or a call).
_FOLLOWED_BY_ASSIGNMENT = re.compile(r"""\w{0,40}[\]'"]{0,2}\s{0,4}(?:[:=!]|\.assign\(|\()""")


# A plugin's finding is typed as the rule pack types the same kind (one type per kind in the report
# and the placeholders: ``secret.npm_token`` whichever detector found it, not ``secret.npm_tokens``
# beside it). Kinds the pack has no rule for keep detect-secrets' own name, normalised.
_TYPES = {
    "ArtifactoryDetector": "secret.artifactory_token",
    "AWSKeyDetector": "secret.aws_access_key_id",
    "AzureStorageKeyDetector": "secret.azure_storage_key",
    "BasicAuthDetector": "secret.url_password",
    "DiscordBotTokenDetector": "secret.discord_token",
    "GitHubTokenDetector": "secret.github_token",
    "GitLabTokenDetector": "secret.gitlab_token",
    "IbmCloudIamDetector": "secret.ibm_cloud_api_key",
    "JwtTokenDetector": "secret.jwt",
    "MailchimpDetector": "secret.mailchimp_api_key",
    "NpmDetector": "secret.npm_token",
    "OpenAIDetector": "secret.openai_api_key",
    "PypiTokenDetector": "secret.pypi_token",
    "SendGridDetector": "secret.sendgrid_api_key",
    "SquareOAuthDetector": "secret.square_token",
    "StripeDetector": "secret.stripe_key",
    "TelegramBotTokenDetector": "secret.telegram_bot_token",
    "TwilioKeyDetector": "secret.twilio_key",
}
# AWSKeyDetector's second regex takes the 40-character secret beside an ``aws...key`` name
_AWS_SECRET = "secret.aws_secret_access_key"


def _type_of(plugin: str, secret_type: str) -> str:
    known = _TYPES.get(plugin)
    if known is not None:
        return known
    return "secret." + re.sub(r"[^a-z0-9]+", "_", secret_type.lower()).strip("_")


def agrees(secret: str) -> bool:
    """detect-secrets' heuristics and tracepub's filters both let ``secret`` through."""
    if len(secret) >= 16 and filters.shannon(secret) < 2.5:
        return False  # "ACCAGTTCAAGG...": DNA in a test file is not an AWS key
    return not (
        heuristic.is_sequential_string(secret)
        or heuristic.is_potential_uuid(secret)
        or heuristic.is_templated_secret(secret)
        or heuristic.is_prefixed_with_dollar_sign(secret)
        or filters.is_placeholder(secret)
        or filters.is_doc_example(secret)
        or filters.is_identifier(secret)
    )


# -- speed: a cheap necessary condition per plugin (tracepub.prefilter) ----------------------
# Each plugin's regexes run only when one of its literals (case-insensitive) or patterns occurs;
# the keyword plugin runs only on lines holding one of its keywords. A plugin missing from this
# table (a newer detect-secrets) always runs and turns the line-level skip off: slow, not wrong.
def _names(prefixes: tuple[str, ...], words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p + s + a + w for p in prefixes for s in ("", "_", "-") for a in ("", "api") for w in words)


_PLUGIN_TRIGGERS: dict[str, Trigger] = {
    "ArtifactoryDetector": Trigger(patterns=(r"AKC[a-zA-Z0-9]{10}", r"AP[\dABCDEF][a-zA-Z0-9]{8}")),
    "AWSKeyDetector": Trigger(literals=("akia", "asia", "abia", "acca", "a3t", "aws")),
    "AzureStorageKeyDetector": Trigger(literals=("accountkey=",)),
    "BasicAuthDetector": Trigger(patterns=(r"://[^:/?#\[\]@!$&'()*+,;=\s]+:[^:/?#\[\]@!$&'()*+,;=\s]+@",)),
    "CloudantDetector": Trigger(
        literals=(*_names(("cl", "clou", "cloudant"), ("key", "pw", "pass", "token")), ".cloudant.com")
    ),
    "DiscordBotTokenDetector": Trigger(patterns=(r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}",)),
    "GitHubTokenDetector": Trigger(literals=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    "GitLabTokenDetector": Trigger(
        literals=(
            "glpat-",
            "gldt-",
            "glft-",
            "glsoat-",
            "glrt-",
            "gr1348941",
            "glcbt-",
            "glimt-",
            "glptt-",
            "glagent-",
            "gloas-",
        )
    ),
    # (prefix)(key|pwd|password|pass|token), then a quote, "]", space or operator (and a 44-character
    # value); a JSON-escaped quote starts with a backslash.
    "IbmCloudIamDetector": Trigger(
        literals=tuple(
            kw + c for kw in ("key", "pwd", "pass", "token") for c in ("\\", '"', "'", "]", " ", "=", ":")
        )
    ),
    "IbmCosHmacDetector": Trigger(literals=("secret",)),
    "JwtTokenDetector": Trigger(literals=("eyj",)),
    "MailchimpDetector": Trigger(literals=("-us",)),
    "NpmDetector": Trigger(literals=("_authtoken",)),
    "OpenAIDetector": Trigger(literals=("t3blbkfj",)),
    "PrivateKeyDetector": Trigger(literals=("private key", "putty-user-key-file")),
    "PypiTokenDetector": Trigger(literals=("pypi-ag",)),
    "SendGridDetector": Trigger(literals=("sg.",)),
    "SlackDetector": Trigger(literals=("xox", "hooks.slack.com")),
    "SoftlayerDetector": Trigger(
        literals=(*_names(("sl", "softlayer"), ("key", "pwd", "pass", "token")), "api.softlayer.com")
    ),
    "SquareOAuthDetector": Trigger(literals=("sq0csp-",)),
    "StripeDetector": Trigger(literals=("k_live_",)),
    "TelegramBotTokenDetector": Trigger(literals=("00000000:",)),  # 8-10 digits, ":" (digits fold to 0)
    "TwilioKeyDetector": Trigger(patterns=(r"AC[a-z0-9]{32}", r"SK[a-z0-9]{32}")),
}
# KeywordDetector's DENYLIST (api_?key, db_?pass, password, pwd, secret, contraseña...), spelled out.
_KEYWORD_LITERALS = (
    *(
        f"{w}{s}key"
        for w in ("api", "auth", "service", "account", "db", "database", "priv", "private", "client")
        for s in ("", "_")
    ),
    *(f"{w}{s}pass" for w in ("db", "database", "key") for s in ("", "_")),
    "password",
    "passwd",
    "pwd",
    "secret",
    "contrase",
)


def _keyword_lines(text: str, literals: tuple[str, ...] = _KEYWORD_LITERALS) -> list[tuple[int, int]]:
    """The lines holding a keyword (str.find on folded text: faster than a regex alternation);
    ``literals``: the keywords that can occur (those in the folded text, or a superset)."""
    fold = folded(text)
    spots = []
    for lit in literals:
        i = fold.find(lit)
        while i >= 0:
            if _FOLLOWED_BY_ASSIGNMENT.match(text, i):
                spots.append(i)
            i = fold.find(lit, i + 1)
    return line_windows(text, spots)


# The value every match of IBM Cloud IAM's pattern captures: 44 key characters. Its pattern starts
# with optional prefixes and look-behinds, so it is tried at every position of every line with
# "key" or "token" in it; a line without such a run cannot match.
_IBM_VALUE = r"[a-zA-Z0-9_\-]{44}"


def _value_gate(patterns: list[re.Pattern]) -> re.Pattern | None:
    """A cheaper regex that finds something in every text the plugin's only pattern matches (same
    flags), or None: a run of 44 key characters (IBM Cloud IAM's value, if it is still a required
    group), searched from where a run starts: ``[..]{44}`` alone is tried at every character of
    every run, ``(?<![..])[..]{44}`` once per run (the same texts: a run of 44 starts somewhere)."""
    from re import _parser  # type: ignore[attr-defined]

    if len(patterns) != 1 or f"({_IBM_VALUE}(?!" not in patterns[0].pattern:
        return None
    rx = patterns[0]
    for op, arg in _parser.parse(rx.pattern, rx.flags):
        if (
            op is _parser.SUBPATTERN
            and arg[0] == 1
            and arg[3]
            and arg[3][0][0] is _parser.MAX_REPEAT
            and arg[3][0][1][:2] == (44, 44)
        ):
            # where a run of key characters starts (re then skips the positions inside runs)
            return re.compile(f"(?<!{_IBM_VALUE[:-4]}){_IBM_VALUE}", rx.flags)
    return None


# ASCII text as bytes with every key character ``a``, every other byte a blank: a run of 44 key
# characters is then a substring test (a scan in C far faster than a regex trying every run).
_KEY_RUN_TABLE = bytes(0x61 if re.fullmatch(_IBM_VALUE[:-4], chr(i)) else 0x20 for i in range(256))


def has_value(gate: re.Pattern, text: str) -> bool:
    """``gate.search(text) is not None`` for a ``_value_gate``: in ASCII text the class means the
    same whatever the flags (no case fold reaches outside ASCII letters), so a byte scan does."""
    if text.isascii():
        return b"a" * 44 in text.encode("ascii").translate(_KEY_RUN_TABLE)
    return gate.search(text) is not None


# The name a keyword plugin's value is assigned to: an identifier, an optional closing quote or
# bracket, an operator, an optional opening quote, right before the value.
_NAME_BEFORE = re.compile(
    r"""([A-Za-z_][\w.-]{0,80})["'\]]{0,2}[ \t]{0,4}(?:[:=!]=?|=>|:=)[ \t]{0,4}[bru]?["'`]?\Z"""
)


def _named_otherwise(line: str, i: int) -> bool:
    """The value at ``i`` is assigned to a name that says it is not a secret
    (``LLM_SECRET_NAME = "NEXUS-GPT4-API-KEY"``, ``secret_arn = ...``): the keyword plugin matched a
    word inside the name, which the entropy detector's name tiers read whole."""
    m = _NAME_BEFORE.search(line, max(0, i - 100), i)
    return m is not None and name_tier(m.group(1).split(".")[-1]) == 0


class DetectSecrets(Detector):
    name = "detect-secrets"
    high_confidence = False
    context_free = True  # spans depend on the text only (tracepub.detect.Engine caches by text)

    def __init__(self) -> None:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

        self._regex: list[tuple[str, str, list[re.Pattern]]] = []
        self._values: list[re.Pattern | None] = []  # _value_gate of each plugin
        self._gates: list[tuple[tuple[str, ...], re.Pattern | None, re.Pattern | None] | None] = []
        literals: list[str] = list(_KEYWORD_LITERALS)
        patterns: list[str] = []
        fold_patterns: list[str] = []
        complete = True
        mapping: dict[str, type] = get_mapping_from_secret_type_to_class()
        for secret_type, cls in mapping.items():
            if cls.__name__ in _SKIP or not issubclass(cls, RegexBasedDetector):
                continue
            self._regex.append((cls.__name__, _type_of(cls.__name__, secret_type), list(cls().denylist)))
            self._values.append(_value_gate(self._regex[-1][2]))
            trig = _PLUGIN_TRIGGERS.get(cls.__name__)
            if trig is None:
                complete = False
                self._gates.append(None)
                continue
            literals += trig.literals
            patterns += trig.patterns
            fold_patterns += trig.folded
            rx = re.compile("|".join(trig.patterns)) if trig.patterns else None
            frx = re.compile("|".join(trig.folded)) if trig.folded else None
            self._gates.append((trig.literals, rx, frx))
        # Every plugin regex and the keyword scan stay within one line: lines=True is exact.
        self.trigger = (
            Trigger(
                literals=tuple(literals), patterns=tuple(patterns), folded=tuple(fold_patterns), lines=True
            )
            if complete
            else None
        )
        # One automaton for the plugins' literals and the keyword plugin's keywords: the words it
        # finds open the plugins (``_ids``) and tell which keywords occur (``_keyword_words``).
        by_word: dict[str, set[int]] = {}
        for i, gate in enumerate(self._gates):
            for lit in gate[0] if gate else ():
                by_word.setdefault(folded(lit), set()).add(i)
        for lit in _KEYWORD_LITERALS:
            by_word.setdefault(folded(lit), set())
        words = list(by_word)
        self._ac = ahocorasick_rs.AhoCorasick(words, implementation=ahocorasick_rs.Implementation.DFA)
        self._ids = [frozenset(by_word[w]) for w in words]
        self._keyword_words = tuple((lit, words.index(folded(lit))) for lit in _KEYWORD_LITERALS)
        # Plugins opened whatever the text holds (no trigger), and those with a pattern to search.
        self._always = frozenset(i for i, gate in enumerate(self._gates) if gate is None)
        self._searched = tuple(
            (i, gate[1], gate[2])
            for i, gate in enumerate(self._gates)
            if gate is not None and (gate[1] is not None or gate[2] is not None)
        )
        self._keyword = KeywordDetector()

    def _open_plugins(self, text: str, fold: str | None = None) -> set[int]:
        """Plugins whose trigger occurs in the text (one automaton pass, then a few patterns)."""
        return self._triggered(text, folded(text) if fold is None else fold)[0]

    def _triggered(self, text: str, fold: str) -> tuple[set[int], tuple[str, ...]]:
        """The plugins whose trigger occurs in the text, and the keyword plugin's keywords that
        occur in it (in ``_KEYWORD_LITERALS`` order): one pass of one automaton for both."""
        found = {k for k, _, _ in self._ac.find_matches_as_indexes(fold, overlapping=True)}
        ids = self._ids
        hit: set[int] = set(self._always)
        for k in found:
            hit |= ids[k]
        for i, rx, frx in self._searched:
            if i not in hit and (rx is not None and rx.search(text) or frx is not None and frx.search(fold)):
                hit.add(i)
        return hit, tuple(lit for lit, k in self._keyword_words if k in found)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return self._scan(text, *self._triggered(text, folded(text)))

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        """Each window on its own, as ``scan`` sees it (the engine's lines), with the plugins
        whose trigger occurs in any of them: one trigger pass, not one per line (a trigger
        is a necessary condition, so a plugin opened by another line finds nothing here)."""
        joined = "\n".join([text[a:b] for a, b in windows])
        open_, present = self._triggered(joined, folded(joined))
        for i in list(open_):
            gate = self._values[i]
            # not in any window (none spans a line break)
            if gate is not None and not has_value(gate, joined):
                open_.discard(i)
        out: list[Span] = []
        for a, b in windows:
            for s in self._scan(text[a:b], open_, present):
                out.append(
                    Span(s.start + a, s.end + a, s.type, s.detector, s.confidence, s.action) if a else s
                )
        return out

    def _scan(self, text: str, open_: set[int], keywords: tuple[str, ...] = _KEYWORD_LITERALS) -> list[Span]:
        spans: list[Span] = []
        for i, (plugin, type_, patterns) in enumerate(self._regex):
            if i not in open_:
                continue
            need = self._values[i]
            if need is not None and not has_value(need, text):
                continue
            whole = plugin in _WHOLE_MATCH
            for rx in patterns:
                for m in rx.finditer(text):
                    g = 1 if m.re.groups and not whole else 0
                    start, end = m.span(g)
                    while end > start and text[end - 1].isspace():
                        end -= (
                            1  # (ArtifactoryDetector's match ends with \s: a line break is not the token's)
                        )
                    while start < end and text[start].isspace():
                        start += 1
                    if start < 0 or end <= start or not agrees(text[start:end]):
                        continue
                    if (
                        start > 0
                        and text[start - 1] in _TOKEN_CHAR
                        or end < len(text)
                        and text[end] in _TOKEN_CHAR
                    ):
                        # the whole token or nothing: ASIA... inside TODAYINASIAASACK..., a bot token's
                        # digits:secret glued to more digits, a prefix's match inside a longer token
                        continue
                    if plugin == "BasicAuthDetector" and not validators.password_like(text[start:end]):
                        continue  # gist://username:token@...: URL syntax in docs
                    kind = _AWS_SECRET if plugin == "AWSKeyDetector" and end - start == 40 else type_
                    spans.append(Span(start, end, kind, f"detect-secrets:{plugin}", CONFIDENCE))
        for a, b in _keyword_lines(text, keywords) if keywords else ():
            spans += [
                Span(s.start + a, s.end + a, s.type, s.detector, s.confidence, s.action)
                for s in self._keywords(text[a:b])
            ]
        return spans

    def _keywords(self, text: str) -> list[Span]:
        spans = []
        offset = 0
        for line in text.split("\n"):
            if len(line) > 8 and ("=" in line or ":" in line):
                for secret in self._keyword.analyze_line(filename="trace.txt", line=line, line_number=0):
                    value = secret.secret_value or ""
                    if len(value) < 6 or not agrees(value) or heuristic.is_indirect_reference(line):
                        continue
                    if " " in value or not value_ok(value, PASSWORD, quoted=True, code_like=True):
                        continue
                    if words_only(value):
                        continue  # its keyword plugin knows no place: a word there is code or prose
                    i = line.find(value)
                    if i >= 0 and not _named_otherwise(line, i):
                        spans.append(
                            Span(
                                offset + i,
                                offset + i + len(value),
                                "secret.password",
                                "detect-secrets:KeywordDetector",
                                CONFIDENCE,
                            )
                        )
            offset += len(line) + 1
        return spans
