"""What ``redact`` and ``publish`` print on the terminal, as lines (so tests read them as text).

``redact``'s summary leads with what needs the user: values flagged for a decision, problems
while reading, skipped files, then the next command. The table of every type (~90 lines on a
real corpus, where the 3 values needing a decision were lost) is behind ``--verbose``; the
report has it too. ``publish`` says what was sent, or that nothing changed (an identical
dataset makes no commit: printing "Published" then said the opposite of what happened), or
the pull request it opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from tracepub.outdir import OutDir

if TYPE_CHECKING:
    from tracepub.publish.gate import Result
    from tracepub.publish.signoff import Plan
    from tracepub.runtypes import RunSummary

SHOWN = 20  # problems and denied sessions listed before "... and N more"


def flagged_values(out: Path | OutDir) -> int:
    """Distinct values flagged for review in findings.jsonl (only lines that say so are parsed)."""
    path = OutDir(out).findings
    ids: set[str] = set()
    if not path.exists():
        return 0
    with open(path, "rb") as fh:
        for line in fh:
            if b'"action":"review"' in line:
                f = orjson.loads(line)
                ids.add(f.get("value_id") or f["id"])
    return len(ids)


def _listed(head: str, items: list[str]) -> list[str]:
    lines = [head] + [f"    {p}" for p in items[:SHOWN]]
    if len(items) > SHOWN:
        lines.append(f"    … and {len(items) - SHOWN} more (see the report)")
    return lines


def redact_summary(s: RunSummary, verbose: bool = False) -> list[str]:
    out = OutDir(s.out)
    flagged = flagged_values(out) if s.actions.get("review") else 0
    total = sum(s.findings.values())
    harnesses = ", ".join(f"{h} {n}" for h, n in s.harnesses.items())
    actions = ", ".join(f"{n} {a}" for a, n in s.actions.items())
    lines = [
        f"Read {s.files} session file(s) ({harnesses or 'none'}), {s.records} records, "
        f"{s.bytes_in / 1e6:.1f} MB: {total} finding(s)" + (f" ({actions})." if actions else ".")
    ]
    needs: list[str] = []
    if flagged:
        needs.append(
            f"  {flagged} value(s) flagged for review: already redacted, but a detector was unsure; "
            f"keep the false positives in clear with `tracepub review {s.out}`"
        )
    if s.problems:
        needs += _listed(
            f"  {len(s.problems)} problem(s) while reading (those lines or files are not in dataset/):",
            s.problems,
        )
    needs += _skipped(s.skipped)
    if s.ner is None:
        needs.append(
            "  NER for person names was off (no spaCy model installed, or --no-ner): read prose for "
            "names yourself"
        )
    if needs:
        lines += ["Needs you:", *needs]
    lines += _selection(s)
    if s.duplicates:
        lines.append(
            f"Left out {len(s.duplicates)} copy(ies) of sessions read from their preferred store "
            "(OpenCode/Hermes DB; listed in review/run.json)."
        )
    if s.blobs:
        lines.append("Removed blobs: " + ", ".join(f"{k} {v}" for k, v in s.blobs.items()))
    if verbose:
        lines.append("Findings by type:")
        lines += [f"  {t}: {n}" for t, n in s.findings.items()]
    lines.append(
        f"Report: {out.report}" + ("" if verbose else "  (counts by type: --verbose, or the report)")
    )
    if flagged:
        lines.append(f"Next: tracepub review {s.out}")
    else:
        lines.append(f"Next: read the report, then tracepub approve {s.out} --reviewer NAME --license ID")
    return lines


def _skipped(skipped: list[str]) -> list[str]:
    """Files of unknown format are counted (the report lists them); each symbolic link not
    followed is named: a session may be behind it (``sources.discover.SYMLINK``)."""
    from tracepub.sources.discover import SYMLINK

    links = [p.removesuffix(f": {SYMLINK}") for p in skipped if p.endswith(f": {SYMLINK}")]
    lines = []
    if len(skipped) > len(links):
        lines.append(
            f"  {len(skipped) - len(links)} file(s) of unknown format skipped (listed in the report)"
        )
    if links:
        lines += _listed(
            f"  {len(links)} symbolic link(s) not followed (they can lead out of the source tree; "
            "give the target as a SOURCE to read it):",
            links,
        )
    return lines


def _selection(s: RunSummary) -> list[str]:
    lines: list[str] = []
    counts = (s.selection or {}).get("counts", {})
    if counts.get("excluded"):
        lines.append(f"Not selected: {counts['excluded']} of {counts['discovered']} session(s).")
    if counts.get("no_project"):
        lines.append(no_project_warning(counts["no_project"]))
    if s.dropped:
        lines += _listed(
            f"Dropped in review (left out): {len(s.dropped)} session(s)", [d["session"] for d in s.dropped]
        )
    if s.denied:
        lines += _listed(
            f"Denied (left out of dataset/): {len(s.denied)} session(s)",
            [
                f"{d['session']}  {d['file']}: rule {d['rule']!r} ({d['origin']}) matched "
                f"{d['masked']!r} at {d['where']}"
                for d in s.denied
            ],
        )
    return lines


def no_project_warning(n: int) -> str:
    return (
        f"Warning: {n} session(s) with no known project folder were left out by --project (they may belong "
        "to it: `tracepub sessions` lists them with project -; select them with --session ID)"
    )


def publish_lines(result: Result) -> list[str]:
    repo = result.repo
    where = f"a pull request to {repo}" if result.pr else f"dataset {repo}"
    visibility = "private" if result.private else "public"
    if result.nothing_changed:
        return [
            f"Nothing changed: the {len(result.files)} signed file(s) are already in {repo} with exactly these "
            "bytes; no commit was made.",
            *(f"Note: {n}" for n in result.notes),
        ]
    verb = "Would send" if result.dry_run else "Sent"
    lines = [f"{verb} {len(result.files)} file(s), {result.bytes:,} bytes, as {where} ({visibility}):"]
    lines += [f"  {f['size']:>12,}  {f['sha256'][:12]}  {f['path']}" for f in result.files]
    lines.append(f"Commit message: {result.commit_message}")
    if result.unchanged and not result.dry_run:
        lines.append(f"Note: {result.unchanged} of them were already there with these bytes")
    lines += [f"Note: {n}" for n in result.notes]
    if result.pr_url:
        lines.append(f"Pull request: {result.pr_url}")
    elif result.url:
        lines.append(f"Published: {result.url}" + (f" (commit {result.commit})" if result.commit else ""))
    return lines


def plan_lines(dir: Path, plan: Plan) -> list[str]:
    """What approve is about to sign (the files, sessions, findings, the card's license and title)."""
    lines = [f"About to sign {len(plan.files)} file(s), {plan.bytes:,} bytes, in {dir / 'dataset'}:"]
    lines += [f"  {meta['size']:>12,}  {name}" for name, meta in sorted(plan.files.items())[:40]]
    if len(plan.files) > 40:
        lines.append(f"  … and {len(plan.files) - 40} more (see manifest.json)")
    lines.append(
        f"Sessions: {plan.sessions} (" + ", ".join(f"{h} {n}" for h, n in plan.harnesses.items()) + ")"
    )
    lines.append("Findings by action: " + (", ".join(f"{a} {n}" for a, n in plan.actions.items()) or "none"))
    if plan.flagged_values:
        lines.append(f"{plan.flagged_values} flagged value(s) were not decided on; they stay redacted.")
    if plan.problems:
        lines.append(f"{plan.problems} problem(s) were reported while reading (see the report).")
    title = f", title {plan.card['title']!r}" if plan.card["title"] else ""
    lines.append(f"Card: license {plan.card['license'] or '(none)'}{title}")
    return lines
