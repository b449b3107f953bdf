"""Faults that held on #9's first try, kept held: each with a test of its own.

Already tested elsewhere: invalid UTF-8 with file and line (test_bad_input), unreadable files
(test_bad_input, as a non-root user would see it), kill -9 during a run and inside the
manifest's and the card's renames (test_crash), byte edits refused by publish and the token
never printed (test_publish), HTML payloads in every field inert (test_report_safety). Here:
truncated lines, a binary ``.jsonl``, a line with many keys, a very long line, lines appended
while the run reads the file, redact while publish runs, the publish gate against a symlink,
a hidden file and a key planted after approve, and the Hub's 500s and dropped connections.

The full sizes of two faults (a line with 1M keys, a 200 MB line) take a minute and gigabytes;
they run with ``TRACEPUB_BIG_TESTS=1``; smaller ones (100k keys, 5 MB) always.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hubserver import TOKEN
from reviewkit import invoke, redacted_dir
from samples import SAMPLES, lines_of, redact

import tracepub
from tracepub.fakes import expand
from tracepub.outputs.files import read_manifest

CODEX = next(SAMPLES.glob("codex/sessions/2026/**/*.jsonl"))
REPO = "me/agent-traces"
BIG = bool(os.environ.get("TRACEPUB_BIG_TESTS"))


def _token(seed: int) -> str:
    return expand("{{github:ghp}}", random.Random(seed))


def _codex_with(tmp_path: Path, extra: list[str], end: str = "\n") -> tuple[Path, list[str]]:
    lines = CODEX.read_text().splitlines() + extra
    src = tmp_path / "in" / CODEX.name
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text("\n".join(lines) + end)
    return src, lines


def _output(out: Path) -> Path:
    return next((out / "dataset" / "codex").rglob(CODEX.name))


def test_truncated_last_line_is_reported_kept_and_redacted(tmp_path):
    """A harness killed mid-write leaves half a line: reported with its number, kept, scanned."""
    token = _token(1)
    cut = json.dumps({"type": "event_msg", "payload": {"message": f"GH_TOKEN={token} and more"}})[:-12]
    src, lines = _codex_with(tmp_path, [cut], end="")
    summary = redact([src], tmp_path / "out")
    n = len(lines)
    assert summary.problems == [f"{src}:{n}: line is not JSON; kept as plain text and scanned"]
    got = lines_of(_output(tmp_path / "out"))
    assert len(got) == n + 1 and token not in got[n - 1] and got[n - 1].startswith('{"type": "event_msg"')
    assert all(json.loads(x) for x in got[: n - 1])


def test_binary_jsonl_is_skipped_not_read(tmp_path):
    folder = tmp_path / "in"
    _codex_with(tmp_path, [])
    (folder / "blob.jsonl").write_bytes(random.Random(2).randbytes(4096).replace(b"\n", b"\0"))
    summary = redact([folder], tmp_path / "out")
    assert summary.skipped == [str(folder / "blob.jsonl")] and summary.files == 1
    assert not list((tmp_path / "out" / "dataset").rglob("blob.jsonl"))


@pytest.mark.parametrize("keys", [1_000_000] if BIG else [100_000])
def test_a_line_with_very_many_keys(tmp_path, keys):
    token = _token(3)
    rec = {"type": "event_msg", "payload": {f"k{i}": i for i in range(keys)} | {"last": f"GH_TOKEN={token}"}}
    src, lines = _codex_with(tmp_path, [json.dumps(rec)])
    summary = redact([src], tmp_path / "out")
    assert summary.files == 1 and summary.problems == []
    got = lines_of(_output(tmp_path / "out"))
    assert len(got) == len(lines) + 1 and token not in got[-2]
    assert len(json.loads(got[-2])["payload"]) == keys + 1


@pytest.mark.parametrize("size", [200_000_000] if BIG else [5_000_000])
def test_a_very_long_line(tmp_path, size):
    """One string as long as a pasted log: read, redacted (the token at its end, the user's home
    in it) and written back whole."""
    token = _token(4)
    words = "deploy the build near /home/jdoe/src then retry".split()
    rng = random.Random(5)
    text = " ".join(rng.choice(words) + str(rng.randrange(100)) for _ in range(size // 8))
    rec = {
        "type": "event_msg",
        "payload": {"type": "agent_message", "message": f"{text} GH_TOKEN={token} end"},
    }
    src, lines = _codex_with(tmp_path, [json.dumps(rec)])
    summary = redact([src], tmp_path / "out")
    assert summary.files == 1 and summary.problems == []
    data = _output(tmp_path / "out").read_bytes()
    assert data.count(b"\n") == len(lines) and token.encode() not in data and b"/home/jdoe" not in data
    assert data.rstrip(b"\n").rsplit(b"\n", 1)[1].endswith(b' end"}}')


def test_lines_appended_while_the_run_reads_the_file(tmp_path, monkeypatch):
    """The harness writes on while tracepub reads: no line is half-written in the output, the
    half line at the end is reported, and the next run redoes the file with every line."""
    from tracepub.run import ahead  # where a unit's records are read while hashed (ahead.hashed_records)

    token = _token(6)
    src, lines = _codex_with(tmp_path, [])
    more = json.dumps({"type": "event_msg", "payload": {"message": f"later GH_TOKEN={token}"}})
    real = ahead.records_hashing

    def appending(reader, unit, problems, digest):
        records = real(reader, unit, problems, digest)
        for i, rec in enumerate(records):
            if i == 1:
                with src.open("a") as fh:
                    fh.write(more + "\n" + more[:20])  # one whole line, and the start of one
            yield rec

    monkeypatch.setattr(ahead, "records_hashing", appending)
    first = redact([src], tmp_path / "out")
    got = lines_of(_output(tmp_path / "out"))
    assert len(got) == len(lines) + 3 and token not in "".join(got)
    assert first.problems == [f"{src}:{len(lines) + 2}: line is not JSON; kept as plain text and scanned"]
    monkeypatch.setattr(ahead, "records_hashing", real)
    with src.open("a") as fh:
        fh.write(more[20:] + "\n")  # the harness finishes its line
    second = redact([src], tmp_path / "out")
    assert second.reused == 0 and second.problems == []
    got = lines_of(_output(tmp_path / "out"))
    assert len(got) == len(lines) + 3 and all(json.loads(x) for x in got if x) and token not in "".join(got)


# -- publish -------------------------------------------------------------------------------------
def approved(tmp_path: Path) -> Path:
    out = redacted_dir(tmp_path)
    r = invoke("approve", out, "--reviewer", "Jane Doe", "--license", "cc-by-4.0", "--yes")
    assert r.exit_code == 0, r.output
    return out


def signed(out: Path) -> dict[str, bytes]:
    return {n: (out / "dataset" / n).read_bytes() for n in read_manifest(out)["files"]}


def refused(r, hub, *needles: str) -> None:
    assert r.exit_code == 1, r.output
    assert len(r.output.strip().splitlines()) == 1, r.output
    for n in needles:
        assert n in r.output, r.output
    assert hub.commits == [] and TOKEN not in r.output


def test_redact_while_publish_runs_sends_exactly_the_signed_bytes(tmp_path, hub, monkeypatch):
    """A redact started while publish uploads (here: from inside the Hub's commit handler, as
    another process) refuses on DIR's lock; the commit holds exactly the signed bytes."""
    import hubserver

    out = approved(tmp_path)
    want = signed(out)
    ran: list[subprocess.CompletedProcess] = []
    real = hubserver._Handler._commit
    env = {**os.environ, "PYTHONPATH": str(Path(tracepub.__file__).resolve().parent.parent)}

    def commit(self, repo, body):
        ran.append(
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "tracepub.cli",
                    "redact",
                    str(tmp_path / "sources"),
                    "--out",
                    str(out),
                    "--jobs",
                    "1",
                    "--no-ner",
                ],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
        )
        real(self, repo, body)

    monkeypatch.setattr(hubserver._Handler, "_commit", commit)
    r = invoke("publish", out, "--repo", REPO)
    assert r.exit_code == 0, r.output
    assert ran and ran[0].returncode == 1 and "another tracepub command is writing to" in ran[0].stderr
    (sent,) = hub.commits
    assert sent["files"] == want and signed(out) == want


