"""Selection: --project, --since/--until, --harness, --session, --exclude-session; applied before
redaction and recorded in the manifest (criteria, counts) and the card (counts only)."""
# ruff: noqa: F811 - the tree and utc fixtures are imported from test_sessions

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_sessions import SID_A, SID_B, SID_C, claude_session, tree, utc  # noqa: F401

from tracepub.cli import cli
from tracepub.model import SessionInfo, Unit
from tracepub.selection.select import (
    Selection,
    SelectionError,
    group,
    parse_when,
    plan,
    project_matches,
    resolve_ids,
)
from tracepub.sources.discover import discover


def picked(root, **criteria) -> list[str]:
    sel = Selection(**criteria)
    p = plan(discover([root]).units, sel, set())
    return sorted(p.sessions)


# -- project --------------------------------------------------------------------------------------


def test_project_bare_name_matches_last_component(tree):
    assert picked(tree, projects=["app"]) == [SID_A]
    assert picked(tree, projects=["client-*"]) == [SID_C]
    assert picked(tree, projects=["nothing"]) == []


def test_project_path_with_tilde_includes_subfolders(tree):
    assert picked(tree, projects=["~/src/app"]) == [SID_A, SID_B]
    assert picked(tree, projects=["~/src/app/"]) == [SID_A, SID_B]
    assert picked(tree, projects=["~/src/ap"]) == []  # a path is not a string prefix
    assert picked(tree, projects=["/work/*"]) == [SID_C]
    assert picked(tree, projects=["app", "/work/client-api"]) == [SID_A, SID_C]  # OR


def test_project_matching_rules():
    assert project_matches("/home/me/src/App", "App") and not project_matches("/home/me/src/App", "app")
    assert not project_matches(None, "*")
    assert project_matches("/srv/x/", "x")


# -- since / until --------------------------------------------------------------------------------


def test_since_until_keep_sessions_entirely_inside(tree, utc):
    assert picked(tree, since="2026-03-01") == [SID_A, SID_B, SID_C]
    assert picked(tree, since="2026-03-01T10:00") == [SID_A, SID_B, SID_C]  # inclusive
    assert picked(tree, since="2026-03-01T10:00:01") == [SID_B, SID_C]
    assert picked(tree, until="2026-03-01") == [SID_A]  # a date alone: the whole day
    assert picked(tree, until="2026-03-16") == [SID_A, SID_B]
    assert picked(tree, until="2026-03-16T08:59") == [SID_A]  # B ends at 09:00
    # C starts on March 31st but ends on April 1st: not inside March
    assert picked(tree, since="2026-03-02", until="2026-03-31") == [SID_B]
    assert picked(tree, since="2026-03-02", until="2026-04-01") == [SID_B, SID_C]
    assert picked(tree, since="2026-03-01T12:00+02:00", until="2026-03-01T13:00+02:00") == [SID_A]


def test_sessions_without_timestamps_are_left_out_by_dates(tmp_path, utc):
    claude_session(tmp_path, "/x/y", SID_A, None, None)
    claude_session(tmp_path, "/x/z", SID_B, "2026-01-01T00:00:00Z", "2026-01-01T00:10:00Z")
    assert picked(tmp_path, since="2020-01-01") == [SID_B]
    assert picked(tmp_path) == [SID_A, SID_B]


def test_bad_dates_are_usage_errors(tree):
    with pytest.raises(SelectionError):
        parse_when("last tuesday")
    with pytest.raises(SelectionError):
        Selection(since="2026-04-01", until="2026-03-01")
    res = CliRunner().invoke(cli, ["redact", str(tree), "--out", "o", "--since", "yesterday"])
    assert res.exit_code == 2 and "YYYY-MM-DD" in res.output


# -- harness --------------------------------------------------------------------------------------


def test_harness_names_and_unknown_names(tree):
    assert picked(tree, harnesses=["claude"]) == [SID_A, SID_B, SID_C]
    assert picked(tree, harnesses=["Claude-Code"]) == [SID_A, SID_B, SID_C]
    with pytest.raises(SelectionError, match="unknown harness"):
        Selection(harnesses=["claud"])


