"""Fast paths inside detectors, each checked against the formulation it replaces on random text
(speed pass 4: the same spans, faster)."""

from __future__ import annotations

import random

from tracepub.detect.pii.addresses import _ADDRESS, address_spans

# Pieces that make and nearly make street addresses, of every form ``_ADDRESS`` knows, glued
# together with and without blanks, line breaks, punctuation and word characters beyond ASCII.
_ADDRESS_PIECES = (
    "1",
    "12",
    "1234",
    "12345",
    "123456",
    "12a",
    "7B",
    "12,",
    "0",
    "٣",
    "²",
    " ",
    " ",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    ", ",
    ".",
    "-",
    "'",
    "_",
    "/",
    "(",
    '"',
    "Maple",
    "Baker",
    "North",
    "Old",
    "Élise",
    "Über",
    "X",
    "Ab",
    "maple",
    "oak",
    "Street",
    "St",
    "St.",
    "Stra",
    "String",
    "Avenue",
    "Ave",
    "Ave.",
    "Avenues",
    "Road",
    "Rd",
    "Rd.",
    "Lane",
    "Ln",
    "Drive",
    "Dr",
    "Dr.",
    "Boulevard",
    "Blvd",
    "Way",
    "Ways",
    "Court",
    "Ct",
    "Place",
    "Pl",
    "Terrace",
    "Gardens",
    "Parkway",
    "Pkwy",
    "Square",
    "Sq",
    "Highway",
    "Hwy",
    "Crescent",
    "Crescenté",
    "Haupt",
    "Hauptstraße",
    "Lindenstrasse",
    "Bahnhofstr.",
    "Bergweg",
    "Kirchgasse",
    "Marktplatz",
    "Schlossallee",
    "Ostring",
    "Mühlendamm",
    "Elbufer",
    "string",
    "ring",
    "weg",
    "damm",
    "Äußere",
    "rue",
    "true",
    "avenue",
    "boulevard",
    "chemin",
    "place",
    "allée",
    "impasse",
    "quai",
    "de",
    "la",
    "des",
    "du",
    "3 rue ",
    "9, quai ",
    "7\tplace des ",
    "1 avenue de la ",
    "Rivoli",
    "Victor-Hugo",
    "l'Église",
    "É",
    "é",
    "ß",
    "ö",
    "日本",
    "😀",
    "\u200d",
    "\u0301",
)


_RUE = (
    " rue",
    " avenue",
    " boulevard",
    " chemin",
    " place",
    " allée",
    " impasse",
    " quai",
    "\true",
    "\tavenue",
    "\tboulevard",
    "\tchemin",
    "\tplace",
    "\tallée",
    "\timpasse",
    "\tquai",
)


def _address_text(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 40)):
        out.append(rng.choice(_ADDRESS_PIECES))
        if rng.random() < 0.5:
            out.append(rng.choice((" ", " ", "\t", "\n")))
    return "".join(out)


def test_address_spans_equal_the_regex_on_random_text():
    rng = random.Random(4)
    forms = [0, 0, 0]
    for _ in range(30_000):
        text = _address_text(rng)
        expected = [m.span() for m in _ADDRESS.finditer(text)]
        assert address_spans(text) == expected, text
        for a, b in expected:  # which form: German (name first), French (lower-case street word), US/UK
            forms[0 if text[a].isalpha() else 1 if any(w in text[a:b] for w in _RUE) else 2] += 1
    assert min(forms) > 100, forms  # the generator makes addresses of every form


def test_address_trigger_holds_every_match_on_random_text():
    """Addresses' trigger (street words found by the prefilter's automaton, the street types
    checked in the text) fires on every string ``_ADDRESS`` matches in, and its windows hold
    each match; as a string on its own and inside a longer one (no per-shape plan cache)."""
    from tracepub.detect.pii.addresses import Addresses
    from tracepub.detect.prefilter import Prefilter

    pf = Prefilter([Addresses()])
    rng = random.Random(11)
    fired = 0
    for _ in range(20_000):
        text = _address_text(rng)
        if rng.random() < 0.3:
            text = "x" * rng.randint(0, 80) + "\n" + text
        expected = [m.span() for m in _ADDRESS.finditer(text)]
        plan = pf.plan(text, False)
        if not expected:
            continue
        fired += 1
        assert plan and plan[0][0] == 0, text
        windows = plan[0][1]
        for a, b in expected:
            assert windows is None or any(s <= a and b <= e for s, e in windows), (text, windows)
            line = text[text.rfind("\n", 0, a) + 1 : b]  # the match's line up to its end fires alone
            assert pf.plan(line, False), (text, line)
    assert fired > 1000, fired


