"""Detection: a registry of detectors and the engine that runs them on one string.

Adding a detector: write a ``Detector`` subclass in this package and add it in
``build_detectors``. Adding a credential format: add a rule to ``patterns/*.toml``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import ahocorasick

from tracepub.detect.base import Detector
from tracepub.detect.identity import escaped_view
from tracepub.model import REDACTED, Leaf, Span
from tracepub.resolve import resolve


@dataclass
class DetectConfig:
    """Everything that decides what is found; its hash goes into the manifest."""

    identity: dict[str, str] = field(default_factory=dict)  # exact value -> type
    extra_rules: list[str] = field(default_factory=list)  # TOML files with more rules
    add_regexes: list[str] = field(default_factory=list)  # reviewer/user regexes: always redacted
    allow_values: list[str] = field(default_factory=list)  # never redacted (exact)
    allow_regexes: list[str] = field(default_factory=list)
    ner: bool = True
    ner_threshold: float = 0.85
    detect_secrets: bool = True
    high_confidence_only: bool = False  # publish's re-scan
    # Where exact values came from besides the harvest, so a re-run can collect them again
    # (the values themselves are never stored): --secrets-file paths and tracepub.toml.
    secrets_files: list[str] = field(default_factory=list)
    config_file: str | None = None


class RegexValues(Detector):
    """User-supplied regexes (``--add-regex``, ``tracepub.toml``): what the rules missed."""

    name = "custom-regex"
    high_confidence = True

    def __init__(self, patterns: list[str]):
        self._patterns = [re.compile(p) for p in patterns]

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return [
            Span(m.start(), m.end(), "custom.regex", self.name, 1.0)
            for rx in self._patterns
            for m in rx.finditer(text)
            if m.end() > m.start()
        ]


def _base_detectors(cfg: DetectConfig) -> list[Detector]:
    """Exact values, user regexes and the credential rules: precise enough to block a publish."""
    from pathlib import Path

    from tracepub.detect.identity import ExactValues
    from tracepub.detect.patterns import PatternDetector, load_rules

    detectors: list[Detector] = []
    exact = ExactValues(cfg.identity)
    if exact:
        detectors.append(exact)
    if cfg.add_regexes:
        detectors.append(RegexValues(cfg.add_regexes))
    detectors.append(PatternDetector(load_rules([Path(p) for p in cfg.extra_rules])))
    return detectors


def build_detectors(cfg: DetectConfig) -> list[Detector]:
    from tracepub.detect.identity import HomePaths

    detectors = _base_detectors(cfg)
    if cfg.high_confidence_only:
        return detectors
    detectors.append(HomePaths())
    if cfg.detect_secrets:
        from tracepub.detect.secrets_ds import DetectSecrets

        detectors.append(DetectSecrets())
    from tracepub.detect.names import StructuredNames
    from tracepub.detect.pii import Addresses, Handles, Presidio

    detectors.append(Presidio(ner=cfg.ner, ner_threshold=cfg.ner_threshold))
    detectors += [StructuredNames(), Handles(), Addresses()]
    return detectors


def path_detectors(cfg: DetectConfig) -> list[Detector]:
    """For file and folder names: identity, home folders and credential rules (no NLP)."""
    from tracepub.detect.identity import HomePaths

    return [*_base_detectors(cfg), HomePaths()]


class Engine:
    """Runs every detector on a string, drops allowed values, resolves overlaps.

    Results are cached per distinct (text, key, prose): traces repeat tool output two or three
    times (Claude's ``tool_result`` and ``toolUseResult``, Codex's ``function_call_output`` and
    ``exec_command_end``), and the second copy then costs a dictionary look-up.

    People found in a file are remembered for the rest of that file: a name NER or a commit
    trailer found is redacted wherever else it appears (STS lines keep the source's copy of a
    prompt beside ``message.content``; a name in a prompt comes back in a tool output). The
    memory is per file (``start_unit``) and outside the cache, so output does not depend on how
    files are spread over worker processes.
    """

    CACHE_MIN = 24
    CACHE_MAX = 50_000

    def __init__(self, cfg: DetectConfig, detectors: list[Detector] | None = None):
        self.cfg = cfg
        self.detectors = detectors if detectors is not None else build_detectors(cfg)
        self._allow = {v.lower() for v in cfg.allow_values}
        self._allow_rx = [re.compile(p) for p in cfg.allow_regexes]
        self._cache: dict[tuple, list[Span]] = {}
        self._people: set[str] = set()
        self._people_auto: ahocorasick.Automaton | None = None

    def start_unit(self) -> None:
        self._people.clear()
        self._people_auto = None

    @property
    def ner_model(self) -> str | None:
        for d in self.detectors:
            if getattr(d, "ner_model", None):
                return d.ner_model  # type: ignore[attr-defined]
        return None

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        spans = self._scan(text, leaf)
        if self._people:
            seen = self._seen_people(text)
            if seen:
                spans = resolve(spans + seen)
        for s in spans:
            if s.type == "pii.person" and s.action == REDACTED and " " in text[s.start:s.end].strip():
                value = text[s.start:s.end]
                if value not in self._people:
                    self._people.add(value)
                    self._people_auto = None
        return spans

    def _seen_people(self, text: str) -> list[Span]:
        if self._people_auto is None:
            self._people_auto = ahocorasick.Automaton()
            for v in self._people:
                self._people_auto.add_word(v, len(v))
            self._people_auto.make_automaton()
        out = []
        for end, n in self._people_auto.iter(text):
            start, end = end - n + 1, end + 1
            if (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
                out.append(Span(start, end, "pii.person", "names:seen-in-file", 0.85))
        return out

    def _scan(self, text: str, leaf: Leaf) -> list[Span]:
        cacheable = len(text) >= self.CACHE_MIN
        if cacheable:
            ck = (text, leaf.key, leaf.prose)
            hit = self._cache.get(ck)
            if hit is not None:
                return hit
        spans: list[Span] = []
        # Detectors see JSON escapes resolved (same offsets): in JSON written inside a non-JSON
        # string, "\\ngho_..." would otherwise glue an "n" to a token and defeat every \b.
        view = escaped_view(text)
        for d in self.detectors:
            spans.extend(d.scan(text if getattr(d, "sees_raw", False) else view, leaf))
        if spans and (self._allow or self._allow_rx):
            spans = [s for s in spans if not self._allowed(text[s.start : s.end])]
        spans = resolve(spans)
        if cacheable:
            if len(self._cache) >= self.CACHE_MAX:
                self._cache.clear()
            self._cache[ck] = spans
        return spans

    def _allowed(self, value: str) -> bool:
        return value.lower() in self._allow or any(rx.fullmatch(value) for rx in self._allow_rx)