def test_harness_filter_needs_no_reading(monkeypatch):
    import tracepub.selection.select as selection

    monkeypatch.setattr(selection, "known_harnesses", lambda: ["claude_code", "other"])
    units = [
        Unit("claude_code", Path("/nonexistent/a.jsonl"), "p/a.jsonl"),
        Unit("other", Path("/nonexistent/b.jsonl"), "p/b.jsonl"),
    ]
    p = plan(units, Selection(harnesses=["other"]), set())  # the files do not exist: nothing was read
    assert [u.harness for u in p.units] == ["other"] and p.excluded == 1


# -- session ids ----------------------------------------------------------------------------------


def test_session_full_id_unique_prefix_and_errors(tree):
    assert picked(tree, sessions=[SID_B]) == [SID_B]
    assert picked(tree, sessions=["aaaa", "cccc3333"]) == [SID_A, SID_C]
    assert picked(tree, exclude_sessions=["bbbb"]) == [SID_A, SID_C]
    assert picked(tree, sessions=["aaaa"], exclude_sessions=[SID_A]) == []  # exclusion wins
    with pytest.raises(SelectionError, match="no discovered session"):
        picked(tree, exclude_sessions=["dddd"])  # a typo must not publish what it meant to exclude
    with pytest.raises(SelectionError, match="ambiguous"):
        resolve_ids(["ab"], ["abc", "abd"])


def test_subagents_follow_their_session(tree):
    p = plan(discover([tree]).units, Selection(exclude_sessions=[SID_A]), set())
    assert not any(SID_A in str(u.source) for u in p.units)
    p = plan(discover([tree]).units, Selection(sessions=[SID_A]), set())
    assert len(p.units) == 2 and any("subagents" in u.relpath for u in p.units)


def test_reader_parent_groups_sessions():
    units = [Unit("h", Path("/a/p.jsonl"), "p.jsonl"), Unit("h", Path("/a/c.jsonl"), "c.jsonl")]
    infos = [SessionInfo("h", "P"), SessionInfo("h", "C", parent="P")]
    [s] = group(units, infos)
    assert s.id == "P" and len(s.units) == 2


def test_all_criteria_must_hold(tree, utc):
    assert picked(tree, projects=["~/src/app"], until="2026-03-10") == [SID_A]


# -- end to end: redaction sees only the selection; manifest and card record it ---------------------


def test_redact_with_selection_records_criteria_and_counts(tree, tmp_path, utc):
    out = tmp_path / "out"
    res = CliRunner().invoke(
        cli,
        [
            "redact",
            str(tree),
            "--out",
            str(out),
            "--no-ner",
            "-j",
            "1",
            "--json",
            "--project",
            "~/src/app",
            "--exclude-session",
            "bbbb",
        ],
    )
    assert res.exit_code == 0, res.output
    files = sorted(p.name for p in (out / "dataset").rglob("*.jsonl"))
    assert files == sorted(["agent-a1.jsonl", f"{SID_A}.jsonl"])
    manifest = json.loads((out / "manifest.json").read_text())
    sel = manifest["selection"]
    assert sel["criteria"] == {"project": ["~/src/app"], "exclude_session": ["bbbb"]}
    assert sel["counts"] == {"discovered": 3, "excluded": 2, "denied": 0, "dropped": 0, "included": 1}
    card = (out / "dataset" / "README.md").read_text()
    assert "Selection: 1 of 3 discovered sessions are included (2 not selected)." in card
    assert "src/app" not in card and "bbbb" not in card
    summary = json.loads(res.stdout)
    assert summary["selection"] == sel


def test_redact_refuses_an_unmatched_session_id(tree, tmp_path):
    res = CliRunner().invoke(
        cli, ["redact", str(tree), "--out", str(tmp_path / "o"), "--no-ner", "--session", "ffff"]
    )
    assert res.exit_code == 1 and "no discovered session" in res.output
    assert not (tmp_path / "o" / "dataset").exists()