def test_address_spans_every_form_and_a_lone_surrogate():
    for text in (
        "at 1234 Maple Avenue\n",
        "12 Baker Street, London",
        "Hauptstraße 12a\tBerlin",
        "x\n12, rue de la Paix",
        "10\tquai des Grands Augustins",
        "12 Baker St.",
        "\ud800 12 Baker Street",
        "5 Old Stra St\n7 Elm Rd",
        "12 Maple\nStreet",
    ):
        assert address_spans(text) == [m.span() for m in _ADDRESS.finditer(text)], text
    assert address_spans("12 Baker Street, London") == [(0, 15)]
    assert address_spans("12 Maple\nStreet") == []


def test_span_init_is_the_dataclass_one():
    """``Span``'s faster ``__init__``: the signature, fields, equality, hash, repr and frozenness of
    the frozen dataclass it replaces."""
    import dataclasses
    import inspect
    import pickle

    from tracepub.model import Span

    @dataclasses.dataclass(frozen=True, slots=True)
    class Span0:
        start: int
        end: int
        type: str
        detector: str
        confidence: float = 0.9
        action: str = "redacted"

    def params(cls):
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]

    assert params(Span) == params(Span0)
    assert [f.name for f in dataclasses.fields(Span)] == [f.name for f in dataclasses.fields(Span0)]
    for args, kw in (
        ((1, 2, "pii.email", "presidio"), {}),
        ((3, 9, "secret.x", "pattern:x", 0.5, "review"), {}),
        ((0, 1), {"type": "t", "detector": "d", "action": "review"}),
    ):
        s, s0 = Span(*args, **kw), Span0(*args, **kw)
        assert dataclasses.astuple(s) == dataclasses.astuple(s0)
        assert repr(s) == repr(s0).split("<locals>.")[-1].replace("Span0", "Span")
        assert s == Span(*args, **kw) and hash(s) == hash(Span(*args, **kw)) and s != s0
        assert pickle.loads(pickle.dumps(s)) == s
        assert dataclasses.replace(s, start=0) == Span(0, *dataclasses.astuple(s)[1:])
        try:
            s.start = 5  # type: ignore[misc]
        except dataclasses.FrozenInstanceError:
            pass
        else:
            raise AssertionError("Span must stay frozen")


_IP_PIECES = (
    "1",
    "12",
    "192",
    "255",
    "256",
    "300",
    "0",
    "00",
    "7",
    "٣",
    ".",
    ".",
    ".",
    "..",
    "/",
    "/24",
    "/33",
    ":",
    "::",
    "ffff",
    "a",
    "x",
    "_",
    " ",
    "\n",
    "-",
    "v",
    "é",
    "10.0.0.1",
    "8.8.8.8",
    "1.2.3",
    "1.2.3.4.5",
)


def _ip_text(rng: random.Random) -> str:
    return "".join(rng.choice(_IP_PIECES) for _ in range(rng.randint(1, 30)))


def test_ipv4_candidates_equal_finditer_on_random_text():
    import re

    from presidio_analyzer.predefined_recognizers import IpRecognizer

    from tracepub.detect.pii.network import _PRESIDIO_IPV4, _ipv4_finditer

    (v4,) = [p for p in IpRecognizer.PATTERNS if p.name == "IPv4"]
    assert v4.regex == _PRESIDIO_IPV4  # else Presidio changed it, and the engine falls back to finditer
    rng = random.Random(5)
    found = 0
    for flags in (0, re.I | re.M | re.S):
        rx = re.compile(_PRESIDIO_IPV4, flags)
        for _ in range(20_000):
            text = _ip_text(rng)
            expected = [m.span() for m in rx.finditer(text)]
            assert [m.span() for m in _ipv4_finditer(rx, text)] == expected, text
            found += len(expected)
    assert found > 5000


