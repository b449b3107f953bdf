"""Nothing is dropped or changed without a line in the summary (#9 item 6).

Symlinked session files and folders were ignored with no word; a project folder near 255 bytes
lost its sessions once redaction lengthened its name ("File name too long", exit 0); lone
surrogates were replaced with nothing said. Now: links are listed as skipped, with why (they
are not followed: a link can lead out of the source tree); a name too long is cut the same way
every time, and said; each line whose surrogates were replaced is a problem with its number.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

from click.testing import CliRunner
from samples import SAMPLES, lines_of, redact

from tracepub.cli import cli
from tracepub.fakes import expand
from tracepub.sources.discover import SYMLINK

CLAUDE = next(SAMPLES.glob("claude/projects/*/*.jsonl"))
CODEX = next(SAMPLES.glob("codex/sessions/2026/**/*.jsonl"))
MARKER = "BEHINDTHELINKMARKER"  # plain text no detector touches


def _session_with_marker(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = CLAUDE.read_text().splitlines()
    rec = json.loads(lines[0])
    rec["note"] = MARKER
    lines[0] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_symlinked_session_files_and_folders_are_listed_as_skipped_not_read(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    target_file = _session_with_marker(elsewhere / "linked.jsonl")
    _session_with_marker(elsewhere / "project" / "s.jsonl")
    src = tmp_path / "src" / "projects"
    (src / "-home-jdoe-app").mkdir(parents=True)
    shutil.copy(CLAUDE, src / "-home-jdoe-app" / CLAUDE.name)
    os.symlink(target_file, src / "-home-jdoe-app" / "linked.jsonl")
    os.symlink(elsewhere / "project", src / "-home-jdoe-linked")
    os.symlink(tmp_path / "gone.jsonl", src / "-home-jdoe-app" / "dangling.jsonl")
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["redact", str(src), "--out", str(out), "--jobs", "1", "--no-ner", "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output)
    assert sorted(summary["skipped"]) == sorted(
        f"{p}: {SYMLINK}".replace("jdoe", "<USER>")
        for p in (
            src / "-home-jdoe-app" / "dangling.jsonl",
            src / "-home-jdoe-app" / "linked.jsonl",
            src / "-home-jdoe-linked",
        )
    )
    assert summary["files"] == 1
    assert MARKER not in "".join(p.read_text() for p in (out / "dataset").rglob("*") if p.is_file())
    # the summary on the terminal names each link
    r = CliRunner().invoke(
        cli, ["redact", str(src), "--out", str(tmp_path / "o2"), "--jobs", "1", "--no-ner"]
    )
    assert "  3 symbolic link(s) not followed (they can lead out of the source tree" in r.output
    assert f"    {src / '-home-<USER>-linked'}\n" in r.output
    # a SOURCE given by name is the user's choice: read, link or not
    given = redact([src / "-home-jdoe-app" / "linked.jsonl"], tmp_path / "o3")
    assert given.files == 1 and given.skipped == []


def test_long_folder_name_is_cut_deterministically_and_said(tmp_path):
    """``al`` -> ``USER`` lengthens a 255-byte folder name to 257: it was "File name too long"
    and the session was lost, exit 0."""
    name = ("-home-al-src-" + "a" * 300)[:255]
    folder = tmp_path / "in" / "projects" / name
    folder.mkdir(parents=True)
    shutil.copy(CLAUDE, folder / CLAUDE.name)
    out = tmp_path / "out"
    summary = redact([tmp_path / "in"], out, al="identity.username")
    assert summary.files == 1 and not [p for p in summary.problems if "failed" in p]
    (written,) = (out / "dataset" / "claude_code").rglob("*.jsonl")
    short = written.parent.name
    assert len(short.encode()) <= 255 and short.startswith("-home-USER-src-aaa") and "~" in short
    assert [p for p in summary.problems if "once redacted" in p] == [
        f"{folder / CLAUDE.name}".replace("-al-", "-<USER>-")
        + f": name 257 bytes long once redacted, more than a file system takes: written as {short}"
    ]
    again = redact([tmp_path / "in"], tmp_path / "out2", al="identity.username")
    assert [p.relative_to(tmp_path / "out2") for p in (tmp_path / "out2" / "dataset").rglob("*.jsonl")] == [
        written.relative_to(out)
    ]
    assert again.problems == summary.problems


def test_long_file_name_keeps_its_extension(tmp_path):
    name = ("al-" + "b" * 300)[:245] + ".jsonl"  # 251 bytes: fits the disk, not once redacted (+ a temp name)
    src = tmp_path / "in" / name
    src.parent.mkdir()
    shutil.copy(CODEX, src)
    out = tmp_path / "out"
    summary = redact([src], out, al="identity.username")
    (written,) = (out / "dataset" / "codex").rglob("*.jsonl")
    assert summary.files == 1 and written.name.endswith(".jsonl") and len(written.name.encode()) <= 233
    assert written.read_bytes().count(b"\n") == CODEX.read_bytes().count(b"\n")


def test_replaced_lone_surrogates_are_counted_with_file_and_line(tmp_path):
    token = expand("{{github:ghp}}", random.Random(11))
    lines = CODEX.read_text().splitlines()
    rec = json.loads(lines[1])
    rec["note"] = f"lone \ud800 half, GH_TOKEN={token} and \udfff, a pair \U0001f600"
    lines[1] = json.dumps(rec, separators=(",", ":"))  # ensure_ascii: \\ud800 escapes
    rec = json.loads(lines[3])
    rec["inner"] = json.dumps({"a": "x \udbff y", "b": "/home/jdoe/x"})  # JSON inside a string
    lines[3] = json.dumps(rec, separators=(",", ":"))
    src = tmp_path / "in" / CODEX.name
    src.parent.mkdir()
    src.write_text("\n".join(lines) + "\n")
    summary = redact([src], tmp_path / "out")
    said = [p for p in summary.problems if "surrogate" in p]
    assert said == [
        f"{src}:2: 2 lone surrogate(s) (a \\udXXX escape without its other half) replaced by U+FFFD",
        f"{src}:4: 1 lone surrogate(s) (a \\udXXX escape without its other half) replaced by U+FFFD",
    ]
    got = lines_of(next((tmp_path / "out" / "dataset" / "codex").rglob(CODEX.name)))
    assert "\U0001f600" in json.loads(got[1])["note"]  # a pair is a character, not a problem
