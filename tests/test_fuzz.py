"""Fuzz suite (Hypothesis, #9): readers, walker and writer on what no session should hold.

Each harness's sample (``sample_traces/``) is damaged at random: lines of random bytes or of
random Unicode (lone surrogates, bidi and control characters), lines cut short, lines nested
thousands deep, odd strings and JSON inside strings put into records; SQLite stores get random
bytes over their pages. Each damaged file goes through the real discovery and the real worker
(``run.workers._process``, in this process), and must keep these properties:

- nothing raises, and a JSONL or JSON session never fails as a whole for a bad line;
- every line is accounted for: written back (the output has as many lines as the input), and
  each line that was not JSON (or not UTF-8, or nested too deep) is a reported problem;
- valid JSON out where JSON came in (a line, a document, a JSON string inside a record);
- a planted fake GitHub token (``tracepub.fakes``) never reaches dataset/.

The walker must hand back an untouched value as the same object and re-encode what it changes
as JSON of the same shape; the writer must write exactly the bytes given, with their digest.

CI runs a derandomized profile (``CI`` set: the same examples every run, no example database);
elsewhere examples are random and kept in ``.hypothesis/``. ``TRACEPUB_FUZZ_EXAMPLES`` multiplies
the number of examples (``TRACEPUB_FUZZ_EXAMPLES=20 pytest tests/test_fuzz.py`` for a long run).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import SAMPLES

from tracepub.detect.registry import DetectConfig
from tracepub.fakes import expand
from tracepub.model import Record, Unit
from tracepub.outputs.writers import NativeWriter
from tracepub.readers import reader_for_unit
from tracepub.redact.placeholders import Namer
from tracepub.run import workers
from tracepub.sources.discover import discover
from tracepub.walk.walker import KEY, Walker, dumps_like, dumps_like_bytes

settings.register_profile(
    "ci", derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
SCALE = max(1, int(os.environ.get("TRACEPUB_FUZZ_EXAMPLES", "1")))

KEY_BYTES = bytes(range(32))
ARGS = workers.worker_args(
    DetectConfig(identity={"jdoe": "identity.username"}, ner=False), KEY_BYTES, set(), True, ()
)
TOKEN = expand("{{github:ghp}}", random.Random(2024))

JSONL = {  # a sample of every JSONL harness, by its path under sample_traces/
    "claude": "claude/projects/-Users-jdoe-src-acme-api/7eef970a-c016-4ec6-a9e9-42a2cb1066f2.jsonl",
    "codex": "codex/sessions/2026/04/29/rollout-2026-04-29T10-58-39-019cd8e4-15dd-7143-95e8-9cc8a14c3ae4.jsonl",
    "codex_legacy": "codex/sessions/rollout-2025-05-07-b217e735-fac1-433a-ad32-515edec2ae48.jsonl",
    "pi": "pi/agent/sessions/--Users-jdoe-src-acme-api--/2026-03-01T10-15-30-123Z_82301937-f288-4894-ae8e-81924c6c13f8.jsonl",
    "gemini": "gemini/tmp/acme-web/chats/session-2026-04-10T09-12-81c4afc3.jsonl",
    "hermes_trajectories": "hermes/trajectory_samples.jsonl",
    "openai": "generic/openai-chat.jsonl",
    "sharegpt": "generic/sharegpt.jsonl",
    "sts": "generic/sts.jsonl",
}
DOCS = {  # one JSON document per session
    "gemini_legacy": "gemini/tmp/acme-web/chats/session-2026-03-02T08-00-e295cc64.json",
    "atif": "generic/atif/trajectory.json",
    "hermes_session": "hermes/sessions/session_20260301_091500_vm6kfm.json",
}
STORES = {"hermes_db": "hermes/state.db", "opencode_db": "opencode/opencode.db"}

# Characters that break things: bidi and control characters, lone surrogates, JSON's own.
SPECIAL = [
    *"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\x1b\x07\x00\x7f\x85",
    *'\u2028\u2029\ufeff\ufffd"\\{}[]:,\n\r\t /',
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    "\U0001f600",
    "\\u",
    "\\ud800",
    "ghp_",
    "/home/jdoe/",
    "://",
]
PIECES = st.one_of(st.characters(exclude_categories=()), st.sampled_from(SPECIAL))  # surrogates included
# Parsed JSON never holds a high surrogate right before a low one (the parser joins such an
# escaped pair into one character), so the strings drawn do not either.
_PAIR = re.compile("([\ud800-\udbff])(?=[\udc00-\udfff])")
TEXT = st.lists(PIECES, max_size=24).map(lambda pieces: _PAIR.sub(r"\1 ", "".join(pieces)))


def json_values(strings: st.SearchStrategy[str] = TEXT) -> st.SearchStrategy[Any]:
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        strings,
    )
    return st.recursive(
        leaves,
        lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(strings, c, max_size=4)),
        max_leaves=12,
    )


def with_json_inside(draw: st.DrawFn) -> str:
    """A string holding JSON, as tool arguments do."""
    return json.dumps(draw(json_values()), ensure_ascii=draw(st.booleans()))


# -- the files ------------------------------------------------------------------------------------
@contextmanager
def scratch() -> Iterator[Path]:
    """A folder for one example (Hypothesis runs many in one test: no function-scoped tmp_path)."""
    path = Path(tempfile.mkdtemp(prefix="tracepub-fuzz-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def place(root: Path, rel: str, data: bytes) -> Path:
    """``data`` at ``rel`` under a copy of the sample's folder layout (readers look at it)."""
    path = root / "src" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def deep(depth: int, obj: bool) -> str:
    return ('{"a":' * depth + "1" + "}" * depth) if obj else ("[" * depth + "1" + "]" * depth)


