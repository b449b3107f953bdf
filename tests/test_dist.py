"""tracepub redact --engine datatrove: the same bytes as tracepub redact, and resumable.

The engine runs locally (datatrove's local executor, forked tasks) on the sample traces and on
a generated corpus of every harness (bench/corpus.py); a task that fails midway is retried, and
a run killed midway (SIGKILL, as a preemption does) is resumed by the same command. Sources on
another file system come from fsspec's ``memory://``; nothing touches the network.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
from pathlib import Path

import pytest

pytest.importorskip("datatrove")

from reviewkit import invoke  # noqa: E402

from tracepub.detect.registry import DetectConfig  # noqa: E402
from tracepub.dist import engine, stages  # noqa: E402
from tracepub.dist.engine import EngineOptions  # noqa: E402
from tracepub.dist.work import Work, balance, canonical  # noqa: E402
from tracepub.redact.placeholders import KEY_FILE  # noqa: E402
from tracepub.run.pipeline import run  # noqa: E402
from tracepub.runtypes import RunOptions  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_traces"
KEY = bytes(range(40, 72))


def _keyed(out: Path) -> Path:
    (out / "review").mkdir(parents=True)
    (out / "review" / KEY_FILE).write_text(KEY.hex() + "\n")  # the same placeholders in every run
    return out


# The same detection config for every run of this module, the fake user's (what a review re-run
# harvests again in the test's fake home): module-scoped fixtures run outside that home.
DETECT = DetectConfig(identity={"jdoe": "identity.username"})


def _opts(out: Path, sources: list, jobs: int = 2) -> RunOptions:
    return RunOptions(out=_keyed(out), sources=list(sources), detect=DETECT, jobs=jobs)


def _digests(out: Path) -> dict[str, str]:
    """What must be the same: every file of dataset/, findings.jsonl, the manifest but its run id."""
    got = {
        "dataset/" + p.relative_to(out / "dataset").as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((out / "dataset").rglob("*"))
        if p.is_file()
    }
    got["findings"] = hashlib.sha256((out / "review" / "findings.jsonl").read_bytes()).hexdigest()
    manifest = json.loads((out / "manifest.json").read_text())
    manifest.pop("run_id")
    got["manifest"] = json.dumps(manifest, sort_keys=True)
    return got


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, str]:
    """``tracepub redact`` of the sample traces (two processes)."""
    out = tmp_path_factory.mktemp("ref") / "out"
    summary = run(_opts(out, [SAMPLES]))
    assert summary.files > 10 and not summary.problems
    return _digests(out)


@pytest.fixture(scope="module")
def every_harness(tmp_path_factory) -> Path:
    sys.path.insert(0, str(ROOT / "bench"))
    import corpus

    root = tmp_path_factory.mktemp("corpus")
    corpus.generate(root, 300_000, seed=3)
    _found_once(root / "corpus" / "claude" / "projects" / "-home-jdoe-src-found-once")
    return root / "corpus"


def _found_once(folder: Path) -> None:
    """Two sessions: a password found by its context in one, the same value bare in the other, so
    the second pass (``detect.found``) has a file to redact again."""
    folder.mkdir(parents=True)
    value = "Zq8vT3mWx7KpL2nRb9Hs4Dy6"
    for n, text in enumerate((f"export DB_PASSWORD={value}", f"the old one, {value}, still works")):
        sid = f"00000000-0000-4000-8000-00000000000{n}"
        line = {
            "type": "user",
            "sessionId": sid,
            "cwd": "/home/jdoe/src/found-once",
            "uuid": sid,
            "timestamp": "2026-03-01T09:00:00.000Z",
            "message": {"role": "user", "content": text},
        }
        (folder / f"{sid}.jsonl").write_text(json.dumps(line) + "\n")


def test_samples_same_bytes_and_review_approve_publish_work_on_it(reference, tmp_path, hub):
    out = tmp_path / "out"
    summary = engine.run(_opts(out, [SAMPLES]), EngineOptions(tasks=5))
    assert _digests(out) == reference
    assert summary.perf["dist_redact_units"] == summary.files and summary.perf["dist_redact_attempts"] == 1
    assert not (out / engine.WORK_DIR / "work").exists()  # removed once the run is assembled
    # the rest of the flow, unchanged: a review decision (a re-run on one machine), approve, publish
    r = invoke("review", out, "--add", "Refactor", "--reviewer", "Jane Doe", "--json")
    assert r.exit_code == 0, r.output
    r = invoke("approve", out, "--reviewer", "Jane Doe", "--license", "cc-by-4.0", "--yes")
    assert r.exit_code == 0, r.output
    r = invoke("publish", out, "--repo", "me/traces", "--dry-run")
    assert r.exit_code == 0, r.output
    assert "Would send" in r.output


def test_every_harness_same_bytes_with_the_second_pass(every_harness, every_harness_ref, tmp_path):
    digests, perf = every_harness_ref
    assert perf["harnesses"] >= 9 and perf.get("files_redone", 0) >= 1  # the redo stage runs
    out = tmp_path / "out"
    dist = engine.run(_opts(out, [every_harness]), EngineOptions(tasks=4))
    assert dist.perf["dist_redo_units"] == perf["files_redone"]
    assert _digests(out) == digests


def test_sources_on_another_file_system(reference, tmp_path):
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    fs.put(str(SAMPLES), "/traces/sample_traces", recursive=True)
    try:
        out = tmp_path / "out"
        summary = engine.run(_opts(out, ["memory://traces/sample_traces"]), EngineOptions(tasks=3))
        assert _digests(out) == reference
        assert summary.perf["dist_fetch_files"] > 10 and summary.perf["dist_fetch_kept"] == 0
        # the staged copy is kept (review re-runs from it); a second run fetches nothing again
        again = engine.run(
            RunOptions(out=out, sources=["memory://traces/sample_traces"], detect=DETECT, jobs=2),
            EngineOptions(),
        )
        assert again.perf["dist_fetch_kept"] == again.perf["dist_fetch_files"]
        assert again.reused == again.files  # unchanged staged files: every unit reused
        assert _digests(out)["manifest"] == reference["manifest"]
    finally:
        fs.rm("/traces", recursive=True)


def test_a_failed_task_is_retried(reference, tmp_path, monkeypatch):
    """A task raises after its first unit (of several: two shards of the 18 files), once (the
    marker file is seen by every forked task)."""
    marker = tmp_path / "failed-once"

    def fail_once(stage: str, rank: int, done: int) -> None:
        if stage == "redact" and rank == 1 and not marker.exists():
            marker.write_text("x")
            raise RuntimeError("task lost")

    monkeypatch.setattr(stages, "after_unit", fail_once)
    out = tmp_path / "out"
    summary = engine.run(_opts(out, [SAMPLES]), EngineOptions(tasks=2))
    assert marker.exists() and summary.perf["dist_redact_attempts"] == 2
    assert _digests(out) == reference


def _killed(opts: RunOptions, eopts: EngineOptions, stage: str, after: int) -> int:
    """Run the engine in a forked process that is killed (SIGKILL, with the helper processes
    datatrove started: a preemption) once ``after`` units of ``stage`` are done; its status."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        try:
            os.setsid()  # its own process group: the kill takes its helpers, not the tests
            seen = [0]

            def kill(st: str, rank: int, done: int) -> None:
                if st == stage:
                    seen[0] += 1
                    if seen[0] >= after:
                        os.killpg(0, signal.SIGKILL)  # no clean-up of any kind

            stages.after_unit = kill
            engine.run(opts, eopts)
        finally:
            os._exit(3)  # not killed: the test fails on the status
    return os.waitpid(pid, 0)[1]


