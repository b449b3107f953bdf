"""What a run is given and what it gives back: ``RunOptions`` and ``RunSummary``.

Plain data, apart from every stage, so that the run (``run.pipeline``), the review state that
stores and rebuilds a run (``review.runstate``, ``review.sessions``), the outputs that show a
summary (card, report) and the command line can all import them without importing each other.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracepub.detect.registry import DetectConfig

if TYPE_CHECKING:
    from tracepub.selection.deny import DenyRule
    from tracepub.selection.select import Selection


@dataclass
class RunOptions:
    out: Path
    sources: list[Path] = field(default_factory=list)  # empty: every harness's default location
    detect: DetectConfig = field(default_factory=DetectConfig)
    jobs: int = 0  # 0: one per core
    remove_blobs: bool = True
    keep_ids: set[str] = field(default_factory=set)
    progress: bool = False
    card: dict[str, str] = field(default_factory=dict)  # license, title, ... for the dataset card
    # Which sessions: selection criteria, applied after discovery (None: all), and deny rules
    # (a session matching anywhere is left out). Reviewers' drop_session decisions in
    # DIR/review/decisions.jsonl are always applied.
    selection: Selection | None = None
    deny: list[DenyRule] = field(default_factory=list)
    # The sources are the harnesses' default locations (no SOURCES given): generic formats are
    # not looked for there. Stored in run.json so a review re-run discovers the same files.
    defaults: bool = False
    # What identity harvesting found, masked (type, origin, masked): written to review/identity.json.
    identity_summary: list[dict[str, str]] = field(default_factory=list)


@dataclass
class RunSummary:
    out: str
    files: int = 0
    sessions: int = 0
    records: int = 0
    bytes_in: int = 0
    findings: dict[str, int] = field(default_factory=dict)
    actions: dict[str, int] = field(default_factory=dict)
    blobs: dict[str, int] = field(default_factory=dict)
    harnesses: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)  # sessions read from another store instead
    ner: str | None = None
    manifest_sha256: str = ""
    selection: dict[str, Any] = field(default_factory=dict)  # criteria and counts (selection.summary_block)
    denied: list[dict[str, Any]] = field(
        default_factory=list
    )  # {session, file, rule, origin, masked, where, files}
    dropped: list[dict[str, Any]] = field(
        default_factory=list
    )  # {session, harness, files}: dropped in review
    reused: int = 0  # files whose source did not change since the last run into DIR: kept as they were
    perf: dict[str, int] = field(default_factory=dict)  # lines skipped unparsed, cache hits, ...

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunSummary:
        """A summary as run.json stores it (fields a newer or older version wrote are left out)."""
        known = cls.__dataclass_fields__
        return cls(**{"out": "", **{k: v for k, v in data.items() if k in known}})
