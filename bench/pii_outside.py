"""PII recall on text nobody in this project wrote: Presidio's recognizer test cases.

    python bench/pii_outside.py                                   # every case, harness and place
    python bench/pii_outside.py --harness claude_code,codex --places prompt,shell
    python bench/pii_outside.py --json /tmp/pii-outside.json --check

bench/eval.py plants PII drawn from our own generators, so it measures the shapes we thought
of (an upper bound). Microsoft Presidio's analyzer tests (``presidio-analyzer/tests/
test_*_recognizer.py``) hold parametrized cases written by other people: a text, how many
entities its recognizer must find, and where (``("My US number is (415) 555-0132", 1,
((16, 30),), ...)``), and cases that must find nothing.

The test modules are read at run time from a git checkout of microsoft/presidio (``--repo``:
bare or normal; its newest commit's files via ``git show``) and parsed with ``ast``: every
``@pytest.mark.parametrize`` whose argument names hold a text (``text``/``iban``), an
``expected_len`` and positions (``expected_positions``/``expected_position``/``expected_res``)
gives its literal cases; a case that is not a literal (built by a helper) is skipped and
counted. A case's entity is its module's ``entities`` fixture (or the case's own ``entities``).
The same text in one entity is taken once (the first case: the phone tests repeat texts with
other leniencies). A positive case without positions counts only when it is one token (the
whole text is the entity). Nothing of Presidio is committed.

Each case's text is planted, unchanged, exactly as bench/recall.py plants gitleaks' samples (6
harnesses x 4 places: prompt, shell output, file read, JSON tool argument; canaries; the real
``tracepub redact`` in a subprocess with a fake home). Every expected span of a positive case is
then *fully redacted* (no piece of it left), *partial* (the whole span is gone but a piece of at
least half its length, 4 characters or more, survives that the case's text does not hold outside
its spans) or *leaked* (it survives whole); a negative case (expected 0) is *kept* when its whole
text survives.

Scope, by tracepub's policy (docs/design/personal-data.md): an entity is **claimed** (emails,
phones, cards, IBANs, IPs, MACs, the national ids listed there) or **out of scope**: not
personal by our policy and kept on purpose: URLs, dates alone (only dates of birth are), crypto
wallet addresses, business and tax numbers of companies (ABN, ACN, VAT, GSTIN, UEN, BRN,
organisationsnummer, Handelsregister), postal codes alone, vehicle plates, bank routing numbers,
and public registry numbers of doctors and practices (US NPI, DE LANR/BSNR). Entities that are
personal but that tracepub does not claim to find (passports, driving licences, other national
ids) are measured and shown apart as **not claimed**. Out-of-scope cases are planted too and
their outcomes listed, but count in neither headline; the headline is the claimed entities.

For "kept by policy" rows the "leaked" column is the share kept, as the policy says.

Measured (`python bench/pii_outside.py`: 1,435 cases, 862 positive, x 6 harnesses x 4 places =
34,440 plantings; Presidio 0aa9f8e): claimed entities 7,968 spans, 97.4% fully redacted, 0.0%
partial, 2.6% leaked; their negatives 97.6% kept. Kept by policy: 4,584 spans, among them the
numbers our policy takes only after their name (``bare_weak_number``: a SIN, TFN, PESEL,
personnummer, TCKN, ZA id, NHS number, Steuer-ID, bare RRN or SSN, codice fiscale, Aadhaar or
card number written alone), NRICs and RRNs whose check fails, a phone's bare digits and a very
frequent word after a title. Before (main at aec0515, when those bare numbers still counted as
claimed): 81.8% of 9,864 spans fully redacted, 97.6% kept; at 6c42897: 70.1%, 94.3%. What it
still misses is mostly person names in prose that NER does not find ("Dan Bar"), ids glued to a
word ("is199003052397"), lower-case NINOs, and Turkish and Chinese phones without a cue.
"""

from __future__ import annotations

import argparse
import ast
import ipaddress
import json
import math
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import recall as rc  # noqa: E402

