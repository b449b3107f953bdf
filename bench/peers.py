"""tracepub beside the fastest peers, timed alternately on the same sessions in one run.

    python bench/peers.py                          # 20 MB of Claude Code + Codex sessions, 3 rounds
    python bench/peers.py --size 20MB --repeat 5   # more rounds
    python bench/peers.py --peers neuralyzer --json

The input is the first ``--size`` bytes of Claude Code and Codex sessions (the two harnesses every
peer reads) of the realistic mix (bench/corpus_mix.py, ``--mix-size`` of it, the same cache
bench/throughput.py's headline uses), laid out as a home folder: ``~/.claude/projects/`` and
``~/.codex/sessions/`` beside the fake user's git config and credential files. Each round runs
every tool once, one after the other, as a subprocess with its documented command line, and
times it (wall, CPU of all its processes, peak RSS); the medians and the ratios are printed.

Speed is shown next to what it buys. The mix labels what it plants (about 2.5 secrets per MB, of
15 common kinds; a few people's names and a phone number or so per session), so after the last
round every tool's output is read back (every string, JSON inside strings decoded) and counted:
secrets left whole or in part (any 16-character piece, as bench/eval.py counts), names and
phone numbers left, and the distinct harmless lines of the input's text (code, logs, diffs,
prose: lines that hold no planted value, no email and nothing of the user's) still found in
the output. The peers are pinned, and each is installed on first use into a venv of its own
under ``bench/.cache/peers/`` (never into the project's environment); a peer that cannot be
installed is skipped with pip's reason (and one whose run fails, with its error). The last round's outputs
stay in ``bench/.cache/peers/work/`` to be looked at.

The tools:

- neuralyzer 0.1.0 (PyPI; github.com/sandeepsirodia/neuralyzer): one Python file, no
  dependencies. Regular expressions only: 12 shapes of secret and a keyword + entropy rule;
  secrets only (no names, phone numbers, emails or usernames). ``neuralyzer scrub --apply PATHS``
  rewrites the session files in place, line for line (so each round scrubs a fresh copy; the
  copy is not timed). One process.
- dataclaw 0.4.2 (PyPI; github.com/peteromallet/dataclaw): reads ``~/.claude`` and ``~/.codex``
  (and other harnesses' stores) into its own export schema, one JSON line per session (messages
  with text, thinking and tool uses; the rest of each record is not exported); regular
  expressions and an entropy check for secrets, emails and public IPs, the OS username hashed,
  no names or phone numbers. ``dataclaw export --no-push --source all --all-projects --output
  FILE``; one process per core.
- tracepub: ``tracepub redact SOURCES --out DIR``, default settings: secrets (rule pack,
  entropy, detect-secrets), personal data (names by NER on prose, phones, emails, addresses,
  ...), the user's identity harvested from the home folder; each harness's records kept as they
  are; findings, report and manifest written for the review.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ahocorasick_rs
import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import throughput  # noqa: E402  (measured, child_env, corpus, parse_size, human)

CACHE = throughput.CACHE
PEERS_DIR = CACHE / "peers"
WINDOW = 16  # a secret counts as partly left when any piece this long survives (bench/eval.py)
_NUMBERED = re.compile(r"^\s*\d+\u2192")  # Claude Code's Read output: "    12→", the line after it


@dataclass
class Peer:
    name: str
    requirement: str  # what pip installs
    does: str  # one line: what it detects and what it writes, for reading its figures fairly


PEERS = {
    "neuralyzer": Peer(
        "neuralyzer",
        "neuralyzer==0.1.0",
        "regex only (12 shapes + a keyword/entropy rule); secrets only; rewrites the files in place",
    ),
    "dataclaw": Peer(
        "dataclaw",
        "dataclaw==0.4.2",
        "regex + entropy for secrets, emails, IPs, the username hashed; no names or phones; "
        "exports its own schema (one line per session)",
    ),
}
TRACEPUB_DOES = (
    "secrets (rules, entropy, detect-secrets), names, phones, emails, addresses, the user's identity; "
    "native records, findings and report"
)


# -- installing a peer -----------------------------------------------------------------------------
def install(peer: Peer) -> tuple[Path | None, str]:
    """The peer's venv bin folder (installed on first use), or None and why it could not be."""
    venv = PEERS_DIR / peer.name
    stamp = venv / f".installed-{peer.requirement}"
    if stamp.exists():
        return venv / "bin", ""
    shutil.rmtree(venv, ignore_errors=True)
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            peer.requirement,
        ],
    ]
    for cmd in steps:
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            lines = (proc.stderr or proc.stdout).strip().splitlines()
            return None, f"`{' '.join(cmd[-2:])}` failed ({proc.returncode}): " + " / ".join(lines[-3:])
    stamp.write_text("ok\n")
    return venv / "bin", ""


