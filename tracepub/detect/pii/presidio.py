"""Personal data: Presidio's recognizers everywhere, NER on prose only, and a few shapes of our own.

Presidio's ``AnalyzerEngine`` runs spaCy on every call, which is what makes a naive loop crawl
on code-heavy traces. So its pattern recognizers (email, credit
card with Luhn, IBAN with its checksum, US SSN, UK NINO, Spanish NIF, Aadhaar with Verhoeff,
IP) are called directly, behind cheap character prefilters, with no NLP artifacts, and their
context words are applied here (a word such as "phone" or "ssn" shortly before a match raises
its score, as Presidio's context enhancer does). spaCy NER runs only on strings the reader
marks as prose, and only when a model is installed; a person found there below
``ner_threshold`` is flagged for review (still replaced).

Phones are our own (``phones.py``: a phone's form or context, not any valid digit run).
What is not personal data (reserved example domains, SSH algorithm names, OIDs and versions,
resolvers, cards without a card's form or cue...) is decided in ``checks.py`` and
``network.py``; ARCHITECTURE.md, "Detection: personal data", lists the decisions.
"""

from __future__ import annotations

import functools
import logging
import re
import threading

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.pii import phones as _phones
from tracepub.detect.pii.checks import (
    _NOT_PERSONAL_EMAIL,
    _glued,
    _trim_email,
    _version_like,
    may_be_index_metadata,
    not_personal_email,
    number_in_place,
    url_password,
)
from tracepub.detect.pii.name_shape import (
    CUES,
    GREETINGS,
    SPEECH,
    looks_like_name,
    ner_action,
    ner_score,
    on_copyright_line,
)
from tracepub.detect.pii.network import (
    _IP_LINES,
    _IPV6_HINT,
    _PRESIDIO_IPV4,
    _ipv4_finditer,
    _never_global,
    _same_word_chars,
    is_public_ip,
    personal_ip,
)
from tracepub.detect.pii.prose_names import (
    _NAME_LIKE_LABELS,
    NER_MIN_CHARS,
    ProseNames,
    name_like,
    name_spots,
    ner_model_name,
)
from tracepub.detect.pii.triggers import (
    _AT_LINES,
    _DIGIT_SHAPES,
    _EMAIL_TRIGGER,
    _IBAN_START,
    _NINO_END,
    _NINO_HINT,
    _NUMBER_SHAPES,
    _NUMBER_TRIGGERS,
    _PHONE_TRIGGER,
    _iban_shapes,
    has_iban_hint,
)
from tracepub.detect.pii.windows import _joined, _Result, _shape_lines, _shifted
from tracepub.detect.text import escaped_view, folded, windows_matching
from tracepub.model import Leaf, Span

log = logging.getLogger(__name__)


_TYPES = {
    "EMAIL_ADDRESS": "pii.email",
    "PHONE_NUMBER": "pii.phone",
    "IP_ADDRESS": "pii.ip",
    "CREDIT_CARD": "pii.credit_card",
    "IBAN_CODE": "pii.iban",
    "US_SSN": "pii.national_id",
    "UK_NINO": "pii.national_id",
    "ES_NIF": "pii.national_id",
    "IN_AADHAAR": "pii.national_id",
    "UK_NHS": "pii.national_id",
    "PERSON": "pii.person",
}
_CONTEXT_WINDOW = 48
_CONTEXT_BOOST = 0.35


def _offline_tldextract() -> None:
    """Presidio validates email domains with tldextract, whose default downloads the Public
    Suffix List on first use. tracepub is offline by construction: use the snapshot that ships
    inside tldextract instead (no network, no cache folder)."""
    import tldextract

    if getattr(tldextract.extract, "_tracepub_offline", False):
        return
    extractor = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

    @functools.lru_cache(maxsize=16384)  # the same addresses come back all through a trace
    def cached(url: str, include_psl_private_domains: bool | None) -> object:
        return extractor(url, include_psl_private_domains)

    def extract(url: str, include_psl_private_domains: bool | None = None, session=None):
        return cached(url, include_psl_private_domains)

    extract._tracepub_offline = True  # type: ignore[attr-defined]
    tldextract.extract = extract  # type: ignore[assignment]  # (our stand-in for its cached wrapper)