REPO = Path("/work/.mirror/microsoft+presidio/repo")
TESTS = "presidio-analyzer/tests/"
TARGETS = {"claimed_fully_redacted": 0.95, "negatives_kept": 0.75}
# Presidio entity -> what tracepub calls it (the type its placeholder names).
CLAIMED = {
    "EMAIL_ADDRESS": "pii.email",
    "PHONE_NUMBER": "pii.phone",
    "PH_MOBILE_NUMBER": "pii.phone",
    "TR_PHONE_NUMBER": "pii.phone",
    "CREDIT_CARD": "pii.credit_card",
    "IBAN_CODE": "pii.iban",
    "IP_ADDRESS": "pii.ip",
    "MAC_ADDRESS": "pii.mac_address",
    "PERSON": "pii.person",
    **{
        e: "pii.national_id"
        for e in (
            "US_SSN",
            "UK_NINO",
            "ES_NIF",
            "ES_NIE",
            "IN_AADHAAR",
            "SG_NRIC_FIN",
            "IT_FISCAL_CODE",
            "FI_PERSONAL_IDENTITY_CODE",
            "CA_SIN",
            "KR_RRN",
            "AU_TFN",
            "PL_PESEL",
            "SE_PERSONNUMMER",
            "TR_NATIONAL_ID",
            "ZA_ID_NUMBER",
            "UK_NHS",
            "DE_TAX_ID",
        )
    },
}
OUT_OF_SCOPE = {
    "URL": "a URL",
    "DATE_TIME": "a date alone",
    "CRYPTO": "a wallet address",
    "AU_ABN": "a company's number",
    "AU_ACN": "a company's number",
    "IT_VAT_CODE": "a company's number",
    "DE_VAT_ID": "a company's number",
    "IN_GSTIN": "a company's number",
    "SG_UEN": "a company's number",
    "KR_BRN": "a company's number",
    "SE_ORGANISATIONSNUMMER": "a company's number",
    "DE_HANDELSREGISTER": "a company's number",
    "UK_POSTCODE": "a postal code alone",
    "DE_PLZ": "a postal code alone",
    "UK_VEHICLE_REGISTRATION": "a vehicle plate",
    "IN_VEHICLE_REGISTRATION": "a vehicle plate",
    "NG_VEHICLE_REGISTRATION": "a vehicle plate",
    "TR_LICENSE_PLATE": "a vehicle plate",
    "DE_KFZ": "a vehicle plate",
    "ABA_ROUTING_NUMBER": "a bank's routing number",
    "US_NPI": "a public registry number",
    "DE_LANR": "a public registry number",
    "DE_BSNR": "a public registry number",
    "MEDICAL_LICENSE": "a public registry number",
}
SCOPES = ("claimed", "kept by policy", "not claimed", "out of scope")
TEXT_ARGS = ("text", "iban")
POSITION_ARGS = ("expected_positions", "expected_position", "expected_res")
# Values of a claimed entity that docs/design/personal-data.md keeps on purpose, whatever their
# surroundings: they name no one (documentation and reserved ranges, fiction numbers, group and
# textbook MACs, role and placeholder mailboxes). Written here from the policy text, not from the
# detectors' code, so a detector's own mistake is not excused by it.
_MAC_TEXTBOOK = {"001122334455", "aabbccddeeff", "0123456789ab", "112233445566", "a1b2c3d4e5f6"}
_ROLE_LOCAL = {"info", "support", "security", "abuse", "conduct", "user", "foo", "me", "you", "noreply"}
_DOC_V6 = [ipaddress.ip_network(n) for n in ("2001:db8::/32", "3fff::/20", "3ffe::/16")]


def _ip_kept(value: str) -> bool:
    """Not a machine's public address: private, loopback, link-local, multicast, reserved,
    documentation, unspecified (IPv4 inside IPv6 judged as the IPv4), or an IPv6 outside 2000::/3."""
    v = value.strip("[]").split("%", 1)[0]
    try:
        net = ipaddress.ip_network(v, strict=False)
    except ValueError:
        return False
    ip = net.network_address
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or (ip.sixtofour if ip in ipaddress.ip_network("2002::/16") else None)
        if inner is None and ip.packed[:12] == bytes(12) and int(ip) > 1:
            inner = ipaddress.IPv4Address(ip.packed[12:])  # ::10.0.0.1 (IPv4-compatible)
        if inner is not None:
            return not inner.is_global
        if ip not in ipaddress.ip_network("2000::/3") or any(ip in n for n in _DOC_V6):
            return True
    return not ip.is_global


