"""Reviewer decisions (review/decisions.jsonl): appended, never rewritten, replayed on every run.

Each line: ``{"time", "reviewer", "action", ...}`` where action is one of

- ``keep`` / ``redact`` with ``value_id`` (a finding's keyed value id): leave a value in clear,
  or redact it again (the latest decision per value wins);
- ``add`` with ``text`` / ``add_regex`` with ``regex``: something the detectors missed, always
  redacted from now on;
- ``drop_session`` / ``restore_session`` with ``session`` (a session id): leave a whole session
  out of dataset/, or bring it back.

Because ``redact`` reads this file too, decisions survive a later ``tracepub redact`` into the
same DIR. It is read and appended with ``jsonlines`` (a bad line is reported with its number);
the files as big as the input (findings) are read with orjson instead, for speed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonlines

from tracepub.outdir import OutDir

# Entries are a few hundred bytes: one entry is one write of this buffer (never half-written).
_APPEND_BUFFER = 1 << 20
ACTIONS = {"keep", "redact", "add", "add_regex", "drop_session", "restore_session"}


@dataclass
class Decisions:
    keep_ids: set[str] = field(default_factory=set)
    add_values: list[str] = field(default_factory=list)
    add_regexes: list[str] = field(default_factory=list)
    dropped_sessions: set[str] = field(default_factory=set)


def read(out: Path | OutDir) -> list[dict[str, Any]]:
    p = OutDir(out).decisions
    if not p.exists():
        return []
    with jsonlines.open(p) as reader:
        return list(reader.iter(type=dict, skip_empty=True))


def append(out: Path | OutDir, action: str, reviewer: str | None = None, **fields: str) -> dict[str, Any]:
    """Append one decision: a single write with O_APPEND (the line is buffered whole), so it is
    never half-written; the file is created 0600 (it may hold values to redact)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown decision {action!r}")
    entry = {
        "time": datetime.now(UTC).isoformat(timespec="seconds"),
        "reviewer": reviewer,
        "action": action,
        **fields,
    }
    p = OutDir(out).decisions
    p.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "wb", _APPEND_BUFFER) as fh, jsonlines.Writer(fh) as writer:
        writer.write(entry)
    return entry


def fold(entries: list[dict[str, Any]]) -> Decisions:
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


def load(out: Path | OutDir) -> Decisions:
    return fold(read(out))
