"""Text from the sessions, shown to a person: control and bidi characters made visible.

File names, session ids, problems and values come from files anyone could have written. Shown
as they are, an ESC or OSC sequence in a file name sets the terminal's title, moves the cursor
or rewrites what was printed before it; a U+202E (right-to-left override) reverses the rest of
a line, so a report's problem entry or a file name reads as something else; a line break in a
name forges a line of tracepub's own output. So wherever such text reaches a terminal (every
command's output, through ``echo``) or the report (every value the template shows, through
``for_html``), these characters are written as escapes (``\\x1b``, ``\\u202e``) instead:

- C0 and C1 controls and DEL (ESC, OSC and CSI sequences start with them);
- the bidi controls: U+061C, U+200E/U+200F, U+202A-U+202E, U+2066-U+2069;
- the line and paragraph separators U+2028/U+2029;
- lone surrogates (JSON allows ``"\\ud800"``; no terminal can print one).

Text without any of them (nearly all) is returned as it is, after one regex search.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_LINES = "\u2028\u2029"
_SURROGATES = "\ud800-\udfff"
_TERMINAL = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}{_LINES}{_SURROGATES}]")
# In a page, tabs and line breaks are only white space (the snippets keep them to show layout).
_HTML = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}{_LINES}{_SURROGATES}]")
# In JSON text the encoder escaped C0 controls inside strings; the ones left are its layout.
_JSON = re.compile(f"[\x7f-\x9f{_BIDI}{_LINES}{_SURROGATES}]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def for_terminal(text: str) -> str:
    """``text`` with every control, bidi and separator character (line breaks and tabs too)
    written as an escape: one line on the terminal, reading as it is stored."""
    return _TERMINAL.sub(_escape, text) if _TERMINAL.search(text) else text


def for_html(text: str) -> str:
    """``for_terminal`` for a page: tabs and line breaks kept (they are white space there)."""
    return _HTML.sub(_escape, text) if _HTML.search(text) else text


def finalize(value: Any) -> Any:
    """The report template's ``finalize``: every plain string the page shows goes through
    ``for_html`` (before autoescaping). Markup (the page's own script) is left alone."""
    return for_html(value) if value.__class__ is str else value


def json_for_terminal(text: str) -> str:
    """JSON text (``--json`` output) with the same characters as ``\\uXXXX`` escapes. They can only
    be inside strings (JSON's structure is ASCII), so the text stays valid and means the same;
    C0 controls in strings the encoder escaped already (those left are its line breaks)."""
    return _JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _JSON.search(text) else text


# ``style`` output carries its ESC characters through ``echo`` disguised as this token: random
# per process, so text from a file cannot hold it and pass an ESC of its own.
_ESC = "\ue000" + secrets.token_hex(8) + "\ue001"


def style(text: str, **styles: Any) -> str:
    """``click.style`` of ``text`` (escaped), for ``echo`` to print in colour."""
    import click

    return click.style(for_terminal(text), **styles).replace("\x1b", _ESC)


def echo(message: Any = "", **kwargs: Any) -> None:
    """``click.echo`` of one line (``for_terminal``); colours made by ``style`` are kept."""
    import click

    click.echo(for_terminal(str(message)).replace(_ESC, "\x1b"), **kwargs)
