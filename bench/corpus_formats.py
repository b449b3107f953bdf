"""Harness writers for the evaluation corpus: one abstract session, every on-disk format.

A session is a list of steps (user text, assistant text, tool calls with their output). Each
writer renders it the way its harness stores it (FORMATS.md), including the duplicates real
harnesses write (Claude's ``toolUseResult``, Codex's ``exec_command_end``, OpenCode's
``metadata.output``) and JSON encoded inside strings (Codex, OpenAI, Hermes, STS arguments).
"""

from __future__ import annotations

import json
import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from corpus_bulk import numbered
from corpus_fake import hexs, uuid4


@dataclass
class Call:
    kind: str  # shell | read | write | edit | http
    args: dict[str, Any]
    output: str
    id: str = ""


@dataclass
class Step:
    role: str  # user | assistant | call
    text: str = ""
    thinking: str = ""
    call: Call | None = None


@dataclass
class Session:
    id: str
    harness: str
    project: str
    cwd: str
    start: datetime
    steps: list[Step] = field(default_factory=list)
    model: str = "claude-sonnet-4-5"
    meta: dict[str, Any] = field(default_factory=dict)  # harness-specific session fields (Hermes gateway)

    def times(self):
        t = self.start
        while True:
            t += timedelta(seconds=3)
            yield t


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def _shell_line(call: Call) -> str:
    a = call.args
    if call.kind == "shell":
        return a["command"]
    if call.kind == "read":
        return f"cat {a['path']}"
    if call.kind == "http":
        return f"curl -X {a.get('method', 'GET')} {a['url']}"
    return ""


