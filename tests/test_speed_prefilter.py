"""The prefilter never costs recall (ARCHITECTURE.md, "Speed").

Property: if a raw JSONL line makes ``Engine.line_hits`` say "nothing here", then no string of
that line (keys, values, JSON inside strings) produces a span when scanned in full. Checked on
random records that carry planted values of every kind, written every way JSON allows (ASCII
escapes, escaped slashes, JSON inside strings, values next to escaped newlines). And a detector
that says its findings stay on trigger lines (``Trigger.lines``) finds the same when given only
those lines as when given the whole string.
"""

from __future__ import annotations

import json
import random
import re

import orjson
import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.prefilter import Prefilter
from tracepub.detect.regex_shapes import literal_forms
from tracepub.detect.registry import DetectConfig
from tracepub.detect.secrets.rules import load_rules
from tracepub.detect.text import decoded_view, folded, line_windows
from tracepub.fakes import expand
from tracepub.model import Leaf
from tracepub.walk import blobs
from tracepub.walk.walker import Walker

IDENTITY = {
    "jdoe": "identity.username",
    "Jane Doe": "identity.name",
    "jane.doe@acme-corp.dev": "identity.email",
    "devbox-07": "identity.hostname",
    "José Müller": "identity.name",
    "s3cr3t-Örg-token-99": "secret.user_supplied",
}

# One template per kind of value the detectors look for.
PLANTS = [
    *(ex for r in load_rules() for ex in r.examples),
    "contact jane.doe@acme-corp.dev now",
    "JANE DOE wrote it",
    "ssh jdoe@devbox-07",
    "JOSÉ MÜLLER",
    "josé müller",
    "token s3cr3t-Örg-token-99",
    "mail bob.martinez@kestrel.dev",
    "/home/mkowalski/notes.md",
    "C:\\Users\\priya\\Desktop",
    "/Users/sarah_k/src",
    "-home-tbrown-src-app",
    "+1 (415) 867-2671",
    "call 415-867-2671",
    "415.867.2671",
    "06.12.34.56.78",
    "020 7946 0018",
    "+44 20 7946 0958",
    "030 12345678",
    "06 12 34 56 78",
    "tel: 4158672671",
    "card {{luhn:4}}",
    "ssn 536-22-8726",
    "iban DE89370400440532013000",
    "GB82 WEST 1234 5698 7654 32",
    "ip 81.2.69.160",
    "host 81.2.69.161:8080",
    "addr 2a02:8109:b6c0:80b::200e",  # (2a00:1450::/32 is Google's front ends: a service, no one's)
    'password = "{{alnum:14}}"',
    'api_key: "{{alnum:32}}"',
    "DATABASE_URL=postgres://app:{{alnum:16}}@db.example.com:5432/app",
    "-----BEGIN RSA PRIVATE KEY-----\n{{b64:64}}",
    "eyJ{{b64url:20}}.eyJ{{b64url:30}}.{{b64url:43}}",
    "xoxb-{{digits:11}}-{{digits:11}}-{{alnum:24}}",
    "sk_live_{{alnum:24}}",
    "AKIA{{b32:16}}",
    "{{github:ghp}}",
    "SG.{{b64url:22}}.{{b64url:43}}",
    "Alice Johnson asked about this",
    "Thanks, Grace!",
    # structured names, handles, addresses, numbers (the PII parts' triggers)
    "Author: Priya Raman <priya@kestrel.dev>",
    "Co-authored-by: Lukas Becker <lb@proton.me>",
    "Cc: Amara Okafor",
    "Reviewed-on-behalf-of: Tariq Krause",
    "Signed-off-by: Ingrid Lindqvist <il@kestrel.dev>",
    "Mateo Alvarez <mateo@hey.com>",
    "| Sofia Castellano | sofia.c@outlook.com |",
    'author = "Chiara Romano"',
    "name: Emeka Zhang\n  slack: ez",
    '"maintainers": ["Oliver Whitfield"]',
    "   42\tHannah Brennan",
    "b66ad6f0 (Tariq Krause 2025-11-12 10:37:00 +0100 40) x",
    "thanks Maria Lopez for it",
    "ask Li Wei to check",
    "telegram @ez_handle",
    "tg: @someone_else",
    "discord alice#1234",
    "IRC: @nick_name",
    "1234 Maple Avenue",
    "Kaiserring 12",
    "12 rue de la Paix",
    "NINO AB 12 34 56 C",
    "NIF 12345678Z",
    "aadhaar 2345:6789:0124",
    "ssn 536 22 8726",
    "+49 1512 3456789",
    "(415) 867-2671",
    "card 4111 1111 1111 1111",
]
FILLER = [
    "",
    "ok ",
    "see: ",
    "x=",
    "(",
    "\n",
    "\t",
    "é ",
    "→ ",
    "\u2028",
    '"',
    "\\",
    "'",
    "`",
    "<",
    "/",
    "a",
    "0",
]


