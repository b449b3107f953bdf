"""Generic interchange formats, read only from SOURCES given on the command line.

- OpenAI chat: ``{"messages": [{role, content, tool_calls?, …}], "tools"?}`` per JSONL line, or
  dataset rows whose ``trajectory`` is a list of such messages (nebius / nvidia SWE sets);
- ShareGPT: ``{"conversations": [{"from", "value"}]}``;
- ATIF (Harbor / Terminal-Bench): one JSON document with ``schema_version: "ATIF-v1.x"`` and ``steps``;
- the Hub's STS: ``{"type":"session","harness":…}`` then ``{"type":"message",…}`` lines.

Each is written back in its own shape: JSONL line for line, a JSON document as one document.
They are never looked for in the harnesses' home folders (``generic``): there a JSON file is as
likely to be settings or credentials as a conversation, and guessing would publish it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracepub.model import SessionInfo
from tracepub.readers import stsbuild as sts
from tracepub.readers.base import JsonDocReader, JsonlReader, fold_time, head_document, head_lines
from tracepub.readers.hermes import sharegpt_prose

_CONTAINERS = ("messages", "trajectory")


# -- OpenAI messages ---------------------------------------------------------------------------
def _openai_row(v: Any) -> bool:
    if not isinstance(v, dict):
        return False
    for key in _CONTAINERS:
        msgs = v.get(key)
        if isinstance(msgs, list) and msgs and all(isinstance(m, dict) and "role" in m for m in msgs[:5]):
            return True
    return False


def _openai_describe(row: Any, info: SessionInfo) -> None:
    if not isinstance(row, dict):
        return
    for key in _CONTAINERS:
        msgs = row.get(key)
        if not isinstance(msgs, list):
            continue
        for m in msgs:
            if not isinstance(m, dict):
                continue
            if m.get("role") in ("user", "assistant", "ai"):
                info.messages += 1
            if isinstance(m.get("tool_calls"), list):
                info.tool_calls += len(m["tool_calls"])
            fold_time(info, m.get("timestamp"))


def _openai_prose(row: Any, path: tuple) -> bool:
    if (
        not isinstance(row, dict)
        or len(path) < 3
        or path[0] not in _CONTAINERS
        or not isinstance(path[1], int)
    ):
        return False
    msgs = row.get(path[0])
    if not isinstance(msgs, list) or path[1] >= len(msgs) or not isinstance(msgs[path[1]], dict):
        return False
    if msgs[path[1]].get("role") not in ("user", "assistant", "ai"):
        return False
    rest = path[2:]
    return rest in (("content",), ("text",), ("reasoning_content",)) or (
        len(rest) == 3 and rest[0] == "content" and rest[2] == "text"
    )


def _rows(doc: Any) -> list:
    return doc if isinstance(doc, list) else [doc]


def _doc_prose(fn, doc: Any, path: tuple) -> bool:
    """For a document that is a list of rows, the path starts with the row's index."""
    if isinstance(doc, list):
        if not path or not isinstance(path[0], int) or path[0] >= len(doc):
            return False
        return fn(doc[path[0]], path[1:])
    return fn(doc, path)


class _RowsJsonl(JsonlReader):
    """A row format stored as JSONL, one conversation per line: the row's own checks decide."""

    generic = True
    row_ok: Callable[[Any], bool]
    describe_row: Callable[[Any, SessionInfo], None]
    prose_row: Callable[[Any, tuple], bool]

    def sniff(self, path: Path, head: bytes) -> bool:
        lines = head_lines(head, 3)
        return bool(lines) and all(self.row_ok(v) for v in lines)

    def describe(self, record: dict, info: SessionInfo) -> None:
        self.describe_row(record, info)

    def is_prose(self, record: Any, path: tuple) -> bool:
        return self.prose_row(record, path)


class _RowsDoc(JsonDocReader):
    """The same row format stored as one JSON document (a row, or a list of rows)."""

    generic = True
    row_ok: Callable[[Any], bool]
    describe_row: Callable[[Any, SessionInfo], None]
    prose_row: Callable[[Any, tuple], bool]

    def sniff(self, path: Path, head: bytes) -> bool:
        rows = _rows(head_document(path, head))
        return bool(rows) and all(self.row_ok(r) for r in rows[:3])

    def describe(self, doc: Any, info: SessionInfo) -> None:
        for row in _rows(doc):
            self.describe_row(row, info)

    def is_prose(self, record: Any, path: tuple) -> bool:
        return _doc_prose(self.prose_row, record, path)


