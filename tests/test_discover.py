"""Discovery without SOURCES: every harness's default location under $HOME, and the env overrides."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from samples import SAMPLES, generator, make_home

from tracepub.cli import cli
from tracepub.sources.discover import default_sources, discover

PLANTED = generator().PLANTED
# Units expected from the harness samples (generic formats are never looked for under $HOME):
# every planted sample, the subagent's .meta.json sidecar; the duplicate Hermes log is left out.
EXPECTED = {
    "claude_code": 3,
    "codex": 2,
    "pi": 1,
    "gemini_cli": 2,
    "opencode": 2,
    "hermes": 3,
}


def _counts(units) -> dict[str, int]:
    out: dict[str, int] = {}
    for u in units:
        out[u.harness] = out.get(u.harness, 0) + 1
    return out


def _redact(env: dict[str, str], out: Path):
    result = CliRunner().invoke(cli, ["redact", "--out", str(out), "--json", "--jobs", "1"], env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _distractors(home: Path) -> None:
    """Files in the harness folders that are not sessions, including a generic-format one."""
    (home / ".claude" / "settings.json").write_text('{"model": "opus", "theme": "dark"}')  # not searched
    (home / ".claude" / "projects" / "notes.json").write_text('{"todo": ["rotate keys"]}')
    openai = (SAMPLES / "generic" / "openai-chat.jsonl").read_bytes()
    (home / ".codex" / "sessions" / "finetune.jsonl").write_bytes(openai)
    (home / ".gemini" / "tmp" / "acme-web" / "logs.json").write_text('[{"sessionId": "x"}]')  # not searched
    (home / ".gemini" / "tmp" / "acme-web" / "chats" / "draft.json").write_text('{"sessionId": "x"}')


def test_redact_without_sources_finds_every_harness(isolated_home, tmp_path):
    home = make_home(isolated_home)
    _distractors(home)
    summary = _redact({"HOME": str(home)}, tmp_path / "out")
    assert summary["harnesses"] == EXPECTED
    assert summary["problems"] == []
    assert len(summary["duplicates"]) == 1 and "session_" in summary["duplicates"][0]
    skipped = {Path(p).name for p in summary["skipped"]}
    assert skipped == {
        "notes.json",
        "finetune.jsonl",
        "draft.json",
    }  # generic formats are not guessed under $HOME
    dataset = tmp_path / "out" / "dataset"
    for sample in PLANTED.values():
        if sample.harness not in EXPECTED:
            continue
        hits = list((dataset / sample.harness).rglob(sample.output))
        assert len(hits) == 1, sample
        text = hits[0].read_text(encoding="utf-8")
        assert all(s not in text for s in sample.secrets) and "jdoe" not in text


def test_review_rerun_discovers_like_the_first_run(isolated_home, tmp_path, monkeypatch):
    """run.json stores the default locations as sources (home-relative: the username is not
    spelled out); a re-run must still leave generic formats under $HOME alone."""
    import json

    from tracepub.review import runstate
    from tracepub.run.pipeline import run

    home = make_home(isolated_home)
    _distractors(home)
    first = _redact({"HOME": str(home)}, tmp_path / "out")
    monkeypatch.setenv("HOME", str(home))
    stored = json.loads((tmp_path / "out" / "review" / "run.json").read_text())["sources"]
    assert stored and all(s.startswith("~/") for s in stored) and "jdoe" not in "".join(stored)
    opts = runstate.load_options(tmp_path / "out")
    assert opts.defaults and opts.sources
    opts.jobs = 1
    again = run(opts)
    assert again.harnesses == first["harnesses"] and sorted(again.skipped) == sorted(first["skipped"])


def test_env_overrides_are_honoured(isolated_home, tmp_path):
    cfg = tmp_path / "cfg"
    shutil.copytree(SAMPLES / "claude", cfg / "claude-config")
    shutil.copytree(SAMPLES / "codex", cfg / "codex-home")
    shutil.copytree(SAMPLES / "pi" / "agent", cfg / "pi-agent")
    (cfg / "oc").mkdir(parents=True)
    shutil.copy(SAMPLES / "opencode" / "opencode.db", cfg / "oc" / "work.db")
    shutil.copytree(SAMPLES / "opencode" / "storage", cfg / "xdg" / "opencode" / "storage")
    shutil.copytree(SAMPLES / "hermes", cfg / "hermes-home")
    shutil.copytree(SAMPLES / "gemini", isolated_home / ".gemini")  # Gemini CLI has no override
    env = {
        "HOME": str(isolated_home),
        "CLAUDE_CONFIG_DIR": str(cfg / "claude-config"),
        "CODEX_HOME": str(cfg / "codex-home"),
        "PI_CODING_AGENT_DIR": str(cfg / "pi-agent"),
        "OPENCODE_DB": str(cfg / "oc" / "work.db"),
        "XDG_DATA_HOME": str(cfg / "xdg"),
        "HERMES_HOME": str(cfg / "hermes-home"),
    }
    sources = default_sources(env, isolated_home)
    assert all(str(s).startswith((str(cfg), str(isolated_home / ".gemini"))) for s in sources)
    assert _counts(discover(sources, defaults=True).units) == EXPECTED
    summary = _redact(env, tmp_path / "out")
    assert summary["harnesses"] == EXPECTED and summary["problems"] == []


def test_defaults_are_under_home(isolated_home):
    make_home(isolated_home)
    sources = default_sources({"HOME": str(isolated_home)}, isolated_home)
    rel = sorted(s.relative_to(isolated_home).as_posix() for s in sources)
    assert rel == sorted(
        [
            ".claude/projects",
            ".codex/sessions",
            ".pi/agent/sessions",
            ".gemini/tmp/acme-web/chats",
            ".local/share/opencode/opencode.db",
            ".local/share/opencode/storage",
            ".hermes/state.db",
            ".hermes/sessions",
            ".hermes/trajectory_samples.jsonl",
        ]
    )


def test_missing_default_locations_are_not_problems(isolated_home):
    assert default_sources({"HOME": str(isolated_home)}, isolated_home) == []


def test_opencode_db_wins_over_migrated_legacy_tree(tmp_path):
    """OpenCode migrates storage/ into opencode.db once: the same session is read from the DB."""
    from tracepub.readers.opencode import OpenCodeDb

    root = tmp_path / "opencode"
    shutil.copytree(SAMPLES / "opencode", root)
    legacy = next((root / "storage" / "session").glob("*/*.json"))
    sid = json.loads(legacy.read_text())["id"]
    # make the DB hold the legacy session as well (as after a migration)
    import sqlite3

    con = sqlite3.connect(root / "opencode.db")
    con.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)"
        " VALUES (?, 'p', 's', '/tmp', 't', '1', 1, 2)",
        (sid,),
    )
    con.commit()
    con.close()
    found = discover([root])
    by_key = {u.key: u for u in found.units}
    assert set(by_key) == {sid, next(u.key for u in found.units if u.key != sid)}
    assert type(OpenCodeDb()).__name__ == by_key[sid].reader
    assert found.duplicates == [f"{legacy} (session {sid}: read from its preferred store instead)"]
    # the legacy tree alone is read in full
    only = discover([root / "storage"])
    assert [u.key for u in only.units] == [sid] and only.duplicates == []


def test_folder_source_is_searched_recursively_hidden_folders_included(tmp_path):
    hidden = tmp_path / "backup" / ".claude"
    shutil.copytree(SAMPLES / "claude", hidden)
    found = discover([tmp_path / "backup"])
    assert _counts(found.units) == {"claude_code": 3}


def test_same_file_given_twice_is_read_once(tmp_path):
    f = next(SAMPLES.glob("pi/**/*.jsonl"))
    found = discover([f, f.parent, f])
    assert len(found.units) == 1
