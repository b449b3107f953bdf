#!/usr/bin/env python3
"""Generate sample_traces/: one small, realistic session per harness and per generic format.

Run ``python sample_traces/generate.py`` (with tracepub importable) to rewrite the files next
to this script. Everything is deterministic: token-shaped values come from
``tracepub.fakes.expand`` with a fixed seed per sample (no token-shaped literal is written in
this script), times and ids are fixed, so a re-run reproduces the committed bytes
(``tests/test_readers.py`` checks that; SQLite files are compared by their SQL dump, since their
bytes depend on the SQLite library version).

Each top folder is laid out like the harness's home, so a test can copy it into a fake $HOME:
``claude/`` = ``~/.claude``, ``codex/`` = ``~/.codex``, ``pi/`` = ``~/.pi``, ``gemini/`` =
``~/.gemini``, ``opencode/`` = ``~/.local/share/opencode``, ``hermes/`` = ``~/.hermes``;
``generic/`` holds the interchange formats. Every sample plants a fake secret of real shape, an
email and the username ``jdoe`` in home paths; ``PLANTED`` lists them for the tests.
"""

from __future__ import annotations

import base64
import json
import random
import sqlite3
import struct
import sys
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tracepub.fakes import expand  # noqa: E402


@dataclass
class Sample:
    """What a sample file holds, so tests can check it is gone from the output."""

    harness: str  # folder under dataset/
    output: str  # output file name (the input's name, or <session id>.jsonl for STS)
    secrets: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    sts: bool = False  # converted to STS (OpenCode, Hermes stores)
    arg_secret: str | None = None  # a secret planted inside a JSON-encoded tool argument
    also: list[str] = field(default_factory=list)  # secrets with no shape of their own (need context rules)


PLANTED: dict[str, Sample] = {}  # relative input path -> what it plants


# -- helpers -------------------------------------------------------------------------------------
def compact(value: Any) -> str:
    """JSON as JavaScript's JSON.stringify writes it (Claude, pi, Gemini, OpenCode DB)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def jsonl(lines: list[Any]) -> bytes:
    return "".join(compact(v) + "\n" for v in lines).encode()


def pretty(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()


def tiny_png() -> str:
    """A 2x2 PNG, base64 (an 'attached screenshot')."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + bytes([200, 30, 30] * 2) for _ in range(2))
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode()


PNG = tiny_png()


def rng(name: str) -> random.Random:
    return random.Random(zlib.crc32(name.encode()))


