"""Rule packs: credential formats described as data in ``patterns/*.toml``.

A rule is ``id``, ``type`` (``secret.<name>``), a regex, ``keywords`` (lower-case literals, at
least one of which appears in every match) and optionally ``secret_group``, ``entropy``
(minimum Shannon entropy of the secret), ``random`` (the secret must pass
``filters.looks_random``), ``validator`` (a checksum or a decoding check, see ``validators.py``;
``require_valid`` drops a match that fails it), ``confidence``, ``action`` and
``examples``/``negatives`` that the test suite checks.

The regex is written in one of two ways:

- ``regex``: the whole pattern. ``{L}`` and ``{R}`` stand for token boundaries (no letter,
  digit, ``_`` or ``-`` on that side; ``{L}`` also accepts a JSON-escaped ``\\n`` before it);
  ``{NL}`` for a line break, JSON-escaped or not, with the line number of a file view.
- ``context`` + ``value``: a credential with no distinctive prefix, recognised by the name it
  is assigned to. ``context`` is a case-insensitive regex for the provider's name, ``value`` the
  secret's shape; the loader builds ``NAME[rest of name] [quote] OPERATOR [quote] VALUE`` for
  ``=``, ``:``, ``:=``, ``=>``, ``,`` (``.env``, YAML, TOML, JSON, code, JSON-in-text).

Speed: all keywords of all rules go into one Aho-Corasick automaton, so one pass over the
lower-cased text (``keywords.py``) says which rules can match at all. A rule whose matches are at most ``W``
characters long (computed from the regex) then runs only in windows of ``W`` around its
keyword hits, not over the whole text: a 100 kB tool output with one ``token`` word costs one
small regex run. Rules that start with a literal (``ghp_``, ``sk-ant-``) are instead searched
over the whole text in one call: ``re`` finds a literal prefix with a fast substring search, so
that is cheaper than many small windows. (The loader moves ``{L}`` behind the literal prefix so
that most prefix rules qualify.) Unbounded rules (PEM blocks) also scan the whole text, and
only when their keyword occurs.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from tracepub.detect import validators
from tracepub.detect.base import BLOCK_CONFIDENCE, Detector, Trigger
from tracepub.detect.filters import (
    is_doc_example,
    is_placeholder,
    is_reference,
    looks_random,
    lowered,
    shannon,
)
from tracepub.detect.keywords import KeywordIndex
from tracepub.model import REDACTED, REVIEW, Leaf, Span

__all__ = ["HIGH_CONFIDENCE", "PatternDetector", "Rule", "load_rules", "parse_rules", "shannon"]

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
# Ruby/PHP (=>), Makefile (?=), and CSV-ish ``name,value``; quotes may be JSON-escaped.
_CONTEXT = (
    r"(?i:{name})[\w.(-]{{0,30}}?(?:\\?[\"'`\]])?[ \t]{{0,4}}"
    r"(?:=|:=|::=|:|=>|\?=|,|\|\|)[ \t]{{0,4}}(?:\\?[\"'`]|b'|b\")?"
    r"(?P<secret>{value})(?![A-Za-z0-9_+/=-])"
)
UNBOUNDED = 10_000  # a match longer than this: scan the whole text (only when a keyword occurs)
# A rule that starts with its keyword is tried at each keyword hit rather than searched for over
# the whole text when the text has at least this many characters per hit (a match attempt
# costs about as much as ``re``'s literal search over a few hundred characters).
_PER_HIT = 400


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

    @functools.cached_property
    def regex(self) -> re.Pattern:
        return re.compile(self.pattern, self.flags)

    @functools.cached_property
    def secret_group(self) -> int | str:
        if self.group is not None:
            return self.group
        return "secret" if "secret" in self.regex.groupindex else 0

    @functools.cached_property
    def _width_literal(self) -> tuple[int, str]:
        return _shape(self.pattern, self.flags)

    @functools.cached_property
    def width(self) -> int:
        """Longest possible match, for windowed scanning."""
        return self._width_literal[0]

    @functools.cached_property
    def literal(self) -> bool:
        """Starts with a literal: one whole-text search beats windows."""
        return len(self._width_literal[1]) >= 2

    @functools.cached_property
    def prefix_keyword(self) -> bool:
        """Every match starts with one of the rule's keywords (``pat`` of ``pat[A-Za-z0-9]{14}``):
        in text where the keyword is found at a few places, the regex is tried only there."""
        prefix = self._width_literal[1].lower()
        return len(prefix) >= 2 and prefix.isascii() and any(prefix.startswith(k) for k in self.keywords if k)


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


def _context_pattern(name: str, value: str, flags: int) -> str:
    """A ``context`` rule's regex. When the name starts with a plain word (no alternation at its
    top level), its first letter is written as the class of characters it matches ignoring case
    (``(?i:token)`` becomes ``[tT](?i:oken)``): the same matches, but ``re`` can then skip to
    candidates with its first-character set instead of trying the case-insensitive name at
    every position (a frequent word like "token" opens many windows)."""
    pattern = _CONTEXT.format(name=name, value=value)
    first = name[:1]
    if not (first.isascii() and first.isalpha()) or name[1:2] in ("*", "+", "?", "{") or not _top_level_plain(name):
        return pattern
    rest = pattern[len("(?i:") + 1:]
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


def _shape(pattern: str, flags: int) -> tuple[int, str]:
    """(longest match the regex can make, or ``UNBOUNDED``; the case-sensitive literal it
    starts with, what ``re`` can search fast), from one parse of the pattern."""
    try:
        from re import _constants as sre  # type: ignore[attr-defined]

        parsed = re._parser.parse(pattern, flags)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an internal API: if it moves, scan whole texts
        return UNBOUNDED, ""
    try:
        width = min(int(parsed.getwidth()[1]), UNBOUNDED)
    except Exception:  # noqa: BLE001
        width = UNBOUNDED
    if flags & re.IGNORECASE:
        return width, ""
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
    return width, "".join(prefix)


def parse_rules(data: dict, source: str, lazy: bool = False) -> list[Rule]:
    """The rules of one TOML document; ``lazy``: regexes compiled when first used (``Rule``)."""
    rules = []
    for raw in data.get("rules", []):
        try:
            flags = _flags(list(raw.get("flags", "")))
            if "regex" in raw:
                pattern = _expand(_literal_first(raw["regex"]))
            else:
                pattern = _context_pattern(raw["context"], _expand(raw["value"]), flags)
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
                at_keyword="regex" not in raw and re.fullmatch(r"[A-Za-z0-9_]+", raw["context"]) is not None
                and [k.lower() for k in raw.get("keywords", [])] == [raw["context"].lower()],
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


@functools.cache
def _bundled_rules() -> tuple[Rule, ...]:
    """The bundled packs, parsed once per process: a run builds detectors for file names and
    for contents, and compiling ~300 regexes is a tenth of a second of serial start-up."""
    rules: list[Rule] = []
    pack = resources.files("tracepub.patterns")
    for entry in sorted(pack.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".toml"):
            rules.extend(parse_rules(tomllib.loads(entry.read_text(encoding="utf-8")), entry.name, lazy=True))
    return tuple(rules)


class PatternDetector(Detector):
    """Runs the rules whose keywords occur in the text, near where they occur.

    ``min_confidence``: publish's re-scan keeps only rules (and matches) at or above
    ``HIGH_CONFIDENCE``, so a context-only guess cannot block an upload.
    """

    name = "pattern"
    high_confidence = True
    context_free = True

    def __init__(self, rules: list[Rule], min_confidence: float = 0.0):
        self.min_confidence = min_confidence
        self.rules = [r for r in rules if r.confidence >= min_confidence]
        self._always: list[int] = [i for i, r in enumerate(self.rules) if not r.keywords]
        self._index = KeywordIndex(k for r in self.rules for k in r.keywords)
        self._by_kw: list[list[int]] = [[] for _ in self._index.keywords]
        pos = {k: j for j, k in enumerate(self._index.keywords)}
        for i, r in enumerate(self.rules):
            for kw in dict.fromkeys(r.keywords):
                self._by_kw[pos[kw]].append(i)
        # What every match of a rule holds besides its keyword (url-password: "@"): a window
        # without it is not searched.
        # (None: not computed yet; rules compile when first used, see ``Rule``)
        self._required: list[tuple[str, ...] | None] = [None] * len(self.rules)
        # The engine's prefilter (tracepub.prefilter): every rule's keywords; a rule without
        # keywords (a user's rule) means always run.
        self.trigger = None if self._always else Trigger(literals=tuple(self._index.keywords))

    def candidates(self, text: str) -> list[Rule]:
        """Rules whose keywords occur in ``text`` (and rules without keywords)."""
        hit: dict[int, None] = dict.fromkeys(self._always)
        for j, _, _ in self._index.find(lowered(text)):
            hit.update(dict.fromkeys(self._by_kw[j]))
        return [self.rules[i] for i in hit]

    def share_hits(self, prefilter) -> None:
        """Called by the engine: keyword hits come from its prefilter's pass over the string."""
        if self.trigger is not None:
            self._index.share(prefilter)

    def scan(self, text: str, leaf: Leaf | None) -> list[Span]:
        spans: list[Span] = []
        required = self._required
        if self._index:
            found = self._index.find_text(text)
            if found is None:
                low = lowered(text)
                found = self._index.find(low)
                exact = len(low) == len(text)  # a case fold that changes length: no windows
            else:
                exact = True
            # keyword positions per rule
            hits: dict[int, list[int]] = {}  # where a keyword of the rule starts
            by_kw = self._by_kw
            for j, a, _ in found:
                for i in by_kw[j]:
                    if i in hits:
                        hits[i].append(a)
                    else:
                        hits[i] = [a]
            n = len(text)
            for i, found in hits.items():
                rule = self.rules[i]
                need = required[i]
                if need is None:
                    need = required[i] = _required_literals(rule.regex)
                # ``(?i:t)`` matches a character beyond ASCII only among these: without them, a
                # context rule's name is its keyword in the lower-cased text
                if rule.at_keyword and exact and (text.isascii() or not any(c in text for c in _FOLD_EXTRA)):
                    # tried at each hit (windows would only bound matches no longer than them; a
                    # match holds its required literals anyway)
                    if not need or all(lit in text for lit in need):
                        spans.extend(self._apply_at(rule, text, sorted(set(found)), n))
                # many hits (a run of "AAAA..." for a keyword of A's): one whole-text scan is cheaper
                elif not exact or rule.literal or rule.width >= UNBOUNDED or len(found) > 32:
                    if not need or all(lit in text for lit in need):
                        if exact and rule.prefix_keyword and len(found) * _PER_HIT <= n:
                            spans.extend(self._apply_at(rule, text, sorted(set(found)), n))
                        else:
                            spans.extend(self.apply(rule, text))
                else:
                    for a, b in _windows(found, rule.width, len(text)):
                        if not need or all(text.find(lit, a, b) >= 0 for lit in need):
                            spans.extend(self.apply(rule, text, a, b))
        for i in self._always:
            if required[i] is None:
                required[i] = _required_literals(self.rules[i].regex)
            if all(lit in text for lit in required[i]):
                spans.extend(self.apply(self.rules[i], text))
        if self.min_confidence:
            spans = [s for s in spans if s.confidence >= self.min_confidence]
        return spans

    @staticmethod
    def apply(rule: Rule, text: str, pos: int = 0, endpos: int | None = None) -> list[Span]:
        it = rule.regex.finditer(text, pos) if endpos is None else rule.regex.finditer(text, pos, endpos)
        return PatternDetector._spans(rule, text, it)

    @staticmethod
    def _apply_at(rule: Rule, text: str, starts: list[int], endpos: int) -> list[Span]:
        """``apply(rule, text, starts[0], endpos)`` for a rule whose matches can start only at
        ``starts`` (sorted): the regex tried there, in order, skipping starts inside the last
        match, instead of at every letter of the window ("token" rules: a frequent word).
        Equal to ``apply`` (tests, random text)."""
        matches = []
        end = 0
        for p in starts:
            if p < end:
                continue
            m = rule.regex.match(text, p, endpos)
            if m is not None:
                matches.append(m)
                end = m.end()
        return PatternDetector._spans(rule, text, matches)

    @staticmethod
    def _spans(rule: Rule, text: str, matches) -> list[Span]:
        out = []
        for m in matches:
            try:
                start, end = m.span(rule.secret_group)
            except IndexError:
                start, end = m.span()
            if start < 0 or end <= start:
                continue
            secret = text[start:end]
            if is_placeholder(secret) or is_doc_example(secret):
                continue
            if rule.entropy is not None and shannon(secret) < rule.entropy:
                continue
            if rule.random and (not looks_random(secret, 8) or is_reference(secret)):
                continue
            confidence, action = rule.confidence, rule.action
            if rule.validator:
                if validators.check(rule.validator, secret):
                    confidence = max(confidence, 0.99)
                elif rule.require_valid:
                    continue
                else:
                    # Recall first: a value of the right shape with a bad checksum is still
                    # replaced, but it is not trusted enough to block a publish on its own.
                    confidence = min(confidence, 0.7)
                    action = REVIEW if action == REVIEW else REDACTED
            out.append(Span(start, end, rule.type, f"pattern:{rule.id}", confidence, action))
        return out


