"""Claude Code: ``~/.claude/projects/<encoded cwd>/<session>.jsonl`` (+ ``subagents/``).

Every line has a ``type``; user/assistant lines carry ``sessionId``, ``cwd``, ``message``.
Subagent transcripts have the same shape; their ``agent-<id>.meta.json`` sidecars are small
JSON documents written back as they are (redacted).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracepub.model import SessionInfo, Unit
from tracepub.readers.base import JsonDocReader, JsonlReader, head_document, head_lines, iter_jsonl, size_of

_TYPES = {
    "user",
    "assistant",
    "summary",
    "system",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "ai-title",
    "custom-title",
    "progress",
    "permission-mode",
    "mode",
    "last-prompt",
    "worktree-state",
    "pr-link",
    "agent-setting",
}


def _claude_line(v: dict) -> bool:
    kind = v.get("type")
    if kind in ("user", "assistant", "system", "attachment", "progress"):
        return "sessionId" in v and "uuid" in v
    if kind == "summary":
        return "leafUuid" in v
    if kind == "file-history-snapshot":
        return "messageId" in v and "snapshot" in v
    return kind in _TYPES and "sessionId" in v


def _relpath(path: Path, root: Path) -> str | None:
    """Under ``projects/``: ``<encoded cwd>/<session>.jsonl`` (subagents one level deeper)."""
    parts = path.parts
    if "projects" in parts[:-1]:
        i = len(parts) - 2 - parts[-2::-1].index("projects")
        return Path(*parts[i + 1 :]).as_posix()
    return None


class ClaudeCode(JsonlReader):
    name = "claude_code"
    label = "Claude Code"

    def sniff(self, path: Path, head: bytes) -> bool:
        # Every line has a string ``type``; at least one carries Claude's envelope. Unknown
        # ``type`` values are allowed: Claude Code adds record types over time.
        lines = head_lines(head, 8)
        if not lines or not all(isinstance(v, dict) and isinstance(v.get("type"), str) for v in lines):
            return False
        return any(_claude_line(v) for v in lines)

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        base = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
        return [base / "projects"]

    def relpath(self, path: Path, root: Path) -> str:
        return _relpath(path, root) or super().relpath(path, root)

    def info(self, unit: Unit) -> SessionInfo:
        info = SessionInfo(self.name, Path(unit.relpath).stem, size=size_of(unit.source))
        seen: set[str] = set()
        for rec in iter_jsonl(unit.source, []):
            if not rec.raw_text and isinstance(rec.value, dict):
                self.describe(rec.value, info, seen)
        return info

    def describe(self, record: dict, info: SessionInfo, seen: set[str] | None = None) -> None:
        """One assistant response is written as one line per content block, all sharing
        ``message.id``: it counts once (``seen`` holds the ids met so far)."""
        super().describe(record, info)
        if info.project is None and isinstance(record.get("cwd"), str):
            info.project = record["cwd"]
        if isinstance(record.get("sessionId"), str) and info.id != record["sessionId"]:
            if not record.get("agentId"):
                info.id = record["sessionId"]
            elif info.parent is None:  # a subagent transcript: it belongs to its session
                info.parent = record["sessionId"]
        kind = record.get("type")
        if kind not in ("user", "assistant") or record.get("isMeta"):
            return
        msg = record.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        blocks = content if isinstance(content, list) else []
        info.tool_calls += sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use")
        if blocks and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
            return
        mid = msg.get("id") if kind == "assistant" and isinstance(msg, dict) else None
        if isinstance(mid, str) and seen is not None:
            if mid in seen:
                return
            seen.add(mid)
        info.messages += 1

    def is_prose(self, record: Any, path: tuple) -> bool:
        # The path first: it rules out nearly every string (the walker asks for each) without
        # a look into the record.
        n = len(path)
        if n == 1:  # a summary record's summary
            return path[0] == "summary" and isinstance(record, dict) and record.get("type") == "summary"
        # message.content (a string) or message.content[i].text / .thinking
        if n != 2 and (n != 4 or path[3] not in ("text", "thinking")):
            return False
        if path[0] != "message" or path[1] != "content" or not isinstance(record, dict):
            return False
        return record.get("type") in ("user", "assistant") and not record.get("isMeta")

    def prose_strings(self, record: Any) -> list[str]:
        """The strings ``is_prose`` accepts, in the order a walk meets them, read where they can
        be instead of walking the whole record (tool output is most of it)."""
        if not isinstance(record, dict):
            return []
        kind = record.get("type")
        if kind == "summary":
            summary = record.get("summary")
            return [summary] if isinstance(summary, str) else []
        if kind not in ("user", "assistant") or record.get("isMeta"):
            return []
        msg = record.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, str):
            return [content]
        if not isinstance(content, list):
            return []
        return [
            v
            for block in content
            if isinstance(block, dict)
            for k, v in block.items()
            if isinstance(v, str) and k in ("text", "thinking")
        ]


class ClaudeCodeMeta(JsonDocReader):
    """``agent-<id>.meta.json`` beside a subagent transcript."""

    name = "claude_code"
    label = "Claude Code (subagent metadata)"

    def sniff(self, path: Path, head: bytes) -> bool:
        # By content: a small object naming the subagent's type and the tool call that spawned it.
        doc = head_document(path, head)
        return (
            isinstance(doc, dict)
            and "agentType" in doc
            and ("toolUseId" in doc or "description" in doc)
            and len(doc) <= 12
        )

    def relpath(self, path: Path, root: Path) -> str:
        return _relpath(path, root) or super().relpath(path, root)

    def info(self, unit: Unit) -> SessionInfo:  # sidecars are not sessions of their own
        return SessionInfo(self.name, Path(unit.relpath).name, size=size_of(unit.source))
