"""OpenCode: ``$XDG_DATA_HOME/opencode/opencode.db`` (SQLite) and the legacy ``storage/`` tree.

Both are written as one STS JSONL file per session (``stsbuild``). The first line is the
session header; its ``"opencode"`` key holds the source verbatim: ``session`` (the DB row or
the legacy document), ``project``, ``todos``. Each OpenCode message becomes one STS message
(its text parts joined as ``content``, reasoning parts as ``reasoningContent``, tool parts as
``toolCalls`` with ``state.input`` encoded as the JSON-string ``arguments``) followed by one
``tool`` message per finished tool part (``state.output`` or ``state.error``). The message line's
``"opencode"`` key holds the source verbatim: ``message`` and ``parts`` (DB rows with their
``data`` JSON column parsed, or the legacy documents). The STS fields are a view; the originals
are the record, so nothing is lost and the text that appears in both is redacted the same way.

The share secret (``session_share`` table / ``storage/session_share/``) is not read: it is a
credential for managing a public share link, not part of the conversation.

When the DB and a legacy tree hold the same session (OpenCode migrates ``storage/`` into the
DB once), discovery keeps the DB's copy (``store_rank``); sessions only in the tree are read.
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
from tracepub.readers.base import Reader, fold_time, inside, size_of
from tracepub.walk.walker import loads

HARNESS = "opencode"
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def data_root(env: dict[str, str], home: Path) -> Path:
    base = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    return base / "opencode"


def _filename(session_id: str) -> str:
    return _SAFE.sub("_", session_id) + ".jsonl"


def _parse(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return loads(text)
    except (ValueError, RecursionError):
        return text


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def convert(info: Any, parts: list[Any], original: dict) -> list[dict]:
    """One OpenCode message (info + parts) as STS lines: the message, then tool results."""
    info = _dict(info)
    dparts = [p for p in parts if isinstance(p, dict)]
    time = _dict(info.get("time"))
    texts = [p["text"] for p in dparts if p.get("type") == "text" and isinstance(p.get("text"), str)]
    reasoning = [p["text"] for p in dparts if p.get("type") == "reasoning" and isinstance(p.get("text"), str)]
    tools = [p for p in dparts if p.get("type") == "tool"]
    role = info.get("role") if isinstance(info.get("role"), str) else "assistant"
    msg: dict[str, Any] = {"role": role, "content": "\n\n".join(texts)}
    if reasoning:
        msg["reasoningContent"] = "\n\n".join(reasoning)
    calls = []
    results = []
    for p in tools:
        state = _dict(p.get("state"))
        calls.append(sts.tool_call(p.get("callID"), p.get("tool"), state.get("input")))
        status = state.get("status")
        out = (
            state.get("output")
            if status == "completed"
            else state.get("error")
            if status == "error"
            else None
        )
        if out is None:
            continue
        st_time = _dict(state.get("time"))
        result: dict[str, Any] = {
            "role": "tool",
            "toolCallId": str(p.get("callID") or ""),
            "content": out if isinstance(out, str) else json.dumps(out, ensure_ascii=False),
        }
        ts = sts.epoch_ms(st_time.get("end") or st_time.get("start"))
        if ts is not None:
            result["timestamp"] = ts
        results.append(sts.message_line(result))
    if calls:
        msg["toolCalls"] = calls
    ts = sts.epoch_ms(time.get("created"))
    if ts is not None:
        msg["timestamp"] = ts
    model = info.get("modelID")
    if not isinstance(model, str) and isinstance(info.get("model"), dict):
        model = info["model"].get("modelID")
    if isinstance(model, str):
        msg["model"] = model
    return [sts.message_line(msg, opencode=original), *results]


def _session_id(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


# -- SQLite ------------------------------------------------------------------------------------
class OpenCodeDb(Reader):
    name = HARNESS
    label = "OpenCode"
    suffixes = (".db",)
    store_rank = 0

    def sniff(self, path: Path, head: bytes) -> bool:
        return sq.sniff_tables(path, head, {"session", "message", "part"}, ("opencode.db", "opencode-*.db"))

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        root = data_root(env, home)
        out = []
        if env.get("OPENCODE_DB"):
            db = Path(env["OPENCODE_DB"]).expanduser()
            out.append(db if db.is_absolute() else root / db)  # a bare name lives in the data folder
        out.append(root / "opencode.db")
        if root.is_dir():
            out.extend(sorted(root.glob("opencode-*.db")))
        return out

    def relpath(self, path: Path, root: Path) -> str:
        return path.name

    def units(self, path: Path, root: Path) -> Iterator[Unit]:
        with closing(sq.connect(path)) as con:
            missing = {"session", "message", "part"} - sq.tables(con)
            if missing:
                raise sqlite3.DatabaseError(f"no {', '.join(sorted(missing))} table")
            for row in con.execute("SELECT id FROM session ORDER BY time_created, id"):
                sid = _session_id(row[0])
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
            have = sq.tables(con)
            row = con.execute("SELECT * FROM session WHERE id = ?", (unit.key,)).fetchone()
            if row is None:
                raise LookupError(f"session {unit.key} is no longer in the database")
            session = sq.row_dict(row)
            original: dict[str, Any] = {"session": session}
            if "project" in have and session.get("project_id") is not None:
                prow = con.execute("SELECT * FROM project WHERE id = ?", (session["project_id"],)).fetchone()
                if prow is not None:
                    original["project"] = sq.row_dict(prow)
            if "todo" in have:
                todos = [
                    sq.row_dict(r)
                    for r in con.execute(
                        "SELECT * FROM todo WHERE session_id = ? ORDER BY rowid", (unit.key,)
                    )
                ]
                if todos:
                    original["todos"] = todos
            n = 1
            yield Record(
                n,
                sts.session_line(
                    HARNESS, _session_id(session.get("id")), session.get("title"), opencode=original
                ),
            )
            rows = self._parts(con, unit.key)
            cur = con.cursor()
            cur.execute("SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id", (unit.key,))
            for mrow in cur:
                message = sq.row_dict(mrow)
                message["data"] = self._data(message, unit, problems)
                parts = [dict(r) for r in rows.get(message["id"], ())]
                for part in parts:
                    part["data"] = self._data(part, unit, problems)
                info = self._object(
                    message["data"], id=message.get("id"), sessionID=message.get("session_id")
                )
                objs = [
                    self._object(
                        p["data"],
                        id=p.get("id"),
                        sessionID=p.get("session_id"),
                        messageID=p.get("message_id"),
                    )
                    for p in parts
                ]
                for line in convert(info, objs, {"message": message, "parts": parts}):
                    n += 1
                    yield Record(n, line)

    @staticmethod
    def _parts(con: sqlite3.Connection, session: str | None) -> dict[Any, list[dict]]:
        """The session's part rows by message id, in id order: one query, not one per message
        (OpenCode has no index on ``part.message_id``: each would scan the whole table). The
        parts of one session are held at once; their ``data`` is parsed message by message."""
        out: dict[Any, list[dict]] = {}
        for prow in con.execute(
            "SELECT * FROM part WHERE message_id IN (SELECT id FROM message WHERE session_id = ?)"
            " ORDER BY message_id, id",
            (session,),
        ):
            part = sq.row_dict(prow)
            out.setdefault(part["message_id"], []).append(part)
        return out

    @staticmethod
    def _data(row: dict, unit: Unit, problems: list[Problem]) -> Any:
        value = _parse(row.get("data"))
        if isinstance(row.get("data"), str) and value is row.get("data"):
            problems.append(
                Problem(str(unit.source), None, f"row {row.get('id')}: data is not JSON; kept as text")
            )
        return value

    @staticmethod
    def _object(data: Any, **ids: Any) -> Any:
        """The MessageV2 object as OpenCode builds it: the ``data`` column plus the row's ids."""
        if not isinstance(data, dict):
            return data
        return {**ids, **data}

    def info(self, unit: Unit) -> SessionInfo:
        info = SessionInfo(self.name, unit.key or "")
        with closing(sq.connect(unit.source)) as con:
            row = con.execute("SELECT * FROM session WHERE id = ?", (unit.key,)).fetchone()
            if row is None:
                return info
            s = sq.row_dict(row)
            info.project = s.get("directory") if isinstance(s.get("directory"), str) else None
            info.parent = (
                s.get("parent_id") if isinstance(s.get("parent_id"), str) and s["parent_id"] else None
            )
            fold_time(info, s.get("time_created"))
            fold_time(info, s.get("time_updated"))
            size = 0
            for (data,) in con.execute("SELECT data FROM message WHERE session_id = ?", (unit.key,)):
                size += len(data or "")
                d = _parse(data)
                if isinstance(d, dict) and d.get("role") in ("user", "assistant"):
                    info.messages += 1
            for (data,) in con.execute("SELECT data FROM part WHERE session_id = ?", (unit.key,)):
                size += len(data or "")
                if isinstance(data, str) and '"tool"' in data:
                    d = _parse(data)
                    if isinstance(d, dict) and d.get("type") == "tool":
                        info.tool_calls += 1
            info.size = size
        return info

    def is_prose(self, record: Any, path: tuple) -> bool:
        return sts.is_prose(record, path)