def _text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 3)):
        parts.append(rng.choice(FILLER))
        if rng.random() < 0.6:
            parts.append(expand(rng.choice(PLANTS), rng))
        else:
            parts.append(
                rng.choice(
                    [
                        "plain text",
                        "build passed",
                        "12 files changed",
                        "v1.2.3",
                        "2026-03-12T13:17:35Z",
                        "3f2a9c1e-8b7d-4c3e-9a1f-2d5e7b9c0a11",
                        "ghp_short",
                        "the data",
                        "Jane Doe",
                        "tg:123456789",
                        "@pytest.fixture",
                        "std::vector",
                        "name",
                        "Now I see",
                    ]
                )
            )
        parts.append(rng.choice(FILLER))
    return "".join(parts)


def _record(rng: random.Random, depth: int = 0):
    kind = rng.random()
    if depth > 2 or kind < 0.4:
        text = _text(rng)
        if rng.random() < 0.2:  # JSON inside a string (tool arguments)
            text = json.dumps({"command": text, "n": 1}, ensure_ascii=rng.random() < 0.5)
        return text
    if kind < 0.7:
        return [_record(rng, depth + 1) for _ in range(rng.randint(1, 3))]
    keys = [
        "text",
        "content",
        "stdout",
        "password",
        "data",
        "signature",
        "input",
        "author",
        "Real_Name",
        "user_id",
        "handle",
        _text(rng)[:12] or "k",
    ]
    return {rng.choice(keys): _record(rng, depth + 1) for _ in range(rng.randint(1, 4))}


def _raw(value, rng: random.Random) -> str:
    style = rng.randrange(4)
    if style == 0:
        return orjson.dumps(value).decode()
    if style == 1:
        return json.dumps(value, ensure_ascii=True)
    if style == 2:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return json.dumps(value, ensure_ascii=True).replace("/", "\\/")  # valid JSON too


def _leaf_hits(engine: Engine, value, prose: bool) -> bool:
    hit = False

    def visit(text, path, key):
        nonlocal hit
        if engine.scan(text, Leaf("test", path, key, prose)):
            hit = True
        return text

    Walker(visit, remove_blobs=False).walk(value)
    return hit


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(identity=IDENTITY, ner=False), line_literals=blobs.LINE_LITERALS)


def test_line_skip_never_hides_a_finding(engine):
    assert engine.prefilter.line_skip, "every built-in detector declares a trigger"
    rng = random.Random(5)
    skipped = hits = prose_only = 0
    for _ in range(1500):
        value = _record(rng)
        raw = _raw(value, rng)
        assert orjson.loads(raw) == value
        engine.start_unit()  # no people remembered from other records (see the test below)
        hits_line = engine.line_hits(raw)
        found = _leaf_hits(engine, value, prose=False)
        engine.start_unit()
        in_prose = _leaf_hits(engine, value, prose=True)  # prose-only parts too (names after a cue)
        if hits_line == Prefilter.NONE:
            skipped += 1
            assert not found and not in_prose, f"line skipped but a string in it has a finding: {raw[:300]}"
        elif hits_line == Prefilter.PROSE:
            prose_only += 1
            assert not found, f"only prose-only triggers, but a string has a finding off prose: {raw[:300]}"
        hits += found
    assert skipped > 5 and hits > 500  # both sides of the property were exercised


def test_people_found_earlier_in_the_file_keep_their_lines():
    """A person found in one line is redacted wherever the file names them again
    (``Engine.start_unit``): a later line that names them holds a finding, so it is not skipped."""
    engine = Engine(DetectConfig(ner=False), line_literals=blobs.LINE_LITERALS)
    engine.start_unit()
    later = [
        json.dumps({"a": "see Priya Raman today"}),
        json.dumps({"a": "Zoë Ågren ok"}, ensure_ascii=True),
        json.dumps({"a": json.dumps({"b": "Priya Raman"})}),
    ]
    assert all(engine.line_hits(raw) == Prefilter.NONE for raw in later)
    for text in ("Author: Priya Raman <priya@kestrel.dev>", "Co-authored-by: Zoë Ågren <z@kestrel.dev>"):
        assert engine.scan(text, Leaf("test", (), None, False))
    for raw in later:
        assert engine.line_hits(raw) == Prefilter.ANY, raw
        assert _leaf_hits(engine, orjson.loads(raw), prose=False)
    engine.start_unit()
    assert all(engine.line_hits(raw) == Prefilter.NONE for raw in later)


