"""Harmless text from public packages stays in clear: each snippet of bench/harmless_labelled.jsonl
(taken from the material bench/overredaction.py runs on, one line per snippet: the text, the value
that must survive, its false-positive class, the package it came from) is planted as the output of
a tool call in a Claude Code session of its own, the real ``tracepub redact`` runs once over all of
them, and every labelled value must still be there. A dated git line read as a phone number or an
OID read as an IP address makes a published trace worse for the people it is published for.

Snippets that today's detectors still redact are marked xfail (not strict), one test id per
snippet, so each one turns into a pass as its class is fixed and the mark can then go.
"""

from __future__ import annotations

import json
import os
import random
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracepub.cli import cli
from tracepub.fakes import github_token

ROOT = Path(__file__).resolve().parents[1]
LABELLED = ROOT / "bench" / "harmless_labelled.jsonl"
ITEMS: list[dict] = [json.loads(x) for x in LABELLED.read_text(encoding="utf-8").splitlines() if x.strip()]
USER = "jdoe"
CWD = f"/home/{USER}/src/pkgs"
NS = uuid.UUID("5f0c6c3e-6f1e-4d7b-9a55-0c1f2b3a4d5e")

# Over-redacted by the detectors of the commit this file was written against (class: snippet numbers);
# drop a number once its snippet passes, and a line once it is empty.
_XFAIL = """
email_in_code_or_docs: 01 03 13
home_path_username: 04 06 10
ip_in_test_or_docs: 02
name_in_code_or_docs: 07
"""
XFAIL_TODAY: set[str] = {
    f"{cls}-{n}"
    for line in _XFAIL.strip().splitlines()
    for cls, _, nums in [line.partition(":")]
    for n in nums.split()
}


def _numbered(text: str) -> str:
    """Claude Code's Read output: right-aligned line numbers and an arrow."""
    return "\n".join(f"{i:>6}→{line}" for i, line in enumerate(text.split("\n"), 1))


def _session(sid: str, tool: str, where: str, text: str) -> list[dict]:
    """A prompt, one tool call (Read of a file or a Bash command) and its result, as Claude Code writes them."""
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": CWD,
        "sessionId": sid,
        "version": "2.1.74",
        "gitBranch": "main",
    }
    tid = "toolu_01" + sid.replace("-", "")[:22]
    if tool == "read":
        inp = {"file_path": f"{CWD}/{where}"}
        name, shown = "Read", _numbered(text)
        result: dict = {
            "type": "text",
            "file": {
                "filePath": inp["file_path"],
                "content": text,
                "numLines": text.count("\n") + 1,
                "startLine": 1,
                "totalLines": text.count("\n") + 1,
            },
        }
    else:
        inp = {"command": where, "description": "Run command"}
        name, shown = "Bash", text
        result = {"stdout": text, "stderr": "", "interrupted": False, "isImage": False}
    ids = [str(uuid.uuid5(NS, f"{sid}-{i}")) for i in range(3)]
    return [
        {
            **base,
            "parentUuid": None,
            "type": "user",
            "uuid": ids[0],
            "timestamp": "2026-03-02T09:00:00.000Z",
            "message": {"role": "user", "content": "Show me this part of the package."},
        },
        {
            **base,
            "parentUuid": ids[0],
            "type": "assistant",
            "uuid": ids[1],
            "timestamp": "2026-03-02T09:00:03.000Z",
            "message": {
                "model": "claude-sonnet-4-5",
                "id": "msg_01" + sid[:22],
                "type": "message",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}],
            },
        },
        {
            **base,
            "parentUuid": ids[1],
            "type": "user",
            "uuid": ids[2],
            "timestamp": "2026-03-02T09:00:06.000Z",
            "message": {
                "role": "user",
                "content": [{"tool_use_id": tid, "type": "tool_result", "content": shown, "is_error": False}],
            },
            "toolUseResult": result,
        },
    ]