@st.composite
def damaged_jsonl(draw: st.DrawFn, rel: str) -> tuple[bytes, int]:
    """A sample's lines, damaged; returns the bytes and the line holding the planted token (-1: none)."""
    lines: list[bytes] = (SAMPLES / rel).read_bytes().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for _ in range(draw(st.integers(0, 5))):
        op = draw(st.sampled_from(["bytes", "text", "deep", "cut", "value", "inner", "blank"]))
        at = draw(st.integers(0, len(lines)))
        if op == "bytes":
            lines.insert(at, draw(st.binary(max_size=60)).replace(b"\n", b" "))
        elif op == "text":
            lines.insert(at, draw(TEXT).replace("\n", " ").encode("utf-8", "surrogatepass"))
        elif op == "deep":
            lines.insert(
                at,
                deep(draw(st.sampled_from([2, 50, 399, 401, 990, 1100, 5000])), draw(st.booleans())).encode(),
            )
        elif op == "blank":
            lines.insert(at, draw(st.sampled_from([b"", b"  ", b"\r", b"\t"])))
        elif lines:
            i = min(at, len(lines) - 1)
            if op == "cut":
                lines[i] = lines[i][: draw(st.integers(0, max(0, len(lines[i]) - 1)))]
                continue
            try:
                rec = json.loads(lines[i])
            except (ValueError, RecursionError):
                continue
            if isinstance(rec, dict):
                rec["fz"] = draw(TEXT) if op == "value" else with_json_inside(draw)
                lines[i] = json.dumps(rec, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    planted = -1
    dicts = [i for i, x in enumerate(lines) if _dict_line(x)]
    if dicts:
        planted = draw(st.sampled_from(dicts))
        rec = json.loads(lines[planted])
        rec["fz_note"] = f"{draw(TEXT)} {TOKEN} {draw(TEXT)}"
        lines[planted] = json.dumps(rec, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    end = b"\n" if draw(st.booleans()) or not lines else b""
    return b"\n".join(lines) + end, planted


def _dict_line(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def _json_line(line: bytes) -> bool:
    """What the readers take for a JSON line: UTF-8, one JSON value (a lone surrogate escape allowed)."""
    try:
        json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return True


# -- running the real discovery and worker -------------------------------------------------------
def process(path: Path, root: Path) -> tuple[list[Any], list[str], Path]:
    """Discover ``path`` (by its folder, as a SOURCE) and redact each of its units; returns the
    results, the problems and skipped entries of discovery, and the output folder."""
    workers.prepare(ARGS)  # built once; other tests may have built another worker state meanwhile
    disc = discover([path.parent])
    out = root / "out"
    results = []
    for i, unit in enumerate(disc.units):
        dest = f"{unit.harness}/{i}-{Path(unit.relpath).name}"
        results.append((unit, workers._process(workers.task(i, unit, dest, out))))
    said = [str(p) for p in disc.problems] + list(disc.skipped)
    return results, said, out


def dataset_bytes(out: Path) -> bytes:
    ds = out / "dataset"
    return b"".join(p.read_bytes() + str(p).encode() for p in sorted(ds.rglob("*")) if p.is_file())


def check_no_token(out: Path) -> None:
    assert TOKEN.encode() not in dataset_bytes(out), "the planted token reached dataset/"


@pytest.mark.parametrize("name", sorted(JSONL))
@settings(max_examples=30 * SCALE)
@given(data=st.data())
def test_jsonl_readers_keep_every_line_and_never_leak_the_token(name, data):
    rel = JSONL[name]
    raw, planted = data.draw(damaged_jsonl(rel))
    with scratch() as root:
        path = place(root, rel, raw)
        results, said, out = process(path, root)
        mine = [(u, r) for u, r in results if u.source == path]
        if not mine:  # a first line damaged past recognition: skipped or reported, never silently
            assert any(str(path) in s for s in said), said
            return
        ((unit, res),) = mine
        assert res.ok, res.problems
        check_no_token(out)
        if unit.kind != "jsonl" or reader_for_unit(unit).records.__qualname__.split(".")[0] not in (
            "JsonlReader",
            type(reader_for_unit(unit)).__name__,
        ):
            return
        if "hermes" in unit.harness and unit.reader != "HermesTrajectories":
            return  # converted to STS: checked by the STS tests
        written = (out / "dataset" / res.dest).read_bytes()
        got = written.split(b"\n")[:-1]
        want = raw.split(b"\n")
        if raw.endswith(b"\n"):
            want.pop()
        assert len(got) == len(want), "a line was lost or added"
        reported = {p.line for p in res.problems}
        for n, (a, b) in enumerate(zip(want, got, strict=True), 1):
            if _json_line(a) and n not in reported:
                assert _json_line(b), f"line {n}: JSON in, not JSON out: {b[:200]!r}"
            elif a.decode("utf-8", "replace").strip() and not _json_line(a):  # blank (U+0085 too): kept as is
                assert n in reported, f"line {n} is not JSON and was not reported"
        if planted >= 0:
            assert TOKEN.encode() not in got[planted]


@st.composite
def damaged_doc(draw: st.DrawFn, rel: str) -> bytes:
    text = (SAMPLES / rel).read_text(encoding="utf-8")
    doc = json.loads(text)
    op = draw(st.sampled_from(["cut", "value", "inner", "deep", "bytes", "plant"]))
    if op == "cut":
        return text.encode()[: draw(st.integers(0, len(text) - 1))]
    if op == "bytes":
        return draw(st.binary(max_size=200))
    target = doc if isinstance(doc, dict) else {}
    if op == "value":
        target["fz"] = draw(TEXT)
    elif op == "inner":
        target["fz"] = with_json_inside(draw)
    elif op == "deep":
        target["fz"] = json.loads(deep(draw(st.sampled_from([5, 300, 450])), draw(st.booleans())))
    target["fz_note"] = f"{draw(TEXT)} {TOKEN} {draw(TEXT)}"
    return json.dumps(doc, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 2]))).encode(
        "utf-8", "surrogatepass"
    )


