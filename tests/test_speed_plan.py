"""The prefilter's faster forms of triggers and plans give what the plain forms give
(ARCHITECTURE.md, "Speed"): checked on generated strings, no timing."""

from __future__ import annotations

import random
import re
import sys

from tracepub.detect.regex_shapes import _anchor


def test_may_name_triggers_match_where_may_name_matches():
    """``pii._MAY_NAME_TRIGGERS`` (the capital factored out, the cue's first letter as a class)
    hold a match in exactly the texts ``_MAY_NAME`` holds one in."""
    from tracepub.detect.pii import prose_names as pii

    fast = [re.compile(p) for p in pii._MAY_NAME_TRIGGERS]
    assert fast == list(pii._MAY_NAME_RX)
    rng = random.Random(7)
    cues = pii._CUE_ALTS.split("|")
    speech = pii._SPEECH_ALTS.split("|")
    pieces = [
        *cues,
        *(c.upper() for c in cues),
        *(c.title() for c in cues),
        *speech,
        *(s.upper() for s in speech),
        "de",
        "van",
        "st.",
        "Jane",
        "Doe",
        "O'Brien",
        "Jean-Luc",
        "éva",
        "Ünal",
        "ñ",
        "x",
        "_",
        "1",
        "٣",
        " ",
        "\t",
        "\n",
        ",",
        ":",
        "-",
        ".",
        "'",
        "’",
        "'s",
        "’s",
        "‐",
        "–",
        "\u0130",
        "\u0131",
        "\u212a",
        "\u017f",
        "Ǆ",
        "ǅ",
        "A",
        "b",
    ]
    for _ in range(6000):
        text = "".join(
            rng.choice(pieces) + rng.choice(("", " ", "", "  ", "\n")) for _ in range(rng.randint(1, 8))
        )
        assert (pii._MAY_NAME.search(text) is not None) == any(rx.search(text) for rx in fast), text


def test_non_ascii_digit_class_is_the_lookbehind_form():
    """``[^\\x00-\\x7f\\D]`` (one class: ``re`` scans for it in C) is ``[^\\x00-\\x7f](?<=\\d)`` on
    every code point, and the prefilter still skips it on ASCII text (no anchor: None)."""
    one, plain = re.compile(r"[^\x00-\x7f\D]"), re.compile(r"[^\x00-\x7f](?<=\d)")
    for cp in range(sys.maxunicode + 1):
        c = chr(cp)
        assert (one.fullmatch(c) is None) == (plain.fullmatch(c) is None), hex(cp)
    assert _anchor(r"[^\x00-\x7f\D]") is None
    assert _anchor(r"[^\x00-\x7f](?<=\d)") is None
    assert _anchor(r"[^\x00-\x7e]") == ""


def test_short_plans_cached_by_digit_shape_are_the_plans():
    """A short string's plan comes from the table of plans by digit shape (``Prefilter.plan``):
    the same plan, and the same literal hits for the detectors, as planning it afresh."""
    from tracepub.detect.engine import Engine
    from tracepub.detect.regex_shapes import _digit_blind
    from tracepub.detect.registry import DetectConfig

    prefilter = Engine(DetectConfig()).prefilter
    assert prefilter._short is not None  # every text-reading pattern and shape check is digit-blind
    assert not _digit_blind(r"[1-9]") and not _digit_blind("a5") and not _digit_blind(r"(a)\1")
    assert _digit_blind(r"[A-Z]{2}[0-9]{2}\d\w[^\W\d_]")
    rng = random.Random(11)
    pieces = [
        "2025-01-0",
        "T12:3",
        "Z",
        "DE89",
        "GB82 ",
        "+1 415 555 0",
        "(212) 555-",
        "AKC",
        "AP",
        "SK",
        "AC",
        "tg",
        "irc",
        "cc:",
        "Thanks Jane",
        "@x.io",
        "a@b",
        "::",
        ":1:2:3:",
        "٣",
        "→",
        "Street ",
        "12 Main",
        "0",
        "7",
        "9",
        " ",
        "\n",
        "\t",
        ".",
        "-",
        "x",
        "Q",
        "é",
        "1234",
        "56789",
    ]
    texts = [
        "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))[: prefilter.SHORT] for _ in range(3000)
    ]
    texts += [t.translate(str.maketrans("0123456789", "9876543210")) for t in texts]  # same digit shapes
    for text in texts:
        for prose in (False, True):
            got = prefilter.plan(text, prose)
            hits = prefilter.literal_hits(text)
            assert got == prefilter._plan(text, prose, None), text
            assert hits == prefilter.literal_hits(text), text
    assert len(prefilter._short) < 2 * len(texts)  # shapes were shared