# -- Claude Code ------------------------------------------------------------------------------------
def claude(files: dict[str, bytes]) -> None:
    r = rng("claude")
    sid = expand("{{uuid}}", r)
    agent = expand("{{hex:17}}", r)
    aws_id = expand("AKIA{{b32:16}}", r)
    aws_secret = expand("{{b64:40}}", r).replace("+", "x")
    slack = expand("xoxb-{{digits:12}}-{{digits:13}}-{{alnum:24}}", r)
    email = "jane.doe@acmecorp.dev"
    cwd = "/Users/jdoe/src/acme-api"
    env = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": cwd,
        "sessionId": sid,
        "version": "2.1.74",
        "gitBranch": "feat/rate-limit",
        "slug": "quiet-orbiting-lynx",
    }
    uid = [f"c1a0e7b2-{i:04d}-4f00-8000-{i:012d}" for i in range(20)]
    usage = {
        "input_tokens": 3,
        "cache_creation_input_tokens": 1684,
        "cache_read_input_tokens": 11339,
        "cache_creation": {"ephemeral_5m_input_tokens": 1684, "ephemeral_1h_input_tokens": 0},
        "output_tokens": 191,
        "service_tier": "standard",
    }

    def line(i: int, kind: str, ts: str, **kw: Any) -> dict:
        return {
            **env,
            "parentUuid": uid[i - 1] if i > 1 else None,
            **kw,
            "type": kind,
            "uuid": uid[i],
            "timestamp": ts,
        }

    def assistant(i: int, ts: str, msg_id: str, req: str, blocks: list, stop: str | None) -> dict:
        return line(
            i,
            "assistant",
            ts,
            message={
                "model": "claude-opus-4-6",
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "content": blocks,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": usage,
            },
            requestId=req,
        )

    env_dump = (
        f"AWS_ACCESS_KEY_ID={aws_id}\nAWS_SECRET_ACCESS_KEY={aws_secret}\nAWS_REGION=eu-west-1\n"
        f"Jane Doe <{email}>"
    )
    task_prompt = "Survey src/auth/ and list every place that reads a credential."
    first_id, first_req = "msg_01" + expand("{{alnum:22}}", r), "req_011C" + expand("{{alnum:20}}", r)
    lines = [
        {
            "type": "file-history-snapshot",
            "messageId": uid[1],
            "snapshot": {
                "messageId": uid[1],
                "trackedFileBackups": {},
                "timestamp": "2026-03-12T13:17:35.480Z",
            },
            "isSnapshotUpdate": False,
        },
        line(
            1,
            "user",
            "2026-03-12T13:17:35.480Z",
            message={
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "The /login endpoint is getting hammered. Add rate limiting; the staging "
                        "creds are in .env if you need them. Screenshot of the error attached.",
                    },
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                ],
            },
        ),
        # one API response, written as one line per content block sharing message.id and requestId
        assistant(
            2,
            "2026-03-12T13:17:39.302Z",
            first_id,
            first_req,
            [
                {
                    "type": "thinking",
                    "thinking": "Look at the router and the .env first.",
                    "signature": expand("{{b64bytes:96}}", r),
                }
            ],
            None,
        ),
        assistant(
            3,
            "2026-03-12T13:17:40.011Z",
            first_id,
            first_req,
            [
                {
                    "type": "tool_use",
                    "id": "toolu_01" + expand("{{alnum:22}}", r),
                    "name": "Bash",
                    "input": {
                        "command": "cat .env && git log -1 --format='%an <%ae>'",
                        "description": "Show env and last commit author",
                    },
                }
            ],
            "tool_use",
        ),
    ]
    bash_id = lines[-1]["message"]["content"][0]["id"]
    lines.append(
        line(
            4,
            "user",
            "2026-03-12T13:17:41.250Z",
            message={
                "role": "user",
                "content": [
                    {"tool_use_id": bash_id, "type": "tool_result", "content": env_dump, "is_error": False}
                ],
            },
            toolUseResult={"stdout": env_dump, "stderr": "", "interrupted": False, "isImage": False},
        )
    )
    task_id = "toolu_01" + expand("{{alnum:22}}", r)
    lines.append(
        assistant(
            5,
            "2026-03-12T13:17:43.100Z",
            "msg_01" + expand("{{alnum:22}}", r),
            "req_011C" + expand("{{alnum:20}}", r),
            [
                {
                    "type": "tool_use",
                    "id": task_id,
                    "name": "Task",
                    "input": {
                        "description": "Survey the auth module",
                        "prompt": task_prompt,
                        "subagent_type": "general-purpose",
                    },
                }
            ],
            "tool_use",
        )
    )
    lines.append(
        line(
            6,
            "user",
            "2026-03-12T13:18:02.700Z",
            message={
                "role": "user",
                "content": [
                    {
                        "tool_use_id": task_id,
                        "type": "tool_result",
                        "content": [
                            {
                                "type": "text",
                                "text": "src/auth/slack.ts reads SLACK_BOT_TOKEN; config/dev.ts hard-codes one.",
                            }
                        ],
                    }
                ],
            },
            toolUseResult={"agentId": agent, "status": "completed", "totalDurationMs": 19100},
        )
    )
    lines.append(
        assistant(
            7,
            "2026-03-12T13:18:06.900Z",
            "msg_01" + expand("{{alnum:22}}", r),
            "req_011C" + expand("{{alnum:20}}", r),
            [
                {
                    "type": "tool_use",
                    "id": "toolu_01" + expand("{{alnum:22}}", r),
                    "name": "Edit",
                    "input": {
                        "file_path": f"{cwd}/src/routes/login.ts",
                        "old_string": "router.post('/login', login)",
                        "new_string": "router.post('/login', rateLimit({ windowMs: 60_000, max: 10 }), login)",
                    },
                }
            ],
            "tool_use",
        )
    )
    edit_id = lines[-1]["message"]["content"][0]["id"]
    lines.append(
        line(
            8,
            "user",
            "2026-03-12T13:18:07.120Z",
            message={
                "role": "user",
                "content": [
                    {
                        "tool_use_id": edit_id,
                        "type": "tool_result",
                        "content": f"The file {cwd}/src/routes/login.ts has been updated.",
                    }
                ],
            },
            toolUseResult={
                "filePath": f"{cwd}/src/routes/login.ts",
                "oldString": "router.post('/login', login)",
                "newString": "router.post('/login', rateLimit({ windowMs: 60_000, max: 10 }), login)",
                "originalFile": "import { Router } from 'express'\n...\nrouter.post('/login', login)\n",
                "structuredPatch": [
                    {
                        "oldStart": 12,
                        "oldLines": 1,
                        "newStart": 12,
                        "newLines": 1,
                        "lines": [
                            "-router.post('/login', login)",
                            "+router.post('/login', rateLimit({ windowMs: 60_000, max: 10 }), login)",
                        ],
                    }
                ],
                "userModified": False,
                "replaceAll": False,
            },
        )
    )
    lines.append(
        assistant(
            9,
            "2026-03-12T13:18:10.400Z",
            "msg_01" + expand("{{alnum:22}}", r),
            "req_011C" + expand("{{alnum:20}}", r),
            [
                {
                    "type": "text",
                    "text": "Added a 10-requests-per-minute limit on /login. Rotate the AWS key that was in .env: "
                    "it is now in this transcript, and the Slack bot token hard-coded in config/dev.ts.",
                }
            ],
            "end_turn",
        )
    )
    lines.append(
        {
            **line(10, "system", "2026-03-12T13:18:10.690Z"),
            "subtype": "turn_duration",
            "durationMs": 35210,
            "isMeta": False,
        }
    )
    lines.append({"type": "summary", "summary": "Add rate limiting to /login endpoint", "leafUuid": uid[9]})
    rel = f"claude/projects/-Users-jdoe-src-acme-api/{sid}.jsonl"
    files[rel] = jsonl(lines)
    PLANTED[rel] = Sample("claude_code", f"{sid}.jsonl", [aws_id], [email], also=[aws_secret])

    # the subagent the Task call spawned: <session>/subagents/agent-<id>.jsonl + .meta.json
    sub_env = {**env, "isSidechain": True, "agentId": agent}
    sub_uid = [f"d2b1f8c3-{i:04d}-4f00-8000-{i:012d}" for i in range(6)]
    read_id = "toolu_01" + expand("{{alnum:22}}", r)
    sub = [
        {
            **sub_env,
            "type": "user",
            "message": {"role": "user", "content": task_prompt},
            "uuid": sub_uid[1],
            "timestamp": "2026-03-12T13:17:43.300Z",
        },
        {
            **sub_env,
            "parentUuid": sub_uid[1],
            "type": "assistant",
            "message": {
                "model": "claude-haiku-4-5",
                "id": "msg_01" + expand("{{alnum:22}}", r),
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": read_id,
                        "name": "Read",
                        "input": {"file_path": f"{cwd}/config/dev.ts"},
                    }
                ],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": usage,
            },
            "requestId": "req_011C" + expand("{{alnum:20}}", r),
            "uuid": sub_uid[2],
            "timestamp": "2026-03-12T13:17:45.000Z",
        },
        {
            **sub_env,
            "parentUuid": sub_uid[2],
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": read_id,
                        "type": "tool_result",
                        "content": f"     1\texport const dev = {{\n     2\t  slackBotToken: '{slack}',\n     3\t  owner: "
                        f"'ops@acmecorp.dev',\n     4\t}}\n",
                    }
                ],
            },
            "toolUseResult": {
                "type": "text",
                "file": {
                    "filePath": f"{cwd}/config/dev.ts",
                    "content": f"export const dev = {{\n  slackBotToken: '{slack}',\n  owner: "
                    f"'ops@acmecorp.dev',\n}}\n",
                    "numLines": 4,
                    "startLine": 1,
                    "totalLines": 4,
                },
            },
            "uuid": sub_uid[3],
            "timestamp": "2026-03-12T13:17:45.200Z",
        },
        {
            **sub_env,
            "parentUuid": sub_uid[3],
            "type": "assistant",
            "message": {
                "model": "claude-haiku-4-5",
                "id": "msg_01" + expand("{{alnum:22}}", r),
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "src/auth/slack.ts reads SLACK_BOT_TOKEN; config/dev.ts hard-codes one.",
                    }
                ],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": usage,
            },
            "requestId": "req_011C" + expand("{{alnum:20}}", r),
            "uuid": sub_uid[4],
            "timestamp": "2026-03-12T13:18:02.500Z",
        },
    ]
    srel = f"claude/projects/-Users-jdoe-src-acme-api/{sid}/subagents/agent-{agent}.jsonl"
    files[srel] = jsonl(sub)
    PLANTED[srel] = Sample("claude_code", f"agent-{agent}.jsonl", [slack], ["ops@acmecorp.dev"])
    files[f"claude/projects/-Users-jdoe-src-acme-api/{sid}/subagents/agent-{agent}.meta.json"] = compact(
        {"agentType": "general-purpose", "description": "Survey the auth module", "toolUseId": task_id}
    ).encode()