def test_ip_lines_equal_the_digit_first_pattern():
    """``_IP_LINES`` starts at the first dot: the same lines as the pattern written from its digit."""
    import re

    from tracepub.detect.pii.network import _IP_LINES, _IPV6_ISH
    from tracepub.detect.text import windows_matching

    before = re.compile(rf"\d\.\d{{1,3}}\.\d{{1,3}}\.\d|{_IPV6_ISH}")
    rng = random.Random(6)
    for _ in range(20_000):
        text = _ip_text(rng)
        assert windows_matching(text, _IP_LINES) == windows_matching(text, before), text
        assert bool(_IP_LINES.search(text)) == bool(before.search(text))


def test_nino_end_is_necessary():
    """Every text ``_NINO_HINT`` matches, ``_NINO_END`` matches (it gates the slower search)."""
    from tracepub.detect.pii.triggers import _NINO_END, _NINO_HINT

    pieces = (
        "AB",
        "QQ",
        "JG",
        "AB12",
        "ab",
        "1",
        "12",
        "12 34",
        "123456",
        "AB 123456",
        " ",
        "-",
        "A",
        "B",
        "C",
        "D",
        "E",
        "d",
        "x",
        "\n",
        "_",
        "é",
    )
    rng = random.Random(7)
    hits = 0
    for _ in range(50_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        if _NINO_HINT.search(text):
            hits += 1
            assert _NINO_END.search(text), text
    assert hits > 200


def test_context_rules_tried_at_their_keyword_equal_window_scans():
    """A context rule named by a plain word (``at_keyword``) is tried only where its keyword is:
    the same spans as its regex over the windows (the rule with ``at_keyword`` off)."""
    import dataclasses

    from tracepub.detect.secrets.patterns import PatternDetector
    from tracepub.detect.secrets.rules import load_rules
    from tracepub.fakes import expand

    rules = load_rules()
    keyed = [r for r in rules if r.at_keyword]
    assert any(r.id == "kubernetes-bootstrap-token" for r in keyed)
    fast = PatternDetector(keyed)
    slow = PatternDetector([dataclasses.replace(r, at_keyword=False) for r in keyed])
    rng = random.Random(8)
    pieces = [
        " ",
        " ",
        "\n",
        "=",
        ": ",
        ":=",
        "'",
        '"',
        '\\"',
        "`",
        "]",
        "(",
        ".",
        "_",
        "-",
        "x",
        "abc",
        "a1b2c3",
        "token",
        "TOKEN",
        "Token",
        "tokens",
        "xtoken",
        "token_",
        "my_token",
        "tOkEn",
        "=>",
        ",",
        "||",
        "b'",
        "\u2192",
        "é",
        "ΣΣ",
        "\u017f",
        "\u212a",
        "\u0130",
        "\u0131",
        "to\u212aen",
        "\u0131d",
    ]  # beyond ASCII
    for r in keyed:
        pieces += [r.keywords[0], r.keywords[0].upper(), r.keywords[0].title()]
        pieces += [
            r.keywords[0].replace(a, b, 1) for a, b in (("s", "\u017f"), ("i", "\u0131"), ("k", "\u212a"))
        ]
        pieces += [expand(e, rng) for e in r.examples] + list(r.negatives)
    found = 0
    for k in range(6_500):  # the last ones long: more than 32 hits of a keyword, a whole-text scan
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 25 if k < 6_000 else 400)))
        want = slow.scan(text, None)
        assert fast.scan(text, None) == want, text
        found += len(want)
    assert found > 1000


