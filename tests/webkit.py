"""Helpers for the review page's tests: a DIR with two sessions and planted values.

The user's identity is planted through a fake ``~/.gitconfig`` (harvested, so redacted as
``identity.*``); token-shaped values are made at run time (``reviewkit.planted``).
"""

from __future__ import annotations

from pathlib import Path

from reviewkit import REVIEW_RULE, Planted, claude_session, invoke, planted

SID_A = "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a11"  # reviewkit's session id
SID_B = "3b1d9f0c-2e4a-4f6b-8c7d-5a9e1b3c2d40"
NAME = "Tove Berglund"
EMAIL = "tove@northwind-labs.io"


def web_dir(tmp: Path, home: Path) -> tuple[Path, Planted]:
    """sources/ with two Claude Code sessions (A mentions the user's own name and email), redacted
    into out/ with a rule that flags ACME tickets for review."""
    (home / ".gitconfig").write_text(f"[user]\n\tname = {NAME}\n\temail = {EMAIL}\n", encoding="utf-8")
    p = planted()
    src = tmp / "sources" / "-home-jdoe-src-app"
    claude_session(src, p, name=f"{SID_A}.jsonl", extra=f"Sign it as {NAME} <{EMAIL}>.")
    b = claude_session(src, p, name=f"{SID_B}.jsonl")
    b.write_text(b.read_text(encoding="utf-8").replace(SID_A, SID_B), encoding="utf-8")
    cfg = tmp / "tracepub.toml"
    cfg.write_text(REVIEW_RULE, encoding="utf-8")
    out = tmp / "out"
    r = invoke("redact", tmp / "sources", "--out", out, "--jobs", "1", "--no-ner", "--config", cfg)
    assert r.exit_code == 0, r.output
    return out, p


def originals(p: Planted) -> list[str]:
    """What must never reach the page: a secret's original, and the user's identity."""
    return [p.github, p.ticket, NAME, EMAIL, "jdoe"]
