"""Codex CLI: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` and ``archived_sessions/``.

Two layouts, both written back line for line:

- current: every line is an envelope ``{"timestamp", "type", "payload"}`` (``session_meta``
  first, then ``response_item``, ``event_msg``, ``turn_context``, ``compacted``…);
- legacy (early Rust builds, flat ``sessions/rollout-YYYY-MM-DD-<uuid>.jsonl``): the first line
  is a bare ``SessionMeta`` (+ ``git``), then bare ``ResponseItem`` lines (``{"type":"message",
  "role":…}``) and ``{"record_type":"state"}`` lines.

``function_call.arguments`` is JSON inside a string; the walker decodes, redacts and encodes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracepub.model import SessionInfo
from tracepub.readers.base import JsonlReader, fold_time, head_lines

ENVELOPE_TYPES = {
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "world_state",
    "inter_agent_communication",
}
ITEM_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "ghost_snapshot",
    "compaction",
    "tool_search_call",
    "tool_search_output",
    "image_generation_call",
}
TOOL_CALL_TYPES = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call"}
# Text Codex injects as "user" messages; not the person's own words.
_INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md",
    "<INSTRUCTIONS>",
    "<turn_aborted>",
)


def codex_home(env: dict[str, str], home: Path) -> Path:
    return Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else home / ".codex"


def _is_envelope(v: Any) -> bool:
    return isinstance(v, dict) and v.get("type") in ENVELOPE_TYPES and "payload" in v


def _is_legacy_meta(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and "type" not in v
        and "id" in v
        and "timestamp" in v
        and ("instructions" in v or "git" in v or "cwd" in v or "originator" in v)
    )


def _is_legacy_item(v: Any) -> bool:
    if not isinstance(v, dict):
        return False
    if v.get("record_type") == "state":
        return True
    return v.get("type") in ITEM_TYPES and "payload" not in v and "message" not in v


class Codex(JsonlReader):
    name = "codex"
    label = "Codex CLI"

    def sniff(self, path: Path, head: bytes) -> bool:
        lines = head_lines(head, 6)
        if not lines:
            return False
        if _is_envelope(lines[0]):
            return all(_is_envelope(v) or not isinstance(v, dict) or "payload" in v for v in lines)
        if _is_legacy_meta(lines[0]):
            return all(_is_legacy_item(v) for v in lines[1:])
        return False

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        base = codex_home(env, home)
        return [base / "sessions", base / "archived_sessions"]

    def relpath(self, path: Path, root: Path) -> str:
        parts = path.parts
        for i in range(len(parts) - 2, -1, -1):
            if parts[i] in ("sessions", "archived_sessions"):
                return Path(*parts[i:]).as_posix()
        return super().relpath(path, root)

    def describe(self, record: dict, info: SessionInfo) -> None:
        fold_time(info, record.get("timestamp"))
        if _is_envelope(record):
            kind, payload = record["type"], record["payload"]
            if not isinstance(payload, dict):
                return
        elif _is_legacy_meta(record):
            kind, payload = "session_meta", record
        else:
            kind, payload = "response_item", record
        if kind == "session_meta":
            if isinstance(payload.get("id"), str):
                info.id = payload["id"]
            if info.project is None and isinstance(payload.get("cwd"), str):
                info.project = payload["cwd"]
            fold_time(info, payload.get("timestamp"))
        elif kind == "turn_context":
            if info.project is None and isinstance(payload.get("cwd"), str):
                info.project = payload["cwd"]
        elif kind == "response_item":
            t = payload.get("type")
            if t in TOOL_CALL_TYPES:
                info.tool_calls += 1
            elif t == "message" and payload.get("role") in ("user", "assistant") and not _injected(payload):
                info.messages += 1

    def is_prose(self, record: Any, path: tuple) -> bool:
        if not isinstance(record, dict):
            return False
        if _is_envelope(record):
            if not path or path[0] != "payload" or not isinstance(record["payload"], dict):
                return False
            kind, payload, path = record["type"], record["payload"], path[1:]
        else:
            kind, payload = "response_item", record
        t = payload.get("type")
        if kind == "event_msg":
            return (t in ("user_message", "agent_message") and path == ("message",)) or (
                t == "agent_reasoning" and path == ("text",)
            )
        if kind != "response_item":
            return False
        if t == "message" and payload.get("role") in ("user", "assistant") and not _injected(payload):
            return len(path) == 3 and path[0] == "content" and path[2] == "text"
        if t == "reasoning":
            return len(path) == 3 and path[0] == "summary" and path[2] == "text"
        return False


def _injected(payload: dict) -> bool:
    content = payload.get("content")
    if not isinstance(content, list) or not content:
        return False
    first = content[0]
    text = first.get("text") if isinstance(first, dict) else None
    return isinstance(text, str) and text.lstrip().startswith(_INJECTED)
