"""Dates of birth: a date under a birth field (``dob``, ``date_of_birth``, ``birthdate``,
``"dateOfBirth":``) or after "born" in prose ("born on 12 March 1987", "born 1987-03-12").

A date alone is a date; after a birth word it is one of the three facts (with a name and a postal
code) that single most people out, so the date goes and the word stays. A year alone ("born in
1987") is kept: it narrows nobody down.
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|januar|februar|märz|mai|juni|juli|oktober|dezember"
    r"|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre)\.?"
)
_DATE = (
    r"(?:(?:19|20)[0-9]{2}[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12][0-9]|3[01])(?:T[0-9:.]+Z?)?"  # 1987-03-12
    r"|(?:0?[1-9]|[12][0-9]|3[01])[-/.](?:0?[1-9]|1[0-2])[-/.](?:19|20)?[0-9]{2}"  # 12.03.1987, 12/03/87
    r"|(?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12][0-9]|3[01])[-/.](?:19|20)[0-9]{2}"  # 03/12/1987
    rf"|(?:0?[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?{_MONTHS},?[ \t]+(?:19|20)[0-9]{{2}}"  # 12 March 1987
    rf"|{_MONTHS}[ \t]+(?:0?[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)?,?[ \t]+(?:19|20)[0-9]{{2}}"  # March 12, 1987
    r"|(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01]))"  # 19870312 (after a field name only)
)
# A birth field or word, then at most a separator and a quote before the date (all on one line).
_BIRTH = re.compile(
    r"(?i)(?<![a-z])(?:dob|d\.o\.b\.?|date[ _-]?of[ _-]?birth|dateofbirth|birth[ _-]?date|birthdate|birthday"
    r"|born(?:[ \t]+on)?|geburtsdatum|geboren(?:[ \t]+am)?|date[ \t]+de[ \t]+naissance|n[ée]e?[ \t]+le"
    r"|fecha[ \t]+de[ \t]+nacimiento)(?![a-z])"
    rf"""["']?[ \t]*(?:is[ \t]+|was[ \t]+|:|=|=>|->|\|)?[ \t]*["']?[ \t]*(?P<date>{_DATE})(?![0-9])"""
)


class DatesOfBirth(Detector):
    name = "birth"
    context_free = True
    trigger = Trigger(
        literals=(
            "dob",
            "d.o.b",
            "birth",
            "born",
            "geburt",
            "geboren",
            "naissance",
            "née le",
            "né le",
            "nacimiento",
        ),
        lines=True,
    )

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        text = escaped_view(text)
        return [
            Span(m.start("date"), m.end("date"), "pii.date_of_birth", "birth", 0.85)
            for m in _BIRTH.finditer(text)
        ]
