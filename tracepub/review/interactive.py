"""``tracepub review DIR``: decide per value, then apply the decisions to dataset/ at once.

Decisions are appended to review/decisions.jsonl (who, when, what) and applied by redacting
again from the original sources with the options stored in review/run.json: dataset/ is
never patched in place, so what the dataset holds is always what one run of the pipeline
produces from sources + options + decisions. That run writes a new manifest (with a new
run id), which is why any earlier sign-off stops matching and approve must be run again.
"""

from __future__ import annotations

import getpass
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracepub.detect.base import BLOCK_CONFIDENCE
from tracepub.errors import Refusal
from tracepub.outdir import OutDir
from tracepub.outputs.groups import ValueGroup, aggregate, iter_findings
from tracepub.review import decisions, runstate
from tracepub.run.pipeline import run
from tracepub.runtypes import RunSummary

MIN_ADD = 3  # shorter values would redact ordinary words everywhere
# Secrets found with high confidence block a publish even when kept (see publish.rescan).


@dataclass
class Outcome:
    appended: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    applied: bool = False
    summary: RunSummary | None = None  # the re-run's
    signoff_invalidated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.appended,
            "warnings": self.warnings,
            "applied": self.applied,
            "manifest_sha256": self.summary.manifest_sha256 if self.summary is not None else None,
            "signoff_invalidated": self.signoff_invalidated,
            "summary": self.summary.to_json() if self.summary is not None else None,
        }


def default_reviewer() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def check_dir(out: Path) -> None:
    if not OutDir(out).run_file.exists():
        raise Refusal(
            f"{out} is not a tracepub output folder (no review/run.json): "
            f"run `tracepub redact SOURCES --out {out}` first"
        )


def load_groups(out: Path) -> dict[str, ValueGroup]:
    return aggregate(iter_findings(out)).groups


def resolve_ids(out: Path, ids: Iterable[str], groups: dict[str, ValueGroup] | None = None) -> dict[str, str]:
    """Map each ID (a value id, or a finding id) to its value id; refuse on an unknown one."""
    wanted = [i.strip() for i in ids]
    groups = groups if groups is not None else load_groups(out)
    kept_before = decisions.load(out).keep_ids
    result: dict[str, str] = {}
    pending = set()
    for i in wanted:
        if i in groups or i in kept_before:
            result[i] = i
        else:
            pending.add(i)
    if pending:
        for f in iter_findings(out):
            if f["id"] in pending:
                result[f["id"]] = f["value_id"]
                pending.discard(f["id"])
                if not pending:
                    break
    if pending:
        raise Refusal(
            f"no value or finding with id {', '.join(sorted(pending))} in {out}/review/findings.jsonl: "
            "copy an id from review/report.html"
        )
    return result


def blocks_publish(g: ValueGroup) -> bool:
    return g.type.startswith("secret.") and g.conf_max >= BLOCK_CONFIDENCE and not g.flagged


def validate_add(text: str) -> str:
    if len(text.strip()) < MIN_ADD:
        raise ValueError(
            f"--add needs at least {MIN_ADD} characters (a shorter value would match everywhere)"
        )
    return text.strip()


def validate_regex(rx: str) -> str:
    try:
        compiled = re.compile(rx)
    except re.error as exc:
        raise ValueError(f"--add-regex {rx!r} is not a valid regular expression: {exc}") from exc
    if compiled.fullmatch(""):
        raise ValueError(f"--add-regex {rx!r} matches the empty string")
    return rx


def decide(
    out: Path,
    reviewer: str | None,
    keep: Iterable[str] = (),
    redact: Iterable[str] = (),
    add: Iterable[str] = (),
    add_regex: Iterable[str] = (),
    extra: Iterable[tuple[str, dict[str, str]]] = (),
    apply_now: bool = True,
    progress: bool = False,
    secrets: Iterable[str] = (),
    secrets_files: Iterable[Path] = (),
) -> Outcome:
    """Record decisions, then (if they change anything) re-run the redaction from the sources.

    ``extra`` takes other decision actions as ``(action, fields)``, e.g.
    ``("drop_session", {"session": id})``."""
    check_dir(out)
    reviewer = reviewer or default_reviewer()
    keep, redact = list(keep), list(redact)
    adds = [validate_add(t) for t in add]
    regexes = [validate_regex(r) for r in add_regex]
    groups = load_groups(out) if (keep or redact) else {}
    ids = resolve_ids(out, [*keep, *redact], groups)
    outcome = Outcome()
    was_pending = pending(out)  # recorded by an interrupted interactive review, not applied yet
    before = decisions.load(out)
    for i in keep:
        vid = ids[i]
        g = groups.get(vid)
        if g is not None and g.type.startswith("custom."):
            outcome.warnings.append(
                f"{vid}: added by a reviewer, so it stays redacted (decisions to add win)"
            )
        elif g is not None and blocks_publish(g):
            outcome.warnings.append(
                f"{vid} ({g.type}, {g.value}) is a high-confidence secret: publish refuses while it is in clear"
            )
        elif g is not None and g.type.startswith("identity."):
            outcome.warnings.append(
                f"{vid} is your own {g.type.partition('.')[2]}: it will be published in clear"
            )
        outcome.appended.append(decisions.append(out, "keep", reviewer, value_id=vid))
    for i in redact:
        outcome.appended.append(decisions.append(out, "redact", reviewer, value_id=ids[i]))
    for t in adds:
        entry = decisions.append(out, "add", reviewer, text=t)
        outcome.appended.append({**entry, "text": _mask(t)})
    for r in regexes:
        outcome.appended.append(decisions.append(out, "add_regex", reviewer, regex=r))
    for action, fields in extra:
        outcome.appended.append(decisions.append(out, action, reviewer, **fields))
    if apply_now and (was_pending or _changed(before, decisions.load(out))):
        outcome.summary = apply(out, progress, secrets, secrets_files)
        outcome.applied = True
        outcome.signoff_invalidated = _voided(out)
    return outcome