# -- Codex CLI ---------------------------------------------------------------------------------------
def codex(files: dict[str, bytes]) -> None:
    r = rng("codex")
    sid = "019cd8e4-15dd-7143-95e8-" + expand("{{hex:12}}", r)
    openai_key = expand("sk-proj-{{alnum:48}}", r)
    ghp = expand("{{github:ghp}}", r)
    email = "jane.doe@kestrel.dev"
    cwd = "/Users/jdoe/src/acme-api"
    call = "call_" + expand("{{alnum:24}}", r)
    call2 = "call_" + expand("{{alnum:24}}", r)
    args = json.dumps(
        {
            "cmd": f"curl -sH 'Authorization: token {ghp}' https://api.github.com/repos/acme/api/actions/runs"
            " | jq '.workflow_runs[0].conclusion'",
            "workdir": cwd,
            "yield_time_ms": 10000,
            "max_output_tokens": 12000,
        }
    )
    args2 = json.dumps({"cmd": "git log -2 --format='%h %an <%ae> %s'", "workdir": cwd})
    prompt = f"why is CI failing on main? use my token {openai_key} for the eval step if you need it"

    def env(ts: str, kind: str, payload: dict) -> dict:
        return {"timestamp": ts, "type": kind, "payload": payload}

    lines = [
        env(
            "2026-04-29T10:58:39.732Z",
            "session_meta",
            {
                "id": sid,
                "timestamp": "2026-04-29T10:58:39.732Z",
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.125.0",
                "source": "cli",
                "model_provider": "openai",
                "base_instructions": {"text": "You are Codex, a coding agent based on GPT-5. ..."},
                "git": {
                    "commit_hash": expand("{{hex:40}}", r),
                    "branch": "main",
                    "repository_url": "git@github.com:acme/api.git",
                },
            },
        ),
        env(
            "2026-04-29T10:58:39.801Z",
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request"
                        "</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n"
                        "  <network_access>restricted</network_access>\n  <shell>zsh</shell>\n"
                        "</environment_context>",
                    }
                ],
            },
        ),
        env(
            "2026-04-29T10:58:42.700Z",
            "turn_context",
            {
                "turn_id": "019cd8e4-2a10-7e01-b2f9-" + expand("{{hex:12}}", r),
                "cwd": cwd,
                "current_date": "2026-04-29",
                "timezone": "Europe/Berlin",
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "workspace-write", "network_access": False},
                "model": "gpt-5.5",
                "effort": "high",
                "summary": "auto",
            },
        ),
        env(
            "2026-04-29T10:58:42.786Z",
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": prompt},
                    {"type": "input_image", "image_url": "data:image/png;base64," + PNG},
                ],
            },
        ),
        env(
            "2026-04-29T10:58:42.787Z",
            "event_msg",
            {
                "type": "user_message",
                "message": prompt,
                "images": ["data:image/png;base64," + PNG],
                "local_images": [],
                "text_elements": [],
            },
        ),
        env(
            "2026-04-29T10:58:44.100Z",
            "response_item",
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "**Checking the last CI run**"}],
                "content": None,
                "encrypted_content": "gAAAAAB" + expand("{{b64bytes:120}}", r),
            },
        ),
        env(
            "2026-04-29T10:58:44.350Z",
            "response_item",
            {"type": "function_call", "name": "exec_command", "arguments": args, "call_id": call},
        ),
        env(
            "2026-04-29T10:58:47.020Z",
            "response_item",
            {
                "type": "function_call_output",
                "call_id": call,
                "output": "Chunk ID: ef0014\nWall time: 2.6702 seconds\nProcess exited with code 0\nOriginal token count: 3"
                '\nOutput:\n"failure"\n',
            },
        ),
        env(
            "2026-04-29T10:58:48.350Z",
            "response_item",
            {"type": "function_call", "name": "exec_command", "arguments": args2, "call_id": call2},
        ),
        env(
            "2026-04-29T10:58:49.020Z",
            "response_item",
            {
                "type": "function_call_output",
                "call_id": call2,
                "output": f"Chunk ID: ef0015\nWall time: 0.0402 seconds\nProcess exited with code 0\nOriginal token count: "
                f"40\nOutput:\n3f9c2a1 Jane Doe <{email}> Pin node to 22\n8d41b07 Jane Doe <{email}> Add rate "
                f"limit\n",
            },
        ),
        env(
            "2026-04-29T10:58:53.400Z",
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "output_text",
                        "text": "The last run on main failed after the node 22 pin (3f9c2a1). The "
                        "lockfile still targets node 20; regenerate it with `npm install`.",
                    }
                ],
                "phase": "final_answer",
            },
        ),
        env(
            "2026-04-29T10:58:53.401Z",
            "event_msg",
            {
                "type": "agent_message",
                "message": "The last run on main failed after the node 22 pin (3f9c2a1). The "
                "lockfile still targets node 20; regenerate it with `npm install`.",
                "phase": "final_answer",
            },
        ),
        env(
            "2026-04-29T10:58:53.500Z",
            "event_msg",
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": {
                        "input_tokens": 15802,
                        "cached_input_tokens": 10624,
                        "output_tokens": 282,
                        "reasoning_output_tokens": 157,
                        "total_tokens": 16084,
                    },
                    "last_token_usage": {
                        "input_tokens": 8101,
                        "cached_input_tokens": 7936,
                        "output_tokens": 96,
                        "reasoning_output_tokens": 40,
                        "total_tokens": 8197,
                    },
                    "model_context_window": 258400,
                },
                "rate_limits": None,
            },
        ),
    ]
    rel = f"codex/sessions/2026/04/29/rollout-2026-04-29T10-58-39-{sid}.jsonl"
    files[rel] = jsonl(lines)
    PLANTED[rel] = Sample("codex", Path(rel).name, [openai_key, ghp], [email], arg_secret=ghp)

    # legacy flat layout: bare SessionMeta (+git) first, then bare ResponseItems
    r = rng("codex-legacy")
    lid = expand("{{uuid}}", r)
    npm = expand("{{npm}}", r)
    email = "j.doe@northwind-labs.io"
    lcall = "call_" + expand("{{alnum:24}}", r)
    npmrc = f"//registry.npmjs.org/:_authToken={npm}\nemail={email}\n"
    legacy = [
        {
            "id": lid,
            "timestamp": "2025-05-07T17:24:21.123Z",
            "instructions": "Prefer small commits.",
            "git": {
                "commit_hash": expand("{{hex:40}}", r),
                "branch": "main",
                "repository_url": "https://github.com/acme/api.git",
            },
        },
        {"record_type": "state"},
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "npm publish fails with 401, can you check my npm config?"}
            ],
        },
        {
            "type": "function_call",
            "name": "shell",
            "arguments": json.dumps(
                {
                    "command": ["bash", "-lc", "cat /home/jdoe/.npmrc"],
                    "workdir": "/home/jdoe/src/acme-cli",
                    "timeout_ms": 10000,
                }
            ),
            "call_id": lcall,
        },
        {
            "type": "function_call_output",
            "call_id": lcall,
            "output": json.dumps({"output": npmrc, "metadata": {"exit_code": 0, "duration_seconds": 0.1}}),
        },
        {"record_type": "state"},
        {
            "type": "message",
            "role": "assistant",
            "content": [
                {
                    "type": "output_text",
                    "text": "Your ~/.npmrc has an auth token; a 401 means it expired. Run `npm login` "
                    "and publish again.",
                }
            ],
        },
    ]
    lrel = f"codex/sessions/rollout-2025-05-07-{lid}.jsonl"
    files[lrel] = jsonl(legacy)
    PLANTED[lrel] = Sample("codex", Path(lrel).name, [npm], [email])