def test_ascii_automaton_on_bytes_gives_the_str_automatons_hits():
    """An ASCII text's folded bytes go to the bytes automaton (``Matcher.matches_ascii``): the
    same (word, start, end) list, in the same order, as the str automaton on the folded text."""
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig
    from tracepub.detect.text import _FOLD, folded

    matcher = Engine(DetectConfig(identity={"jdoe": "identity.username"})).prefilter._leaf_auto
    rng = random.Random(5)
    words = [w for w in matcher._words if w.isascii()]
    pieces = [
        *rng.sample(words, 200),
        "Token",
        "TOKEN ",
        "KEY=",
        "/home/",
        "2025-01-01",
        "::",
        "cc",
        "Cc:",
        "AKIA",
        "0",
        "9",
        " ",
        "\n",
        "\t",
        "x",
        "Q",
        "_",
        "-",
        "\\n",
        '"',
        "@",
        ".",
        ":",
    ]
    assert len(matcher.one_kind) > 100  # the shape ends and their words (test_shape_ends_...)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        got = matcher.matches_ascii(text.encode("ascii").translate(_FOLD))
        want = matcher.matches(folded(text))
        assert [h for h in got if h[0] not in matcher.one_kind] == [
            h for h in want if h[0] not in matcher.one_kind
        ]


def _resolve_plain(spans):
    """``resolve`` as first written (a tuple sort key, ``max`` per cluster): the reference."""
    from tracepub.detect.base import priority
    from tracepub.model import REDACTED, REVIEW, Span

    if len(spans) <= 1:
        return spans
    ordered = sorted(spans, key=lambda s: (s.start, -s.end))
    out, cluster, end = [], [ordered[0]], ordered[0].end

    def merge(cluster, end):
        if len(cluster) == 1:
            return cluster[0]
        best = max(cluster, key=lambda s: (priority(s.type), s.end - s.start, s.confidence))
        action = REVIEW if all(s.action == REVIEW for s in cluster) else REDACTED
        start = min(s.start for s in cluster)
        if best.start == start and best.end == end and best.action == action:
            return best
        return Span(start, end, best.type, best.detector, best.confidence, action)

    for s in ordered[1:]:
        if s.start < end:
            cluster.append(s)
            end = max(end, s.end)
        else:
            out.append(merge(cluster, end))
            cluster, end = [s], s.end
    out.append(merge(cluster, end))
    return out


def test_resolve_is_the_plain_resolve():
    """``resolve`` (two stable sorts with C keys, ``_merge`` without ``max``) returns the same
    spans, the same objects where it keeps one, on random overlapping, nested, empty and tied spans."""
    from tracepub.model import REDACTED, REVIEW, Span
    from tracepub.redact.resolve import resolve

    rng = random.Random(13)
    types = [
        "identity.name",
        "identity.username",
        "secret.github",
        "secret.entropy",
        "pii.person",
        "pii.email",
        "custom.regex",
        "other.thing",
    ]
    for _ in range(4000):
        spans = []
        for _ in range(rng.randint(0, 12)):
            a = rng.randint(0, 40)
            spans.append(
                Span(
                    a,
                    a + rng.choice((0, 1, 2, 3, 5, 8, 13)),
                    rng.choice(types),
                    rng.choice("abc"),
                    rng.choice((0.5, 0.85, 0.9, 1.0)),
                    rng.choice((REDACTED, REDACTED, REVIEW)),
                )
            )
        want = _resolve_plain(list(spans))
        got = resolve(list(spans))
        assert got == want, spans
        assert [id(s) for s in got if any(s is t for t in spans)] == [
            id(s) for s in want if any(s is t for t in spans)
        ]


