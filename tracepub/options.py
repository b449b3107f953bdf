"""Checks of option values at the command line, shared by its commands: a bad value is a usage
error (exit 2) before anything runs, with the module's own message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click


def check(fn: Callable[[Any], Any]) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A click callback running a validator on each value of a repeatable option (exit 2 on error)."""

    def callback(ctx: click.Context, param: click.Parameter, values: Any) -> Any:
        try:
            return tuple(fn(v) for v in values) if isinstance(values, tuple) else fn(values)
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None

    return callback


def add_check(v: str) -> str:
    from tracepub.review.interactive import validate_add

    return validate_add(v)


def regex_check(v: str) -> str:
    from tracepub.review.interactive import validate_regex

    return validate_regex(v)


def repo_check(v: str) -> str:
    from tracepub.publish.hub import check_repo_id

    return check_repo_id(v)


def prefix_check(v: str | None) -> str | None:
    from tracepub.publish.hub import check_prefix

    return check_prefix(v)
