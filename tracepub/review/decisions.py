"""Reviewer decisions (review/decisions.jsonl): appended, never rewritten, replayed on every run.

Each line: ``{"time", "reviewer", "action", ...}`` where action is one of

- ``keep`` / ``redact`` with ``value_id`` (a finding's keyed value id): leave a value in clear,
  or redact it again (the latest decision per value wins);
- ``add`` with ``text`` / ``add_regex`` with ``regex``: something the detectors missed, always
  redacted from now on;
- ``drop_session`` / ``restore_session`` with ``session`` (a session id): leave a whole session
  out of dataset/, or bring it back.

Because ``redact`` reads this file too, decisions survive a later ``tracepub redact`` into the
same DIR.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tracepub.outputs.files import REVIEW

FILE = "decisions.jsonl"
ACTIONS = {"keep", "redact", "add", "add_regex", "drop_session", "restore_session"}


@dataclass
class Decisions:
    keep_ids: set[str] = field(default_factory=set)
    add_values: list[str] = field(default_factory=list)
    add_regexes: list[str] = field(default_factory=list)
    dropped_sessions: set[str] = field(default_factory=set)


def path(out: Path) -> Path:
    return out / REVIEW / FILE


def read(out: Path) -> list[dict]:
    p = path(out)
    if not p.exists():
        return []
    with open(p, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def append(out: Path, action: str, reviewer: str | None = None, **fields: str) -> dict:
    """Append one decision (a single short write with O_APPEND, so it is never half-written)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown decision {action!r}")
    entry = {"time": datetime.now(UTC).isoformat(timespec="seconds"), "reviewer": reviewer, "action": action, **fields}
    p = path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return entry


def fold(entries: list[dict]) -> Decisions:
    """Replay decisions in order; the latest decision about a value or session wins."""
    d = Decisions()
    for e in entries:
        action = e.get("action")
        if action == "keep":
            d.keep_ids.add(e["value_id"])
        elif action == "redact":
            d.keep_ids.discard(e["value_id"])
        elif action == "add" and e.get("text"):
            if e["text"] not in d.add_values:
                d.add_values.append(e["text"])
        elif action == "add_regex" and e.get("regex"):
            if e["regex"] not in d.add_regexes:
                d.add_regexes.append(e["regex"])
        elif action == "drop_session":
            d.dropped_sessions.add(e["session"])
        elif action == "restore_session":
            d.dropped_sessions.discard(e["session"])
    return d


def load(out: Path) -> Decisions:
    return fold(read(out))