def test_line_hits_prefix_checks_give_the_full_answer():
    """``Prefilter.line_hits`` looks at a long line's first 256 and 4096 characters first: the
    same answer as the full check alone, on random JSON lines of every length with words of
    every kind (prose-only ones too) planted anywhere, ASCII or not."""
    import json

    from tracepub.detect.base import Detector, Trigger
    from tracepub.detect.engine import Engine
    from tracepub.detect.prefilter import Prefilter
    from tracepub.detect.registry import DetectConfig

    class ProseWords(Detector):  # a prose-only detector with literals: none has any today
        name = "prose-words"
        trigger = Trigger(literals=("zebra", "okapi"), prose_only=True)

    prefilter = Prefilter(
        [*Engine(DetectConfig(identity={"jdoe": "identity.username"})).detectors, ProseWords()]
    )
    rng = random.Random(17)
    words = [w for w in prefilter._leaf_auto._words if "0" not in w] + ["Zebra", "OKAPI"] * 40
    filler = ["lorem ", "ipsum\n", "x" * 50, "é", "→", "\t", "{}", "\\u00e9", "\\/", '\\"'] * 4 + [
        "Thanks ",
        "Jane Doe ",
        "2025-01-01 ",
        "a@b.io ",
        "+1 415 555 0100 ",
    ]
    seen = set()
    for _ in range(1500):
        parts = []
        for _ in range(rng.randint(1, 30)):
            parts.append(rng.choice(filler) * rng.randint(1, 40))
            if rng.random() < 0.05:
                parts.append(rng.choice(words))
        raw = json.dumps({"k": "".join(parts)}, ensure_ascii=rng.random() < 0.3)
        fast = prefilter.line_hits(raw)
        prefilter.LINE_PREFIXES = ()
        try:
            plain = prefilter.line_hits(raw)
        finally:
            del prefilter.LINE_PREFIXES
        assert fast == plain, raw
        seen.add(fast)
    assert seen == {prefilter.NONE, prefilter.PROSE, prefilter.ANY}


def test_people_searched_as_bytes_in_ascii_text_as_in_str():
    """Remembered people are looked for in an ASCII text by bytes automata (``_people_automaton``
    with ``on_bytes``): the same matches in the same order as the str automata, and the engine
    finds the same people as the word-by-word search (its fallback)."""
    from tracepub.detect.engine import Engine, _people_automaton
    from tracepub.detect.registry import DetectConfig
    from tracepub.detect.text import occurrences

    rng = random.Random(23)
    engine = Engine(DetectConfig(), detectors=[])
    first_names, last_names = (
        ["Jane", "Jan", "Ana", "José", "Li", "Ö"],
        ["Doe", "Do", "Doerr", "Smith", "Núñez"],
    )
    for _ in range(300):
        words = sorted(
            {f"{rng.choice(first_names)} {rng.choice(last_names)}" for _ in range(rng.randint(3, 8))}
        )
        pieces = [
            *words,
            *(w.upper() for w in words),
            "Jane",
            " ",
            "x",
            "\n",
            "Doe",
            "-",
            "2",
            "_",
            "JaneDoe",
        ]
        for _ in range(20):
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
            text = text.encode("ascii", "ignore").decode()
            for overlapping in (False, True):
                fast = _people_automaton(words, True, overlapping).find_matches_as_indexes(
                    text.encode("ascii"), overlapping=overlapping
                )
                plain = _people_automaton(words, False, overlapping).find_matches_as_indexes(
                    text, overlapping=overlapping
                )
                assert fast == plain, (words, text)
            engine.seed_people(words)
            got = {(s.start, s.end) for s in engine._seen_people(text)}
            engine.start_unit()
            want = {
                (i, i + len(w))
                for w in words
                for i in occurrences(text, w)
                if (i == 0 or not text[i - 1].isalnum())
                and (i + len(w) == len(text) or not text[i + len(w)].isalnum())
            }
            assert got == want, (words, text)


