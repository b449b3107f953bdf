"""Detection: a registry of detectors and the engine that runs them on one string.

Adding a detector: write a ``Detector`` subclass in this package and add it in
``build_detectors``. Adding a credential format: add a rule to ``patterns/*.toml``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tracepub.detect.base import Detector
from tracepub.detect.identity import escaped_view
from tracepub.model import Leaf, Span
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

    Prose is remembered too: STS lines keep the source's fields beside ``message.content``
    (OpenCode's parts, Hermes' turns), so the same user text comes again where it is not prose.
    That copy gets the prose copy's spans as well (names NER found), or it would leak them.
    """

    CACHE_MIN = 24
    CACHE_MAX = 50_000

    def __init__(self, cfg: DetectConfig, detectors: list[Detector] | None = None):
        self.cfg = cfg
        self.detectors = detectors if detectors is not None else build_detectors(cfg)
        self._allow = {v.lower() for v in cfg.allow_values}
        self._allow_rx = [re.compile(p) for p in cfg.allow_regexes]
        self._cache: dict[tuple, list[Span]] = {}
        self._prose: dict[str, list[Span]] = {}

    @property
    def ner_model(self) -> str | None:
        for d in self.detectors:
            if getattr(d, "ner_model", None):
                return d.ner_model  # type: ignore[attr-defined]
        return None

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
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
        if leaf.prose:
            if len(self._prose) >= self.CACHE_MAX:
                self._prose.clear()
            self._prose[text] = [s for s in spans if s.type == "pii.person"]
        elif text in self._prose:
            spans = spans + self._prose[text]
        spans = resolve(spans)
        if cacheable:
            if len(self._cache) >= self.CACHE_MAX:
                self._cache.clear()
            self._cache[ck] = spans
        return spans

    def _allowed(self, value: str) -> bool:
        return value.lower() in self._allow or any(rx.fullmatch(value) for rx in self._allow_rx)
