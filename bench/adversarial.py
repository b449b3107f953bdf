"""Time and memory of the detection engine on hostile strings: they must grow linearly.

    python bench/adversarial.py                        # every kind at 100 kB, 1 MB, 10 MB
    python bench/adversarial.py --sizes 1MB,10MB,100MB --kinds upper,b64zeros
    python bench/adversarial.py --pipeline 200MB       # one 200 MB string through `tracepub redact`

Each case runs in a fresh process (so its peak RSS is its own): the engine of a default run
scans one string as prose and as tool output. Kinds: long runs of one class of character
(letters, capitals, digits, spaces, dots, dashes, underscores, slashes, line breaks, JSON
escapes), base64 of zeros, a huge random word, capitalised words, upper-case words. Prints
seconds, MB/s and peak RSS per size, and the ratio of time to the smallest size's (linear:
the ratio of the sizes). ``--pipeline`` writes one Claude Code session whose prompt is that
string and runs the real `tracepub redact` on it, reporting wall time and peak RSS.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

KINDS = {
    "letters": lambda n: "a" * n,
    "upper": lambda n: "A" * n,
    "digits": lambda n: "7" * n,
    "spaces": lambda n: "x" + " " * (n - 2) + "y",
    "dots": lambda n: "." * n,
    "dashes": lambda n: "-" * n,
    "underscores": lambda n: "_" * n,
    "slashes": lambda n: "/" * n,
    "newlines": lambda n: "\n" * n,
    "escapes": lambda n: "\\n" * (n // 2),
    "b64zeros": lambda n: base64.b64encode(b"\0" * (n * 3 // 4)).decode(),
    "hugeword": lambda n: "".join(random.Random(1).choices("abcdefghijklmnopqrstuvwxyz0123456789", k=n)),
    "capwords": lambda n: "Abc " * (n // 4),
    "upperwords": lambda n: "ABCD " * (n // 5),
}


def parse_size(text: str) -> int:
    t = text.strip().upper().removesuffix("B")
    mult = {"K": 10**3, "M": 10**6, "G": 10**9}.get(t[-1:], 1)
    return int(float(t[:-1] if t[-1:] in "KMG" else t) * mult)


def one(kind: str, n: int) -> dict:
    """Run in the child: scan the string, report time and peak memory."""
    sys.path.insert(0, str(ROOT))
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig
    from tracepub.model import Leaf

    engine = Engine(DetectConfig(identity={"jdoe": "identity.username"}))
    text = KINDS[kind](n)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    for prose in (False, True):
        engine.scan(text, Leaf("claude_code", ("message", "content"), "content", prose))
    seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "kind": kind,
        "size": n,
        "seconds": seconds,
        "peak_mb": peak / 1024,
        "added_mb": (peak - base) / 1024,
    }


def pipeline(n: int, kind: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src" / "projects" / "-work-app" / "s.jsonl"
        src.parent.mkdir(parents=True)
        rec = {
            "type": "user",
            "sessionId": "s",
            "uuid": "u1",
            "cwd": "/work/app",
            "message": {"role": "user", "content": KINDS[kind](n)},
        }
        src.write_text(json.dumps(rec) + "\n")
        cmd = [
            sys.executable,
            "-m",
            "tracepub.cli",
            "redact",
            str(Path(tmp) / "src"),
            "--out",
            str(Path(tmp) / "out"),
            "--jobs",
            "1",
            "--json",
        ]
        t = time.perf_counter()
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(ROOT), "HOME": tmp, "PATH": "/usr/bin:/bin"},
        )
        wall = time.perf_counter() - t
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        status = "ok" if proc.returncode == 0 else f"failed ({proc.returncode}): {proc.stderr[-500:]}"
        print(f"pipeline {kind} {n / 1e6:.0f} MB: {wall:.1f} s, peak RSS {peak:.0f} MB, {status}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100KB,1MB,10MB")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--pipeline", type=parse_size, help="one string of this size through tracepub redact")
    ap.add_argument("--_one", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._one:
        print(json.dumps(one(args._one[0], int(args._one[1]))))
        return 0
    if args.pipeline:
        for kind in args.kinds.split(","):
            pipeline(args.pipeline, kind)
        return 0
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    print(f"{'kind':<12} {'size':>10} {'seconds':>9} {'MB/s':>7} {'peak MB':>8} {'x time':>7}")
    for kind in args.kinds.split(","):
        first = None
        for n in sizes:
            proc = subprocess.run(
                [sys.executable, __file__, "--_one", kind, str(n)], capture_output=True, text=True
            )
            if proc.returncode != 0:
                print(f"{kind:<12} {n:>10} failed: {proc.stderr[-300:]}")
                continue
            r = json.loads(proc.stdout)
            first = first or r["seconds"] or 1e-9
            rate = n / 1e6 / r["seconds"] if r["seconds"] else float("inf")
            print(
                f"{kind:<12} {n:>10} {r['seconds']:>9.2f} {rate:>7.1f} {r['peak_mb']:>8.0f} {r['seconds'] / first:>7.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