def test_one_line_ascii_plans_are_the_plans():
    """An ASCII string without a line break is planned by ``Prefilter._plan_line`` (no windows,
    the patterns of a detector joined in one alternation): the same plan and the same literal
    hits as ``_plan``, on random one-line texts made of pieces of every trigger, prose or not."""
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig
    from tracepub.fakes import expand

    prefilter = Engine(
        DetectConfig(identity={"jdoe": "identity.username", "Jane Doe": "identity.name"})
    ).prefilter
    assert any(
        "|(?:" in e[1].__self__.pattern for ungated, _ in prefilter._line_patterns_ascii for e in ungated
    )  # joined
    rng = random.Random(29)
    pieces = [
        "AKC{{alnum:10}}",
        "AP0{{alnum:8}}",
        "APx",
        ".{{alnum:6}}.{{alnum:27}}",
        "AC{{hex:32}}",
        "SK{{hex:32}}",
        "ac{{hex:32}}",
        "https://u:{{alnum:8}}@h.io",
        "://",
        "a@b.io",
        "x@y",
        "@handle",
        "jane.doe@acme.dev",
        "+1 415 555 0134",
        "(415) 555-2671",
        "06.12.34.56.78",
        "81.2.69.160",
        "2a00:1450::200e",
        "fe80::1",
        ":1:2:3:",
        "4111 1111 1111 1111",
        "536-22-8726",
        "DE89370400440532013000",
        "GB82 WEST",
        "cc:",
        "Cc :",
        "tg",
        "irc",
        "tg:@x",
        "IRC: @n",
        "Thanks Jane",
        "Jane Doe",
        "jdoe",
        "JDOE",
        "Alice Johnson",
        "hello",
        "Author: Li Wei <l@w.io>",
        "Co-authored-by: X",
        "12 Main Street",
        "Kaiserring 12",
        "1234 Maple Ave",
        "(Tariq 2025-11-12 10:37:00 +0100 4)",
        "2025-01-01T12:30:00Z",
        "{{uuid}}",
        "msg_{{alnum:24}}",
        "toolu_{{alnum:24}}",
        "req_{{alnum:24}}",
        "ghp_{{alnum:36}}",
        "AKIA{{b32:16}}",
        "password=",
        "token",
        "0",
        "7",
        " ",
        "\t",
        ".",
        "-",
        ":",
        "_",
        "/",
        "x",
        "Q",
        "\\",
        "\\n",
        '"',
        "'",
        "::",
        "@",
        "#",
    ]
    for _ in range(6000):
        text = "".join(expand(rng.choice(pieces), rng) for _ in range(rng.randint(0, 8)))
        assert text.isascii() and "\n" not in text
        for prose in (False, True):
            want = prefilter._plan(text, prose, None)
            hits = prefilter.literal_hits(text)
            assert prefilter._plan_line(text, prose) == want, (text, prose)
            assert prefilter.literal_hits(text) == hits, text


