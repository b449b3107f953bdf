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
