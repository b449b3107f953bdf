"""Hermes agent: ``$HERMES_HOME/state.db``, ``sessions/session_*.json``, ``trajectory_samples.jsonl``.

- ``state.db`` (SQLite, the source of truth): one STS file per session. The header's
  ``"hermes"`` key holds the ``sessions`` row verbatim (and the session's system prompt text
  from ``system_prompts`` when the row refers to it by hash). Each ``messages`` row becomes one
  STS message: ``role``, ``content``, ``tool_call_id`` (→ ``toolCallId``), ``tool_calls``
  (JSON text of OpenAI tool calls → ``toolCalls``, each kept as it was, so ``function.arguments``
  stays a JSON string) and ``reasoning`` (→ ``reasoningContent``) are carried over; every other
  column (and any of those that could not be carried over unchanged) is kept under ``"hermes"``.
- ``sessions/session_<id>.json`` (a per-session log, ShareGPT turns with XML tool tags): one
  STS file per session; every turn is kept verbatim under ``"hermes"`` on the first STS line made
  from it, ``<think>`` becomes ``reasoningContent``, ``<tool_call>`` blocks ``toolCalls`` and
  ``<tool_response>`` blocks ``tool`` messages. When ``state.db`` is read in the same run and
  holds the same session, the log is a duplicate and is left out (``store_rank``).
- ``trajectory_samples.jsonl`` / ``failed_trajectories.jsonl``: written back line for line.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from tracepub.model import Problem, Record, SessionInfo, Unit
from tracepub.readers import sqlite as sq
from tracepub.readers import stsbuild as sts
from tracepub.readers.base import (
    JsonlReader,
    Reader,
    fold_time,
    head_document,
    head_lines,
    size_of,
)
from tracepub.walk.walker import loads

HARNESS = "hermes"
_SAFE = re.compile(r"[^A-Za-z0-9._-]")
_MESSAGE_COLUMNS = {"session_id", "role", "content", "tool_calls"}


def hermes_home(env: dict[str, str], home: Path) -> Path:
    return Path(env["HERMES_HOME"]).expanduser() if env.get("HERMES_HOME") else home / ".hermes"


def _filename(session_id: str) -> str:
    return _SAFE.sub("_", session_id) + ".jsonl"


# -- state.db ------------------------------------------------------------------------------------
class HermesDb(Reader):
    name = HARNESS
    label = "Hermes (state.db)"
    suffixes = (".db",)
    store_rank = 0

    def sniff(self, path: Path, head: bytes) -> bool:
        if not sq.sniff_tables(path, head, {"sessions", "messages"}, ("state.db",)):
            return False
        try:
            with closing(sq.connect(path)) as con:
                return _MESSAGE_COLUMNS <= set(sq.columns(con, "messages"))
        except sqlite3.Error:
            return True  # claimed by its name; units() reports why it cannot be read

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        return [hermes_home(env, home) / "state.db"]

    def units(self, path: Path, root: Path) -> Iterator[Unit]:
        with closing(sq.connect(path)) as con:
            missing = {"sessions", "messages"} - sq.tables(con)
            if missing:
                raise sqlite3.DatabaseError(f"no {', '.join(sorted(missing))} table")
            order = "started_at, id" if "started_at" in sq.columns(con, "sessions") else "id"
            for row in con.execute(f"SELECT id FROM sessions ORDER BY {order}"):
                sid = str(row[0])
                yield Unit(
                    self.name,
                    path,
                    _filename(sid),
                    "jsonl",
                    key=sid,
                    deps=(path,),
                    reader=type(self).__name__,
                )

    def records(self, unit: Unit, problems: list[Problem]) -> Iterator[Record]:
        with closing(sq.connect(unit.source)) as con:
            row = con.execute("SELECT * FROM sessions WHERE id = ?", (unit.key,)).fetchone()
            if row is None:
                raise LookupError(f"session {unit.key} is no longer in the database")
            session = sq.row_dict(row)
            extra: dict[str, Any] = {"session": session}
            phash = session.get("system_prompt_hash")
            if phash and "system_prompts" in sq.tables(con):
                prow = con.execute("SELECT * FROM system_prompts WHERE hash = ?", (phash,)).fetchone()
                if prow is not None:
                    extra["system_prompt"] = sq.row_dict(prow)
            n = 1
            yield Record(
                n, sts.session_line(HARNESS, str(session.get("id")), session.get("title"), hermes=extra)
            )
            cur = con.cursor()
            cur.execute("SELECT * FROM messages WHERE session_id = ? ORDER BY id", (unit.key,))
            for mrow in cur:
                n += 1
                yield Record(n, message_from_row(sq.row_dict(mrow)))

    def info(self, unit: Unit) -> SessionInfo:
        info = SessionInfo(self.name, unit.key or "")
        with closing(sq.connect(unit.source)) as con:
            row = con.execute("SELECT * FROM sessions WHERE id = ?", (unit.key,)).fetchone()
            if row is None:
                return info
            s = sq.row_dict(row)
            info.project = s.get("cwd") if isinstance(s.get("cwd"), str) else None
            # compression, branch and delegate continuations: one session for selection and drops
            parent = s.get("parent_session_id")
            info.parent = str(parent) if parent else None
            fold_time(info, s.get("started_at"))
            fold_time(info, s.get("ended_at"))
            for role, content, calls, ts in con.execute(
                "SELECT role, content, tool_calls, timestamp FROM messages WHERE session_id = ?", (unit.key,)
            ):
                info.size += len(content or "") + len(calls or "")
                if role in ("user", "assistant"):
                    info.messages += 1
                if calls:
                    parsed = _parse_calls(calls)
                    info.tool_calls += len(parsed) if parsed is not None else 0
                fold_time(info, ts)
        return info

    def is_prose(self, record: Any, path: tuple) -> bool:
        return sts.is_prose(record, path)


def _parse_calls(text: Any) -> list | None:
    if not isinstance(text, str):
        return None
    try:
        value = loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def message_from_row(row: dict) -> dict:
    """A ``messages`` row as an STS message line; columns not carried over stay under ``hermes``."""
    extra = dict(row)
    msg: dict[str, Any] = {"role": str(extra.pop("role", "") or "")}
    content = extra.get("content")
    if isinstance(content, str):
        msg["content"] = extra.pop("content")
    else:
        msg["content"] = ""
    calls = _parse_calls(extra.get("tool_calls"))
    if calls is not None and all(
        isinstance(c, dict)
        and isinstance(c.get("function"), dict)
        and isinstance(c["function"].get("arguments", ""), str)
        for c in calls
    ):
        msg["toolCalls"] = calls
        del extra["tool_calls"]
    if isinstance(extra.get("tool_call_id"), str):
        msg["toolCallId"] = extra.pop("tool_call_id")
    for col in ("reasoning", "reasoning_content"):
        if isinstance(extra.get(col), str) and extra[col] and "reasoningContent" not in msg:
            msg["reasoningContent"] = extra.pop(col)
    ts = sts.epoch_ms(extra.get("timestamp"))
    if ts is not None:
        msg["timestamp"] = ts  # the original (epoch seconds, float) stays under "hermes"
    return sts.message_line(msg, hermes=extra)


# -- sessions/session_<id>.json ------------------------------------------------------------------
_THINK = re.compile(r"<think>\n?(.*?)\n?</think>\n?", re.S)
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
_TOOL_RESPONSE = re.compile(r"<tool_response>\s*(.*?)\s*</tool_response>", re.S)
_ROLES = {
    "system": "system",
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
    "observation": "tool",
}


def _json_or_none(text: str) -> Any:
    try:
        return loads(text)
    except (ValueError, RecursionError):
        return None


def sharegpt_to_sts(turns: list, key: str = HARNESS) -> Iterator[dict]:
    """ShareGPT turns with Hermes' XML tool tags as STS message lines (each turn kept under ``key``)."""
    pending: list[str] = []
    for i, turn in enumerate(turns):
        if not isinstance(turn, dict):
            yield sts.message_line({"role": "user", "content": ""}, **{key: turn})
            continue
        raw = turn.get("value")
        value = raw if isinstance(raw, str) else ""
        role = _ROLES.get(str(turn.get("from")), str(turn.get("from")))
        if role == "assistant":
            msg: dict[str, Any] = {"role": role}
            thoughts = [m.strip() for m in _THINK.findall(value)]
            text = _TOOL_CALL.sub("", _THINK.sub("", value)).strip()
            msg["content"] = text
            if any(thoughts):
                msg["reasoningContent"] = "\n\n".join(t for t in thoughts if t)
            calls = []
            pending = []
            for j, block in enumerate(_TOOL_CALL.findall(value)):
                call = _json_or_none(block)
                cid = f"call_{i}_{j}"
                if isinstance(call, dict):
                    cid = str(call.get("id") or cid)
                    calls.append(sts.tool_call(cid, call.get("name"), call.get("arguments")))
                else:
                    calls.append(sts.tool_call(cid, "", block))
                pending.append(cid)
            if calls:
                msg["toolCalls"] = calls
            yield sts.message_line(msg, **{key: turn})
        elif role == "tool":
            blocks = _TOOL_RESPONSE.findall(value) or [value]
            for j, block in enumerate(blocks):
                resp = _json_or_none(block)
                content: Any = block
                cid = pending[j] if j < len(pending) else ""
                if isinstance(resp, dict) and "content" in resp:
                    cid = str(resp.get("tool_call_id") or cid)
                    content = resp["content"]
                msg = {
                    "role": "tool",
                    "toolCallId": cid,
                    "content": content
                    if isinstance(content, str)
                    else json.dumps(content, ensure_ascii=False),
                }
                yield sts.message_line(msg, **({key: turn} if j == 0 else {}))
        else:
            yield sts.message_line({"role": role, "content": value}, **{key: turn})


