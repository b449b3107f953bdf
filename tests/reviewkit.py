"""Helpers for the review / approve / publish / report tests: small sessions with planted values.

Token-shaped values are made at run time with ``tracepub.fakes.expand`` (never committed).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner, Result

from tracepub.cli import cli
from tracepub.fakes import expand

# A rule whose hits are flagged for a human (action "review"), for deterministic flagged findings.
REVIEW_RULE = """
[[rules]]
id = "acme-ticket"
type = "secret.acme_ticket"
regex = 'ACME-[0-9]{6}'
keywords = ["acme-"]
confidence = 0.5
action = "review"
"""


@dataclass
class Planted:
    github: str
    email: str
    ticket: str
    codename: str


def planted(seed: int = 7) -> Planted:
    rng = random.Random(seed)
    return Planted(
        github=expand("{{github:ghp}}", rng),
        email="alice.smith@contoso-mail.com",
        ticket="ACME-" + expand("{{digits:6}}", rng),
        codename="Project Bluebird",
    )


def claude_session(folder: Path, p: Planted, name: str = "session.jsonl", extra: str = "") -> Path:
    """A small Claude Code session mentioning every planted value (and the user's home folder)."""
    sid = "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a11"
    texts = [
        ("user", f"Deploy {p.codename} please. My token is {p.github} and mail {p.email}. {extra}".strip()),
        ("assistant", f"I will use the token {p.github} for ticket {p.ticket}."),
        ("user", f"Ping {p.email} when {p.codename} ships; ticket {p.ticket}."),
    ]
    lines = []
    for i, (role, text) in enumerate(texts):
        lines.append(
            {
                "type": role,
                "sessionId": sid,
                "cwd": "/home/jdoe/src/app",
                "uuid": f"u{i}",
                "message": {"role": role, "content": [{"type": "text", "text": text}]},
            }
        )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def invoke(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


def redacted_dir(
    tmp: Path,
    p: Planted | None = None,
    config: bool = True,
    extra: str = "",
    license: str | None = "cc-by-4.0",
) -> Path:
    """sources/ with one session, redacted into out/ (with the flagged-ticket rule), the card's
    license chosen at redact (approve refuses without one; ``license=None`` leaves it open)."""
    p = p or planted()
    src = tmp / "sources" / "-home-jdoe-src-app"
    claude_session(src, p, extra=extra)
    out = tmp / "out"
    args = ["redact", str(tmp / "sources"), "--out", str(out), "--jobs", "1", "--no-ner"]
    if license:
        args += ["--license", license]
    if config:
        cfg = tmp / "tracepub.toml"
        cfg.write_text(REVIEW_RULE, encoding="utf-8")
        args += ["--config", str(cfg)]
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    return out


def findings(out: Path) -> list[dict]:
    path = out / "review" / "findings.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def value_id(out: Path, type_prefix: str) -> str:
    return next(f["value_id"] for f in findings(out) if f["type"].startswith(type_prefix))


def dataset_text(out: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8") for p in sorted((out / "dataset").rglob("*")) if p.is_file()
    )
