"""Secret recall on a second suite nobody here wrote: Nosey Parker's rule examples.

    python bench/recall_np.py                                     # every example, harness and place
    python bench/recall_np.py --limit 100 --harness claude_code,codex
    python bench/recall_np.py --json /tmp/recall-np.json --check

bench/recall.py measures on gitleaks' rule examples; the fixes made against it could fit that one
suite's habits (its generated `KEY := "value"` lines). Nosey Parker's rules (praetorian-inc/
noseyparker, `crates/noseyparker/data/default/builtin/rules/*.yml`) carry `examples` written
from what its authors met in public code (Gradle files, `.npmrc`, ODBC strings, curl lines,
Jenkins XML) and `negative_examples` that look like secrets but are not. A second opinion, of
another hand.

The rules are read at run time from a git checkout of that repository (``--repo``: a bare or
normal git directory; its newest commit's rule files are read with ``git show``), never copied
into this tree. An example's secrets are what the rule itself captures: every non-empty group
of its pattern (Rust regex syntax, compiled with the ``regex`` module) on the example; an
example its own rule does not match is skipped. Each example is then planted exactly as
bench/recall.py plants gitleaks' samples (6 harnesses x 4 places, canaries, the real
``tracepub redact`` in a subprocess) and scored the same way: fully redacted / partial /
leaked for the examples, kept for the negative examples (their longest token must survive).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import regex

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import recall as rc  # noqa: E402
import yaml  # noqa: E402

REPO = Path("/work/.mirror/praetorian-inc+noseyparker/repo")
RULES = "crates/noseyparker/data/default/builtin/rules/"
MIN_SECRET = 6  # a shorter capture (a user name, a port) is context, not the secret measured


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def load_samples(repo: Path) -> tuple[list[rc.Sample], int]:
    """The examples of every rule as tp samples and the negative examples as fp samples, with
    the number of examples skipped (the rule's own pattern does not match them)."""
    files = [
        f for f in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", RULES).split() if f.endswith(".yml")
    ]
    out: list[rc.Sample] = []
    skipped = 0
    for f in sorted(files):
        doc = yaml.safe_load(_git(repo, "show", f"HEAD:{f}")) or {}
        for rule in doc.get("rules") or []:
            rid = str(rule["id"])
            rx = regex.compile(rule["pattern"])
            for n, ex in enumerate(rule.get("examples") or []):
                m = rx.search(ex)
                groups = [g for g in (m.groups() if m else ()) if g and len(g) >= MIN_SECRET]
                if not groups and m and len(m.group(0)) >= MIN_SECRET:
                    groups = [m.group(0)]
                if not groups:
                    skipped += 1
                    continue
                out.append(rc.Sample(f"{rid}:tp{n}", rid, "tp", ex, tuple(dict.fromkeys(groups))))
            for n, ex in enumerate(rule.get("negative_examples") or []):
                out.append(rc.Sample(f"{rid}:fp{n}", rid, "fp", ex))
    return out, skipped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n")[1],
    )
    ap.add_argument(
        "--repo", type=Path, default=REPO, help="Nosey Parker git directory (default: %(default)s)."
    )
    ap.add_argument("--harness", default=",".join(rc.HARNESSES), help="Comma-separated harnesses.")
    ap.add_argument("--places", default=",".join(rc.PLACES), help="Comma-separated places.")
    ap.add_argument("--limit", type=int, help="At most this many samples, spread over the rules.")
    ap.add_argument("--family", help="Only rule ids matching this regex.")
    ap.add_argument("--kind", choices=["tp", "fp"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-session", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--keep", type=Path, help="Work in this (new) folder and keep the corpus and output.")
    ap.add_argument("--families", type=int, default=60)
    ap.add_argument(
        "--json", type=Path, metavar="FILE", help="Write the summary and every failing planting here."
    )
    ap.add_argument("--check", action="store_true", help="Exit 1 below bench/recall.py's targets.")
    args = ap.parse_args(argv)
    if not (args.repo / "HEAD").exists() and not (args.repo / ".git").exists():
        ap.error(f"{args.repo} is not a git directory of praetorian-inc/noseyparker (--repo)")
    harnesses = rc._names(args.harness, [w.harness for w in rc.WRITERS], "harness")
    places = rc._names(args.places, rc.PLACES, "place")
    all_samples, skipped = load_samples(args.repo)
    samples = rc.subsample(all_samples, args.limit, args.seed, args.family, args.kind)
    if not samples:
        ap.error("no sample left after --family/--kind/--limit")
    ctx = tempfile.TemporaryDirectory(prefix="tracepub-recall-np-") if args.keep is None else None
    work = args.keep or Path(ctx.name)  # type: ignore[union-attr]
    try:
        c = rc.plant(work, samples, harnesses, places, args.seed, args.per_session)
        t0 = time.perf_counter()
        run = rc.run_redact(c.corpus, work / "out", c.env, args.jobs)
        seconds = time.perf_counter() - t0
        output = rc.read_output(work / "out" / "dataset")
        results = rc.score(c.plantings, output)
    finally:
        if ctx is not None:
            ctx.cleanup()
    s = rc.summary(results)
    print(rc.render(results, args.families))
    print(
        f"\n{len(samples)} samples ({sum(x.kind == 'tp' for x in samples)} tp; {skipped} examples their own "
        f"rule does not capture skipped) x {len(harnesses)} harnesses x {len(places)} places = "
        f"{len(results)} plantings; corpus {c.bytes / 1e6:.1f} MB, {run.get('files', '?')} files, "
        f"redacted in {seconds:.1f} s."
    )
    miss = rc.missed(s)
    print("Targets met." if not miss else "Targets missed: " + "; ".join(miss))
    if args.json:
        doc = {
            "summary": s,
            "targets": rc.TARGETS,
            "repo": str(args.repo),
            "commit": _git(args.repo, "rev-parse", "HEAD").strip(),
            "failures": rc.failures_json(results),
        }
        args.json.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"{len(doc['failures'])} failing plantings written to {args.json}")
    return 1 if args.check and miss else 0


if __name__ == "__main__":
    sys.exit(main())
