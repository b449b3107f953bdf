"""The labelled evaluation at a tiny size: the real pipeline, planted values, the issue's targets."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

from eval import TARGETS, evaluate, render  # noqa: E402

from tracepub.detect.secrets.rules import load_rules  # noqa: E402


def test_eval_tiny_meets_targets(tmp_path):
    sc, summary, _, nbytes = evaluate(tmp_path, 600_000, seed=11, jobs=1)
    table = render(sc)
    assert nbytes > 400_000
    assert sc.sessions_read["claude_code"] > 0, table
    assert {"secret", "pii", "identity", "negative"} <= set(sc.kinds), table
    rates = sc.rates()
    assert rates["identity_leaks"] == TARGETS["identity_leaks"], table
    assert rates["pii_leak"] <= TARGETS["pii_leak"], table
    # Secret recall and hash/ID survival depend on the full rule pack (issue 3, item 3); until it
    # is merged, the core pack misses whole credential families by design. At this size about 30
    # secrets are planted, so one miss is 3%: the 0.5% target is measured at 20 MB by
    # bench/eval.py; here a looser bound catches regressions.
    if len(load_rules()) >= 150:
        assert rates["negatives_removed"] <= TARGETS["negatives_removed"], table
        assert rates["secret_leak"] <= 0.10, table


def test_eval_reads_only_what_readers_know(tmp_path):
    """Harnesses without a reader are reported as not read, never scored as leaks."""
    from eval import Output, score

    labels = [
        {"session": "s1", "harness": "x", "kind": "secret", "type": "t", "value": "A" * 20, "where": "w"},
        {
            "session": "s2",
            "harness": "y",
            "kind": "secret",
            "type": "t",
            "value": "B" * 10 + "C" * 10,
            "where": "w",
        },
        {"session": "s2", "harness": "y", "kind": "negative", "type": "n", "value": "keepme", "where": "w"},
    ]
    sessions = [
        {"session": "s1", "harness": "x", "canary": "evalref-x-0000"},
        {"session": "s2", "harness": "y", "canary": "evalref-y-0001"},
    ]
    out = Output(texts={"evalref-y-0001": ["evalref-y-0001 " + "B" * 10 + "C" * 6 + " <SECRET_1>"]})
    sc = score(labels, sessions, out)
    assert sc.sessions_read == {"y": 1}
    assert sc.kinds["secret"].planted == 1 and sc.kinds["secret"].partly == 1  # a 16-character piece survived
    assert sc.kinds["negative"].removed == 1
