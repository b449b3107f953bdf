"""Importing Presidio without the work its import does for nothing.

At import, ``presidio_analyzer`` builds a ``Pattern`` for each of its ~170 bundled regexes
(every country's recognizers; the URL one alone is 40 kB), and ``Pattern.__init__`` compiles
each with ``regex`` only to check that it is valid, then drops the result. That was a sixth of
a second of the serial start-up before the workers fork, for patterns tracepub never runs. A
pattern is compiled again, with the flags it runs with, when a recognizer uses it, so nothing
depends on that check.

spaCy's package imports its command line (``from .cli.info import info``: weasel, requests,
httpx and every subcommand's module), a quarter of its import time; tracepub only loads a
model. During that import ``spacy.cli`` is a stand-in whose ``info`` imports the real one when
called; afterwards ``import spacy.cli`` imports the real package as usual.
"""

from __future__ import annotations

import sys
from pathlib import Path


def import_presidio() -> None:
    """Import ``presidio_analyzer`` (once per process), skipping the validation compile of its
    bundled patterns: during the import, ``regex.compile`` called from ``Pattern``'s check
    returns None (which the check ignores); any other call compiles as usual."""
    if "presidio_analyzer" in sys.modules:
        return
    import regex

    try:
        _import_spacy()  # Presidio imports it: first, so the window below holds Presidio alone
    except ImportError:
        pass
    real = regex.compile
    here = str(Path("presidio_analyzer") / "pattern.py")

    def compile_unless_check(pattern, flags=0, *args, **kwargs):
        code = sys._getframe(1).f_code
        if code.co_name == "__validate_regex" and code.co_filename.endswith(here):
            return None
        return real(pattern, flags, *args, **kwargs)

    regex.compile = compile_unless_check
    try:
        import presidio_analyzer  # noqa: F401
    finally:
        regex.compile = real


def _import_spacy() -> None:
    """``import spacy`` without its command line (the module's docstring)."""
    if "spacy" in sys.modules:
        return
    import types

    def info(*args, **kwargs):
        from spacy.cli.info import info as real

        return real(*args, **kwargs)

    cli, cli_info = types.ModuleType("spacy.cli"), types.ModuleType("spacy.cli.info")
    cli_info.info = info  # type: ignore[attr-defined]
    cli.info = cli_info  # type: ignore[attr-defined]
    stand_ins = {"spacy.cli": cli, "spacy.cli.info": cli_info}
    if any(name in sys.modules for name in stand_ins):
        import spacy  # noqa: F401

        return
    sys.modules.update(stand_ins)
    try:
        import spacy  # noqa: F401
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
