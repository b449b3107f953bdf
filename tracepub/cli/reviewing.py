"""review: decisions per value and per session, in the terminal or on a local web page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tracepub import options
from tracepub.cli.common import (
    Refused,
    echo_json,
    refusals,
    secret_options,
    writing,
)
from tracepub.outdir import OutDir
from tracepub.shown import echo, style

if TYPE_CHECKING:
    from tracepub.review.sessions import DropResult


@click.command()
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

        with refusals():
            serve(dir, port, not no_browser, reviewer, secrets, secrets_files)
        return
    with refusals():
        rv.check_dir(dir)
        scripted = keep or redact_ids or add or add_regex or drop_ids or restore_ids
        asks = not scripted and (interactive or (sys.stdin.isatty() and not as_json))
        if not scripted and not asks:  # only lists: writes nothing, takes no lock
            if as_json:
                echo_json({"flagged": rv.flagged_lines(dir)[1:-1]})
            else:
                for line in rv.flagged_lines(dir):
                    echo(line)
            return
        with writing(dir):  # before the questions: what is asked about is what gets decided on
            if asks:
                outcome, sessions_done = _ask_review(
                    dir, reviewer, all_values, as_json, secrets, secrets_files
                )
                if as_json:
                    echo_json({**outcome.to_json(), "sessions": [r.__dict__ for r in sessions_done]})
                else:
                    for line in rv.describe(dir, outcome):
                        echo(line, err=True)
                return
            sessions_done = _drop_restore(dir, drop_ids, restore_ids, reviewer or rv.default_reviewer())
            if sessions_done and not (keep or redact_ids or add or add_regex):
                if as_json:
                    echo_json({"sessions": [r.__dict__ for r in sessions_done]})
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
        echo_json({**outcome.to_json(), "sessions": [r.__dict__ for r in sessions_done]})
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