def _dump(path: Path, lines: list[Any]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")) + "\n" for x in lines)
    path.write_text(data, encoding="utf-8")
    return len(data.encode())


class Writer:
    harness = ""

    def __init__(self, root: Path, rng: random.Random):
        self.root = root
        self.rng = rng

    def add(self, s: Session) -> int:
        raise NotImplementedError

    def close(self) -> int:
        return 0


# -- Claude Code ---------------------------------------------------------------------------------
class ClaudeWriter(Writer):
    harness = "claude_code"
    TOOL = {"shell": "Bash", "read": "Read", "write": "Write", "edit": "Edit", "http": "mcp__http__request"}

    def add(self, s: Session) -> int:
        rng, times, parent = self.rng, s.times(), None
        lines: list[dict] = []

        def env(kind: str, **kw) -> dict:
            nonlocal parent
            uid = uuid4(rng)
            d = {
                "parentUuid": parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": s.cwd,
                "sessionId": s.id,
                "version": "2.1.74",
                "gitBranch": "main",
                "type": kind,
                **kw,
                "uuid": uid,
                "timestamp": iso(next(times)),
            }
            parent = uid
            return d

        def assistant(content: list) -> dict:
            return env(
                "assistant",
                message={
                    "model": s.model,
                    "id": "msg_01" + hexs(rng, 22),
                    "type": "message",
                    "role": "assistant",
                    "content": content,
                    "stop_reason": None,
                    "usage": {"input_tokens": rng.randint(3, 900), "output_tokens": rng.randint(10, 900)},
                },
                requestId="req_011C" + hexs(rng, 20),
            )

        for st in s.steps:
            if st.role == "user":
                lines.append(env("user", message={"role": "user", "content": st.text}))
            elif st.role == "assistant":
                if st.thinking:
                    lines.append(
                        assistant(
                            [{"type": "thinking", "thinking": st.thinking, "signature": "Eq" + hexs(rng, 60)}]
                        )
                    )
                lines.append(assistant([{"type": "text", "text": st.text}]))
            else:
                c = st.call
                tid = "toolu_01" + hexs(rng, 22)
                a = c.args
                if c.kind == "shell":
                    inp, result = (
                        {"command": a["command"], "description": a.get("description", "Run command")},
                        {"stdout": c.output, "stderr": "", "interrupted": False, "isImage": False},
                    )
                    shown = c.output
                elif c.kind == "read":
                    inp = {"file_path": a["path"]}
                    shown = numbered(c.output)
                    result = {
                        "type": "text",
                        "file": {
                            "filePath": a["path"],
                            "content": c.output,
                            "numLines": c.output.count("\n") + 1,
                            "startLine": 1,
                            "totalLines": c.output.count("\n") + 1,
                        },
                    }
                elif c.kind == "write":
                    inp = {"file_path": a["path"], "content": a["content"]}
                    shown = f"File created successfully at: {a['path']}"
                    result = {
                        "type": "create",
                        "filePath": a["path"],
                        "content": a["content"],
                        "structuredPatch": [],
                    }
                elif c.kind == "edit":
                    inp = {"file_path": a["path"], "old_string": a["old"], "new_string": a["new"]}
                    shown = f"The file {a['path']} has been updated."
                    result = {
                        "filePath": a["path"],
                        "oldString": a["old"],
                        "newString": a["new"],
                        "originalFile": a.get("original", ""),
                        "userModified": False,
                        "replaceAll": False,
                    }
                else:
                    inp, shown, result = dict(a), c.output, c.output
                lines.append(
                    assistant([{"type": "tool_use", "id": tid, "name": self.TOOL[c.kind], "input": inp}])
                )
                lines.append(
                    env(
                        "user",
                        message={
                            "role": "user",
                            "content": [
                                {
                                    "tool_use_id": tid,
                                    "type": "tool_result",
                                    "content": shown,
                                    "is_error": False,
                                }
                            ],
                        },
                        toolUseResult=result,
                    )
                )
        lines.append({"type": "summary", "summary": s.steps[0].text[:60], "leafUuid": parent})
        enc = s.cwd.replace("/", "-").replace(".", "-")
        return _dump(self.root / "claude" / "projects" / enc / f"{s.id}.jsonl", lines)


# -- Codex ---------------------------------------------------------------------------------------
class CodexWriter(Writer):
    harness = "codex"

    def add(self, s: Session) -> int:
        rng, times = self.rng, s.times()
        lines: list[dict] = [
            {
                "timestamp": iso(s.start),
                "type": "session_meta",
                "payload": {
                    "id": s.id,
                    "timestamp": iso(s.start),
                    "cwd": s.cwd,
                    "originator": "codex_cli_rs",
                    "cli_version": "0.125.0",
                    "source": "cli",
                    "model_provider": "openai",
                    "base_instructions": {"text": "You are Codex, a coding agent."},
                    "git": {
                        "commit_hash": hexs(rng, 40),
                        "branch": "main",
                        "repository_url": f"git@github.com:northwind-labs/{s.project}.git",
                    },
                },
            }
        ]

        def item(kind: str, payload: dict) -> None:
            lines.append({"timestamp": iso(next(times)), "type": kind, "payload": payload})

        item(
            "turn_context",
            {
                "turn_id": uuid4(rng),
                "cwd": s.cwd,
                "current_date": s.start.date().isoformat(),
                "timezone": "Europe/Stockholm",
                "approval_policy": "on-request",
                "model": "gpt-5.5",
            },
        )
        for st in s.steps:
            if st.role == "user":
                item(
                    "response_item",
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": st.text}]},
                )
                item("event_msg", {"type": "user_message", "message": st.text, "images": []})
            elif st.role == "assistant":
                if st.thinking:
                    item(
                        "response_item",
                        {
                            "type": "reasoning",
                            "summary": [{"type": "summary_text", "text": st.thinking}],
                            "content": None,
                            "encrypted_content": "gAAAAAB" + hexs(rng, 80),
                        },
                    )
                item(
                    "response_item",
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": st.text}],
                    },
                )
                item("event_msg", {"type": "agent_message", "message": st.text})
            else:
                c, cid = st.call, "call_" + hexs(rng, 24)
                if c.kind in ("write", "edit"):
                    if c.kind == "write":
                        body = "\n".join("+" + x for x in c.args["content"].split("\n"))
                        patch = f"*** Begin Patch\n*** Add File: {c.args['path']}\n{body}\n*** End Patch"
                    else:
                        patch = (
                            f"*** Begin Patch\n*** Update File: {c.args['path']}\n@@\n-{c.args['old']}\n"
                            f"+{c.args['new']}\n*** End Patch"
                        )
                    item(
                        "response_item",
                        {
                            "type": "custom_tool_call",
                            "name": "apply_patch",
                            "input": patch,
                            "call_id": cid,
                            "status": "completed",
                        },
                    )
                    item(
                        "response_item",
                        {
                            "type": "custom_tool_call_output",
                            "call_id": cid,
                            "output": json.dumps(
                                {
                                    "output": f"Success. Updated the following files:\nA {c.args['path']}\n",
                                    "metadata": {"exit_code": 0, "duration_seconds": 0.0},
                                }
                            ),
                        },
                    )
                    continue
                if c.kind == "http":
                    args = json.dumps(c.args)
                    item(
                        "response_item",
                        {"type": "function_call", "name": "http_request", "arguments": args, "call_id": cid},
                    )
                    item(
                        "response_item", {"type": "function_call_output", "call_id": cid, "output": c.output}
                    )
                    continue
                cmd = _shell_line(c)
                item(
                    "response_item",
                    {
                        "type": "function_call",
                        "name": "exec_command",
                        "arguments": json.dumps({"cmd": cmd, "workdir": s.cwd, "yield_time_ms": 10000}),
                        "call_id": cid,
                    },
                )
                out = (
                    f"Chunk ID: {hexs(rng, 6)}\nWall time: {rng.uniform(0.1, 9):.4f} seconds\nProcess exited with code 0\n"
                    f"Original token count: {len(c.output) // 4}\nOutput:\n{c.output}"
                )
                item("response_item", {"type": "function_call_output", "call_id": cid, "output": out})
                item(
                    "event_msg",
                    {
                        "type": "exec_command_end",
                        "call_id": cid,
                        "command": ["bash", "-lc", cmd],
                        "cwd": s.cwd,
                        "aggregated_output": c.output[:10000],
                        "exit_code": 0,
                    },
                )
        item(
            "event_msg",
            {
                "type": "token_count",
                "info": {"total_token_usage": {"input_tokens": rng.randint(1000, 90000)}},
            },
        )
        t = s.start
        return _dump(
            self.root
            / "codex"
            / "sessions"
            / t.strftime("%Y/%m/%d")
            / f"rollout-{t.strftime('%Y-%m-%dT%H-%M-%S')}-{s.id}.jsonl",
            lines,
        )


