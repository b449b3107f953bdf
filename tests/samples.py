"""Helpers shared by the reader, discovery and bad-input tests: the sample traces and structure checks."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from tracepub.detect.registry import DetectConfig
from tracepub.run.pipeline import run
from tracepub.runtypes import RunOptions, RunSummary

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_traces"

# sample_traces/<folder> is laid out like this folder of a home (see sample_traces/generate.py).
HOME_LAYOUT = {
    "claude": ".claude",
    "codex": ".codex",
    "pi": ".pi",
    "gemini": ".gemini",
    "opencode": ".local/share/opencode",
    "hermes": ".hermes",
}


def generator():
    """sample_traces/generate.py as a module (it is a script, not part of the package)."""
    name = "sample_traces_generate"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SAMPLES / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    module.build()  # fills PLANTED
    return module


def claude_prompts(path: Path, texts: list[str], cwd: str = "/work/app") -> None:
    """A minimal Claude Code session at ``path``: one user message per text, in ``cwd``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(
            {
                "type": "user",
                "uuid": f"u{n}",
                "sessionId": path.stem,
                "cwd": cwd,
                "timestamp": f"2026-03-01T10:00:{n:02d}.000Z",
                "message": {"role": "user", "content": text},
            }
        )
        for n, text in enumerate(texts)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def redact(sources: list[Path], out: Path, **identity: str) -> RunSummary:
    """Run the pipeline in-process (one job), with ``jdoe`` as the user's own name."""
    ident = {"jdoe": "identity.username", **identity}
    return run(RunOptions(out=out, sources=sources, detect=DetectConfig(identity=ident), jobs=1))


def make_home(home: Path) -> Path:
    """A fake $HOME holding every harness's default location, built from the samples."""
    for folder, target in HOME_LAYOUT.items():
        shutil.copytree(SAMPLES / folder, home / target, dirs_exist_ok=True)
    return home


def output_file(out: Path, harness: str, name: str) -> Path:
    hits = sorted((out / "dataset" / harness).rglob(name))
    assert len(hits) == 1, f"expected one {harness}/**/{name} in the output, found {hits}"
    return hits[0]


def maybe_json(text: str) -> Any:
    s = text.strip()
    if len(s) < 2 or s[0] not in "{[" or s[-1] not in "}]":
        return None
    try:
        value = json.loads(s)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


def shape(value: Any) -> Any:
    """The structure of a JSON value: keys, nesting and types, not string contents.

    JSON encoded inside a string is part of the structure (a tool argument must still parse,
    with the same keys, after redaction)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value]
    if isinstance(value, str):
        inner = maybe_json(value)
        return ("json", shape(inner)) if inner is not None else "str"
    return type(value).__name__


def lines_of(path: Path) -> list[str]:
    return path.read_bytes().decode("utf-8").split("\n")


def all_keys(value: Any, out: set[str] | None = None) -> set[str]:
    """Every object key at any depth, JSON inside strings included."""
    out = set() if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            all_keys(v, out)
    elif isinstance(value, list):
        for v in value:
            all_keys(v, out)
    elif isinstance(value, str):
        inner = maybe_json(value)
        if inner is not None:
            all_keys(inner, out)
    return out


def check_sts(path: Path) -> list[dict]:
    """Assert ``path`` is valid STS; return its lines."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    head = lines[0]
    assert head["type"] == "session" and isinstance(head["harness"], str) and isinstance(head["id"], str)
    assert lines[1:], "an STS file has messages"
    for line in lines[1:]:
        assert line["type"] == "message"
        msg = line["message"]
        assert msg["role"] in ("user", "assistant", "system", "tool")
        assert isinstance(msg["content"], str)
        for call in msg.get("toolCalls", []):
            assert isinstance(call["id"], str) and isinstance(call["function"]["name"], str)
            assert isinstance(json.loads(call["function"]["arguments"]), (dict, list))
        if "toolCallId" in msg:
            assert isinstance(msg["toolCallId"], str)
        if "timestamp" in msg:
            assert isinstance(msg["timestamp"], int)
        if "reasoningContent" in msg:
            assert isinstance(msg["reasoningContent"], str)
    return lines