def test_rules_that_start_with_their_keyword_tried_at_its_hits_equal_whole_text_scans():
    """A rule whose matches start with its keywords (``pat`` of ``pat[A-Za-z0-9]{14}``, ``ghp_|AKIA``,
    ``prefix_keyword``) is tried only at the keyword's hits in a long text with few of them: the
    same spans as its regex over the whole text (the rule with the fast path off)."""
    import dataclasses

    from tracepub.detect.secrets.patterns import PatternDetector
    from tracepub.detect.secrets.rules import load_rules
    from tracepub.fakes import expand

    rules = [r for r in load_rules() if r.prefix_keyword]
    assert {"airtable-pat", "elevenlabs-api-key", "github-pat", "truncated-prefixed-token", "stripe-key"} <= {
        r.id for r in rules
    }  # (a literal prefix, or one per branch: ``rules._prefixes``)
    fast = PatternDetector(rules)
    slow_rules = [dataclasses.replace(r) for r in rules]
    for r in slow_rules:
        r.__dict__["prefix_keyword"] = False  # (a cached property)
    slow = PatternDetector(slow_rules)
    rng = random.Random(9)
    pieces = [
        " ",
        "\n",
        "=",
        '"',
        ".",
        "_",
        "-",
        "\\n",
        "x",
        "a1",
        "\u2192",
        "é",
        "\u0130",
        "\u212a",
        "\u017f",
    ]
    for r in rules:
        pieces += [r.keywords[0], r.keywords[0].upper(), r.keywords[0][:-1]]
        pieces += [expand(e, rng) for e in r.examples] + list(r.negatives)
    found = 0
    for _ in range(3_000):
        out = []
        for _ in range(rng.randint(1, 12)):
            out.append(rng.choice(pieces))
            if rng.random() < 0.5:  # filler: few hits per character, the fast path's case
                out.append(rng.choice(("a", "0", " ", "\u2192", "/")) * rng.randint(1, 900))
        text = "".join(out)
        want = slow.scan(text, None)
        assert fast.scan(text, None) == want, text
        found += len(want)
    assert found > 1000


def _secrets_text(rng: random.Random, pieces: list[str]) -> str:
    out = []
    for _ in range(rng.randint(0, 30)):
        r = rng.random()
        if r < 0.4:
            piece = rng.choice(pieces)
            out.append(piece.upper() if rng.random() < 0.3 else piece)
        elif r < 0.7:
            out.append(
                rng.choice(
                    (
                        " ",
                        "\n",
                        "=",
                        ":",
                        '"',
                        "'",
                        "]",
                        "\\",
                        "@",
                        "/",
                        ".",
                        "-",
                        "_",
                        "\u017f",
                        "\u212a",
                        "é",
                        "0",
                    )
                )
            )
        else:
            out.append("".join(rng.choice("abcAKIghp_x019-") for _ in range(rng.randint(1, 50))))
    return "".join(out)


