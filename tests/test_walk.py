import json

from tracepub.walk.walker import JSON, KEY, Walker, dumps_like, dumps_like_bytes, format_path


def upper_secret(text, path, key):
    return text.replace("SECRET", "<X>") if "SECRET" in text else text


def test_untouched_value_is_same_object():
    doc = {"a": ["x", {"b": "y"}], "n": 3}
    assert Walker(upper_secret).walk(doc) is doc


def test_json_inside_string_is_redacted_and_still_parses():
    args = json.dumps({"cmd": "echo SECRET", "workdir": "/tmp"})
    doc = {"type": "function_call", "arguments": args}
    out = Walker(upper_secret).walk(doc)
    assert "SECRET" not in out["arguments"]
    assert json.loads(out["arguments"]) == {"cmd": "echo <X>", "workdir": "/tmp"}
    # written back in the same style (Python's json.dumps: ", " and ": ")
    assert out["arguments"] == json.dumps({"cmd": "echo <X>", "workdir": "/tmp"})


def test_compact_style_is_kept():
    original = '{"a":"SECRET","b":[1,2]}'
    assert dumps_like(original, {"a": "<X>", "b": [1, 2]}) == '{"a":"<X>","b":[1,2]}'


def test_bytes_form_is_the_text_form_encoded():
    value = {"a": "<X> café ✓", "b": [1, 2.5, None, True], "c": {"d": "\u2028"}}
    originals = [
        '{"a":"x","b":[1]}',
        '{"a": "x", "b": [1]}',
        '{\n  "a": "x"\n}',
        '{"a":"caf\\u00e9"}',
        '  {"a":"x"}\t',
        '\u00a0{"a":"x"}',
    ]
    for original in originals:
        assert dumps_like_bytes(original, value) == dumps_like(original, value).encode("utf-8"), original
    big = {"n": 2**70}  # orjson refuses: the standard library writes it
    assert (
        dumps_like_bytes('{"n":1}', big)
        == dumps_like('{"n":1}', big).encode("utf-8")
        == b'{"n":1180591620717411303424}'
    )


def test_keys_are_visited_and_paths_recorded():
    seen = []

    def visit(text, path, key):
        seen.append(format_path(path))
        return text.replace("SECRET", "<X>")

    out = Walker(visit).walk({"/home/SECRET/x": {"k": '{"z": "SECRET"}'}})
    assert out == {"/home/<X>/x": {"k": '{"z": "<X>"}'}}
    assert "$./home/SECRET/x.<key>" in seen
    assert "$./home/SECRET/x.k#json.z" in seen
    assert KEY and JSON


def test_base64_image_removed_and_counted():
    blobs = []
    doc = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo" * 10},
    }
    out = Walker(lambda t, p, k: t, lambda kind, p, t: blobs.append(kind)).walk(doc)
    assert out["source"]["data"] == "<IMAGE_REMOVED>"
    assert blobs == ["image"]


def test_maybe_json_equals_strip_then_test():
    """``_maybe_json`` looks at a string's ends before stripping it: the same answer as stripping first."""
    import random

    from tracepub.walk.walker import _maybe_json

    def slow(text):
        s = text.strip()
        if len(s) < 2 or s[0] not in "{[" or s[-1] not in "}]":
            return None
        try:
            value = json.loads(s)
        except (ValueError, RecursionError):
            return None
        return value if isinstance(value, (dict, list)) else None

    rng = random.Random(5)
    pieces = ["{", "}", "[", "]", " ", "\n", "\u2003", "\x1c", "a", '"x"', ":", "1", ",", "\t"]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert _maybe_json(text) == slow(text), text


def test_style_is_read_from_the_first_key_not_from_string_contents():
    """A compact line whose string value holds JSON written with spaces stays compact."""
    original = '{"type":"tool_result","content":"{\\"a\\": 1, \\"b\\": 2}","n":[1,2]}'
    value = json.loads(original)
    value["content"] = '{"a": "<X>", "b": 2}'
    assert (
        dumps_like(original, value)
        == '{"type":"tool_result","content":"{\\"a\\": \\"<X>\\", \\"b\\": 2}","n":[1,2]}'
    )
    assert dumps_like_bytes(original, value) == dumps_like(original, value).encode("utf-8")
    spaced = '{"a": "x, y", "b": "{\\"c\\":1}"}'  # Python's default style, a compact JSON inside
    assert dumps_like(spaced, json.loads(spaced)) == spaced
    assert dumps_like('[{"a": 1}, {"a": 2}]', [{"a": 1}, {"a": 2}]) == '[{"a": 1}, {"a": 2}]'
    assert dumps_like("[1,2]", [1, 3]) == "[1,3]"


def test_style_ensure_ascii_equals_substring_test():
    """``_style`` looks for ``\\u00`` in an ASCII text's bytes (a SIMD search): the same answer as
    ``isascii() and "\\u00" in text`` on random texts."""
    import random

    from tracepub.walk.walker import _style

    rng = random.Random(11)
    pieces = ["\\", "u", "0", "00", "\\u", "\\u00", "\\u0", "\\\\u00", '"', "a", "é", "\n", " ", "{", "}"]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        body = text.strip()
        assert _style(text)[3] == (body.isascii() and "\\u00" in body), text


def test_lone_surrogate_is_visited_as_replacement_character_and_written_as_escape():
    seen = []

    def visit(text, path, key):
        text.encode("utf-8")  # what the detectors' automaton does: refuses a lone surrogate
        seen.append(text)
        return text.replace("SECRET", "<X>")

    out = Walker(visit).walk({"a": "x \ud800 SECRET", "b": "fine"})
    assert out == {"a": "x \ufffd <X>", "b": "fine"} and "x \ufffd SECRET" in seen
    # a surrogate that reaches the writer (a visit that never encodes) is written as its escape
    assert json.loads(dumps_like_bytes('{"a":"x"}', {"a": "y \udc00 \u00e9"})) == {"a": "y \udc00 \u00e9"}
