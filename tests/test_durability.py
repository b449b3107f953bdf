"""Durability (#9 item 11): every file renamed into place under DIR had its bytes synced to the
disk before the rename, and its folder synced after it.

A rename is atomic for programs, not for the disk: without the two syncs a power cut can leave
``signoff.json`` or ``manifest.json`` naming bytes that never reached the disk. The test spies
on ``os.fsync`` and ``os.replace`` through a redact (in-process: the workers' writes are seen)
and an approve, and checks the order of the calls for every file they put in place.
"""

from __future__ import annotations

import os
from pathlib import Path

from reviewkit import invoke
from samples import SAMPLES, redact


def _spy(monkeypatch) -> list[tuple[str, str, str]]:
    events: list[tuple[str, str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"), ""))
        real_fsync(fd)

    def replace(src, dst, *a, **kw) -> None:
        events.append(("replace", os.path.realpath(src), os.path.realpath(dst)))
        real_replace(src, dst, *a, **kw)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return events


def _check(events: list[tuple[str, str, str]], out: Path) -> set[str]:
    """Every rename under ``out``: its file synced before, its folder after. Returns the names put in place."""
    root = os.path.realpath(out)
    placed = set()
    for i, (kind, src, dst) in enumerate(events):
        if kind != "replace" or not dst.startswith(root + os.sep):
            continue
        synced_before = [e for e in events[:i] if e[0] == "fsync" and e[1] == src]
        assert synced_before, f"{dst} renamed into place without its bytes synced first"
        folder_after = [e for e in events[i + 1 :] if e[0] == "fsync" and e[1] == os.path.dirname(dst)]
        assert folder_after, f"{dst}: its folder was not synced after the rename"
        placed.add(os.path.relpath(dst, root))
    return placed


def test_redact_and_approve_sync_each_file_before_its_rename_and_the_folder_after(tmp_path, monkeypatch):
    events = _spy(monkeypatch)
    out = tmp_path / "out"
    src = next(SAMPLES.glob("claude/projects/*"))
    redact([src], out)
    placed = _check(events, out)
    assert {"manifest.json", "dataset/README.md", "review/findings.jsonl", "review/report.html"} <= placed
    assert any(p.startswith("dataset/claude_code/") and p.endswith(".jsonl") for p in placed)

    events.clear()
    r = invoke("approve", out, "--reviewer", "Jane Doe", "--license", "cc-by-4.0", "--yes")
    assert r.exit_code == 0, r.output
    assert {"signoff.json", "manifest.json", "dataset/README.md"} <= _check(events, out)
