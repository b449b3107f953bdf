"""Credential rules as data: the rule packs in ``patterns/*.toml`` parsed into ``Rule``s.

A rule is a regex (with ``{L}``/``{R}`` token-boundary macros) or a ``context`` + ``value``
pair (a provider's name and a value shape, turned into ``NAME [quote] OPERATOR [quote] VALUE``
for every format agents read), plus keywords, a type, a confidence and examples. The regexes
are compiled on first use: ~300 of them are a tenth of a second of serial start-up.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from tracepub.detect.base import BLOCK_CONFIDENCE
from tracepub.detect.secrets import validators
from tracepub.model import REDACTED

# A rule (or a match) at or above this confidence is precise enough to refuse a publish on its
# own: distinctive prefixes, checksums, private-key blocks. Context-only rules sit below it.
HIGH_CONFIDENCE = BLOCK_CONFIDENCE


# Token boundaries for ``{L}``/``{R}``. ``\\[nrt]`` before a token: JSON-escaped text
# ("...\nghp_...") where the walker could not decode the string.
_MACROS = {
    "{L}": r"(?:(?<![A-Za-z0-9_-])|(?<=\\[nrt]))",
    "{R}": r"(?![A-Za-z0-9_-])",
    # a line break, also JSON-escaped, and the "   12→" line number of a file view (Claude's Read)
    # (JSON-escaped once or more: \\n, \\\\n; the arrow maybe written \\u2192)
    "{NL}": r"(?:\r?\n|(?:\\+r)?\\+n)[ \t]{0,8}(?:\d{1,6}(?:→|\\+u2192)[ \t]{0,8})?",
}


# NAME[rest] [closing quote] OPERATOR [opening quote] VALUE. The rest of the name is short
# (``_API_KEY``, ``.secret``); the operator covers .env/INI (=), YAML/JSON (:), Go (:=),
# Ruby/PHP (=>, .=), make (?=, +=, ::=, :::=), R (<-), Ruby (||=), CSV-ish ``name,value``, and
# an XML element's end (``<sonarToken>`` then the value, maybe on the next line); quotes may be
# JSON-escaped.
_CONTEXT = (
    r"(?i:{name})(?:[\w.(-]{{0,30}}?(?:\\?[\"'`\]])?[ \t]{{0,4}}"
    r"(?:(?:=|:::=|::=|:=|:|=>|\?=|\+=|\.=|\|\|=|<-|,|\|\|)[ \t]{{0,4}}|>(?:\s|\\[nrt]|\d{{1,6}}→){{0,12}}){blank})"
    r"(?:\\?[\"'`]|b'|b\")?"
    r"(?P<secret>{value})(?![A-Za-z0-9_+/=-])"
)
# ``blank = true``: the vendor's name alone, then blanks or a line break, then the value (``wandb <hex>``,
# ``skrapp`` / value on the next line: notes and other tools' rule examples write a key so). Only for
# names that are no English word, whose value shape is bounded and checked for entropy: the name is
# then the whole label (``wandb_run_id <hex>`` is not this place).
_BLANK = r"|(?![\w.-])(?:[ \t]{{1,4}}|[ \t]{{0,4}}(?:\r?\n|\\n)[ \t]{{0,8}})"


UNBOUNDED = 10_000  # a match longer than this: scan the whole text (only when a keyword occurs)


@dataclass
class Rule:
    """One rule. Its regex is compiled, and read for its shape, when first used (``regex``,
    ``width``...): a bundled rule is checked by the test suite, and of ~300 only a few dozen
    occur in a corpus, so compiling them all was a tenth of a second of the serial start-up
    (a worker compiles the few it meets). Rules from a user's file are compiled when loaded,
    so a bad one is an error at once (``parse_rules``)."""

    id: str
    type: str
    pattern: str  # the regex as compiled (macros expanded)
    flags: int
    keywords: tuple[str, ...]
    group: int | str | None = None  # ``secret_group`` as written (None: ``secret`` if the regex has it)
    entropy: float | None = None
    random: bool = False
    validator: str | None = None
    require_valid: bool = False
    confidence: float = 0.9
    # "review": replaced but flagged for a human (generic rules with more false positives).
    action: str = REDACTED
    description: str = ""
    examples: list[str] = field(default_factory=list)
    negatives: list[str] = field(default_factory=list)
    source: str = ""
    # Every match starts with the rule's one keyword (a ``context`` rule named by a plain word):
    # in ASCII text, only where the keyword index found it (``PatternDetector._apply_at``).
    at_keyword: bool = False
    # A ``context`` rule's provider name (a regex): a match counts only where the name is a word
    # of the identifier it sits in (``okta`` in ``OKTA_TOKEN``, ``oktaToken``; not in ``rookTable``).
    context: str | None = None
    # A cut token (``truncated``): a match not followed by an ellipsis or a truncation mark must
    # end a long line or a long text (``PatternDetector._cut_here``).
    truncated: bool = False

    @functools.cached_property
    def name_regex(self) -> re.Pattern | None:
        return re.compile(f"(?i:{self.context})", self.flags) if self.context is not None else None

    @functools.cached_property
    def regex(self) -> re.Pattern:
        return re.compile(self.pattern, self.flags)

    @functools.cached_property
    def secret_group(self) -> int | str:
        if self.group is not None:
            return self.group
        return "secret" if "secret" in self.regex.groupindex else 0

    @functools.cached_property
    def _parsed_shape(self) -> tuple[int, str, list[str]]:
        return _shape(self.pattern, self.flags)

    @functools.cached_property
    def width(self) -> int:
        """Longest possible match, for windowed scanning."""
        return self._parsed_shape[0]

    @functools.cached_property
    def literal(self) -> bool:
        """Starts with a literal: one whole-text search beats windows."""
        return len(self._parsed_shape[1]) >= 2

    @functools.cached_property
    def prefix_keyword(self) -> bool:
        """Every match starts with one of the rule's keywords (``pat`` of ``pat[A-Za-z0-9]{14}``,
        each of ``{L}(?:ghp_|AKIA)...``): where the keywords are found at a few places, the regex
        is tried only there."""
        prefixes = self._parsed_shape[2]
        return bool(prefixes) and all(
            len(p) >= 2 and p.isascii() and any(p.lower().startswith(k) for k in self.keywords if k)
            for p in prefixes
        )


def _flags(names: list[str]) -> int:
    flags = 0
    for name in names:
        flags |= {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}[name]
    return flags


def _expand(pattern: str) -> str:
    for macro, rx in _MACROS.items():
        pattern = pattern.replace(macro, rx)
    return pattern


_LEFT = "{L}(?P<secret>"


_LITERAL_RUN = re.compile(r"(?:[A-Za-z0-9_~]|-|\\[.$])+")


def _group_end(pattern: str, start: int) -> int:
    """Index of the ``)`` closing the group whose body starts at ``start``, or -1 if the body
    has a top-level ``|`` (then a prefix does not apply to every branch)."""
    depth, i, n, in_class = 0, start, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i
            depth -= 1
        elif c == "|" and depth == 0:
            return -1
        i += 1
    return -1


def _literal_first(pattern: str) -> str:
    """Move ``{L}`` behind the token's literal prefix: ``{L}(?P<secret>ghp_...`` becomes
    ``(?P<secret>ghp_(?<={L}ghp_)...``. Same matches, but the regex now starts with a literal,
    which Python's ``re`` finds with a fast substring search (~1 GB/s) instead of trying the
    look-behind at every position (~40 MB/s)."""
    if not pattern.startswith(_LEFT):
        return pattern
    body = len(_LEFT)
    if _group_end(pattern, body) < 0:
        return pattern
    m = _LITERAL_RUN.match(pattern, body)
    if m is None:
        return pattern
    lit = m.group(0)
    nxt = pattern[m.end() : m.end() + 1]
    if nxt and nxt in "?*+{":
        lit = lit[:-2] if lit.endswith((r"\.", r"\$")) else lit[:-1]
    if len(lit.replace("\\", "")) < 2:
        return pattern
    rest = pattern[body + len(lit) :]
    return f"(?P<secret>{lit}(?<={_MACROS['{L}']}{lit}){rest}"


# The only characters beyond ASCII that ``(?i:x)`` matches for an ASCII letter x (Python's ``re``:
# İ, ı, ſ and the Kelvin sign; tests/test_speed_prefilter.py checks every code point).
_FOLD_EXTRA = "\u0130\u0131\u017f\u212a"


def _case_class(letter: str, flags: int) -> str:
    """``[tT]``: exactly the characters ``(?i:t)`` matches."""
    one = re.compile(f"(?i:{letter})", flags)
    chars = [c for c in (letter.lower(), letter.upper(), *_FOLD_EXTRA) if one.fullmatch(c)]
    return "[" + "".join(dict.fromkeys(chars)) + "]"


def _context_pattern(name: str, value: str, flags: int, blank: bool = False) -> str:
    """A ``context`` rule's regex. When the name starts with a plain word (no alternation at its
    top level), its first letter is written as the class of characters it matches ignoring case
    (``(?i:token)`` becomes ``[tT](?i:oken)``): the same matches, but ``re`` can then skip to
    candidates with its first-character set instead of trying the case-insensitive name at
    every position (a frequent word like "token" opens many windows)."""
    pattern = _CONTEXT.format(name=name, value=value, blank=_BLANK.format() if blank else "")
    first = name[:1]
    if (
        not (first.isascii() and first.isalpha())
        or name[1:2] in ("*", "+", "?", "{")
        or not _top_level_plain(name)
    ):
        return pattern
    rest = pattern[len("(?i:") + 1 :]
    return _case_class(name[0], flags) + "(?i:" + rest


def _top_level_plain(name: str) -> bool:
    """No ``|`` outside a group (``yandex|yc_`` has two first letters)."""
    depth, escaped = 0, False
    for c in name:
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return False
    return True


def _shape(pattern: str, flags: int) -> tuple[int, str, list[str]]:
    """(longest match the regex can make, or ``UNBOUNDED``; the case-sensitive literal it
    starts with, what ``re`` can search fast; ``_prefixes``), from one parse of the pattern."""
    try:
        from re import _constants as sre  # type: ignore[attr-defined]

        parsed = re._parser.parse(pattern, flags)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an internal API: if it moves, scan whole texts
        return UNBOUNDED, "", []
    try:
        width = min(int(parsed.getwidth()[1]), UNBOUNDED)
    except Exception:  # noqa: BLE001
        width = UNBOUNDED
    if flags & re.IGNORECASE:
        return width, "", []
    items = list(parsed.data)
    prefix: list[str] = []
    while items:
        op, av = items[0]
        if op is sre.LITERAL:
            prefix.append(chr(av))
            items = items[1:]
        elif op is sre.SUBPATTERN and not av[1] & re.IGNORECASE:
            items = list(av[3].data) + items[1:]
        else:
            break
    return width, "".join(prefix), _prefixes(list(parsed.data), sre)


def _prefixes(items: list, sre: Any) -> list[str]:
    """The literal texts a match of these parsed items (a case-sensitive pattern's) can start
    with, one per way (empty: not known). Zero-width assertions are skipped (``{L}``): they
    consume nothing."""
    zero_width = (sre.ASSERT, sre.ASSERT_NOT, sre.AT)

    def starts(items: list) -> tuple[list[str], bool]:  # (prefixes, whole: the items are literal)
        out = [""]
        for op, av in items:
            if op in zero_width:
                continue
            if op is sre.LITERAL:
                out = [s + chr(av) for s in out]
                continue
            if op is sre.SUBPATTERN and not av[1] & re.IGNORECASE:
                subs = [starts(list(av[3].data))]
            elif op is sre.BRANCH:
                subs = [starts(list(alt.data)) for alt in av[1]]
            else:
                return out, False
            out = [s + p for s in out for ps, _ in subs for p in ps]
            if len(out) > 256 or not all(whole for _, whole in subs):
                return out, False
        return out, True

    found = starts(items)[0]
    return [] if len(found) > 256 else found


def parse_rules(data: dict, source: str, lazy: bool = False) -> list[Rule]:
    """The rules of one TOML document; ``lazy``: regexes compiled when first used (``Rule``)."""
    rules = []
    for raw in data.get("rules", []):
        try:
            flags = _flags(list(raw.get("flags", "")))
            if "regex" in raw:
                pattern = _expand(_literal_first(raw["regex"]))
            else:
                pattern = _context_pattern(
                    raw["context"], _expand(raw["value"]), flags, bool(raw.get("blank"))
                )
            rule = Rule(
                id=raw["id"],
                type=raw["type"],
                pattern=pattern,
                flags=flags,
                keywords=tuple(k.lower() for k in raw.get("keywords", [])),
                group=raw.get("secret_group"),
                entropy=raw.get("entropy"),
                random=bool(raw.get("random", False)),
                validator=raw.get("validator"),
                require_valid=bool(raw.get("require_valid", False)),
                confidence=float(raw.get("confidence", 0.9)),
                action=raw.get("action", REDACTED),
                description=raw.get("description", ""),
                examples=list(raw.get("examples", [])),
                negatives=list(raw.get("negatives", [])),
                source=source,
                at_keyword="regex" not in raw
                and re.fullmatch(r"[A-Za-z0-9_]+", raw["context"]) is not None
                and [k.lower() for k in raw.get("keywords", [])] == [raw["context"].lower()],
                context=None if "regex" in raw else raw["context"],
                truncated=bool(raw.get("truncated", False)),
            )
            if not lazy:
                _ = rule.regex, rule.secret_group, rule.width, rule.literal
            rules.append(rule)
        except (KeyError, re.error) as exc:
            raise ValueError(f"{source}: bad rule {raw.get('id', '?')}: {exc!r}") from exc
        if rules[-1].validator and rules[-1].validator not in validators.VALIDATORS:
            raise ValueError(f"{source}: rule {rules[-1].id}: unknown validator {rules[-1].validator!r}")
        if not rules[-1].type.startswith("secret."):
            raise ValueError(f"{source}: rule {rules[-1].id}: type must start with 'secret.'")
    return rules


def load_rules(extra: list[Path] | None = None) -> list[Rule]:
    """Load the bundled rule packs, then any extra TOML files (``tracepub.toml`` rules)."""
    rules: list[Rule] = list(_bundled_rules())
    for path in extra or []:
        rules.extend(parse_rules(tomllib.loads(path.read_text(encoding="utf-8")), str(path)))
    seen: set[str] = set()
    for r in rules:
        if r.id in seen:
            raise ValueError(f"duplicate rule id {r.id} ({r.source})")
        seen.add(r.id)
    return rules


def _pack():
    """The rule packs: the checkout's own ``patterns/`` beside the package when running from a
    source tree (a worktree run with ``PYTHONPATH`` would otherwise read the packs of whatever
    checkout the editable install maps ``tracepub.patterns`` to), else the shipped
    ``tracepub.patterns``."""
    here = Path(__file__).resolve().parents[3] / "patterns"
    if (here / "core.toml").is_file() and (here.parent / "tracepub" / "detect").is_dir():
        return here
    return resources.files("tracepub.patterns")


@functools.cache
def _bundled_rules() -> tuple[Rule, ...]:
    """The bundled packs, parsed once per process: a run builds detectors for file names and
    for contents, and compiling ~300 regexes is a tenth of a second of serial start-up."""
    rules: list[Rule] = []
    for entry in sorted(_pack().iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".toml"):
            rules.extend(parse_rules(tomllib.loads(entry.read_text(encoding="utf-8")), entry.name, lazy=True))
    return tuple(rules)
