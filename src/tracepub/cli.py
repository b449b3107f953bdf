"""The command line (DESIGN.md's contract): redact, review, approve, publish.

Exit status: 0 on success, 1 on a refused or failed action (one line saying why and what to
do), 2 on bad usage (click's own). ``--json`` prints a machine-readable summary on stdout.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from tracepub import __version__


class Refused(click.ClickException):
    """A refused or failed action: exit status 1 with one clear line."""

    exit_code = 1


def _echo_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tracepub")
def cli() -> None:
    """Share coding-agent session traces safely.

    \b
    Typical flow:
      tracepub redact --out out/                 # every harness under $HOME
      tracepub review out/                       # decide on flagged findings
      tracepub approve out/ --reviewer "Jane"    # sign off the exact bytes
      tracepub publish out/ --repo me/traces     # verify, re-scan, upload (private)
    """


def detect_config(secret: tuple[str, ...], secrets_file: Path | None, config_path: Path | None, ner: bool,
                  env: dict[str, str] | None = None, home: Path | None = None):
    """Assemble what detection needs: harvested identity, --secret values, tracepub.toml."""
    from tracepub import config as config_mod
    from tracepub.detect import DetectConfig
    from tracepub.identity import harvest

    try:
        cfg = config_mod.load(config_path)
    except ValueError as exc:
        raise Refused(str(exc)) from exc
    h = harvest(env, home)
    for value in secret:
        h.add(value, "secret.user_supplied", "--secret")
    if secrets_file is not None:
        for line in secrets_file.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                h.add(line.split("=", 1)[1].strip() if "=" in line and " " not in line.split("=", 1)[0]
                      else line, "secret.user_supplied", str(secrets_file))
    for value in cfg.secrets:
        h.add(value, "secret.user_supplied", "tracepub.toml")
    dc = DetectConfig(
        identity=dict(h.values),
        extra_rules=[str(cfg.path)] if cfg.has_rules and cfg.path else [],
        add_regexes=list(cfg.redact_regex),
        allow_values=list(cfg.allow),
        allow_regexes=list(cfg.allow_regex),
        ner=ner,
    )
    return dc, h, cfg


def selection_options(f):
    """--project, --since, --until, --harness, --session, --exclude-session (redact and sessions)."""
    opts = [
        click.option("--project", "projects", multiple=True, metavar="GLOB",
                     help="Only sessions whose working folder matches (repeatable). A bare name matches the "
                          "folder's last component; a path (~ allowed) matches that folder and its subfolders."),
        click.option("--since", metavar="DATE", help="Only sessions that started on or after DATE "
                     "(YYYY-MM-DD or YYYY-MM-DDTHH:MM, local time)."),
        click.option("--until", metavar="DATE", help="Only sessions that ended on or before DATE (a date "
                     "alone includes that whole day)."),
        click.option("--harness", "harnesses", multiple=True, metavar="NAME",
                     help="Only this harness, e.g. claude_code or codex (repeatable)."),
        click.option("--session", "session_ids", multiple=True, metavar="ID",
                     help="Only this session: full id or a unique prefix (repeatable)."),
        click.option("--exclude-session", "exclude_ids", multiple=True, metavar="ID",
                     help="Leave this session out: full id or a unique prefix (repeatable)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def make_selection(projects, since, until, harnesses, session_ids, exclude_ids):
    from tracepub.selection import Selection, SelectionError

    try:
        return Selection(list(projects), since, until, list(harnesses), list(session_ids), list(exclude_ids))
    except SelectionError as exc:
        raise click.UsageError(str(exc)) from exc


@cli.command()
@click.argument("sources", nargs=-1, type=click.Path(path_type=Path))
@selection_options
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON (for scripts).")
def sessions(sources: tuple[Path, ...], projects, since, until, harnesses, session_ids, exclude_ids,
             as_json: bool) -> None:
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
    from tracepub.selection import SelectionError
    from tracepub.sessions import format_table, list_sessions, to_json

    sel = make_selection(projects, since, until, harnesses, session_ids, exclude_ids)
    try:
        found, disc = list_sessions(list(sources), sel)
    except SelectionError as exc:
        raise Refused(str(exc)) from exc
    if as_json:
        _echo_json(to_json(found, disc))
        return
    for line in format_table(found):
        click.echo(line)
    files = sum(len(s.units) for s in found)
    click.echo(f"{len(found)} session(s), {files} file(s).", err=True)
    if disc.problems:
        click.echo(f"Problems: {len(disc.problems)}", err=True)
        for p in disc.problems[:20]:
            click.echo(f"  {p}", err=True)


@cli.command()
@click.argument("sources", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="Output folder (DIR).")
@click.option("--jobs", "-j", default=0, type=click.IntRange(0, 256), help="Worker processes (default: one per core).")
@click.option("--secret", multiple=True, help="A value to always redact (repeatable).")
@click.option("--secrets-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A file of values to always redact, one per line (KEY=value lines take the value).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="tracepub.toml to use (default: ./tracepub.toml if present).")
@click.option("--no-ner", is_flag=True, help="Do not run NER for person names on prose.")
@click.option("--keep-blobs", is_flag=True, help="Keep base64 images and encrypted blobs instead of removing them.")
@click.option("--license", "license_", default=None, help="License for the dataset card (e.g. cc-by-4.0).")
@click.option("--title", default=None, help="Title for the dataset card.")
@click.option("--strict", is_flag=True, help="Exit with status 1 if any problem was reported.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
@selection_options
@click.option("--deny", multiple=True, metavar="PATTERN",
              help="Leave out every session that mentions PATTERN anywhere (case-insensitive; "
                   "re:REGEX for a regex). Repeatable; adds to `deny` in tracepub.toml.")
def redact(sources: tuple[Path, ...], out: Path, jobs: int, secret: tuple[str, ...], secrets_file: Path | None,
           config_path: Path | None, no_ner: bool, keep_blobs: bool, license_: str | None, title: str | None,
           strict: bool, as_json: bool, projects=(), since=None, until=None, harnesses=(), session_ids=(),
           exclude_ids=(), deny=()) -> None:
    """Find and redact secrets and personal data; write DIR/dataset, DIR/review, DIR/manifest.json.

    SOURCES are session files or folders (searched recursively, hidden folders included); with
    none, every harness's default location under $HOME is searched. Sources are never modified.

    \b
    Examples:
      tracepub redact --out out/
      tracepub redact ~/.claude/projects/-home-me-src-app --out out/
      tracepub redact sample_traces --out out/ --secret my-internal-token --json
      tracepub redact --project myapp --since 2026-03-01 --deny "Client Corp" --out out/
    """
    from tracepub.deny import parse_rules
    from tracepub.pipeline import RunOptions, run
    from tracepub.selection import SelectionError

    sel = make_selection(projects, since, until, harnesses, session_ids, exclude_ids)
    try:
        cli_deny = parse_rules(deny, "--deny")
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    dc, _, cfg = detect_config(secret, secrets_file, config_path, not no_ner)
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
    )
    try:
        summary = run(opts)
    except SelectionError as exc:
        raise Refused(str(exc)) from exc
    if as_json:
        _echo_json(summary.to_json())
    else:
        _print_summary(summary)
    if strict and summary.problems:
        raise Refused(f"{len(summary.problems)} problem(s) reported and --strict was given")


def _print_summary(s) -> None:
    err = sys.stderr
    mb = s.bytes_in / 1e6
    click.echo(f"Read {s.files} session file(s), {s.records} records, {mb:.1f} MB.", file=err)
    for h, n in s.harnesses.items():
        click.echo(f"  {h}: {n}", file=err)
    total = sum(s.findings.values())
    click.echo(f"Findings: {total}", file=err)
    for t, n in s.findings.items():
        click.echo(f"  {t}: {n}", file=err)
    if s.blobs:
        click.echo("Removed blobs: " + ", ".join(f"{k} {v}" for k, v in s.blobs.items()), file=err)
    if s.ner is None:
        click.echo("Notice: NER for person names was off (no spaCy model installed, or --no-ner).", file=err)
    _print_selection(s)
    if s.skipped:
        click.echo(f"Skipped {len(s.skipped)} file(s) of unknown format (listed in the report).", file=err)
    if s.problems:
        click.echo(f"Problems: {len(s.problems)}", file=err)
        for p in s.problems[:20]:
            click.echo(f"  {p}", file=err)
    click.echo(f"Review the report: {os.path.join(s.out, 'review', 'report.html')}", file=err)


def _print_selection(s) -> None:
    err = sys.stderr
    counts = (getattr(s, "selection", None) or {}).get("counts", {})
    if counts.get("excluded"):
        click.echo(f"Not selected: {counts['excluded']} of {counts['discovered']} session(s).", file=err)
    if s.dropped:
        click.echo(f"Dropped in review (left out): {len(s.dropped)} session(s)", file=err)
        for d in s.dropped[:20]:
            click.echo(f"  {d['session']}", file=err)
    if s.denied:
        click.echo(f"Denied (left out of dataset/): {len(s.denied)} session(s)", file=err)
        for d in s.denied[:20]:
            click.echo(f"  {d['session']}  {d['file']}: rule {d['rule']!r} ({d['origin']}) matched "
                       f"{d['masked']!r} at {d['where']}", file=err)


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