_DIGITS_7, _DIGITS_8 = (re.compile(r"\d(?:\D*+\d){" + str(n - 1) + "}") for n in (7, 8))


_NER_LOCK = threading.Lock()


@functools.lru_cache(maxsize=2)
def _load_ner(model: str):
    """The spaCy model, loaded once per process: the second pass's engine (``detect.found``)
    uses the first's instead of loading it again (0.3 s, serial, and a second copy in memory).
    Only the entity recognizer: in the small English pipeline it has its own token-to-vector
    layer, so tagger, parser and lemmatizer are dead weight.

    Its layers multiply matrices through numpy's BLAS, not thinc's default blis: at NER's shapes
    (tens of tokens by 288) blis took 3x as long, a quarter of NER's time. The same entities
    (the mix's 916 windows, alone or batched); the floats differ in their last bits."""
    import spacy
    from thinc.api import NumpyOps

    nlp = spacy.load(
        model, exclude=["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter"]
    )
    ops = NumpyOps(use_blis=False)
    for _, pipe in nlp.pipeline:
        for layer in pipe.model.walk() if hasattr(pipe, "model") else ():
            layer.ops = ops
    return nlp


class Presidio(Detector):
    name = "presidio"
    context_free = True  # spans depend on the text and leaf.prose only (the engine caches by text)
    trigger = None  # never asked: the engine registers the parts (``parts``)

    def __init__(self, ner: bool = True, ner_threshold: float = 0.85):
        _offline_tldextract()
        from tracepub.detect.pii.presidio_import import import_presidio

        import_presidio()  # without validating every bundled pattern: serial start-up
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer,
            EmailRecognizer,
            EsNifRecognizer,
            IbanRecognizer,
            InAadhaarRecognizer,
            IpRecognizer,
            UkNinoRecognizer,
            UsSsnRecognizer,
        )

        self._email = EmailRecognizer()
        _phones.warm()  # the regions' metadata, once, before workers fork
        self._digit_recognizers = [
            CreditCardRecognizer(),
            UsSsnRecognizer(),
            EsNifRecognizer(),
            InAadhaarRecognizer(),
        ]
        self._nino = UkNinoRecognizer()
        self._iban = IbanRecognizer()
        self._ip = IpRecognizer()
        # Most addresses in traces are IPv4 in logs: unless the text has "::" or an 8-group address,
        # only Presidio's IPv4 pattern can match, and its long IPv6 patterns are the slow part.
        self._ip4 = IpRecognizer(patterns=[p for p in IpRecognizer.PATTERNS if p.name == "IPv4"])
        from tracepub.detect.pii.presidio_fast import patterns_of

        (v4,) = patterns_of(self._ip4)
        flags = (self._ip4.global_regex_flags or 0) & (re.IGNORECASE | re.MULTILINE | re.DOTALL)
        self._ipv4_re = (re.compile(v4.regex, flags), v4.score)
        self._ipv4_fast = v4.regex == _PRESIDIO_IPV4  # a release with another pattern: finditer
        self._email.validate_result("warm@example.com")  # tldextract's suffix list, before workers fork
        self.ner_threshold = ner_threshold
        self.ner_model: str | None = ner_model_name() if ner else None
        self._nlp = None

    # -- helpers ---------------------------------------------------------------------------
    def parts(self) -> list[Detector]:
        """The engine's view: emails, numbers, and NER on prose, each with its own trigger
        (NER is prose-only and runs in batches). ``scan`` stays all of them together."""
        parts: list[Detector] = [_Emails(self), _Phones(self), _Numbers(self)]
        return [*parts, ProseNames(self)] if self.ner_model else parts

    @staticmethod
    def _analyze(rec, text: str, entities: list[str]) -> list:
        """``rec.analyze``, through ``presidio_fast`` when the recognizer is a plain pattern one
        (same results, without Presidio's per-match bookkeeping)."""
        from tracepub.detect.pii import presidio_fast

        if not presidio_fast.supports(rec):
            return rec.analyze(text, entities, None)
        entity = rec.supported_entities[0]
        return [_Result(entity, s, e, score) for s, e, score in presidio_fast.analyze(rec, text)]

    def _ips(
        self, text: str, windows: list[tuple[int, int]] | None = None, public_only: bool = False
    ) -> list:
        """IP results for the whole text, computed on the lines that can hold an address.

        ASCII lines without an IPv6 shape go through Presidio's IPv4 pattern compiled with ``re``
        (the same matches as ``regex`` on ASCII text) and its ``invalidate_result``; with
        ``public_only``, a match in a block that is never global is left out before that check
        (``is_public_ip`` would drop it): logs are full of private addresses."""
        rx, score = self._ipv4_re
        wins = windows or [(0, len(text))]
        if self._ipv4_fast and text.isascii() and not any(_IPV6_HINT.search(text, a, b) for a, b in wins):
            # Only Presidio's IPv4 pattern can match, and it is tried only at its candidates: on the
            # windows as they are (the lines without an address hold no candidate), no lines to find
            # and join first. (Windows are whole lines: the same neighbours as on the joined lines.)
            found = []
            for a, b in wins:
                for m in _ipv4_finditer(rx, text, a, b):
                    value = m.group()
                    if public_only and _never_global(value):
                        continue
                    if not self._ip4.invalidate_result(value):
                        found.append(_Result("IP_ADDRESS", m.start(), m.end(), score))
            return found
        lines = [(a + a0, b + a0) for a0, b0 in wins for a, b in windows_matching(text[a0:b0], _IP_LINES)]
        if not lines:
            return []
        joined, starts = _joined(text, lines)
        if _IPV6_HINT.search(joined):
            return _shifted(self._analyze(self._ip, joined, ["IP_ADDRESS"]), lines, starts)
        if not (joined.isascii() or _same_word_chars(joined)):
            return _shifted(self._analyze(self._ip4, joined, ["IP_ADDRESS"]), lines, starts)
        found = []
        for m in _ipv4_finditer(rx, joined) if self._ipv4_fast else rx.finditer(joined):
            value = m.group()
            if public_only and _never_global(value):
                continue
            if not self._ip4.invalidate_result(value):
                found.append(_Result("IP_ADDRESS", m.start(), m.end(), score))
        return _shifted(found, lines, starts)

    def _on_lines(self, rec, text: str, entities: list[str], lines: re.Pattern) -> list:
        """A recognizer whose matches never span a line, run on the lines ``lines`` finds; the
        results carry offsets in ``text`` (context words are then looked for in ``text``)."""
        out: list = []
        for a, b in windows_matching(text, lines):
            out += [
                _Result(r.entity_type, r.start + a, r.end + a, r.score)
                for r in self._analyze(rec, text[a:b], entities)
            ]
        return out

    def _in_windows(self, rec, text: str, windows: list[tuple[int, int]], analyze=None) -> list:
        """``rec`` run once on the windows (whole lines) joined by line breaks: its matches never
        cross a line and see the same neighbours there. Results carry offsets in ``text``."""
        joined, starts = _joined(text, windows)
        found = analyze(joined) if analyze else self._analyze(rec, joined, rec.supported_entities)
        return _shifted(found, windows, starts)

    @staticmethod
    def _spans(text: str, results, context: list[str] | None = None, min_score: float = 0.5) -> list[Span]:
        out = []
        low = None
        for r in results:
            type_ = _TYPES.get(r.entity_type)
            if type_ is None:
                continue
            score = float(r.score)
            if score < min_score and context:
                low = low if low is not None else text.lower()
                before = low[max(0, r.start - _CONTEXT_WINDOW) : r.start]
                if any(w in before for w in context):
                    score = min(1.0, score + _CONTEXT_BOOST)
            if score < min_score:
                continue
            out.append(Span(r.start, r.end, type_, f"presidio:{r.entity_type}", round(score, 3)))
        return out

    def _ner(self):
        if self._nlp is None and self.ner_model:
            with _NER_LOCK:
                if self._nlp is None:
                    self._nlp = _load_ner(self.ner_model)
        return self._nlp

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        spans = self.scan_patterns(text, leaf)
        if leaf.prose and self.may_name(escaped_view(text)):
            spans += self._people(escaped_view(text))
        return spans

    def scan_patterns(self, text: str, leaf: Leaf) -> list[Span]:
        """Every recognizer on the whole string (the engine runs the parts on their lines)."""
        text = escaped_view(text)  # same offsets: "\\n81.2.3.4" would glue an "n" to the address
        return self.emails(text) + self.numbers(text)

    def emails(self, text: str) -> list[Span]:
        spans: list[Span] = []
        if "@" in text:
            for found in self._spans(text, self._on_lines(self._email, text, ["EMAIL_ADDRESS"], _AT_LINES)):
                s = _trim_email(text, found)
                if s is None or _NOT_PERSONAL_EMAIL.search(text[s.start : s.end]):
                    continue
                if url_password(text, s.start):
                    continue  # scheme://user:PASSWORD@host: a URL password (the secret rules' url-password), no address
                if not not_personal_email(text, s.start, s.end) and not on_copyright_line(text, s.start):
                    spans.append(s)
        return spans

    def numbers(
        self, text: str, windows: list[tuple[int, int]] | None = None, phones: bool = True
    ) -> list[Span]:
        """Phones (unless not ``phones``), cards, national ids, IBANs and public IPs, looked for on
        ``windows`` (lines of ``text`` that hold every possible match; None: all of it). Context
        words, the digit counts that gate IPs and IBANs and the checks around a match read the
        whole text."""
        whole = [(0, len(text))]
        wins = windows or whole
        spans = _phones.find(text, windows) if phones else []
        joined, starts = _joined(text, wins)
        # Each recognizer's matches hold its digit shape (folded: ASCII digits as 0); Presidio's
        # card pattern reads any digit, so text with other characters goes through.
        fj = folded(joined) if joined.isascii() else None
        by_shape = [wins] * len(_DIGIT_SHAPES) if fj is None else _shape_lines(fj, wins, starts)
        for rec, lines in zip(self._digit_recognizers, by_shape, strict=True):
            if lines:
                found = self._in_windows(rec, text, lines)
                spans += [
                    s
                    for s in self._spans(text, found, rec.context, 0.4)
                    if not _glued(text, s)
                    and number_in_place(text, s.start, s.end, s.detector.partition(":")[2])
                ]
        # Only the thresholds 7 and 8 matter, and only for IPs and IBANs: a search, not a count.
        ndigits: int | None = None

        def digits() -> int:
            nonlocal ndigits
            if ndigits is None:
                ndigits = 8 if _DIGITS_8.search(text) else 7 if _DIGITS_7.search(text) else 0
            return ndigits

        if any(_IP_LINES.search(text, a, b) for a, b in wins) and digits() >= 7:
            for s in self._spans(text, self._ips(text, windows, public_only=True)):
                if (
                    is_public_ip(text[s.start : s.end])
                    and not _version_like(text, s.start)
                    and personal_ip(text, s.start, s.end)
                ):
                    spans.append(s)
        if _NINO_END.search(joined) and _NINO_HINT.search(
            joined
        ):  # six digits: on a window; a match anywhere then counts
            found = _shifted(self._analyze(self._nino, joined, ["UK_NINO"]), wins, starts)
            spans += self._spans(text, found, self._nino.context, 0.4)
        iban = [(a, b) for a, b in wins if has_iban_hint(text, a, b)]
        if iban and digits() >= 8:
            spans += self._spans(
                text,
                self._in_windows(self._iban, text, iban, lambda w: self._iban.analyze(w, ["IBAN_CODE"])),
            )
        return spans

    def may_name(self, text: str) -> bool:
        """The gate before NER: prose long enough and shaped like it could hold a name."""
        return bool(self.ner_model) and len(text) >= NER_MIN_CHARS and bool(name_spots(text))

    def _people(self, text: str) -> list[Span]:
        nlp = self._ner()
        if nlp is None:
            return []
        return self._people_in(nlp(text[:100_000]))

    def _people_in(self, doc) -> list[Span]:
        out = []
        for ent in doc.ents:
            if "\n" in ent.text or (ent.label_ != "PERSON" and ent.label_ not in _NAME_LIKE_LABELS):
                continue
            start, end = ent.start, ent.end
            while start < end and doc[start].lower_ in GREETINGS:
                start += 1
            if start >= end:
                continue
            if ent.label_ == "PERSON" and start > 0:
                prev = doc[start - 1]
                # "Beatriz" in front of a PERSON "Kuznetsov": the model cut the name short.
                if (
                    prev.is_title
                    and prev.is_alpha
                    and looks_like_name(prev.text, 1)
                    and prev.lower_ not in GREETINGS
                ):
                    start -= 1
            span = doc[start:end]
            one_cued = False
            if len(span) == 1:
                # One word is often a product, a place or a tool ("Jest", "Madison"): only with a
                # cue that makes it a person ("thanks Priya", "Thanks, Priya", "Raman said"). The
                # small model labels a lone first name as anything (Priya: NORP, ORG, LOC): with
                # its cue, any name-like label counts, as a name that is no common word.
                b = start - 1
                if b > 0 and doc[b].text in (",", ":"):
                    b -= 1
                before = doc[b].lower_ if b >= 0 else ""
                after = doc[end].lower_ if end < len(doc) else ""
                if before not in CUES and after not in SPEECH:
                    continue
                if ent.label_ != "PERSON" and not name_like(span.text):
                    continue
                one_cued = True
            if ent.label_ == "PERSON" or one_cued:
                score = ner_score(span.text)
            else:
                score = 0.6 if 2 <= len(span) <= 4 and looks_like_name(span.text, 2) else 0.0
            if score <= 0:
                continue
            out.append(
                Span(
                    span.start_char,
                    span.end_char,
                    "pii.person",
                    f"presidio:spacy-ner:{ent.label_}",
                    score,
                    ner_action(score, self.ner_threshold),
                )
            )
        return out


