"""bench/recall.py's planting and scoring on a hand-written fake sample set (not gitleaks' file).

The benchmark's figures are only as good as its bookkeeping: a planted secret that survives must
count as a leak wherever the harness put it (a tool result whose record has no canary
included), a cut that leaves a 16-character piece as partial, and a look-alike whose text
survives as kept. The "redaction" here is a string replacement on the planted files, so these
tests need no detector and say nothing about tracepub's recall.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import recall  # noqa: E402

# Shapes nobody's rule knows; alphanumeric so they appear verbatim in every encoding.
GONE = "Qx7vPz2Lk9Wm4Tn8Rb3Yc6Hd"
KEPT = "Jf5Gs1Vu8Ea2Oi7Ky4Nw9Zl3"
CUT = "Mq3Tr8Xe1Bn6Up4Ah9Ws2Dg7"  # "redacted" all but its first 18 characters
SHORT = "Fz4Kc8Lp2V"  # 10 characters: only a whole survivor counts
SAMPLES = [
    recall.Sample("t:gone", "fam-a", "tp", f'fam_a_token = "{GONE}"', (GONE,)),
    recall.Sample("t:kept", "fam-b", "tp", f"<famToken>\n    {KEPT}\n</famToken>", (KEPT,)),
    recall.Sample("t:cut", "fam-c", "tp", f"curl -H 'Authorization: Fam {CUT}'", (CUT,)),
    recall.Sample("t:short", "fam-d", "tp", f"fam_d: {SHORT}", (SHORT,)),
    recall.Sample(
        "f:kept", "fam-a", "fp", "fam_a_token = placeholder-value-kept", keep="placeholder-value-kept"
    ),
    recall.Sample("f:gone", "fam-b", "fp", "fam_b_id = lookalike-value-gone", keep="lookalike-value-gone"),
]
EXPECTED = {
    "t:gone": "redacted",
    "t:kept": "leaked",
    "t:cut": "partial",
    "t:short": "leaked",
    "f:kept": "kept",
    "f:gone": "removed",
}
JSONL = ["claude_code", "codex", "pi", "gemini"]  # native JSONL: the planted files stand in for the output


def fake_redact(corpus: Path, dataset: Path) -> None:
    """Copy the planted JSONL sessions and 'redact' by replacing values in the bytes."""
    shutil.copytree(corpus, dataset)
    for path in dataset.rglob("*.jsonl"):
        text = path.read_text(encoding="utf-8")
        text = text.replace(GONE, "<SECRET_FAM_1>").replace(CUT, CUT[:18] + "<SECRET_FAM_2>")
        text = text.replace("lookalike-value-gone", "<SECRET_FAM_3>")
        path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    work = tmp_path_factory.mktemp("recall")
    c = recall.plant(work, SAMPLES, JSONL, recall.PLACES, seed=3, per_session=5)
    fake_redact(c.corpus, work / "dataset")
    return c, recall.score(c.plantings, recall.read_output(work / "dataset"))


def test_every_sample_is_planted_everywhere_with_its_own_canary(planted):
    c, _ = planted
    assert len(c.plantings) == len(SAMPLES) * len(JSONL) * len(recall.PLACES)
    assert len({p.canary for p in c.plantings}) == len(c.plantings)
    raw = "".join(p.read_text(encoding="utf-8") for p in c.corpus.rglob("*.jsonl"))
    for p in c.plantings:
        assert p.canary in raw, p
    # Codex's JSON argument is a JSON string inside the record's JSON: quotes escaped twice.
    codex = "".join(p.read_text(encoding="utf-8") for p in (c.corpus / "codex").rglob("*.jsonl"))
    assert '\\"content\\": \\"fam_a_token = \\\\\\"' + GONE in codex


def test_outcomes_in_every_harness_and_place(planted):
    _, results = planted
    got = {(r.planting.sample.id, r.planting.harness, r.planting.place): r.outcome for r in results}
    wrong = {k: v for k, v in got.items() if v != EXPECTED[k[0]]}
    assert not wrong


def test_partial_reports_the_surviving_piece_and_its_context(planted):
    _, results = planted
    cut = [r for r in results if r.planting.sample.id == "t:cut"]
    assert cut and all(r.survivors == [CUT[:18]] for r in cut)
    assert all(CUT[:18] + "<SECRET_FAM_2>" in r.context[0] for r in cut)
    leaked = next(r for r in results if r.planting.sample.id == "t:kept")
    assert KEPT in leaked.survivors and KEPT in leaked.context[0]


def test_summary_tables_and_failure_records(planted):
    _, results = planted
    s = recall.summary(results)
    n = len(JSONL) * len(recall.PLACES)
    assert s["tp"] == 4 * n and s["fp"] == 2 * n and s["unread"] == 0
    assert s["fully_redacted"] == 0.25 and s["partial"] == 0.25 and s["leaked"] == 0.5 and s["fp_kept"] == 0.5
    assert recall.missed(s)  # both targets missed
    table = recall.render(results)
    assert "| fam-b | 24 | 0.0% | 0.0% | 100.0% | 24 | 0.0% |" in table.replace(f"| {n} |", "| 24 |")
    fails = recall.failures_json(results)
    assert {f["id"] for f in fails} == {"t:kept", "t:cut", "t:short", "f:gone"}
    assert all(f["input"] and f["harness"] and f["place"] for f in fails)


def test_a_planting_with_no_output_is_unread_not_redacted():
    p = recall.Planting("recallref-pi-00001", SAMPLES[0], "pi", "prompt")
    assert recall.score_one(p, []).outcome == "unread"
    t = recall.Tally()
    t.add(recall.score_one(p, []))
    assert t.unread == 1 and t.tp == 0


def test_a_survivor_in_file_names_or_the_card_counts():
    p = recall.Planting("recallref-pi-00001", SAMPLES[0], "pi", "prompt")
    assert recall.score_one(p, ["<SECRET_FAM_1>"], common=f"pi/{GONE}.jsonl").outcome == "leaked"
    assert recall.score_one(p, ["<SECRET_FAM_1>"], common=f"pi/{GONE[2:20]}.jsonl").outcome == "partial"


def test_subsample_spreads_over_families():
    many = [recall.Sample(f"s{f}{i}", f"fam{f}", "tp", "x", ("y",)) for f in range(5) for i in range(10)]
    picked = recall.subsample(many, 5, seed=1)
    assert len({s.family for s in picked}) == 5
    assert recall.subsample(many, None, seed=1) == many
    assert {s.family for s in recall.subsample(many, None, 1, family="fam[12]")} == {"fam1", "fam2"}


def test_real_redact_on_the_sqlite_harnesses(tmp_path):
    """The SQLite harnesses come out as STS lines, not the planted shape: the canaries must
    still map every planting back (a fake token with the right shape is redacted, a version
    string is kept)."""
    import random

    import corpus_fake as fk

    token = fk.github_token(random.Random(5), "ghp")
    samples = [
        recall.Sample("t:gh", "github-pat", "tp", f'GITHUB_TOKEN="{token}"', (token,)),
        recall.Sample("f:ver", "generic", "fp", "version = 1.4.2-beta", keep="1.4.2-beta"),
    ]
    c = recall.plant(tmp_path, samples, ["opencode", "hermes"], recall.PLACES, seed=2)
    recall.run_redact(c.corpus, tmp_path / "out", c.env, jobs=1)
    results = recall.score(c.plantings, recall.read_output(tmp_path / "out" / "dataset"))
    assert len(results) == 16
    assert {r.outcome for r in results if r.planting.sample.kind == "tp"} == {"redacted"}
    assert {r.outcome for r in results if r.planting.sample.kind == "fp"} == {"kept"}


def test_whole_conversation_formats_get_one_planting_per_session(tmp_path):
    """ShareGPT keeps a conversation on one line and writes tool output as JSON inside text
    (non-ASCII as \\uXXXX): each planting needs its own session, and a look-alike must still be
    found as planted."""
    keep = "Näytä asiakirjamallikansio 🗣️"
    samples = [recall.Sample("f:utf", "fam-u", "fp", f'msgstr "{keep}"', keep=keep), SAMPLES[1]]
    c = recall.plant(tmp_path, samples, ["sharegpt", "hermes_json"], recall.PLACES, seed=4)
    fake_redact(c.corpus, tmp_path / "dataset")
    output = recall.read_output(tmp_path / "dataset")
    assert output.shared == 0
    got = {(r.planting.sample.id, r.outcome) for r in recall.score(c.plantings, output)}
    assert got == {("f:utf", "kept"), ("t:kept", "leaked")}
