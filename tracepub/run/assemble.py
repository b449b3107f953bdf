"""From unit results to what a reviewer and approve read: counts, findings.jsonl, the report,
the dataset card and the manifest.

Two commands assemble: a run (``run.pipeline``), from its workers' results, and a review drop
(``review.sessions``), from the results the last run recorded, without redacting again. They
must give the same bytes for the same files, so both go through these functions; a drift
between two copies once counted a shared store file once per session.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import orjson

from tracepub.outdir import OutDir
from tracepub.outputs import card, groups, report
from tracepub.outputs.files import append_file, atomic_writer, build_manifest, write_manifest
from tracepub.run.results import UnitResult
from tracepub.runtypes import RunSummary

Finding = dict[str, Any]


def tally(summary: RunSummary, results: Iterable[UnitResult], path_findings: list[Finding]) -> None:
    """Set the summary's counts from the files written (``ok`` results) and the findings in
    file and folder names. A store file (OpenCode/Hermes DB) holds many sessions and is read
    once: its bytes count once, by its (keyed) name, whichever of its sessions remain."""
    types: Counter[str] = Counter(f["type"] for f in path_findings)
    actions: Counter[str] = Counter(f["action"] for f in path_findings)
    blobs: Counter[str] = Counter()
    harnesses: Counter[str] = Counter()
    counted: set[str] = set()
    files = records = bytes_in = 0
    for r in results:
        if not r.ok:
            continue
        files += 1
        records += r.records
        if r.deps:
            fresh = [d for d in r.deps if d[0] not in counted]
            counted.update(d[0] for d in fresh)
            bytes_in += sum(max(0, d[1]) for d in fresh)
        else:  # a result recorded by an older version: no dependencies known
            bytes_in += r.bytes_in
        harnesses[r.harness] += 1
        types.update(r.types)
        actions.update(r.actions)
        blobs.update(r.blobs)
    summary.files = summary.sessions = files
    summary.records, summary.bytes_in = records, bytes_in
    summary.findings = dict(sorted(types.items()))
    summary.actions = dict(sorted(actions.items()))
    summary.blobs = dict(sorted(blobs.items()))
    summary.harnesses = dict(sorted(harnesses.items()))


def write_findings(od: OutDir, path_findings: list[Finding], dests: list[str]) -> None:
    """review/findings.jsonl: the findings in names, then every written file's part in dataset
    order. The parts are copied in the kernel (``append_file``): the file is as big as the input."""
    with atomic_writer(od.findings, "wb") as fh:
        for f in path_findings:
            fh.write(orjson.dumps(f) + b"\n")
        for dest in dests:
            part = od.part(dest)
            if part.exists():
                append_file(part, fh)


def aggregate(od: OutDir, path_findings: list[Finding], results: Iterable[UnitResult]) -> groups.Aggregate:
    """The report's fold of findings.jsonl, from the folds the workers made of their files (a
    reused or recorded file's part is folded here), in findings.jsonl's order."""
    agg = groups.Aggregate()
    for f in path_findings:
        groups.add_finding(agg, f, f["file"])
    for r in results:
        if r.ok:
            groups.merge(agg, r.fold if r.fold is not None else groups.fold_part(od.part(r.dest)))
    return agg


def manifest_extra(summary: RunSummary) -> dict[str, Any]:
    """What the manifest says besides the files (counts only: it is signed, and stays beside dataset/)."""
    return {
        "summary": {"files": summary.files, "findings": summary.findings, "blobs": summary.blobs},
        "selection": summary.selection,
    }


def finish(
    od: OutDir,
    summary: RunSummary,
    card_meta: dict[str, str],
    agg: groups.Aggregate,
    config_hash: str,
    run_id: str,
    written: dict[str, tuple[str, tuple[int, int, int, int]]] | None = None,
) -> str:
    """The card, the report and, last, the manifest of every file under dataset/ (the card is one
    of them). ``written``: digests of files as their writers wrote them (``compute_files``).
    Sets and returns the manifest's sha256. A valid sign-off survives identical bytes (``keep``)."""
    from tracepub.publish import keep  # here: it imports huggingface_hub (0.25 s), not needed before

    signed = keep.signed_state(od)
    card.write_card(od, summary, {**card_meta, **signed.meta} if signed else card_meta)
    report.write_report(od, summary, agg)
    manifest = build_manifest(od, config_hash, run_id, manifest_extra(summary), written)
    if signed is not None and keep.same_files(signed, manifest["files"]):
        summary.manifest_sha256 = signed.sha256  # the signed manifest stays, byte for byte
        return summary.manifest_sha256
    if signed is not None:  # something changed: the card is not approved any more
        card.write_card(od, summary, card_meta)
        manifest = build_manifest(od, config_hash, run_id, manifest_extra(summary), written)
    summary.manifest_sha256 = write_manifest(od, manifest)
    return summary.manifest_sha256
