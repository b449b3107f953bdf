"""pi coding agent: ``$PI_CODING_AGENT_DIR/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl``.

The first line is a header ``{"type":"session","version":3,"id","timestamp","cwd"}`` (v1 had
no version and carried ``provider``/``modelId``); every other line is a tree entry with ``id``
and ``parentId``. A header *with* a ``harness`` key is the Hub's STS format instead (the
generic STS reader). Written back line for line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracepub.model import SessionInfo
from tracepub.readers.base import JsonlReader, fold_time, head_lines

ENTRY_TYPES = {
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
}


def agent_dir(env: dict[str, str], home: Path) -> Path:
    if env.get("PI_CODING_AGENT_DIR"):
        return Path(env["PI_CODING_AGENT_DIR"]).expanduser()
    return home / ".pi" / "agent"


class Pi(JsonlReader):
    name = "pi"
    label = "pi"

    def sniff(self, path: Path, head: bytes) -> bool:
        lines = head_lines(head, 4)
        if not lines:
            return False
        first = lines[0]
        if not isinstance(first, dict) or first.get("type") != "session" or "harness" in first:
            return False
        if not ("cwd" in first or "version" in first):
            return False
        # Tree entries carry a parentId (v2+; the first one's is null) or a known entry type (v1).
        return all(
            isinstance(v, dict)
            and isinstance(v.get("type"), str)
            and ("parentId" in v or v["type"] in ENTRY_TYPES)
            for v in lines[1:]
        )

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        return [agent_dir(env, home) / "sessions"]

    def relpath(self, path: Path, root: Path) -> str:
        parts = path.parts
        for i in range(len(parts) - 2, -1, -1):
            if parts[i] == "sessions":
                return Path(*parts[i + 1 :]).as_posix()
        return super().relpath(path, root)

    def describe(self, record: dict, info: SessionInfo) -> None:
        fold_time(info, record.get("timestamp"))
        kind = record.get("type")
        if kind == "session":
            if isinstance(record.get("id"), str):
                info.id = record["id"]
            if isinstance(record.get("cwd"), str):
                info.project = record["cwd"]
            return
        msg = record.get("message")
        if kind != "message" or not isinstance(msg, dict):
            return
        role = msg.get("role")
        if role in ("user", "assistant"):
            info.messages += 1
        content = msg.get("content")
        if role == "assistant" and isinstance(content, list):
            info.tool_calls += sum(1 for b in content if isinstance(b, dict) and b.get("type") == "toolCall")

    def is_prose(self, record: Any, path: tuple) -> bool:
        if not isinstance(record, dict) or record.get("type") != "message":
            return False
        msg = record.get("message")
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            return False
        if len(path) < 2 or path[:2] != ("message", "content"):
            return False
        return len(path) == 2 or (len(path) == 4 and path[3] in ("text", "thinking"))
