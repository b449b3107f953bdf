"""The dataset card's ``configs``: one per kind of file, so ``datasets.load_dataset(repo, NAME)`` loads each.

Why one per kind: ``datasets`` gives one config one schema. Loading the whole folder at once made
it pick a parser from the first file it read and fail on every other harness (``CastError``),
or hand Gemini CLI and STS files to the agent-trace parser (``teich``), which labelled them
``claude_code`` or ``pi`` with no messages. So every file goes into the config of its kind:

- **parsed** kinds (Claude Code, Codex, pi: the native JSONL the Hub documents for its Agent
  Traces) get no schema, so ``datasets`` recognises them and decodes each session into one row
  of messages with ``teich``. Without ``teich`` installed these configs raise ``ImportError``;
  their files are plain JSONL (the card says how to read them raw).
- **raw** kinds (Gemini CLI, STS from OpenCode and Hermes, Hermes trajectories, legacy Codex,
  the generic formats) are ones ``teich`` misreads or does not know. They load as one row per
  line, every top-level key a ``Json`` column, declared in the card: ``datasets`` otherwise takes the schema
  from the first file and refuses the next one with another key. Declared features also keep
  ``teich`` out of them. The keys are read from the files when the card is written (each raw
  line parsed once: these harnesses are usually a small part of a dataset).
- JSON documents (legacy Gemini CLI, ATIF, ``.json`` generic files) and Claude Code's
  ``.meta.json`` sidecars are in no config: the card says to download them as files.

Globs are per harness folder and extension where that separates the kinds, else per folder,
else the file itself, so a config never takes a file of another kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import orjson

PARSED = ("claude_code", "codex", "pi")  # what teich decodes correctly (the Hub's Agent Traces)
MISREAD = {  # what the card says about a raw kind's harness
    "gemini_cli": "teich labels Gemini CLI sessions `claude_code`, with no messages",
    "opencode": "teich labels these STS files `pi`",
    "hermes": "teich labels these STS files `pi`",
    "hermes_trajectories": "teich does not read Hermes trajectories",
    "sts": "teich labels STS files `pi`",
    "codex_legacy": "teich does not read the legacy Codex layout",
}


@dataclass
class Kind:
    """One config: a kind of file and the files of that kind."""

    name: str
    harness: str
    ext: str
    parsed: bool
    files: list[str] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)
    globs: list[str] = field(default_factory=list)

    def config(self) -> dict[str, Any]:
        cfg: dict[str, Any] = {"config_name": self.name, "data_files": self.globs}
        return cfg

    def info(self) -> dict[str, Any] | None:
        if self.parsed:
            return None
        return {
            "config_name": self.name,
            "features": [{"name": k, "dtype": "json"} for k in sorted(self.keys)],
        }


def _first_record(path: Path) -> Any:
    with open(path, "rb") as fh:
        for line in fh:
            if line.strip():
                return orjson.loads(line)
    return None


def _kind(harness: str, path: Path) -> str | None:
    """The kind of one dataset file, or None when no config can load it: JSON documents (legacy
    Gemini CLI, ATIF, ``.json`` generic files) and sidecars. A document's only row is the file;
    ``datasets`` reads a document's list of rows only through pandas, which refuses the first
    value that is a list in one item and a string in another (Gemini's ``content``)."""
    if not path.name.endswith(".jsonl"):
        return None
    try:
        first = _first_record(path)
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(first, dict):
        return None
    if harness == "codex" and not ("type" in first and "payload" in first):
        return "codex_legacy"
    if harness == "hermes" and first.get("type") != "session":
        return "hermes_trajectories"
    return harness
    return None


def _keys(path: Path) -> set[str] | None:
    """Every top-level key of a JSONL file's lines, or None if a line is not a JSON object
    (``datasets`` could not load the file)."""
    keys: set[str] = set()
    try:
        with open(path, "rb") as fh:
            for line in fh:
                if line.strip():
                    rec = orjson.loads(line)
                    if not isinstance(rec, dict):
                        return None
                    keys.update(rec)
    except (OSError, orjson.JSONDecodeError):
        return None
    return keys


def _rx(glob: str) -> re.Pattern[str]:
    """A glob as ``datasets`` reads it: ``**/`` any folders (none included), ``*`` within one."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _quote(part: str) -> str:
    """A path part as a literal inside a glob (``[``, ``*`` and ``?`` would be patterns)."""
    return re.sub(r"([\[\]*?])", r"[\1]", part)


def _globs(kind: Kind, others: list[str]) -> list[str]:
    """The fewest globs that take every file of ``kind`` and none of ``others`` (files of
    other kinds, and files no config loads)."""
    broad = f"{_quote(kind.harness)}/**/*{kind.ext}"
    if not any(_rx(broad).match(o) for o in others):
        return [broad]
    globs: list[str] = []
    by_folder: dict[str, list[str]] = {}
    for f in kind.files:
        by_folder.setdefault(str(PurePosixPath(f).parent), []).append(f)
    for folder, files in sorted(by_folder.items()):
        g = "/".join(_quote(p) for p in PurePosixPath(folder).parts) + f"/*{kind.ext}"
        if not any(_rx(g).match(o) for o in others):
            globs.append(g)
        else:
            globs.extend("/".join(_quote(p) for p in PurePosixPath(f).parts) for f in files)
    return globs


def _hidden(name: str) -> bool:
    """``datasets`` skips files under a folder or with a name starting with ``.`` or ``__``."""
    return any(p.startswith((".", "__")) for p in PurePosixPath(name).parts)


def kinds(dataset: Path, names: list[str]) -> tuple[list[Kind], list[str]]:
    """The configs for the files ``names`` (paths under ``dataset``, the card excluded), and the
    files no config loads (sidecars, documents without a list of rows, hidden paths)."""
    found: dict[str, Kind] = {}
    left: list[str] = []
    for n in sorted(names):
        harness = n.split("/", 1)[0]
        k = None if "/" not in n or _hidden(n) else _kind(harness, dataset / n)
        if k is None:
            left.append(n)
            continue
        kname = k
        keys = None if kname in PARSED else _keys(dataset / n)
        if keys is None and kname not in PARSED:
            left.append(n)
            continue
        kind = found.get(kname)
        if kind is None:
            kind = found[kname] = Kind(kname, harness, ".jsonl", kname in PARSED)
        kind.files.append(n)
        kind.keys |= keys or set()
    out = sorted(found.values(), key=lambda k: k.name)
    for kind in out:
        mine = set(kind.files)
        kind.globs = _globs(kind, [n for n in names if n not in mine])
    return out, left
