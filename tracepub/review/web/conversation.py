"""A session file of dataset/ read back as the conversation it was: user, assistant, tool calls
and results, in order.

The reviewer judges a redaction in its place ("is this placeholder a name, or did it eat a
word?"), so the Sessions page shows the redacted file, what will be published, as turns. Each
format keeps its turns elsewhere (FORMATS.md), so there is one small function per format, chosen
by the reader that recognises the file by content (as discovery does); a format without one is
shown as its string leaves. Nothing here redacts or decides: the text is the dataset's.

Turns are produced lazily from the reader's record stream, so a 300 MB session is paged, not
loaded (Gemini CLI's JSONL is the exception: a message is re-appended as it grows and the last
copy wins, so its file is folded whole, as the CLI does).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from tracepub.model import Problem, Unit
from tracepub.readers import detect

MAX_TEXT = 8000  # characters of one turn shown; the rest is counted


@dataclass
class Turn:
    role: str  # user, assistant, tool, system, meta
    kind: str  # text, thinking, call, result
    title: str
    text: str
    record: int = 0


def _json(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, indent=1, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _text(content: Any) -> str:
    """The text of a message's content: a string, or a list of parts of any of the formats."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        for key in ("text", "content", "value", "output"):
            if isinstance(content.get(key), str):
                return content[key]
        if content.get("type") in ("image", "input_image") or "inlineData" in content:
            return "[image]"
        if "functionResponse" in content:
            resp = content["functionResponse"].get("response")
            return _text(resp) if isinstance(resp, dict) else _json(resp)
        return _json(content)
    if isinstance(content, list):
        return "\n".join(t for t in (_text(c) for c in content) if t)
    return str(content)


# -- one function per format: a record (parsed JSON) -> turns -----------------------------------------
def _blocks(role: str, content: Any, call: tuple[str, str]) -> Iterator[Turn]:
    """A message's content as Claude Code and pi write it: a string, or a list of typed blocks.

    The two formats differ only in how a tool call is named (``call``: its block type and the
    key of its arguments); a Claude ``tool_result`` block never occurs in pi (its results are
    messages of their own), so one walker serves both.
    """
    if isinstance(content, str):
        yield Turn(role, "text", "", content)
        return
    call_type, args_key = call
    for b in content or []:
        if not isinstance(b, dict):
            continue
        bt = b.get("type")
        if bt == "text":
            yield Turn(role, "text", "", b.get("text", ""))
        elif bt == "thinking":
            yield Turn("assistant", "thinking", "thinking", b.get("thinking", ""))
        elif bt == call_type:
            yield Turn("assistant", "call", b.get("name", "tool"), _json(b.get(args_key)))
        elif bt == "tool_result":
            error = " (error)" if b.get("is_error") else ""
            yield Turn("tool", "result", "result" + error, _text(b.get("content")))
        elif bt == "image":
            yield Turn(role, "text", "", "[image]")


def _claude(rec: Any) -> Iterator[Turn]:
    if not isinstance(rec, dict):
        return
    t = rec.get("type")
    if t in ("user", "assistant"):
        msg = rec.get("message") or {}
        role = "meta" if rec.get("isMeta") else str(msg.get("role") or t)
        yield from _blocks(role, msg.get("content"), call=("tool_use", "input"))
    elif t == "summary":
        yield Turn("meta", "text", "summary", _text(rec.get("summary")))
    elif t == "system" and isinstance(rec.get("content"), str):
        yield Turn("meta", "text", rec.get("subtype") or "system", rec["content"])


def _claude_meta(rec: Any) -> Iterator[Turn]:
    if isinstance(rec, dict):
        yield Turn(
            "meta", "text", f"subagent {rec.get('agentType', '')}".strip(), _text(rec.get("description"))
        )


_CODEX_ITEMS = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
}


def _codex(rec: Any) -> Iterator[Turn]:
    if not isinstance(rec, dict):
        return
    t = rec.get("type")
    if t == "session_meta" and isinstance(rec.get("payload"), dict):
        p = rec["payload"]
        yield Turn("meta", "text", "session", f"cwd {p.get('cwd', '')}".strip())
        return
    item = rec.get("payload") if t == "response_item" else (rec if t in _CODEX_ITEMS else None)
    if not isinstance(item, dict):
        return
    it = item.get("type")
    if it == "message":
        who = str(item.get("role") or "user")
        role = {"developer": "system"}.get(who, who)
        yield Turn(role, "text", "", _text(item.get("content")))
    elif it == "reasoning":
        text = _text(item.get("summary")) or _text(item.get("content"))
        if text:
            yield Turn("assistant", "thinking", "reasoning", text)
    elif it in ("function_call", "custom_tool_call"):
        yield Turn(
            "assistant", "call", item.get("name", "tool"), _json(item.get("arguments", item.get("input")))
        )
    elif it in ("function_call_output", "custom_tool_call_output"):
        yield Turn("tool", "result", "result", _text(item.get("output")))
    elif it == "local_shell_call":
        cmd = (item.get("action") or {}).get("command")
        yield Turn("assistant", "call", "shell", " ".join(cmd) if isinstance(cmd, list) else _json(cmd))
    elif it == "web_search_call":
        yield Turn("assistant", "call", "web_search", _json(item.get("action")))