class HermesSessionLog(Reader):
    name = HARNESS
    label = "Hermes (session log)"
    suffixes = (".json",)
    store_rank = 1

    def sniff(self, path: Path, head: bytes) -> bool:
        doc = head_document(path, head)
        return (
            isinstance(doc, dict)
            and "session_id" in doc
            and isinstance(doc.get("conversations"), list)
            and all(isinstance(t, dict) and "from" in t for t in doc["conversations"][:3])
        )

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        return [hermes_home(env, home) / "sessions"]

    def units(self, path: Path, root: Path) -> Iterator[Unit]:
        doc = loads(path.read_text(encoding="utf-8", errors="replace"))
        sid = str(doc.get("session_id") or path.stem)
        yield Unit(
            self.name, path, _filename(sid), "jsonl", key=sid, deps=(path,), reader=type(self).__name__
        )

    def records(self, unit: Unit, problems: list[Problem]) -> Iterator[Record]:
        raw = unit.source.read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(
                Problem(str(unit.source), None, f"invalid UTF-8 ({exc.reason}); bad bytes replaced")
            )
            text = raw.decode("utf-8", "replace")
        doc = loads(text)
        header = {k: v for k, v in doc.items() if k != "conversations"}
        yield Record(
            1, sts.session_line(HARNESS, str(doc.get("session_id") or unit.key), None, hermes=header)
        )
        for n, line in enumerate(sharegpt_to_sts(doc.get("conversations") or []), 2):
            yield Record(n, line)

    def info(self, unit: Unit) -> SessionInfo:
        info = SessionInfo(self.name, unit.key or unit.source.stem, size=size_of(unit.source))
        try:
            doc = loads(unit.source.read_text(encoding="utf-8", errors="replace"))
        except (OSError, ValueError):
            return info
        fold_time(info, doc.get("session_start"))
        fold_time(info, doc.get("last_updated"))
        for turn in doc.get("conversations") or []:
            if isinstance(turn, dict) and turn.get("from") in ("human", "gpt"):
                info.messages += 1
                if isinstance(turn.get("value"), str):
                    info.tool_calls += turn["value"].count("<tool_call>")
        return info

    def is_prose(self, record: Any, path: tuple) -> bool:
        return sts.is_prose(record, path)