# Numbers whose check is weak (one in ten or eleven) or whose shape gives no literal: the policy
# (docs/design/personal-data.md, "National ids of more countries", "Cards") takes them only after
# their name, a card word or in a log line. Written here from that text, the names in the
# languages Presidio's cases use; a case whose text names the number is claimed whatever happens.
_NAMED_ONLY = {
    "CA_SIN": r"\bsin\b|social.?insurance|\bnas\b|assurance sociale",
    "AU_TFN": r"\btfn\b|tax.?file",
    "US_SSN": r"\bssn\b|social.?security",
    "PL_PESEL": r"pesel",
    "SE_PERSONNUMMER": r"personnumm?er|personnr|\bpnr\b|person(?:al)?.?(?:identity.?)?(?:number|code)|swedish.?id",
    "TR_NATIONAL_ID": r"kimlik|tckn|\bt\.?c\.?\b|turkish.{0,10}id",
    "ZA_ID_NUMBER": r"\bid(?:entity)?.?(?:number|no)\b|identity.?number",
    "UK_NHS": r"\bnhs\b",
    "DE_TAX_ID": r"steuer|\bidnr\b|identifikationsnummer",
    "IT_FISCAL_CODE": r"codice fiscale|\bc\.f\.|\bcf\b|fiscal code|tax code",
    "KR_RRN": r"\brrn\b|resident registration|주민등록번호",
    "IN_AADHAAR": r"aadh?aar|uidai|\buid\b",
    "CREDIT_CARD": r"card|credit|debit|visa|master.?card|amex|american express|discover|diners|jcb|maestro|\bcc\b"
    r"|\bpan\b|payment|\bpay\b|charge|checkout|kreditkarte|carte|tarjeta|cart[aã]o|\bcvv|billing",
}
# The forms taken on shape and check alone, whatever the words around them.
_STRONG_FORM = {
    "CA_SIN": r"\d{3}-\d{3}-\d{3}",
    "US_SSN": r"\d{3}([- ])\d{2}\1\d{4}",
    "KR_RRN": r"\d{6}-\d{7}",
    "IN_AADHAAR": r"\d{4}([ -])\d{4}\1\d{4}",
    "CREDIT_CARD": r"\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1\d{3})?|\d{4}([ -])\d{6}\2\d{5}",
}
_LOG_LINE = re.compile(
    r"^\W?(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d)"
    r"|\b(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\b|\blevel\W{1,3}[a-z]+",
    re.M,
)


def bare_weak_number(entity: str, span: str, text: str) -> bool:
    """A number the policy takes only with its name (or, for a card, in a log line), written
    without it: kept by policy, as any run of digits in code is."""
    if entity not in _NAMED_ONLY or re.fullmatch(_STRONG_FORM.get(entity, r"(?!)"), span):
        return False
    rest = text.replace(span, " ")
    if re.search(_NAMED_ONLY[entity], rest, re.I):
        return False
    return not (entity == "CREDIT_CARD" and _LOG_LINE.search(text))


def _sg_check(v: str) -> bool:
    """Singapore NRIC/FIN check letter (ICA's published weights): S/T, F/G, and M (since 2022)."""
    if not re.fullmatch(r"[STFGM]\d{7}[A-Z]", v):
        return False
    total = sum(int(c) * w for c, w in zip(v[1:8], (2, 7, 6, 5, 4, 3, 2), strict=True))
    total += {"T": 4, "G": 4, "M": 3}.get(v[0], 0)
    letters = {"S": "JZIHGFEDCBA", "T": "JZIHGFEDCBA", "M": "XWUTRQPNJLK"}.get(v[0], "XWUTRQPNMLK")
    return letters[total % 11] == v[8]


def _kr_check(v: str) -> bool:
    """Korean RRN check digit (numbers issued before October 2020)."""
    d = v.replace("-", "")
    total = sum(int(c) * w for c, w in zip(d[:12], (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5), strict=True))
    return (11 - total % 11) % 10 == int(d[12])