def test_every_plant_is_found_and_its_line_kept(engine):
    rng = random.Random(9)
    for template in PLANTS:
        if template.startswith(("Alice", "Thanks")):
            continue  # names: NER, prose only (below)
        text = expand(template, rng)
        prose = template.startswith(("thanks", "ask"))  # names after a cue word: prose only
        engine.start_unit()
        assert engine.scan(text, Leaf("test", (), None, prose)), f"not found: {text!r}"
        engine.start_unit()
        for raw in (
            json.dumps({"a": text}),
            json.dumps({"a": text}, ensure_ascii=False),
            json.dumps({"a": json.dumps({"b": "\n" + text + "\n"})}),
            json.dumps({"a": text}).replace("/", "\\/"),
        ):
            assert engine.line_hits(raw) in (
                (Prefilter.PROSE, Prefilter.ANY) if prose else (Prefilter.ANY,)
            ), f"line skipped: {raw!r}"


def test_name_keys_count_on_raw_lines_only_before_a_name():
    """``_KeyNames`` reads any string under a name key, but finds only two words or more: on a raw
    line the key counts before a string with whitespace, a list or an object (``keys_spaced``)."""
    engine = Engine(DetectConfig(ner=False))
    for raw, kept in (
        ('{"name":"Bash","input":{"command":"ls"}}', False),
        ('{"name":"Tove Berglund"}', True),
        ('{"author": "Jane\\tDoe"}', True),
        ('{"authors":["Jane Doe"]}', True),
        ('{"owner":{"x":1}}', True),
        ('{"name":1}', False),
        ('{"a":"{\\"name\\": \\"<\\\\\\"a\\\\\\"> Jane Doe\\"}"}', True),
    ):
        assert orjson.loads(raw) is not None
        assert (engine.line_hits(raw) != Prefilter.NONE) is kept, raw
        if not kept:
            assert not _leaf_hits(engine, orjson.loads(raw), prose=False)


def test_blob_keys_keep_the_line():
    engine = Engine(DetectConfig(ner=False), line_literals=blobs.LINE_LITERALS)
    for raw in (
        '{"type":"thinking","signature":"EqQBCkYIBxgCKkB"}',
        '{"encrypted_content":"gAAAA"}',
        '{"source":{"type":"base64","data":"iVBORw0KGgo"}}',
        '{"url":"data:image/png;base64,iVBO"}',
    ):
        assert engine.line_hits(raw) == Prefilter.ANY
    assert engine.line_hits('{"type":"result","n":1}') == Prefilter.NONE


def test_a_detector_without_trigger_turns_the_skip_off():
    from tracepub.detect.base import Detector

    class Custom(Detector):
        name = "custom"

        def scan(self, text, leaf):
            return []

    pf = Prefilter([Custom()])
    assert not pf.line_skip and pf.line_hits("{}") == Prefilter.ANY
    engine = Engine(DetectConfig(add_regexes=["ACME-[0-9]{6}"], ner=False))
    assert engine.line_hits('{"a":"nothing"}') == Prefilter.ANY  # user regexes: no cheap trigger


def test_windows_find_what_the_whole_string_finds(engine):
    """A ``lines`` detector on its trigger lines == the same detector on the whole string."""
    rng = random.Random(3)
    lined = [i for i, d in enumerate(engine.detectors) if d.trigger is not None and d.trigger.lines]
    assert len(lined) >= 3
    from tracepub.detect.text import escaped_view

    for n in range(400):
        text = "\n".join(_text(rng) for _ in range(rng.randint(1, 6)))
        prose = n % 2 == 1  # prose-only parts (names after a cue) have windows too
        leaf = Leaf("test", (), None, prose)
        view = escaped_view(text)
        plan = dict(engine._plan(text, view, prose))
        for i in lined:
            seen = text if getattr(engine.detectors[i], "sees_raw", False) else view
            whole = sorted((s.start, s.end, s.type) for s in engine.detectors[i].scan(seen, leaf))
            if i not in plan:
                assert not whole, f"{engine.detectors[i].name}: trigger missed {text!r}"
                continue
            step = engine._run((i, plan[i]), text, view, leaf)
            assert sorted((s.start, s.end, s.type) for s in step) == whole, engine.detectors[i].name


def test_prose_only_detectors_count_on_prose_lines_only():
    from tracepub.readers.claude import ClaudeCode

    engine = Engine(DetectConfig(ner=True))
    assert engine.prefilter.prose_only
    prose = '{"type":"assistant","message":{"content":[{"type":"text","text":"we should tell Priya Raman"}]}}'
    tool = '{"type":"user","message":{"content":[{"type":"tool_result","content":"we should tell Priya Raman"}]}}'
    summary = '{"type":"summary","summary":"we should tell Priya Raman","leafUuid":"x"}'
    reader = ClaudeCode()
    assert engine.line_hits(summary) == Prefilter.PROSE  # only NER could fire: the reader decides
    # Prose without a capitalised word shaped like a name holds no one NER could find.
    assert (
        engine.line_hits('{"type":"summary","summary":"we should fix it now","leafUuid":"x"}')
        == Prefilter.NONE
    )
    for raw, walked in ((prose, True), (tool, False), (summary, True)):
        assert reader.may_have_prose(json.loads(raw)) is walked