# -- trajectory_samples.jsonl ----------------------------------------------------------------------
class HermesTrajectories(JsonlReader):
    """Training trajectories: ``{conversations, timestamp, model, completed}`` per line."""

    name = HARNESS
    label = "Hermes (trajectories)"

    def sniff(self, path: Path, head: bytes) -> bool:
        lines = head_lines(head, 3)
        return bool(lines) and all(
            isinstance(v, dict) and isinstance(v.get("conversations"), list) and "completed" in v
            for v in lines
        )

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        base = hermes_home(env, home)
        return [base / "trajectory_samples.jsonl", base / "failed_trajectories.jsonl"]

    def describe(self, record: dict, info: SessionInfo) -> None:
        super().describe(record, info)
        for turn in record.get("conversations") or []:
            if isinstance(turn, dict) and turn.get("from") in ("human", "gpt"):
                info.messages += 1
                if isinstance(turn.get("value"), str):
                    info.tool_calls += turn["value"].count("<tool_call>")

    def is_prose(self, record: Any, path: tuple) -> bool:
        return sharegpt_prose(record, path)


def sharegpt_prose(record: Any, path: tuple) -> bool:
    """``conversations[i].value`` of a human or gpt turn."""
    if len(path) != 3 or path[0] != "conversations" or path[2] != "value" or not isinstance(record, dict):
        return False
    turns = record.get("conversations")
    i = path[1]
    if (
        not isinstance(turns, list)
        or not isinstance(i, int)
        or i >= len(turns)
        or not isinstance(turns[i], dict)
    ):
        return False
    return turns[i].get("from") in ("human", "gpt", "user", "assistant")
