"""The small set of data types that flow between pipeline stages.

Everything here is plain data so that it pickles cheaply across worker processes and so that
each stage can be tested on its own: readers produce ``Unit``/``Record``, the walker produces
``Leaf`` contexts, detectors produce ``Span``, the redactor turns spans into findings (dicts, ``run.assemble.Finding``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Actions a finding can carry (DESIGN.md): redacted, redacted-but-flagged, or left in clear.
REDACTED = "redacted"
REVIEW = "review"
KEPT = "kept"


@dataclass(frozen=True, slots=True)
class Span:
    """A detector's claim that ``text[start:end]`` is sensitive."""

    start: int
    end: int
    type: str  # "secret.github_token", "pii.email", "identity.username", ...
    detector: str  # "pattern:github_pat", "detect-secrets:AWSKeyDetector", "presidio:EMAIL_ADDRESS", ...
    confidence: float = 0.9
    # redact (default) or review: a low-confidence span is still replaced but flagged for a human.
    action: str = REDACTED


def _span_init():
    """Span's ``__init__``, setting its slots through their descriptors: a frozen dataclass's own
    goes through ``object.__setattr__`` six times, twice the cost, and detectors make ~60k spans
    per 30 MB. The same signature, defaults and result (tests); assignment still raises."""
    s0, s1, s2, s3, s4, s5 = (
        getattr(Span, f).__set__ for f in ("start", "end", "type", "detector", "confidence", "action")
    )

    def __init__(
        self,
        start: int,
        end: int,
        type: str,
        detector: str,
        confidence: float = 0.9,  # noqa: A002
        action: str = REDACTED,
    ) -> None:
        s0(self, start)
        s1(self, end)
        s2(self, type)
        s3(self, detector)
        s4(self, confidence)
        s5(self, action)

    __init__.__qualname__ = "Span.__init__"
    return __init__


Span.__init__ = _span_init()  # type: ignore[method-assign]


@dataclass(frozen=True, slots=True)
class Leaf:
    """Where a string sits, so detectors can use structure as context.

    ``key`` is the nearest object key (``{"password": "..."}`` makes the value a secret even
    without a known shape); ``prose`` marks user/assistant natural-language text, the only text
    that NER runs on (it is slow and noisy on code).
    """

    harness: str
    path: tuple = ()  # JSON path as a tuple; ``walk.format_path`` renders it
    key: str | None = None
    prose: bool = False


@dataclass(slots=True)
class Record:
    """One line of a JSONL file, one JSON document, or one converted row.

    ``value`` is the parsed JSON; for a JSONL line that is not JSON, ``value`` is the raw text
    (a ``str``) and ``raw_text`` is True so that the writer puts it back as plain text.
    ``raw`` keeps the original line so an unchanged line is written back byte for byte.
    """

    index: int  # 1-based line number, row number or document index
    value: Any
    raw: str | None = None
    raw_text: bool = False
    # JSON nested too deep to walk (``readers.base.MAX_DEPTH``), kept as its text: scanned as one
    # string, never parsed again.
    deep: bool = False


@dataclass(slots=True)
class SessionInfo:
    """What ``tracepub sessions`` lists and what selection filters on (no detection needed)."""

    harness: str
    id: str
    project: str | None = None  # the session's working folder
    start: str | None = None  # ISO-8601
    end: str | None = None
    messages: int = 0
    tool_calls: int = 0
    size: int = 0
    # The session this one belongs to (a subagent's parent), if the reader knows: selection,
    # denial and drops treat a session and its subagents as one.
    parent: str | None = None


@dataclass(slots=True)
class Unit:
    """One output file: a session as the harness stores it, or one converted to STS.

    Plain data (it crosses process boundaries): the reader named by ``harness`` knows how to
    read it (``Reader.records``) and describe it (``Reader.info``) without detection.
    """

    harness: str  # the reader's name, also the folder under dataset/
    source: Path
    relpath: str  # path under dataset/<harness>/, before its components are redacted
    kind: str = "jsonl"  # "jsonl", or "json" for a single document written back as one
    key: str | None = None  # which session inside a multi-session source (SQLite)
    # Every source file whose bytes define this unit, for incremental runs.
    deps: tuple[Path, ...] = field(default_factory=tuple)
    reader: str = ""  # class name of the reader (several readers may write one harness folder)


@dataclass(slots=True)
class Problem:
    """Bad input that did not stop the run: reported with file and line, then skipped or kept."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"