# -- the input -------------------------------------------------------------------------------------
@dataclass
class PeerInput:
    home: Path  # HOME for every tool
    sources: list[Path]  # the two session folders under it
    bytes: int
    sessions: Counter  # harness -> sessions
    labels: list[dict]  # the planted values in these sessions
    env: dict[str, str]  # the fake user's variables (HOME set to ``home``)
    user: dict[str, str] = field(default_factory=dict)  # username, name, email, home


_HOME_DIRS = {"claude": ".claude", "codex": ".codex"}  # the mix's folder -> the harness's in a home


def pick_sessions(sessions: list[dict], size: int) -> list[dict]:
    """Claude Code and Codex sessions in the mix's order until ``size`` bytes: both harnesses,
    mixed as they were written, and the same ones for every run of the same corpus."""
    out, total = [], 0
    for s in sessions:
        if s["harness"] in ("claude_code", "codex") and total < size:
            out.append(s)
            total += s["bytes"]
    return out


def build_input(mix_root: Path, size: int) -> PeerInput:
    """The peers' input (made once under bench/.cache/peers/, then reused)."""
    import corpus_mix

    mix = corpus_mix.load(mix_root)
    chosen = pick_sessions(mix.sessions, size)
    folder = PEERS_DIR / f"input-{mix_root.name}-{size}"
    user_home = Path(mix.env["HOME"])
    home = folder / "home" / user_home.name
    if not (folder / ".done").exists():
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(user_home, home)  # the credential files and git config the harvest reads
        for s in chosen:
            top, _, rest = s["file"].partition("/")
            dest = home / _HOME_DIRS[top] / rest
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(mix.corpus / s["file"], dest)
        (folder / ".done").write_text("ok\n")
    ids = {s["session"] for s in chosen}
    env = dict(mix.env, HOME=str(home))
    name, email = _git_identity(home / ".gitconfig")
    return PeerInput(
        home=home,
        sources=[home / ".claude" / "projects", home / ".codex" / "sessions"],
        bytes=sum(s["bytes"] for s in chosen),
        sessions=Counter(s["harness"] for s in chosen),
        labels=[lab for lab in mix.labels if lab["session"] in ids],
        env=env,
        user={"username": env["USER"], "name": name, "email": email, "home": f"/home/{env['USER']}"},
    )


def _git_identity(path: Path) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    name = re.search(r"name = (.+)", text)
    email = re.search(r"email = (.+)", text)
    return (name.group(1).strip() if name else ""), (email.group(1).strip() if email else "")


# -- running the tools -----------------------------------------------------------------------------
@dataclass
class Run:
    seconds: float
    cpu_seconds: float
    rss: int
    outputs: list[Path]  # the files it wrote the sessions to


def _env(inp: PeerInput, peer: bool) -> dict[str, str]:
    env = throughput.child_env(inp.env)
    env.update(HF_HUB_OFFLINE="1", GIT_CONFIG_NOSYSTEM="1")
    if peer:  # nothing of the project's on a peer's path
        env.pop("PYTHONPATH", None)
        env["PYTHONUTF8"] = "1"  # dataclaw's CLI re-runs itself in UTF-8 mode otherwise: one start, not two
    return env


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def run_tracepub(inp: PeerInput, work: Path, jobs: int | None) -> Run:
    out = work / "tracepub-out"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [
        sys.executable,
        "-m",
        "tracepub.cli",
        "redact",
        *map(str, inp.sources),
        "--out",
        str(out),
        "--json",
    ]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    wall, largest, _tree, _out, cpu = throughput.measured(cmd, _env(inp, peer=False))
    return Run(wall, cpu, largest, [p for p in _files(out / "dataset") if p.name != "README.md"])


