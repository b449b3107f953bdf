"""One unit's result (``UnitResult``), and the stored forms it is read back from.

A worker returns one per unit; a reused unit's is read back from review/state.json, and a
review drop reads the remaining units' back from review/run.json. All three are assembled by
the same code (``run.assemble``), so they carry the same fields, kept here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from tracepub.model import Problem, Unit
from tracepub.selection.select import Plan, unit_key

if TYPE_CHECKING:
    from tracepub.detect.found import Found
    from tracepub.outputs.groups import FileFold

# [keyed name of a source file, its size, its mtime in ns] (``incremental.fingerprint``): the
# name is a keyed hash (review/ must not spell paths, which hold the user's name), and it is
# what tells that two units read one store file (its bytes count once).
Dep = list[Any]
# (sha256, ``outputs.files.file_stamp``) of an output file as its writer wrote it.
Written = tuple[str, tuple[int, int, int, int]]


@dataclass
class UnitResult:
    harness: str
    source: str
    dest: str  # path under dataset/
    records: int = 0
    bytes_in: int = 0
    types: dict[str, int] = field(default_factory=dict)
    actions: dict[str, int] = field(default_factory=dict)
    blobs: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    ok: bool = True
    denied: dict[str, str] | None = None  # deny.Hit.to_json() when a deny rule matched: nothing written
    # For incremental runs (review/state.json), the count of bytes read, and the speed figures.
    deps: list[Dep] = field(default_factory=list)
    sha256: str = ""
    perf: dict[str, int] = field(default_factory=dict)
    reused: bool = False
    fold: FileFold | None = None  # the report's fold of the findings written (None: read the part back)
    # The output file's digest as the worker wrote it: the manifest uses it while the file is
    # still that one (None: the manifest hashes the file).
    written: Written | None = None
    # The values redacted here that are redacted everywhere (detect.found): value -> (type, action),
    # and the same sealed for the next run's reuse (incremental.seal).
    found: Found = field(default_factory=dict)
    sealed: str | None = None
    # What the first pass noted of each record for the second's copies (``run.splice.Trail``;
    # None: not noted, so a redo reads every record again). Not stored.
    trail: dict[int, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """What review/state.json keeps to reuse the unit. ``found``: the values it redacted
        that are redacted everywhere, sealed (incremental.seal): a reused unit's values are
        still looked for in every other file."""
        return {
            "harness": self.harness,
            "records": self.records,
            "bytes_in": self.bytes_in,
            "types": self.types,
            "actions": self.actions,
            "blobs": self.blobs,
            "problems": [asdict(p) for p in self.problems],
            "found": self.sealed if self.found else None,
        }

    @classmethod
    def reused_from(cls, data: dict[str, Any], dest: str, deps: list[Dep]) -> UnitResult:
        """A unit reused as the last run left it (``to_json``'s form)."""
        r = cls(
            data["harness"],
            "",
            dest,
            records=data["records"],
            bytes_in=data["bytes_in"],
            types=data["types"],
            actions=data["actions"],
            blobs=data["blobs"],
            problems=[Problem(**p) for p in data["problems"]],
            reused=True,
            deps=deps,
        )
        r.perf = {"lines_reused": r.records}
        return r

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> UnitResult:
        """A unit as review/run.json lists it (``unit_records``): what a review drop reassembles."""
        return cls(
            record["harness"],
            record.get("source", ""),
            record["dest"],
            records=record["records"],
            bytes_in=record["bytes_in"],
            types=record["types"],
            actions=record["actions"],
            blobs=record["blobs"],
            deps=[list(d) for d in record.get("deps", [])],
        )


def unit_records(plan: Plan, units: list[Unit], results: list[UnitResult]) -> list[dict[str, Any]]:
    """The units of review/run.json: what ``drop_session`` needs later to take a session out of
    DIR and assemble the rest without a re-run (``from_record``). ``deps`` without mtimes:
    names and sizes are what counting needs."""
    out = []
    for n, (u, r) in enumerate(zip(units, results, strict=True)):
        if not r.ok:
            continue
        out.append(
            {
                "n": n,
                "dest": r.dest,
                "session": plan.session_of.get(unit_key(u)),
                "harness": u.harness,
                "source": str(u.source),
                "relpath": u.relpath,
                "kind": u.kind,
                "key": u.key,
                "reader": u.reader,
                "records": r.records,
                "bytes_in": r.bytes_in,
                "types": r.types,
                "actions": r.actions,
                "blobs": r.blobs,
                "deps": [d[:2] for d in r.deps],
            }
        )
    return out


FAILED = "failed: "  # how a worker's problem for a unit it could not finish starts (``run.workers``)


def unit_problems(units: list[Unit], results: list[UnitResult], labels: dict[str, str]) -> list[Problem]:
    """Every unit's problems, in unit order; the sessions of one store that failed alike (a
    corrupt or locked SQLite file fails every session read from it) make one problem that
    names the store, the error and the sessions skipped, instead of one identical line per
    session that names none. ``labels``: reader class name -> its label ("Hermes (state.db)")."""
    out: list[Problem | tuple[str, str]] = []
    skipped: dict[tuple[str, str], list[Unit]] = {}
    for u, r in zip(units, results, strict=True):
        for p in r.problems:
            if u.key is None or r.ok or p.line is not None or not p.message.startswith(FAILED):
                out.append(p)
                continue
            k = (p.file, p.message)
            if k not in skipped:
                skipped[k] = []
                out.append(k)
            skipped[k].append(u)
    merged: list[Problem] = []
    for item in out:
        if isinstance(item, Problem):
            merged.append(item)
            continue
        file, message = item
        group = skipped[item]
        ids = [str(u.key) for u in group]
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        label = labels.get(group[0].reader, group[0].harness)
        merged.append(
            Problem(
                file,
                None,
                f"cannot read as {label}: {message[len(FAILED) :]}; skipped {len(ids)} session(s): {shown}",
            )
        )
    return merged