# Words so frequent that after a title or "call me" they are not taken as a name (the policy's
# Zipf 5.2: "Mr. Right", "call me Maybe"), looked up in wordfreq as the policy says.
_TITLE = re.compile(r"^(?:(?:Mr|Mrs|Ms|Mx|Dr|Prof)\.?\s+)?")


def _very_common_name(span: str) -> bool:
    from wordfreq import zipf_frequency

    word = _TITLE.sub("", span).strip()
    return " " not in word and zipf_frequency(word.lower(), "en") >= 5.2


def kept_by_policy(entity: str, span: str, text: str = "") -> str:
    """Why our policy keeps ``span`` as a value (empty when it is personal); ``text``: the case's
    whole text (what says what a number is)."""
    if bare_weak_number(entity, span, text or span):
        return "a bare number whose check is weak, without its name (taken only after it)"
    if entity == "SG_NRIC_FIN" and not _sg_check(span):
        return "its prefix or check letter fails: no valid NRIC/FIN"
    if (
        entity == "KR_RRN"
        and re.fullmatch(r"\d{6}-\d{7}", span)
        and not _kr_check(span)
        and not re.search(_NAMED_ONLY["KR_RRN"], text, re.I)
    ):
        return "a bare RRN whose check digit fails, without its name"
    if entity == "PERSON" and _very_common_name(span):
        return "a very frequent English word as a name (after a title: 'Mr. May')"
    if (
        CLAIMED.get(entity) == "pii.phone"
        and (text or span).strip() == span
        and re.fullmatch(r"[1-9][0-9]{6,14}", span)
    ):
        return "bare digits without a phone's form or cue (a trunk 0 or a + is a form)"
    if entity == "IP_ADDRESS" and _ip_kept(span):
        return "not a public address (kept outside network-configuration output)"
    if CLAIMED.get(entity) == "pii.phone":
        d = re.sub(r"\D", "", span)
        if len(d) in (10, 11) and d[-7:-2] == "55501" and (len(d) == 10 or d[0] == "1"):
            return "a NANP 555-01xx number (reserved for fiction)"
    if entity == "MAC_ADDRESS":
        h = re.sub(r"[^0-9A-Fa-f]", "", span).lower()
        if len(h) == 12 and (int(h[:2], 16) & 1 or len(set(h)) == 1 or h in _MAC_TEXTBOOK):
            return "a group, broadcast or textbook MAC"
    if entity == "EMAIL_ADDRESS" and "@" in span:
        local, domain = span.lower().rsplit("@", 1)
        if local in _ROLE_LOCAL or re.search(
            r"(?:^|\.)example\.[a-z]+$|\.(?:test|invalid|localhost)$", domain
        ):
            return "a role or placeholder mailbox"
    return ""


PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_]*(?:_[^<>\s]{1,12})?>")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def scope(entity: str) -> str:
    return "claimed" if entity in CLAIMED else "out of scope" if entity in OUT_OF_SCOPE else "not claimed"