def run_neuralyzer(bin_dir: Path, inp: PeerInput, work: Path) -> Run:
    copy = work / "neuralyzer"
    shutil.rmtree(copy, ignore_errors=True)
    targets = []
    for src in inp.sources:  # a fresh copy each round: it rewrites files in place
        dest = copy / src.relative_to(inp.home)
        shutil.copytree(src, dest)
        targets.append(str(dest))
    cmd = [str(bin_dir / "neuralyzer"), "scrub", "--apply", *targets]
    wall, largest, _tree, _out, cpu = throughput.measured(cmd, _env(inp, peer=True), cwd=work)
    return Run(wall, cpu, largest, _files(copy))


def run_dataclaw(bin_dir: Path, inp: PeerInput, work: Path) -> Run:
    out = work / "dataclaw" / "export.jsonl"
    shutil.rmtree(out.parent, ignore_errors=True)
    out.parent.mkdir(parents=True)
    cmd = [
        str(bin_dir / "dataclaw"),
        "export",
        "--no-push",
        "--source",
        "all",
        "--all-projects",
        "--output",
        str(out),
    ]
    wall, largest, _tree, _out, cpu = throughput.measured(cmd, _env(inp, peer=True), cwd=out.parent)
    return Run(wall, cpu, largest, [out])


# -- reading outputs back --------------------------------------------------------------------------
def _leaves(value: Any, skip: frozenset[str] = frozenset()) -> Iterator[str]:
    """Every string value (not keys) of a JSON value, with JSON written inside a string decoded;
    none under a key in ``skip``."""
    if isinstance(value, str):
        s = value.strip()
        if len(s) > 1 and s[0] in "{[" and s[-1] in "}]":
            try:
                yield from _leaves(orjson.loads(s), skip)
                return
            except orjson.JSONDecodeError:
                pass
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in skip:
                yield from _leaves(v, skip)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v, skip)


def texts(path: Path) -> Iterator[str]:
    """The text of a session file a tool wrote: each record's string values, JSON decoded, then the
    raw record too (a value may survive in either form); a line that is not JSON as it is."""
    for line in path.read_bytes().splitlines():
        if not line.strip():
            continue
        try:
            yield "\n".join(_leaves(orjson.loads(line)))
        except orjson.JSONDecodeError:
            pass
        yield line.decode("utf-8", "replace")


def _line(s: str) -> str:
    return _NUMBERED.sub("", s).strip()


# Opaque blobs (thinking signatures, encrypted reasoning): removed by design (DESIGN.md), not content.
BLOB_KEYS = frozenset({"signature", "thinkingSignature", "encrypted_content"})


def harmless_lines(files: Iterable[Path], avoid: list[str]) -> dict[str, set[str]]:
    """The distinct lines of the input's strings (24 to 300 characters, line numbers of a file
    read cut off) that no redactor should remove: none holds a planted value, an email, the
    user's name, username or any home folder (nor is it a line of a planted key), nor JSON (a
    peer may keep JSON it parsed in another form).
    ``text``: lines with a space (prose, code, logs, diffs, test output); ``ids``: single tokens
    (uuids, timestamps, message ids: what a tool that exports its own schema may drop)."""
    # "/home/": a home folder cut short (titles and summaries keep a prompt's first 60 characters).
    auto = ahocorasick_rs.AhoCorasick(sorted({a for a in avoid if a} | {"PRIVATE KEY-----", "/home/"}))
    pieces = {ln.strip() for a in avoid if "\n" in a for ln in a.split("\n")}  # a key's body, line by line
    out: dict[str, set[str]] = {"text": set(), "ids": set()}
    for path in files:
        for line in path.read_bytes().splitlines():
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            for leaf in _leaves(record, BLOB_KEYS):
                for raw in leaf.split("\n"):
                    s = _line(raw)
                    if (
                        24 <= len(s) <= 300
                        and "@" not in s
                        and s[0] not in "{["
                        and s not in pieces
                        and not auto.find_matches_as_indexes(s)
                    ):
                        out["text" if " " in s else "ids"].add(s)
    return out


@dataclass
class Check:
    """What a tool's output still holds of the planted values and the harmless lines."""

    planted: Counter = field(default_factory=Counter)  # kind (secret, pii.person, pii.phone) -> n
    left: Counter = field(default_factory=Counter)  # kind -> left whole
    partly: Counter = field(default_factory=Counter)  # secrets left in part
    left_types: Counter = field(default_factory=Counter)  # secret type -> left whole or in part
    harmless: Counter = field(default_factory=Counter)  # class (text, ids) -> distinct lines in the input
    harmless_kept: Counter = field(default_factory=Counter)  # class -> of them, found in the output
    output_bytes: int = 0
    output_files: int = 0


