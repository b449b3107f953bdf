"""Per-type replacement (tracepub.toml [replace]): Presidio's operators for the PII a project
prefers masked, hashed or removed; secrets and identity always placeholders."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tracepub.cli import cli
from tracepub.config import load
from tracepub.redact import policy

PHONE = "+44 20 7946 0958"
EMAIL = "priya.raman@kestrel-mail.net"


def _session(root, text):
    path = root / "projects" / "-work-app" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "type": "user",
                "sessionId": "s",
                "uuid": "u1",
                "cwd": "/work/app",
                "message": {"role": "user", "content": text},
            }
        )
        + "\n"
    )


def _run(tmp_path, toml: str) -> str:
    _session(tmp_path / "src", f"call me on {PHONE} or mail {EMAIL}")
    (tmp_path / "tracepub.toml").write_text(toml)
    out = tmp_path / "out"
    res = CliRunner().invoke(
        cli,
        [
            "redact",
            str(tmp_path / "src"),
            "--out",
            str(out),
            "--jobs",
            "1",
            "--config",
            str(tmp_path / "tracepub.toml"),
        ],
    )
    assert res.exit_code == 0, res.output
    return "".join(p.read_text() for p in (out / "dataset" / "claude_code").rglob("*.jsonl"))


def test_a_masked_type_keeps_its_last_characters_and_others_stay_placeholders(tmp_path):
    text = _run(tmp_path, '[replace]\n"pii.phone" = "mask"\n')
    assert PHONE not in text and "*" * 8 + PHONE[-4:] in text
    assert EMAIL not in text and "<EMAIL_" in text


def test_a_hashed_prefix_is_consistent_and_keyed(tmp_path):
    text = _run(tmp_path, '[replace]\n"pii" = "hash"\n')
    assert PHONE not in text and EMAIL not in text and "<EMAIL_" not in text
    import hashlib

    assert hashlib.sha256(EMAIL.encode()).hexdigest() not in text  # salted with the dataset's key


def test_secrets_and_identity_cannot_be_masked(tmp_path):
    with pytest.raises(ValueError, match="always placeholders"):
        policy.check({"secret.github_token": "mask"})
    with pytest.raises(ValueError, match="always placeholders"):
        policy.check({"identity": "redact"})
    with pytest.raises(ValueError, match="choose one of"):
        policy.check({"pii.email": "scramble"})
    (tmp_path / "t.toml").write_text('[replace]\n"secret" = "hash"\n')
    with pytest.raises(ValueError, match="t.toml"):
        load(tmp_path / "t.toml")


def test_operator_for_takes_the_longest_prefix():
    p = {"pii": "hash", "pii.phone": "mask"}
    assert policy.operator_for(p, "pii.phone") == "mask"
    assert policy.operator_for(p, "pii.email") == "hash"
    assert policy.operator_for(p, "secret.x") == "placeholder"
    assert policy.operator_for({}, "pii.email") == "placeholder"
