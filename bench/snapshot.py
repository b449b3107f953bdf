"""Byte-for-byte output snapshots, for changes that must not change what is written.

    python bench/snapshot.py save /tmp/before.json          # run the corpora, record digests
    python bench/snapshot.py save /tmp/after.json --tree ../other-checkout
    python bench/snapshot.py diff /tmp/before.json /tmp/after.json   # exit 1 on any difference

Runs ``tracepub redact`` (of the checkout given by ``--tree``, default this one) on two corpora
with a fixed placeholder key: the bench default (``bench/claude_gen.py``, 30 MB) and the
labelled corpus of every harness (``bench/corpus.py``, 20 MB), and with ``--mix SIZE`` the
realistic mix (``bench/corpus_mix.py``). A size of 0 leaves that corpus out. Records the sha256 of every file
under dataset/, of review/findings.jsonl, and of manifest.json without its run id.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

KEY = bytes(range(32)).hex()


def package_path(tree: Path) -> Path:
    return tree / "src" if (tree / "src" / "tracepub").is_dir() else tree


def corpora(
    size_builtin: str, size_labelled: str, size_mix: str = ""
) -> list[tuple[str, Path, dict[str, str]]]:
    """The corpora and their sizes ("" or "0": that corpus left out)."""
    import throughput

    out = []
    for kind, size in (("builtin", size_builtin), ("corpus", size_labelled), ("mix", size_mix)):
        if size in ("", "0"):
            continue
        folder, env = throughput.corpus(kind, throughput.parse_size(size), False, 1)
        out.append((kind, folder, env))
    return out


def digest_dir(out: Path) -> dict[str, str]:
    got: dict[str, str] = {}
    for p in sorted((out / "dataset").rglob("*")):
        if p.is_file():
            got["dataset/" + p.relative_to(out / "dataset").as_posix()] = hashlib.sha256(
                p.read_bytes()
            ).hexdigest()
    got["review/findings.jsonl"] = hashlib.sha256(
        (out / "review" / "findings.jsonl").read_bytes()
    ).hexdigest()
    manifest = json.loads((out / "manifest.json").read_text())
    manifest.pop("run_id", None)
    got["manifest.json"] = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()
    return got


def save(dest: Path, tree: Path, size_builtin: str, size_labelled: str, size_mix: str = "") -> int:
    import throughput

    result: dict[str, dict[str, str]] = {}
    for kind, folder, env in corpora(size_builtin, size_labelled, size_mix):
        work = Path(tempfile.mkdtemp(prefix="snapshot-"))
        out = work / "out"
        (out / "review").mkdir(parents=True)
        (out / "review" / "placeholder.key").write_text(KEY + "\n")
        child = throughput.child_env(env)
        child["PYTHONPATH"] = str(package_path(tree))
        cmd = [sys.executable, "-m", "tracepub.cli", "redact", str(folder), "--out", str(out), "--json"]
        proc = subprocess.run(cmd, env=child, capture_output=True, text=True, cwd=work)
        if proc.returncode != 0:
            sys.exit(f"redact failed on {kind}:\n{proc.stderr[-3000:]}")
        result[kind] = digest_dir(out)
        print(f"{kind}: {len(result[kind])} files", file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
    dest.write_text(json.dumps(result, indent=1, sort_keys=True))
    return 0


def diff(a: Path, b: Path) -> int:
    x, y = json.loads(a.read_text()), json.loads(b.read_text())
    bad = 0
    for kind in sorted(set(x) | set(y)):
        fx, fy = x.get(kind, {}), y.get(kind, {})
        for name in sorted(set(fx) | set(fy)):
            if fx.get(name) != fy.get(name):
                bad += 1
                if bad <= 20:
                    print(f"{kind}: {name} differs")
    print("IDENTICAL" if not bad else f"{bad} differences")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("save")
    s.add_argument("dest", type=Path)
    s.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose tracepub runs")
    s.add_argument("--builtin", default="30MB")
    s.add_argument("--labelled", default="20MB")
    s.add_argument("--mix", default="", help="also the realistic mix (bench/corpus_mix.py) of this size")
    d = sub.add_parser("diff")
    d.add_argument("a", type=Path)
    d.add_argument("b", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "save":
        return save(args.dest, args.tree.resolve(), args.builtin, args.labelled, args.mix)
    return diff(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