def test_escape_views_and_literal_forms():
    assert decoded_view('{"a":"Jos\\u00e9 \\/home\\/x"}') == '{"a":"José /home/x"}'
    assert decoded_view('{"a":"plain"}') is None
    assert folded("AbC-129 É→") == "abc-000 É→"
    assert set(literal_forms("José")) == {"josé", "josÉ"}
    assert line_windows("aa\nbb\ncc\ndd", [0, 4, 9]) == [(0, 5), (9, 11)]


def _stdlib_public(text: str) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(text).is_global
    except ValueError:
        return False


def test_ip_fast_path_matches_presidio():
    """The IPv4 fast path finds exactly what Presidio's IpRecognizer finds."""
    from tracepub.detect.pii.network import is_public_ip
    from tracepub.detect.pii.presidio import Presidio

    p = Presidio(ner=False)
    rng = random.Random(1)
    pieces = [
        "13:17:35.480",
        "10.0.0.1/24",
        "1.2.3",
        "fe80::1",
        "2001:db8:0:0:8a2e:370:7334:1",
        "::ffff:10.1.2.3",
        "a:b:c:d:e:f:1.2.3.4",
        "999.1.1.1",
        "x1.2.3.4",
        "12.34.56.78x",
        "std::vector",
        "Abc::",
        "\n",
        "010.1.2.3",
        "81.2.69.160/08",
        "1.2.3.4.5",
        "172.16.0.1",
        "192.168.1.1/33",
        "é",
        "→",
        "\u0301",
        "²",
        "tests/t.py::test_a",
        "x::1",
        "a::b",
        "(::1)",
        "1:2::3.4.5.6",
        "fe80::",
        "::",
        ":::",
    ]
    for n in range(1500):
        quads = [".".join(str(rng.randint(0, 300)) for _ in range(4)) for _ in range(2)]
        t = rng.choice([" ", "", "\n"]).join(
            rng.choice([*pieces, "ip=" + quads[0], quads[1]]) for _ in range(5)
        )
        if n % 2:  # the IPv4-only path (ASCII, no IPv6 shape) half the time
            t = t.replace("::", "--").replace("é", "e")
        fast = sorted((r.start, r.end, r.score) for r in p._ips(t))
        slow = sorted((r.start, r.end, r.score) for r in p._ip.analyze(t, ["IP_ADDRESS"], None))
        assert fast == slow, t
        public = {t[r.start : r.end] for r in p._ips(t, public_only=True) if is_public_ip(t[r.start : r.end])}
        assert public == {t[a:b] for a, b, _ in slow if is_public_ip(t[a:b])}, t
    for _ in range(20_000):  # private blocks decided without parsing: the same answer
        ip = ".".join(
            rng.choice(
                [
                    "0",
                    "00",
                    "010",
                    "10",
                    "100",
                    "127",
                    "169",
                    "172",
                    "192",
                    "81",
                    "254",
                    "31",
                    "16",
                    "64",
                    "168",
                    str(rng.randint(0, 300)),
                ]
            )
            for _ in range(4)
        )
        assert is_public_ip(ip) == _stdlib_public(ip), ip


def test_presidio_fast_path_matches_presidio():
    """presidio_fast.analyze == PatternRecognizer.analyze for the recognizers tracepub uses."""
    from tracepub.detect.pii import presidio_fast
    from tracepub.detect.pii.presidio import Presidio

    p = Presidio(ner=False)
    recs = [p._email, p._ip, p._ip4, p._nino, *p._digit_recognizers]
    assert all(presidio_fast.supports(r) for r in recs) and not presidio_fast.supports(p._iban)
    rng = random.Random(2)
    pieces = [
        "a.b@example.com",
        "x@y",
        "jane.doe@acme-corp.dev",
        "user@localhost",
        "4111 1111 1111 1111",
        "4111-1111-1111-1112",
        "536-22-8726",
        "536 22 8726",
        "536-22.8726",
        "123456789",
        "10.0.0.1",
        "fe80::1",
        "::ffff:1.2.3.4",
        "999.1.2.3",
        "x@example.com.",
        "@",
        "\n",
        " ",
        "-",
        ".",
    ]
    for _ in range(800):
        t = "".join(rng.choice(pieces) + rng.choice(["", " ", ",", "x"]) for _ in range(6))
        for rec in recs:
            slow = sorted((r.start, r.end, r.score) for r in rec.analyze(t, rec.supported_entities, None))
            assert sorted(presidio_fast.analyze(rec, t)) == slow, (type(rec).__name__, t)