def _outputs(lines: list[dict]) -> list[str]:
    """The two copies of the tool output in a redacted session: what the model saw, and toolUseResult."""
    last = lines[2]
    res = last["toolUseResult"]
    return [last["message"]["content"][0]["content"], res.get("stdout") or res["file"]["content"]]


@pytest.fixture(scope="module")
def redacted(tmp_path_factory) -> dict[str, list[str]]:
    """One ``tracepub redact`` over a session per snippet (plus a control session holding a fake token):
    snippet id -> the redacted copies of its tool output."""
    root = tmp_path_factory.mktemp("harmless")
    home = root / "home" / USER
    home.mkdir(parents=True)
    projects = root / "claude" / "projects" / CWD.replace("/", "-")
    projects.mkdir(parents=True)
    sids = {}
    for item in ITEMS:
        sid = str(uuid.uuid5(NS, item["id"]))
        sids[item["id"]] = sid
        lines = _session(sid, item["tool"], item["file"], item["text"])
        (projects / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    token = github_token(random.Random(7), "ghp")
    control = str(uuid.uuid5(NS, "control"))
    lines = _session(control, "shell", "cat .env", f"GITHUB_TOKEN={token}\nDEBUG=1\n")
    (projects / f"{control}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = root / "out"
    with pytest.MonkeyPatch.context() as mp:  # the autouse fake home is per test; this runs once per module
        mp.setenv("HOME", str(home))
        mp.setenv("USER", USER)
        mp.setenv("LOGNAME", USER)
        for name in list(os.environ):
            if any(
                k in name.upper()
                for k in ("TOKEN", "SECRET", "PASSWORD", "API_KEY", "ACCESS_KEY", "CREDENTIAL")
            ):
                mp.delenv(name, raising=False)
        for name in (
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "PI_CODING_AGENT_DIR",
            "OPENCODE_DB",
            "HERMES_HOME",
            "XDG_DATA_HOME",
            "XDG_CONFIG_HOME",
            "HF_TOKEN",
            "HF_HOME",
        ):
            mp.delenv(name, raising=False)
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        res = CliRunner().invoke(
            cli, ["redact", str(root / "claude"), "--out", str(out), "-j", "1", "--json"]
        )
    assert res.exit_code == 0, res.output
    found = {p.stem: p for p in (out / "dataset").rglob("*.jsonl")}
    texts = {}
    for iid, sid in sids.items():
        assert sid in found, f"session of {iid} missing from the output"
        texts[iid] = _outputs([json.loads(x) for x in found[sid].read_text(encoding="utf-8").splitlines()])
    control_out = _outputs([json.loads(x) for x in found[control].read_text(encoding="utf-8").splitlines()])
    assert all(token not in t and "DEBUG=1" in t for t in control_out), "the control token was not redacted"
    return texts


def test_labelled_file_is_well_formed():
    assert 200 <= len(ITEMS) <= 600
    ids = [i["id"] for i in ITEMS]
    assert len(set(ids)) == len(ids)
    for item in ITEMS:
        assert set(item) >= {"id", "class", "text", "value", "source", "file", "tool"}, item
        assert item["value"] and item["value"] in item["text"], item["id"]
        assert item["tool"] in ("read", "shell"), item["id"]
    assert not XFAIL_TODAY - set(ids), "an xfail id names no snippet"


@pytest.mark.parametrize(
    "item",
    [
        pytest.param(
            i,
            id=i["id"],
            marks=[pytest.mark.xfail(strict=False, reason="over-redacted today")]
            if i["id"] in XFAIL_TODAY
            else [],
        )
        for i in ITEMS
    ],
)
def test_harmless_value_survives(item: dict, redacted: dict[str, list[str]]):
    for copy in redacted[item["id"]]:
        assert item["value"] in copy, f"{item['class']}: {item['value']!r} redacted in {copy[:300]!r}"