# -- pi --------------------------------------------------------------------------------------------
def pi(files: dict[str, bytes]) -> None:
    r = rng("pi")
    sid = expand("{{uuid}}", r)
    key_body = "\n".join(expand("{{b64:70}}", r) for _ in range(4))
    pem = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{key_body}\n-----END OPENSSH PRIVATE KEY-----"
    email = "jdoe@northwind-labs.io"
    cwd = "/Users/jdoe/src/acme-api"
    call = "toolu_01" + expand("{{alnum:22}}", r)
    ids = [expand("{{hex:8}}", r) for _ in range(8)]
    usage = {
        "input": 3,
        "output": 191,
        "cacheRead": 0,
        "cacheWrite": 1684,
        "totalTokens": 1878,
        "cost": {
            "input": 9e-06,
            "output": 0.002865,
            "cacheRead": 0.0,
            "cacheWrite": 0.006315,
            "total": 0.00918,
        },
    }

    def entry(i: int, kind: str, ts: str, **kw: Any) -> dict:
        return {"type": kind, "id": ids[i], "parentId": ids[i - 1] if i else None, "timestamp": ts, **kw}

    lines = [
        {"type": "session", "version": 3, "id": sid, "timestamp": "2026-03-01T10:15:30.123Z", "cwd": cwd},
        entry(
            0, "model_change", "2026-03-01T10:15:30.200Z", provider="anthropic", modelId="claude-sonnet-4-5"
        ),
        entry(1, "thinking_level_change", "2026-03-01T10:15:30.201Z", thinkingLevel="medium"),
        entry(
            2,
            "message",
            "2026-03-01T10:15:41.004Z",
            message={
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": f"deploy fails with 'Permission denied (publickey)'. My git email is {email}. "
                        "Here's the error:",
                    },
                    {"type": "image", "data": PNG, "mimeType": "image/png"},
                ],
                "timestamp": 1772360141000,
            },
        ),
        entry(
            3,
            "message",
            "2026-03-01T10:15:44.572Z",
            message={
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": "Check which key the deploy uses.",
                        "thinkingSignature": expand("{{b64bytes:96}}", r),
                    },
                    {
                        "type": "toolCall",
                        "id": call,
                        "name": "bash",
                        "arguments": {"command": "ls -l ~/.ssh && cat ~/.ssh/deploy_ed25519"},
                    },
                ],
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": usage,
                "stopReason": "toolUse",
                "timestamp": 1772360141010,
            },
        ),
        entry(
            4,
            "message",
            "2026-03-01T10:15:44.910Z",
            message={
                "role": "toolResult",
                "toolCallId": call,
                "toolName": "bash",
                "content": [
                    {
                        "type": "text",
                        "text": f"-rw------- 1 jdoe staff 411 Feb 2 /Users/jdoe/.ssh/deploy_ed25519\n{pem}\n",
                    }
                ],
                "isError": False,
                "timestamp": 1772360144905,
            },
        ),
        entry(
            5,
            "message",
            "2026-03-01T10:15:48.100Z",
            message={
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "The deploy key exists but is not added to the repo. Add the public half under "
                        "Settings → Deploy keys, and rotate this one: its private part is now in the "
                        "session log.",
                    }
                ],
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": usage,
                "stopReason": "stop",
                "timestamp": 1772360144950,
            },
        ),
        entry(6, "session_info", "2026-03-01T10:16:00.000Z", name="Fix deploy key"),
    ]
    rel = f"pi/agent/sessions/--Users-jdoe-src-acme-api--/2026-03-01T10-15-30-123Z_{sid}.jsonl"
    files[rel] = jsonl(lines)
    PLANTED[rel] = Sample("pi", Path(rel).name, [pem.splitlines()[1]], [email])


# -- Gemini CLI ---------------------------------------------------------------------------------------
def gemini(files: dict[str, bytes]) -> None:
    r = rng("gemini")
    sid = expand("{{uuid}}", r)
    gkey = expand("AIza{{b64url:35}}", r)
    email = "jane.doe@acmecorp.dev"
    cwd = "/home/jdoe/src/acme-web"
    phash = expand("{{hex:64}}", r)
    mids = [expand("{{uuid}}", r) for _ in range(5)]
    read_id = f"read_file-1775812325400-{expand('{{hex:4}}', r)}"
    meta = {
        "sessionId": sid,
        "projectHash": phash,
        "startTime": "2026-04-10T09:12:00.001Z",
        "lastUpdated": "2026-04-10T09:12:00.001Z",
        "kind": "main",
    }
    tokens = {"input": 9120, "output": 31, "cached": 0, "thoughts": 58, "tool": 0, "total": 9209}
    thoughts = [
        {
            "subject": "Reading the config file",
            "description": "I'll read .env with read_file.",
            "timestamp": "2026-04-10T09:12:04.900Z",
        }
    ]
    env_text = f"MAPS_API_KEY={gkey}\nSUPPORT_EMAIL={email}\n"
    call = {
        "id": read_id,
        "name": "read_file",
        "args": {"absolute_path": f"{cwd}/.env"},
        "result": [
            {"functionResponse": {"id": read_id, "name": "read_file", "response": {"output": env_text}}}
        ],
        "status": "success",
        "timestamp": "2026-04-10T09:12:05.650Z",
        "displayName": "ReadFile",
        "description": "Reads and returns the content of a specified file.",
        "resultDisplay": "",
        "renderOutputAsMarkdown": True,
    }
    model_msg = {
        "id": mids[1],
        "timestamp": "2026-04-10T09:12:05.400Z",
        "type": "gemini",
        "content": "",
        "thoughts": thoughts,
        "tokens": tokens,
        "model": "gemini-2.5-pro",
    }
    lines = [
        meta,
        {
            "id": mids[0],
            "timestamp": "2026-04-10T09:12:03.120Z",
            "type": "user",
            "content": [
                {"text": "the map widget shows 'key invalid' (screenshot). what key does the app use?"},
                {"inlineData": {"mimeType": "image/png", "data": PNG}},
            ],
        },
        {"$set": {"lastUpdated": "2026-04-10T09:12:03.121Z"}},
        model_msg,
        {**model_msg, "toolCalls": [call]},
        {
            "id": mids[2],
            "timestamp": "2026-04-10T09:12:08.010Z",
            "type": "gemini",
            "content": "It uses MAPS_API_KEY from .env; the key is restricted to another referrer.",
            "thoughts": [],
            "tokens": {**tokens, "output": 22},
            "model": "gemini-2.5-pro",
        },
        {"$rewindTo": mids[2]},
        {
            "id": mids[3],
            "timestamp": "2026-04-10T09:12:30.500Z",
            "type": "user",
            "content": [{"text": f"Thanks. Draft a note to {email} asking to allow localhost:5173."}],
        },
        {
            "id": mids[4],
            "timestamp": "2026-04-10T09:12:33.000Z",
            "type": "gemini",
            "content": f"To: {email}\nSubject: Maps key referrer\n\nCould you add http://localhost:5173/* to the "
            "allowed referrers of the Maps key? Thanks!",
            "thoughts": [],
            "tokens": {**tokens, "output": 40},
            "model": "gemini-2.5-pro",
        },
        {"$set": {"lastUpdated": "2026-04-10T09:12:33.001Z", "summary": "Maps key referrer"}},
    ]
    base = "gemini/tmp/acme-web"
    files[f"{base}/.project_root"] = (cwd + "\n").encode()
    rel = f"{base}/chats/session-2026-04-10T09-12-{sid[:8]}.jsonl"
    files[rel] = jsonl(lines)
    PLANTED[rel] = Sample("gemini_cli", Path(rel).name, [gkey], [email])

    # legacy: one ConversationRecord document
    r = rng("gemini-legacy")
    lsid = expand("{{uuid}}", r)
    stripe = expand("sk_test_{{alnum:32}}", r)
    lemail = "billing@northwind-labs.io"
    shell_id = f"run_shell_command-1772611200000-{expand('{{hex:4}}', r)}"
    out = f"STRIPE_SECRET_KEY={stripe}\nSTRIPE_ACCOUNT_EMAIL={lemail}\n"
    doc = {
        "sessionId": lsid,
        "projectHash": phash,
        "startTime": "2026-03-02T08:00:00.001Z",
        "lastUpdated": "2026-03-02T08:00:09.500Z",
        "messages": [
            {
                "id": expand("{{uuid}}", r),
                "timestamp": "2026-03-02T08:00:02.000Z",
                "type": "user",
                "content": [{"text": "which stripe account do the tests use?"}],
            },
            {
                "id": expand("{{uuid}}", r),
                "timestamp": "2026-03-02T08:00:05.000Z",
                "type": "gemini",
                "content": "",
                "thoughts": [
                    {
                        "subject": "Checking env",
                        "description": "grep the test env.",
                        "timestamp": "2026-03-02T08:00:04.000Z",
                    }
                ],
                "tokens": tokens,
                "model": "gemini-2.5-pro",
                "toolCalls": [
                    {
                        "id": shell_id,
                        "name": "run_shell_command",
                        "args": {"command": "grep STRIPE .env.test", "directory": "/home/jdoe/src/acme-web"},
                        "result": [
                            {
                                "functionResponse": {
                                    "id": shell_id,
                                    "name": "run_shell_command",
                                    "response": {"output": out},
                                }
                            }
                        ],
                        "status": "success",
                        "timestamp": "2026-03-02T08:00:05.300Z",
                        "displayName": "Shell",
                        "description": "Runs a shell command.",
                        "resultDisplay": out,
                        "renderOutputAsMarkdown": False,
                    }
                ],
            },
            {
                "id": expand("{{uuid}}", r),
                "timestamp": "2026-03-02T08:00:09.400Z",
                "type": "gemini",
                "content": "The tests use the test-mode account of billing@…; the key is a test key.",
                "thoughts": [],
                "tokens": {**tokens, "output": 19},
                "model": "gemini-2.5-pro",
            },
        ],
    }
    lrel = f"{base}/chats/session-2026-03-02T08-00-{lsid[:8]}.json"
    files[lrel] = pretty(doc)
    PLANTED[lrel] = Sample("gemini_cli", Path(lrel).name, [stripe], [lemail])