# -- pi ------------------------------------------------------------------------------------------
class PiWriter(Writer):
    harness = "pi"
    TOOL = {"shell": "bash", "read": "read", "write": "write", "edit": "edit", "http": "fetch"}

    def add(self, s: Session) -> int:
        rng, times = self.rng, s.times()
        lines: list[dict] = [
            {"type": "session", "version": 3, "id": s.id, "timestamp": iso(s.start), "cwd": s.cwd}
        ]
        parent = None

        def entry(**kw) -> None:
            nonlocal parent
            eid = hexs(rng, 8)
            t = next(times)
            lines.append({"type": "message", "id": eid, "parentId": parent, "timestamp": iso(t), **kw})
            parent = eid

        for st in s.steps:
            t = ms(s.start)
            if st.role == "user":
                entry(
                    message={"role": "user", "content": [{"type": "text", "text": st.text}], "timestamp": t}
                )
            elif st.role == "assistant":
                content: list[dict] = []
                if st.thinking:
                    content.append(
                        {
                            "type": "thinking",
                            "thinking": st.thinking,
                            "thinkingSignature": "Eq" + hexs(rng, 40),
                        }
                    )
                content.append({"type": "text", "text": st.text})
                entry(
                    message={
                        "role": "assistant",
                        "content": content,
                        "api": "anthropic-messages",
                        "provider": "anthropic",
                        "model": s.model,
                        "stopReason": "stop",
                        "timestamp": t,
                    }
                )
            else:
                c, cid = st.call, "toolu_01" + hexs(rng, 22)
                args = {"command": c.args["command"]} if c.kind == "shell" else dict(c.args)
                entry(
                    message={
                        "role": "assistant",
                        "content": [
                            {"type": "toolCall", "id": cid, "name": self.TOOL[c.kind], "arguments": args}
                        ],
                        "api": "anthropic-messages",
                        "provider": "anthropic",
                        "model": s.model,
                        "stopReason": "toolUse",
                        "timestamp": t,
                    }
                )
                entry(
                    message={
                        "role": "toolResult",
                        "toolCallId": cid,
                        "toolName": self.TOOL[c.kind],
                        "content": [{"type": "text", "text": c.output or "ok"}],
                        "isError": False,
                        "timestamp": t,
                    }
                )
        enc = "--" + s.cwd.strip("/").replace("/", "-") + "--"
        return _dump(
            self.root
            / "pi"
            / "sessions"
            / enc
            / f"{iso(s.start).replace(':', '-').replace('.', '-')}_{s.id}.jsonl",
            lines,
        )