def test_detect_secrets_triggers_equal_the_literal_tests():
    """One automaton pass opens the same plugins, and finds the same keywords, as searching each
    plugin's literals, then patterns, and each keyword in the folded text."""
    from tracepub.detect.secrets.secrets_ds import _KEYWORD_LITERALS, DetectSecrets
    from tracepub.detect.text import folded

    ds = DetectSecrets()
    literals = sorted({lit for gate in ds._gates if gate for lit in gate[0]} | set(_KEYWORD_LITERALS))
    pieces = [
        *literals,
        *(lit[: len(lit) // 2] for lit in literals),
        "://u:p@h",
        "AKC" + "a1" * 5,
        "AC" + "b2" * 16,
        ".a1b2c3." + "d4" * 14,
    ]
    rng = random.Random(5)
    opened = set()
    for _ in range(4000):
        text = _secrets_text(rng, pieces)
        fold = folded(text)
        expected = {
            i
            for i, gate in enumerate(ds._gates)
            if gate is None
            or any(folded(lit) in fold for lit in gate[0])
            or gate[1] is not None
            and gate[1].search(text)
            or gate[2] is not None
            and gate[2].search(fold)
        }
        hit, present = ds._triggered(text, fold)
        assert hit == expected, text
        assert present == tuple(lit for lit in _KEYWORD_LITERALS if lit in fold), text
        assert ds._open_plugins(text) == expected
        opened |= hit
    assert len(opened) == len(ds._gates)  # every plugin opened at least once


def test_ibm_value_gate_finds_a_run_of_44_where_the_plain_search_does():
    import re

    from tracepub.detect.secrets.secrets_ds import _IBM_VALUE, DetectSecrets, has_value

    ds = DetectSecrets()
    gates = [g for g in ds._values if g is not None]
    assert len(gates) == 1  # detect-secrets' IBM Cloud IAM pattern still has its 44-character value
    gate = gates[0]
    plain = re.compile(_IBM_VALUE, gate.flags)
    rng = random.Random(6)
    chars = "aZ09_-" + ' .:/"\n' + "\u017f\u212a\u0130\u0131é"
    found = 0
    for _ in range(20_000):
        text = "".join(rng.choice(chars[:6] * 40 + chars[6:]) for _ in range(rng.randint(0, 120)))
        if rng.random() < 0.5:
            text = text.encode("ascii", "ignore").decode()  # the byte scan's case
        want = plain.search(text) is not None
        assert (gate.search(text) is not None) == want, text
        assert has_value(gate, text) == want, text
        found += want
    assert 1000 < found < 19_000


_EMAIL_PIECES = (
    "Jane",
    "Doe",
    "Li",
    "Wei",
    "O'Neil",
    "Ana-Maria",
    "é",
    "Ünal",
    "x",
    "jane",
    "j.doe",
    "a+b",
    "1",
    "_",
    " ",
    " ",
    "\t",
    "\n",
    ",",
    ";",
    "|",
    "(",
    ")",
    '"',
    "'",
    "<",
    ">",
    "@",
    "@",
    "x.com",
    "github.com",
    "git@github.com:",
    "ex-ample.org",
    ".",
    "-",
    ":",
    "/",
    "  ",
    "日本",
    " <j.doe@x.com>",
    "<a@b>",
    ", jane@x.com",
    "| a+b@ex-ample.org |",
    "\tli@x.com",
    " (wei@x.org)",
)


def test_email_name_gates_keep_every_match():
    """``_EmailNames.find`` runs each name regex only where the end of its match (a regex) occurs:
    the same spans as running them on every text."""
    from tracepub.detect.pii import people as names

    def ungated(text):
        spans = []
        for rx, side, how in ((names._NAME_EMAIL, 1, "name-email"), (names._NEAR_EMAIL, 2, "near-email")):
            for m in rx.finditer(text):
                cut = names._trim(m.group(1), m.start(1))
                if names.placeholder_email_in(m.group()[len(m.group(1)) :]):
                    continue  # a placeholder's name ("John Smith <john@example.com>")
                if (
                    cut
                    and names.looks_like_name(text[cut[0] : cut[1]], side)
                    and not names.on_copyright_line(text, cut[0])
                ):
                    spans.append((cut, how))
        return spans

    rng = random.Random(7)
    part = names._EmailNames()
    matched = [0, 0, 0]
    for _ in range(20_000):
        text = "".join(rng.choice(_EMAIL_PIECES) for _ in range(rng.randint(1, 30)))
        got = [((s.start, s.end), s.detector.split(":")[1]) for s in part.find(text, None)]
        assert got == ungated(text), text
        matched[2] += bool(got)
        matched[0] += names._NAME_EMAIL.search(text) is not None
        matched[1] += names._NEAR_EMAIL.search(text) is not None
    assert min(matched) > 300, matched


def test_email_finditer_equals_presidio_pattern_finditer():
    """Presidio's email pattern searched only around each "@": the same matches as ``finditer``,
    on random text of local-part, domain and other characters (beyond ASCII too)."""
    from presidio_analyzer.predefined_recognizers import EmailRecognizer

    from tracepub.detect.pii import presidio_fast

    rec = EmailRecognizer()
    assert [p.regex for p in rec.patterns] == [presidio_fast.EMAIL_PATTERN]  # else the fast path is off
    rx = presidio_fast._compiled(presidio_fast.EMAIL_PATTERN, rec.global_regex_flags)
    pieces = (
        "a",
        "Jo",
        "x1",
        "_",
        "é",
        "ß",
        "\u212a",
        "\u0301",
        "日",
        ".",
        "..",
        "-",
        "--",
        "+",
        "'",
        "{",
        "|",
        "/",
        "=",
        "?",
        "`",
        "~",
        "!",
        "#",
        "$",
        "%",
        "&",
        "*",
        "^",
        "@",
        "@",
        "@",
        "@@",
        " ",
        "\t",
        "\n",
        ",",
        ":",
        "<",
        ">",
        "(",
        ")",
        '"',
        "\\",
        "[",
        "]",
        "com",
        "example.org",
        "mail-er",
        "\u00a0",
        "٣",
        "jo@example.org",
        "a.b@mail-er.com",
        "@x.y",
        "x@",
    )
    rng = random.Random(8)
    found = [0, 0]
    for _ in range(30_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        want = [m.span() for m in rx.finditer(text)]
        assert [m.span() for m in presidio_fast.email_finditer(rx, text)] == want, text
        found[0] += len(want) == 1
        found[1] += len(want) > 1
    assert min(found) > 1000, found


def test_iban_hint_from_its_second_letter_equals_the_hint():
    from tracepub.detect.pii.triggers import _IBAN_HINT, has_iban_hint

    rng = random.Random(9)
    pieces = ("A", "DE", "DE", "GB", "x", "0", "12", "12", "9", " ", "\n", "ERROR", "É", "٣", "-")
    hits = 0
    for _ in range(30_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 24)))
        a = rng.randint(0, len(text) // 2)
        b = rng.randint(a, len(text))
        want = _IBAN_HINT.search(text, a, b) is not None
        assert has_iban_hint(text, a, b) == want, (text, a, b)
        hits += want
    assert 3000 < hits < 27_000, hits


def test_home_paths_equal_finditer_with_the_name_rules():
    """``HomePaths._found`` (candidate starts by the character before "home"/"Users", names'
    verdicts memoised) equals both patterns' ``finditer`` over the text and its escaped view,
    each name judged afresh."""
    from tracepub.detect import identity

    def slow(text: str) -> dict:
        view = identity.escaped_view(text)
        out: dict = {}
        for t in (text, view) if view is not text else (text,):
            for rx in (identity._HOME, identity._ENCODED_HOME):
                for m in rx.finditer(t):
                    name = m.group(1).rstrip(".")
                    if name.lower() in identity._GENERIC_USERS or name.startswith(".") or name.isdigit():
                        continue
                    out[(m.start(1), m.start(1) + len(name))] = None
        return out

    rng = random.Random(12)
    parts = [
        "/home/",
        "/Users/",
        "C:\\Users\\",
        "c:\\\\Users\\\\",
        "x:\\\\\\Users",
        "-home-",
        "-Users-",
        "--home-",
        "home",
        "Users",
        "users",
        "jdoe",
        "JDoe.",
        "root",
        "Root",
        ".cache",
        "123",
        "a.b",
        "/",
        "-",
        ".",
        "\\n",
        "\\",
        "\\\\n",
        '\\"',
        " ",
        "é",
        "_",
        "0",
        "-home-home-",
        "/home/home/",
        "\n",
        "Users\\",
        ":",
    ]
    kept = 0
    for _ in range(20_000):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(1, 14)))
        want = slow(text)
        assert list(identity.HomePaths._found(text)) == list(want), text
        kept += len(want)
    assert kept > 3000


