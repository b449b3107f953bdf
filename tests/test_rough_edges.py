"""The rough edges a new user hit (issue 16), each with the test that failed before.

Interactive review keeps every decision as it is made and checks a session id when typed; the
report counts each file once per value and shows the findings before the count tables;
redact's summary leads with what needs the user; ``--project NAME`` finds Gemini CLI sessions
by their ``tmp/<project>`` folder and warns about sessions with no known project; a re-run that
writes the signed bytes keeps the sign-off.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SAMPLES
from reviewkit import REVIEW_RULE, claude_session, dataset_text, invoke, planted, redacted_dir

from tracepub.outputs import groups
from tracepub.review import decisions


# -- interactive review ---------------------------------------------------------------------------------
def test_a_mistyped_drop_id_is_said_at_once_and_asked_again(tmp_path):
    p = planted()
    out = redacted_dir(tmp_path, p)
    sid = json.loads((out / "review" / "run.json").read_text())["units"][0]["session"]
    r = invoke(
        "review",
        out,
        "--interactive",
        "--reviewer",
        "Jane",
        input=f"a\n{p.codename}\nd\nno-such-session\n{sid}\nq\n",
    )
    assert r.exit_code == 0, r.output
    said = r.output.index("no discovered session has this id")
    assert said < r.output.index(f"Dropped session {sid}")  # said when typed, before the drop
    actions = [e["action"] for e in decisions.read(out)]
    assert actions == ["add", "drop_session"]  # the add made before the typo was kept
    assert not list((out / "dataset" / "claude_code").rglob("*.jsonl"))


def test_ctrl_c_in_interactive_review_loses_no_decision(tmp_path):
    p = planted()
    out = redacted_dir(tmp_path, p)
    # the add is made, then input ends at the next prompt: click raises Abort, as on Ctrl-C
    r = invoke("review", out, "--interactive", "--reviewer", "Jane", input=f"a\n{p.codename}\n")
    assert r.exit_code == 1
    assert "interrupted: 1 decision(s)" in r.output and "decisions.jsonl" in r.output
    assert [e["action"] for e in decisions.read(out)] == ["add"]
    assert p.codename in dataset_text(out)  # saved, not applied yet
    r = invoke(
        "review", out, "--interactive", "--reviewer", "Jane", input="q\n"
    )  # the next review applies it
    assert r.exit_code == 0, r.output
    assert p.codename not in dataset_text(out)


# -- the report ---------------------------------------------------------------------------------------
def _finding(file: str, n: int, path: str = "$.text") -> dict:
    return {
        "id": f"{file}-{n}",
        "file": file,
        "record": n,
        "path": path,
        "type": "identity.username",
        "detector": "identity",
        "confidence": 1.0,
        "action": "redacted",
        "placeholder": "<USER>",
        "value": "jd…e",
        "value_id": "v1",
        "context": {"before": "", "after": ""},
    }


def test_a_value_in_many_files_counts_each_file_once():
    files = [f"claude_code/s{i}.jsonl" for i in range(8)]
    in_names = [_finding(f, 0, "#file") for f in files]  # the value in every file's name...
    per_file = {f: [_finding(f, n) for n in range(1, 6)] for f in files}  # ...and 5 times inside
    agg = groups.aggregate(in_names + [x for f in files for x in per_file[f]])
    assert agg.groups["v1"].count == 48 and agg.groups["v1"].n_files == 8
    merged = groups.Aggregate()
    for f in in_names:
        groups.add_finding(merged, f, f["file"])
    for f in files:
        fold = groups.FileFold()
        for x in per_file[f]:
            fold.add(x)
        groups.merge(merged, fold)
    assert merged.groups["v1"].count == 48 and merged.groups["v1"].n_files == 8


def test_report_shows_flagged_values_before_the_count_tables(tmp_path):
    out = redacted_dir(tmp_path)
    html = (out / "review" / "report.html").read_text()
    assert html.index('id="sec-flagged"') < html.index("<h3>By type</h3>")
    assert html.index("values flagged for review") < html.index('id="sec-flagged"')


# -- redact's summary -----------------------------------------------------------------------------------
def _redact(tmp_path: Path, *extra: str):
    p = planted()
    claude_session(tmp_path / "sources" / "-home-jdoe-src-app", p)
    cfg = tmp_path / "tracepub.toml"
    cfg.write_text(REVIEW_RULE, encoding="utf-8")
    (tmp_path / "sources" / "settings.json").write_text('{"theme": "dark"}\n')
    return invoke(
        "redact",
        tmp_path / "sources",
        "--out",
        tmp_path / "out",
        "--jobs",
        "1",
        "--no-ner",
        "--config",
        cfg,
        *extra,
    )


def test_redact_summary_leads_with_what_needs_the_user(tmp_path):
    r = _redact(tmp_path)
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert lines[1] == "Needs you:"
    assert "1 value(s) flagged for review" in lines[2]
    assert any("file(s) of unknown format skipped" in line for line in lines[2:6])
    assert lines[-1] == f"Next: tracepub review {tmp_path / 'out'}"
    assert "secret.github_token:" not in r.output  # the full table is behind --verbose
    assert len(lines) < 12
    r = _redact(tmp_path, "--verbose")
    assert "  secret.github_token: " in r.output


# -- --project and Gemini CLI -----------------------------------------------------------------------------
def _gemini_home(home: Path, folder: str, sid: str) -> None:
    src = next((SAMPLES / "gemini" / "tmp" / "acme-web" / "chats").glob("*.jsonl"))
    chats = home / ".gemini" / "tmp" / folder / "chats"
    chats.mkdir(parents=True)
    text = src.read_text(encoding="utf-8")
    old = json.loads(text.splitlines()[0])["sessionId"]
    (chats / f"session-{sid}.jsonl").write_text(text.replace(old, sid), encoding="utf-8")


def test_project_finds_gemini_sessions_by_their_folder_and_warns_about_unknown_ones(isolated_home):
    _gemini_home(isolated_home, "acme-api", "11111111-2222-4333-8444-555555555555")
    _gemini_home(
        isolated_home,
        "3eb64ca35ae6d4780eed2e2d277d275d0dfbf94bc354fa8e25d3af5d3ae6c6c6",
        "66666666-7777-4888-8999-000000000000",
    )
    r = invoke("sessions", "--project", "acme-api", "--json")
    assert r.exit_code == 0, r.output
    found = json.loads(r.output[r.output.index("{") :])["sessions"]
    assert [(s["harness"], s["project"]) for s in found] == [("gemini_cli", "acme-api")]
    r = invoke("sessions", "--project", "acme-api")
    assert "1 session(s) with no known project folder were left out by --project" in r.output


# -- a sign-off binds the bytes -----------------------------------------------------------------------------
def test_a_rerun_writing_the_signed_bytes_keeps_the_signoff(tmp_path, hub):
    out = redacted_dir(tmp_path)
    assert invoke("approve", out, "--reviewer", "Jane Doe", "--yes").exit_code == 0
    signed = (out / "manifest.json").read_bytes()
    redacted_dir(tmp_path)  # the same sources and options, redacted again into out/
    assert (out / "manifest.json").read_bytes() == signed
    assert "Reviewed and approved by Jane Doe" in (out / "dataset" / "README.md").read_text()
    assert invoke("publish", out, "--repo", "me/traces", "--dry-run").exit_code == 0
    redacted_dir(tmp_path, extra="one more word")  # any changed byte voids it
    assert "Not yet approved" in (out / "dataset" / "README.md").read_text()
    r = invoke("publish", out, "--repo", "me/traces", "--dry-run")
    assert r.exit_code == 1 and "signoff.json does not match" in r.output
