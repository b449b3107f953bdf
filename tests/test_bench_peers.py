"""bench/peers.py beyond its timing: which sessions it runs on, how it reads each tool's output
back (secrets left whole or in part, names and phones left, harmless lines kept), and that a
peer that cannot be installed is skipped with the reason rather than failing the run."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import corpus_fake as fk  # noqa: E402
import peers  # noqa: E402

from tracepub.fakes import expand  # noqa: E402


def _write(path: Path, records: list[object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_pick_sessions_takes_claude_and_codex_in_order_up_to_the_size() -> None:
    sessions = [
        {"session": "a", "harness": "claude_code", "bytes": 100},
        {"session": "b", "harness": "pi", "bytes": 100},
        {"session": "c", "harness": "codex", "bytes": 100},
        {"session": "d", "harness": "hermes"},
        {"session": "e", "harness": "claude_code", "bytes": 100},
        {"session": "f", "harness": "codex", "bytes": 100},
    ]
    assert [s["session"] for s in peers.pick_sessions(sessions, 250)] == ["a", "c", "e"]
    assert [s["session"] for s in peers.pick_sessions(sessions, 10**9)] == ["a", "c", "e", "f"]


def _planted(rng: random.Random) -> dict[str, str]:
    return {
        "github": expand("{{github:ghp}}", rng),
        "aws": expand("{{b64:40}}", rng),
        "pem": fk.pem_body(rng, "MIIEowIBAAKCAQEA", 300),
        "phone": "+44 7700 900123",
        "name": "Marta Kowalczyk",
    }


def _labels(v: dict[str, str]) -> list[dict]:
    kinds = [
        ("github", "secret", "secret.github_token"),
        ("aws", "secret", "secret.aws_secret_access_key"),
        ("pem", "secret", "secret.private_key"),
        ("phone", "pii", "pii.phone"),
        ("name", "pii", "pii.person"),
    ]
    return [
        {"session": "s1", "harness": "claude_code", "kind": k, "type": t, "value": v[n]} for n, k, t in kinds
    ]


def test_check_counts_what_each_output_still_holds(tmp_path) -> None:
    v = _planted(random.Random(5))
    code, test_line = (
        "def load_user(self, user_id: int) -> str:",
        "tests/test_users.py::test_load PASSED [ 10%]",
    )
    uuid = "bd5a0d28-5e38-4d95-8e8c-84bc34caee9b"
    harmless = {"text": {code, test_line}, "ids": {uuid}}
    # In place, line for line (neuralyzer's way): one token redacted, the AWS key and the name left,
    # the code line kept behind Claude Code's line number.
    inplace = _write(
        tmp_path / "a" / "s1.jsonl",
        [
            {"type": "user", "message": {"content": "use [REDACTED:github] for the run"}},
            {"toolUseResult": {"stdout": f"aws_secret_access_key = {v['aws']}\n    12\u2192{code}"}},
            {"message": {"content": f"Thanks {v['name']}"}},
        ],
    )
    # Another schema (dataclaw's way): JSON inside a string, a piece of the key, the phone left.
    export = _write(
        tmp_path / "b" / "export.jsonl",
        [
            {
                "messages": [
                    {
                        "tool_uses": [
                            {
                                "input": json.dumps({"cmd": f"cat key.pem # {v['pem'][:20]}"}),
                                "output": {"text": f"call {v['phone']}"},
                            }
                        ]
                    }
                ],
                "session_id": uuid,
            },
        ],
    )
    a = peers.check([inplace], _labels(v), harmless)
    assert a.planted == Counter({"secret": 3, "pii.phone": 1, "pii.person": 1})
    assert (a.left["secret"], a.partly["secret"]) == (1, 0)
    assert a.left_types == Counter({"aws_secret_access_key": 1})
    assert (a.left["pii.person"], a.left["pii.phone"]) == (1, 0)
    assert a.harmless == Counter({"text": 2, "ids": 1})
    assert a.harmless_kept == Counter({"text": 1})

    b = peers.check([export], _labels(v), harmless)
    assert (b.left["secret"], b.partly["secret"]) == (0, 1)
    assert b.left_types == Counter({"private_key": 1})
    assert (b.left["pii.person"], b.left["pii.phone"]) == (0, 1)
    assert b.harmless_kept == Counter({"ids": 1})
    assert (b.output_files, b.output_bytes) == (1, export.stat().st_size)


def test_harmless_lines_leave_out_planted_values_identity_keys_and_json(tmp_path) -> None:
    v = _planted(random.Random(6))
    code = "    return self._orders.get(order_id, default=None)"
    text = "\n".join(
        [
            f"     7\u2192{code}",  # kept, without its line number
            f"GITHUB_TOKEN={v['github']}",  # a planted value
            "Author: Jane Doe <jane.doe@acme-corp.dev> wrote this",  # an email (and the user's name)
            "/home/jdoe/src/acme-api/src/order/get_order.py:12: TODO",  # the user's home
            "Why is the order job so slow on large inputs? I'm in /home/jd",  # a home cut short
            v["pem"].split("\n")[1],  # a line of a planted key
            "-----BEGIN RSA PRIVATE KEY-----",
            '{"id": 12, "status": "ok", "items": ["a", "b"]}',  # JSON a peer may keep parsed
            "short line",
        ]
    )
    path = _write(
        tmp_path / "s.jsonl",
        [
            {"uuid": "4e9d4e09-edb3-421a-9e10-4ab7ea2b1ca8", "message": {"content": text}},
            {"thinking": "plan the change to the order cache", "signature": "Eq" + "ab" * 40},
        ],
    )
    avoid = [v["github"], v["pem"], "jdoe", "Jane Doe", "jane.doe@acme-corp.dev", "/home/jdoe"]
    got = peers.harmless_lines([path], avoid)
    assert got == {
        "text": {code.strip(), "plan the change to the order cache"},
        "ids": {"4e9d4e09-edb3-421a-9e10-4ab7ea2b1ca8"},
    }


def test_texts_decodes_records_and_keeps_lines_that_are_not_json(tmp_path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text('{"a": {"b": "[\\"x\\", \\"y\\"]"}}\nnot json at all\n', encoding="utf-8")
    got = list(peers.texts(path))
    assert got[0] == "x\ny" and got[2] == "not json at all"


def test_a_peer_that_cannot_be_installed_is_skipped_with_the_reason(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(peers, "PEERS_DIR", tmp_path)
    calls: list[list[str]] = []

    def fake_run(cmd, **kw):
        calls.append(cmd)
        ok = cmd[1:3] == ["-m", "venv"]
        err = "" if ok else "ERROR: No matching distribution found for neuralyzer==0.1.0"
        return subprocess.CompletedProcess(cmd, 0 if ok else 1, "", err)

    monkeypatch.setattr(peers.subprocess, "run", fake_run)
    bin_dir, why = peers.install(peers.PEERS["neuralyzer"])
    assert bin_dir is None
    assert "No matching distribution found for neuralyzer==0.1.0" in why
    assert len(calls) == 2 and not list(tmp_path.glob("neuralyzer/.installed-*"))


def test_the_report_prints_ratios_and_what_each_leaves(capsys) -> None:
    def tool(name: str, secs: float) -> dict:
        return {
            "tool": name,
            "seconds": secs,
            "mb_per_s": 20 / secs,
            "mb_per_cpu_s": 10 / secs,
            "rss": 2**20,
            "runs_seconds": [secs, secs + 1],
        }

    def ck(left: int) -> dict:
        c = peers.Check(
            planted=Counter({"secret": 50, "pii.person": 10, "pii.phone": 4}),
            left=Counter({"secret": left}),
            left_types=Counter({"jwt": left} if left else {}),
            harmless=Counter({"text": 1000, "ids": 100}),
            harmless_kept=Counter({"text": 990, "ids": 100}),
        )
        return vars(c)

    report = {
        "bytes": 20_000_000,
        "sessions": {"claude_code": 90, "codex": 60},
        "mix": "mix-x",
        "cores": 2,
        "load": 1.0,
        "tools": [tool("tracepub", 2.0), tool("neuralyzer", 1.0)],
        "skipped": {"dataclaw": "no pip"},
        "secret_types": ["secret.jwt"],
        "checks": {"tracepub": ck(0), "neuralyzer": ck(5)},
    }
    peers.print_report(report)
    out = capsys.readouterr().out
    assert "0.50x" in out and "dataclaw    skipped: no pip" in out
    assert "5 + 0 partly (10%)" in out and "left: jwt 5" in out
    assert "99.0%" in out
