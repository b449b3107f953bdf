"""Fast paths of the walk, the redactor and the reader against their straightforward forms."""

from tracepub.model import Leaf


def test_blob_precheck_lets_through_every_blob():
    """The walker calls ``blobs.classify`` only under ``blobs.KEYS`` or for a text starting
    ``blobs.DATA_URL_START``: elsewhere ``classify`` finds nothing, on keys and texts of every kind."""
    import random

    from tracepub.walk import blobs

    rnd = random.Random(5)
    b64 = "".join(
        rnd.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(200)
    )
    texts = [
        "",
        "x",
        "data",
        "data:",
        "data:image/png;base64," + b64,
        "data:text/plain;base64," + b64,
        " data:image/png;base64," + b64,
        b64,
        b64[:16],
        b64[:15],
        "hello world " * 10,
    ]
    keys = [
        None,
        "",
        "text",
        "type",
        "image",
        "source",
        "content",
        "Data",
        "DATA",
        "data_",
        "signature_",
        *blobs._OPAQUE_KEYS,
        "data",
        *(k.lower() for k in blobs._OPAQUE_KEYS),
    ]
    parents = [
        None,
        {},
        {"type": "base64"},
        {"type": "redacted_thinking"},
        {"mimeType": "image/png"},
        {"media_type": "application/pdf"},
        {"mime_type": "text/plain"},
        {"type": "image"},
    ]
    calls = 0
    for key in keys:
        for text in texts:
            for parent in parents:
                may = key in blobs.KEYS or text.startswith(blobs.DATA_URL_START)
                if not may:
                    calls += 1
                    assert blobs.classify(key, text, parent) is None, (key, text[:30], parent)
    assert calls > 100
    # and the walker's result equals classify's on each of them
    from tracepub.walk.walker import Walker

    seen: list = []
    w = Walker(lambda text, path, key: text, lambda kind, path, text: seen.append(kind))
    for key in keys:
        if not key:
            continue
        for text in texts:
            for parent in parents:
                if not text:
                    continue
                seen.clear()
                doc = {**(parent or {}), key: text}
                out = w.walk(doc)
                kind = blobs.classify(key, text, doc)
                assert out[key] == (text if kind is None else blobs.marker(kind)), (key, text[:30], parent)


def test_engine_cached_final_spans_equal_a_fresh_scan():
    """A text's spans under one key and then another (its context-free ones taken from the cache,
    final spans reused where no contextual detector adds any) equal the detectors' spans without
    allowed values, overlaps resolved, and a fresh engine's scan of it under that key alone."""
    import random

    from tracepub.detect.base import Detector, Trigger
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig
    from tracepub.model import Span
    from tracepub.redact.resolve import resolve

    class Words(Detector):  # context-free: every "tok" word and its overlapping "tok-x" form
        name = "words"
        context_free = True
        trigger = Trigger(literals=("tok",))

        def scan(self, text, leaf):
            out = []
            i = text.find("tok")
            while i >= 0:
                out.append(Span(i, i + 3, "secret.token", self.name))
                if text.startswith("tok-", i):
                    out.append(Span(i, i + 5, "pii.other", self.name, 0.5))
                i = text.find("tok", i + 1)
            return out

    class UnderKey(Detector):  # contextual: the digits of a text, under "pin" keys only
        name = "under-key"
        trigger = Trigger(literals=("0", "1", "2", "3"), keys=("pin",))

        def scan(self, text, leaf):
            if leaf.key != "pin":
                return []
            return [Span(i, i + 1, "secret.pin", self.name) for i, c in enumerate(text) if c.isdigit()]

    cfg = DetectConfig(ner=False, allow_values=["tok-a"])
    rng = random.Random(7)
    pieces = ["tok", "tok-a", "tok-b", "1", "23", " ", "x", "tokens", "\n"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 30))) for _ in range(300)]
    texts += [t * 5 for t in texts[:20]]  # longer than Engine.SMALL: cached by digest
    shared = Engine(cfg, detectors=[Words(), UnderKey()])
    for _ in range(3000):
        text, key = rng.choice(texts), rng.choice(["pin", "content", None])
        leaf = Leaf("h", ("a", key or "b"), key)
        got = shared.scan(text, leaf)
        want = resolve(
            [
                s
                for s in Words().scan(text, leaf) + UnderKey().scan(text, leaf)
                if text[s.start : s.end].lower() != "tok-a"
            ]
        )
        assert got == want == Engine(cfg, detectors=[Words(), UnderKey()]).scan(text, leaf), (text, key)
    assert shared.stats["text_hits"] > 500  # the cached path was taken


def test_people_looked_for_in_utf8_as_word_by_word():
    """Whether a remembered person is in a text is asked of its UTF-8 bytes, ASCII or not (lone
    surrogates included); where one is, the str automaton finds where: the same people at the
    same offsets as the word-by-word search, on random texts."""
    import random

    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig
    from tracepub.detect.text import occurrences

    rng = random.Random(29)
    engine = Engine(DetectConfig(), detectors=[])
    first_names, last_names = ["Jane", "José", "Ängel", "李", "Zoë"], ["Doe", "Núñez", "Øster", "明", "Do"]
    for _ in range(300):
        words = sorted(
            {f"{rng.choice(first_names)} {rng.choice(last_names)}" for _ in range(rng.randint(3, 8))}
        )
        pieces = [
            *words,
            "Jane",
            "José",
            " ",
            "x",
            "é",
            "\n",
            "Doe",
            "-",
            "\ud800",
            "明明",
            "JoséNúñez",
            "\U0001f600",
        ]
        for _ in range(20):
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
            engine.seed_people(words)
            got = [(s.start, s.end) for s in engine._seen_people(text)]
            engine.start_unit()
            want = {
                (i, i + len(w))
                for w in words
                for i in occurrences(text, w)
                if (i == 0 or not text[i - 1].isalnum())
                and (i + len(w) == len(text) or not text[i + len(w)].isalnum())
            }
            assert set(got) == want and len(got) == len(want), (words, text)