# -- OpenCode ----------------------------------------------------------------------------------------
OPENCODE_SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, time_created INTEGER,
  time_updated INTEGER, time_initialized INTEGER, sandboxes TEXT);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT,
  slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT, title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT,
  summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT,
  cost REAL NOT NULL DEFAULT 0, tokens_input INTEGER NOT NULL DEFAULT 0, tokens_output INTEGER NOT NULL DEFAULT 0,
  tokens_reasoning INTEGER NOT NULL DEFAULT 0, tokens_cache_read INTEGER NOT NULL DEFAULT 0,
  tokens_cache_write INTEGER NOT NULL DEFAULT 0, revert TEXT, permission TEXT, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE TABLE todo (session_id TEXT NOT NULL, content TEXT NOT NULL, status TEXT NOT NULL, priority TEXT NOT NULL,
  position INTEGER NOT NULL);
CREATE TABLE session_share (session_id TEXT PRIMARY KEY, id TEXT NOT NULL, secret TEXT NOT NULL, url TEXT NOT NULL);
"""


def sqlite_bytes(script: str, rows: list[tuple[str, tuple]]) -> bytes:
    """Build a small SQLite file (rollback journal, no WAL) and return its bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.db"
        con = sqlite3.connect(path)
        con.executescript(script)
        for sql, values in rows:
            con.execute(sql, values)
        con.commit()
        con.execute("VACUUM")
        con.close()
        return path.read_bytes()


def opencode_session(r: random.Random, secret_text: str, command: str, email: str) -> dict:
    """One OpenCode session as MessageV2 objects (shared by the DB and the legacy tree)."""
    ses = "ses_" + expand("{{hex:12}}{{alnum:14}}", r)
    m1, m2 = ("msg_" + expand("{{hex:12}}{{alnum:14}}", r) for _ in range(2))
    p = ["prt_" + expand("{{hex:12}}{{alnum:14}}", r) for _ in range(6)]
    call = "toolu_01" + expand("{{alnum:22}}", r)
    snap = expand("{{hex:40}}", r)
    t0 = 1772360141000
    cwd = "/Users/jdoe/src/acme-api"
    tokens = {"input": 12, "output": 210, "reasoning": 0, "cache": {"read": 10240, "write": 1800}}
    messages = [
        (
            {
                "id": m1,
                "sessionID": ses,
                "role": "user",
                "time": {"created": t0},
                "agent": "build",
                "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"},
            },
            [
                {
                    "id": p[0],
                    "sessionID": ses,
                    "messageID": m1,
                    "type": "text",
                    "text": f"why is CI red? I'm {email} on the CI dashboard if you need to ping someone",
                },
                {
                    "id": p[1],
                    "sessionID": ses,
                    "messageID": m1,
                    "type": "file",
                    "mime": "image/png",
                    "filename": "ci.png",
                    "url": "data:image/png;base64," + PNG,
                },
            ],
        ),
        (
            {
                "id": m2,
                "sessionID": ses,
                "role": "assistant",
                "time": {"created": t0 + 800, "completed": t0 + 9000},
                "parentID": m1,
                "modelID": "claude-sonnet-4-5",
                "providerID": "anthropic",
                "mode": "build",
                "agent": "build",
                "path": {"cwd": cwd, "root": cwd},
                "cost": 0.0123,
                "tokens": tokens,
                "finish": "tool-calls",
            },
            [
                {"id": p[2], "sessionID": ses, "messageID": m2, "type": "step-start", "snapshot": snap},
                {
                    "id": p[3],
                    "sessionID": ses,
                    "messageID": m2,
                    "type": "reasoning",
                    "text": "Look at the last CI log.",
                    "time": {"start": t0 + 900, "end": t0 + 1200},
                },
                {
                    "id": p[4],
                    "sessionID": ses,
                    "messageID": m2,
                    "type": "tool",
                    "callID": call,
                    "tool": "bash",
                    "state": {
                        "status": "completed",
                        "input": {"command": command, "description": "Show failed CI log"},
                        "output": secret_text,
                        "title": command,
                        "metadata": {"output": secret_text, "exit": 1, "description": "Show failed CI log"},
                        "time": {"start": t0 + 1300, "end": t0 + 4100},
                    },
                },
                {
                    "id": p[5],
                    "sessionID": ses,
                    "messageID": m2,
                    "type": "step-finish",
                    "reason": "tool-calls",
                    "snapshot": snap,
                    "cost": 0.0123,
                    "tokens": tokens,
                },
            ],
        ),
    ]
    session = {
        "id": ses,
        "slug": "brave-cactus",
        "version": "1.1.36",
        "projectID": snap,
        "directory": cwd,
        "title": "Check why CI fails",
        "time": {"created": t0, "updated": t0 + 9000},
        "summary": {"additions": 0, "deletions": 0, "files": 0},
    }
    project = {"id": snap, "worktree": cwd, "vcs": "git", "time": {"created": t0 - 86400000, "updated": t0}}
    return {"session": session, "project": project, "messages": messages}