# -- Gemini CLI ----------------------------------------------------------------------------------
class GeminiWriter(Writer):
    harness = "gemini"
    TOOL = {
        "shell": "run_shell_command",
        "read": "read_file",
        "write": "write_file",
        "edit": "replace",
        "http": "web_fetch",
    }

    def messages(self, s: Session) -> list[dict]:
        rng, times = self.rng, s.times()
        out: list[dict] = []
        pending: dict | None = None
        for st in s.steps:
            t = iso(next(times))
            if st.role == "user":
                out.append({"id": uuid4(rng), "timestamp": t, "type": "user", "content": [{"text": st.text}]})
                pending = None
            elif st.role == "assistant":
                msg = {
                    "id": uuid4(rng),
                    "timestamp": t,
                    "type": "gemini",
                    "content": st.text,
                    "thoughts": [{"subject": "Plan", "description": st.thinking, "timestamp": t}]
                    if st.thinking
                    else [],
                    "tokens": {"input": rng.randint(100, 9000), "output": rng.randint(5, 900)},
                    "model": "gemini-2.5-pro",
                }
                out.append(msg)
                pending = msg
            else:
                c = st.call
                name = self.TOOL[c.kind]
                args = (
                    {"command": c.args["command"]}
                    if c.kind == "shell"
                    else {"absolute_path": c.args["path"]}
                    if c.kind == "read"
                    else dict(c.args)
                )
                cid = f"{name}-{ms(s.start)}-{hexs(rng, 4)}"
                call = {
                    "id": cid,
                    "name": name,
                    "args": args,
                    "result": [
                        {"functionResponse": {"id": cid, "name": name, "response": {"output": c.output}}}
                    ],
                    "status": "success",
                    "timestamp": t,
                    "resultDisplay": c.output[:2000],
                }
                if pending is None:
                    pending = {
                        "id": uuid4(rng),
                        "timestamp": t,
                        "type": "gemini",
                        "content": "",
                        "thoughts": [],
                        "model": "gemini-2.5-pro",
                    }
                    out.append(pending)
                pending.setdefault("toolCalls", []).append(call)
        return out

    def add(self, s: Session) -> int:
        msgs = self.messages(s)
        meta = {
            "sessionId": s.id,
            "projectHash": hexs(self.rng, 64),
            "startTime": iso(s.start),
            "lastUpdated": iso(s.start),
            "kind": "main",
        }
        lines: list[dict] = [meta]
        for m in msgs:
            lines.append(m)
            if m.get("toolCalls") and self.rng.random() < 0.3:
                lines.append(m)  # the same id re-appended when a message is updated
            lines.append({"$set": {"lastUpdated": m["timestamp"]}})
        name = f"session-{s.start.strftime('%Y-%m-%dT%H-%M')}-{s.id[:8]}.jsonl"
        return _dump(self.root / "gemini" / "tmp" / s.project / "chats" / name, lines)


