"""bench/corpus_mix.py, the realistic mix that bench/throughput.py's headline times: it writes
every harness, the same bytes for the same seed, and every value it labels is really there."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import corpus_mix  # noqa: E402
import peers  # noqa: E402
import throughput  # noqa: E402

SIZE = 400_000


@pytest.fixture(scope="module")
def mix(tmp_path_factory) -> corpus_mix.MixCorpus:
    return corpus_mix.generate(tmp_path_factory.mktemp("mix") / "a", SIZE, seed=3)


def _store_rows(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return list(db.iterdump())
    finally:
        db.close()


def _store_text(path: Path) -> str:
    """Every text cell of a store, and the strings of the JSON cells decoded."""
    db = sqlite3.connect(path)
    parts: list[str] = []
    try:
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for row in db.execute(f"SELECT * FROM {table}"):
                for cell in row:
                    if isinstance(cell, str):
                        parts.append(cell)
                        parts.extend(peers._leaves(cell))
    finally:
        db.close()
    return "\n".join(parts)


def _snapshot(c: corpus_mix.MixCorpus) -> dict[str, object]:
    """Every file's bytes, the stores row for row (a store's pages may differ, its rows may not)."""
    out: dict[str, object] = {}
    for p in sorted(c.root.rglob("*")):
        if p.is_file():
            rel = p.relative_to(c.root).as_posix()
            out[rel] = _store_rows(p) if p.suffix == ".db" else p.read_bytes()
    return out


def test_every_harness_is_written_jsonl_and_both_stores(mix) -> None:
    harnesses = {s["harness"] for s in mix.sessions}
    assert harnesses == set(corpus_mix.HARNESSES)
    assert mix.bytes >= SIZE
    for s in mix.sessions:
        if s["harness"] in ("opencode", "hermes"):
            assert "file" not in s
        else:
            assert (mix.corpus / s["file"]).stat().st_size == s["bytes"]
    assert len({s["file"] for s in mix.sessions if "file" in s}) == sum(
        1 for s in mix.sessions if "file" in s
    )
    db = sqlite3.connect(mix.corpus / "opencode" / "opencode.db")
    assert db.execute("SELECT COUNT(*) FROM session").fetchone()[0] == sum(
        s["harness"] == "opencode" for s in mix.sessions
    )
    db = sqlite3.connect(mix.corpus / "hermes" / "state.db")
    assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == sum(
        s["harness"] == "hermes" for s in mix.sessions
    )
    env = json.loads((mix.root / "env.json").read_text())
    assert (Path(env["HOME"]) / ".gitconfig").read_text().count("Jane Doe") == 1


def test_the_same_seed_gives_the_same_corpus(mix, tmp_path) -> None:
    again = corpus_mix.generate(tmp_path / "b", SIZE, seed=3)
    first, second = _snapshot(mix), _snapshot(again)
    first.pop("env.json"), second.pop("env.json")  # it names the folder's own path
    assert first == second


def test_every_label_is_in_its_session_and_the_kinds_are_there(mix) -> None:
    text: dict[str, str] = {}
    for s in mix.sessions:
        if "file" in s:
            text[s["session"]] = "\n".join(peers.texts(mix.corpus / s["file"]))
    stores = "\n".join(_store_text(p) for p in mix.corpus.rglob("*.db"))
    for lab in mix.labels:
        assert lab["value"] in text.get(lab["session"], stores), lab
    kinds = {lab["kind"] for lab in mix.labels}
    assert kinds == {"secret", "pii"}
    assert {lab["type"] for lab in mix.labels if lab["kind"] == "pii"} == {"pii.person", "pii.phone"}


def test_describe_counts_sessions_lines_and_labels(mix) -> None:
    d = corpus_mix.describe(corpus_mix.load(mix.root))
    assert d["sessions"] == len(mix.sessions)
    assert sum(d["per_harness"].values()) == len(mix.sessions)
    lines = sum(len((mix.corpus / s["file"]).read_bytes().splitlines()) for s in mix.sessions if "file" in s)
    assert d["jsonl_lines"] == lines
    assert d["labels"]["secret"] == sum(lab["kind"] == "secret" for lab in mix.labels)
    assert 500 < d["bytes_per_line"] < 20_000


def test_the_cache_key_names_the_generator_and_the_report_shows_the_mix(mix, capsys) -> None:
    tag = throughput.corpus_tag("mix", 50_000_000, False, 1)
    assert tag == f"mix-{corpus_mix.source_digest()}-50000000-1"
    assert len(corpus_mix.source_digest()) == 8
    tp = throughput.median_run(
        [
            {
                "bytes": mix.bytes,
                "seconds": 1.0,
                "cpu_seconds": 1.5,
                "files": 9,
                "rss_largest": 1,
                "rss_tree": 2,
                "findings": 3,
                "perf": {"scanned": 600, "cache_hits": 200},
            }
        ]
    )
    r = {
        "tracepub": tp,
        "single_file": False,
        "corpus": "mix",
        "cores": 2,
        "jobs": 2,
        "mix": corpus_mix.describe(mix),
    }
    throughput.print_report(r)
    out = capsys.readouterr().out
    assert f"{len(mix.sessions)} sessions (" in out and "claude_code" in out and "hermes" in out
    assert f"strings {600 / (mix.bytes / 1e6):,.0f} per MB scanned" in out
