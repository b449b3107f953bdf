"""Gemini CLI: ``~/.gemini/tmp/<project>/chats/session-*.jsonl`` (and legacy ``session-*.json``).

JSONL (since Apr 2026): a metadata line ``{sessionId, projectHash, startTime, lastUpdated,
kind}``, then message records (``{id, timestamp, type, content, …}``; the same ``id`` is
appended again whenever the message changes, the last one wins), ``{"$set": {…}}`` metadata
updates (``$set.messages`` replaces all messages) and ``{"$rewindTo": id}`` lines. Every line is
written back as it is, line for line: the file is the record, with its history.

Legacy: one pretty-printed ``ConversationRecord`` document, written back as one document.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tracepub.model import SessionInfo, Unit
from tracepub.readers.base import (
    JsonDocReader,
    JsonlReader,
    fold_time,
    head_document,
    head_lines,
    inside,
    iter_jsonl,
    size_of,
)

MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")


def _is_meta(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and "sessionId" in v
        and "type" not in v
        and ("projectHash" in v or "startTime" in v)
    )


def _is_line(v: Any) -> bool:
    return isinstance(v, dict) and (
        "$set" in v or "$rewindTo" in v or ("id" in v and v.get("type") in MESSAGE_TYPES)
    )


def project_dir(path: Path) -> Path | None:
    """``tmp/<project>`` for ``tmp/<project>/chats/…`` (subagents live one folder deeper)."""
    parts = path.parts
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "chats":
            return Path(*parts[:i])
    return None


_HASH = re.compile(r"[0-9a-f]{64}")


def project_root(path: Path) -> str | None:
    """The working folder: ``<project>/.project_root`` holds it (newer CLIs). A marker that is a
    symlink to somewhere outside the project folder is not read (``inside``). Without a marker,
    the folder's own name when it is one (the CLI names ``tmp/<project>`` after the working
    folder; older ones after its sha256, which says nothing): ``--project acme-api`` then finds
    the sessions of ``~/.gemini/tmp/acme-api``, which it silently left out."""
    proj = project_dir(path)
    if proj is None:
        return None
    if not os.path.lexists(proj / ".project_root"):  # no marker at all: the folder's name, if it is one
        return proj.name if proj.parent.name == "tmp" and not _HASH.fullmatch(proj.name) else None
    marker = inside(proj, ".project_root")  # a marker linked out of the tree is not read, nor guessed past
    if marker is None:
        return None
    try:
        text = marker.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text or None


def chats_folders(home: Path) -> list[Path]:
    """``~/.gemini/tmp/<project>/chats``: the rest of a project's temp folder is logs,
    checkpoints and shell history, not sessions."""
    tmp = home / ".gemini" / "tmp"
    return sorted(tmp.glob("*/chats")) if tmp.is_dir() else []


def _relpath(path: Path, root: Path) -> str:
    """Relative to ``tmp/``: ``<project>/chats/session-….jsonl``."""
    proj = project_dir(path)
    if proj is not None:
        return path.relative_to(proj.parent).as_posix()
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


class _Fold:
    """The conversation as the CLI would load it: messages by id, checkpoints, rewinds."""

    def __init__(self) -> None:
        self.messages: dict[str, tuple[Any, int]] = {}

    def message(self, m: dict) -> None:
        calls = m.get("toolCalls")
        self.messages[str(m.get("id"))] = (m.get("type"), len(calls) if isinstance(calls, list) else 0)

    def line(self, v: dict, info: SessionInfo) -> None:
        if "$set" in v and isinstance(v["$set"], dict):
            s = v["$set"]
            fold_time(info, s.get("lastUpdated"))
            if isinstance(s.get("messages"), list):
                self.messages.clear()
                for m in s["messages"]:
                    if isinstance(m, dict):
                        self.message(m)
        elif "$rewindTo" in v:
            target = str(v["$rewindTo"])
            if target in self.messages:
                keys = list(self.messages)
                for k in keys[keys.index(target) :]:
                    del self.messages[k]
        elif "id" in v:
            self.message(v)
            fold_time(info, v.get("timestamp"))

    def finish(self, info: SessionInfo) -> None:
        info.messages = sum(1 for t, _ in self.messages.values() if t in ("user", "gemini"))
        info.tool_calls = sum(n for _, n in self.messages.values())


def _meta(v: dict, info: SessionInfo, path: Path | None = None) -> None:
    if isinstance(v.get("sessionId"), str):
        info.id = v["sessionId"]
    # subagents: chats/<parent session id>/<session id>.jsonl
    if v.get("kind") == "subagent" and path is not None and path.parent.name != "chats":
        info.parent = path.parent.name
    fold_time(info, v.get("startTime"))
    fold_time(info, v.get("lastUpdated"))
    dirs = v.get("directories")
    if info.project is None and isinstance(dirs, list) and dirs and isinstance(dirs[0], str):
        info.project = dirs[0]


def message_prose(msg: Any, path: tuple) -> bool:
    """User/model text inside one message record (``path`` relative to the message)."""
    if not isinstance(msg, dict) or msg.get("type") not in ("user", "gemini") or not path:
        return False
    if path[0] in ("content", "displayContent"):
        return len(path) == 1 or (len(path) == 3 and path[2] == "text")
    if path[0] == "thoughts":
        return len(path) == 3 and path[2] in ("subject", "description")
    return False


def _at(value: Any, index: Any) -> Any:
    if isinstance(value, list) and isinstance(index, int) and index < len(value):
        return value[index]
    return None


class GeminiCli(JsonlReader):
    name = "gemini_cli"
    label = "Gemini CLI"

    def sniff(self, path: Path, head: bytes) -> bool:
        lines = head_lines(head, 5)
        return bool(lines) and _is_meta(lines[0]) and all(_is_line(v) for v in lines[1:])

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        return chats_folders(home)

    def relpath(self, path: Path, root: Path) -> str:
        return _relpath(path, root)

    def info(self, unit: Unit) -> SessionInfo:
        info = SessionInfo(self.name, Path(unit.relpath).stem, size=size_of(unit.source))
        fold = _Fold()
        for rec in iter_jsonl(unit.source, []):
            v = rec.value
            if rec.raw_text or not isinstance(v, dict):
                continue
            if _is_meta(v):
                _meta(v, info, unit.source)
            else:
                fold.line(v, info)
        fold.finish(info)
        if info.project is None:
            info.project = project_root(unit.source)
        return info

    def is_prose(self, record: Any, path: tuple) -> bool:
        if not isinstance(record, dict) or not path:
            return False
        if path[0] == "$set":
            if len(path) < 3 or path[1] != "messages":
                return False
            s = record.get("$set")
            return message_prose(_at(s.get("messages") if isinstance(s, dict) else None, path[2]), path[3:])
        return message_prose(record, path)


class GeminiCliLegacy(JsonDocReader):
    """The pre-April-2026 single JSON ``ConversationRecord``."""

    name = "gemini_cli"
    label = "Gemini CLI (legacy JSON)"

    def sniff(self, path: Path, head: bytes) -> bool:
        doc = head_document(path, head)
        return (
            isinstance(doc, dict)
            and "sessionId" in doc
            and isinstance(doc.get("messages"), list)
            and ("projectHash" in doc or "startTime" in doc)
        )

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        return chats_folders(home)

    def relpath(self, path: Path, root: Path) -> str:
        return _relpath(path, root)

    def describe(self, doc: Any, info: SessionInfo) -> None:
        if not isinstance(doc, dict):
            return
        _meta(doc, info)
        fold = _Fold()
        for m in doc.get("messages") or []:
            if isinstance(m, dict):
                fold.message(m)
                fold_time(info, m.get("timestamp"))
        fold.finish(info)

    def info(self, unit: Unit) -> SessionInfo:
        info = super().info(unit)
        if info.project is None:
            info.project = project_root(unit.source)
        return info

    def is_prose(self, record: Any, path: tuple) -> bool:
        if not isinstance(record, dict) or len(path) < 3 or path[0] != "messages":
            return False
        return message_prose(_at(record.get("messages"), path[1]), path[2:])