class GeminiLegacyWriter(GeminiWriter):
    harness = "gemini_legacy"

    def add(self, s: Session) -> int:
        doc = {
            "sessionId": s.id,
            "projectHash": hexs(self.rng, 64),
            "startTime": iso(s.start),
            "lastUpdated": iso(s.start),
            "messages": self.messages(s),
        }
        path = (
            self.root
            / "gemini"
            / "tmp"
            / (s.project + "-legacy")
            / "chats"
            / f"session-{s.start.strftime('%Y-%m-%dT%H-%M')}-{s.id[:8]}.json"
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(doc, indent=2, ensure_ascii=False)
        path.write_text(text, encoding="utf-8")
        return len(text.encode())


# -- OpenCode ------------------------------------------------------------------------------------
class OpenCodeData:
    """OpenCode's project / session / message / part objects for one session (shared by both layouts)."""

    TOOL = {"shell": "bash", "read": "read", "write": "write", "edit": "edit", "http": "webfetch"}

    @classmethod
    def build(cls, s: Session, rng: random.Random) -> tuple[dict, dict, list[tuple[dict, list[dict]]]]:
        pid = hexs(rng, 40)
        sid = "ses_" + hexs(rng, 12) + s.id.replace("-", "")[:14]
        project = {
            "id": pid,
            "worktree": s.cwd,
            "vcs": "git",
            "time": {"created": ms(s.start), "updated": ms(s.start)},
        }
        session = {
            "id": sid,
            "slug": s.project,
            "version": "1.1.36",
            "projectID": pid,
            "directory": s.cwd,
            "title": s.steps[0].text[:50],
            "time": {"created": ms(s.start), "updated": ms(s.start)},
            "summary": {"additions": 0, "deletions": 0, "files": 0},
        }
        messages: list[tuple[dict, list[dict]]] = []
        times = s.times()
        cur: tuple[dict, list[dict]] | None = None

        def new_msg(role: str) -> tuple[dict, list[dict]]:
            t = ms(next(times))
            m = {
                "id": "msg_" + hexs(rng, 12) + hexs(rng, 14),
                "sessionID": sid,
                "role": role,
                "time": {"created": t},
            }
            if role == "assistant":
                m.update(
                    {
                        "modelID": s.model,
                        "providerID": "anthropic",
                        "mode": "build",
                        "agent": "build",
                        "path": {"cwd": s.cwd, "root": s.cwd},
                        "cost": 0.01,
                    }
                )
            entry = (m, [])
            messages.append(entry)
            return entry

        def part(entry: tuple[dict, list[dict]], **kw) -> None:
            entry[1].append(
                {
                    "id": "prt_" + hexs(rng, 12) + hexs(rng, 14),
                    "sessionID": sid,
                    "messageID": entry[0]["id"],
                    **kw,
                }
            )

        for st in s.steps:
            if st.role == "user":
                part(new_msg("user"), type="text", text=st.text)
                cur = None
            elif st.role == "assistant":
                cur = new_msg("assistant")
                part(cur, type="step-start", snapshot=hexs(rng, 40))
                if st.thinking:
                    part(
                        cur,
                        type="reasoning",
                        text=st.thinking,
                        time={"start": ms(s.start), "end": ms(s.start)},
                    )
                part(cur, type="text", text=st.text)
            else:
                if cur is None:
                    cur = new_msg("assistant")
                c = st.call
                inp = (
                    {"command": c.args["command"], "description": "run"}
                    if c.kind == "shell"
                    else {"filePath": c.args["path"]}
                    if c.kind == "read"
                    else dict(c.args)
                )
                part(
                    cur,
                    type="tool",
                    callID="toolu_01" + hexs(rng, 22),
                    tool=cls.TOOL[c.kind],
                    state={
                        "status": "completed",
                        "input": inp,
                        "output": c.output,
                        "title": _shell_line(c)[:80],
                        "metadata": {"output": c.output, "exit": 0, "description": "run"},
                        "time": {"start": ms(s.start), "end": ms(s.start)},
                    },
                )
        return project, session, messages


class OpenCodeDbWriter(Writer):
    harness = "opencode"

    def __init__(self, root: Path, rng: random.Random):
        super().__init__(root, rng)
        self.path = root / "opencode" / "opencode.db"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path)
        self.db.executescript("""
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, time_created INTEGER, time_updated INTEGER, time_initialized INTEGER, sandboxes TEXT);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT,
  title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT,
  cost REAL NOT NULL DEFAULT 0, tokens_input INTEGER NOT NULL DEFAULT 0, tokens_output INTEGER NOT NULL DEFAULT 0, tokens_reasoning INTEGER NOT NULL DEFAULT 0,
  tokens_cache_read INTEGER NOT NULL DEFAULT 0, tokens_cache_write INTEGER NOT NULL DEFAULT 0, revert TEXT, permission TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
""")

    def add(self, s: Session) -> int:
        project, session, messages = OpenCodeData.build(s, self.rng)
        t = ms(s.start)
        self.db.execute(
            "INSERT INTO project VALUES (?,?,?,?,?,?,?,?)",
            (project["id"], project["worktree"], "git", None, t, t, None, "[]"),
        )
        self.db.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (
                session["id"],
                project["id"],
                session["slug"],
                session["directory"],
                session["title"],
                session["version"],
                t,
                t,
            ),
        )
        size = 0
        for m, parts in messages:
            data = {k: v for k, v in m.items() if k not in ("id", "sessionID")}
            text = json.dumps(data)
            size += len(text)
            self.db.execute("INSERT INTO message VALUES (?,?,?,?,?)", (m["id"], session["id"], t, t, text))
            for p in parts:
                pdata = json.dumps({k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")})
                size += len(pdata)
                self.db.execute(
                    "INSERT INTO part VALUES (?,?,?,?,?,?)", (p["id"], m["id"], session["id"], t, t, pdata)
                )
        return size

    def close(self) -> int:
        self.db.commit()
        self.db.close()
        return 0


class OpenCodeStorageWriter(Writer):
    harness = "opencode_storage"

    def add(self, s: Session) -> int:
        project, session, messages = OpenCodeData.build(s, self.rng)
        base = self.root / "opencode-legacy" / "storage"
        size = 0

        def put(rel: str, obj: dict) -> None:
            nonlocal size
            p = base / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(obj, indent=2, ensure_ascii=False)
            p.write_text(text, encoding="utf-8")
            size += len(text)

        put(f"project/{project['id']}.json", project)
        put(f"session/{project['id']}/{session['id']}.json", session)
        for m, parts in messages:
            put(f"message/{session['id']}/{m['id']}.json", m)
            for p in parts:
                put(f"part/{m['id']}/{p['id']}.json", p)
        return size


# -- OpenAI-style messages (shared by OpenAI JSONL, Hermes, STS) ----------------------------------
def openai_messages(s: Session, rng: random.Random) -> list[dict]:
    msgs: list[dict] = [{"role": "system", "content": "You are a helpful coding agent working in " + s.cwd}]
    for st in s.steps:
        if st.role == "user":
            msgs.append({"role": "user", "content": st.text})
        elif st.role == "assistant":
            msgs.append({"role": "assistant", "content": st.text})
        else:
            c, cid = st.call, "call_" + hexs(rng, 24)
            name = {
                "shell": "terminal",
                "read": "read_file",
                "write": "write_file",
                "edit": "patch",
                "http": "http_request",
            }[c.kind]
            args = {"command": c.args["command"]} if c.kind == "shell" else dict(c.args)
            msgs.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                    ],
                }
            )
            msgs.append({"role": "tool", "tool_call_id": cid, "name": name, "content": c.output})
    return msgs


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "terminal",
            "description": "Run a shell command",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]


