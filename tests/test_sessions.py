"""`tracepub sessions`: listing (text and --json), every sample session of every harness, and
dropping / restoring a session in review (immediately, and across re-runs)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from tracepub.cli import cli
from tracepub.review import decisions
from tracepub.review.sessions import DropError, drop_session, list_sessions, restore_session
from tracepub.run.pipeline import run
from tracepub.runtypes import RunOptions
from tracepub.selection.select import unit_key
from tracepub.sources.discover import discover

# -- Claude Code sessions made on the fly ---------------------------------------------------------


def claude_session(
    root: Path,
    cwd: str,
    sid: str,
    start: str | None,
    end: str | None,
    text: str = "hello",
    tool_input: dict | None = None,
    tool_output: str = "ok",
    subagent_text: str | None = None,
    extra: list[dict] | None = None,
) -> Path:
    """A small but real-shaped Claude Code transcript under ``root/<encoded cwd>/<sid>.jsonl``
    (plus ``<sid>/subagents/agent-1.jsonl`` when ``subagent_text`` is given)."""
    folder = root / ("-" + cwd.strip("/").replace("/", "-"))
    folder.mkdir(parents=True, exist_ok=True)
    base = {"cwd": cwd, "sessionId": sid, "version": "2.1.74", "userType": "external", "isSidechain": False}

    def stamp(rec: dict, ts: str | None) -> dict:
        return {**rec, "timestamp": ts} if ts else rec

    recs = [
        stamp(
            {
                **base,
                "type": "user",
                "uuid": "u1",
                "parentUuid": None,
                "message": {"role": "user", "content": text},
            },
            start,
        ),
        stamp(
            {
                **base,
                "type": "assistant",
                "uuid": "u2",
                "parentUuid": "u1",
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_1",
                            "name": "Bash",
                            "input": tool_input or {"command": "ls"},
                        }
                    ],
                },
            },
            start,
        ),
        stamp(
            {
                **base,
                "type": "user",
                "uuid": "u3",
                "parentUuid": "u2",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": tool_output}],
                },
            },
            end,
        ),
        stamp(
            {
                **base,
                "type": "assistant",
                "uuid": "u4",
                "parentUuid": "u3",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            },
            end,
        ),
        *(extra or []),
    ]
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    if subagent_text is not None:
        sub = folder / sid / "subagents"
        sub.mkdir(parents=True, exist_ok=True)
        rec = stamp(
            {
                **base,
                "agentId": "a1",
                "type": "user",
                "uuid": "s1",
                "parentUuid": None,
                "isSidechain": True,
                "message": {"role": "user", "content": subagent_text},
            },
            end,
        )
        (sub / "agent-a1.jsonl").write_text(json.dumps(rec) + "\n", encoding="utf-8")
    return path


SID_A = "aaaa1111-0000-4000-8000-000000000001"
SID_B = "bbbb2222-0000-4000-8000-000000000002"
SID_C = "cccc3333-0000-4000-8000-000000000003"


@pytest.fixture
def utc(monkeypatch):
    """Local time is UTC while a test runs (dates on the command line are local time)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def tree(tmp_path, isolated_home):
    root = tmp_path / "claude" / "projects"
    home = str(isolated_home)
    claude_session(
        root,
        f"{home}/src/app",
        SID_A,
        "2026-03-01T10:00:00.000Z",
        "2026-03-01T11:00:00.000Z",
        subagent_text="survey the module",
    )
    claude_session(root, f"{home}/src/app/web", SID_B, "2026-03-15T10:00:00.000Z", "2026-03-16T09:00:00.000Z")
    claude_session(root, "/work/client-api", SID_C, "2026-03-31T23:00:00.000Z", "2026-04-01T01:00:00.000Z")
    return root


def redact(root: Path, out: Path, **kw) -> object:
    return run(RunOptions(out=out, sources=[root], jobs=1, **kw))


# -- listing --------------------------------------------------------------------------------------