def test_shared_keyword_hits_are_the_detectors_own(engine):
    """Keyword detectors read their hits from the prefilter's pass over the string they are
    called on (``KeywordIndex.find_text``): the same hits, in the same order, as their own
    search of the lower-cased text; none for another string or one whose case fold is odd."""
    from tracepub.detect.secrets.entropy import ContextEntropy
    from tracepub.detect.secrets.patterns import PatternDetector

    indexes = [d._index for d in engine.detectors if isinstance(d, (PatternDetector, ContextEntropy))]
    assert len(indexes) == 2 and all(ix._shared is not None for ix in indexes)
    rng = random.Random(7)
    texts = [_text(rng) for _ in range(400)]
    texts += [
        "A3T token KEY Pass 9b9d a5t-AKIA a3t x0b0d",
        "TOKEN=abc123 Secret_Key: x \u00e9 pat PAT",
        "ZA5T a4t",
    ]
    used = 0
    for text in texts:
        engine.prefilter.plan(text, False)
        for ix in indexes:
            found = ix.find_text(text)
            if found is not None:
                used += 1
                assert found == ix.find(text.lower()), text
    assert used > 600
    engine.prefilter.plan("token", False)
    assert all(ix.find_text("another token") is None for ix in indexes)  # not the string planned
    for odd in ("\u0130 token", "to\u212aen key"):  # İ lowers to two characters; the Kelvin sign to "k"
        engine.prefilter.plan(odd, False)
        assert all(ix.find_text(odd) is None for ix in indexes)


def test_home_paths_tried_at_candidates_match_finditer():
    """Home-path patterns tried only where "home"/"Users" can start a match find what
    ``finditer`` over the whole string finds."""
    from tracepub.detect import identity

    rng = random.Random(11)
    parts = [
        "/home/",
        "/Users/",
        "C:\\Users\\",
        "c:\\\\Users\\\\",
        "-home-",
        "-Users-",
        "home",
        "Users",
        "jdoe",
        "a.b",
        "/",
        "-",
        ".",
        "\\n",
        "\\",
        " ",
        "é",
        "_",
        "0",
        "-home-home-",
        "/home/home/",
        "\n",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(1, 10)))
        assert [m.span(1) for m in identity._home_matches(text)] == [
            m.span(1) for rx in (identity._HOME, identity._ENCODED_HOME) for m in rx.finditer(text)
        ], text


def test_exact_values_read_shared_hits_only_when_ascii():
    """The identity detector reads its values' hits from the prefilter pass when every value is
    ASCII (the same spans as its own case-insensitive search), and searches itself otherwise."""
    from tracepub.detect.identity import ExactValues

    ascii_ids = {k: v for k, v in IDENTITY.items() if k.isascii()}
    shared = Engine(DetectConfig(identity=ascii_ids, ner=False))
    exact = next(d for d in shared.detectors if isinstance(d, ExactValues))
    assert exact._index is not None and exact._index._shared is not None
    mixed = next(
        d for d in Engine(DetectConfig(identity=IDENTITY, ner=False)).detectors if isinstance(d, ExactValues)
    )
    assert mixed._index is None or mixed._index._shared is None
    alone = ExactValues(ascii_ids)
    rng = random.Random(5)
    leaf = Leaf("test", (), None, False)
    texts = [_text(rng) for _ in range(300)] + [
        "JDOE at DEVBOX-07 and devbox-17, Jane Doe; jdoe_x",
        "x\u0130 jdoe",
    ]
    for text in texts:
        shared.prefilter.plan(text, False)
        key = sorted((s.start, s.end, s.type) for s in exact.scan(text, leaf))
        assert key == sorted((s.start, s.end, s.type) for s in alone.scan(text, leaf)), text


def test_context_rules_first_letter_class_is_exactly_its_case_fold():
    """``(?i:token)`` is written ``[tT](?i:oken)`` (detect/patterns.py, ``_context_pattern``): the
    class must hold exactly the characters ``re`` matches ignoring case, over every code point."""
    import re
    import string

    from tracepub.detect.secrets.rules import _case_class

    every = "".join(map(chr, range(0x110000)))
    for letter in string.ascii_letters:
        for flags in (0, re.VERBOSE | re.MULTILINE | re.DOTALL):
            folded_set = {m.group() for m in re.finditer(f"(?i:{letter})", every, flags)}
            assert set(_case_class(letter, flags)[1:-1]) == folded_set, letter