class _MultiFile(Writer):
    """Generic formats keep several conversations per file (one per line)."""

    per_file = 4
    folder = ""
    stem = ""

    def __init__(self, root: Path, rng: random.Random):
        super().__init__(root, rng)
        self.count = 0

    def line(self, s: Session) -> Any:
        raise NotImplementedError

    def add(self, s: Session) -> int:
        path = self.root / "generic" / self.folder / f"{self.stem}-{self.count // self.per_file:03d}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.line(s), ensure_ascii=False) + "\n"
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
        self.count += 1
        return len(text.encode())


class OpenAIWriter(_MultiFile):
    harness = "openai"
    folder, stem = "openai", "chat"

    def line(self, s: Session) -> Any:
        return {"messages": openai_messages(s, self.rng), "tools": TOOLS}


def sharegpt_turns(s: Session, rng: random.Random) -> list[dict]:
    turns = [{"from": "system", "value": "You are a function calling AI model. <tools>[...]</tools>"}]
    for st in s.steps:
        if st.role == "user":
            turns.append({"from": "human", "value": st.text})
        elif st.role == "assistant":
            turns.append({"from": "gpt", "value": f"<think>\n{st.thinking}\n</think>\n{st.text}"})
        else:
            c = st.call
            args = {"command": c.args["command"]} if c.kind == "shell" else dict(c.args)
            turns.append(
                {
                    "from": "gpt",
                    "value": "<tool_call>\n"
                    + json.dumps({"name": c.kind, "arguments": args})
                    + "\n</tool_call>",
                }
            )
            turns.append(
                {
                    "from": "tool",
                    "value": "<tool_response>\n"
                    + json.dumps(
                        {"tool_call_id": "call_" + hexs(rng, 8), "name": c.kind, "content": c.output}
                    )
                    + "\n</tool_response>",
                }
            )
    return turns


