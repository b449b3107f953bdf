"""The second pass redoes a file record by record: the records a found value cannot change are
copied from the first pass, and what it writes is what redoing every record writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from samples import claude_prompts, redact

from tracepub.run import splice

# A generic-looking secret with no provider prefix: found only through its place (TOKEN=).
SECRET = "q8ZrT2vLw9XkP4mN7bYc3HdS6fJa"
PERSON = "Ingrid Bergstrom"


def _claude(path: Path, texts: list[str]) -> None:
    claude_prompts(path, texts, cwd="/home/jdoe/app")  # the owner's home: identity places


def _corpus(root: Path) -> None:
    """One file finds the secret and a person; another holds both in clear among records
    that hold neither, or only what its own first pass redacted already."""
    projects = root / "projects" / "-home-jdoe-app"
    _claude(
        projects / "a.jsonl",
        [f"export API_TOKEN={SECRET}", f"commit 1a2b3c\nAuthor: {PERSON} <ingrid@example.org>\n"],
    )
    _claude(
        projects / "b.jsonl",
        [
            "ls /home/jdoe/app/src",
            "commit 9f8e7d\nAuthor: Tomasz Wrobel <tomasz@example.net>\n",
            f"grep output: config.py:12: {SECRET}",
            "the build passed on /home/jdoe/app",
            f"{PERSON} reviewed it",
            "Tomasz Wrobel asked for the logs",
            "nothing to see here " * 20,
            json.dumps({"nested": f"token {SECRET} again", "path": "/home/jdoe/x"}),
            "plain text, no values",
        ],
    )


def _run(src: Path, out: Path):
    """``samples.redact`` with a fixed placeholder key, so two runs' outputs compare."""
    (out / "review").mkdir(parents=True)
    (out / "review" / "placeholder.key").write_text(bytes(range(32)).hex() + "\n")
    return redact([src], out)


def _outputs(out: Path) -> dict[str, bytes]:
    files = {
        p.relative_to(out).as_posix(): p.read_bytes() for p in (out / "dataset").rglob("*") if p.is_file()
    }
    files["findings.jsonl"] = (out / "review" / "findings.jsonl").read_bytes()
    return files


def test_a_redone_file_copies_records_and_writes_what_a_whole_redo_writes(tmp_path, monkeypatch):
    _corpus(tmp_path / "src")
    spliced = _run(tmp_path / "src", tmp_path / "spliced")
    assert spliced.perf.get("files_redone", 0) >= 1
    assert spliced.perf.get("lines_copied", 0) >= 3  # the records holding no found value
    monkeypatch.setattr(splice.Recorder, "done", lambda self: None)  # no trail: every record redone
    whole = _run(tmp_path / "src", tmp_path / "whole")
    assert "lines_copied" not in whole.perf
    assert _outputs(tmp_path / "spliced") == _outputs(tmp_path / "whole")
    for counts in ("findings", "actions", "blobs", "records"):
        assert getattr(spliced, counts) == getattr(whole, counts)
    report = [
        (out / "review" / "report.html").read_bytes().replace(out.name.encode(), b"OUT")
        for out in (tmp_path / "spliced", tmp_path / "whole")
    ]
    assert report[0] == report[1]  # the report's fold of the copied findings too
    text = b"".join(v for k, v in _outputs(tmp_path / "spliced").items() if k.startswith("dataset/"))
    assert SECRET.encode() not in text and PERSON.encode() not in text


@pytest.mark.parametrize("damage", ["line", "finding", "garbage"])
def test_a_first_pass_output_that_does_not_line_up_is_redone_whole(tmp_path, monkeypatch, damage):
    """Whatever the first pass left (a line more, a finding of another record), the redo does
    not copy from it: the file is redone from its source."""
    _corpus(tmp_path / "src")
    whole_out = tmp_path / "whole"
    monkeypatch.setattr(splice.Recorder, "done", lambda self: None)
    _run(tmp_path / "src", whole_out)
    monkeypatch.undo()
    real_open = splice.Splice.open.__func__  # type: ignore[attr-defined]

    def damaged(cls, words, trail, engine, found, blobs, remove_blobs, output, part):  # type: ignore[no-untyped-def]
        if damage == "line":
            output.write_bytes(output.read_bytes() + b"{}\n")
        elif damage == "garbage":
            part.write_bytes(b"not json\n" + part.read_bytes())
        else:
            part.write_bytes(part.read_bytes() + b'{"record": 1, "type": "x"}\n')
        return real_open(cls, words, trail, engine, found, blobs, remove_blobs, output, part)

    monkeypatch.setattr(splice.Splice, "open", classmethod(damaged))
    damaged_run = _run(tmp_path / "src", tmp_path / "spliced")
    assert "lines_copied" not in damaged_run.perf
    assert _outputs(tmp_path / "spliced") == _outputs(whole_out)


def test_small_sessions_read_ahead_in_groups_write_what_one_at_a_time_writes(tmp_path, monkeypatch):
    """The first pass reads small sessions ahead in groups so NER reads their prose in one call
    (``run.ahead``); each session's output and findings are what it gets redacted alone."""
    from tracepub.detect.pii.prose_names import ner_model_name
    from tracepub.run import ahead

    if ner_model_name() is None:
        pytest.skip("no spaCy model installed")
    projects = tmp_path / "src" / "projects" / "-home-jdoe-app"
    people = ["Marguerite Okonkwo", "Teodor Halvorsen", "Priyanka Venkataraman", "Ines Castellanos"]
    for n, person in enumerate(people):
        _claude(
            projects / f"s{n}.jsonl",
            [f"I talked to {person} yesterday about the release.", f"Please send {person} the summary."],
        )
    grouped = _run(tmp_path / "src", tmp_path / "grouped")
    monkeypatch.setattr(ahead, "GROUP_UNITS", 1)  # one unit a group: none read ahead
    alone = _run(tmp_path / "src", tmp_path / "alone")
    assert _outputs(tmp_path / "grouped") == _outputs(tmp_path / "alone")
    assert grouped.findings == alone.findings
    text = b"".join(v for k, v in _outputs(tmp_path / "grouped").items() if k.startswith("dataset/"))
    assert not any(p.encode() in text for p in people)
    again = redact([tmp_path / "src"], tmp_path / "grouped")  # the sources' digests as read ahead
    assert again.reused == len(people)


def test_a_found_name_inside_the_users_own_is_copied_and_a_greeting_is_redone(tmp_path, monkeypatch):
    """A colleague's account "jdo" found elsewhere is in every path of the user "jdoe": those
    records are copied (the user's own span covers it), while the records that name the colleague,
    or greet a linked colleague by first name, are redone."""
    projects = tmp_path / "src" / "projects" / "-home-jdoe-app"
    _claude(
        projects / "a.jsonl", ["$ whoami\njdo\n", "ls -l /home/jdo/src", f"Author: {PERSON} <ingrid@jdo.dev>"]
    )
    _claude(
        projects / "b.jsonl",
        [
            "cat /home/jdoe/app/README.md",
            "the tests pass in /home/jdoe/app",
            "$ whoami\njdo\n",
            "Thanks, Ingrid! The build is green.",
            "ls /home/jdoe/app/src",
        ],
    )
    spliced = _run(tmp_path / "src", tmp_path / "spliced")
    monkeypatch.setattr(splice.Recorder, "done", lambda self: None)
    _run(tmp_path / "src", tmp_path / "whole")
    assert _outputs(tmp_path / "spliced") == _outputs(tmp_path / "whole")
    assert spliced.perf.get("lines_copied", 0) >= 2, spliced.perf