# -- legacy storage/ tree ------------------------------------------------------------------------
class OpenCodeLegacy(Reader):
    """``storage/{project,session,message,part,todo}/…`` JSON documents, read as a whole."""

    name = HARNESS
    label = "OpenCode (legacy storage/ tree)"
    suffixes = ()
    store_rank = 1

    def sniff(self, path: Path, head: bytes) -> bool:
        return False  # only ever claimed as a folder

    def claims_dir(self, path: Path) -> bool:
        if path.name != "storage" or not (path / "session").is_dir() or not (path / "message").is_dir():
            return False
        for project in sorted((path / "session").iterdir()):
            for doc in sorted(project.glob("*.json")) if project.is_dir() else ():
                if inside(path, doc) is None:  # a symlink out of the tree: not even sniffed
                    continue
                value = self._load(doc, [])
                return (
                    isinstance(value, dict)
                    and "id" in value
                    and ("projectID" in value or "directory" in value)
                )
        return False

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        return [data_root(env, home) / "storage"]

    def units(self, path: Path, root: Path) -> Iterator[Unit | Problem]:
        for doc in sorted((path / "session").glob("*/*.json")):
            if inside(path, doc) is None:
                yield Problem(str(doc), None, f"resolves outside {path} (a symlink); not read")
                continue
            value = self._load(doc, [])
            sid: str = (
                value["id"] if isinstance(value, dict) and isinstance(value.get("id"), str) else doc.stem
            )
            if inside(path, "message", sid) is None:  # the id is not echoed: it is content
                yield Problem(
                    str(doc),
                    None,
                    f"its session id names a folder that resolves outside {path}; session not read",
                )
                continue
            deps = (doc, *(f for msg, parts in self._tree(path, sid, []) for f in (msg, *parts)))
            yield Unit(
                self.name, doc, _filename(sid), "jsonl", key=sid, deps=deps, reader=type(self).__name__
            )

    @staticmethod
    def _storage(unit: Unit) -> Path:
        return unit.source.parent.parent.parent  # storage/session/<project>/<session>.json

    def _tree(self, storage: Path, sid: str, problems: list[Problem]) -> list[tuple[Path, list[Path]]]:
        """The session's message documents, each with its part documents: only files inside
        ``storage`` (``inside``); one that resolves elsewhere is a problem and is left out."""

        def refused(path: Path, what: str) -> None:
            problems.append(Problem(str(path), None, f"{what} outside {storage}; not read"))

        folder = inside(storage, "message", sid)
        if folder is None:
            refused(storage / "message", "the session id names a folder")
            return []
        out = []
        for msg in sorted(folder.glob("*.json")):
            if inside(storage, msg) is None:
                refused(msg, "resolves (a symlink)")
                continue
            parts: list[Path] = []
            pfolder = inside(storage, "part", msg.stem)
            if pfolder is None:
                refused(storage / "part" / msg.stem, "resolves (a symlink)")
            else:
                for p in sorted(pfolder.glob("*.json")):
                    if inside(storage, p) is None:
                        refused(p, "resolves (a symlink)")
                    else:
                        parts.append(p)
            out.append((msg, parts))
        return out

    @staticmethod
    def _load(path: Path, problems: list[Problem]) -> Any:
        """A document, or its text if it is not JSON (kept and scanned, like a bad JSONL line)."""
        try:
            raw = path.read_bytes()
        except OSError as exc:
            problems.append(Problem(str(path), None, f"cannot read: {exc.strerror}"))
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(str(path), None, f"invalid UTF-8 ({exc.reason}); bad bytes replaced"))
            text = raw.decode("utf-8", "replace")
        try:
            return loads(text)
        except (ValueError, RecursionError):
            problems.append(Problem(str(path), None, "not JSON; kept as plain text and scanned"))
            return text

    def records(self, unit: Unit, problems: list[Problem]) -> Iterator[Record]:
        storage = self._storage(unit)
        session = self._load(unit.source, problems)
        original: dict[str, Any] = {"session": session}
        pid = session.get("projectID") if isinstance(session, dict) else None
        if isinstance(pid, str):
            project = inside(storage, "project", f"{pid}.json")
            if project is None:
                problems.append(
                    Problem(str(unit.source), None, f"its projectID names a file outside {storage}; not read")
                )
            elif project.is_file():
                original["project"] = self._load(project, problems)
        todo = inside(storage, "todo", f"{unit.key}.json")
        if todo is None:
            problems.append(
                Problem(str(unit.source), None, f"its session id names a file outside {storage}; not read")
            )
        elif todo.is_file():
            original["todos"] = self._load(todo, problems)
        title = session.get("title") if isinstance(session, dict) else None
        n = 1
        yield Record(n, sts.session_line(HARNESS, unit.key or unit.source.stem, title, opencode=original))
        for msg_doc, part_docs in self._tree(storage, str(unit.key), problems):
            info = self._load(msg_doc, problems)
            parts = [self._load(p, problems) for p in part_docs]
            for line in convert(info, parts, {"message": info, "parts": parts}):
                n += 1
                yield Record(n, line)

    def info(self, unit: Unit) -> SessionInfo:
        storage = self._storage(unit)
        info = SessionInfo(self.name, unit.key or unit.source.stem)
        session = self._load(unit.source, [])
        if isinstance(session, dict):
            if isinstance(session.get("directory"), str):
                info.project = session["directory"]
            if isinstance(session.get("parentID"), str) and session["parentID"]:
                info.parent = session["parentID"]  # a subtask's session
            t = _dict(session.get("time"))
            fold_time(info, t.get("created"))
            fold_time(info, t.get("updated"))
        info.size = size_of(unit.source)
        for msg_doc, part_docs in self._tree(storage, str(unit.key), []):
            info.size += size_of(msg_doc)
            m = self._load(msg_doc, [])
            if isinstance(m, dict) and m.get("role") in ("user", "assistant"):
                info.messages += 1
            for part in part_docs:
                info.size += size_of(part)
                p = self._load(part, [])
                if isinstance(p, dict) and p.get("type") == "tool":
                    info.tool_calls += 1
        return info

    def is_prose(self, record: Any, path: tuple) -> bool:
        return sts.is_prose(record, path)