class ShareGPTWriter(_MultiFile):
    harness = "sharegpt"
    folder, stem = "sharegpt", "conversations"

    def line(self, s: Session) -> Any:
        return {
            "conversations": sharegpt_turns(s, self.rng),
            "timestamp": iso(s.start),
            "model": s.model,
            "completed": True,
        }


class StsWriter(Writer):
    harness = "sts"

    def add(self, s: Session) -> int:
        lines: list[dict] = [
            {"type": "session", "harness": "my-agent", "id": s.id, "name": s.steps[0].text[:40]}
        ]
        t = ms(s.start)
        for m in openai_messages(s, self.rng)[1:]:
            msg: dict = {"role": m["role"], "content": m["content"] or "", "timestamp": t}
            if m.get("tool_calls"):
                msg["toolCalls"] = [{"id": tc["id"], "function": tc["function"]} for tc in m["tool_calls"]]
            if m.get("tool_call_id"):
                msg["toolCallId"] = m["tool_call_id"]
            lines.append({"type": "message", "message": msg})
            t += 1500
        return _dump(self.root / "generic" / "sts" / f"{s.id}.jsonl", lines)


class AtifWriter(Writer):
    harness = "atif"

    def add(self, s: Session) -> int:
        steps: list[dict] = []
        times = s.times()
        for st in s.steps:
            t = iso(next(times))
            if st.role == "user":
                steps.append(
                    {"step_id": len(steps) + 1, "timestamp": t, "source": "user", "message": st.text}
                )
            elif st.role == "assistant":
                steps.append(
                    {
                        "step_id": len(steps) + 1,
                        "timestamp": t,
                        "source": "agent",
                        "model_name": s.model,
                        "message": st.text,
                        "reasoning_content": st.thinking,
                    }
                )
            else:
                c, cid = st.call, "toolu_" + hexs(self.rng, 10)
                args = {"command": c.args["command"]} if c.kind == "shell" else dict(c.args)
                steps.append(
                    {
                        "step_id": len(steps) + 1,
                        "timestamp": t,
                        "source": "agent",
                        "model_name": s.model,
                        "message": "",
                        "tool_calls": [{"tool_call_id": cid, "function_name": c.kind, "arguments": args}],
                        "observation": {"results": [{"source_call_id": cid, "content": c.output}]},
                    }
                )
        doc = {
            "schema_version": "ATIF-v1.6",
            "session_id": s.id,
            "agent": {
                "name": "claude-code",
                "version": "2.1.74",
                "model_name": s.model,
                "extra": {"cwd": s.cwd},
            },
            "steps": steps,
            "final_metrics": {"total_steps": len(steps)},
        }
        path = self.root / "generic" / "atif" / s.id / "agent" / "trajectory.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(doc, indent=2, ensure_ascii=False)
        path.write_text(text, encoding="utf-8")
        return len(text.encode())


