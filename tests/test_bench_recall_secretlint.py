"""bench/recall_secretlint.py's reading of secretlint's snapshots, on hand-written reports in its
format (no checkout of that repository needed): what a finding counts as its secret, and which
findings are left out."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import recall_secretlint as rs  # noqa: E402


def _msg(text: str, value: str, message_id: str = "KEY", data: bool = True) -> dict:
    a = text.index(value)
    return {"range": [a, a + len(value)], "messageId": message_id, "data": {"KEY": value} if data else {}}


def test_the_secret_of_a_finding():
    text = "DB=mongodb://app:Pq7xZ2wLm9@db.example.net:27017/shop\nTOKEN = 'gsk_Zq8Lm2Xw9Pq7Rt4Yv6Nb3Kc1'\n"
    assert (
        rs.secret_of(text, _msg(text, "mongodb://app:Pq7xZ2wLm9@db.example.net:27017/shop")) == "Pq7xZ2wLm9"
    )
    assert rs.secret_of(text, _msg(text, "TOKEN = 'gsk_Zq8Lm2Xw9Pq7Rt4Yv6Nb3Kc1'", data=False)) == (
        "gsk_Zq8Lm2Xw9Pq7Rt4Yv6Nb3Kc1"
    )
    hook = "https://hooks.slack.com/services/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"
    assert rs.secret_of(hook, _msg(hook, hook)) == "T0A1B2C3D/B0A1B2C3D/Zq8Lm2Xw9Pq7Rt4Yv6Nb3Kc1"
    doc = '{\n  "type": "service_account",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE\\n"\n}'
    assert rs.secret_of(doc, _msg(doc, doc)) == "-----BEGIN PRIVATE KEY-----\\nMIIE\\n"


def test_rules_and_findings_left_out():
    left = {"no_secret_rules": 0, "identifiers": 0, "short": 0, "binary": 0}
    text = "/Users/someone/src\n"
    assert (
        rs.samples_from(
            "secretlint-rule-no-homedir", "ng.homedir", text, [_msg(text, "/Users/someone")], left
        )
        == []
    )
    text = 'AZURE_TENANT_ID="dac6fb3d-713c-4555-8a97-4089aa3849be"\nuser:pw@x\n'
    found = [_msg(text, "dac6fb3d-713c-4555-8a97-4089aa3849be", "AzureTenantId")]
    assert rs.samples_from("secretlint-rule-azure", "ng.ad_tenant_id", text, found, left) == []
    assert left == {"no_secret_rules": 1, "identifiers": 1, "short": 0, "binary": 0}
    text = "a key: gsk_Zq8Lm2Xw9Pq7Rt4Yv6Nb3Kc1 and again gsk_Zq8Lm2Xw9Pq7Rt4Yv6Nb3Kc1"
    (sample,) = rs.samples_from(
        "secretlint-rule-groq", "ng.secret", text, [_msg(text, "gsk_Zq8Lm2Xw9Pq7Rt4Yv6Nb3Kc1")] * 2, left
    )
    assert (
        sample.family == "groq"
        and sample.kind == "tp"
        and sample.secrets == ("gsk_Zq8Lm2Xw9Pq7Rt4Yv6Nb3Kc1",)
    )