def _pi(rec: Any) -> Iterator[Turn]:
    if not isinstance(rec, dict):
        return
    t = rec.get("type")
    if t == "session":
        yield Turn("meta", "text", "session", f"cwd {rec.get('cwd', '')}".strip())
    elif t in ("compaction", "branch_summary"):
        yield Turn("meta", "text", t, _text(rec.get("summary")))
    elif t == "message" and isinstance(rec.get("message"), dict):
        m = rec["message"]
        role = m.get("role")
        if role == "toolResult":
            yield Turn("tool", "result", m.get("toolName", "result"), _text(m.get("content")))
        elif role == "bashExecution":
            yield Turn("user", "call", "bash", _text(m.get("command")))
            yield Turn("tool", "result", "output", _text(m.get("output")))
        elif role in ("user", "assistant"):
            yield from _blocks(role, m.get("content"), call=("toolCall", "arguments"))
        else:
            yield Turn("meta", "text", role or "message", _text(m.get("content") or m.get("summary")))


def _gemini_message(m: Any) -> Iterator[Turn]:
    if not isinstance(m, dict):
        return
    t = str(m.get("type") or "")
    role = {"user": "user", "gemini": "assistant", "model": "assistant"}.get(t, "meta")
    for th in m.get("thoughts") or []:
        if isinstance(th, dict):
            yield Turn("assistant", "thinking", th.get("subject") or "thought", _text(th.get("description")))
    text = _text(m.get("content"))
    if text:
        yield Turn(role, "text", "" if role != "meta" else (t or ""), text)
    for call in m.get("toolCalls") or []:
        if not isinstance(call, dict):
            continue
        yield Turn("assistant", "call", call.get("name", "tool"), _json(call.get("args")))
        result = call.get("result")
        if result is not None:
            yield Turn("tool", "result", call.get("status") or "result", _text(result))


def _gemini_lines(records: Iterable[Any]) -> Iterator[Turn]:
    """The CLI's own fold: the last copy of a message wins, ``$rewindTo`` cuts, ``$set.messages``
    replaces (the file keeps its history; the conversation is what the CLI would show)."""
    msgs: dict[str, Any] = {}
    for rec in records:
        if not isinstance(rec, dict):
            continue
        if "$rewindTo" in rec:
            ids = list(msgs)
            if rec["$rewindTo"] in msgs:
                for k in ids[ids.index(rec["$rewindTo"]) :]:
                    del msgs[k]
        elif isinstance(rec.get("$set"), dict) and isinstance(rec["$set"].get("messages"), list):
            msgs = {
                str(m.get("id", n)): m for n, m in enumerate(rec["$set"]["messages"]) if isinstance(m, dict)
            }
        elif "id" in rec and "type" in rec:
            msgs[str(rec["id"])] = rec
    for m in msgs.values():
        yield from _gemini_message(m)


def _gemini_doc(rec: Any) -> Iterator[Turn]:
    if isinstance(rec, dict):
        for m in rec.get("messages") or []:
            yield from _gemini_message(m)


def _sts(rec: Any) -> Iterator[Turn]:
    if not isinstance(rec, dict):
        return
    if rec.get("type") == "session":
        if rec.get("name"):
            yield Turn("meta", "text", "session", str(rec["name"]))
        return
    m = rec.get("message")
    if rec.get("type") != "message" or not isinstance(m, dict):
        return
    role = str(m.get("role") or "user")
    if m.get("reasoningContent"):
        yield Turn("assistant", "thinking", "reasoning", _text(m["reasoningContent"]))
    text = _text(m.get("content"))
    if role == "tool":
        yield Turn("tool", "result", "result", text)
    elif text:
        yield Turn(role, "text", "", text)
    for call in m.get("toolCalls") or []:
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            yield Turn("assistant", "call", fn.get("name", "tool"), _json(fn.get("arguments")))


def _openai_messages(msgs: Any) -> Iterator[Turn]:
    for m in msgs if isinstance(msgs, list) else []:
        if not isinstance(m, dict):
            continue
        who = str(m.get("role") or "user")
        role = {"ai": "assistant", "function": "tool"}.get(who, who)
        text = _text(m.get("content"))
        if role == "tool":
            yield Turn("tool", "result", m.get("name") or "result", text)
        elif text:
            yield Turn(role, "text", "", text)
        if m.get("reasoning_content"):
            yield Turn("assistant", "thinking", "reasoning", _text(m["reasoning_content"]))
        for call in m.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict):
                yield Turn("assistant", "call", fn.get("name", "tool"), _json(fn.get("arguments")))


