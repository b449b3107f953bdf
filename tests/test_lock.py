"""One command at a time writes into DIR (tracepub.dirlock): a second one refuses, writing nothing.

The holder is another process (a real ``flock`` on ``DIR/.tracepub.lock``); the commands run
through the CLI. A holder that dies, even by SIGKILL, leaves no stale lock behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reviewkit import invoke, redacted_dir

import tracepub
from tracepub.outdir import LOCK_FILE, locked
from tracepub.outputs.files import read_manifest

SID = "session"  # reviewkit's session, named by its file in a plain run
HOLD = """
import sys
from pathlib import Path
from tracepub.outdir import locked
with locked(Path(sys.argv[1]), create=True):
    print("held", flush=True)
    sys.stdin.read()
"""


def _env() -> dict[str, str]:
    """This checkout's package first on the path, whatever its layout."""
    pkg_parent = str(Path(tracepub.__file__).resolve().parent.parent)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([pkg_parent, os.environ.get("PYTHONPATH", "")])}


@contextmanager
def held_elsewhere(out: Path) -> Iterator[subprocess.Popen]:
    """Another process holding DIR's lock until the block ends (or the test kills it)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=_env(),
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def snapshot(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != LOCK_FILE
    }


def assert_busy(r, out: Path, pid: int) -> None:
    assert r.exit_code == 1, r.output
    assert len(r.output.strip().splitlines()) == 1, r.output
    assert f"another tracepub command is writing to {out} (pid {pid}); wait for it to finish" in r.output


def test_every_writing_command_refuses_while_another_holds_the_lock(tmp_path, hub):
    out = redacted_dir(tmp_path)
    assert invoke("approve", out, "--reviewer", "Jane", "--yes").exit_code == 0
    before = snapshot(out)
    with held_elsewhere(out) as holder:
        for args in (
            ("redact", tmp_path / "sources", "--out", out, "--jobs", "1", "--no-ner"),
            ("review", out, "--drop-session", SID, "--reviewer", "jane"),
            ("review", out, "--restore-session", SID, "--reviewer", "jane"),
            ("review", out, "--add", "Project Bluebird", "--reviewer", "jane"),
            ("review", out, "--interactive"),
            ("approve", out, "--reviewer", "Jane", "--yes"),
            ("publish", out, "--repo", "me/traces"),
            ("publish", out, "--repo", "me/traces", "--dry-run"),
        ):
            assert_busy(invoke(*args), out, holder.pid)
        assert snapshot(out) == before  # nothing written
        assert hub.requests == []  # publish refused before contacting the Hub
        r = invoke("review", out)  # listing the flagged values writes nothing: no lock needed
        assert r.exit_code == 0, r.output
        holder.send_signal(signal.SIGKILL)  # dies without releasing anything itself
        holder.wait(10)
    r = invoke("review", out, "--drop-session", SID, "--reviewer", "jane")
    assert r.exit_code == 0, r.output  # no stale lock


def test_redact_into_a_fresh_dir_writes_nothing_while_locked(tmp_path):
    redacted_dir(tmp_path)  # sources/
    out = tmp_path / "fresh"
    with held_elsewhere(out) as holder:
        assert_busy(
            invoke("redact", tmp_path / "sources", "--out", out, "--jobs", "1", "--no-ner"), out, holder.pid
        )
        assert [p.name for p in out.iterdir()] == [LOCK_FILE]


def test_a_second_redact_process_refuses_while_one_is_writing(tmp_path):
    """Two real processes: this one holds the lock as a running command would; a second
    ``tracepub redact`` into the same DIR exits 1 with one line."""
    redacted_dir(tmp_path)
    out = tmp_path / "out"
    before = snapshot(out)
    with locked(out):
        proc = subprocess.run(
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
            capture_output=True,
            text=True,
            env=_env(),
            timeout=120,
        )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"Error: another tracepub command is writing to {out} (pid {os.getpid()}); wait for it to finish"
    ]
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert snapshot(out) == before


def test_lock_file_is_beside_dataset_and_not_signed_or_sent(tmp_path, hub):
    out = redacted_dir(tmp_path)
    assert (out / LOCK_FILE).is_file()
    assert not list((out / "dataset").rglob(LOCK_FILE))
    assert invoke("approve", out, "--reviewer", "Jane", "--yes").exit_code == 0
    assert not any(LOCK_FILE in name for name in read_manifest(out)["files"])
    r = invoke("publish", out, "--repo", "me/traces")
    assert r.exit_code == 0, r.output
    assert not any(LOCK_FILE in name for name in hub.commits[0]["files"])
    # released at the end of each command: the next one takes it
    with locked(out):
        pass
