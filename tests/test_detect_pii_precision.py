"""Personal-data precision on real code (issue #8 item 5): shapes from public packages that are not
personal data stay, and the personal data next to them is still found. Each test plants harmless
values of one class through a detector's ``scan`` (or the whole engine) and asserts they survive,
beside a value of the same family that must still be found."""

from __future__ import annotations

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.pii import phones
from tracepub.detect.registry import DetectConfig
from tracepub.model import Leaf

CODE = Leaf("test")


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def _found(engine: Engine, text: str) -> list[tuple[str, str]]:
    engine.start_unit()
    return [(text[s.start : s.end], s.type) for s in engine.scan(text, CODE)]


def _phones(text: str) -> list[str]:
    return [text[s.start : s.end] for s in phones.find(text)]


@pytest.mark.parametrize(
    "text",
    [
        "Date:   Fri Jul 8 14:00:24 2022 -0600",  # git log: seconds, year, zone
        "[2026-05-02 10:14:03] GET /health 200",  # a log timestamp
        '"POT-Creation-Date: 2025-03-19 11:30-0500\\n"',
        "37.0.2 - 2022-05-03",
        "Revision 0.1.4, released 07-09-2017",
        '("09-25-2003", datetime(2003, 9, 25), "date with dash"),',
        '"CompletedAt": "2021-09-17T21:59:03.888000+00:00",',
        "committer ckitagawa <ckitagawa@chromium.org> 1580506176 -0500",  # unix time and zone
        '"IntegerField": (-2147483648, 2147483647),',
        '>>> payload = {"some": "payload", "sub": "1234567890"}',
        "np.array([0.58285404, 0.88409679, 1.,",
        "Cachegrind D Refs:        513.917.619   312.000.436",
        "t-gvim.trace                       33.2   0.21     33.2   0.18     38.61%",
        "77 b9 d1 13 7b 50 40 4a 98 27 29 31 6e fa fc 7d",  # a hex dump
        "'861868544':{'en': 'Guiyang, Guizhou'}",  # phonenumbers' own tables
        "toll_free=PhoneNumberDesc(national_number_pattern='88\\\\d{7}', example_number='881234567')",
        '"urn:isbn:0-486-27557-4",',
        "# 51 Franklin Street, Fifth Floor, Boston, MA  02110-1301 USA.",  # ZIP+4
        "tls.MaxFragment = 16384 - 1024;",
        'd="M 134.03397,541.66071 C 111.9415,541.66071 94,562.76288 94,588.78571"',
        "c0-2.4.8-4 2.3-5 1.5-1 3.2-1.4 5.1-1.4 2.3 0 4.2.4 5.6 1.3 1.4.9 2.1 2.2 2.1 4v11.2",
        '"tel:+1-800-555-0100",',  # NANP 555-01xx: fictional by reservation
        "x = 5 +3600000000",  # arithmetic, not a country code
    ],
)
def test_numbers_that_are_not_phones_stay(text):
    assert _phones(text) == []


@pytest.mark.parametrize(
    "text, phone",
    [
        ("call +44 20 7946 0958 or", "+44 20 7946 0958"),
        ('"phone": "+12015600072",', "+12015600072"),
        ("+1-415-867-5309", "+1-415-867-5309"),
        ("(415) 867-5309", "(415) 867-5309"),
        ("415.867.5309", "415.867.5309"),
        ("ring 07400 123456 after six", "07400 123456"),  # GB national, trunk 0
        ("Tel. 030 901820", "030 901820"),
        ("06 12 34 56 78", "06 12 34 56 78"),
        ("(02) 9374 4000", "(02) 9374 4000"),
        ("+81 90-1234-5678", "+81 90-1234-5678"),
        ("0049 30 12345678", "0049 30 12345678"),
        ("(11) 91234-5678", "(11) 91234-5678"),
        ("phone: 4158675309", "4158675309"),  # bare digits: only with a cue word
        ("WhatsApp: 98765 43210", "98765 43210"),
        ("+1 415 867 5309 2024", "+1 415 867 5309"),  # the number, not the year after it
    ],
)
def test_phone_forms_and_cues_are_found(text, phone):
    assert _phones(text) == [phone]


def test_bare_digits_need_a_cue():
    assert _phones("id 4158675309 ok") == []
    assert _phones("mobile 4158675309 ok") == ["4158675309"]


def test_git_log_keeps_its_dates_but_not_its_phone(engine):
    text = "Date:   Fri Jul 8 14:00:24 2022 -0600\n\n    Ring me on +49 1512 3456789 about it\n"
    found = _found(engine, text)
    assert ("+49 1512 3456789", "pii.phone") in found
    assert not [v for v, t in found if t == "pii.phone" and "2022" in v]