class OpenAIMessages(_RowsJsonl):
    name = "openai"
    label = "OpenAI messages"
    row_ok = staticmethod(_openai_row)
    describe_row = staticmethod(_openai_describe)
    prose_row = staticmethod(_openai_prose)


class OpenAIMessagesDoc(_RowsDoc):
    name = "openai"
    label = "OpenAI messages (JSON)"
    row_ok = staticmethod(_openai_row)
    describe_row = staticmethod(_openai_describe)
    prose_row = staticmethod(_openai_prose)


# -- ShareGPT ----------------------------------------------------------------------------------
def _sharegpt_row(v: Any) -> bool:
    if not isinstance(v, dict):
        return False
    conv = v.get("conversations")
    return (
        isinstance(conv, list)
        and bool(conv)
        and all(isinstance(t, dict) and "from" in t and "value" in t for t in conv[:5])
    )


def _sharegpt_describe(row: Any, info: SessionInfo) -> None:
    if not isinstance(row, dict):
        return
    fold_time(info, row.get("timestamp"))
    for t in row.get("conversations") or []:
        if isinstance(t, dict) and t.get("from") in ("human", "gpt", "user", "assistant"):
            info.messages += 1
            if isinstance(t.get("value"), str):
                info.tool_calls += t["value"].count("<tool_call>")


class ShareGPT(_RowsJsonl):
    name = "sharegpt"
    label = "ShareGPT"
    row_ok = staticmethod(_sharegpt_row)
    describe_row = staticmethod(_sharegpt_describe)
    prose_row = staticmethod(sharegpt_prose)


class ShareGPTDoc(_RowsDoc):
    name = "sharegpt"
    label = "ShareGPT (JSON)"
    row_ok = staticmethod(_sharegpt_row)
    describe_row = staticmethod(_sharegpt_describe)
    prose_row = staticmethod(sharegpt_prose)


# -- ATIF --------------------------------------------------------------------------------------
class Atif(JsonDocReader):
    name = "atif"
    label = "ATIF trajectory"
    generic = True

    def sniff(self, path: Path, head: bytes) -> bool:
        doc = head_document(path, head)
        return (
            isinstance(doc, dict)
            and isinstance(doc.get("schema_version"), str)
            and doc["schema_version"].startswith("ATIF-")
            and isinstance(doc.get("steps"), list)
        )

    def describe(self, doc: Any, info: SessionInfo) -> None:
        if not isinstance(doc, dict):
            return
        if isinstance(doc.get("session_id"), str):
            info.id = doc["session_id"]
        agent = doc.get("agent")
        agent = agent if isinstance(agent, dict) else {}
        extra = agent.get("extra")
        extra = extra if isinstance(extra, dict) else {}
        if isinstance(extra.get("cwd"), str):
            info.project = extra["cwd"]
        for step in doc.get("steps") or []:
            if not isinstance(step, dict):
                continue
            fold_time(info, step.get("timestamp"))
            if step.get("source") in ("user", "agent"):
                info.messages += 1
            if isinstance(step.get("tool_calls"), list):
                info.tool_calls += len(step["tool_calls"])

    def is_prose(self, record: Any, path: tuple) -> bool:
        if (
            not isinstance(record, dict)
            or len(path) < 3
            or path[0] != "steps"
            or not isinstance(path[1], int)
        ):
            return False
        steps = record.get("steps")
        if not isinstance(steps, list) or path[1] >= len(steps) or not isinstance(steps[path[1]], dict):
            return False
        if steps[path[1]].get("source") not in ("user", "agent"):
            return False
        rest = path[2:]
        return rest in (("message",), ("reasoning_content",)) or (
            len(rest) == 3 and rest[0] == "message" and rest[2] == "text"
        )


# -- STS -----------------------------------------------------------------------------------------
class Sts(JsonlReader):
    name = "sts"
    label = "STS (Hub session trace)"
    generic = True

    def sniff(self, path: Path, head: bytes) -> bool:
        lines = head_lines(head, 4)
        # STS lines, or pi's entries (the Hub accepts pi's format with a ``harness`` in the header).
        return (
            bool(lines)
            and sts.is_sts_header(lines[0])
            and all(isinstance(v, dict) and isinstance(v.get("type"), str) for v in lines[1:])
        )

    def describe(self, record: dict, info: SessionInfo) -> None:
        sts.describe(record, info)

    def is_prose(self, record: Any, path: tuple) -> bool:
        return sts.is_prose(record, path)
