"""Throughput of ``tracepub redact --engine datatrove`` with 1 and 2 local workers, and its
overhead against ``tracepub redact --jobs 2`` (and ``--jobs 1``), on the same input.

    python bench/dist.py --size 100MB                  # Claude Code sessions (bench/claude_gen.py)
    python bench/dist.py --size 50MB --corpus corpus   # every harness (bench/corpus.py)
    python bench/dist.py --size 100MB --repeat 3       # medians of 3 rounds, run orders alternated

Every run is a subprocess (``python -m tracepub.cli redact ... --json``) with the fake user of
``bench/throughput.py`` (a clean environment, a fake HOME), into a new DIR holding the same
placeholder key, so the outputs can be compared: the script checks that every distributed
run wrote the same dataset/, findings.jsonl and manifest (but its run id) as ``tracepub
redact`` and says so. Reported per configuration: wall time (process start and model load
included), MB/s of input, CPU seconds of all processes, and the number of datatrove tasks.
The corpus is generated once and cached under ``bench/.cache/`` (as throughput.py's).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PACKAGE = ROOT / "src" if (ROOT / "src" / "tracepub").is_dir() else ROOT  # before or after the move
sys.path.insert(0, str(HERE))

KEY = bytes(range(32)).hex()


def configs(tasks: int) -> list[tuple[str, list[str]]]:
    dist = ["--engine", "datatrove"] + (["--engine-opt", f"tasks={tasks}"] if tasks else [])
    return [
        ("tracepub redact --jobs 2", ["--jobs", "2"]),
        ("tracepub redact --jobs 1", ["--jobs", "1"]),
        ("--engine datatrove, 1 worker", ["--jobs", "1", *dist]),
        ("--engine datatrove, 2 workers", ["--jobs", "2", *dist]),
    ]


def run_one(folder: Path, env: dict[str, str], args: list[str], out: Path) -> dict:
    import throughput

    shutil.rmtree(out, ignore_errors=True)
    (out / "review").mkdir(parents=True)
    (out / "review" / "placeholder.key").write_text(KEY + "\n")
    # -P: this checkout's tracepub (PYTHONPATH), not one in the current folder
    cmd = [sys.executable, "-P", "-m", "tracepub.cli", "redact", str(folder), "--out", str(out), "--json"]
    cmd += args
    child = throughput.child_env(env)
    child["PYTHONPATH"] = str(PACKAGE)
    wall, _largest, _tree, stdout, cpu = throughput.measured(cmd, child)
    summary = json.loads(stdout)
    perf = summary.get("perf", {})
    return {
        "bytes": summary["bytes_in"],
        "files": summary["files"],
        "seconds": wall,
        "cpu": cpu,
        "tasks": perf.get("dist_redact_tasks"),
        "redone": perf.get("files_redone", 0),
    }


def main(argv: list[str] | None = None) -> int:
    import snapshot
    import throughput

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="100MB", type=throughput.parse_size, help="corpus size (default 100MB)")
    ap.add_argument(
        "--corpus",
        choices=["builtin", "corpus"],
        default="builtin",
        help="builtin: Claude Code sessions; corpus: every harness (bench/corpus.py)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--tasks", type=int, default=0, help="datatrove tasks (default: the engine's, 4 per worker)"
    )
    ap.add_argument("--repeat", type=int, default=1, help="rounds; each configuration's median is reported")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)

    folder, env = throughput.corpus(args.corpus, args.size, False, args.seed)
    load_before = os.getloadavg()[0]
    names = [name for name, _ in configs(args.tasks)]
    runs: dict[str, list[dict]] = {name: [] for name in names}
    same = dict.fromkeys(names, True)
    with tempfile.TemporaryDirectory(prefix="tracepub-dist-") as tmp:
        for rnd in range(args.repeat):
            order = configs(args.tasks)
            if rnd % 2:
                order.reverse()  # the machine's speed drifts: alternate which goes first
            digests = {}
            for n, (name, extra) in enumerate(order):
                out = Path(tmp) / f"out-{rnd}-{n}"
                runs[name].append(run_one(folder, env, extra, out))
                digests[name] = snapshot.digest_dir(out)
                shutil.rmtree(out)
                print(f"  {name}: {runs[name][-1]['seconds']:.1f} s", file=sys.stderr)
            for name in names:
                same[name] = same[name] and digests[name] == digests[names[0]]
    rows = []
    base = statistics.median(r["seconds"] for r in runs[names[0]])
    for name, rs in runs.items():
        secs = statistics.median(r["seconds"] for r in rs)
        mb = rs[0]["bytes"] / 1e6
        rows.append(
            {
                "config": name,
                "input_mb": round(mb, 1),
                "files": rs[0]["files"],
                "seconds": round(secs, 2),
                "runs_seconds": [round(r["seconds"], 2) for r in rs],
                "mb_per_s": round(mb / secs, 2),
                "cpu_seconds": round(statistics.median(r["cpu"] for r in rs), 1),
                "tasks": rs[0]["tasks"],
                "files_redone": rs[0]["redone"],
                "vs_jobs_2": round(secs / base - 1, 3),
                "identical": same[name],
            }
        )
    if args.json:
        print(
            json.dumps(
                {
                    "corpus": str(folder),
                    "load_before": load_before,
                    "load_after": os.getloadavg()[0],
                    "rows": rows,
                },
                indent=2,
            )
        )
        return 0
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, {os.cpu_count()} cores"
    print(
        f"corpus: {folder} ({rows[0]['input_mb']} MB, {rows[0]['files']} files), {args.repeat} round(s), {load}"
    )
    print("| configuration | wall (median) | MB/s | CPU s | datatrove tasks | vs --jobs 2 | same bytes |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['config']} | {r['seconds']} s ({', '.join(map(str, r['runs_seconds']))}) | {r['mb_per_s']} | "
            f"{r['cpu_seconds']} | {r['tasks'] or '-'} | {r['vs_jobs_2']:+.1%} | "
            f"{'yes' if r['identical'] else 'NO'} |"
        )
    return 0 if all(r["identical"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
