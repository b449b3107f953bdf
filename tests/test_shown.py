"""Control and bidi characters from the sessions are shown escaped (#9 item 7).

An OSC escape in a file name set the terminal's title when redact printed it; a U+202E
reversed the report's Problems entry. Every command's output (``shown.echo``, ``--json``
through ``json_for_terminal``, refusals) and every value of the report (``shown.for_html``,
the template's ``finalize``) now shows them as escapes.
"""

from __future__ import annotations

import json
import re

import pytest
from reviewkit import claude_session, invoke, planted

from tracepub import shown

OSC = "\x1b]0;pwned\x07"  # sets the terminal's title
RLO = "\u202e"  # right-to-left override
NAME = f"-home-jdoe-src-app{OSC}x{RLO}lmth.exe"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


@pytest.mark.parametrize(
    ("raw", "terminal"),
    [
        ("plain/path é ✓", "plain/path é ✓"),
        (OSC, "\\x1b]0;pwned\\x07"),
        ("a\nb\tc\rd", "a\\x0ab\\x09c\\x0dd"),
        ("\x9b31m C1 CSI", "\\x9b31m C1 CSI"),
        ("abc\u202edef\u2066g\u2069\u200e\u200f\u061c", "abc\\u202edef\\u2066g\\u2069\\u200e\\u200f\\u061c"),
        ("line\u2028sep\u2029", "line\\u2028sep\\u2029"),
        ("lone \ud800 half", "lone \\ud800 half"),
        ("\x7f", "\\x7f"),
    ],
)
def test_for_terminal_escapes_controls_bidi_and_separators(raw, terminal):
    assert shown.for_terminal(raw) == terminal
    assert not RAW.search(shown.for_terminal(raw))


def test_for_html_keeps_white_space_and_json_stays_valid():
    assert shown.for_html("a\nb\tc" + RLO + OSC) == "a\nb\tc\\u202e\\x1b]0;pwned\\x07"
    value = {"name": f"x{RLO}y\x85z\ud800", "ctl": "a\x1bb\nc"}
    text = json.dumps(value, indent=2, ensure_ascii=False)
    safe = shown.json_for_terminal(text)
    assert not RAW.search(safe) and "\ud800" not in safe
    assert json.loads(safe) == value  # the same value, and the layout kept
    assert safe.count("\n") == text.count("\n")


def test_style_keeps_its_colours_and_escapes_its_text():
    out = []
    import click

    real = click.echo
    try:
        click.echo = lambda m, **kw: out.append(m)  # type: ignore[assignment]
        shown.echo("value " + shown.style(f"v{OSC}", fg="yellow") + f" in {RLO}file")
    finally:
        click.echo = real  # type: ignore[assignment]
    (line,) = out
    assert line.startswith("value \x1b[33m") and line.count("\x1b") == 2  # the colour and its reset only
    assert "v\\x1b]0;pwned\\x07" in line and "\\u202efile" in line


def _spoofed(tmp_path):
    """A session in a folder whose name holds an OSC sequence and a U+202E, with a line that is
    not JSON (so a problem names the file)."""
    folder = tmp_path / "sources" / NAME
    path = claude_session(folder, planted())
    with path.open("a", encoding="utf-8") as fh:
        fh.write("not json at all\n")
    return tmp_path / "sources"


def _clean(output: str) -> None:
    assert not RAW.search(output.replace("\n", "")), repr(output)


def test_every_command_prints_paths_and_values_escaped(tmp_path, hub):
    src, out = _spoofed(tmp_path), tmp_path / "out"
    r = invoke("redact", src, "--out", out, "--jobs", "1", "--no-ner")
    assert r.exit_code == 0, r.output
    _clean(r.output)
    assert "\\x1b]0;pwned\\x07x\\u202elmth.exe" in r.output  # the problem's file, escaped
    j = invoke("redact", src, "--out", tmp_path / "out2", "--jobs", "1", "--no-ner", "--json")
    _clean(j.output)
    assert any(f"app{OSC}x{RLO}lmth.exe" in p for p in json.loads(j.output)["problems"])  # --json: exactly
    for args in (
        ("review", out),
        ("review", out, "--add", f"ACME{RLO}x"),
        ("approve", out, "--reviewer", "Jane", "--license", "mit", "--yes"),
        ("publish", out, "--repo", "jane/traces", "--dry-run"),
    ):
        r = invoke(*args)
        _clean(r.output)
    assert "lmth.exe" in r.output  # the dry run listed the file, escaped


def test_report_shows_problems_and_file_names_escaped(tmp_path):
    src, out = _spoofed(tmp_path), tmp_path / "out"
    assert invoke("redact", src, "--out", out, "--jobs", "1", "--no-ner").exit_code == 0
    page = (out / "review" / "report.html").read_text(encoding="utf-8")
    assert RLO not in page and "\x1b" not in page and "\x07" not in page
    problems = page[page.index("<summary>Problems") :]
    assert "\\x1b]0;pwned\\x07x\\u202elmth.exe" in problems[: problems.index("</details>")]
    sessions = page[page.index("<summary>Sessions (") :]
    assert "\\u202elmth.exe" in sessions[: sessions.index("</details>")]