# -- reading Presidio's tests ------------------------------------------------------------------------
def _module_entities(tree: ast.Module) -> list[str]:
    """The module's ``entities`` fixture (``return ["US_SSN"]``; the NER modules list several and
    each case picks one by ``entity_num``)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "entities":
            for sub in ast.walk(node):
                if isinstance(sub, ast.Return) and sub.value is not None:
                    try:
                        value = ast.literal_eval(sub.value)
                    except ValueError:
                        return []
                    if isinstance(value, list) and all(isinstance(x, str) for x in value):
                        return value
    return []


def _positions(value: object) -> list[tuple[int, int]] | None:
    """``((16, 30), (60, 75))``, ``((16, 30),)`` or one ``(16, 30)``; None when not that shape."""
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(isinstance(x, int) for x in value):
        return [(int(value[0]), int(value[1]))]
    if isinstance(value, (tuple, list)) and all(
        isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(x, int) for x in p) for p in value
    ):
        return [(int(p[0]), int(p[1])) for p in value]
    return None


def parse_module(source: str, name: str, left: dict[str, int]) -> list[rc.Sample]:
    """The literal cases of one test module as samples (tp with the expected spans, fp for 0)."""
    tree = ast.parse(source)
    entities = _module_entities(tree)
    out: list[rc.Sample] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        f = node.func
        if not (isinstance(f, ast.Attribute) and f.attr == "parametrize"):
            continue
        if not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
            continue
        names = [x.strip() for x in node.args[0].value.split(",")]
        ti = next((names.index(a) for a in TEXT_ARGS if a in names), None)
        if ti is None or "expected_len" not in names:
            continue
        li = names.index("expected_len")
        pi = next((names.index(a) for a in POSITION_ARGS if a in names), None)
        ei = names.index("entities") if "entities" in names else None
        ni = names.index("entity_num") if "entity_num" in names else None
        cases = node.args[1]
        if not isinstance(cases, (ast.List, ast.Tuple)):
            left["not_literal"] += 1
            continue
        for case in cases.elts:
            try:
                values = ast.literal_eval(case)
            except (ValueError, SyntaxError, TypeError):
                left["not_literal"] += 1
                continue
            if not isinstance(values, (tuple, list)) or len(values) != len(names):
                left["not_literal"] += 1
                continue
            text, n = values[ti], values[li]
            if not isinstance(text, str) or not isinstance(n, int) or not text.strip():
                left["not_literal"] += 1
                continue
            ent = entities[0] if entities else None
            if ni is not None and isinstance(values[ni], int) and values[ni] < len(entities):
                ent = entities[values[ni]]
            if ei is not None and isinstance(values[ei], (list, tuple)) and values[ei]:
                ent = str(values[ei][0])
            if ent is None:
                left["no_entity"] += 1
                continue
            sid = f"{name}:{len(out)}"
            if n == 0:
                out.append(rc.Sample(sid, ent, "fp", text, keep=text))
                continue
            pos = _positions(values[pi]) if pi is not None else None
            if not pos:
                if n == 1 and not re.search(r"\s", text.strip()):
                    pos = [(text.index(text.strip()), text.index(text.strip()) + len(text.strip()))]
                else:
                    left["no_positions"] += 1
                    continue
            spans = tuple(dict.fromkeys(text[a:b] for a, b in pos if text[a:b].strip()))
            if not spans:
                left["no_positions"] += 1
                continue
            out.append(rc.Sample(sid, ent, "tp", text, spans))
    return out


def load_samples(repo: Path) -> tuple[list[rc.Sample], dict[str, int]]:
    files = [
        f
        for f in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", TESTS).split()
        if re.search(r"/test_[a-z0-9_]+_recognizer\.py$", f)
    ]
    left = {"not_literal": 0, "no_entity": 0, "no_positions": 0, "repeated": 0}
    out: list[rc.Sample] = []
    seen: set[tuple[str, str]] = set()
    for f in sorted(files):
        name = f.rsplit("/", 1)[-1].removeprefix("test_").removesuffix("_recognizer.py")
        for s in parse_module(_git(repo, "show", f"HEAD:{f}"), name, left):
            if (s.family, s.input) in seen:
                left["repeated"] += 1
                continue
            seen.add((s.family, s.input))
            out.append(s)
    return out, left


# -- scoring -----------------------------------------------------------------------------------------
@dataclass
class SpanResult:
    planting: rc.Planting
    span: str  # the expected span, or the whole text of a negative case
    outcome: str  # redacted | partial | leaked | kept | removed | unread
    survivors: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    scope: str = ""  # claimed | kept by policy | not claimed | out of scope
    why: str = ""  # for "kept by policy": the policy's reason

    def __post_init__(self) -> None:
        entity = self.planting.sample.family
        self.scope = scope(entity)
        if self.scope == "claimed" and self.planting.sample.kind == "tp":
            self.why = kept_by_policy(entity, self.span, self.planting.sample.input)
            if self.why:
                self.scope = "kept by policy"


def _piece_survives(span: str, text: str, blob: str, others: str) -> list[str]:
    """Pieces of ``span`` (at least half of it, 4+ characters, three different ones: ``000000`` is
    in any output) found in ``blob`` but not in
    ``others`` (the case's text with this span blanked: its other words, or another expected span
    our policy keeps, are no leak)."""
    w = max(4, math.ceil(len(span) / 2))
    found: list[str] = []
    i = 0
    while i + w <= len(span):
        piece = span[i : i + w]
        if (
            len(set(piece)) >= 3
            and sum(c.isalnum() for c in piece) >= 3
            and piece in blob
            and piece not in others
        ):
            found.append(piece)
            i += w
        else:
            i += 1
    return found


def score(plantings: list[rc.Planting], output: rc.Output) -> list[SpanResult]:
    out: list[SpanResult] = []
    for p in plantings:
        texts = output.texts.get(p.canary, [])
        s = p.sample
        if not texts:
            out += [SpanResult(p, x, "unread") for x in (s.secrets if s.kind == "tp" else (s.input,))]
            continue
        blob = "\n\x00\n".join(texts)
        if s.kind == "fp":
            out.append(SpanResult(p, s.input, "kept" if s.input in blob else "removed"))
            continue
        bare = PLACEHOLDER.sub("\x00", blob)
        for x in s.secrets:
            if x in blob:
                out.append(SpanResult(p, x, "leaked", [x], [rc._around(texts, x)]))
                continue
            pieces = _piece_survives(x, s.input, bare, s.input.replace(x, "\x00"))
            if pieces:
                out.append(SpanResult(p, x, "partial", pieces, [rc._around(texts, pieces[0])]))
            else:
                out.append(SpanResult(p, x, "redacted"))
    return out


@dataclass
class Tally:
    spans: int = 0
    redacted: int = 0
    partial: int = 0
    leaked: int = 0
    negatives: int = 0
    kept: int = 0
    unread: int = 0

    def add(self, r: SpanResult) -> None:
        o = r.outcome
        if o == "unread":
            self.unread += 1
        elif o in ("kept", "removed"):
            self.negatives += 1
            self.kept += o == "kept"
        else:
            self.spans += 1
            self.redacted += o == "redacted"
            self.partial += o == "partial"
            self.leaked += o == "leaked"

    @property
    def failures(self) -> int:
        return self.partial + self.leaked + self.negatives - self.kept


def _table(title: str, rows: dict[str, Tally], order: list[str]) -> list[str]:
    lines = [
        f"| {title} | spans | fully redacted | partial | leaked | negatives | negatives kept |",
        "|---|---|---|---|---|---|---|",
    ]
    for k in order:
        t = rows[k]
        lines.append(
            f"| {k} | {t.spans} | {rc._pct(t.redacted, t.spans)} | {rc._pct(t.partial, t.spans)} | "
            f"{rc._pct(t.leaked, t.spans)} | {t.negatives} | {rc._pct(t.kept, t.negatives)} |"
            + (f" ({t.unread} unread)" if t.unread else "")
        )
    return lines


def tally(results: list[SpanResult], key) -> dict[str, Tally]:
    return rc.tally(results, key, Tally)


def summary(results: list[SpanResult]) -> dict:
    by = tally(results, lambda r: r.scope)
    doc = {}
    for name in SCOPES:
        t = by.get(name, Tally())
        doc[name] = {
            "spans": t.spans,
            "fully_redacted": t.redacted / t.spans if t.spans else 1.0,
            "partial": t.partial / t.spans if t.spans else 0.0,
            "leaked": t.leaked / t.spans if t.spans else 0.0,
            "negatives": t.negatives,
            "negatives_kept": t.kept / t.negatives if t.negatives else 1.0,
            "unread": t.unread,
        }
    return doc


def missed(s: dict) -> list[str]:
    c = s["claimed"]
    out = []
    if c["fully_redacted"] < TARGETS["claimed_fully_redacted"]:
        out.append(f"claimed fully redacted {100 * c['fully_redacted']:.1f}% < 95%")
    if c["negatives_kept"] < TARGETS["negatives_kept"]:
        out.append(f"claimed negatives kept {100 * c['negatives_kept']:.1f}% < 75%")
    return out


def render(results: list[SpanResult]) -> str:
    sc = tally(results, lambda r: r.scope)
    lines = _table("scope", sc, [k for k in SCOPES if k in sc])
    claimed = [r for r in results if r.scope == "claimed"]
    lines += [""] + _table(
        "place (claimed)",
        tally(claimed, lambda r: r.planting.place),
        [p for p in rc.PLACES if any(r.planting.place == p for r in claimed)],
    )
    lines += [""] + _table(
        "harness (claimed)",
        tally(claimed, lambda r: r.planting.harness),
        sorted({r.planting.harness for r in claimed}),
    )
    for name in SCOPES:
        part = [r for r in results if r.scope == name]
        if not part:
            continue
        ent = tally(part, lambda r: r.planting.sample.family)
        order = sorted(ent, key=lambda e: (-ent[e].failures, e))
        title = f"entity ({name})" if name != "kept by policy" else "entity (kept by policy: 'leaked' = kept)"
        lines += [""] + _table(title, ent, order)
    return "\n".join(lines)


def failures_json(results: list[SpanResult]) -> list[dict]:
    return [
        {
            "id": r.planting.sample.id,
            "entity": r.planting.sample.family,
            "scope": r.scope,
            "why": r.why,
            "harness": r.planting.harness,
            "place": r.planting.place,
            "canary": r.planting.canary,
            "outcome": r.outcome,
            "input": r.planting.sample.input,
            "span": r.span,
            "survivors": r.survivors,
            "context": r.context,
        }
        for r in results
        if r.outcome not in ("redacted", "kept")
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n")[1],
    )
    ap.add_argument("--repo", type=Path, default=REPO, help="Presidio git directory (default: %(default)s).")
    ap.add_argument("--harness", default=",".join(rc.HARNESSES), help="Comma-separated harnesses.")
    ap.add_argument("--places", default=",".join(rc.PLACES), help="Comma-separated places.")
    ap.add_argument("--entity", help="Only Presidio entities matching this regex.")
    ap.add_argument("--scope", choices=["claimed", "not claimed", "out of scope"], help="Only this scope.")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-session", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--keep", type=Path, help="Work in this (new) folder and keep the corpus and output.")
    ap.add_argument("--json", type=Path, metavar="FILE", help="Write the summary and every failure here.")
    ap.add_argument(
        "--check",
        action="store_true",
        help="Exit 1 below the targets (claimed >= 95%%, negatives kept >= 75%%).",
    )
    args = ap.parse_args(argv)
    if not (args.repo / "HEAD").exists() and not (args.repo / ".git").exists():
        ap.error(f"{args.repo} is not a git directory of microsoft/presidio (--repo)")
    harnesses = rc._names(args.harness, [w.harness for w in rc.WRITERS], "harness")
    places = rc._names(args.places, rc.PLACES, "place")
    samples, left = load_samples(args.repo)
    if args.entity:
        samples = [s for s in samples if re.search(args.entity, s.family)]
    if args.scope:
        samples = [s for s in samples if scope(s.family) == args.scope]
    if not samples:
        ap.error("no case left after --entity/--scope")
    c, run, seconds, output = rc.planted_run(
        args, samples, harnesses, places, "tracepub-pii-outside-", rc.read_output
    )
    results = score(c.plantings, output)
    s = summary(results)
    print(render(results))
    ntp = sum(x.kind == "tp" for x in samples)
    print(
        f"\n{len(samples)} cases ({ntp} positive, {len(samples) - ntp} negative; "
        f"{len({x.family for x in samples})} entities; left out: "
        f"{', '.join(f'{k} {v}' for k, v in left.items())}) x {len(harnesses)} harnesses x "
        f"{len(places)} places = {len(c.plantings)} plantings; corpus {c.bytes / 1e6:.1f} MB, "
        f"{run.get('files', '?')} files, redacted in {seconds:.1f} s."
    )
    miss = missed(s)
    print("Targets met." if not miss else "Targets missed: " + "; ".join(miss))
    if args.json:
        doc = {
            "summary": s,
            "targets": TARGETS,
            "repo": str(args.repo),
            "commit": _git(args.repo, "rev-parse", "HEAD").strip(),
            "left_out": left,
            "failures": failures_json(results),
        }
        args.json.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"{len(doc['failures'])} failures written to {args.json}")
    return 1 if args.check and miss else 0


if __name__ == "__main__":
    sys.exit(main())
