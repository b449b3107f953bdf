"""Rule packs: credential formats described as data in ``patterns/*.toml``.

A rule is ``id``, ``type``, ``regex``, ``keywords`` (lower-case literals, at least one of which
appears in any match), and optionally ``secret_group``, ``entropy`` (minimum Shannon entropy
of the secret), ``validator`` (a checksum, see ``validators.py``), ``confidence``, and
``examples``/``negatives`` that the test suite checks. All keywords of all rules go into one
Aho-Corasick automaton: one pass over the lower-cased text says which rules can match at all,
so adding rules costs almost nothing on text that holds no credential.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import ahocorasick

from tracepub.detect import validators
from tracepub.detect.base import Detector, Trigger
from tracepub.detect.filters import is_placeholder
from tracepub.model import REDACTED, REVIEW, Leaf, Span


@dataclass(slots=True)
class Rule:
    id: str
    type: str
    regex: re.Pattern
    keywords: tuple[str, ...]
    secret_group: int | str = 0
    entropy: float | None = None
    validator: str | None = None
    confidence: float = 0.9
    # "review": replaced but flagged for a human (generic rules with more false positives).
    action: str = REDACTED
    description: str = ""
    examples: list[str] = field(default_factory=list)
    negatives: list[str] = field(default_factory=list)
    source: str = ""


def shannon(s: str) -> float:
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _flags(names: list[str]) -> int:
    flags = 0
    for name in names:
        flags |= {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}[name]
    return flags


def parse_rules(data: dict, source: str) -> list[Rule]:
    rules = []
    for raw in data.get("rules", []):
        try:
            rules.append(
                Rule(
                    id=raw["id"],
                    type=raw["type"],
                    regex=re.compile(raw["regex"], _flags(list(raw.get("flags", "")))),
                    keywords=tuple(k.lower() for k in raw.get("keywords", [])),
                    secret_group=raw.get("secret_group", 0),
                    entropy=raw.get("entropy"),
                    validator=raw.get("validator"),
                    confidence=float(raw.get("confidence", 0.9)),
                    action=raw.get("action", REDACTED),
                    description=raw.get("description", ""),
                    examples=list(raw.get("examples", [])),
                    negatives=list(raw.get("negatives", [])),
                    source=source,
                )
            )
        except (KeyError, re.error) as exc:
            raise ValueError(f"{source}: bad rule {raw.get('id', '?')}: {exc}") from exc
    return rules


def load_rules(extra: list[Path] | None = None) -> list[Rule]:
    """Load the bundled rule packs, then any extra TOML files (``tracepub.toml`` rules)."""
    rules: list[Rule] = []
    pack = resources.files("tracepub") / "patterns"
    for entry in sorted(pack.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".toml"):
            rules.extend(parse_rules(tomllib.loads(entry.read_text(encoding="utf-8")), entry.name))
    for path in extra or []:
        rules.extend(parse_rules(tomllib.loads(path.read_text(encoding="utf-8")), str(path)))
    seen: set[str] = set()
    for r in rules:
        if r.id in seen:
            raise ValueError(f"duplicate rule id {r.id} ({r.source})")
        seen.add(r.id)
    return rules


class PatternDetector(Detector):
    """Runs the rules whose keywords occur in the text."""

    name = "pattern"
    high_confidence = True
    context_free = True

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        self._always: list[Rule] = [r for r in rules if not r.keywords]
        self._by_kw: dict[str, list[Rule]] = {}
        self._auto = ahocorasick.Automaton()
        for r in rules:
            for kw in r.keywords:
                self._by_kw.setdefault(kw, []).append(r)
        for kw in self._by_kw:
            self._auto.add_word(kw, kw)
        if self._by_kw:
            self._auto.make_automaton()
        # The prefilter's trigger: every rule's keywords (a rule without keywords: always run).
        self.trigger = None if self._always else Trigger(literals=tuple(self._by_kw))

    def candidates(self, text: str) -> list[Rule]:
        if not self._by_kw:
            return list(self._always)
        hit: dict[str, Rule] = {}
        for _, kw in self._auto.iter(text.lower()):
            for r in self._by_kw[kw]:
                hit.setdefault(r.id, r)
        if self._always:
            for r in self._always:
                hit.setdefault(r.id, r)
        return list(hit.values())

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        rules = self.candidates(text)
        if not rules:
            return []
        spans = []
        for rule in rules:
            spans.extend(self.apply(rule, text))
        return spans

    @staticmethod
    def apply(rule: Rule, text: str) -> list[Span]:
        out = []
        for m in rule.regex.finditer(text):
            try:
                start, end = m.span(rule.secret_group)
            except IndexError:
                start, end = m.span()
            if start < 0 or end <= start:
                continue
            secret = text[start:end]
            if is_placeholder(secret):
                continue
            if rule.entropy is not None and shannon(secret) < rule.entropy:
                continue
            confidence, action = rule.confidence, rule.action
            if rule.validator:
                if validators.check(rule.validator, secret):
                    confidence = max(confidence, 0.99)
                else:
                    # Recall first: a value of the right shape with a bad checksum is still
                    # replaced, but it is not trusted enough to block a publish on its own.
                    confidence, action = min(confidence, 0.7), REVIEW if action == REVIEW else REDACTED
            out.append(Span(start, end, rule.type, f"pattern:{rule.id}", confidence, action))
        return out
