"""The README's walkthrough, run as written against the local fake Hub."""

from __future__ import annotations

import os
import re
import shlex

from click.testing import CliRunner
from hubserver import TOKEN
from reviewkit import claude_session, planted

from tracepub.cli import cli
from tracepub.outputs.files import read_manifest

README = os.path.join(os.path.dirname(__file__), "..", "README.md")


def walkthrough() -> list[list[str]]:
    text = open(README, encoding="utf-8").read()
    m = re.search(r"<!-- walkthrough:.*?-->\s*```sh\n(.*?)```", text, re.S)
    assert m, "README lost its walkthrough block"
    commands = [shlex.split(line, comments=True) for line in m.group(1).splitlines()]
    return [[os.path.expanduser(a) for a in c] for c in commands if c]


def test_readme_walkthrough_runs_against_a_local_hub(tmp_path, hub, monkeypatch, isolated_home):
    p = planted()
    claude_session(isolated_home / ".claude" / "projects" / "-home-jdoe-src-app", p)
    monkeypatch.chdir(tmp_path)
    commands = walkthrough()
    assert [c[:2] for c in commands] == [
        ["tracepub", "redact"],
        ["tracepub", "review"],
        ["tracepub", "approve"],
        ["tracepub", "publish"],
        ["tracepub", "publish"],
    ]
    runner = CliRunner()
    for cmd in commands:
        r = runner.invoke(cli, cmd[1:], catch_exceptions=False)
        assert r.exit_code == 0, (cmd, r.output)
        assert TOKEN not in r.output
        if "--dry-run" in cmd:
            assert hub.requests == []

    out = tmp_path / "out"
    repo = hub.repos["jane/agent-traces"]
    assert repo.private
    signed = read_manifest(out)["files"]
    assert set(repo.files) == set(signed)
    for name, data in repo.files.items():
        assert data == (out / "dataset" / name).read_bytes()
    uploaded = b"".join(repo.files.values())
    for value in (p.github, p.email, p.codename, p.ticket, "jdoe"):
        assert value.encode() not in uploaded, value
    assert b"Reviewed and approved by Jane Doe" in repo.files["README.md"]
    assert b"license: cc-by-4.0" in repo.files["README.md"]