@pytest.mark.parametrize("name", sorted(DOCS))
@settings(max_examples=30 * SCALE)
@given(data=st.data())
def test_document_readers_never_fail_the_run_nor_leak_the_token(name, data):
    rel = DOCS[name]
    raw = data.draw(damaged_doc(rel))
    with scratch() as root:
        path = place(root, rel, raw)
        results, said, out = process(path, root)
        mine = [(u, r) for u, r in results if u.source == path]
        if not mine:
            assert any(str(path) in s for s in said), said
            return
        for unit, res in mine:
            if not res.ok:  # a store-like reader (Hermes' log) may fail a session: then it says so
                assert any("failed" in str(p) for p in res.problems)
                continue
            check_no_token(out)
            written = (out / "dataset" / res.dest).read_bytes()
            if unit.kind == "json" and _json_line(raw) and not res.problems:
                assert _json_line(written), "JSON in, not JSON out"
            elif unit.kind == "jsonl":
                assert all(_json_line(x) for x in written.split(b"\n")[:-1]), "an STS line is not JSON"


@pytest.mark.parametrize("name", sorted(STORES))
@settings(max_examples=20 * SCALE)
@given(data=st.data())
def test_damaged_sqlite_stores_are_reported_never_raised(name, data):
    rel = STORES[name]
    with scratch() as root:
        path = place(root, rel, (SAMPLES / rel).read_bytes())
        if name == "hermes_db":  # plant the token in every message, then damage the pages
            con = sqlite3.connect(path)
            con.execute("UPDATE messages SET content = coalesce(content, '') || ?", (f" use {TOKEN} now",))
            con.commit()
            con.close()
        buf = bytearray(path.read_bytes())
        for _ in range(data.draw(st.integers(1, 6))):
            at = data.draw(st.integers(0, len(buf) - 1))
            chunk = data.draw(st.binary(min_size=1, max_size=64))
            buf[at : at + len(chunk)] = chunk
        path.write_bytes(bytes(buf[: data.draw(st.integers(len(buf) // 2, len(buf)))]))
        results, said, out = process(path, root)
        for _unit, res in results:
            assert res.ok or any("failed" in str(p) for p in res.problems)
            if res.ok:
                written = (out / "dataset" / res.dest).read_bytes()
                assert all(_json_line(x) for x in written.split(b"\n")[:-1]), "an STS line is not JSON"
        check_no_token(out)


STORAGE = sorted(
    p.relative_to(SAMPLES).as_posix() for p in (SAMPLES / "opencode" / "storage").rglob("*.json")
)


@settings(max_examples=30 * SCALE)
@given(data=st.data())
def test_damaged_opencode_storage_tree_is_reported_never_raised(data):
    """OpenCode's legacy tree: one of its documents damaged (or given a token), the rest intact."""
    with scratch() as root:
        for rel in STORAGE:
            place(root, rel, (SAMPLES / rel).read_bytes())
        rel = data.draw(st.sampled_from(STORAGE))
        path = place(root, rel, data.draw(damaged_doc(rel)))
        workers.prepare(ARGS)
        disc = discover([root / "src" / "opencode" / "storage"])
        out = root / "out"
        for i, unit in enumerate(disc.units):
            res = workers._process(workers.task(i, unit, f"opencode/{i}.jsonl", out))
            assert res.ok or any("failed" in str(p) for p in res.problems)
            if res.ok:
                written = (out / "dataset" / res.dest).read_bytes()
                assert all(_json_line(x) for x in written.split(b"\n")[:-1]), "an STS line is not JSON"
        assert disc.units or disc.problems or disc.skipped, f"{path}: the session vanished unreported"
        check_no_token(out)


# -- the walker ----------------------------------------------------------------------------------
def shape(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(x) for x in v]
    return type(v).__name__


STRINGS = st.one_of(TEXT, st.builds(lambda v: json.dumps(v), json_values()))


@settings(max_examples=150 * SCALE)
@given(value=json_values(STRINGS), ensure_ascii=st.booleans(), indent=st.sampled_from([None, 2]))
def test_walker_copies_only_what_changes_and_writes_json_back(value, ensure_ascii, indent):
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    assert Walker(lambda t, p, k: t).walk(value) is value  # nothing changed: the same object

    def visit(t: str, path: tuple, key: str | None) -> str:
        return t if path and path[-1] is KEY else "<X>" + t.swapcase()  # (reversed, lone surrogates pair up)

    new = Walker(visit).walk(value)
    assert shape(new) == shape(value)
    for out in (dumps_like(text, new), dumps_like_bytes(text, new).decode("utf-8")):
        assert json.loads(out) == new or out == dumps_like(text, new)  # NaN-free values: equal


@settings(max_examples=100 * SCALE)
@given(value=json_values(STRINGS), before=TEXT, after=TEXT, data=st.data())
def test_a_planted_token_never_survives_the_redactor(value, before, after, data):
    workers.prepare(ARGS)
    red = workers._WORKER["redactor"]
    spot = f"{before} {TOKEN} {after}"
    holder = (
        {"fz": spot, "v": value} if data.draw(st.booleans()) else [value, {"args": json.dumps({"x": spot})}]
    )
    red.start_unit("fuzz/x.jsonl", "claude_code", None)
    problems: list = []
    # as the worker redacts a record (a lone surrogate in a key of JSON in a string: read as U+FFFD)
    new = workers._redact(red, Record(1, holder), problems, Unit("claude_code", Path("x"), "x"), True)
    red.findings.clear()
    assert TOKEN not in json.dumps(new, ensure_ascii=False)


# -- the writer ----------------------------------------------------------------------------------
@settings(max_examples=60 * SCALE)
@given(
    records=st.lists(st.binary(max_size=3000).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    lines=st.booleans(),
    buffering=st.sampled_from([1, 7, 4096, 1 << 20]),
    abort=st.booleans(),
)
def test_writer_writes_exactly_the_records_with_their_digest(records, lines, buffering, abort):
    with scratch() as root:
        target = root / "d" / "out.jsonl"
        w = NativeWriter(lines=lines, buffering=buffering)
        w.open(target)
        for r in records:
            w.write(r)
        if abort:
            w.abort()
            assert not target.exists() and list(target.parent.iterdir()) == []
            return
        sha, stamp = w.close()
        data = target.read_bytes()
        assert data == b"".join(r + (b"\n" if lines else b"") for r in records)
        assert sha == hashlib.sha256(data).hexdigest() and stamp[2] == len(data)
        assert [p.name for p in target.parent.iterdir()] == ["out.jsonl"]  # no temporary file left


def test_the_fuzz_setup_is_sound():
    """The token is one the detectors find, and every sample is read as its harness."""
    workers.prepare(ARGS)
    red = workers._WORKER["redactor"]
    red.start_unit("x", "claude_code", None)
    assert TOKEN not in red.redact_text(f"use {TOKEN} now")
    red.findings.clear()
    assert Namer(KEY_BYTES)
    for rel in [*JSONL.values(), *DOCS.values(), *STORES.values()]:
        assert (SAMPLES / rel).exists(), rel