def check(outputs: list[Path], labels: list[dict], harmless: dict[str, set[str]]) -> Check:
    c = Check(output_files=len(outputs), output_bytes=sum(p.stat().st_size for p in outputs))
    c.harmless.update({cls: len(group) for cls, group in harmless.items()})
    lines = {s: cls for cls, group in harmless.items() for s in group}
    secrets = {lab["value"] for lab in labels if lab["kind"] == "secret"}
    words = sorted(
        {lab["value"] for lab in labels}
        | {v[i : i + WINDOW] for v in secrets for i in range(len(v) - WINDOW + 1)}
    )
    auto = ahocorasick_rs.AhoCorasick(words)
    present: set[str] = set()
    seen: set[str] = set()
    for path in outputs:
        for text in texts(path):
            for k, _, _ in auto.find_matches_as_indexes(text, overlapping=True):
                present.add(words[k])
            for raw in text.split("\n"):
                s = _line(raw)
                if s in lines:
                    seen.add(s)
    c.harmless_kept.update(lines[s] for s in seen)
    for lab in labels:
        kind = "secret" if lab["kind"] == "secret" else lab["type"]
        v = lab["value"]
        c.planted[kind] += 1
        if v in present:
            c.left[kind] += 1
        elif kind == "secret" and any(v[i : i + WINDOW] in present for i in range(len(v) - WINDOW + 1)):
            c.partly[kind] += 1
        else:
            continue
        if kind == "secret":
            c.left_types[lab["type"].removeprefix("secret.")] += 1
    return c