def test_listing_text_has_one_line_per_session(tree, utc, isolated_home):
    res = CliRunner().invoke(cli, ["sessions", str(tree)])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["HARNESS", "SESSION", "PROJECT", "START", "END", "MSGS", "TOOLS", "SIZE"]
    rows = [ln.split() for ln in lines[1:]]
    assert [r[1] for r in rows] == [SID_A, SID_B, SID_C]  # oldest first
    a = rows[0]
    assert a[0] == "claude_code" and a[2] == f"{isolated_home}/src/app"
    assert a[3:5] == ["2026-03-01", "10:00"] and a[5:7] == ["2026-03-01", "11:00"]
    # 3 messages in the transcript (the tool result is not one) + 1 in the subagent; 1 tool call
    assert a[7:9] == ["4", "1"]
    assert "3 session(s), 4 file(s)" in res.stderr


def test_listing_json_for_scripts(tree):
    res = CliRunner().invoke(cli, ["sessions", str(tree), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    by_id = {s["id"]: s for s in data["sessions"]}
    assert set(by_id) == {SID_A, SID_B, SID_C}
    a = by_id[SID_A]
    assert a["harness"] == "claude_code"
    assert a["start"] == "2026-03-01T10:00:00.000Z" and a["end"] == "2026-03-01T11:00:00.000Z"
    assert (a["messages"], a["tool_calls"]) == (4, 1)
    assert len(a["files"]) == 2 and any("/subagents/" in f for f in a["files"])
    assert a["size"] == sum(Path(f).stat().st_size for f in a["files"])
    assert by_id[SID_C]["project"] == "/work/client-api"


def test_listing_takes_selection_options(tree):
    res = CliRunner().invoke(cli, ["sessions", str(tree), "--json", "--project", "client-*"])
    assert [s["id"] for s in json.loads(res.stdout)["sessions"]] == [SID_C]
    res = CliRunner().invoke(cli, ["sessions", str(tree), "--harness", "nosuch"])
    assert res.exit_code == 2 and "unknown harness" in res.output


def test_listing_runs_no_detection(tree, monkeypatch):
    import tracepub.detect.engine as detect

    def boom(*a, **k):
        raise AssertionError("sessions must not run detection")

    monkeypatch.setattr(detect.Engine, "__init__", boom)
    assert CliRunner().invoke(cli, ["sessions", str(tree)]).exit_code == 0


def check_listing(root: Path) -> set[str]:
    """Every unit discovered under root appears in the listing, and every harness found has a
    session listed; returns the harnesses."""
    disc = discover([root])
    found, _ = list_sessions([root])
    listed = [f for s in found for f in s.to_json()["files"]]
    assert sorted(listed) == sorted(unit_key(u) for u in disc.units)
    assert {u.harness for u in disc.units} == {s.harness for s in found}
    res = CliRunner().invoke(cli, ["sessions", str(root), "--json"])
    assert res.exit_code == 0, res.output
    assert sorted(f for s in json.loads(res.stdout)["sessions"] for f in s["files"]) == sorted(listed)
    return {u.harness for u in disc.units}


def test_sessions_lists_every_generated_session(tree):
    assert check_listing(tree) == {"claude_code"}


def test_sessions_lists_every_sample_session_of_every_harness():
    if not SAMPLES.exists() or not discover([SAMPLES]).units:
        pytest.skip("sample_traces/ holds no sessions yet")
    harnesses = check_listing(SAMPLES)
    # every harness folder of sample_traces that a reader recognises has a session listed
    for sub in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        units = discover([sub]).units
        if units:
            found, _ = list_sessions([sub])
            assert found, f"no session listed for {sub.name}"
            assert {u.harness for u in units} <= harnesses


# -- dropping in review ---------------------------------------------------------------------------


def dataset_files(out: Path) -> set[str]:
    return {p.relative_to(out / "dataset").as_posix() for p in (out / "dataset").rglob("*") if p.is_file()}


def manifest_files(out: Path) -> set[str]:
    return set(json.loads((out / "manifest.json").read_text())["files"])


def test_drop_takes_effect_at_once_and_survives_a_rerun(tree, tmp_path):
    out = tmp_path / "out"
    redact(tree, out, detect=_no_ner())
    before = dataset_files(out)
    assert any(SID_A in f for f in before) and any("subagents" in f for f in before)

    res = drop_session(out, SID_A[:8], "jane")  # a unique prefix
    assert res.session == SID_A and res.immediate
    after = dataset_files(out)
    assert not any(SID_A in f for f in after), "the session and its subagent are gone"
    assert after == manifest_files(out)
    assert SID_A not in (out / "review" / "findings.jsonl").read_text()
    card = (out / "dataset" / "README.md").read_text()
    assert "1 dropped by the reviewer" in card and SID_A not in card
    assert decisions.load(out).dropped_sessions == {SID_A}
    assert not list((out / "dataset").rglob(".*.tmp"))

    summary = redact(tree, out, detect=_no_ner())  # a re-run keeps it out
    assert not any(SID_A in f for f in dataset_files(out))
    assert [d["session"] for d in summary.dropped] == [SID_A]
    assert summary.selection["counts"]["dropped"] == 1
    assert not (out / "review" / "dropped").exists()

    res = restore_session(out, SID_A, "jane")  # dropped before this run: needs a re-run
    assert not res.immediate and "tracepub redact" in res.message()
    assert not any(SID_A in f for f in dataset_files(out))
    redact(tree, out, detect=_no_ner())
    assert dataset_files(out) == before


def test_drop_then_restore_gives_back_the_same_bytes(tree, tmp_path):
    out = tmp_path / "out"
    redact(tree, out, detect=_no_ner())
    manifest = json.loads((out / "manifest.json").read_text())
    findings = (out / "review" / "findings.jsonl").read_bytes()

    drop_session(out, SID_B, "jane")
    assert manifest_files(out) == set(manifest["files"]) - {f for f in manifest["files"] if SID_B in f}
    res = restore_session(out, SID_B[:6], "jane")
    assert res.immediate and res.files
    again = json.loads((out / "manifest.json").read_text())
    assert again["files"] == manifest["files"]
    assert again["summary"] == manifest["summary"]
    assert (out / "review" / "findings.jsonl").read_bytes() == findings
    assert decisions.load(out).dropped_sessions == set()


def test_drop_refuses_unknown_sessions_and_missing_runs(tree, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(DropError, match="no redaction run"):
        drop_session(out, SID_A, "jane")
    redact(tree, out, detect=_no_ner())
    with pytest.raises(DropError, match="no discovered session"):
        drop_session(out, "ffff", "jane")
    with pytest.raises(DropError):
        restore_session(out, SID_A, "jane")  # never dropped
    assert decisions.read(out) == []


def _no_ner():
    from tracepub.detect.registry import DetectConfig

    return DetectConfig(ner=False)


def test_a_drop_recorded_under_a_file_name_id_survives_reading_the_session(tmp_path):
    """A plain run names sessions by file name; a later run reads them (info ids). A transcript
    whose file name is not its session id must still stay dropped."""
    root = tmp_path / "projects"
    path = claude_session(root, "/x/app", SID_A, "2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z")
    path.rename(path.with_name("renamed-copy.jsonl"))
    claude_session(root, "/x/other", SID_B, "2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z")
    out = tmp_path / "out"
    redact(root, out, detect=_no_ner())
    assert drop_session(out, "renamed-copy", "jane").files
    summary = redact(root, out, detect=_no_ner())  # reads sessions now (a drop is recorded)
    assert [d["session"] for d in summary.dropped] == [SID_A]
    assert dataset_files(out) == {"README.md", f"claude_code/-x-other/{SID_B}.jsonl"}


def test_review_command_drops_and_restores_sessions(tree, tmp_path):
    out = tmp_path / "out"
    redact(tree, out, detect=_no_ner())
    before = dataset_files(out)
    runner = CliRunner()
    res = runner.invoke(cli, ["review", str(out), "--drop-session", SID_A[:8], "--reviewer", "jane"])
    assert res.exit_code == 0, res.output
    assert "Dropped session" in res.output
    assert not any(SID_A in f for f in dataset_files(out))
    res = runner.invoke(cli, ["review", str(out), "--restore-session", SID_A, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["sessions"][0]["action"] == "restore_session"
    assert dataset_files(out) == before
    res = runner.invoke(cli, ["review", str(out), "--drop-session", "ffff"])
    assert res.exit_code == 1 and "no discovered session" in res.output
