"""bench/pii_outside.py's reading of Presidio's recognizer tests and its scoring, on hand-written
modules in their format (no checkout of that repository needed).

The figure depends on which cases are read (literal parametrize lists only, the entity of the
module's fixture or the case's own), which span a case expects, and which values our policy keeps
on purpose: those are listed apart, never counted as found or as missed.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import pii_outside as po  # noqa: E402
import recall as rc  # noqa: E402

MODULE = """
import pytest

@pytest.fixture(scope="module")
def entities():
    return ["US_SSN"]

@pytest.mark.parametrize(
    "text, expected_len, expected_positions, expected_score_ranges",
    [
        ("abc 078 05 1123 abc", 1, ((4, 15),), ((0.5, 0.6),),),
        ("078-05-0000", 0, (), (),),
        (make_text(), 1, ((0, 3),), ((0.5, 0.6),),),
        ("078051121", 1, (), (),),
        ("two words 1", 1, (), (),),
    ],
)
def test_ssn(text, expected_len, expected_positions, expected_score_ranges):
    pass

@pytest.mark.parametrize("number, expected", [("078051121", True)])
def test_checksum(number, expected):
    pass
"""

NER = """
@pytest.fixture(scope="module")
def entities():
    return ["PERSON", "DATE_TIME"]

@pytest.mark.parametrize(
    "text, expected_len, expected_positions, entity_num",
    [("my name is Dan", 1, ((11, 14),), 0), ("I bought my car in 1972", 1, ((19, 23),), 1)],
)
def test_ner(text, expected_len, expected_positions, entity_num):
    pass
"""


def test_literal_cases_with_their_spans():
    left: Counter = Counter()
    samples = po.parse_module(MODULE, "us_ssn", left)
    got = [(s.family, s.kind, s.input, s.secrets) for s in samples]
    assert got == [
        ("US_SSN", "tp", "abc 078 05 1123 abc", ("078 05 1123",)),
        ("US_SSN", "fp", "078-05-0000", ()),
        ("US_SSN", "tp", "078051121", ("078051121",)),  # one token, no positions: the whole text
    ]
    assert left == {"not_literal": 1, "no_positions": 1}  # the helper call; two words without positions


def test_each_case_picks_its_entity_by_number():
    samples = po.parse_module(NER, "spacy", Counter())
    assert [(s.family, s.secrets) for s in samples] == [("PERSON", ("Dan",)), ("DATE_TIME", ("1972",))]
    assert po.scope("PERSON") == "claimed" and po.scope("DATE_TIME") == "out of scope"
    assert po.scope("US_PASSPORT") == "not claimed"


def test_values_the_policy_keeps():
    for ip in (
        "192.168.0.1",
        "10.0.0.0/8",
        "2001:db8::1",
        "::ffff:10.0.0.1",
        "fe80::1%eth0",
        "684D:1111:222:3333:4444:5555:6:77",
    ):
        assert po.kept_by_policy("IP_ADDRESS", ip), ip
    for ip in ("81.2.69.160", "2a02:8109:b6c0:1234::1", "::ffff:81.2.69.160"):
        assert not po.kept_by_policy("IP_ADDRESS", ip), ip
    assert po.kept_by_policy("PHONE_NUMBER", "(415) 555-0132")
    assert not po.kept_by_policy("PHONE_NUMBER", "(415) 867-5309")
    assert po.kept_by_policy("MAC_ADDRESS", "01-23-45-67-89-AB")  # the group bit
    assert not po.kept_by_policy("MAC_ADDRESS", "00:1A:2B:3C:4D:5E")
    assert po.kept_by_policy("EMAIL_ADDRESS", "info@presidio.site")
    assert not po.kept_by_policy("EMAIL_ADDRESS", "anotherinfo@presidio.site")
    # Weak checks: kept bare, claimed with their name, a card word or a log line.
    assert po.kept_by_policy("CA_SIN", "130692544", "130692544")
    assert not po.kept_by_policy("CA_SIN", "130692544", "My SIN is 130692544")
    assert not po.kept_by_policy("CA_SIN", "130-692-544", "130-692-544")  # the strong form
    assert po.kept_by_policy("CREDIT_CARD", "4111111111111111", "4111111111111111")
    assert not po.kept_by_policy("CREDIT_CARD", "4111111111111111", "my visa 4111111111111111")
    assert not po.kept_by_policy(
        "CREDIT_CARD", "4111111111111111", "2024-05-01 10:00:01 ERROR 4111111111111111"
    )
    assert not po.kept_by_policy("CREDIT_CARD", "4111 1111 1111 1111", "4111 1111 1111 1111")
    assert not po.kept_by_policy("SG_NRIC_FIN", "S1234567D", "S1234567D")  # strong: shape and check
    assert po.kept_by_policy("TR_PHONE_NUMBER", "5321234567", "5321234567")  # no phone's form or cue
    assert po.kept_by_policy("SG_NRIC_FIN", "S1234567A", "S1234567A")  # the check letter fails
    assert not po.kept_by_policy("SG_NRIC_FIN", "M4332674T", "M4332674T")
    assert po.kept_by_policy("US_SSN", "078051121", "078051121")
    assert not po.kept_by_policy("US_SSN", "078051121", "SSN 078051121")
    assert po.kept_by_policy("PERSON", "Mr. May", "his name is Mr. May")
    assert not po.kept_by_policy("PERSON", "Mr. Mayers", "Mr. Mayers")
    assert not po.kept_by_policy("TR_PHONE_NUMBER", "05321234567", "05321234567")  # a trunk 0
    assert not po.kept_by_policy("PHONE_NUMBER", "5321234567", "call 5321234567")


def _planting(sample: rc.Sample) -> rc.Planting:
    return rc.Planting("recallref-claude_code-00001", sample, "claude_code", "shell")


def test_scoring_whole_pieces_and_negatives():
    tp = rc.Sample("x:0", "EMAIL_ADDRESS", "tp", "a: jo.kim@corp.io b: info@corp.io", ("jo.kim@corp.io",))
    out = rc.Output()
    out.texts["recallref-claude_code-00001"] = ["a: <EMAIL_1f2e3d4c> b: info@corp.io"]
    assert [r.outcome for r in po.score([_planting(tp)], out)] == ["redacted"]
    out.texts["recallref-claude_code-00001"] = ["a: jo.kim@<HOST_1f2e> b: info@corp.io"]
    assert [r.outcome for r in po.score([_planting(tp)], out)] == ["partial"]
    out.texts["recallref-claude_code-00001"] = ["a: jo.kim@corp.io"]
    assert [r.outcome for r in po.score([_planting(tp)], out)] == ["leaked"]
    fp = rc.Sample(
        "x:1", "EMAIL_ADDRESS", "fp", "not an email: hello-world", keep="not an email: hello-world"
    )
    out.texts["recallref-claude_code-00001"] = ["not an email: hello-world"]
    assert [r.outcome for r in po.score([_planting(fp)], out)] == ["kept"]
    kept = rc.Sample("x:2", "IP_ADDRESS", "tp", "Subnet 10.0.0.0/8", ("10.0.0.0/8",))
    out.texts["recallref-claude_code-00001"] = ["Subnet 10.0.0.0/8"]
    (r,) = po.score([_planting(kept)], out)
    assert r.scope == "kept by policy" and r.why
