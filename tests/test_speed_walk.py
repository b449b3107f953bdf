"""Fast paths of the walk, the redactor and the reader against their straightforward forms."""

import dataclasses
import inspect
import pickle

from tracepub.model import Leaf


def test_leaf_init_is_the_dataclass_one():
    """``Leaf``'s faster ``__init__``: the signature, fields, equality, hash, repr and frozenness of
    the frozen dataclass it replaces."""

    @dataclasses.dataclass(frozen=True, slots=True)
    class Leaf0:
        harness: str
        path: tuple = ()
        key: str | None = None
        prose: bool = False

    def params(cls):
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]

    assert params(Leaf) == params(Leaf0)
    assert [f.name for f in dataclasses.fields(Leaf)] == [f.name for f in dataclasses.fields(Leaf0)]
    for args, kw in ((("claude_code",), {}), (("codex", ("a", 0, "b"), "b", True), {}),
                     (("pi",), {"key": "text", "prose": True}), (("x", ("k",)), {"prose": False})):
        s, s0 = Leaf(*args, **kw), Leaf0(*args, **kw)
        assert dataclasses.astuple(s) == dataclasses.astuple(s0)
        assert repr(s) == repr(s0).split("<locals>.")[-1].replace("Leaf0", "Leaf")
        assert s == Leaf(*args, **kw) and hash(s) == hash(Leaf(*args, **kw)) and s != s0
        assert pickle.loads(pickle.dumps(s)) == s
        assert dataclasses.replace(s, prose=not s.prose).prose is not s.prose
        try:
            s.key = "x"  # type: ignore[misc]
        except dataclasses.FrozenInstanceError:
            pass
        else:
            raise AssertionError("Leaf must stay frozen")


def test_blob_precheck_lets_through_every_blob():
    """The walker calls ``blobs.classify`` only under ``blobs.KEYS`` or for a text starting
    ``blobs.DATA_URL_START``: elsewhere ``classify`` finds nothing, on keys and texts of every kind."""
    import random

    from tracepub import blobs

    rnd = random.Random(5)
    b64 = "".join(rnd.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(200))
    texts = ["", "x", "data", "data:", "data:image/png;base64," + b64, "data:text/plain;base64," + b64,
             " data:image/png;base64," + b64, b64, b64[:16], b64[:15], "hello world " * 10]
    keys = [None, "", "text", "type", "image", "source", "content", "Data", "DATA", "data_", "signature_",
            *blobs._OPAQUE_KEYS, "data", *(k.lower() for k in blobs._OPAQUE_KEYS)]
    parents = [None, {}, {"type": "base64"}, {"type": "redacted_thinking"}, {"mimeType": "image/png"},
               {"media_type": "application/pdf"}, {"mime_type": "text/plain"}, {"type": "image"}]
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
    from tracepub.walk import Walker

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
