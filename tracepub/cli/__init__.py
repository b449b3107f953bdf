"""The command line (DESIGN.md's contract): redact, review, approve, publish.

Exit status: 0 on success, 1 on a refused or failed action (one line saying why and what to
do), 2 on bad usage (click's own). ``--json`` prints a machine-readable summary on stdout.
Each command imports the stages it runs when it runs: ``tracepub --help`` and a refused
command stay instant instead of loading the detectors and models first.

One module per group of commands (``redacting``, ``reviewing``, ``publishing``); what they
share is in ``common``.
"""

from __future__ import annotations

import contextlib
import os
import sys

import click

from tracepub import __version__
from tracepub.cli.common import Finished
from tracepub.cli.publishing import approve, publish
from tracepub.cli.redacting import redact, sessions
from tracepub.cli.reviewing import review

__all__ = ["cli", "main"]


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


for _command in (sessions, redact, review, approve, publish):
    cli.add_command(_command)


# One BLAS thread per process. The NER model's layers are small matrices (96 wide, a few dozen
# tokens), and the workers are already one process per core: OpenBLAS's own threads only spin
# beside them (16% of NER's CPU, 4-5% of a run's on the realistic mix; the same output). Read
# when numpy loads, which no command does before this runs; a value the user set is kept.
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}


def main() -> None:
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    try:
        cli()
    except SystemExit as exc:
        if Finished.synced and (exc.code is None or isinstance(exc.code, int)):
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(exc.code or 0)
        raise
