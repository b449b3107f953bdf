"""The input hash of an incremental run is taken from the bytes the reader reads
(``readers.base.records_hashing``): it must be the digest of the whole file, whatever its lines
look like, so that a re-run reuses exactly the sources whose bytes did not change."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from tracepub.model import Unit
from tracepub.readers.base import JsonDocReader, JsonlReader, records_hashing
from tracepub.readers.claude import ClaudeCode
from tracepub.readers.generic import Atif
from tracepub.run import incremental
from tracepub.run.pipeline import run
from tracepub.runtypes import RunOptions
from tracepub.sources.settings import detect_config

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import claude_gen  # noqa: E402

LINE = json.dumps({"type": "user", "message": {"role": "user", "content": "héllo ✓"}}).encode()
JSONL_BODIES = {
    "plain": LINE + b"\n" + LINE + b"\n",
    "no final line break": LINE + b"\n" + LINE,
    "blank lines": b"\n" + LINE + b"\n\n  \n" + LINE + b"\n\n",
    "crlf": LINE + b"\r\n" + LINE + b"\r\n",
    "invalid utf-8": LINE + b"\n" + b'{"type":"user","x":"\xff\xfe"}\n',
    "not json": LINE + b"\nthis is not json\n{broken\n",
    "empty": b"",
    "one line break": b"\n",
}


def _records(recs) -> list[tuple]:
    return [(r.index, r.value, r.raw, r.raw_text) for r in recs]


@pytest.mark.parametrize("name", sorted(JSONL_BODIES))
def test_jsonl_digest_is_the_files(tmp_path, name):
    path = tmp_path / "s.jsonl"
    path.write_bytes(JSONL_BODIES[name])
    unit = Unit("claude_code", path, "s.jsonl", "jsonl", deps=(path,), reader="ClaudeCode")
    reader = ClaudeCode()
    digest = hashlib.sha256()
    problems: list = []
    recs = records_hashing(reader, unit, problems, digest)
    assert recs is not None
    got = _records(recs)
    plain_problems: list = []
    assert got == _records(reader.records(unit, plain_problems)) and problems == plain_problems
    assert digest.digest() == hashlib.sha256(JSONL_BODIES[name]).digest()
    assert incremental.content_sha256(unit, {path: digest.digest()}) == incremental.content_sha256(unit)


@pytest.mark.parametrize(
    "body", [b'{"schema_version": "ATIF-1", "steps": []}\n', b'{"a": "\xff"}', b"not json"]
)
def test_json_document_digest_is_the_files(tmp_path, body):
    path = tmp_path / "t.json"
    path.write_bytes(body)
    unit = Unit("atif", path, "t.json", "json", deps=(path,), reader="Atif")
    digest = hashlib.sha256()
    problems: list = []
    recs = records_hashing(Atif(), unit, problems, digest)
    assert recs is not None
    plain_problems: list = []
    assert _records(recs) == _records(Atif().records(unit, plain_problems)) and problems == plain_problems
    assert digest.digest() == hashlib.sha256(body).digest()


def test_no_digest_where_the_reader_reads_otherwise(tmp_path):
    """A unit made of several files, or a reader with its own ``records``: hashed apart."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(LINE + b"\n")
    other = tmp_path / "meta.json"
    other.write_bytes(b"{}")
    unit = Unit("claude_code", path, "s.jsonl", "jsonl", deps=(path, other), reader="ClaudeCode")
    assert records_hashing(ClaudeCode(), unit, [], hashlib.sha256()) is None

    class Own(JsonlReader):
        def records(self, unit, problems):
            yield from ()

    class OwnDoc(JsonDocReader):
        def records(self, unit, problems):
            yield from ()

    one = Unit("x", path, "s.jsonl", "jsonl", deps=(path,), reader="Own")
    assert records_hashing(Own(), one, [], hashlib.sha256()) is None
    assert records_hashing(OwnDoc(), one, [], hashlib.sha256()) is None
    assert records_hashing(ClaudeCode(), one, [], hashlib.sha256()) is not None


def test_awkward_files_are_reused_on_a_second_run_and_redone_when_changed(tmp_path):
    """Files without a final line break, with blank lines, CRLF or bad UTF-8: the digest the
    workers record is the one a re-run computes from disk, so they are reused; a same-size edit
    is redone."""
    src = tmp_path / "src"
    claude_gen.generate(src, 600_000, seed=4)
    files = sorted(src.rglob("*.jsonl"))
    assert len(files) >= 2
    first = files[0].read_bytes()
    files[0].write_bytes(first.rstrip(b"\n"))  # no final line break
    with open(files[1], "ab") as fh:
        fh.write(b"\n\r\n" + b'{"type":"user","x":"\xff"}\r\n')
    dc, _, _ = detect_config((), None, None, False)
    out = tmp_path / "out"
    one = run(RunOptions(out=out, sources=[src], detect=dc, jobs=1)).to_json()
    state = json.loads((out / "review/state.json").read_text())
    assert len(state["units"]) == one["files"]
    two = run(RunOptions(out=out, sources=[src], detect=dc, jobs=1)).to_json()
    assert two["reused"] == one["files"]
    data = files[0].read_bytes()
    at = data.index(b'"type"') + 2
    files[0].write_bytes(
        data[:at] + (b"X" if data[at : at + 1] != b"X" else b"Y") + data[at + 1 :]
    )  # same size
    three = run(RunOptions(out=out, sources=[src], detect=dc, jobs=1)).to_json()
    assert three["reused"] == one["files"] - 1