@pytest.fixture(scope="module")
def every_harness_ref(every_harness, tmp_path_factory) -> tuple[dict[str, str], dict[str, int]]:
    """``tracepub redact`` of the corpus of every harness: its digests and speed figures."""
    out = tmp_path_factory.mktemp("every") / "out"
    summary = run(_opts(out, [every_harness]))
    return _digests(out), {**summary.perf, "harnesses": len(summary.harnesses)}


@pytest.mark.parametrize("stage", ["redact", "redo"])
def test_a_killed_run_resumes(every_harness, every_harness_ref, tmp_path, stage):
    """The whole run is killed midway (in the first or the second pass); the same run again
    finishes it, keeping the units done before, and writes what one machine writes."""
    out = tmp_path / "out"
    eopts = EngineOptions(tasks=4)
    status = _killed(_opts(out, [every_harness], jobs=1), eopts, stage, 3 if stage == "redact" else 1)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert not (out / "manifest.json").exists() and (out / engine.WORK_DIR / "work").exists()
    resumed = engine.run(RunOptions(out=out, sources=[every_harness], detect=DETECT, jobs=1), eopts)
    perf = resumed.perf
    if stage == "redact":
        assert perf["dist_redact_kept"] == 3  # the units finished before the kill are not redone
    else:  # the units it had started to redo get both passes again
        assert perf["dist_redo_units"] >= 1
        assert perf["dist_redact_kept"] == perf["dist_redact_units"] - perf["dist_redo_units"]
    assert _digests(out) == every_harness_ref[0]