def test_gate_words_are_held_by_every_match():
    """A gated pattern's gate is a few longer words (``prefilter._gate_words``) rather than its
    anchor: every match of the pattern, in random text built around its words, holds one of them;
    the words are what the pattern allows next to the anchor, and the anchor alone where little
    is known."""
    from tracepub.detect.regex_shapes import _gate_words
    from tracepub.detect.text import folded

    assert _gate_words(r"cc[ \t]*:", "cc", True) == ["cc\t", "cc ", "cc:"]
    assert _gate_words(r"\([^()\n0]{2,80}?[ \t]+0000-00-00[ t]0", "0000-00-00", True) == [
        "\t0000-00-00 0",
        "\t0000-00-00t0",
        " 0000-00-00 0",
        " 0000-00-00t0",
    ]
    assert _gate_words(r"tg(?<!\wtg)(?!\w)", "tg", True) == ["tg"]  # the match may end there
    assert _gate_words(r"AKC[a-zA-Z0-9]{10}", "AKC", False) == ["akc"]  # too many next characters
    assert _gate_words(r"AKC[xY]+", "AKC", False) == ["akcx", "akcy"]  # a text pattern's words, folded
    assert _gate_words(r"ab[cD]", "ab", True) == ["abc"]  # "D" is never in folded text
    assert _gate_words(r"AP[\dABCDEF]x", "AP", False) == ["ap"]  # \d: digits beyond ASCII too
    assert _gate_words(r"AP[\dABCDEF]x", "AP", False, ascii_only=True) == [
        "ap0x",
        "apax",
        "apbx",
        "apcx",
        "apdx",
        "apex",
        "apfx",
    ]
    assert _gate_words(r"[pq]*XY[:;]", "XY", False) == ["xy:", "xy;"]  # no character before it for sure
    # a one-character anchor: the literal words every match starts with
    assert _gate_words(r"(?:ssh|scp|mosh)[ \t][^|;&]{0,200}?@", "@", True) == ["mosh", "scp", "ssh"]
    assert _gate_words(r"(?:Qr|cc)[ \t]*@", "@", True) == ["cc"]  # "Qr" is never in folded text
    assert _gate_words(r"(?:ab|[cd]e)x@", "@", False) == ["@"]  # an alternative without a literal start
    rng = random.Random(31)
    cases = [
        (r"cc[ \t]*:", "cc", True),
        (r"\([^()\n0]{2,80}?[ \t]+0000-00-00[ t]0", "0000-00-00", True),
        (r"x[ab]?-(?!z)[0-9][c-e]", "x", True),
        (r"[pq]+XY[ \t]*?(?:z|w)", "XY", False),
        (r"ab(?!c)[c-e]{0,2}f", "ab", True),
        (r"Q[rs]{2,3}T", "Q", False),
        (r"[pq]*XY[:;]", "XY", False),
        (r"AP[\dABCDEF]x", "AP", False),
        (r"(?:Qr|xa|cc)[ \t]*[^;]{0,8}?:", ":", False),
    ]
    pieces = [
        "cc",
        "Cc",
        "CC",
        " ",
        "\t",
        ":",
        "(",
        ")",
        "(Jo Li",
        " 2025-01-02 1",
        "\t2025-01-02T3",
        "2025-01-02",
        "T",
        "t",
        "0",
        "12",
        "xa-",
        "x-",
        "1e",
        "pXY",
        "qXY ",
        "Qr",
        "sT",
        "ab",
        "abd",
        "ef",
        "XY:",
        "AP",
        "APf",
        "AP٣",
        "a٣x",
        "B",
        "x",
        "a",
        "b",
        "-",
        "z",
        "c",
        "d",
        "e",
        "f",
        "XY",
        "xy",
        "p",
        "q",
        "w",
        "Q",
        "r",
        "s",
        "T",
        "\n",
    ]
    for pattern, anchor, on_fold in cases:
        rx, words = re.compile(pattern), _gate_words(pattern, anchor, on_fold)
        ascii_words = _gate_words(pattern, anchor, on_fold, ascii_only=True)
        assert ascii_words != [folded(anchor)], pattern  # extended
        found = 0
        for _ in range(20000):
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
            subject = folded(text) if on_fold else text
            if rx.search(subject):
                found += 1
                assert any(w in folded(text) for w in words), (pattern, text, words)
                assert not text.isascii() or any(w in folded(text) for w in ascii_words), (pattern, text)
        assert found > 20, pattern


