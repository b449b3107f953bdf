"""The command line (DESIGN.md's contract): redact, review, approve, publish.

Exit status: 0 on success, 1 on a refused or failed action (one line saying why and what to
do), 2 on bad usage (click's own). ``--json`` prints a machine-readable summary on stdout.
Each command imports the stages it runs when it runs: ``tracepub --help`` and a refused
command stay instant instead of loading the detectors and models first.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tracepub import __version__, options
from tracepub.errors import Refusal
from tracepub.outdir import OutDir, locked
from tracepub.shown import echo, for_terminal, json_for_terminal, style

if TYPE_CHECKING:
    from tracepub.review.sessions import DropResult
    from tracepub.runtypes import RunSummary
    from tracepub.selection.select import Selection

F = TypeVar("F", bound=Callable[..., Any])


class Refused(click.ClickException):
    """A refused or failed action: exit status 1 with one clear line."""

    exit_code = 1

    def format_message(self) -> str:
        return for_terminal(self.message)  # it names paths and ids (``shown``)


def _echo_json(data: object) -> None:
    click.echo(json_for_terminal(json.dumps(data, indent=2, ensure_ascii=False, default=str)))


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


def secret_options(f: F) -> F:
    """--secret / --secrets-file for commands that redact or re-scan again (review, publish):
    tracepub never stores these values, so a re-run must be given them again."""
    f = click.option(
        "--secrets-file",
        "secrets_files",
        multiple=True,
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="Values to redact, as given to redact (one per line; KEY=value lines give the value).",
    )(f)
    return click.option(
        "--secret",
        "secrets",
        multiple=True,
        help="A value given to redact with --secret (never stored, so give it again).",
    )(f)


def selection_options(f: F) -> F:
    """--project, --since, --until, --harness, --session, --exclude-session (redact and sessions)."""
    opts = [
        click.option(
            "--project",
            "projects",
            multiple=True,
            metavar="GLOB",
            help="Only sessions whose working folder matches (repeatable). A bare name matches the "
            "folder's last component; a path (~ allowed) matches that folder and its subfolders.",
        ),
        click.option(
            "--since",
            metavar="DATE",
            help="Only sessions that started on or after DATE (YYYY-MM-DD or YYYY-MM-DDTHH:MM, local time).",
        ),
        click.option(
            "--until",
            metavar="DATE",
            help="Only sessions that ended on or before DATE (a date alone includes that whole day).",
        ),
        click.option(
            "--harness",
            "harnesses",
            multiple=True,
            metavar="NAME",
            help="Only this harness, e.g. claude_code or codex (repeatable).",
        ),
        click.option(
            "--session",
            "session_ids",
            multiple=True,
            metavar="ID",
            help="Only this session: full id or a unique prefix (repeatable).",
        ),
        click.option(
            "--exclude-session",
            "exclude_ids",
            multiple=True,
            metavar="ID",
            help="Leave this session out: full id or a unique prefix (repeatable).",
        ),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def make_selection(
    projects: tuple[str, ...],
    since: str | None,
    until: str | None,
    harnesses: tuple[str, ...],
    session_ids: tuple[str, ...],
    exclude_ids: tuple[str, ...],
) -> Selection:
    from tracepub.selection.select import Selection, SelectionError

    try:
        return Selection(list(projects), since, until, list(harnesses), list(session_ids), list(exclude_ids))
    except SelectionError as exc:
        raise click.UsageError(str(exc)) from exc


@cli.command()
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
        _echo_json(to_json(found, disc))
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


@cli.command()  # URLs (s3://...: --engine datatrove stages them) are kept as written, other sources are paths
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
    from tracepub.run.pipeline import run
    from tracepub.runtypes import RunOptions
    from tracepub.selection.deny import parse_rules
    from tracepub.selection.select import SelectionError
    from tracepub.sources.settings import detect_config

    sel = make_selection(projects, since, until, harnesses, session_ids, exclude_ids)
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
        with _refusals(), _writing(out, create=True):
            summary = run(opts)
    except SelectionError as exc:
        raise Refused(str(exc)) from exc
    if as_json:
        _echo_json(summary.to_json())
    else:
        _print_summary(summary, verbose)
    if strict and summary.problems:
        raise Refused(f"{len(summary.problems)} problem(s) reported and --strict was given")


def _print_summary(s: RunSummary, verbose: bool = False) -> None:
    """What needs the user first (flagged values, problems, skipped files, the next command)."""
    from tracepub.terminal import redact_summary

    for line in redact_summary(s, verbose):
        echo(line, err=True)


class _refusals:
    """Turn a module's Refusal into exit status 1 with its one line."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is not None and issubclass(exc_type, Refusal):
            raise Refused(str(exc)) from None


