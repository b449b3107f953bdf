"""Small units read ahead in groups, so that NER reads the prose of many sessions in one call.

A spaCy call costs about a millisecond whatever it reads (the model's layers run once per
batch): the worker hands NER the prose of a batch of records at once (``Engine.prefetch``), but
most sessions of a realistic mix are smaller than one batch, so each paid for its own call
(the 20 MB mix: 123 calls of 1-3 windows each; the same 334 windows in one call took 0.52 s
instead of 0.67 s). A worker is therefore given the small units of a run in groups
(``groups``) and reads each group's units before redacting any (``read``: the records as the
worker would read them, with the source's digest), so one call reads the prose of them all.
A window's persons depend on nothing else (``prose_names._RESULTS``), so the output is the same.
Memory stays bounded as the worker's batch bounds it: a group holds at most ``GROUP_BYTES`` of
source.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tracepub.readers import reader_for_unit
from tracepub.readers.base import records_hashing
from tracepub.redact.redactor import prose_of
from tracepub.run import incremental

if TYPE_CHECKING:
    from tracepub.model import Record
    from tracepub.run.workers import Task

GROUP_BYTES = 4 * 1024 * 1024  # the source bytes of a group's units (the worker's BATCH_BYTES)
GROUP_UNITS = 64  # and their number
ALONE_BYTES = 1024 * 1024  # a unit this large is redacted alone: its own batches fill NER's calls


@dataclass
class Ahead:
    """A unit read before it is redacted: what ``workers._process_unit`` would have read."""

    deps: list[Any]  # ``incremental.fingerprint``, taken before reading
    digest: Any  # the source's sha256 as read (``records_hashing``), or None for a store
    sha256: str  # ``incremental.content_sha256`` of a store unit ("" for a file)
    records: list[Record]
    prose: list[str]  # what NER may read in it


def groups(tasks: list[Task], order: list[int]) -> list[list[int]]:
    """``order`` (indexes of ``tasks``) cut into groups: runs of small units, every other alone."""
    out: list[list[int]] = []
    group: list[int] = []
    size = 0
    for n in order:
        t = tasks[n]
        if t.size >= ALONE_BYTES or t.trail is not None:
            out.append([n])
            continue
        if group and (size + t.size > GROUP_BYTES or len(group) >= GROUP_UNITS):
            out.append(group)
            group, size = [], 0
        group.append(n)
        size += t.size
    if group:
        out.append(group)
    return out


def hashed_records(reader: Any, unit: Any, problems: list) -> tuple[Any, str, Iterator[Record] | None]:
    """A unit's records with the digest of its source taken as they are read (no second read to
    hash it): ``(digest, "", records)``; a store, which has no such stream: ``(None, its
    content_sha256, None)``, its records then read with ``reader.records``."""
    digest = hashlib.sha256()
    records = records_hashing(reader, unit, problems, digest)
    if records is None:
        return None, incremental.content_sha256(unit), None
    return digest, "", records


def read(task: Task, value_id) -> Ahead | None:
    """``task``'s unit read whole; None where reading it reported a problem or failed (the
    worker then reads it itself, so its problems come as they do, in order)."""
    unit = task.unit
    reader = reader_for_unit(unit)
    deps = incremental.fingerprint(unit, value_id)
    problems: list = []
    try:
        digest, sha256, records = hashed_records(reader, unit, problems)
        got = list(records if records is not None else reader.records(unit, problems))
    except Exception:
        return None
    if problems:
        return None
    is_prose, listed = reader.is_prose, getattr(reader, "prose_strings", None)
    prose = [s for rec in got if not rec.raw_text for s in prose_of(rec.value, is_prose, listed)]
    return Ahead(deps, digest, sha256, got, prose)