@pytest.mark.parametrize("fault", ["symlink", "hidden file", "key planted"])
def test_publish_gate_refuses_what_changed_after_approve(tmp_path, hub, fault):
    out = approved(tmp_path)
    f = next((out / "dataset" / "claude_code").rglob("*.jsonl"))
    if fault == "symlink":  # the same bytes, behind a link
        copy = tmp_path / "elsewhere.jsonl"
        copy.write_bytes(f.read_bytes())
        f.unlink()
        f.symlink_to(copy)
        needles = ["symbolic link"]
    elif fault == "hidden file":
        (f.parent / ".notes").write_text("hello")
        needles = ["added", ".notes"]
    else:
        f.write_text(f.read_text() + json.dumps({"type": "user", "t": f"GH_TOKEN={_token(7)}"}) + "\n")
        needles = ["changed"]
    refused(invoke("publish", out, "--repo", REPO), hub, *needles)
    refused(invoke("publish", out, "--repo", REPO, "--dry-run"), hub)


@pytest.mark.parametrize("where", ["create", "commit"])
@pytest.mark.parametrize("how", ["500", "reset"])
def test_hub_errors_exit_1_with_one_line(tmp_path, hub, monkeypatch, where, how):
    """A Hub that answers 500, or drops the connection, at the repo's creation or at the commit."""
    import hubserver

    out = approved(tmp_path)
    if where == "commit":
        hub.add_repo(REPO, private=True)

    def fail(self, *a, **kw):
        if how == "500":
            self._json(500, {"error": "internal error"})
        else:  # the connection reset: closed with nothing sent
            self.close_connection = True
            self.connection.shutdown(2)

    if where == "commit":
        monkeypatch.setattr(hubserver._Handler, "_commit", fail)
    else:
        real_post = hubserver._Handler.do_POST

        def do_post(self):
            if self.path.startswith("/api/repos/create"):
                self._record()
                self._body()
                return fail(self)
            return real_post(self)

        monkeypatch.setattr(hubserver._Handler, "do_POST", do_post)
    r = invoke("publish", out, "--repo", REPO)
    refused(r, hub)
    assert "Traceback" not in r.output
