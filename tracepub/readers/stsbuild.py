"""Building, reading and describing the Hub's STS format (Session Trace Simple Format).

STS is what tracepub writes for stores that are not JSONL (OpenCode, Hermes): a header line
``{"type":"session","harness":…,"id":…}`` then ``{"type":"message","message":{role, content,
reasoningContent?, toolCalls?:[{id, function:{name, arguments:"<JSON string>"}}], toolCallId?,
timestamp? (epoch ms), model?}}`` lines. The source's own fields are kept beside the STS fields
under one extra key named after the harness (``"opencode"``, ``"hermes"``), which STS readers
ignore, so nothing in the source is lost.
"""

from __future__ import annotations

import json
from typing import Any

from tracepub.model import SessionInfo
from tracepub.readers.base import fold_time

ROLES = ("user", "assistant", "system", "tool")


def session_line(harness: str, id_: str, name: Any = None, **extra: Any) -> dict:
    line: dict[str, Any] = {"type": "session", "harness": harness, "id": id_}
    if isinstance(name, str) and name:
        line["name"] = name
    line.update(extra)
    return line


def message_line(message: dict, **extra: Any) -> dict:
    line: dict[str, Any] = {"type": "message", "message": message}
    line.update(extra)
    return line


def arguments_text(arguments: Any) -> str:
    """STS tool arguments are a JSON string; an object is encoded, a string kept as it is."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps({} if arguments is None else arguments, ensure_ascii=False)


def tool_call(id_: Any, name: Any, arguments: Any, **extra: Any) -> dict:
    return {
        "id": "" if id_ is None else str(id_),
        "function": {"name": "" if name is None else str(name), "arguments": arguments_text(arguments)},
        **extra,
    }


def epoch_ms(ts: Any) -> int | None:
    """STS timestamps are epoch milliseconds; sources use seconds (float) or milliseconds."""
    if isinstance(ts, bool) or not isinstance(ts, (int, float)):
        return None
    return int(round(ts * 1000)) if ts < 1e11 else int(ts)


def is_sts_header(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "session" and "harness" in value


def is_prose(record: Any, path: tuple) -> bool:
    """User and assistant text: ``message.content`` (or its text parts) and ``reasoningContent``."""
    if (
        not isinstance(record, dict)
        or record.get("type") != "message"
        or len(path) < 2
        or path[0] != "message"
    ):
        return False
    msg = record.get("message")
    if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
        return False
    if path[1] == "reasoningContent":
        return len(path) == 2
    if path[1] == "content":
        return len(path) == 2 or (len(path) == 4 and path[3] == "text")
    return False


def describe(record: Any, info: SessionInfo) -> None:
    """Fold one STS line into a session description."""
    if not isinstance(record, dict):
        return
    if record.get("type") == "session":
        if isinstance(record.get("id"), str) and record["id"]:
            info.id = record["id"]
        for key in ("cwd", "directory", "project"):
            if info.project is None and isinstance(record.get(key), str):
                info.project = record[key]
        fold_time(info, record.get("timestamp"))
        return
    msg = record.get("message")
    if record.get("type") != "message" or not isinstance(msg, dict):
        return
    if msg.get("role") in ("user", "assistant"):
        info.messages += 1
    calls = msg.get("toolCalls")
    if isinstance(calls, list):
        info.tool_calls += len(calls)
    fold_time(info, msg.get("timestamp"))
