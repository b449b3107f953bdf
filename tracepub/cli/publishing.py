"""approve (sign the manifest) and publish (verify, re-scan, upload or open a pull request)."""

from __future__ import annotations

from pathlib import Path

import click

from tracepub import options
from tracepub.cli.common import (
    Refused,
    echo_json,
    refusals,
    secret_options,
    writing,
)
from tracepub.shown import echo, for_terminal


@click.command()
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

    with refusals(), writing(dir):  # before the plan: what is shown is what gets signed
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
        echo_json({"signoff": signed, "plan": plan.to_json()})
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


@click.command()
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
    with refusals(), writing(dir):  # it stages copies in DIR; nothing may change dataset/ meanwhile
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
        echo_json(result.to_json())
        return
    for line in publish_lines(result):
        echo(line)