def test_plans_with_gate_words_are_the_plans_with_anchors(monkeypatch):
    """Plans, and the keyword hits the detectors read from the shared pass, are the same with
    each gate's longer words as with its anchor alone, on random multi-line texts."""
    from tracepub.detect import prefilter as pf
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig
    from tracepub.fakes import expand

    cfg = DetectConfig(identity={"jdoe": "identity.username", "Jane Doe": "identity.name"})
    new = Engine(cfg)
    monkeypatch.setattr(
        pf, "_gate_words", lambda pattern, anchor, on_fold, ascii_only=False: [pf.folded(anchor)]
    )
    old = Engine(cfg)
    gates = {
        w
        for v, w in zip(new.prefilter._leaf_auto._values, new.prefilter._leaf_auto._words, strict=True)
        if v[2]
    }
    assert "cc:" in gates and "cc" not in gates and "apf" in gates  # longer words in use
    indexes = [[d._index for d in e.detectors if getattr(d, "_index", None) is not None] for e in (new, old)]
    assert len(indexes[0]) == 3 and all(i._shared is not None for i in indexes[0])
    rng = random.Random(37)
    pieces = [
        "cc:",
        "Cc :",
        "CC\t:",
        "cc",
        "access",
        "success ",
        "(Tariq Ali 2025-11-12 10:37:00 +0100 4)",
        "(x\t2025-01-01T00:00:00 1)",
        "2025-01-01",
        " 2025-01-01 ",
        "token",
        "key=",
        "AKC{{alnum:10}}",
        "tg",
        " tg ",
        "irc",
        "::",
        "fe80::1",
        "AP0{{alnum:8}}",
        "APf{{alnum:8}}",
        "AP٣{{alnum:8}}",
        "ap",
        "https://u:{{alnum:8}}@h.io",
        "Jane Doe",
        "jdoe",
        "Thanks Bob",
        "12 Main Street",
        "+1 415 555 0134",
        "é",
        "→",
        " ",
        "\t",
        "\n",
        "x",
        "0",
        "(",
        ")",
    ]
    for _ in range(3000):
        text = "".join(expand(rng.choice(pieces), rng) for _ in range(rng.randint(1, 30)))
        for prose in (False, True):
            want = old.prefilter._plan(text, prose, None)
            old_hits = [i.find_text(text) for i in indexes[1]]
            assert new.prefilter._plan(text, prose, None) == want, (text, prose)
            assert [i.find_text(text) for i in indexes[0]] == old_hits, text
            if text.isascii() and "\n" not in text:
                assert new.prefilter._plan_line(text, prose) == want, (text, prose)


def test_shape_ends_give_the_plans_of_their_shapes(monkeypatch):
    """Addresses' " st" is a shape end (``Trigger.shape_ends``): in ASCII texts the automaton
    looks for it with a non-word character after it, or at the text's end, not in " start".
    Plans (``_plan``, ``_plan_line``, cached ``plan``) and the keyword hits the detectors read
    are those of the plain shape, on random texts around street types, ASCII or not."""
    import dataclasses

    from tracepub.detect.engine import Engine
    from tracepub.detect.pii import addresses as pii
    from tracepub.detect.registry import DetectConfig
    from tracepub.fakes import expand

    cfg = DetectConfig(identity={"jdoe": "identity.username", "Jane Doe": "identity.name"})
    new = Engine(cfg)
    monkeypatch.setattr(pii.Addresses, "trigger", dataclasses.replace(pii.Addresses.trigger, shape_ends=()))
    old = Engine(cfg)
    words = new.prefilter._leaf_auto._words
    assert " st." in words and "\tst\n" in words and " st" in words  # in use
    assert {words[k] for k in new.prefilter._leaf_auto.one_kind} >= {" st", "\tst", " st ", "\tst)"}
    indexes = [[d._index for d in e.detectors if getattr(d, "_index", None) is not None] for e in (new, old)]
    addresses = next(i for i, d in enumerate(new.detectors) if isinstance(d, pii.Addresses))
    rng = random.Random(41)
    pieces = [
        "12 Main St",
        "12 Main St.",
        "9 Elm Street",
        " St",
        "\tSt",
        " st",
        " ST",
        " Street",
        " Streets",
        " Str",
        " St_",
        " St1",
        " Sté",
        " St→",
        " St—",
        " St\u00a0",
        " start",
        " string",
        "\tstatus",
        "St",
        " Ave",
        "Kaiserring 12",
        "12 rue de la Paix",
        "Hauptstraße 5",
        "tg",
        "token",
        "jdoe",
        "Jane Doe",
        "+1 415 555 0134",
        "81.2.69.160",
        "{{uuid}}",
        "é",
        "→",
        " ",
        "\t",
        "\n",
        ".",
        ",",
        ")",
        "-",
        "_",
        "x",
        "0",
        "7",
        "S",
        "t",
        "s",
        "T",
        "\x00",
        "\x7f",
        '"',
        "\\",
    ]
    found = 0
    for _ in range(5000):
        text = "".join(expand(rng.choice(pieces), rng) for _ in range(rng.randint(0, 12)))
        for prose in (False, True):
            want = old.prefilter._plan(text, prose, None)
            old_hits = [i.find_text(text) for i in indexes[1]]
            got = new.prefilter._plan(text, prose, None)
            assert got == want, (text, prose)
            assert [i.find_text(text) for i in indexes[0]] == old_hits, text
            if text.isascii() and "\n" not in text:
                assert new.prefilter._plan_line(text, prose) == want, (text, prose)
            new.prefilter._short = {}
            assert new.prefilter.plan(text, prose) == want, (text, prose)
            found += any(i == addresses for i, _ in want)
    assert found > 500