def test_context_rules_match_as_written():
    """The rewritten context rules find what the ``(?i:name)`` form finds."""
    import re
    import tomllib
    from pathlib import Path

    import tracepub.detect.secrets.rules as pm

    texts = [
        expand(t)
        for t in (
            "kubeadm join 10.0.0.1:6443 --token={{lowerdigits:6}}.{{lowerdigits:16}}",
            "TOKEN: {{lowerdigits:6}}.{{lowerdigits:16}}",
            "to\u212aen = {{lowerdigits:6}}.{{lowerdigits:16}}",
            "\u017fentry_dsn: https://{{hex:32}}@o1.ingest.sentry.io/1",
            "tokens: 12, token_count=3, Token => 'abcdef.yaml'",
        )
    ]
    by_id = {r.id: r.regex for r in load_rules()}
    changed = 0
    for path in sorted(Path(str(pm._pack())).glob("*.toml")):
        for raw in tomllib.loads(path.read_text(encoding="utf-8")).get("rules", []):
            if "context" not in raw:
                continue
            flags = pm._flags(list(raw.get("flags", "")))
            blank = pm._BLANK.format() if raw.get("blank") else ""
            old = re.compile(
                pm._CONTEXT.format(name=raw["context"], value=pm._expand(raw["value"]), blank=blank), flags
            )
            new = by_id[raw["id"]]
            changed += old.pattern != new.pattern
            for text in texts + [expand(e) for e in raw.get("examples", [])] + list(raw.get("negatives", [])):
                assert [m.span() for m in old.finditer(text)] == [m.span() for m in new.finditer(text)], raw[
                    "id"
                ]
    assert changed > 50


def test_cue_trigger_matches_as_written():
    """``names._CUE_TRIGGER`` (first letter as a class) finds what the plain form finds."""
    import re

    from tracepub.detect.pii import people as names

    plain, fast = re.compile(names._CUE_TRIGGER_PLAIN), re.compile(names._CUE_TRIGGER)
    rng = random.Random(5)
    cues = names._CUE_ALTS.replace("[ \\t]+", " ").split("|")
    pieces = [
        *cues,
        *(c.upper() for c in cues),
        *(c.title() for c in cues),
        "Jane",
        "Doe",
        "éva",
        "Ünal",
        "x",
        "_",
        "1",
        " ",
        "\t",
        "\n",
        ",",
        ":",
        "-",
        ".",
        "\u0130nvite",
        "\u0131nvited",
        "\u212a",
        "\u017f",
        "ñ",
        "Thank\tYou",
        "thank  you",
    ]
    for _ in range(3000):
        text = "".join(
            rng.choice(pieces) + rng.choice(("", " ", "", ", ")) for _ in range(rng.randint(1, 12))
        )
        assert [m.span() for m in plain.finditer(text)] == [m.span() for m in fast.finditer(text)], text


def test_iban_shape_counts_only_where_presidio_can_start_an_iban(engine):
    """ "ad00" is in every other hex digest: an IBAN shape hit counts only upper case and after no
    capital or digit (Trigger.shape_check), exactly where Presidio's IBAN pattern can start."""
    from tracepub.detect.pii.presidio import Presidio, _Numbers

    p = Presidio(ner=False)
    num = next(i for i, d in enumerate(engine.detectors) if isinstance(d, _Numbers))
    rng = random.Random(5)
    ibans = [
        "DE89370400440532013000",
        "GB82WEST12345698765432",
        "FR1420041010050500013M02606",
        "DE89 3704 0044 0532 0130 00",
    ]
    pieces = [
        *ibans,
        "sha 4b825dc6ad42cb6eb9a0",
        "de89370400440532013000",
        "xDE89370400440532013000",
        "é",
        "\n",
        " ",
        "(",
        "0",
        "A",
        "→",
    ]
    for _ in range(400):
        t = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 5)))
        windows = dict(engine.prefilter.plan(t, False)).get(num, "not planned")
        found = p._iban.analyze(t, ["IBAN_CODE"], None)
        if windows == "not planned":  # no hit passed: Presidio finds no IBAN either
            assert not found, t
        for r in found:  # every IBAN Presidio finds starts on a planned line
            assert windows is None or any(a <= r.start <= b for a, b in windows), t
    assert num not in dict(engine.prefilter.plan("integrity sha512-ad00be00de00ee00ba00ae00", False))
    assert num in dict(engine.prefilter.plan("pay to DE89370400440532013000", False))


def test_starts_with_reads_the_literal_prefix():
    """A pattern's two-character anchor is not tested with ``in`` first only when every match starts
    with it as written (re then skips to it itself)."""
    from tracepub.detect.regex_shapes import _starts_with

    assert _starts_with(r"AC[a-z0-9]{32}", "AC") and _starts_with(r"AP[\dABCDEF]", "AP")
    assert not _starts_with(r"(?i)AC[a-z]", "AC")  # case-insensitive: "ac" too
    assert not _starts_with(r"xAC", "AC") and not _starts_with(r"A", "AC") and not _starts_with(r"A|AC", "AC")
    assert not _starts_with(r"(?:AC|SK)x", "AC") and not _starts_with(r"\bAC", "AC")