def _voided(out: Path) -> bool:
    """A sign-off exists and no longer matches (a re-run that wrote the signed bytes keeps it)."""
    from tracepub.publish.keep import signed_state

    od = OutDir(out)
    return od.signoff.exists() and signed_state(od) is None


def _changed(a: decisions.Decisions, b: decisions.Decisions) -> bool:
    return (
        a.keep_ids != b.keep_ids
        or a.add_values != b.add_values
        or a.add_regexes != b.add_regexes
        or a.dropped_sessions != b.dropped_sessions
    )


def _mask(text: str) -> str:
    return text[:2] + "…" + text[-1:] if len(text) > 4 else text[:1] + "…"


def apply(
    out: Path, progress: bool = False, secrets: Iterable[str] = (), secrets_files: Iterable[Path] = ()
) -> RunSummary:
    """Re-run the redaction into ``out`` from the stored sources and options (decisions folded in).

    The exact values (identity, ``--secret``) are collected again, never read from a store;
    ``load_options`` refuses if one the last run used is missing, so a re-run never redacts less."""
    check_dir(out)
    opts = runstate.load_options(
        out, secrets=tuple(secrets), secrets_files=tuple(secrets_files), progress=progress
    )
    missing = [str(s) for s in opts.sources if not Path(s).exists()]
    if missing:
        raise Refusal(
            f"source {missing[0]} no longer exists, so dataset/ was left as it was; the decisions are "
            "saved in review/decisions.jsonl and apply when you run `tracepub redact` with the sources"
        )
    return run(opts)


# -- interactive ---------------------------------------------------------------------------------
Prompt = Callable[..., Any]


@dataclass
class Asked:
    """What an interactive review recorded, as it went: every decision is in decisions.jsonl the
    moment it is made (Ctrl-C loses nothing), dropped sessions are out of dataset/ already."""

    outcome: Outcome = field(default_factory=Outcome)
    dropped: list[Any] = field(default_factory=list)  # review.sessions.DropResult

    @property
    def redo(self) -> bool:
        """Whether dataset/ must be redacted again (value decisions; drops took effect at once)."""
        return any(e.get("action") in ("keep", "redact", "add", "add_regex") for e in self.outcome.appended)


def interactive(
    out: Path,
    reviewer: str | None,
    all_values: bool,
    echo: Callable[..., None],
    prompt: Prompt,
    style: Callable[..., str],
    asked: Asked | None = None,
) -> Asked:
    """Go through flagged values (or all with ``all_values``), recording each decision when it is
    made; a session id to drop is checked when typed (a mistyped one is said at once, and asked
    again, instead of failing the whole review at the end). ``asked`` collects what was recorded
    (the caller passes one to keep it when the prompt raises on Ctrl-C).

    The caller passes click's ``echo``/``prompt``/``style`` so this stays testable and free of
    terminal handling."""
    check_dir(out)
    asked = asked if asked is not None else Asked()
    reviewer = reviewer or default_reviewer()
    groups = sorted(load_groups(out).values(), key=lambda g: (not g.flagged, g.type, -g.count))
    todo = groups if all_values else [g for g in groups if g.flagged]
    kept_now = decisions.load(out).keep_ids

    def record(action: str, **fields: str) -> None:
        entry = decisions.append(out, action, reviewer, **fields)
        asked.outcome.appended.append({**entry, "text": _mask(entry["text"])} if "text" in entry else entry)

    def more(choice: str) -> bool:
        """a / x / d: add a value, a regex, drop a session (asked until valid or empty)."""
        if choice == "a":
            text = _ask(prompt, echo, "  value to always redact", validate_add)
            if text:
                record("add", text=text)
        elif choice == "x":
            rx = _ask(prompt, echo, "  regex to always redact", validate_regex)
            if rx:
                record("add_regex", regex=rx)
        elif choice == "d":
            _drop(out, reviewer, prompt, echo, asked)
        else:
            return False
        return True

    if not todo:
        echo("No flagged values" + ("" if all_values else " (use --all to go through every value)") + ".")
    choices = (
        "k keep in clear · r redact · s skip · a add a value · x add a regex · d drop a session · q quit"
    )
    for n, g in enumerate(todo, 1):
        echo("")
        echo(
            style(f"[{n}/{len(todo)}] {g.type}", bold=True)
            + f"  ({', '.join(d for d, _ in g.detectors.most_common(2))}, confidence {g.conf_max:.2f})"
        )
        state = "kept in clear" if g.value_id in kept_now else f"replaced by {g.placeholder}"
        echo(f"  value {style(g.value, fg='yellow', bold=True)}  ({state})  id {g.value_id}")
        echo(f"  {g.count} occurrence(s) in {g.n_files} file(s): {', '.join(g.files)}")
        for sn in g.snippets:
            echo(
                "  …"
                + sn["before"][-40:].replace("\n", " ")
                + style(g.value, reverse=True)
                + sn["after"][:40].replace("\n", " ")
                + "…"
            )
        while True:
            choice = prompt(choices, default="s", show_default=True).strip().lower()[:1]
            if choice == "k":
                record("keep", value_id=g.value_id)
                if blocks_publish(g):
                    echo(
                        style(
                            "  note: a high-confidence secret; publish refuses while it is in clear", fg="red"
                        )
                    )
            elif choice == "r":
                record("redact", value_id=g.value_id)
            elif more(choice):
                continue
            elif choice == "q":
                return asked
            elif choice != "s":
                echo("  " + choices)
                continue
            break
    if not todo:
        while more(
            prompt("a add a value · x add a regex · d drop a session · q quit", default="q")
            .strip()
            .lower()[:1]
        ):
            pass
    return asked


