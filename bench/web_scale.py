"""How the review page answers with many findings and sessions (issue 17: 100k and 10k).

    python bench/web_scale.py                          # 100k findings, 10k sessions
    python bench/web_scale.py --findings 20000 --sessions 2000 --json

Writes a synthetic DIR (what ``tracepub redact`` leaves: review/findings.jsonl, run.json,
manifest.json and one small Claude Code session per file under dataset/, with placeholders
in the text), starts ``tracepub review DIR --web --no-browser`` as a subprocess in a clean
environment with a fake HOME (as bench/eval.py runs the tool), and times real HTTP requests to
it: how long the index takes (the server folds findings.jsonl once per run, in a thread,
while pages say so), the first page, pages deep in the lists, filters and searches,
a session read as the conversation, a bulk decision on a filtered list, and the add preview
over the whole dataset. Prints each request's time and the server's resident memory. Nothing
leaves 127.0.0.1; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PKG = ROOT / "src" if (ROOT / "src" / "tracepub").is_dir() else ROOT
sys.path.insert(0, str(HERE))

from eval import clean_env  # noqa: E402  (the evaluation's clean environment)

TYPES = [
    ("pii.email", "presidio:EMAIL_ADDRESS", "EMAIL"),
    ("pii.person", "names:prose", "PERSON"),
    ("pii.phone", "presidio:PHONE_NUMBER", "PHONE"),
    ("secret.github_token", "pattern:github-pat", "SECRET_GITHUB_TOKEN"),
    ("secret.token", "entropy:assign", "SECRET_TOKEN"),
    ("pii.ip_address", "network:ipv4", "IP"),
]


def write_dir(out: Path, n_findings: int, n_sessions: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    (out / "review").mkdir(parents=True)
    n_values = max(1, n_findings // 3)
    values = []
    for i in range(n_values):
        type_, det, ph = TYPES[i % len(TYPES)]
        vid = f"{rng.getrandbits(64):016x}"
        if type_ == "pii.email":
            value = f"user{i}@{'example.com' if i % 4 == 0 else f'corp{i % 97}.test'}"
        elif type_.startswith("secret."):
            value = "ghp_…" + f"{i:02d}"[-2:]
        else:
            value = f"value {i}"
        values.append((vid, type_, det, f"<{ph}_{vid[:8]}>", value, i % 17 == 0))
    dests = [
        f"claude_code/-home-USER-src-p{i % 50}/{i:08x}-aaaa-bbbb-cccc-{i:012x}.jsonl"
        for i in range(n_sessions)
    ]
    per_file: dict[int, list] = {}
    with open(out / "review" / "findings.jsonl", "w", encoding="utf-8") as fh:
        for n in range(n_findings):
            v = values[rng.randrange(n_values)]
            f = rng.randrange(n_sessions)
            per_file.setdefault(f, []).append(v)
            fh.write(
                json.dumps(
                    {
                        "id": f"{n:012x}",
                        "file": dests[f],
                        "record": 1 + n % 4,
                        "path": "$.message.content[0].text",
                        "start": 10,
                        "end": 20,
                        "type": v[1],
                        "detector": v[2],
                        "confidence": 0.5 if v[5] else 0.95,
                        "action": "review" if v[5] else "redacted",
                        "placeholder": v[3],
                        "value": v[4],
                        "value_id": v[0],
                        "context": {"before": "the value is ", "after": " as said"},
                    }
                )
                + "\n"
            )
    files = {}
    units = []
    for i, d in enumerate(dests):
        p = out / "dataset" / d
        p.parent.mkdir(parents=True, exist_ok=True)
        sid = d.rsplit("/", 1)[1][:-6]
        phs = " ".join(v[3] for v in per_file.get(i, [])[:20]) or "nothing here"
        lines = []
        for k, role in enumerate(("user", "assistant", "user", "assistant")):
            lines.append(
                json.dumps(
                    {
                        "type": role,
                        "sessionId": sid,
                        "cwd": "/home/<USER_0000aaaa>/src/p",
                        "timestamp": f"2026-03-{1 + i % 28:02d}T10:{k:02d}:00Z",
                        "uuid": f"u{k}",
                        "message": {
                            "role": role,
                            "content": [
                                {"type": "text", "text": f"turn {k}: see {phs} and Project Bluebird"}
                            ],
                        },
                    }
                )
            )
        data = ("\n".join(lines) + "\n").encode()
        p.write_bytes(data)
        files[d] = {"sha256": "0" * 64, "size": len(data)}
        units.append(
            {
                "n": i,
                "dest": d,
                "session": sid,
                "harness": "claude_code",
                "kind": "jsonl",
                "reader": "ClaudeCode",
                "records": 4,
                "bytes_in": len(data),
            }
        )
    (out / "manifest.json").write_text(json.dumps({"run_id": "bench", "files": files}), encoding="utf-8")
    (out / "review" / "run.json").write_text(
        json.dumps(
            {"sources": [], "options": {}, "detect": {}, "summary": {"sessions": n_sessions}, "units": units}
        ),
        encoding="utf-8",
    )


def timed(url: str, body: dict | None = None, origin: str = "") -> tuple[float, int, bytes]:
    req = urllib.request.Request(url)
    if body is not None:
        req.data = json.dumps(body).encode()
        req.add_header("Content-Type", "application/json")
        req.add_header("Origin", origin)
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=300) as resp:  # noqa: S310 (127.0.0.1 only)
        data = resp.read()
        return time.perf_counter() - t, resp.status, data


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--findings", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tracepub-web-") as tmp:
        out = Path(tmp) / "out"
        t = time.perf_counter()
        write_dir(out, args.findings, args.sessions)
        made = time.perf_counter() - t
        home = Path(tmp) / "home" / "bench"
        home.mkdir(parents=True)
        env = clean_env({"HOME": str(home), "USER": "bench", "LOGNAME": "bench"})
        env["PYTHONPATH"] = str(PKG) + os.pathsep + env.get("PYTHONPATH", "")
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tracepub.cli",
                "review",
                str(out),
                "--web",
                "--no-browser",
                "--reviewer",
                "bench",
            ],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stderr is not None
            line = proc.stderr.readline()
            m = re.search(r"(http://127\.0\.0\.1:(\d+)/t/[^/\s]+/)", line)
            if not m:
                raise SystemExit(f"the server did not start: {line}{proc.stderr.read()[:2000]}")
            url, origin = m.group(1), f"http://127.0.0.1:{m.group(2)}"
            rows = []

            def hit(name: str, path: str, body: dict | None = None) -> bytes:
                secs, status, data = timed(url + path, body, origin)
                rows.append(
                    {"request": name, "seconds": round(secs, 3), "status": status, "bytes": len(data)}
                )
                return data

            t0 = time.perf_counter()
            while b"Reading the findings" in timed(url + "values")[2]:  # the index is built once per run
                time.sleep(0.2)
            rows.append(
                {
                    "request": "index ready (findings folded), from the first request",
                    "status": 200,
                    "seconds": round(time.perf_counter() - t0, 3),
                    "bytes": 0,
                }
            )
            hit("values, first page", "values")
            hit("values, page 300", "values?page=300")
            hit("values, flagged", "values?state=flagged")
            hit("values, search 'corp42'", "values?q=corp42")
            hit("values, type pii.email + '@example.com'", "values?type=pii.email&q=%40example.com")
            hit("sessions, first page", "sessions")
            hit("sessions, page 50", "sessions?page=50")
            hit("sessions, search 'p7/'", "sessions?q=p7%2F")
            time.sleep(2)
            hit("sessions, sorted by start date", "sessions?sort=start")
            hit("one session as the conversation", "session?id=" + "00000007-aaaa-bbbb-cccc-000000000007")
            data = hit(
                "bulk keep: every pii.email on @example.com",
                "api/decide",
                {"action": "keep", "filter": {"type": "pii.email", "q": "@example.com"}},
            )
            appended = json.loads(data)["appended"]
            hit("values after the bulk decision", "values?state=pending")
            hit("add preview: 'Project Bluebird' in every file", "api/preview?text=Project+Bluebird")
            hit("apply page (counts)", "apply")
            mem = rss_mb(proc.pid)
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
    result = {
        "findings": args.findings,
        "sessions": args.sessions,
        "synthetic_dir_seconds": round(made, 1),
        "bulk_appended": appended,
        "server_rss_mb": round(mem),
        "requests": rows,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.findings:,} findings, {args.sessions:,} sessions (DIR written in {made:.1f} s)")
    for r in rows:
        print(f"  {r['seconds']:7.3f} s  {r['bytes']:>9,} B  {r['request']}")
    print(f"bulk decision appended {appended:,} line(s); server resident memory {mem:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