# -- Hermes --------------------------------------------------------------------------------------
class HermesDbWriter(Writer):
    harness = "hermes"

    def __init__(self, root: Path, rng: random.Random):
        super().__init__(root, rng)
        self.path = root / "hermes" / "state.db"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path)
        self.db.executescript("""
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (30);
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT, system_prompt TEXT,
  parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0,
  tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, cwd TEXT, git_branch TEXT,
  git_repo_root TEXT, title TEXT, chat_id TEXT, chat_type TEXT, display_name TEXT, origin_json TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
  content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER,
  finish_reason TEXT, reasoning TEXT);
""")

    def add(self, s: Session) -> int:
        hid = s.start.strftime("%Y%m%d_%H%M%S_") + s.id[:6]
        t = s.start.timestamp()
        msgs = openai_messages(s, self.rng)
        m = s.meta
        self.db.execute(
            "INSERT INTO sessions (id, source, user_id, model, system_prompt, started_at, message_count, cwd, "
            "git_branch, git_repo_root, title, chat_id, chat_type, display_name, origin_json) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                hid,
                m.get("source", "cli"),
                m.get("user_id"),
                s.model,
                msgs[0]["content"],
                t,
                len(msgs),
                s.cwd,
                "main",
                s.cwd,
                s.steps[0].text[:40],
                m.get("chat_id"),
                m.get("chat_type"),
                m.get("display_name"),
                json.dumps(m["origin"]) if m.get("origin") else None,
            ),
        )
        size = 0
        for m in msgs[1:]:
            t += 2.0
            tc = json.dumps(m["tool_calls"]) if m.get("tool_calls") else None
            self.db.execute(
                "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp) "
                "VALUES (?,?,?,?,?,?,?)",
                (hid, m["role"], m["content"], m.get("tool_call_id"), tc, m.get("name"), t),
            )
            size += len(m["content"] or "") + len(tc or "")
        return size

    def close(self) -> int:
        self.db.commit()
        self.db.close()
        return 0


class HermesJsonWriter(Writer):
    harness = "hermes_json"

    def add(self, s: Session) -> int:
        hid = s.start.strftime("%Y%m%d_%H%M%S_") + s.id[:6]
        turns = sharegpt_turns(s, self.rng)
        doc = {
            "session_id": hid,
            "model": s.model,
            "session_start": s.start.isoformat(),
            "last_updated": s.start.isoformat(),
            "message_count": len(turns),
            "conversations": turns,
        }
        path = self.root / "hermes" / "sessions" / f"session_{hid}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(doc, indent=2, ensure_ascii=False)
        path.write_text(text, encoding="utf-8")
        return len(text.encode())


WRITERS: list[type[Writer]] = [
    ClaudeWriter,
    CodexWriter,
    PiWriter,
    GeminiWriter,
    GeminiLegacyWriter,
    OpenCodeDbWriter,
    OpenCodeStorageWriter,
    HermesDbWriter,
    HermesJsonWriter,
    OpenAIWriter,
    ShareGPTWriter,
    AtifWriter,
    StsWriter,
]
# Heavier harnesses get more sessions, as in real use.
WEIGHTS = {
    "claude_code": 4,
    "codex": 3,
    "pi": 2,
    "gemini": 2,
    "opencode": 2,
    "hermes": 1,
    "gemini_legacy": 1,
    "opencode_storage": 1,
    "hermes_json": 1,
    "openai": 1,
    "sharegpt": 1,
    "atif": 1,
    "sts": 1,
}
