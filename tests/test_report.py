"""review/report.html: self-contained, grouped by value, flagged first, secrets masked, bounded size."""

from __future__ import annotations

import json
import re

from reviewkit import planted, redacted_dir, value_id

from tracepub.outputs import groups, report
from tracepub.runtypes import RunSummary


def html(out) -> str:
    return (out / "review" / "report.html").read_text(encoding="utf-8")


def test_report_is_self_contained(tmp_path):
    out = redacted_dir(tmp_path)
    page = html(out)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"<(link|img|iframe|object|embed)\b", page, re.I)
    assert not re.search(r"<script[^>]*\bsrc=", page, re.I)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page, re.I)
    assert "@import" not in page and "url(" not in page


def test_one_entry_per_value_flagged_first_secrets_masked(tmp_path):
    p = planted()
    out = redacted_dir(tmp_path, p)
    page = html(out)
    # The token is in the report only masked; the email (PII) in clear so a person can judge it.
    assert p.github not in page and p.github[:4] + "…" + p.github[-2:] in page
    assert p.email in page
    # Grouped: the token occurs twice, one entry says so.
    gh = value_id(out, "secret.github_token")
    assert page.count(f'<b class="mono">{gh}</b>') == 1
    assert "2× in 1 file" in page
    # Flagged (the ACME ticket rule's action is "review") comes before everything else.
    flagged = page.index('id="sec-flagged"')
    assert flagged < page.index('id="sec-secret"') < page.index('id="sec-identity"')
    assert page.index(value_id(out, "secret.acme_ticket")) < page.index(gh)
    # Snippets highlight the value; context is redacted text.
    assert "<mark>" in page and "&lt;SECRET_GITHUB_TOKEN_" in page
    # Summary parts.
    for needle in (
        "By type",
        "By detector",
        "By action",
        "By harness",
        "Sessions (1",
        "Problems (0)",
        "Person names were not searched",
        "What this cannot catch",
        "names in other languages",
    ):
        assert needle in page, needle


def test_identity_summary_is_shown_masked_when_present(tmp_path):
    out = redacted_dir(tmp_path)
    (out / "review" / "identity.json").write_text(
        json.dumps([{"type": "identity.email", "origin": "git config user.email", "masked": "ja…m"}])
    )
    report.write_report(
        out, RunSummary.from_json(json.loads((out / "review" / "run.json").read_text())["summary"])
    )
    page = html(out)
    assert "git config user.email" in page and "ja…m" in page


def _synthetic(out, n_values: int, per_value: int) -> None:
    (out / "review").mkdir(parents=True, exist_ok=True)
    with open(out / "review" / "findings.jsonl", "w", encoding="utf-8") as fh:
        for v in range(n_values):
            for k in range(per_value):
                fh.write(
                    json.dumps(
                        {
                            "id": f"f{v}-{k}",
                            "file": f"claude_code/s{k % 7}.jsonl",
                            "record": k,
                            "path": "$.message",
                            "start": 0,
                            "end": 5,
                            "type": "pii.email" if v % 3 else "secret.github_token",
                            "detector": "presidio:EMAIL_ADDRESS",
                            "confidence": 0.9,
                            "action": "review" if v % 50 == 0 else "redacted",
                            "placeholder": f"<EMAIL_{v:08x}>",
                            "value": f"user{v}@example.com",
                            "value_id": f"{v:016x}",
                            "context": {"before": f"context {k} before ", "after": f" after {k}"},
                        }
                    )
                    + "\n"
                )


def test_stays_usable_with_100k_findings(tmp_path):
    out = tmp_path / "out"
    _synthetic(out, n_values=25_000, per_value=4)
    report.write_report(out, RunSummary(str(out), sessions=7, files=7, harnesses={"claude_code": 7}))
    page = html(out)
    assert "100,000</b><span>findings" in page
    assert "25,000</b><span>distinct values" in page
    # Full cards are capped, the rest is a compact table, then a count; snippets capped per value.
    assert page.count('<details class="value"') == report.DETAILED_VALUES
    assert page.count('<tr class="row"') == min(report.TABLE_VALUES, 25_000 - report.DETAILED_VALUES)
    assert page.count('<div class="snip">') <= report.DETAILED_VALUES * groups.SNIPPETS_PER_VALUE
    assert len(page) < 15_000_000
    # Flagged values come first: all 500 of them have full cards.
    assert page.count('data-action="review" open') == 500


def test_distinct_snippets_only(tmp_path):
    out = tmp_path / "out"
    (out / "review").mkdir(parents=True)
    same = {
        "id": "a",
        "file": "x.jsonl",
        "record": 1,
        "path": "$",
        "start": 0,
        "end": 1,
        "type": "pii.email",
        "detector": "d",
        "confidence": 1,
        "action": "redacted",
        "placeholder": "<EMAIL_1>",
        "value": "v@x.io",
        "value_id": "1",
        "context": {"before": "b", "after": "a"},
    }
    (out / "review" / "findings.jsonl").write_text(
        "\n".join(json.dumps({**same, "id": str(i)}) for i in range(5))
    )
    agg = groups.aggregate(groups.iter_findings(out))
    g = agg.groups["1"]
    assert g.count == 5 and len(g.snippets) == 1 and g.n_files == 1
