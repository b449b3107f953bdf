"""The redactor writes findings as bytes assembled from parts serialised once, and folds a text
with many findings a value at a time: both must equal the plain forms (``orjson.dumps`` of each
finding's dict; ``FileFold.add`` of each dict in turn) on varied spans and texts."""

from __future__ import annotations

import random
from collections import Counter

import orjson

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.model import KEPT, REVIEW, Span
from tracepub.outputs import groups
from tracepub.redact.placeholders import Namer
from tracepub.redact.redactor import Redactor

_WORDS = ["jdoe", "Jane Doe", "é✓ü", 'x"y\\z', "a\nb", "jane@example.com", "🙂 ok", "tab\there", "plain"]


def _text_and_spans(rng: random.Random) -> tuple[str, list[Span]]:
    parts: list[str] = []
    spans: list[Span] = []
    pos = 0
    for _ in range(rng.randint(1, 40)):
        gap = rng.choice(["", " ", " / ", "—", "path/to/" * rng.randint(0, 8)])
        word = rng.choice(_WORDS)
        parts += [gap, word]
        pos += len(gap)
        spans.append(
            Span(
                pos,
                pos + len(word),
                rng.choice(["identity.username", "pii.person", "secret.token"]),
                rng.choice(["d1", "d2"]),
                rng.choice([0.5, 0.9, 1, 1.0]),
                rng.choice(["redacted", REVIEW]),
            )
        )
        pos += len(word)
    parts.append(rng.choice(["", " tail", "\u2028end"]))
    return "".join(parts), spans


def test_findings_bytes_and_fold_equal_the_dicts():
    rng = random.Random(11)
    engine = Engine(DetectConfig(), detectors=[])
    for keep in (set(), {Namer(b"k" * 32).value_id("jdoe")}):
        red = Redactor(engine, Namer(b"k" * 32), keep)
        red.start_unit("claude_code/a.jsonl", "claude_code", None)
        texts = [_text_and_spans(rng) for _ in range(30)]
        for record in range(1, 80):
            red.record_index = record
            for _ in range(rng.randint(1, 3)):
                text, spans = rng.choice(texts)  # texts recur: renderings are reused
                path = rng.choice(
                    [("message", "content"), ("toolUseResult", 0, "x"), ("#file",), ("a#file", "b")]
                )
                red._apply(text, spans, path)
            dicts = red.finding_dicts()
            assert red.findings_jsonl() == b"".join(orjson.dumps(d) + b"\n" for d in dicts)
            fold, slow = groups.FileFold(), groups.FileFold()
            actions: Counter[str] = Counter()
            red.fold_findings(fold, actions)
            for d in dicts:
                slow.add(d)
            assert actions == Counter(d["action"] for d in dicts)
            assert KEPT not in actions or keep
            view = [
                (
                    fold.file,
                    fold.total,
                    [(k, vars(g)) for k, g in fold.groups.items()],
                    list(fold.by_type.items()),
                    list(fold.by_detector.items()),
                    list(fold.by_action.items()),
                )
                for fold in (fold, slow)
            ]
            assert view[0] == view[1]
            red.findings.clear()
