"""Shared fixtures. Tests never touch the network and never read the real home folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_traces"
pytest_plugins = ["hubserver"]  # the `hub` fixture: a local fake Hugging Face Hub (tests/hubserver.py)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    """Every test runs with a fake HOME, a fake user and no credentials in the environment,
    so identity harvesting sees only what a test puts there."""
    home = tmp_path_factory.mktemp("home") / "jdoe"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USER", "jdoe")
    monkeypatch.setenv("LOGNAME", "jdoe")
    for name in list(os.environ):
        if any(
            k in name.upper() for k in ("TOKEN", "SECRET", "PASSWORD", "API_KEY", "ACCESS_KEY", "CREDENTIAL")
        ):
            monkeypatch.delenv(name, raising=False)
    for name in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "PI_CODING_AGENT_DIR",
        "OPENCODE_DB",
        "HERMES_HOME",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "HF_TOKEN",
        "HF_HOME",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return home