@functools.cache  # per compiled rule: the bundled rules are shared by every detector of a process
def _required_literals(regex: re.Pattern) -> tuple[str, ...]:
    """The runs of literal characters in the regex's top-level sequence: every match holds each
    of them, within its own span (none if the regex ignores case as a whole)."""
    if regex.flags & re.IGNORECASE:
        return ()
    try:
        ops = list(re._parser.parse(regex.pattern, regex.flags))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an internal API: if it moves, search every window
        return ()
    runs: list[str] = []
    run: list[str] = []
    for op, arg in (*ops, (None, None)):
        if op is re._parser.LITERAL:  # type: ignore[attr-defined]
            run.append(chr(arg))
            continue
        if run:
            runs.append("".join(run))
        run = []
    return tuple(dict.fromkeys(runs))


def _windows(hits: list[int], width: int, n: int) -> list[tuple[int, int]]:
    """Merged ``[pos, endpos)`` windows around keyword hits (where each keyword starts).

    A match of at most ``width`` characters that contains the keyword lies inside
    ``[start - width, start + width]``; the margin keeps look-arounds seeing real characters,
    and merging means no match is cut at a window's edge (every keyword inside a match has its
    own window, merged into the same one).
    """
    margin = 8
    spans = sorted((max(0, a - width - margin), min(n, a + width + margin)) for a in hits)
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out