def test_engine_options_and_usage(tmp_path):
    o = EngineOptions.parse(["executor=slurm", "tasks=64", "partition=cpu", 'sbatch_args={"account": "x"}'])
    assert (o.executor, o.tasks, o.extra) == (
        "slurm",
        64,
        {"partition": "cpu", "sbatch_args": {"account": "x"}},
    )
    for bad in (["tasks=-1"], ["executor=spark"], ["nokey"]):
        with pytest.raises(ValueError):
            EngineOptions.parse(bad)
    work = Work(str(tmp_path / "w"), KEY)
    counts = [
        engine.DatatroveMap(tmp_path, work, e).task_count(sizes, 2)
        for e, sizes in (
            (EngineOptions(), [1] * 100),  # local: four per worker
            (EngineOptions(executor="slurm"), [300_000_000] * 10),  # a cluster: one per GB
            (EngineOptions(executor="slurm", workers=100), [300_000_000] * 10),  # at most one per unit
            (EngineOptions(tasks=64), [1] * 10),
        )
    ]
    assert counts == [8, 3, 10, 10]
    r = invoke("redact", "s3://bucket/traces", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "--engine datatrove" in r.output  # a URL needs the engine
    r = invoke(
        "redact", str(SAMPLES), "--out", tmp_path / "o", "--engine", "datatrove", "--engine-opt", "tasks"
    )
    assert r.exit_code == 2


def test_missing_extra_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "datatrove.executor.base", None)  # as if not installed
    r = invoke("redact", str(SAMPLES), "--out", tmp_path / "o", "--engine", "datatrove")
    assert r.exit_code == 1 and "pip install 'tracepub[datatrove]'" in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_work_folder_is_sealed_and_balanced(tmp_path):
    work = Work(str(tmp_path / "w"), KEY)
    work.put("a/b", {"secret": "ghp_not_a_real_token", "n": {1, 2}})
    assert work.get("a/b") == {"secret": "ghp_not_a_real_token", "n": {1, 2}}
    assert b"ghp_not_a_real_token" not in (tmp_path / "w" / "a" / "b").read_bytes()
    assert Work(str(tmp_path / "w"), bytes(32)).get("a/b") is None  # another DIR's key: does not open
    (tmp_path / "w" / "a" / "c").write_bytes((tmp_path / "w" / "a" / "b").read_bytes())
    assert work.get("a/c") is None  # bound to its name
    assert canonical({"b": {3, 1}, "a": Path("/x")}) == [["a", "/x"], ["b", [1, 3]]]
    assert work.fingerprint({"x": {"b", "a"}}) == work.fingerprint({"x": {"a", "b"}})
    shards = balance([5, 1, 9, 3, 3], 2)
    assert sorted(p for s in shards for p in s) == [0, 1, 2, 3, 4] and shards == balance([5, 1, 9, 3, 3], 2)
    assert [sum([5, 1, 9, 3, 3][p] for p in s) for s in shards] == [10, 11]


def test_slurm_gets_the_options_and_is_waited_for(tmp_path, monkeypatch):
    """No Slurm here: the executor is built (nothing is submitted) and the wait is checked on a
    stand-in job whose tasks complete over a few polls, or that leaves the queue."""
    from tracepub.dist import executors

    make = executors.factory("slurm", 8, {"partition": "cpu", "time": "01:00:00"})
    step = stages.RedactShard("redact", str(tmp_path), str(tmp_path / "work"))
    ex = make([step], 16, str(tmp_path / "logs"), "tracepub-redact")
    assert (ex.partition, ex.time, ex.tasks, ex.workers, ex.job_name) == (
        "cpu",
        "01:00:00",
        16,
        8,
        "tracepub-redact",
    )

    class Job:
        job_id = "42"

        def __init__(self, polls: list[list[int]]) -> None:
            self.polls = polls

        def run(self) -> None:
            pass

        def get_incomplete_ranks(self, skip_completed: bool = True) -> list[int]:
            return self.polls.pop(0) if self.polls else []

    monkeypatch.setattr(executors, "_in_queue", lambda job: True)
    job = Job([[1, 2], [2], []])
    executors.run(job, "slurm", poll=0)
    assert job.polls == []  # waited until every task was complete
    monkeypatch.setattr(executors, "_in_queue", lambda job: False)
    job = Job([[1, 2], [2], []])
    executors.run(job, "slurm", poll=0)
    assert job.polls == [[2], []]  # the job left the queue: back to the caller, which retries


def test_a_task_killed_by_a_signal_is_retried(reference, tmp_path, monkeypatch):
    """One task's process is killed (SIGKILL, as the OOM killer does) after its first unit: the
    pool notices, the stage is retried, and the output is what one machine writes."""
    marker = tmp_path / "killed-once"

    def kill_once(stage: str, rank: int, done: int) -> None:
        if stage == "redact" and rank == 2 and not marker.exists():
            marker.write_text("x")
            os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(stages, "after_unit", kill_once)
    out = tmp_path / "out"
    summary = engine.run(_opts(out, [SAMPLES]), EngineOptions(tasks=4))
    assert marker.exists() and summary.perf["dist_redact_attempts"] == 2
    assert _digests(out) == reference


def test_the_command_line(tmp_path):
    """``tracepub redact --engine datatrove`` as a user types it: the same bytes as without."""
    from reviewkit import claude_session, planted

    src = tmp_path / "sources" / "-home-jdoe-src-app"
    for n in range(3):
        claude_session(src, planted(n), name=f"s{n}.jsonl", extra=f"run {n}")
    one, two = _keyed(tmp_path / "one"), _keyed(tmp_path / "two")
    r = invoke("redact", tmp_path / "sources", "--out", one, "--jobs", "1", "--no-ner", "--json")
    assert r.exit_code == 0, r.output
    r = invoke(
        "redact",
        tmp_path / "sources",
        "--out",
        two,
        "--jobs",
        "2",
        "--no-ner",
        "--json",
        "--engine",
        "datatrove",
        "--engine-opt",
        "tasks=2",
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["perf"]["dist_redact_units"] == 3
    assert _digests(two) == _digests(one)
