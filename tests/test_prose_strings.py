"""A reader's ``prose_strings`` lists exactly what a walk with its ``is_prose`` finds, in order."""

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.readers.claude import ClaudeCode
from tracepub.redact.placeholders import Namer
from tracepub.redact.redactor import Redactor

RECORDS = [
    {"type": "user", "message": {"role": "user", "content": "Hello there, Ann"}},
    {"type": "user", "isMeta": True, "message": {"content": "meta text"}},
    {
        "type": "assistant",
        "message": {
            "content": [
                {"type": "thinking", "thinking": "let me think", "signature": "abc"},
                {"type": "text", "text": "ok"},
                {"type": "text", "text": "Done: see the file", "extra": {"text": "nested, not prose"}},
                {"thinking": "first", "text": "second"},
                ["not", "a", "block"],
                "a bare string",
                {"type": "tool_use", "input": {"text": "tool input"}},
            ]
        },
    },
    {
        "type": "user",
        "message": {"content": [{"type": "tool_result", "content": [{"type": "text", "text": "out"}]}]},
    },
    {"type": "user", "message": {"content": {"text": "a dict is not a list of blocks"}}},
    {"type": "summary", "summary": "A session summary"},
    {"type": "summary", "summary": ["not", "text"]},
    {"type": "system", "content": "system text"},
    {"type": "assistant", "message": "not a dict"},
    ["not", "a", "record"],
    "plain",
]


def test_claude_prose_strings_match_the_walk():
    reader = ClaudeCode()
    red = Redactor(Engine(DetectConfig(), detectors=[]), Namer(b"k" * 32))
    red.start_unit("f", "claude_code", reader.is_prose)
    walked = [red.prose_strings(r) for r in RECORDS]
    red.start_unit("f", "claude_code", reader.is_prose, reader.prose_strings)
    assert [red.prose_strings(r) for r in RECORDS] == walked
    assert walked[2] == ["let me think", "Done: see the file", "first", "second"]  # "ok" is too short
    assert walked[0] == ["Hello there, Ann"] and walked[5] == ["A session summary"]
