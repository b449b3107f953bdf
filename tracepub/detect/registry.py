"""The detectors a run uses, in their order, built from one ``DetectConfig``.

Adding a detector: a ``Detector`` subclass in its room (``secrets/``, ``pii/``, ``identity.py``)
and one line in ``build_detectors``. Adding a credential format: a rule in ``patterns/*.toml``.
Order matters twice: resolve keeps the first of equal spans, and the engine drops home-path
usernames that the exact values (registered first) already cover.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tracepub.detect.base import Detector
from tracepub.detect.found import Found
from tracepub.model import Leaf, Span


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
    # How found values are replaced, per type or type prefix (redact.policy; tracepub.toml [replace]).
    replace: dict[str, str] = field(default_factory=dict)


class RegexValues(Detector):
    """User-supplied regexes (``--add-regex``, ``tracepub.toml``): what the rules missed."""

    name = "custom-regex"
    high_confidence = True
    context_free = True
    trigger = None  # arbitrary user regexes have no cheap necessary condition: always run

    def __init__(self, patterns: list[str]):
        self._patterns = [re.compile(p) for p in patterns]

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return [
            Span(m.start(), m.end(), "custom.regex", self.name, 1.0)
            for rx in self._patterns
            for m in rx.finditer(text)
            if m.end() > m.start()
        ]


def _base_detectors(cfg: DetectConfig, found: Found | None = None) -> list[Detector]:
    """Exact values, user regexes and the credential rules: precise enough to block a publish;
    ``found``: the values found elsewhere in the dataset (``detect.found``)."""
    from pathlib import Path

    from tracepub.detect.identity import ExactValues
    from tracepub.detect.secrets.patterns import PatternDetector
    from tracepub.detect.secrets.rules import HIGH_CONFIDENCE, load_rules

    detectors: list[Detector] = []
    exact = ExactValues(cfg.identity)
    if exact:
        detectors.append(exact)
    if found:
        from tracepub.detect.found import FoundValues

        detectors.append(FoundValues(found, cfg.identity))
    if cfg.add_regexes:
        detectors.append(RegexValues(cfg.add_regexes))
    # publish's re-scan keeps only rules precise enough to refuse an upload (patterns.HIGH_CONFIDENCE)
    floor = HIGH_CONFIDENCE if cfg.high_confidence_only else 0.0
    detectors.append(PatternDetector(load_rules([Path(p) for p in cfg.extra_rules]), min_confidence=floor))
    return detectors


def build_detectors(cfg: DetectConfig, found: Found | None = None) -> list[Detector]:
    from tracepub.detect.identity import HomePaths

    detectors = _base_detectors(cfg, found)
    if cfg.high_confidence_only:
        return detectors
    detectors.append(HomePaths())
    from tracepub.detect.places import IdentityPlaces

    detectors.append(IdentityPlaces(cfg.identity))  # prompts, ls/ps/id columns, ssh key comments, ...
    from tracepub.detect.secrets.entropy import ContextEntropy

    detectors.append(ContextEntropy())
    from tracepub.detect.secrets.bare import BareTokens

    detectors.append(BareTokens())  # a token a tool printed alone after a command naming a secret
    if cfg.detect_secrets:
        from tracepub.detect.secrets.secrets_ds import DetectSecrets

        detectors.append(DetectSecrets())
    from tracepub.detect.lookups import CodeOwners, GitHubLogins, HostsLookup, KubeUsers, NameLookup
    from tracepub.detect.pii.accounts import AwsAccounts
    from tracepub.detect.pii.addresses import Addresses
    from tracepub.detect.pii.birth import DatesOfBirth
    from tracepub.detect.pii.handles import Handles
    from tracepub.detect.pii.keyed import KeyedValues
    from tracepub.detect.pii.machines import Hostnames, NetworkConfig
    from tracepub.detect.pii.national_ids import NationalIds
    from tracepub.detect.pii.people import StructuredNames
    from tracepub.detect.pii.presidio import Presidio

    detectors.append(Presidio(ner=cfg.ner, ner_threshold=cfg.ner_threshold))  # parts(): + NER on prose
    detectors += [StructuredNames(), Handles(), Addresses()]
    detectors += [
        NetworkConfig(),
        HostsLookup(),  # a hosts lookup's and a name lookup's output (the command says what it is)
        NameLookup(),
        CodeOwners(),
        KubeUsers(),
        GitHubLogins(),
        Hostnames(),
        DatesOfBirth(),
        AwsAccounts(),
        NationalIds(),
        KeyedValues(),
    ]
    return detectors


def path_detectors(cfg: DetectConfig, found: Found | None = None) -> list[Detector]:
    """For file and folder names: identity, home folders and credential rules (no NLP)."""
    from tracepub.detect.identity import HomePaths

    return [*_base_detectors(cfg, found), HomePaths()]