_NUMBER_PIECES = [
    "1.2.3.4",
    "1.234.5.6",
    "9.10.100.1",
    "10.0.0.1",
    "8.8.8.8 ",
    "v1.2.3.4",
    "a1.2.3.4",
    "_1.2.3.4",
    "1.2.3",
    "4111 1111 1111 1111",
    "4111-1111-1111-1111",
    "536-22-8726",
    "536 22 8726",
    "123456789",
    "1234567a",
    "AB 12 34 56 C",
    "AB123456C",
    "xAB 12 34 56 C",
    "2025-01-01",
    "12:34",
    "3",
    "42",
    "007",
    " ",
    ".",
    "-",
    ":",
    "x",
    "e",
    "_",
    "é",
    "٣",
    "hello world",
    "fe80::1",
]


def test_split_number_shape_matches_where_the_shape_matches():
    """``_NUMBER_SHAPES`` (the "00" part, the ".0" part one character on) match where
    ``_NUMBER_SHAPE`` does, on random folded text around every branch."""
    from tracepub.detect.pii.triggers import _NUMBER_SHAPE, _NUMBER_SHAPES
    from tracepub.detect.text import folded

    whole, (digits, dot) = re.compile(_NUMBER_SHAPE), [re.compile(p) for p in _NUMBER_SHAPES]
    rng = random.Random(43)
    found = [0, 0]
    for _ in range(4000):
        text = folded("".join(rng.choice(_NUMBER_PIECES) for _ in range(rng.randint(1, 10))))
        for p in range(len(text) + 1):
            a, b = digits.match(text, p) is not None, dot.match(text, p + 1) is not None
            assert (whole.match(text, p) is not None) == (a or b), (text, p)
            found[0] += a
            found[1] += b
    assert min(found) > 200


def test_split_number_shape_gives_the_plans_of_the_shape(monkeypatch):
    """Numbers' digit shape searched as its two parts (``Trigger.folded_split``) gives the plans
    of the one pattern: the parts' lines count once, together, for the ``WHOLE`` cut-off. Random
    multi-line texts whose lines the two parts share, cover about half of, or all of; raw lines."""
    import json

    from tracepub.detect.engine import Engine
    from tracepub.detect.pii import presidio as pii
    from tracepub.detect.pii import triggers
    from tracepub.detect.registry import DetectConfig

    cfg = DetectConfig(identity={"jdoe": "identity.username"})
    new = Engine(cfg)
    assert len(new.prefilter._split) == 2
    monkeypatch.setattr(pii, "_NUMBER_TRIGGERS", (triggers._NUMBER_SHAPE, *pii._NUMBER_TRIGGERS))
    monkeypatch.setattr(pii, "_NUMBER_SHAPES", ())
    old = Engine(cfg)
    assert not old.prefilter._split
    numbers = next(i for i, d in enumerate(new.detectors) if isinstance(d, pii._Numbers))
    rng = random.Random(47)
    kinds = set()
    for _ in range(6000):
        lines = [
            "".join(rng.choice(_NUMBER_PIECES) for _ in range(rng.randint(0, 4)))
            for _ in range(rng.randint(1, 9))
        ]
        text = "\n".join(lines)
        for prose in (False, True):
            want = old.prefilter._plan(text, prose, None)
            assert new.prefilter._plan(text, prose, None) == want, (text, prose)
            new.prefilter._short = {}
            assert new.prefilter.plan(text, prose) == want, (text, prose)
            if text.isascii() and "\n" not in text:
                assert new.prefilter._plan_line(text, prose) == want, (text, prose)
            kinds |= {w is None for i, w in want if i == numbers}
        raw = json.dumps({"t": text})
        assert new.prefilter.line_hits(raw) == old.prefilter.line_hits(raw), raw
    assert kinds == {True, False}  # whole strings and windows
