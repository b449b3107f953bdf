"""How fast the secret stages scan code-like text that holds no secret (MB/s, one core).

Usage: PYTHONPATH=. python bench/secrets_speed.py [--mb 4] [--chunk 4000] [--full]

The text is the Python standard library's own source (code, docstrings, tests full of words
like ``key``, ``token`` and ``password``), cut into distinct chunks the size of a tool output,
so the Engine's cache does not help. Without ``--full`` only the secret detectors run
(patterns, context entropy, detect-secrets); with it, the whole Engine (Presidio without NER
as well). It also prints the spans found: on this text each one is a false positive worth a
look.
"""

from __future__ import annotations

import argparse
import sysconfig
import time
from pathlib import Path

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig, build_detectors
from tracepub.model import Leaf


def corpus(mb: float, chunk: int) -> list[str]:
    root = Path(sysconfig.get_paths()["stdlib"])
    chunks: list[str] = []
    total = 0
    for path in sorted(root.rglob("*.py")):
        if "site-packages" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for i in range(0, len(text), chunk):
            chunks.append(text[i : i + chunk])
            total += len(chunks[-1])
            if total >= mb * 1_000_000:
                return chunks
    return chunks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=4)
    ap.add_argument("--chunk", type=int, default=4000)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--show", type=int, default=15, help="print up to N spans found")
    args = ap.parse_args()
    cfg = DetectConfig(ner=False)
    detectors = build_detectors(cfg)
    if not args.full:
        detectors = [d for d in detectors if d.name.startswith(("pattern", "entropy", "detect-secrets"))]
    print("detectors:", ", ".join(d.name for d in detectors))
    engine = Engine(cfg, detectors)
    chunks = corpus(args.mb, args.chunk)
    size = sum(len(c) for c in chunks)
    leaf = Leaf("bench", ("output",), "output", False)
    for c in chunks[:50]:  # warm up (lazy imports, compiled regexes)
        engine.scan(c, leaf)
    found = []
    t0 = time.perf_counter()
    for c in chunks:
        for s in engine.scan(c, leaf):
            found.append((s, c[s.start : s.end]))
    dt = time.perf_counter() - t0
    print(
        f"{size / 1e6:.1f} MB in {len(chunks)} chunks: {dt:.2f} s = {size / 1e6 / dt:.1f} MB/s; {len(found)} spans"
    )
    for s, v in found[: args.show]:
        print(f"  {s.type:32} {s.detector:36} {v[:60]!r}")


if __name__ == "__main__":
    main()
