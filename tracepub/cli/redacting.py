"""The commands that read the sources: sessions (list them) and redact (write DIR)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from tracepub.cli.common import (
    Finished,
    Refused,
    echo_json,
    make_selection,
    refusals,
    selection_options,
    writing,
)
from tracepub.shown import echo

if TYPE_CHECKING:
    from collections.abc import Callable

    from tracepub.runtypes import RunSummary


@click.command()
@click.argument("sources", nargs=-1, type=click.Path(path_type=Path))
@selection_options
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON (for scripts).")
def sessions(
    sources: tuple[Path, ...],
    projects: tuple[str, ...],
    since: str | None,
    until: str | None,
    harnesses: tuple[str, ...],
    session_ids: tuple[str, ...],
    exclude_ids: tuple[str, ...],
    as_json: bool,
) -> None:
    """List discovered sessions: harness, id, project folder, start and end, messages, tool calls, size.

    Uses the same discovery as redact and reads each session once; no detection runs. Every
    selection option of redact works here too, so you can check a selection before redacting.
    Times are shown in local time (--json gives them as recorded).

    \b
    Examples:
      tracepub sessions
      tracepub sessions --project myapp --since 2026-03-01
      tracepub sessions ~/.codex/sessions --json
    """
    from tracepub.review.sessions import format_table, list_sessions, to_json
    from tracepub.selection.select import SelectionError

    sel = make_selection(projects, since, until, harnesses, session_ids, exclude_ids)
    try:
        found, disc = list_sessions(list(sources), sel)
    except SelectionError as exc:
        raise Refused(str(exc)) from exc
    if as_json:
        echo_json(to_json(found, disc))
        return
    for line in format_table(found):
        echo(line)
    files = sum(len(s.units) for s in found)
    echo(f"{len(found)} session(s), {files} file(s).", err=True)
    if disc.problems:
        echo(f"Problems: {len(disc.problems)}", err=True)
        for p in disc.problems[:20]:
            echo(f"  {p}", err=True)
    if sel.no_project:
        from tracepub.terminal import no_project_warning

        echo(no_project_warning(sel.no_project), err=True)


@click.command()  # URLs (s3://...: --engine datatrove stages them) are kept as written, other sources are paths
@click.argument("sources", nargs=-1, callback=lambda c, p, v: tuple(s if "://" in s else Path(s) for s in v))
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="Output folder (DIR).")
@click.option(
    "--jobs", "-j", default=0, type=click.IntRange(0, 256), help="Worker processes (default: one per core)."
)
@click.option("--secret", multiple=True, help="A value to always redact (repeatable).")
@click.option(
    "--secrets-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A file of values to always redact, one per line (KEY=value lines take the value).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="tracepub.toml to use (default: ./tracepub.toml if present).",
)
@click.option("--no-ner", is_flag=True, help="Do not run NER for person names on prose.")
@click.option(
    "--keep-blobs", is_flag=True, help="Keep base64 images and encrypted blobs instead of removing them."
)
@click.option("--license", "license_", default=None, help="License for the dataset card (e.g. cc-by-4.0).")
@click.option("--title", default=None, help="Title for the dataset card.")
@click.option("--strict", is_flag=True, help="Exit with status 1 if any problem was reported.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
@click.option(
    "--verbose", "-v", is_flag=True, help="Also print the count of every type found (the report has it too)."
)
@selection_options
@click.option(
    "--deny",
    multiple=True,
    metavar="PATTERN",
    help="Leave out every session that mentions PATTERN anywhere (case-insensitive; "
    "re:REGEX for a regex). Repeatable; adds to `deny` in tracepub.toml.",
)
@click.option(
    "--engine",
    type=click.Choice(["local", "datatrove"]),
    default="local",
    help="datatrove: run on datatrove's executors (local, Slurm, Ray; sources may be URLs), same output.",
)
@click.option(
    "--engine-opt",
    "engine_opts",
    multiple=True,
    metavar="KEY=VALUE",
    help="For --engine datatrove: executor=local|slurm|ray, tasks=N, workers=N, work=URL, or an option "
    "of the datatrove executor (README, 'Distributed runs').",
)
def redact(
    sources: tuple[Path, ...],
    out: Path,
    jobs: int,
    secret: tuple[str, ...],
    secrets_file: Path | None,
    config_path: Path | None,
    no_ner: bool,
    keep_blobs: bool,
    license_: str | None,
    title: str | None,
    strict: bool,
    as_json: bool,
    verbose: bool = False,
    projects: tuple[str, ...] = (),
    since: str | None = None,
    until: str | None = None,
    harnesses: tuple[str, ...] = (),
    session_ids: tuple[str, ...] = (),
    exclude_ids: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
    engine: str = "local",
    engine_opts: tuple[str, ...] = (),
) -> None:
    """Find and redact secrets and personal data; write DIR/dataset, DIR/review, DIR/manifest.json.

    SOURCES are session files or folders (searched recursively, hidden folders included); with
    none, every harness's default location under $HOME is searched. Sources are never modified.

    \b
    Examples:
      tracepub redact --out out/
      tracepub redact ~/.claude/projects/-home-me-src-app --out out/
      tracepub redact sample_traces --out out/ --secret my-internal-token --json
      tracepub redact --project myapp --since 2026-03-01 --deny "Client Corp" --out out/
      tracepub redact s3://bucket/traces --out out/ --engine datatrove --engine-opt tasks=64
    """
    from tracepub.run import pipeline
    from tracepub.runtypes import RunOptions
    from tracepub.selection.deny import parse_rules
    from tracepub.selection.select import SelectionError
    from tracepub.sources.settings import detect_config

    sel = make_selection(projects, since, until, harnesses, session_ids, exclude_ids)
    run: Callable[[RunOptions], RunSummary] = pipeline.run
    if engine == "datatrove" or engine_opts or any(isinstance(s, str) for s in sources):
        from tracepub.dist.engine import runner

        try:
            run = runner(engine, engine_opts)  # tracepub.dist: the same pipeline on datatrove
        except ValueError as exc:
            raise click.UsageError(str(exc)) from exc
    try:
        cli_deny = parse_rules(deny, "--deny")
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        dc, harvested, cfg = detect_config(secret, secrets_file, config_path, not no_ner)
    except ValueError as exc:  # tracepub.toml
        raise Refused(str(exc)) from exc
    try:
        deny_rules = parse_rules(cfg.deny, str(cfg.path or "tracepub.toml")) + cli_deny
    except ValueError as exc:
        raise Refused(str(exc)) from exc
    opts = RunOptions(
        out=out,
        sources=list(sources),
        detect=dc,
        jobs=jobs,
        remove_blobs=not keep_blobs,
        progress=not as_json,
        card={k: v for k, v in (("license", license_), ("title", title)) if v},
        selection=sel if sel.active else None,
        deny=deny_rules,
        identity_summary=harvested.summary(),
    )
    try:
        with refusals(), writing(out, create=True):
            summary = run(opts)
    except SelectionError as exc:
        raise Refused(str(exc)) from exc
    Finished.synced = True  # no teardown needed (``cli.main``)
    if as_json:
        echo_json(summary.to_json())
    else:
        _print_summary(summary, verbose)
    if strict and summary.problems:
        raise Refused(f"{len(summary.problems)} problem(s) reported and --strict was given")


def _print_summary(s: RunSummary, verbose: bool = False) -> None:
    """What needs the user first (flagged values, problems, skipped files, the next command)."""
    from tracepub.terminal import redact_summary

    for line in redact_summary(s, verbose):
        echo(line, err=True)