def test_ipv4_on_windows_equals_ipv4_on_their_address_lines():
    """``Presidio._ips`` on ASCII text without an IPv6 shape tries Presidio's IPv4 pattern on the
    windows as they are; the same results as finding the address lines, joining them and running
    ``finditer`` there (``_ipv4_fast`` off), on random text, whole or on its lines, public or not."""
    from tracepub.detect.pii.presidio import Presidio

    fast, slow = Presidio(ner=False), Presidio(ner=False)
    assert fast._ipv4_fast
    slow._ipv4_fast = False
    rng = random.Random(9)
    pieces = (
        *_IP_PIECES,
        "\n",
        "\n",
        "81.2.69.160",
        "172.16.4.1",
        "ip=10.1.2.3 ",
        "1.2.3.4/16",
        "2001:db8::1",
    )
    found = 0
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        starts = [0, *(k + 1 for k, c in enumerate(text) if c == "\n")]
        lines = [(a, a + len(line)) for a, line in zip(starts, text.split("\n"), strict=True)]
        picked = [w for w in lines if rng.random() < 0.7] or lines[:1]
        for windows in (None, lines, picked):
            for public_only in (False, True):
                got = [(r.start, r.end, r.score) for r in fast._ips(text, windows, public_only)]
                assert got == [(r.start, r.end, r.score) for r in slow._ips(text, windows, public_only)], text
                found += len(got)
    assert found > 2000