def test_a_class_beyond_ascii_is_searched_in_those_characters_first(engine):
    """A pattern that is one class of characters beyond ASCII (a digit beyond ASCII) is first
    searched in the text's non-ASCII characters alone: the same plans as searching the text, on
    random text with such digits and other non-ASCII characters."""
    from tracepub.detect.regex_shapes import _one_class

    pf = engine.prefilter
    assert pf._beyond and all(_one_class(e[2].pattern) for e in pf._plan_patterns[1] if e[0] in pf._beyond)
    plain = Prefilter.__new__(Prefilter)
    plain.__dict__.update(pf.__dict__)
    plain._beyond = frozenset()
    plain._short = None  # no cache: every string planned
    rng = random.Random(5)
    pieces = ("12", "4111 1111", "٣", "٤٥٦", "²", "→", "é", "日本", "\n", " ", "x", "Call ", "+1 ", "-", "#")
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        for prose in (False, True):
            assert pf._plan(text, prose, None) == plain._plan(text, prose, None), text


def test_digit_shapes_keep_every_card_and_national_id_that_is_not_glued(monkeypatch):
    """The card, SSN, NIF and Aadhaar recognizers run only on the lines where their digit shape
    starts a word (``pii._DIGIT_SHAPES``, found in one pass: ``_shape_lines``): the same spans as
    running each on every window, on random text with numbers glued to tokens every way."""
    from tracepub.detect.pii import presidio as pii
    from tracepub.detect.pii import windows as pii_windows
    from tracepub.detect.pii.presidio import Presidio
    from tracepub.detect.text import folded

    p = Presidio(ner=False)
    rng = random.Random(11)

    def digits(n: int) -> str:
        return "".join(rng.choice("0123456789") for _ in range(n))

    seps = ("", " ", "-", ".", ":")
    shapes = (
        lambda: f"4{digits(3)} {digits(4)} {digits(4)} {digits(4)}",
        lambda: f"4{digits(15)}",
        lambda: f"{digits(3)}-{digits(2)}-{digits(4)}",
        lambda: digits(9),
        lambda: f"{digits(5)}-{digits(4)}",
        lambda: f"{digits(8)}Z",
        lambda: f"{digits(7)}-k",
        lambda: digits(12),
        lambda: f"{digits(4)}{rng.choice(seps)}{digits(4)}{rng.choice(seps)}{digits(4)}",
        lambda: f"{digits(8)}-{digits(4)}-4{digits(3)}-a{digits(3)}-{digits(12)}",
    )
    glue = ("", " ", "-", "x-", "_", "a", " -", "(", "\n", "é", "1", "card ", "ssn: ", "aadhaar ", "é-")
    checked = found = 0
    for _ in range(1500):
        text = "".join(
            rng.choice(glue) + rng.choice(shapes)() + rng.choice(glue) for _ in range(rng.randint(1, 6))
        )
        lines = [
            (a, a + len(line))
            for a, line in zip(
                [0, *(k + 1 for k, c in enumerate(text) if c == "\n")], text.split("\n"), strict=True
            )
        ]
        for windows in (None, lines):
            fast = p.numbers(text, windows)
            with monkeypatch.context() as m:  # every recognizer on every window
                m.setattr(pii, "_shape_lines", lambda fj, wins, starts: [wins] * len(pii._DIGIT_SHAPES))
                slow = p.numbers(text, windows)
            assert fast == slow, text
            checked += 1
            found += bool(fast)
        fj = folded(text) if text.isascii() else None
        if fj is not None:
            whole = [(0, len(text))]
            assert pii_windows._shape_lines(fj, whole, [0]) == [
                pii_windows._lines_with(fj, rx, whole, [0]) for rx in pii._DIGIT_SHAPES
            ]
    assert found > checked // 15


def test_phone_trigger_holds_every_candidate_phones_reads(engine):
    """``_Phones`` runs on the lines of ``pii._PHONE_TRIGGER`` only (a dotted quad that no digit
    follows but after separators is no hit): every candidate ``_phones`` does not skip starts on
    such a line, and the phones found there are those found in the whole text, on random text
    (addresses, brackets, "+", separators); the engine plans ``_Phones`` on those lines."""
    from tracepub.detect.pii import phones as ph
    from tracepub.detect.pii import presidio as pii
    from tracepub.detect.pii.network import _IPV4ISH
    from tracepub.detect.text import folded, line_windows

    trig = re.compile(pii._PHONE_TRIGGER)
    phones = next(i for i, d in enumerate(engine.detectors) if isinstance(d, pii._Phones))
    rng = random.Random(17)
    pieces = (
        "10.0.0.1",
        "100.200.30.4",
        "8.8.8.8",
        "1.2.3",
        "555",
        "0123",
        "12",
        "7",
        "+",
        "+44 ",
        "(",
        ")",
        " ",
        " ",
        ".",
        "-",
        "\t",
        "x",
        "ip=",
        "\n",
        "/",
        "_",
        "é",
        "call ",
        "tel: ",
        "…",
        "٣",
    )
    candidates = found = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 24)))
        hits = [m.start() for m in trig.finditer(folded(text))]
        windows = line_windows(text, hits)
        for m in ph._CANDIDATE.finditer(text):
            g = m.group()
            if not (_IPV4ISH.match(g) or sum(c.isdigit() for c in g) < 7):
                candidates += 1
                assert any(a <= m.start() <= b for a, b in windows), text
        whole = ph.find(text)
        assert (ph.find(text, windows) if windows else []) == whole, text
        found += bool(whole)
        planned = dict(engine.prefilter.plan(text, False)).get(phones, "not planned")
        assert planned == "not planned" if not hits else planned is None or planned == windows, text
    assert candidates > 500 and found > 20