def _writing(out: Path, create: bool = False) -> AbstractContextManager[None]:
    """DIR's lock (``dirlock``), held by every command that writes into DIR, from before its
    first write: a second one refuses with exit 1 instead of interleaving its files."""
    return locked(out, create)


@cli.command()
@click.argument("dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--keep", multiple=True, metavar="ID", help="Leave this value in clear (a value id or a finding id)."
)
@click.option(
    "--redact", "redact_ids", multiple=True, metavar="ID", help="Redact this value again (undo --keep)."
)
@click.option(
    "--add",
    multiple=True,
    metavar="TEXT",
    callback=options.check(options.add_check),
    help="Always redact this text.",
)
@click.option(
    "--add-regex",
    multiple=True,
    metavar="RE",
    callback=options.check(options.regex_check),
    help="Always redact what this regular expression matches.",
)
@click.option(
    "--reviewer", default=None, help="Who decides (recorded with each decision; default: your login)."
)
@click.option(
    "--drop-session",
    "drop_ids",
    multiple=True,
    metavar="ID",
    help="Leave this session out of dataset/, now and on every later run (id or unique prefix).",
)
@click.option(
    "--restore-session", "restore_ids", multiple=True, metavar="ID", help="Bring a dropped session back."
)
@secret_options
@click.option("--all", "all_values", is_flag=True, help="Go through every value, not only the flagged ones.")
@click.option("--interactive", is_flag=True, help="Ask about each value even if input is not a terminal.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
@click.option(
    "--web", is_flag=True, help="Review on a local page in the browser (127.0.0.1, a one-time token)."
)
@click.option(
    "--port", default=0, type=click.IntRange(0, 65535), help="Port for --web (default: a free one)."
)
@click.option("--no-browser", is_flag=True, help="With --web: print the address, do not open a browser.")
def review(
    dir: Path,
    keep: tuple[str, ...],
    redact_ids: tuple[str, ...],
    add: tuple[str, ...],
    add_regex: tuple[str, ...],
    drop_ids: tuple[str, ...],
    restore_ids: tuple[str, ...],
    secrets: tuple[str, ...],
    secrets_files: tuple[Path, ...],
    reviewer: str | None,
    all_values: bool,
    interactive: bool,
    as_json: bool,
    web: bool = False,
    port: int = 0,
    no_browser: bool = False,
) -> None:
    """Decide on findings: keep a value in clear, redact it, or add what the detectors missed.

    On a terminal (without decision options) it goes through the flagged values one by one.
    Decisions are appended to DIR/review/decisions.jsonl and applied at once: DIR/dataset is
    redacted again from the original sources and DIR/manifest.json rewritten, so any earlier
    sign-off no longer matches. Decisions also apply to every later `tracepub redact` into DIR.

    \b
    Examples:
      tracepub review out/
      tracepub review out/ --keep 3f2a9c0d1e2b4a5c --add "Project Bluebird" --reviewer Jane
      tracepub review out/ --add-regex 'ACME-[0-9]{6}' --json
      tracepub review out/ --drop-session 8f2c1e4a
      tracepub review out/ --web                 # the same decisions on a local page
    """
    from tracepub.review import interactive as rv

    if web:  # the page locks DIR for each change it makes, as these commands do
        from tracepub.review.web.server import serve

        with _refusals():
            serve(dir, port, not no_browser, reviewer, secrets, secrets_files)
        return
    with _refusals():
        rv.check_dir(dir)
        scripted = keep or redact_ids or add or add_regex or drop_ids or restore_ids
        asks = not scripted and (interactive or (sys.stdin.isatty() and not as_json))
        if not scripted and not asks:  # only lists: writes nothing, takes no lock
            if as_json:
                _echo_json({"flagged": rv.flagged_lines(dir)[1:-1]})
            else:
                for line in rv.flagged_lines(dir):
                    echo(line)
            return
        with _writing(dir):  # before the questions: what is asked about is what gets decided on
            if asks:
                outcome, sessions_done = _ask_review(
                    dir, reviewer, all_values, as_json, secrets, secrets_files
                )
                if as_json:
                    _echo_json({**outcome.to_json(), "sessions": [r.__dict__ for r in sessions_done]})
                else:
                    for line in rv.describe(dir, outcome):
                        echo(line, err=True)
                return
            sessions_done = _drop_restore(dir, drop_ids, restore_ids, reviewer or rv.default_reviewer())
            if sessions_done and not (keep or redact_ids or add or add_regex):
                if as_json:
                    _echo_json({"sessions": [r.__dict__ for r in sessions_done]})
                else:
                    for r in sessions_done:
                        echo(r.message(), err=True)
                return
            outcome = rv.decide(
                dir,
                reviewer,
                keep,
                redact_ids,
                add,
                add_regex,
                progress=not as_json,
                secrets=secrets,
                secrets_files=secrets_files,
            )
    if as_json:
        _echo_json({**outcome.to_json(), "sessions": [r.__dict__ for r in sessions_done]})
    else:
        for line in [*(r.message() for r in sessions_done), *rv.describe(dir, outcome)]:
            echo(line, err=True)


def _ask_review(
    dir: Path,
    reviewer: str | None,
    all_values: bool,
    as_json: bool,
    secrets: tuple[str, ...],
    secrets_files: tuple[Path, ...],
) -> tuple[Any, list[DropResult]]:
    """The terminal review: each decision is recorded as it is made, then applied at once. On
    Ctrl-C nothing is lost: what was decided is in decisions.jsonl, applied by the next review."""
    from tracepub.review import interactive as rv

    asked = rv.Asked()
    try:
        rv.interactive(dir, reviewer, all_values, echo, click.prompt, style, asked)
    except click.Abort:
        n = len(asked.outcome.appended) + len(asked.dropped)
        raise Refused(
            f"interrupted: {n} decision(s) made so far are saved in {OutDir(dir).decisions} "
            f"(dropped sessions are out already); run `tracepub review {dir}` to apply them"
        ) from None
    return rv.finish(
        dir, asked, progress=not as_json, secrets=secrets, secrets_files=secrets_files
    ), asked.dropped


def _drop_restore(
    dir: Path, drop_ids: tuple[str, ...], restore_ids: tuple[str, ...], reviewer: str
) -> list[DropResult]:
    """Whole-session decisions take effect at once (files leave or re-enter dataset/)."""
    from tracepub.review.sessions import DropError, drop_session, restore_session

    done: list[DropResult] = []
    try:
        for sid in drop_ids:
            done.append(drop_session(dir, sid, reviewer))
        for sid in restore_ids:
            done.append(restore_session(dir, sid, reviewer))
    except DropError as exc:
        raise Refused(str(exc)) from None
    return done


@cli.command()
@click.argument("dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--reviewer", required=True, help="Your name, as it will appear in the dataset card and signoff.json."
)
@click.option(
    "--license", "license_", default=None, help="Set the card's license (e.g. cc-by-4.0) before signing."
)
@click.option("--title", default=None, help="Set the card's title before signing.")
@click.option(
    "--language",
    default=None,
    metavar="CODE",
    help="The card's language tag (ISO 639-1, default en): the language of the prompts.",
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation (scripts).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def approve(
    dir: Path,
    reviewer: str,
    license_: str | None,
    title: str | None,
    yes: bool,
    as_json: bool,
    language: str | None = None,
) -> None:
    """Sign off the exact bytes in DIR/dataset (writes DIR/signoff.json).

    Refuses if the files on disk do not match DIR/manifest.json. A license must be chosen (here
    with --license, or given to redact); without one approve asks for it, or refuses with --yes.
    Shows what will be published and asks for confirmation; then writes the reviewer, the date
    and the license into the dataset card, rewrites the manifest and binds signoff.json to its
    sha256 and run id.

    \b
    Examples:
      tracepub approve out/ --reviewer "Jane Doe"
      tracepub approve out/ --reviewer "Jane Doe" --license cc-by-4.0 --yes
    """
    from tracepub.publish import signoff as so

    with _refusals(), _writing(dir):  # before the plan: what is shown is what gets signed
        plan = so.plan(dir, license_, title)  # refuses first what approve cannot sign at all
        license_ = _license(dir, license_, yes)
        plan.card["license"] = license_ or plan.card["license"]
        if not as_json:
            from tracepub.terminal import plan_lines

            for line in plan_lines(dir, plan):
                echo(line, err=True)
        if not yes:
            try:
                ok = click.confirm(
                    for_terminal(f"Sign off these {len(plan.files)} file(s) as {reviewer}?"),
                    default=False,
                    err=True,
                )
            except click.Abort:
                ok = False
            if not ok:
                raise Refused("not approved: nothing was signed (pass --yes to approve without a prompt)")
        signed = so.approve(dir, reviewer, license_, title, language=language)
    if as_json:
        _echo_json({"signoff": signed, "plan": plan.to_json()})
    else:
        echo(f"Signed: {dir / 'signoff.json'} (manifest sha256 {signed['manifest_sha256']}).", err=True)
        echo(f"Next: tracepub publish {dir} --repo OWNER/NAME  (private unless --public)", err=True)


def _license(dir: Path, license_: str | None, yes: bool) -> str | None:
    """The license to sign under: given, or stored from redact, or asked for (never a silent
    ``other``); with --yes and none at all, approve refuses (``signoff.require_license``)."""
    from tracepub.publish import signoff as so
    from tracepub.review import runstate

    stored = runstate.read(dir).get("options", {}).get("card", {}).get("license")
    if license_ or stored or yes:
        so.require_license(dir, license_)
        return license_
    try:
        chosen = click.prompt(
            "License for the dataset card (a Hub license id, e.g. cc-by-4.0, cc0-1.0, mit)",
            default="",
            show_default=False,
            err=True,
        ).strip()
    except click.Abort:
        chosen = ""
    so.require_license(dir, chosen or None)
    return chosen


@cli.command()
@click.argument("dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--repo",
    required=True,
    callback=options.check(options.repo_check),
    help="Hub dataset to publish to: OWNER/NAME.",
)
@click.option("--public", is_flag=True, help="Make a new dataset public (default: private).")
@click.option(
    "--dry-run", is_flag=True, help="Check everything locally and list what would be sent; send nothing."
)
@click.option("--message", default=None, help="Commit message (the manifest sha256 is always appended).")
@click.option("--replace", is_flag=True, help="Overwrite files that exist in the dataset with other content.")
@click.option(
    "--license",
    "license_",
    default=None,
    help="Only checked: must equal the signed card's license (change it with approve).",
)
@click.option(
    "--pr",
    is_flag=True,
    help="Contribute to an existing dataset: open a pull request with the signed "
    "session files under --path-in-repo (the card is not sent).",
)
@click.option(
    "--path-in-repo",
    "path_in_repo",
    default=None,
    metavar="PREFIX",
    callback=options.check(options.prefix_check),
    help="With --pr: the folder the session files go under (default: sessions, so sessions/<harness>/...).",
)
@click.option(
    "--timeout",
    default=60.0,
    type=click.FloatRange(1, 3600),
    show_default=True,
    help="Seconds to wait for the Hub on each connection, read and write before giving up.",
)
@secret_options
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def publish(
    dir: Path,
    repo: str,
    public: bool,
    dry_run: bool,
    message: str | None,
    replace: bool,
    license_: str | None,
    secrets: tuple[str, ...],
    secrets_files: tuple[Path, ...],
    as_json: bool,
    pr: bool = False,
    path_in_repo: str | None = None,
    timeout: float = 60.0,
) -> None:
    """Verify the sign-off, re-scan, and upload DIR/dataset in one commit.

    Refuses (exit 1, nothing sent) without a matching sign-off, if any byte of DIR/dataset
    differs from what was signed, or if the re-scan finds a secret or your identity. The token
    comes from HF_TOKEN or `hf auth login` and is never printed.

    \b
    Examples:
      tracepub publish out/ --repo me/agent-traces --dry-run
      tracepub publish out/ --repo me/agent-traces
      tracepub publish out/ --repo my-org/agent-traces --public --message "June sessions"
      tracepub publish out/ --repo trace-commons/agent-traces --pr --public
    """
    from tracepub.publish import gate as pb
    from tracepub.terminal import publish_lines

    if path_in_repo is not None and not pr:
        raise click.UsageError("--path-in-repo is for --pr (a plain publish sends dataset/ as it is)")
    with _refusals(), _writing(dir):  # it stages copies in DIR; nothing may change dataset/ meanwhile
        try:
            result = pb.publish(
                dir,
                repo,
                public=public,
                dry_run=dry_run,
                message=message,
                replace=replace,
                license_=license_,
                secrets=secrets,
                secrets_files=secrets_files,
                pr=pr,
                path_in_repo=path_in_repo,
                timeout=timeout,
            )
        except KeyboardInterrupt:
            raise Refused(
                "interrupted: nothing was published unless the commit had gone through (the staging "
                "copy was removed); run publish again"
            ) from None
    if as_json:
        _echo_json(result.to_json())
        return
    for line in publish_lines(result):
        echo(line)


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
