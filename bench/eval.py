"""Labelled evaluation: generate a corpus, run the real ``tracepub redact`` on it, score the output.

    python bench/eval.py --size 20MB            # one command: corpus, redaction, tables
    python bench/eval.py --size 300KB --check   # exit 1 when a target is missed

For every planted value it asks one question of the published bytes (``DIR/dataset``, its
file names and the dataset card included): is it still there? Secrets count as leaked when the
whole value survives and as partly leaked when any 16-character piece does; PII and the user's
identity when the value survives; harmless look-alikes (hard negatives) count as wrongly
removed when they are gone. It also checks that no identity value appears in clear anywhere
under ``DIR/review`` or in ``manifest.json``.

Sessions are matched to output files by the canary each carries (``evalref-<harness>-<n>``),
so only sessions a reader actually picked up are scored; the tables say which harnesses were
read, and a harness without a reader yet is listed as not read rather than as a failure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ahocorasick_rs
import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from corpus import generate, parse_size  # noqa: E402

TARGETS = {"secret_leak": 0.005, "identity_leaks": 0, "pii_leak": 0.05, "negatives_removed": 0.02}
WINDOW = 16
CANARY = re.compile(r"evalref-[a-z_]+-\d{4}")
# Files under review/ that may hold secret material on purpose, readable by the owner only (0600):
# the placeholder key. (values.json keeps only keyed hashes of the exact values: runstate.py.)
SECRET_STORES = {"placeholder.key"}
_SECRETISH = (
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "ACCESS_KEY",
    "CREDENTIAL",
    "AUTH",
    "PRIVATE",
)


# -- running the pipeline ---------------------------------------------------------------------------
def clean_env(extra: dict[str, str]) -> dict[str, str]:
    """The machine's environment minus anything secret or harness-specific, plus the fake user's."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not any(s in k.upper() for s in _SECRETISH)
        and k
        not in (
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "PI_CODING_AGENT_DIR",
            "OPENCODE_DB",
            "HERMES_HOME",
            "XDG_DATA_HOME",
            "XDG_CONFIG_HOME",
            "HF_HOME",
            "GIT_CONFIG_GLOBAL",
        )
    }
    env.update(extra)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["HF_HUB_OFFLINE"] = "1"
    return env


def run_redact(
    corpus: Path, out: Path, env: dict[str, str], jobs: int = 0, extra: list[str] | None = None
) -> dict:
    cmd = [
        sys.executable,
        "-m",
        "tracepub.cli",
        "redact",
        str(corpus),
        "--out",
        str(out),
        "--json",
        "--jobs",
        str(jobs),
        *(extra or []),
    ]
    proc = subprocess.run(cmd, env=clean_env(env), capture_output=True, text=True, cwd=str(out.parent))
    if proc.returncode != 0:
        raise RuntimeError(f"tracepub redact failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)


# -- reading the output ------------------------------------------------------------------------------
def _unescape(text: str) -> str:
    """One level of JSON string escapes, for JSON written inside text that is not JSON
    (``<tool_response>{...}</tool_response>``): a multi-line value is only found with its lines back."""
    return (
        text.replace("\\\\", "\0")
        .replace("\\n", "\n")
        .replace("\\t", "\t")
        .replace('\\"', '"')
        .replace("\0", "\\")
    )


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
        if "\\" in value:
            once = _unescape(value)
            out.append(once)
            if "\\" in once:
                out.append(_unescape(once))
        s = value.strip()
        if len(s) > 1 and s[0] in "{[" and s[-1] in "}]":
            try:
                _strings(orjson.loads(s), out)
            except orjson.JSONDecodeError:
                pass
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(k)
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)


