"""Values whose JSON key says what they are: ``{"card_number": "374805780633095"}``,
``{"phone": "4158675309"}``, ``{"dob": "1987-03-12"}``, ``{"Account": "384721950362"}``,
``{"ssn": "536904412"}``.

JSON written inside a tool output is parsed and its strings are scanned one by one, so the value
arrives without the ``"card_number":`` in front that a detector reading the text would see as its
cue. Here the key is the cue, and the value must still have its kind's shape and check (Luhn for a
card, a valid number for a phone, a date, twelve digits for an account, the named id's own check).
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.pii import national_ids, phones
from tracepub.detect.pii.accounts import example_account
from tracepub.detect.pii.birth import _DATE
from tracepub.model import Leaf, Span

_CARD_KEYS = (
    "card_number",
    "cardnumber",
    "card_no",
    "cardno",
    "card_num",
    "cc_number",
    "ccnumber",
    "cc_num",
    "ccnum",
    "credit_card",
    "creditcard",
    "credit_card_number",
    "card",
    "pan",
    "card_pan",
)
_PHONE_KEYS = (
    "phone",
    "phone_number",
    "phonenumber",
    "phone_no",
    "mobile",
    "mobile_number",
    "mobilenumber",
    "mobile_phone",
    "cell",
    "cellphone",
    "cell_phone",
    "telephone",
    "tel",
    "fax",
    "msisdn",
    "whatsapp",
    "home_phone",
    "work_phone",
    "contact_number",
)
_DOB_KEYS = ("dob", "date_of_birth", "dateofbirth", "birthdate", "birth_date", "birthday")
_ACCOUNT_KEYS = (
    "account",
    "account_id",
    "accountid",
    "aws_account_id",
    "awsaccountid",
    "owner_id",
    "ownerid",
)
# Keys that name a national id (``national_ids``' names, as keys are written).
_ID_KEYS = (
    "ssn", "social_security_number", "sin", "social_insurance_number", "tfn", "tax_file_number", "pesel",
    "personnummer", "nhs_number", "steuer_id", "nir", "bsn", "burgerservicenummer", "cpf", "codice_fiscale",
    "passport_number", "passport_no", "tckn", "rrn",
)  # fmt: skip
_KIND = {
    **dict.fromkeys(_ID_KEYS, "national_id"),
    **dict.fromkeys(_CARD_KEYS, "card"),
    **dict.fromkeys(_PHONE_KEYS, "phone"),
    **dict.fromkeys(_DOB_KEYS, "dob"),
    **dict.fromkeys(_ACCOUNT_KEYS, "account"),
}

_CARD = re.compile(r"[0-9]{4}(?:[ -]?[0-9]{2,7}){2,4}")
_DOB = re.compile(rf"(?i:{_DATE})")
_ACCOUNT = re.compile(r"[0-9]{12}")


def _luhn(digits: str) -> bool:
    from tracepub.detect.pii.national_ids import luhn

    return luhn(digits)


class KeyedValues(Detector):
    name = "keyed"
    context_free = False  # the key decides
    trigger = Trigger(keys=tuple(_KIND))

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        kind = _KIND.get((leaf.key or "").lower())
        value = text.strip()
        if kind is None or not value or len(value) > 40:
            return []
        a = text.find(value)
        b = a + len(value)
        if kind == "card" and _CARD.fullmatch(value):
            digits = re.sub(r"[^0-9]", "", value)
            if 13 <= len(digits) <= 19 and value[0] in "23456" and _luhn(digits):
                return [Span(a, b, "pii.credit_card", "keyed:card", 0.85)]
        elif kind == "phone":
            return _phone(value, a)
        elif kind == "dob" and _DOB.fullmatch(value):
            return [Span(a, b, "pii.date_of_birth", "keyed:dob", 0.85)]
        elif kind == "national_id" and national_ids.named(leaf.key or "", value):
            return [Span(a, b, "pii.national_id", "keyed:national_id", 0.8)]
        elif kind == "account" and _ACCOUNT.fullmatch(value) and not example_account(value):
            return [Span(a, b, "pii.aws_account_id", "keyed:account", 0.8)]
        return []


def _phone(value: str, a: int) -> list[Span]:
    """The whole value read as a phone after a cue word (``phones.find``)."""
    cue = "phone: "
    return [
        Span(a, a + len(value), "pii.phone", "keyed:phone", 0.8)
        for s in phones.find(cue + value)
        if s.start == len(cue) and s.end == len(cue) + len(value)
    ]