def test_shadows_means_resolve_gives_the_same_without_the_span():
    """``resolve.shadows(s, type, confidence)``: a span of that type and confidence over
    exactly ``s``'s text, any action, left out of ``resolve``'s input, changes nothing; on
    random clusters of spans, types of every rank, ties of every kind."""
    from tracepub.model import REDACTED, REVIEW, Span
    from tracepub.redact.resolve import resolve, shadows

    rng = random.Random(13)
    types = ["identity.username", "secret.token", "pii.username", "pii.person", "custom.text", "other.thing"]
    confs = [0.85, 0.9, 1.0]
    shadowed = kept = 0
    for _ in range(30_000):
        spans = []
        for _ in range(rng.randint(0, 5)):
            a = rng.randint(0, 12)
            spans.append(
                Span(
                    a,
                    a + rng.randint(0, 6),
                    rng.choice(types),
                    rng.choice("ab"),
                    rng.choice(confs),
                    rng.choice((REDACTED, REVIEW)),
                )
            )
        a = rng.randint(0, 12)
        s = Span(
            a,
            a + rng.randint(0, 4),
            rng.choice(types),
            "exact",
            rng.choice(confs),
            rng.choice((REDACTED, REVIEW)),
        )
        h = Span(s.start, s.end, rng.choice(types), "home", rng.choice(confs), rng.choice((REDACTED, REVIEW)))
        spans.insert(rng.randint(0, len(spans)), s)
        spans.insert(rng.randint(0, len(spans)), h)  # before or after s, among the others
        if shadows(s, h.type, h.confidence):
            without = [x for x in spans if x is not h]
            assert resolve(spans) == resolve(without), spans
            shadowed += 1
        else:
            kept += 1
    assert shadowed > 5000 and kept > 5000, (shadowed, kept)


def test_engine_skipping_shadowed_home_paths_finds_the_same():
    """The engine does not make home-path spans an exact value covers (``resolve.shadows``):
    the findings equal those of an engine that makes them all, on random text of home paths,
    exact values of every rank (an exact value of rank 0, or a pii one at 0.9, must not hide a
    home-path username) and other findings."""
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig
    from tracepub.fakes import expand
    from tracepub.model import Leaf

    token = expand("ghp_{{alnum:36}}")
    cfg = DetectConfig(
        identity={
            "jdoe": "identity.username",
            "mary": "pii.username",
            "kim": "other.thing",
            "box7": "identity.hostname",
            "Jane Doe": "identity.name",
            token: "secret.token",
        },
        ner=False,
        detect_secrets=False,
    )
    fast = Engine(cfg)
    slow = Engine(cfg)
    assert fast._home_i > fast._exact_i >= 0
    slow._home_i = -1  # makes every home-path span
    rng = random.Random(14)
    parts = [
        "/home/",
        "/Users/",
        "C:\\Users\\",
        "-home-",
        "-Users-",
        "jdoe",
        "JDoe",
        "mary",
        "kim",
        "box7",
        "bob",
        "Jane Doe",
        token,
        "jdoe@box7.example.org",
        "/",
        "-",
        ".",
        " ",
        "\n",
        "\\n",
        "src",
        "password=",
        "é",
    ]
    differ = 0
    for _ in range(6000):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(1, 16)))
        leaf = Leaf("claude_code", key=rng.choice((None, "text", "password")), prose=rng.random() < 0.3)
        got, want = fast.scan(text, leaf), slow.scan(text, leaf)
        assert got == want, text
        differ += fast.stats["scanned"] > 0 and any(s.detector == "home-path" for s in want)
    assert differ > 500