def _records(path: Path) -> list[str]:
    """Each record of an output file as decoded text (every string, JSON inside strings too)."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".jsonl":
        chunks = raw.split("\n")
    elif path.suffix == ".json":
        chunks = [raw]
    else:
        return [raw]
    out = []
    for chunk in chunks:
        if not chunk.strip():
            continue
        parts: list[str] = []
        try:
            _strings(orjson.loads(chunk), parts)
        except orjson.JSONDecodeError:
            parts = [chunk]
        parts.append(chunk)  # the encoded form too: a value may survive in either
        out.append("\n".join(parts))
    return out


@dataclass
class Output:
    texts: dict[str, list[str]] = field(default_factory=dict)  # canary -> texts
    common: str = ""  # file names and the dataset card: a leak there counts for every session
    files: int = 0


def read_output(out: Path) -> Output:
    res = Output()
    dataset = out / "dataset"
    names = []
    for path in sorted(dataset.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(dataset).as_posix()
        names.append(rel)
        if rel == "README.md":
            names.append(path.read_text(encoding="utf-8"))
            continue
        res.files += 1
        records = _records(path)
        found = [set(CANARY.findall(r)) for r in records]
        canaries = set().union(*found) if found else set()
        if len(canaries) == 1:
            res.texts.setdefault(canaries.pop(), []).extend(records)
        else:
            for text, cs in zip(records, found, strict=True):
                for c in cs:
                    res.texts.setdefault(c, []).append(text)
    res.common = "\n".join(names)
    return res


# -- scoring ---------------------------------------------------------------------------------------
@dataclass
class Tally:
    planted: int = 0
    leaked: int = 0
    partly: int = 0
    removed: int = 0

    def add(self, other: Tally) -> None:
        self.planted += other.planted
        self.leaked += other.leaked
        self.partly += other.partly
        self.removed += other.removed


@dataclass
class Score:
    kinds: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    types: dict[tuple[str, str], Tally] = field(default_factory=lambda: defaultdict(Tally))
    harness: dict[tuple[str, str], Tally] = field(default_factory=lambda: defaultdict(Tally))
    sessions: Counter = field(default_factory=Counter)
    sessions_read: Counter = field(default_factory=Counter)
    failures: list[dict] = field(default_factory=list)  # leaks and removals, for the report
    review_leaks: list[str] = field(default_factory=list)

    def rates(self) -> dict[str, float]:
        s, p, i, n = (self.kinds[k] for k in ("secret", "pii", "identity", "negative"))
        return {
            "secret_leak": (s.leaked + s.partly) / s.planted if s.planted else 0.0,
            "identity_leaks": i.leaked + len(self.review_leaks),
            "pii_leak": p.leaked / p.planted if p.planted else 0.0,
            "negatives_removed": n.removed / n.planted if n.planted else 0.0,
        }

    def missed(self) -> list[str]:
        r = self.rates()
        return [f"{k} = {r[k]:.4g} > {t}" for k, t in TARGETS.items() if r[k] > t]


def _windows(value: str) -> list[str]:
    if len(value) <= WINDOW:
        return []
    return [value[i : i + WINDOW] for i in range(len(value) - WINDOW + 1)]


def score(labels: list[dict], sessions: list[dict], output: Output) -> Score:
    sc = Score()
    by_session: dict[str, list[dict]] = defaultdict(list)
    for lab in labels:
        by_session[lab["session"]].append(lab)
    for s in sessions:
        sc.sessions[s["harness"]] += 1
        texts = output.texts.get(s["canary"])
        if not texts:
            continue
        sc.sessions_read[s["harness"]] += 1
        labs = by_session.get(s["session"], [])
        if not labs:
            continue
        words = sorted(
            {lab["value"] for lab in labs}
            | {w for lab in labs if lab["kind"] == "secret" for w in _windows(lab["value"])}
        )
        auto = ahocorasick_rs.AhoCorasick(words)
        present: set[str] = set()
        for text in (*texts, output.common):
            for k, _, _ in auto.find_matches_as_indexes(text, overlapping=True):
                present.add(words[k])
        for lab in labs:
            t = Tally(planted=1)
            v = lab["value"]
            if lab["kind"] == "negative":
                t.removed = int(v not in present)
            elif v in present:
                t.leaked = 1
            elif lab["kind"] == "secret" and any(w in present for w in _windows(v)):
                t.partly = 1
            sc.kinds[lab["kind"]].add(t)
            sc.types[(lab["kind"], lab["type"])].add(t)
            sc.harness[(s["harness"], lab["kind"])].add(t)
            if t.leaked or t.partly or t.removed:
                sc.failures.append(
                    {**lab, "result": "leaked" if t.leaked else "partly" if t.partly else "removed"}
                )
    return sc


def check_review(out: Path, labels: list[dict]) -> list[str]:
    """Identity values must not be written in clear anywhere, review/ and manifest.json included."""
    values = {lab["value"] for lab in labels if lab["kind"] == "identity"}
    leaks = []
    files = [out / "manifest.json", *sorted((out / "review").rglob("*"))]
    for path in files:
        if not path.is_file() or path.name in SECRET_STORES:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for v in values:
            if v in text:
                leaks.append(f"{path.relative_to(out)}: {v[:2]}…")
    return leaks


# -- rendering -------------------------------------------------------------------------------------
def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.2f}%" if d else "-"


def render(
    sc: Score, summary: dict | None = None, seconds: float | None = None, size: int | None = None
) -> str:
    lines = []
    r = sc.rates()
    lines += [
        "| measure | value | target |",
        "|---|---|---|",
        f"| secrets leaked (full or partial) | {r['secret_leak'] * 100:.2f}% "
        f"({sc.kinds['secret'].leaked} + {sc.kinds['secret'].partly} of {sc.kinds['secret'].planted}) | ≤ 0.5% |",
        f"| user's identity leaked | {int(r['identity_leaks'])} (of {sc.kinds['identity'].planted}) | 0 |",
        f"| PII leaked | {r['pii_leak'] * 100:.2f}% ({sc.kinds['pii'].leaked} of {sc.kinds['pii'].planted}) | ≤ 5% |",
        f"| harmless values removed | {r['negatives_removed'] * 100:.2f}% "
        f"({sc.kinds['negative'].removed} of {sc.kinds['negative'].planted}) | ≤ 2% |",
        "",
    ]
    lines += ["| kind | type | planted | leaked | partly leaked | removed |", "|---|---|---|---|---|---|"]
    for (kind, type_), t in sorted(sc.types.items()):
        lines.append(
            f"| {kind} | {type_} | {t.planted} | {t.leaked or ''} | {t.partly or ''} | {t.removed or ''} |"
        )
    lines += [
        "",
        "| harness | sessions read | secrets leaked | identity leaked | PII leaked | negatives removed |",
        "|---|---|---|---|---|---|",
    ]
    for h in sorted(sc.sessions):

        def cell(kind: str, h: str = h) -> str:
            t = sc.harness.get((h, kind))
            if t is None or not t.planted:
                return "-"
            n = t.removed if kind == "negative" else t.leaked + t.partly
            return f"{n}/{t.planted}"

        read = sc.sessions_read.get(h, 0)
        lines.append(
            f"| {h} | {read}/{sc.sessions[h]}{'' if read else ' (not read)'} | {cell('secret')} | "
            f"{cell('identity')} | {cell('pii')} | {cell('negative')} |"
        )
    if sc.review_leaks:
        lines += [
            "",
            "Identity in clear under review/ or manifest.json:",
            *[f"  {x}" for x in sc.review_leaks[:10]],
        ]
    if summary is not None and seconds is not None and size:
        read = summary.get("bytes_in") or 0
        lines += [
            "",
            f"Corpus {size / 1e6:.1f} MB; {summary.get('files', 0)} files ({read / 1e6:.1f} MB) redacted in "
            f"{seconds:.1f} s ({read / 1e6 / seconds:.2f} MB/s, process start included); "
            f"NER: {summary.get('ner') or 'off'}.",
        ]
    return "\n".join(lines)


def render_failures(sc: Score, limit: int) -> str:
    if not sc.failures or limit <= 0:
        return ""
    groups: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for f in sc.failures:
        groups[(f["result"], f["kind"], f["type"])].append(f)
    lines = ["", "Failures (result, kind, type: count; where; example):"]
    for (result, kind, type_), fs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        wheres = Counter(f["where"] for f in fs).most_common(4)
        ex = fs[0]["value"].replace("\n", "\\n")
        ex = ex if kind in ("negative", "pii") else ex[:6] + "…" + f"({len(ex)} chars)"
        lines.append(
            f"  {result} {kind} {type_}: {len(fs)}; {', '.join(f'{w} {n}' for w, n in wheres)}; e.g. {ex[:80]}"
        )
        if len(lines) > limit + 2:
            break
    return "\n".join(lines)


# -- the command -------------------------------------------------------------------------------------
def evaluate(
    workdir: Path,
    size: int,
    seed: int = 1,
    jobs: int = 0,
    extra: list[str] | None = None,
    corpus_dir: Path | None = None,
) -> tuple[Score, dict, float, int]:
    if corpus_dir is None:
        corpus_dir = workdir / "eval-corpus"
        c = generate(corpus_dir, size, seed)
        env, labels, sessions, nbytes = c.env, c.labels, c.sessions, c.bytes
    else:
        env = json.loads((corpus_dir / "env.json").read_text())
        labels = [json.loads(x) for x in (corpus_dir / "labels.jsonl").read_text().splitlines() if x]
        sessions = [json.loads(x) for x in (corpus_dir / "sessions.jsonl").read_text().splitlines() if x]
        nbytes = sum(p.stat().st_size for p in (corpus_dir / "corpus").rglob("*") if p.is_file())
    out = workdir / "eval-out"
    t0 = time.perf_counter()
    summary = run_redact(corpus_dir / "corpus", out, env, jobs, extra)
    seconds = time.perf_counter() - t0
    sc = score(labels, sessions, read_output(out))
    sc.review_leaks = check_review(out, labels)
    return sc, summary, seconds, nbytes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Labelled evaluation of tracepub redact.")
    ap.add_argument(
        "--size", type=parse_size, default=parse_size("20MB"), help="Corpus size (e.g. 300KB, 20MB)."
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=0, help="Passed to tracepub redact (0: one per core).")
    ap.add_argument("--keep", type=Path, help="Work in this folder and keep the corpus and output.")
    ap.add_argument("--corpus", type=Path, help="Reuse a corpus made by bench/corpus.py.")
    ap.add_argument("--examples", type=int, default=25, help="Lines of failure examples to print.")
    ap.add_argument("--check", action="store_true", help="Exit 1 if a target is missed.")
    ap.add_argument("--json", action="store_true", help="Print the rates as JSON.")
    ap.add_argument("redact_args", nargs="*", help="Extra arguments for tracepub redact (after --).")
    args = ap.parse_args(argv)
    ctx = tempfile.TemporaryDirectory(prefix="tracepub-eval-") if args.keep is None else None
    workdir = args.keep or Path(ctx.name)  # type: ignore[union-attr]
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        sc, summary, seconds, nbytes = evaluate(
            workdir, args.size, args.seed, args.jobs, args.redact_args, args.corpus
        )
    finally:
        if ctx is not None:
            ctx.cleanup()
    if args.json:
        print(
            json.dumps(
                {
                    "rates": sc.rates(),
                    "missed": sc.missed(),
                    "read": dict(sc.sessions_read),
                    "sessions": dict(sc.sessions),
                },
                indent=2,
            )
        )
    else:
        print(render(sc, summary, seconds, nbytes))
        print(render_failures(sc, args.examples))
        missed = sc.missed()
        print("\nAll targets met." if not missed else "\nTargets missed: " + "; ".join(missed))
    return 1 if args.check and sc.missed() else 0


if __name__ == "__main__":
    sys.exit(main())
