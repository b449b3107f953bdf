"""bench/identity.py's scorer, offline: a planted value that survives is a leak, and only then.

No tracepub run here: the outputs are the benchmark's own renderings (the unredacted corpus,
and the same sessions with every identity replaced by a placeholder), edited by hand.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

from identity import (  # noqa: E402
    COLLEAGUE_PLACES,
    OWNER_PLACES,
    Ident,
    Profile,
    check_review,
    make_profiles,
    missed,
    read_sessions,
    render_report,
    run,
    score_sessions,
    self_check,
    write_corpus,
)


def _leaks(sc):
    return sorted((r.harness, r.who, r.place, tuple(r.leaked)) for r in sc.results if r.leaked)


def test_unredacted_corpus_leaks_every_place(tmp_path):
    p = make_profiles(1, 1)[0]
    metas = write_corpus(tmp_path / "corpus", p, isolate=False)
    src = read_sessions(tmp_path / "corpus")
    self_check(tmp_path, p, False, metas, src)  # raises if either rendering scores wrongly
    sc = score_sessions(p, metas, src, src)
    assert all(r.leaked for r in sc.results)
    assert {r.place for r in sc.results if r.who == "owner"} == set(OWNER_PLACES)
    assert len(COLLEAGUE_PLACES) == 24
    assert {r.place for r in sc.results if r.who == "colleague"} == set(COLLEAGUE_PLACES)
    assert sc.harmless and not any(h.removed for h in sc.harmless)


def test_one_surviving_value_is_one_leak(tmp_path):
    """Perfectly redacted sessions with one username put back: that place, and nothing else."""
    p = make_profiles(1, 1)[0]
    metas = write_corpus(tmp_path / "perfect", p, isolate=False, perfect=True)
    src = read_sessions(tmp_path / "perfect")
    out = read_sessions(tmp_path / "perfect")
    assert _leaks(score_sessions(p, metas, src, out)) == []
    claude = next(m for m in metas if m.harness == "claude_code")
    codex = next(m for m in metas if m.harness == "codex")
    ls_la = next(x for x in claude.plants if x.who == "owner" and x.name == "ls_la")
    lines = out[claude.canary].lines
    lines[ls_la.records[0]] = lines[ls_la.records[0]].replace(" 4 <OWNER_U> ", f" 4 {p.owner.username} ", 1)
    # A glued compound (the colleague's "bo2"): found as a substring.
    digit = next(x for x in codex.plants if x.who == "colleague" and x.name == "compound_digit")
    i = digit.records[-1]
    out[codex.canary].lines[i] = out[codex.canary].lines[i].replace("<COLL_U>2", p.colleague.username + "2")
    # The working folder in the envelope only: the place "cwd", not the place whose record it is.
    first_call = next(x for x in claude.plants if x.who == "owner" and x.name == "whoami")
    j = first_call.records[0]
    lines[j] = lines[j].replace('"cwd":"/home/<OWNER_U>/', f'"cwd":"/home/{p.owner.username}/', 1)
    assert _leaks(score_sessions(p, metas, src, out)) == [
        ("claude_code", "owner", "cwd", (p.owner.username,)),
        ("claude_code", "owner", "ls_la", (p.owner.username,)),
        ("codex", "colleague", "compound_digit", (p.colleague.username,)),
    ]


def test_bounded_tokens_and_placeholders(tmp_path):
    """A short username inside a longer word is not a leak; a placeholder next to it is no word."""
    p = make_profiles(1, 1)[0]  # colleague "bo"
    metas = write_corpus(tmp_path / "perfect", p, isolate=False, perfect=True)
    src = read_sessions(tmp_path / "perfect")
    out = read_sessions(tmp_path / "perfect")
    m = next(m for m in metas if m.harness == "claude_code")
    whoami = next(x for x in m.plants if x.who == "colleague" and x.name == "whoami")
    i = whoami.records[0]
    out[m.canary].lines[i] = out[m.canary].lines[i].replace("<COLL_U>", "robot<COLL_U>")
    assert p.colleague.username == "bo" and _leaks(score_sessions(p, metas, src, out)) == []
    out[m.canary].lines[i] = out[m.canary].lines[i].replace("robot<COLL_U>", "<COLL_U>bo")
    assert _leaks(score_sessions(p, metas, src, out)) == [("claude_code", "colleague", "whoami", ("bo",))]


def test_harmless_word_removed_is_counted(tmp_path):
    p = make_profiles(1, 1)[0]
    metas = write_corpus(tmp_path / "perfect", p, isolate=False, perfect=True)
    src = read_sessions(tmp_path / "perfect")
    out = read_sessions(tmp_path / "perfect")
    m = next(m for m in metas if m.harness == "codex")
    out[m.canary].lines = [
        x.replace("@pytest.mark.slow", "@pytest.<PII_USERNAME_1a2b3c4d>.slow") for x in out[m.canary].lines
    ]
    removed = [
        (h.harness, h.word, h.snippet) for h in score_sessions(p, metas, src, out).harmless if h.removed
    ]
    assert removed == [("codex", "mark", "@pytest.mark.slow")]


def test_review_check(tmp_path):
    owner = Ident.make("Mark", "Fisher", "mark", "mark.fisher@proton.me", "laptop", "word")
    p = Profile(0, owner, Ident.make("Jo", "Lind", "jo", "jo@x.io", "desktop", "short"), "macos")
    review = tmp_path / "review"
    review.mkdir()
    (tmp_path / "manifest.json").write_text('{"files": []}')
    (review / "report.html").write_text(
        "<style>.snip mark { color: #000; }</style><p>shown masked: ma…k</p>"
        '<div class="snip">…mark <mark>&lt;USER&gt;</mark> said…</div>'  # cut words at the ellipses
    )
    (review / "placeholder.key").write_text("mark")  # the key may hold anything
    # A context is cut at a fixed width: its first word (before) and last word (after) are pieces.
    (review / "findings.jsonl").write_text(
        '{"value": "m…k", "context": {"before": "mark the", "after": "x mark"}}\n'
    )
    assert check_review(tmp_path, p) == []
    (review / "findings.jsonl").write_text(
        '{"value": "Mark Fisher", "context": {"before": "ok, mark ", "after": ""}}\n'
    )
    assert check_review(tmp_path, p) == ["review/findings.jsonl: mark, Mark Fisher"]


def test_run_with_a_runner_that_redacts_nothing(tmp_path):
    """The whole flow without tracepub: copying the corpus as the "dataset" misses every target."""

    def copy(corpus: Path, out: Path, env: dict[str, str]) -> dict:
        shutil.copytree(corpus, out / "dataset")
        (out / "review").mkdir()
        (out / "manifest.json").write_text("{}")
        return {}

    bench = run(tmp_path, seed=1, profiles=1, settings=("b",), runner=copy)
    sc = bench.scores["b"]
    assert sc.results and all(r.leaked for r in sc.results)
    assert any("owner leaked in 30 places" in x for x in missed(bench))
    assert "| owner | whoami | bare username | **leaked** 2/2 |" in render_report(bench)


def test_two_letter_username_is_read_at_its_own_place(tmp_path):
    """Owner "ed": whoami's "ed\\n" is not the end of "retried\\n" elsewhere, and a glued "ed" is not
    looked for in Codex's "Process exited" header (the self-check raises on either)."""
    p = make_profiles(2, 2)[1]
    assert p.owner.username == "ed"
    metas = write_corpus(tmp_path / "corpus", p, isolate=False)
    self_check(tmp_path, p, False, metas, read_sessions(tmp_path / "corpus"))