def opencode(files: dict[str, bytes]) -> None:
    r = rng("opencode")
    hf = expand("hf_{{alpha:34}}", r)
    pw = expand("{{alnum:20}}", r)
    email = "jane.doe@acmecorp.dev"
    command = (
        f"psql postgres://ci:{pw}@db.internal.example.com:5432/ci -c 'select 1' && gh run view --log-failed"
    )
    out = f"Error: 401 from huggingface.co: token {hf} is not authorized for acme/private-model\n"
    s = opencode_session(r, out, command, email)
    ses, proj = s["session"], s["project"]
    rows: list[tuple[str, tuple]] = [
        (
            "INSERT INTO project VALUES (?,?,?,?,?,?,?,?)",
            (
                proj["id"],
                proj["worktree"],
                "git",
                None,
                proj["time"]["created"],
                proj["time"]["updated"],
                None,
                "[]",
            ),
        ),
        (
            "INSERT INTO session (id, project_id, slug, directory, title, version, summary_additions, summary_deletions,"
            " summary_files, cost, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                ses["id"],
                proj["id"],
                ses["slug"],
                ses["directory"],
                ses["title"],
                ses["version"],
                0,
                0,
                0,
                0.0123,
                ses["time"]["created"],
                ses["time"]["updated"],
            ),
        ),
        (
            "INSERT INTO todo VALUES (?,?,?,?,?)",
            (ses["id"], "Re-run CI after fixing the DB password", "pending", "high", 0),
        ),
        (
            "INSERT INTO session_share VALUES (?,?,?,?)",
            (ses["id"], "shr_" + expand("{{alnum:12}}", r), expand("{{uuid}}", r), "https://opncd.ai/s/abc"),
        ),
    ]
    for info, parts in s["messages"]:
        data = {k: v for k, v in info.items() if k not in ("id", "sessionID")}
        rows.append(
            (
                "INSERT INTO message VALUES (?,?,?,?,?)",
                (info["id"], ses["id"], info["time"]["created"], info["time"]["created"], compact(data)),
            )
        )
        for part in parts:
            pdata = {k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")}
            rows.append(
                (
                    "INSERT INTO part VALUES (?,?,?,?,?,?)",
                    (
                        part["id"],
                        info["id"],
                        ses["id"],
                        info["time"]["created"],
                        info["time"]["created"],
                        compact(pdata),
                    ),
                )
            )
    files["opencode/opencode.db"] = sqlite_bytes(OPENCODE_SCHEMA, rows)
    PLANTED["opencode/opencode.db"] = Sample(
        "opencode", f"{ses['id']}.jsonl", [hf, pw], [email], sts=True, arg_secret=pw
    )

    # the legacy storage/ tree, holding an older session the DB does not have
    r = rng("opencode-legacy")
    jwt = "eyJhbGciOiJIUzI1NiJ9." + expand("eyJ{{b64url:40}}.{{b64url:43}}", r)
    lemail = "ops@kestrel.dev"
    lcommand = 'curl -s https://staging.example.com/api/health -H "Authorization: Bearer $STAGING_TOKEN" -v'
    lout = f'> Authorization: Bearer {jwt}\n< HTTP/1.1 500\n{{"error":"db down","oncall":"{lemail}"}}\n'
    s = opencode_session(r, lout, lcommand, lemail)
    ses, proj = s["session"], s["project"]
    base = "opencode/storage"
    files[f"{base}/project/{proj['id']}.json"] = pretty(proj)
    files[f"{base}/session/{proj['id']}/{ses['id']}.json"] = pretty(ses)
    files[f"{base}/todo/{ses['id']}.json"] = pretty(
        [{"content": "Page on-call", "status": "completed", "priority": "high", "id": "1"}]
    )
    for info, parts in s["messages"]:
        files[f"{base}/message/{ses['id']}/{info['id']}.json"] = pretty(info)
        for part in parts:
            files[f"{base}/part/{info['id']}/{part['id']}.json"] = pretty(part)
    PLANTED[f"{base}/session/{proj['id']}/{ses['id']}.json"] = Sample(
        "opencode", f"{ses['id']}.jsonl", [jwt], [lemail], sts=True
    )


# -- Hermes ----------------------------------------------------------------------------------------
HERMES_SCHEMA = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT,
  system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
  message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0,
  output_tokens INTEGER DEFAULT 0, cwd TEXT, git_branch TEXT, git_repo_root TEXT, title TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL,
  token_count INTEGER, finish_reason TEXT, reasoning TEXT);
