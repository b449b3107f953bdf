"""Classes of personal data that another project's test cases showed missing (bench/pii_outside.py,
on Presidio's recognizer tests): each written in our own values, with look-alikes that must stay."""

from __future__ import annotations

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.model import Leaf

CODE = Leaf("test")
PROSE = Leaf("test", prose=True)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def values(engine: Engine, text: str, type_: str, leaf: Leaf = CODE) -> list[str]:
    engine.start_unit()
    return [text[s.start : s.end] for s in engine.scan(text, leaf) if s.type == type_]


@pytest.mark.parametrize(
    "text, phone",
    [
        ("Cep: 0 542 381 62 19", "0 542 381 62 19"),  # a lone trunk 0, then 3-3-2-2
        ("numara 0-542-381-62-19", "0-542-381-62-19"),
        ("arayın 0 (542) 3816219", "0 (542) 3816219"),
        ("tawag sa 0 (918) 274 5531", "0 (918) 274 5531"),
        ("542 381 62 19 numaralı", "542 381 62 19"),  # Turkish grouping without the 0
        ("sent to 05423816219 yesterday", "05423816219"),  # a bare national mobile, trunk 0
        ("sent to 09182745531 yesterday", "09182745531"),
        ("Telepono: 09182745531", "09182745531"),
    ],
)
def test_national_phone_forms(engine, text, phone):
    assert values(engine, text, "pii.phone") == [phone]


@pytest.mark.parametrize(
    "text",
    [
        "urn:isbn:0-486-27557-4",  # a lone 0 in an ISBN's groups
        "id 00000012345",  # zero-padded
        "ts 1712345678",  # a unix time
        "BE71 0961 2345 6760",  # the groups of an IBAN (its checksum fails: still no phone)
        "NL91 ABNA 0417 1643 01",
        "version 0 542 381 6",  # not a phone's grouping
    ],
)
def test_numbers_that_are_not_national_phones_stay(engine, text):
    assert values(engine, text, "pii.phone") == []


def test_no_card_from_an_iban_s_groups(engine):
    assert values(engine, "LT12 1000 0111 0100 1001", "pii.credit_card") == []
    assert values(engine, "card 4012 8888 8888 1881", "pii.credit_card") == ["4012 8888 8888 1881"]


@pytest.mark.parametrize(
    "text, value",
    [
        ("pnr: 871220-2384", "871220-2384"),
        ("my swedish id code is: 199003052397.", "199003052397"),
        ("My South African ID is 9202201234088.", "9202201234088"),
        ("RSA ID: 0002294321191", "0002294321191"),
        ("Permanent resident number 9912316789285 is on file.", "9912316789285"),
        ("RRN 960121-1234567", "960121-1234567"),  # issued after October 2020: no check digit
        ("resident registration number: 9601211021413", "9601211021413"),
        ("FIN M4332674T", "M4332674T"),  # a Singapore FIN of the M series (2022)
        ("19910924-2397 är mitt pnr.", "19910924-2397"),  # the name right after the number
        ("9202201234088 is my RSA ID", "9202201234088"),
    ],
)
def test_national_ids_after_their_name_or_in_their_series(engine, text, value):
    assert values(engine, text, "pii.national_id") == [value]


@pytest.mark.parametrize(
    "text, value",
    [
        ("social_insurance_number: 130692544", "130692544"),  # a field's name in snake_case...
        ('socialInsuranceNumber = "130692544"', "130692544"),  # ... or camelCase
        ('tax_file_number: "876543210"', "876543210"),
        ("taxFileNumber=876543210", "876543210"),
        ('"nhs_number": "4010232137"', "4010232137"),
        ("nhsNumber=4010232137", "4010232137"),
        ('"id_number": "8001015009087"', "8001015009087"),
        ('"steuer_id": "98765432106"', "98765432106"),
        ("personal identity code is: 189110089811.", "189110089811"),  # born in the 1800s: century 18
        ("SSN: 078051121", "078051121"),  # a US SSN has no check at all: its name or its 3-2-4 form
        ('social_security_number: "078 05 1121"', "078 05 1121"),
    ],
)
def test_weak_numbers_after_a_field_name(engine, text, value):
    assert values(engine, text, "pii.national_id") == [value]


@pytest.mark.parametrize(
    "text, card",
    [
        ("2024-05-01 12:03:44,120 ERROR gateway declined 5555555555554444", "5555555555554444"),
        ("Jun 02 10:11:12 host app[123]: txn 6011000400000000 declined", "6011000400000000"),
        ('level=info msg="authorized" number=371449635398431', "371449635398431"),
        ("[12:03:44.120] WARN retry 4484070000000000", "4484070000000000"),
    ],
)
def test_cards_in_log_lines(engine, text, card):
    assert values(engine, text, "pii.credit_card") == [card]


@pytest.mark.parametrize(
    "text",
    [
        "x = 5555555555554444",  # code: no log line, no card word
        "2024-05-01 12:03:44 INFO request 1234567812345670",  # Luhn passes, but no issuer starts with 1
        "2024-05-01 12:03:44 INFO took 4111111111111111111 ns",  # 19 digits
        "2024-05-01 12:03:44 INFO offset 4111111111111111.5",  # a decimal's digits
    ],
)
def test_other_digit_runs_in_logs_stay(engine, text):
    assert values(engine, text, "pii.credit_card") == []


def test_bare_numbers_without_the_name_stay(engine):
    assert values(engine, "build 960121-1234567", "pii.national_id") == []  # check digit fails, no name
    assert values(engine, "rows 9202201234088", "pii.national_id") == []
    assert values(engine, "9202201234088 rows in table; id number column", "pii.national_id") == []
    assert values(engine, "M4332674X", "pii.national_id") == []  # wrong check letter
    assert values(engine, "ssn=000123456", "pii.national_id") == []  # area 000 is never issued
    assert values(engine, "rows 078051121", "pii.national_id") == []


@pytest.mark.parametrize(
    "text, mac",
    [
        ("Cisco MAC: 0012.3456.789A", "0012.3456.789A"),
        ("My MAC is a4b1.c2d3.e4f6", "a4b1.c2d3.e4f6"),
        ("Hardware address: 3C-22-FB-91-7A-10", "3C-22-FB-91-7A-10"),
    ],
)
def test_mac_addresses_in_cisco_notation_and_after_hardware_address(engine, text, mac):
    assert values(engine, text, "pii.mac_address") == [mac]


def test_dotted_numbers_are_not_macs(engine):
    assert values(engine, "mac 1234.5678.9abc.def0", "pii.mac_address") == []  # four groups
    assert values(engine, "version 1234.5678.9012", "pii.mac_address") == []  # no cue


@pytest.mark.parametrize(
    "text, name",
    [
        ("They call me Mr. Okonkwo", "Okonkwo"),
        ("I spoke with Dr Vasquez-Lind this morning", "Vasquez-Lind"),
        ("Hi, my name is Priya and I need help", "Priya"),
        ("please call me Maren", "Maren"),
    ],
)
def test_names_after_a_title_or_a_self_introduction_in_prose(engine, text, name):
    assert any(name in v for v in values(engine, text, "pii.person", PROSE))


@pytest.mark.parametrize("text", ["Mr. Right is a show", "call me Maybe", "my name is Bash", "Dr. Who?"])
def test_common_words_after_a_title_stay(engine, text):
    assert values(engine, text, "pii.person", PROSE) == []


def test_titles_count_in_prose_only(engine):
    assert values(engine, "Mr. Okonkwo", "pii.person", CODE) == []
