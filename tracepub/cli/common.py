"""What the commands share: the refusal (exit status 1, one line), DIR's lock, JSON output,
and the option groups more than one command takes."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tracepub.errors import Refusal
from tracepub.outdir import locked
from tracepub.shown import for_terminal, json_for_terminal

if TYPE_CHECKING:
    from tracepub.selection.select import Selection

F = TypeVar("F", bound=Callable[..., Any])


class Refused(click.ClickException):
    """A refused or failed action: exit status 1 with one clear line."""

    exit_code = 1

    def format_message(self) -> str:
        return for_terminal(self.message)  # it names paths and ids (``shown``)


class Finished:
    """``synced``: set by a command whose work is all on the disk (every file synced, DIR's lock
    released by its descriptor's close: ``redact``), so ``main`` ends the process without the
    interpreter's teardown: freeing a run's heap (engine, automata, spaCy model) object by
    object took 0.6-1.3 s after the last output."""

    synced = False


def echo_json(data: object) -> None:
    click.echo(json_for_terminal(json.dumps(data, indent=2, ensure_ascii=False, default=str)))


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


class refusals:
    """Turn a module's Refusal into exit status 1 with its one line."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is not None and issubclass(exc_type, Refusal):
            raise Refused(str(exc)) from None


def writing(out: Path, create: bool = False) -> AbstractContextManager[None]:
    """DIR's lock (``dirlock``), held by every command that writes into DIR, from before its
    first write: a second one refuses with exit 1 instead of interleaving its files."""
    return locked(out, create)