"""
SYSTEM = (
    "You are a function calling AI model. You are provided with function signatures within <tools> </tools> "
    'XML tags. <tools>\n[{"name": "terminal", "description": "Run a shell command", "parameters": '
    '{"type": "object", "properties": {"command": {"type": "string"}}}}]\n</tools>'
)


def hermes(files: dict[str, bytes]) -> None:
    r = rng("hermes")
    sid = "20260427_143022_" + expand("{{lowerdigits:6}}", r)
    pat = expand("github_pat_{{alnum:22}}_{{alnum:59}}", r)
    email = "jane.doe@acmecorp.dev"
    cwd = "/Users/jdoe/src/acme-api"
    call = "call_" + expand("{{alnum:24}}", r)
    command = f"git remote set-url origin https://x-access-token:{pat}@github.com/acme/api.git && git push origin main"
    args = json.dumps({"command": command})
    push_out = {
        "output": "To https://github.com/acme/api.git\n   3f9c2a1..8d41b07  main -> main\n"
        f"Author: Jane Doe <{email}>",
        "exit_code": 0,
    }
    user_text = (
        "push my branch; use the fine-grained token from my password manager (pasting it in the command)"
    )
    answer = (
        "Pushed main (3f9c2a1..8d41b07). Remove the token from the remote URL: `git remote set-url origin "
        "https://github.com/acme/api.git`."
    )
    msgs = [
        ("user", user_text, None, None, None, 1777300223.0, None, None, None),
        (
            "assistant",
            "",
            None,
            json.dumps(
                [{"id": call, "type": "function", "function": {"name": "terminal", "arguments": args}}]
            ),
            None,
            1777300225.1,
            58,
            "tool_calls",
            "Run the push.",
        ),
        ("tool", json.dumps(push_out), call, None, "terminal", 1777300226.4, None, None, None),
        ("assistant", answer, None, None, None, 1777300228.0, 31, "stop", None),
    ]
    rows: list[tuple[str, tuple]] = [
        ("INSERT INTO schema_version VALUES (?)", (30,)),
        (
            "INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                sid,
                "telegram",
                "tg:" + expand("{{digits:9}}", r),
                "anthropic/claude-sonnet-4.5",
                None,
                "You are Hermes Agent, ...",
                None,
                1777300222.5,
                1777300228.2,
                "user_exit",
                4,
                1,
                5120,
                89,
                cwd,
                "main",
                cwd,
                "Push main",
            ),
        ),
    ]
    for m in msgs:
        rows.append(
            (
                "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, "
                "timestamp, token_count, finish_reason, reasoning) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (sid, *m),
            )
        )
    files["hermes/state.db"] = sqlite_bytes(HERMES_SCHEMA, rows)
    PLANTED["hermes/state.db"] = Sample("hermes", f"{sid}.jsonl", [pat], [email], sts=True, arg_secret=pat)

    def log(session_id: str, turns: list[dict], start: str, end: str) -> bytes:
        return pretty(
            {
                "session_id": session_id,
                "model": "anthropic/claude-sonnet-4.5",
                "session_start": start,
                "last_updated": end,
                "message_count": len(turns) - 1,
                "conversations": turns,
            }
        )

    def gpt(think: str, text: str, calls: list[dict]) -> str:
        body = f"<think>\n{think}\n</think>\n{text}"
        for c in calls:
            body += "\n<tool_call>\n" + json.dumps(c) + "\n</tool_call>"
        return body

    # the same session as its per-session log: a duplicate of state.db, left out when both are read
    dup = [
        {"from": "system", "value": SYSTEM},
        {"from": "human", "value": user_text},
        {
            "from": "gpt",
            "value": gpt("Run the push.", "", [{"name": "terminal", "arguments": {"command": command}}]),
        },
        {
            "from": "tool",
            "value": "<tool_response>\n"
            + json.dumps({"tool_call_id": call, "name": "terminal", "content": push_out})
            + "\n</tool_response>",
        },
        {"from": "gpt", "value": gpt("", answer, [])},
    ]
    files[f"hermes/sessions/session_{sid}.json"] = log(
        sid, dup, "2026-04-27T14:30:22.500000", "2026-04-27T14:30:28.112233"
    )

    # an older session only in its log (pruned from the DB)
    r = rng("hermes-log")
    old = "20260301_091500_" + expand("{{lowerdigits:6}}", r)
    ant = expand("sk-ant-api03-{{b64url:93}}AA", r)
    lemail = "jdoe@kestrel.dev"
    turns = [
        {"from": "system", "value": SYSTEM},
        {"from": "human", "value": f"why does the summarizer cron fail? (alerts go to {lemail})"},
        {
            "from": "gpt",
            "value": gpt(
                "Check the cron log.",
                "Checking the log.",
                [{"name": "terminal", "arguments": {"command": "tail -3 /home/jdoe/cron/summarize.log"}}],
            ),
        },
        {
            "from": "tool",
            "value": "<tool_response>\n"
            + json.dumps(
                {
                    "tool_call_id": "call_0",
                    "name": "terminal",
                    "content": {
                        "output": f"anthropic.AuthenticationError: invalid x-api-key {ant}\n",
                        "exit_code": 0,
                    },
                }
            )
            + "\n</tool_response>",
        },
        {
            "from": "gpt",
            "value": gpt("", "The API key in the cron environment was revoked; set a new one.", []),
        },
    ]
    lrel = f"hermes/sessions/session_{old}.json"
    files[lrel] = log(old, turns, "2026-03-01T09:15:00.000000", "2026-03-01T09:15:42.000000")
    PLANTED[lrel] = Sample("hermes", f"{old}.jsonl", [ant], [lemail], sts=True)

    # trajectory_samples.jsonl (ShareGPT with XML tool tags, one trajectory per line)
    r = rng("hermes-trajectories")
    pg = expand("{{alnum:18}}", r)
    temail = "data-team@northwind-labs.io"
    traj = {
        "conversations": [
            {"from": "system", "value": SYSTEM},
            {"from": "human", "value": "how many rows does the events table have?"},
            {
                "from": "gpt",
                "value": gpt(
                    "Query the DB.",
                    "",
                    [
                        {
                            "name": "terminal",
                            "arguments": {
                                "command": f"psql postgres://analytics:{pg}@db.internal.example.com:5432/events -c 'select count(*) from events'"
                            },
                        }
                    ],
                ),
            },
            {
                "from": "tool",
                "value": "<tool_response>\n"
                + json.dumps(
                    {
                        "tool_call_id": "call_0",
                        "name": "terminal",
                        "content": {"output": " count\n-------\n 48213\n", "exit_code": 0},
                    }
                )
                + "\n</tool_response>",
            },
            {"from": "gpt", "value": gpt("", f"48,213 rows. Questions about the data go to {temail}.", [])},
        ],
        "timestamp": "2026-04-27T15:02:11.000000",
        "model": "anthropic/claude-sonnet-4.5",
        "completed": True,
    }
    second = {
        "conversations": [
            {"from": "system", "value": SYSTEM},
            {"from": "human", "value": "list my home folder"},
            {
                "from": "gpt",
                "value": gpt("", "", [{"name": "terminal", "arguments": {"command": "ls /home/jdoe"}}]),
            },
            {
                "from": "tool",
                "value": "<tool_response>\n"
                + json.dumps(
                    {
                        "tool_call_id": "call_0",
                        "name": "terminal",
                        "content": {"output": "cron\nsrc\n", "exit_code": 0},
                    }
                )
                + "\n</tool_response>",
            },
            {"from": "gpt", "value": "<think>\n</think>\n/home/jdoe holds cron/ and src/."},
        ],
        "timestamp": "2026-04-27T15:05:40.000000",
        "model": "anthropic/claude-sonnet-4.5",
        "completed": True,
    }
    trel = "hermes/trajectory_samples.jsonl"
    files[trel] = jsonl([traj, second])
    PLANTED[trel] = Sample("hermes", "trajectory_samples.jsonl", [pg], [temail])


# -- generic formats ---------------------------------------------------------------------------------
def generic(files: dict[str, bytes]) -> None:
    r = rng("openai")
    slack = expand("xoxp-{{digits:12}}-{{digits:12}}-{{digits:13}}-{{hex:32}}", r)
    email = "jane.doe@acmecorp.dev"
    tools = [
        {
            "type": "function",
            "function": {
                "name": "terminal",
                "description": "Run a shell command",
                "parameters": {
                    "type": "object",
                    "properties": {"command": {"type": "string"}},
                    "required": ["command"],
                },
            },
        }
    ]
    rows = [
        {
            "messages": [
                {"role": "system", "content": "You are a helpful coding agent."},
                {"role": "user", "content": f"post 'deploy done' to #releases and cc {email}"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_abc123",
                            "type": "function",
                            "function": {
                                "name": "terminal",
                                "arguments": json.dumps(
                                    {
                                        "command": (
                                            f"curl -s -X POST -H 'Authorization: Bearer {slack}' -d channel=releases "
                                            "-d text='deploy done' https://slack.com/api/chat.postMessage"
                                        ),
                                        "cwd": "/home/jdoe/ops",
                                    }
                                ),
                            },
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_abc123", "name": "terminal", "content": '{"ok":true}'},
                {"role": "assistant", "content": "Posted to #releases."},
            ],
            "tools": tools,
        },
        {
            "messages": [
                {"role": "system", "content": "You are a helpful coding agent."},
                {"role": "user", "content": "how full is the disk?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_def456",
                            "type": "function",
                            "function": {
                                "name": "terminal",
                                "arguments": json.dumps({"command": "df -h /home/jdoe"}),
                            },
                        }
                    ],
                },
                {
                    "role": "tool",
                    "tool_call_id": "call_def456",
                    "name": "terminal",
                    "content": "/dev/sda1 460G 401G 59G 88% /home",
                },
                {"role": "assistant", "content": "88% full, 59G free."},
            ],
            "tools": tools,
        },
    ]
    rel = "generic/openai-chat.jsonl"
    files[rel] = jsonl(rows)
    PLANTED[rel] = Sample("openai", "openai-chat.jsonl", [slack], [email], arg_secret=slack)

    r = rng("swe-rebench")
    aws = expand("AKIA{{b32:16}}", r)
    semail = "maintainer@northwind-labs.io"
    row = {
        "trajectory_id": "chatcmpl-" + expand("{{hex:32}}", r),
        "instance_id": "acme__api-24",
        "repo": "acme/api",
        "trajectory": [
            {"role": "system", "content": "You are OpenHands agent, a helpful AI assistant ..."},
            {
                "role": "user",
                "content": "<uploaded_files>\n/workspace/acme__api__0.1\n</uploaded_files> Fix the S3 "
                "upload test.",
            },
            {
                "role": "assistant",
                "content": "Let me look at the test config.",
                "tool_calls": [
                    {
                        "id": "toolu_01",
                        "type": "function",
                        "function": {
                            "name": "execute_bash",
                            "arguments": json.dumps(
                                {"command": "cat /workspace/acme__api__0.1/tests/.env.test; ls /home/jdoe"}
                            ),
                        },
                    }
                ],
            },
            {
                "role": "tool",
                "name": "execute_bash",
                "tool_call_id": "toolu_01",
                "content": f"AWS_ACCESS_KEY_ID={aws}\nMAINTAINER={semail}\nls: cannot access '/home/jdoe': No such "
                "file or directory",
            },
            {"role": "assistant", "content": "The test reads real credentials; mock S3 instead."},
        ],
        "tools": tools,
        "model_patch": "diff --git a/tests/test_s3.py b/tests/test_s3.py\n...",
        "exit_status": "submit",
        "resolved": 1,
    }
    rel = "generic/swe-rebench-openhands.jsonl"
    files[rel] = jsonl([row])
    PLANTED[rel] = Sample("openai", "swe-rebench-openhands.jsonl", [aws], [semail])

    r = rng("sharegpt")
    npm = expand("{{npm}}", r)
    gemail = "jane.doe@northwind-labs.io"
    conv = {
        "conversations": [
            {"from": "system", "value": "You are a helpful coding agent."},
            {"from": "human", "value": f"set up npm publishing for the CLI; I'm {gemail} on npm"},
            {
                "from": "gpt",
                "value": "<tool_call>\n"
                + json.dumps(
                    {
                        "name": "terminal",
                        "arguments": {
                            "command": f"echo '//registry.npmjs.org/:_authToken={npm}' >> /home/jdoe/.npmrc"
                        },
                    }
                )
                + "\n</tool_call>",
            },
            {
                "from": "tool",
                "value": '<tool_response>\n{"name": "terminal", "content": ""}\n</tool_response>',
            },
            {"from": "gpt", "value": "Configured ~/.npmrc; run `npm publish --access public`."},
        ]
    }
    rel = "generic/sharegpt.jsonl"
    files[rel] = jsonl([conv])
    PLANTED[rel] = Sample("sharegpt", "sharegpt.jsonl", [npm], [gemail])

    r = rng("atif")
    okey = expand("sk-{{alnum:48}}", r)
    aemail = "eval-bot@acmecorp.dev"
    atif = {
        "schema_version": "ATIF-v1.6",
        "session_id": expand("{{uuid}}", r),
        "agent": {
            "name": "claude-code",
            "version": "2.1.74",
            "model_name": "claude-opus-4-6",
            "extra": {"cwd": "/home/jdoe/app"},
        },
        "steps": [
            {
                "step_id": 1,
                "timestamp": "2026-05-02T08:00:00Z",
                "source": "system",
                "message": "You are a coding agent working in /home/jdoe/app ...",
            },
            {
                "step_id": 2,
                "timestamp": "2026-05-02T08:00:01Z",
                "source": "user",
                "message": f"Fix the failing eval; results go to {aemail}",
            },
            {
                "step_id": 3,
                "timestamp": "2026-05-02T08:00:06Z",
                "source": "agent",
                "model_name": "claude-opus-4-6",
                "message": "Running the eval first.",
                "reasoning_content": "Reproduce before editing.",
                "tool_calls": [
                    {
                        "tool_call_id": "toolu_01",
                        "function_name": "Bash",
                        "arguments": {
                            "command": f"cd /home/jdoe/app && OPENAI_API_KEY={okey} python eval.py"
                        },
                    }
                ],
                "observation": {
                    "results": [
                        {
                            "source_call_id": "toolu_01",
                            "content": "E   AssertionError: expected 3, got 2\n1 failed in 0.12s",
                        }
                    ]
                },
                "metrics": {
                    "prompt_tokens": 5210,
                    "completion_tokens": 88,
                    "cached_tokens": 4096,
                    "cost_usd": 0.0041,
                },
            },
            {
                "step_id": 4,
                "timestamp": "2026-05-02T08:00:15Z",
                "source": "agent",
                "model_name": "claude-opus-4-6",
                "message": "Fixed the off-by-one in parse_range(); the eval passes.",
                "metrics": {
                    "prompt_tokens": 5600,
                    "completion_tokens": 40,
                    "cached_tokens": 5200,
                    "cost_usd": 0.0012,
                },
            },
        ],
        "final_metrics": {
            "total_prompt_tokens": 10810,
            "total_completion_tokens": 128,
            "total_cached_tokens": 9296,
            "total_cost_usd": 0.0053,
            "total_steps": 4,
        },
    }
    rel = "generic/atif/trajectory.json"
    files[rel] = pretty(atif)
    PLANTED[rel] = Sample("atif", "trajectory.json", [okey], [aemail])

    r = rng("sts")
    ghp = expand("{{github:gho}}", r)
    temail = "jane.doe@kestrel.dev"
    lines = [
        {
            "type": "session",
            "harness": "my-agent",
            "id": "sess-" + expand("{{hex:12}}", r),
            "name": "Clone private repo",
        },
        {
            "type": "message",
            "message": {
                "role": "user",
                "content": f"clone acme/secret-sauce into ~/src; I'm {temail}",
                "timestamp": 1777300223000,
            },
        },
        {
            "type": "message",
            "message": {
                "role": "assistant",
                "content": "",
                "reasoningContent": "Clone with the token.",
                "model": "claude-sonnet-4-5",
                "toolCalls": [
                    {
                        "id": "t1",
                        "function": {
                            "name": "terminal",
                            "arguments": json.dumps(
                                {
                                    "command": (
                                        f"gh auth login --with-token <<< {ghp} && gh repo clone "
                                        "acme/secret-sauce /Users/jdoe/src/secret-sauce"
                                    )
                                }
                            ),
                        },
                    }
                ],
                "timestamp": 1777300225100,
            },
        },
        {
            "type": "message",
            "message": {
                "role": "tool",
                "toolCallId": "t1",
                "content": "Cloning into '/Users/jdoe/src/secret-sauce'...\ndone.",
                "timestamp": 1777300226400,
            },
        },
        {
            "type": "message",
            "message": {
                "role": "assistant",
                "content": "Cloned into ~/src/secret-sauce.",
                "timestamp": 1777300228000,
            },
        },
    ]
    rel = "generic/sts.jsonl"
    files[rel] = jsonl(lines)
    PLANTED[rel] = Sample("sts", "sts.jsonl", [ghp], [temail], arg_secret=ghp)


def build() -> dict[str, bytes]:
    """Every sample file (path relative to sample_traces/ -> bytes). Fills ``PLANTED``."""
    PLANTED.clear()
    files: dict[str, bytes] = {}
    for make in (claude, codex, pi, gemini, opencode, hermes, generic):
        make(files)
    return files


def sql_dump(data: bytes) -> list[str]:
    """A SQLite file's content as SQL (what 'the same database' means across SQLite versions)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.db"
        path.write_bytes(data)
        con = sqlite3.connect(path)
        try:
            return list(con.iterdump())
        finally:
            con.close()


def same(rel: str, new: bytes, old: bytes) -> bool:
    return sql_dump(new) == sql_dump(old) if rel.endswith(".db") else new == old


def main() -> None:
    for rel, data in sorted(build().items()):
        path = HERE / rel
        if path.exists() and same(rel, data, path.read_bytes()):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"wrote {rel}")


if __name__ == "__main__":
    main()