def _openai(rec: Any) -> Iterator[Turn]:
    if isinstance(rec, dict):
        yield from _openai_messages(rec.get("messages", rec.get("trajectory")))


_SHAREGPT_ROLES = {
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "system": "system",
    "function_call": "assistant",
}


_TAGGED = re.compile(r"<(think|tool_call)>\s*(.*?)\s*</\1>", re.DOTALL)


def _tagged(role: str, text: str) -> Iterator[Turn]:
    """A Hermes/Nous-style turn: ``<think>`` and ``<tool_call>{json}</tool_call>`` inside the text."""
    pos = 0
    for m in _TAGGED.finditer(text):
        if text[pos : m.start()].strip():
            yield Turn(role, "text", "", text[pos : m.start()].strip())
        if m.group(1) == "think":
            if m.group(2):
                yield Turn(role, "thinking", "thinking", m.group(2))
        else:
            try:
                call = json.loads(m.group(2))
            except ValueError:
                call = None
            if isinstance(call, dict):
                yield Turn(role, "call", str(call.get("name", "tool")), _json(call.get("arguments")))
            else:
                yield Turn(role, "call", "tool_call", m.group(2))
        pos = m.end()
    if text[pos:].strip():
        yield Turn(role, "text", "", text[pos:].strip())


def _sharegpt(rec: Any) -> Iterator[Turn]:
    if not isinstance(rec, dict):
        return
    for t in rec.get("conversations") or []:
        if not isinstance(t, dict):
            continue
        who = t.get("from", "")
        role = _SHAREGPT_ROLES.get(who, "tool")
        text = _text(t.get("value"))
        if who == "function_call":
            yield Turn(role, "call", who, text)
        elif role == "tool":
            yield Turn(role, "result", who, text)
        elif role == "assistant" and ("<tool_call>" in text or "<think>" in text):
            yield from _tagged(role, text)
        else:
            yield Turn(role, "text", "", text)


def _atif(rec: Any) -> Iterator[Turn]:
    if not isinstance(rec, dict):
        return
    for step in rec.get("steps") or []:
        if not isinstance(step, dict):
            continue
        role = {"agent": "assistant", "user": "user", "system": "system"}.get(step.get("source", ""), "meta")
        if step.get("reasoning_content"):
            yield Turn("assistant", "thinking", "reasoning", _text(step["reasoning_content"]))
        text = _text(step.get("message"))
        if text:
            yield Turn(role, "text", "", text)
        for call in step.get("tool_calls") or []:
            if isinstance(call, dict):
                yield Turn(
                    "assistant", "call", call.get("function_name", "tool"), _json(call.get("arguments"))
                )
        for res in (step.get("observation") or {}).get("results") or []:
            if isinstance(res, dict):
                yield Turn("tool", "result", "observation", _text(res.get("content")))


def _leaves(rec: Any, path: str = "$") -> Iterator[Turn]:
    """Any other format: every string, with where it is."""
    if isinstance(rec, str):
        if rec.strip():
            yield Turn("meta", "text", path, rec)
    elif isinstance(rec, dict):
        for k, v in rec.items():
            yield from _leaves(v, f"{path}.{k}")
    elif isinstance(rec, list):
        for n, v in enumerate(rec):
            yield from _leaves(v, f"{path}[{n}]")


_BY_READER = {
    "ClaudeCode": _claude,
    "ClaudeCodeMeta": _claude_meta,
    "Codex": _codex,
    "Pi": _pi,
    "GeminiCliLegacy": _gemini_doc,
    "Sts": _sts,
    "OpenAIMessages": _openai,
    "OpenAIMessagesDoc": _openai,
    "ShareGPT": _sharegpt,
    "ShareGPTDoc": _sharegpt,
    "HermesTrajectories": _sharegpt,
    "Atif": _atif,
}


def turns(path: Path, dest: str, kind: str) -> Iterator[Turn]:
    """The turns of one dataset file, in order (records the reader cannot parse are left out)."""
    reader = detect(path)
    if reader is None:
        return
    unit = Unit(reader.name, path, dest, kind, reader=type(reader).__name__)
    problems: list[Problem] = []
    records = reader.records(unit, problems)
    name = type(reader).__name__
    if name == "GeminiCli":
        yield from _gemini_lines(r.value for r in records)
        return
    fn = _BY_READER.get(name, _leaves)
    for r in records:
        rows = r.value if isinstance(r.value, list) and fn is not _leaves else [r.value]
        for row in rows:
            for t in fn(row):
                if t.text or t.kind == "call":
                    t.record = r.index
                    yield t


def page(path: Path, dest: str, kind: str, start: int, limit: int) -> tuple[list[Turn], bool]:
    """Turns ``start`` to ``start + limit`` and whether there are more."""
    it = turns(path, dest, kind)
    got = list(islice(it, start, start + limit + 1))
    return got[:limit], len(got) > limit