def _find_text_alone(ix, text: str) -> list[tuple[int, int, int]] | None:
    """``KeywordIndex.find_text`` reading the prefilter's hits for this index alone, as it did
    before ``keywords._Router`` read them once for every index sharing the prefilter."""
    from tracepub.detect.secrets.keywords import _CASE_ODD

    shared = ix._shared
    if shared is None:
        return None
    if not text.isascii() and (_CASE_ODD[0] in text or _CASE_ODD[1] in text):
        return None
    prefilter, table = shared
    hits = prefilter.literal_hits(text)
    if hits is None:
        return None
    out = []
    for k, a, b in hits:
        entries = table.get(k)
        if entries is not None:
            for j, kw, digit in entries:
                if not digit or text[a:b].lower() == kw:
                    out.append((j, a, b))
    return out


def test_keyword_indexes_routed_in_one_pass_read_their_own_hits():
    """The keyword indexes sharing a prefilter get their hits from one pass over its hits
    (``keywords._Router``): for every index, the same list as reading the hits for itself
    (``_find_text_alone``), called in any order and again on the same string; and a short string
    whose plan (and hits list) is reused from another with the same digit shape gets its own
    digit checks ("a3t" is a keyword, "a4t" is not)."""
    from tracepub.detect.identity import ExactValues

    ascii_ids = {k: v for k, v in IDENTITY.items() if k.isascii()}
    eng = Engine(DetectConfig(identity=ascii_ids, ner=False), line_literals=blobs.LINE_LITERALS)
    indexes = [d._index for d in eng.detectors if getattr(d, "_index", None) is not None]
    indexes = [ix for ix in indexes if ix._shared is not None]
    assert len(indexes) == 3 and any(isinstance(d, ExactValues) for d in eng.detectors)
    assert len({id(ix._router) for ix in indexes}) == 1
    rng = random.Random(13)
    texts = [_text(rng) for _ in range(400)]
    texts += [
        "A3T token KEY Pass 9b9d a5t-AKIA a3t x0b0d jdoe",
        "TOKEN=abc123 Secret_Key: x \u00e9 pat PAT JDOE",
        "ZA5T a4t",
        "a3t jdoe",
        "a4t jdoe",
        "a3t jdoe",
    ]
    used = 0
    for text in texts:
        eng.prefilter.plan(text, False)
        order = indexes[:]
        rng.shuffle(order)
        for ix in order + order[:1]:
            found = ix.find_text(text)
            assert found == _find_text_alone(ix, text), text
            used += found is not None and len(found) > 0
    assert used > 600
    eng.prefilter.plan("a3t jdoe", False)
    digit = [ix for ix in indexes if "a3t" in ix.keywords]
    assert digit and all(ix.find_text("a3t jdoe") for ix in digit)
    eng.prefilter.plan("a4t jdoe", False)  # the same digit shape: the same plan and hits list
    assert eng.prefilter._last[1] is eng.prefilter.literal_hits("a4t jdoe")
    for ix in indexes:
        assert ix.find_text("a4t jdoe") == _find_text_alone(ix, "a4t jdoe")
    assert all(not any(ix.keywords[j] == "a3t" for j, _, _ in ix.find_text("a4t jdoe")) for ix in digit)


def test_values_whose_digits_fold_alike_are_routed_by_their_own_text():
    """Hundreds of values with digits in the same places fold to one prefilter word
    ("dev000@example-corp.io"): each hit goes to the value it spells, as reading the hits alone
    does, and to no other (the router looks the text up, it does not try every value)."""
    from tracepub.detect.identity import ExactValues

    values = {f"dev{i}@example-corp.io": "identity.email" for i in range(100, 400)}
    eng = Engine(DetectConfig(identity=values, ner=False), line_literals=blobs.LINE_LITERALS)
    exact = next(d for d in eng.detectors if isinstance(d, ExactValues))
    ix = exact._index
    assert ix is not None and ix._shared is not None
    text = "mail dev123@example-corp.io, dev450@example-corp.io and DEV399@example-corp.io"
    eng.prefilter.plan(text, False)
    found = ix.find_text(text)
    assert found == _find_text_alone(ix, text)
    assert sorted(ix.keywords[j] for j, _, _ in found) == ["dev123@example-corp.io", "dev399@example-corp.io"]
