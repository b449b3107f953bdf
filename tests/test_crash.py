"""A run killed with SIGKILL: its workers exit (#9 item 9), and a re-run gives the same output (Held).

Real processes and real signals. ``tracepub redact`` runs as a subprocess with two workers and
is killed while they work: within seconds no worker may be left. And a run (a fork of the test
process, patched at one point) kills itself after 20% or 60% of its files, or inside the rename
of the manifest or of the card: a re-run into the same DIR must give exactly the bytes of a run
that was never interrupted.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reviewkit import claude_session, planted
from samples import redact

import tracepub
from tracepub.outdir import locked

KEY = bytes(range(32)).hex()  # one placeholder key for every run: their outputs compare byte for byte
WORDS = (
    "deploy staging config retry timeout build cache layer worker queue table index column merge branch "
    "review patch module import handler route token session file folder parse"
).split()

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _env() -> dict[str, str]:
    pkg_parent = str(Path(tracepub.__file__).resolve().parent.parent)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([pkg_parent, os.environ.get("PYTHONPATH", "")])}


def _sources(tmp: Path, files: int, kb: int) -> Path:
    """``files`` Claude Code sessions of about ``kb`` kB each (varied prose: nothing is scanned once for all)."""
    rng = random.Random(5)
    src = tmp / "sources"
    for i in range(files):
        extra = " ".join(rng.choice(WORDS) + str(rng.randrange(1000)) for _ in range(kb * 1024 // 10))
        claude_session(src / f"-home-jdoe-src-app{i}", planted(i), name=f"s{i}.jsonl", extra=extra)
    return src


def _out(tmp: Path, name: str) -> Path:
    out = tmp / name
    (out / "review").mkdir(parents=True)
    (out / "review" / "placeholder.key").write_text(KEY + "\n")
    return out


def _redact(src: Path, out: Path, *extra: str, script: str | None = None, **env: str) -> subprocess.Popen:
    cmd = ["-m", "tracepub.cli"] if script is None else ["-c", script]
    return subprocess.Popen(
        [sys.executable, *cmd, "redact", str(src), "--out", str(out), "--no-ner", *extra],
        env={**_env(), **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has exited (nobody reaped it yet)


def test_workers_exit_when_the_main_process_is_killed(tmp_path):
    src = _sources(tmp_path, files=6, kb=600)
    out = _out(tmp_path, "out")
    proc = _redact(src, out, "--jobs", "2")
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
            workers = _children(proc.pid)
            time.sleep(0.01)
        assert len(workers) == 2, (
            f"no workers seen (rc {proc.poll()}): {proc.stderr.read() if proc.stderr else ''}"
        )
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [w for w in workers if _alive(w)], "workers outlived the main process"
        with locked(out):  # they held DIR's lock too (its descriptor is inherited): free now
            pass
    finally:
        if proc.poll() is None:
            proc.kill()
        for w in workers:  # this test started them: none is left behind, whatever happened
            if _alive(w):
                os.kill(w, signal.SIGKILL)


def _digests(out: Path) -> dict[str, str]:
    """What a run wrote that must not depend on having been interrupted: dataset/, the findings, the
    manifest (without its run id)."""
    got = {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((out / "dataset").rglob("*"))
        if p.is_file()
    }
    manifest = json.loads((out / "manifest.json").read_text())
    manifest.pop("run_id")
    got["manifest.json"] = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()
    got["review/findings.jsonl"] = hashlib.sha256(
        (out / "review" / "findings.jsonl").read_bytes()
    ).hexdigest()
    return got


def _killed_at(point: str, src: Path, out: Path) -> None:
    """Run redact in a forked copy of this process that SIGKILLs itself at ``point``: before its
    N-th file (``files:N``), or right after the rename that puts ``point`` (a file name) in place."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into the test
        try:
            from tracepub.run import workers

            if point.startswith("files:"):
                after, real, done = int(point[6:]), workers._process, [0]

                def process(task):
                    if done[0] == after:
                        os.kill(os.getpid(), signal.SIGKILL)
                    done[0] += 1
                    return real(task)

                workers._process = process
            else:
                real_replace = os.replace

                def replace(a, b, *args, **kw):
                    real_replace(a, b, *args, **kw)
                    if os.path.basename(b) == point:
                        os.kill(os.getpid(), signal.SIGKILL)  # renamed; nothing after it done

                os.replace = replace
            redact([src], out)
        finally:
            os._exit(3)  # not killed: the point was never reached
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"{point}: not killed ({status})"


def test_rerun_after_a_kill_gives_the_same_bytes(tmp_path):
    """Killed after 20% and 60% of its files, and inside the manifest's and the card's renames: each
    time a re-run into the same DIR writes exactly what an uninterrupted run writes."""
    src = _sources(tmp_path, files=10, kb=4)
    want = _out(tmp_path, "reference")
    redact([src], want)
    for point in ("files:2", "files:6", "manifest.json", "README.md"):
        out = _out(tmp_path, point.replace(":", "-"))
        _killed_at(point, src, out)
        redact([src], out)
        assert _digests(out) == _digests(want), point
        assert not [p for p in (out / "dataset").rglob("*") if p.name.endswith(".tmp")]
