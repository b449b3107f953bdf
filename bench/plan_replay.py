"""The prefilter's plans of one run, captured and replayed in a loop: its CPU apart from the run's.

    python bench/plan_replay.py capture /tmp/mix.pkl --corpus mix --size 50MB   # one --jobs 1 run
    python bench/plan_replay.py replay /tmp/mix.pkl --repeat 3                   # this checkout
    python bench/plan_replay.py replay /tmp/mix.pkl --tree ../other-checkout     # another one

``capture`` runs ``tracepub redact`` in this process at ``--jobs 1`` on ``throughput.corpus``'s
folder and environment, and records every ``Prefilter.plan`` call of the first pass's engine
(the text, prose, ``only``) with the detection config. ``replay`` builds that engine again from
the checkout given and calls ``plan`` on the same strings in a loop: CPU seconds (the fastest of
``--repeat``), and a digest of the plans, equal between checkouts whose plans are the same. In
the run the same calls take about twice as long (each string's call starts with cold caches:
bench/NOTES.md, "Eighth pass"), so the loop measures the work, not the cache misses.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def capture(dest: Path, kind: str, size: int) -> None:
    sys.path.insert(0, str(HERE))
    import throughput

    folder, env = throughput.corpus(kind, size, False, 1)
    os.environ.update(throughput.child_env(env))
    import tracepub.run.workers as workers
    from tracepub.cli import BLAS_THREADS, cli
    from tracepub.detect.prefilter import Prefilter

    state: dict = {"args": None, "calls": {}}
    init, plan = workers._init_worker, Prefilter.plan

    def init_worker(*args, **kw):
        if state["args"] is None:
            state["args"] = (args[0], args[5])  # cfg, found: the first pass's
        return init(*args, **kw)

    def recorded(self, text, prose, only=None):
        state["calls"].setdefault(id(self), []).append((text, prose, only))
        return plan(self, text, prose, only)

    workers._init_worker, Prefilter.plan = init_worker, recorded  # type: ignore[method-assign]
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    with tempfile.TemporaryDirectory() as out:
        sys.argv = ["tracepub", "redact", str(folder), "--out", out + "/o", "--json", "--jobs", "1"]
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # (the run's summary)
                cli()
        except SystemExit:
            pass
    calls = max(state["calls"].values(), key=len)  # the first pass's engine reads the most
    with dest.open("wb") as f:
        pickle.dump({"args": state["args"], "calls": calls}, f)
    print(f"{len(calls)} calls, {sum(len(c[0]) for c in calls) / 1e6:.1f} M characters", file=sys.stderr)


def replay(src: Path, repeat: int) -> None:
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import build_detectors
    from tracepub.walk import blobs

    data = pickle.loads(src.read_bytes())
    cfg, found = data["args"]
    pf = Engine(cfg, build_detectors(cfg, found), line_literals=blobs.LINE_LITERALS).prefilter
    calls = data["calls"]
    digest = hashlib.sha256()
    for text, prose, only in calls:  # (also the warm-up: lazy compiles, first allocations)
        digest.update(repr(pf.plan(text, prose, only)).encode())
    times = []
    for _ in range(max(1, repeat)):
        if pf._short is not None:
            pf._short.clear()
        t = time.process_time()
        for text, prose, only in calls:
            pf.plan(text, prose, only)
        times.append(time.process_time() - t)
    print(f"plans {digest.hexdigest()[:16]}  {len(calls)} calls  CPU {min(times):.3f} s (of {repeat})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("dest", type=Path)
    c.add_argument("--corpus", default="mix", choices=("mix", "builtin", "corpus"))
    c.add_argument("--size", default="50MB")
    r = sub.add_parser("replay")
    r.add_argument("src", type=Path)
    r.add_argument("--repeat", type=int, default=3)
    r.add_argument("--tree", type=Path, default=HERE.parent, help="the checkout whose prefilter replays")
    args = ap.parse_args(argv)
    if args.cmd == "capture":
        sys.path.insert(0, str(HERE.parent))
        sys.path.insert(0, str(HERE))
        import throughput

        capture(args.dest, args.corpus, throughput.parse_size(args.size))
    else:
        sys.path.insert(0, str(args.tree / "src" if (args.tree / "src").is_dir() else args.tree))
        replay(args.src, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