# -- the report ------------------------------------------------------------------------------------
def summary(name: str, runs: list[Run], mb: float) -> dict:
    secs = [r.seconds for r in runs]
    med = sorted(runs, key=lambda r: r.seconds)[len(runs) // 2]
    return {
        "tool": name,
        "seconds": med.seconds,
        "mb_per_s": mb / med.seconds,
        "mb_per_cpu_s": mb / max(med.cpu_seconds, 1e-9),
        "rss": med.rss,
        "runs_seconds": [round(s, 2) for s in secs],
        "spread": (mb / max(secs), mb / min(secs)),
    }


def print_report(r: dict) -> None:
    mb = r["bytes"] / 1e6
    per = " + ".join(f"{n} {h}" for h, n in sorted(r["sessions"].items()))
    print(
        f"input       {mb:.1f} MB: {per} sessions of the mix ({r['mix']}); {r['cores']} cores, load {r['load']:.1f}"
    )
    tp = r["tools"][0]
    print(f"{'tool':<12}{'MB/s':>7}{'MB/CPU-s':>10}{'peak RSS':>11}  {'tracepub/peer':>15}  runs (s)")
    for t in r["tools"]:
        ratio = "" if t is tp else f"{tp['mb_per_s'] / t['mb_per_s']:.2f}x"
        runs = ", ".join(f"{x:.1f}" for x in t["runs_seconds"])
        print(
            f"{t['tool']:<12}{t['mb_per_s']:>7.1f}{t['mb_per_cpu_s']:>10.1f}{throughput.human(t['rss']):>11}"
            f"  {ratio:>15}  {runs}"
        )
    for name, why in r["skipped"].items():
        print(f"{name:<12}skipped: {why}")
    ck = r["checks"]
    first = next(iter(ck.values()))
    planted, harmless = first["planted"], first["harmless"]
    print(
        f"\nplanted     {planted.get('secret', 0)} secrets of {len(r['secret_types'])} kinds, "
        f"{planted.get('pii.person', 0)} names, {planted.get('pii.phone', 0)} phone numbers; distinct harmless "
        f"lines: {harmless.get('text', 0):,} of text, {harmless.get('ids', 0):,} single tokens (ids, timestamps)"
    )
    print(
        f"{'tool':<12}{'secrets left':>22}{'names left':>12}{'phones left':>13}{'text kept':>11}{'ids kept':>10}  output"
    )
    for name, c in ck.items():
        n = max(c["planted"].get("secret", 0), 1)
        whole, part = c["left"].get("secret", 0), c["partly"].get("secret", 0)
        cells = f"{whole} + {part} partly ({(whole + part) / n:.0%})"
        names = c["left"].get("pii.person", 0) / max(c["planted"].get("pii.person", 0), 1)
        phones = c["left"].get("pii.phone", 0) / max(c["planted"].get("pii.phone", 0), 1)
        text = c["harmless_kept"].get("text", 0) / max(c["harmless"].get("text", 0), 1)
        ids = c["harmless_kept"].get("ids", 0) / max(c["harmless"].get("ids", 0), 1)
        print(
            f"{name:<12}{cells:>22}{names:>12.0%}{phones:>13.0%}{text:>11.1%}{ids:>10.1%}  "
            f"{throughput.human(c['output_bytes'])} in {c['output_files']} files"
        )
        if c["left_types"]:
            print(f"{'':<12}left: " + ", ".join(f"{k} {v}" for k, v in sorted(c["left_types"].items())))
    print("\nwhat each does:")
    print(f"  tracepub: {TRACEPUB_DOES}")
    for name in r["checks"]:
        if name in PEERS:
            print(f"  {PEERS[name].requirement}: {PEERS[name].does}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--size",
        type=throughput.parse_size,
        default=throughput.parse_size("20MB"),
        help="bytes of Claude Code + Codex sessions to run on (default 20MB)",
    )
    ap.add_argument(
        "--mix-size",
        type=throughput.parse_size,
        default=throughput.parse_size("50MB"),
        help="size of the mix corpus the sessions come from (default 50MB, as the headline)",
    )
    ap.add_argument("--repeat", type=int, default=3, help="rounds of every tool, alternately (default 3)")
    ap.add_argument("--peers", default=",".join(PEERS), help=f"comma-separated, of: {', '.join(PEERS)}")
    ap.add_argument("--jobs", type=int, default=None, help="passed to tracepub redact (default: its own)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    chosen = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = [p for p in chosen if p not in PEERS]
    if unknown:
        ap.error(f"unknown peer(s): {', '.join(unknown)} (known: {', '.join(PEERS)})")

    PEERS_DIR.mkdir(parents=True, exist_ok=True)
    folder, _ = throughput.corpus("mix", args.mix_size, False, args.seed)
    inp = build_input(folder.parent, args.size)
    installed: dict[str, Path] = {}
    skipped: dict[str, str] = {}
    for name in chosen:
        bin_dir, why = install(PEERS[name])
        if bin_dir is None:
            skipped[name] = why
            print(f"{name}: skipped, cannot be installed here: {why}", file=sys.stderr)
        else:
            installed[name] = bin_dir
    work = PEERS_DIR / "work"
    work.mkdir(exist_ok=True)
    load = os.getloadavg()[0]
    runs: dict[str, list[Run]] = {"tracepub": [], **{n: [] for n in installed}}
    runners = {"neuralyzer": run_neuralyzer, "dataclaw": run_dataclaw}
    for i in range(max(1, args.repeat)):
        for name in list(runs):
            t = time.perf_counter()
            try:
                run = (
                    run_tracepub(inp, work, args.jobs)
                    if name == "tracepub"
                    else runners[name](installed[name], inp, work)
                )
            except SystemExit as failed:  # measured() exits on a failed command, with its stderr
                if name == "tracepub":
                    raise
                skipped[name] = f"its run failed: {str(failed)[-600:]}"
                print(f"{name}: skipped, {skipped[name]}", file=sys.stderr)
                del runs[name]
                continue
            runs[name].append(run)
            print(
                f"round {i + 1}: {name} {run.seconds:.1f} s ({time.perf_counter() - t:.1f} s with its setup)",
                file=sys.stderr,
            )
    user = inp.user
    avoid = [lab["value"] for lab in inp.labels] + [
        user["username"],
        user["name"],
        user["email"],
        user["home"],
    ]
    harmless = harmless_lines(_files(inp.home / ".claude") + _files(inp.home / ".codex"), avoid)
    mb = inp.bytes / 1e6
    report = {
        "command": "python bench/peers.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "bytes": inp.bytes,
        "sessions": dict(inp.sessions),
        "mix": folder.parent.name,
        "cores": os.cpu_count(),
        "load": load,
        "tools": [summary(name, rs, mb) for name, rs in runs.items()],
        "skipped": skipped,
        "secret_types": sorted({lab["type"] for lab in inp.labels if lab["kind"] == "secret"}),
        "checks": {name: vars(check(rs[-1].outputs, inp.labels, harmless)) for name, rs in runs.items()},
    }
    if args.json:
        print(json.dumps(report, indent=2, default=list))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