class _Emails(Detector):
    """Presidio's email recognizer, on the lines that can hold an address."""

    name = "presidio"
    context_free = True
    trigger = Trigger(folded=(_EMAIL_TRIGGER,), lines=True)

    def __init__(self, presidio: Presidio):
        self._presidio = presidio

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return self._presidio.emails(escaped_view(text))

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        """On the lines, as the engine would; with the whole string around them where a PyPI JSON
        document may be (``checks.index_metadata`` reads around the line; elsewhere it is False and
        every check reads the line only)."""
        if "pypi.org" in text and may_be_index_metadata(escaped_view(text)):
            return [s for s in self.scan(text, leaf) if any(a <= s.start and s.end <= b for a, b in windows)]
        return [
            Span(s.start + a, s.end + a, s.type, s.detector, s.confidence, s.action)
            for a, b in windows
            for s in self.scan(text[a:b], leaf)
        ]


class _Phones(Detector):
    """Phone numbers (``phones.py``) on the lines that can hold a candidate with seven digits.
    Registered right before ``_Numbers``: the engine lists their spans in the order
    ``Presidio.numbers`` does."""

    name = "presidio"
    context_free = True
    trigger = Trigger(folded=(_PHONE_TRIGGER,), lines=True)

    def __init__(self, presidio: Presidio):
        self._presidio = presidio

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return _phones.find(escaped_view(text))

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        return _phones.find(escaped_view(text), windows)


class _Numbers(Detector):
    """Presidio's other number recognizers, on the lines that can hold a match; context words
    are read in the whole string (``scan_windows``)."""

    name = "presidio"
    context_free = True

    def __init__(self, presidio: Presidio):
        self._presidio = presidio
        self.trigger = Trigger(
            folded=_NUMBER_TRIGGERS,
            folded_split=(_NUMBER_SHAPES,),
            shapes=_iban_shapes(),
            shape_check=_IBAN_START,
            lines=True,
        )

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return self._presidio.numbers(escaped_view(text), phones=False)

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        return self._presidio.numbers(escaped_view(text), windows, phones=False)