def _drop(out: Path, reviewer: str, prompt: Prompt, echo: Callable[..., None], asked: Asked) -> None:
    """Ask for a session id until it names one session of DIR (or nothing is typed), and drop it
    at once (its files leave dataset/; the decision is recorded)."""
    from tracepub.review.sessions import DropError, drop_session

    while True:
        sid = prompt(
            "  session id to leave out (see `tracepub sessions`)", default="", show_default=False
        ).strip()
        if not sid:
            return
        try:
            result = drop_session(out, sid, reviewer)
        except DropError as exc:
            echo(f"  {exc}")
            continue
        asked.dropped.append(result)
        echo("  " + result.message())
        return


def _ask(prompt: Prompt, echo: Callable[..., None], label: str, check: Callable[[str], str]) -> str | None:
    text = prompt(label, default="", show_default=False)
    if not text:
        return None
    try:
        return check(text)
    except ValueError as exc:
        echo(f"  {exc}")
        return None


def pending(out: Path) -> bool:
    """Decisions recorded since the last run (an interrupted interactive review): the next
    review applies them."""
    od = OutDir(out)
    try:
        return od.decisions.stat().st_mtime_ns > od.run_file.stat().st_mtime_ns
    except OSError:
        return False


def finish(
    out: Path,
    asked: Asked,
    progress: bool = False,
    secrets: Iterable[str] = (),
    secrets_files: Iterable[Path] = (),
) -> Outcome:
    """Apply what an interactive review recorded (and any earlier decisions not applied yet)."""
    outcome = asked.outcome
    if asked.redo or pending(out):
        outcome.summary = apply(out, progress, secrets, secrets_files)
        outcome.applied = True
        outcome.signoff_invalidated = _voided(out)
    return outcome


def describe(out: Path, o: Outcome) -> list[str]:
    """What happened, for the terminal."""
    if not o.appended:
        return ["No decision recorded; dataset/ is unchanged."]
    od = OutDir(out)
    lines = [f"Recorded {len(o.appended)} decision(s) in {od.decisions}."]
    lines += [f"warning: {w}" for w in o.warnings]
    if o.applied and o.summary is not None:
        lines.append(
            f"Applied: {od.dataset} was redacted again from the sources and {od.manifest} rewritten "
            f"(sha256 {o.summary.manifest_sha256[:16]}…)."
        )
        if od.signoff.exists() and not o.signoff_invalidated:
            lines.append("The sign-off still holds: dataset/ has exactly the bytes that were signed.")
        else:
            lines.append(
                "Any earlier sign-off no longer matches"
                + (" (signoff.json is now stale)" if o.signoff_invalidated else "")
                + f": run `tracepub approve {out} --reviewer NAME` before publishing."
            )
    elif o.appended:
        lines.append("Nothing changed in dataset/ (the decisions were already in effect).")
    return lines


def flagged_lines(out: Path) -> list[str]:
    """A plain list of flagged values (what a non-interactive ``review DIR`` prints)."""
    groups = sorted((g for g in load_groups(out).values() if g.flagged), key=lambda g: (g.type, -g.count))
    lines = [f"{len(groups)} flagged value(s) (already redacted; keep the false positives in clear):"]
    for g in groups:
        lines.append(f"  {g.value_id}  {g.type:<28} {g.value:<24} {g.count}x")
    lines.append(
        f"Decide with: tracepub review {out} --keep ID / --redact ID / --add TEXT / --add-regex RE"
        " (or run it on a terminal to go through them one by one)"
    )
    return lines
