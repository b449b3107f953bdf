"""The user's own identity and secrets: harvested from a fake home, matched exactly, never written in clear."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

from click.testing import CliRunner

from tracepub.cli import cli
from tracepub.fakes import expand, github_token
from tracepub.sources.harvest import harvest

RNG = random.Random(7)


def _claude_session(path: Path, texts: list[str]) -> None:
    """A minimal Claude Code session whose user messages are ``texts``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, text in enumerate(texts):
        lines.append(
            json.dumps(
                {
                    "type": "user",
                    "sessionId": "s-1",
                    "cwd": "/work/app",
                    "uuid": f"u{i}",
                    "timestamp": "2026-03-01T10:00:00.000Z",
                    "message": {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": "t", "content": text}],
                    },
                }
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _fake_home(home: Path) -> dict[str, str]:
    """Every credential file the harvest reads, each with a distinct fake value."""
    v = {
        "aws": expand("{{b64:40}}", RNG).replace("+", "/"),
        "netrc": expand("{{alnum:10}}-{{alnum:10}}", RNG),
        "gitcred": github_token(RNG, "ghp"),
        "gh": github_token(RNG, "gho"),
        "hf": expand("hf_{{alpha:34}}", RNG),
        "npm": github_token(RNG, "npm"),
        "pypi": "pypi-AgEIcHlwaS5vcmc" + expand("{{b64url:60}}", RNG),
        "docker_pw": expand("{{alnum:18}}", RNG),
    }
    files = {
        ".gitconfig": "[user]\n\tname = Tove Berglund\n\temail = tove@northwind-labs.io\n",
        ".aws/credentials": f"[default]\naws_access_key_id = {expand('AKIA{{b32:16}}', RNG)}\naws_secret_access_key = {v['aws']}\n",
        ".netrc": f"machine artifacts.internal\n  login tove@northwind-labs.io\n  password {v['netrc']}\n",
        ".git-credentials": f"https://tberglund:{v['gitcred']}@github.com\n",
        ".config/gh/hosts.yml": f"github.com:\n    oauth_token: {v['gh']}\n    user: tove-gh\n",
        ".cache/huggingface/token": v["hf"] + "\n",
        ".npmrc": f"//registry.npmjs.org/:_authToken={v['npm']}\n//npm.pkg.github.com/:_authToken=${{GH_NPM_TOKEN}}\n",
        ".pypirc": f"[pypi]\nusername = __token__\npassword = {v['pypi']}\n",
        ".docker/config.json": json.dumps(
            {
                "auths": {
                    "r.example.io": {
                        "auth": base64.b64encode(f"tberglund:{v['docker_pw']}".encode()).decode()
                    }
                }
            }
        ),
    }
    for rel, text in files.items():
        p = home / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return v


def test_harvest_reads_every_credential_file(isolated_home, monkeypatch):
    v = _fake_home(isolated_home)
    monkeypatch.setenv("HOSTNAME", "tove-laptop")
    monkeypatch.setenv("NWL_DEPLOY_TOKEN", "nwl.abc123.internalvalue42")
    h = harvest()
    for value in v.values():
        assert value in h.values, value
    assert h.values["Tove Berglund"] == "identity.name"
    assert h.values["tove@northwind-labs.io"] == "identity.email"
    assert h.values["jdoe"] == "identity.username"
    assert h.values["tove-gh"] == "identity.username"  # the GitHub login in gh's hosts.yml
    assert h.values["tove-laptop"] == "identity.hostname"
    assert h.values["nwl.abc123.internalvalue42"] == "secret.environment"
    assert "${GH_NPM_TOKEN}" not in h.values  # a reference, not a secret
    # The summary (what review/identity.json and the report show) never holds a value in clear.
    shown = json.dumps(h.summary())
    for value in [*v.values(), "Tove Berglund", "tove@northwind-labs.io", "nwl.abc123.internalvalue42"]:
        assert value not in shown
    assert {"type", "origin", "masked"} == set(h.summary()[0])


def test_harvest_survives_malformed_files(isolated_home):
    (isolated_home / ".docker").mkdir()
    (isolated_home / ".docker" / "config.json").write_text("{not json")
    (isolated_home / ".pypirc").write_text("password = " + "x" * 3 + "\n[[[")
    (isolated_home / ".netrc").write_text("machine")
    harvest()  # no exception


def test_internal_token_without_public_format_is_caught_and_never_written(
    isolated_home, tmp_path, monkeypatch
):
    """A company-internal token matches no rule; only the harvest can find it."""
    token = "nwl." + expand("{{lowerdigits:6}}.{{alnum:22}}", RNG)
    netrc_pw = expand("{{alnum:8}}-{{alnum:8}}", RNG)
    monkeypatch.setenv("NWL_DEPLOY_TOKEN", token)
    monkeypatch.setenv("HOSTNAME", "tove-laptop")
    (isolated_home / ".netrc").write_text(f"machine artifacts.internal login jdoe password {netrc_pw}\n")
    (isolated_home / ".gitconfig").write_text(
        "[user]\n\tname = Tove Berglund\n\temail = tove@northwind-labs.io\n"
    )
    src = tmp_path / "src" / "projects" / "-home-jdoe-app" / "s1.jsonl"
    texts = [
        f'curl -H "X-NWL-Token: {token}" https://deploy.internal/api',
        f"my password on the artifact server is {netrc_pw}",
        "Author: Tove Berglund <tove@northwind-labs.io>\nuser.email=tove@northwind-labs.io",
        "jdoe@tove-laptop:~/app$ ls /home/jdoe/app",
    ]
    _claude_session(src, texts)
    out = tmp_path / "out"
    res = CliRunner().invoke(
        cli, ["redact", str(tmp_path / "src"), "--out", str(out), "--jobs", "1", "--json", "--no-ner"]
    )
    assert res.exit_code == 0, res.output
    secrets = [token, netrc_pw, "Tove Berglund", "tove@northwind-labs.io", "tove-laptop", "jdoe"]
    dataset = "".join(p.read_text() for p in (out / "dataset").rglob("*") if p.is_file())
    dataset += "".join(str(p) for p in (out / "dataset").rglob("*"))
    for value in secrets:
        assert value not in dataset, value
    assert "<USER_NAME>" in dataset and "<USER_EMAIL>" in dataset and "<HOSTNAME>" in dataset
    # Nothing under review/ nor the manifest holds them in clear either (values.json keeps only
    # keyed hashes; run.json keeps the source paths a re-run reads, home-relative, but the
    # username in "-home-jdoe-app" may appear there.)
    for path in [out / "manifest.json", *(out / "review").rglob("*")]:
        if path.is_file() and path.name != "placeholder.key":
            text = path.read_text()
            for value in secrets if path.name != "run.json" else secrets[:5]:
                assert value not in text, (path.name, value)
    assert (out / "review" / "values.json").stat().st_mode & 0o077 == 0
    identity = json.loads((out / "review" / "identity.json").read_text())
    origins = {e["origin"] for e in identity["identity"]}
    assert {"$NWL_DEPLOY_TOKEN", "~/.netrc", "git config user.name", "$HOSTNAME"} <= origins


def test_secret_options_and_config(isolated_home, tmp_path):
    a, b, c = (expand("{{alnum:20}}", RNG) for _ in range(3))
    secrets_file = tmp_path / "secrets.txt"
    secrets_file.write_text(f"# comment\nINTERNAL_KEY={b}\n")
    config = tmp_path / "tracepub.toml"
    config.write_text(f'secrets = ["{c}"]\nallow = ["keep-me@northwind-labs.io"]\n')
    src = tmp_path / "src" / "projects" / "p" / "s1.jsonl"
    _claude_session(
        src, [f"values {a} {b} {c}", "mail keep-me@northwind-labs.io or drop-me@northwind-labs.io"]
    )
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
            "--no-ner",
            "--secret",
            a,
            "--secrets-file",
            str(secrets_file),
            "--config",
            str(config),
        ],
    )
    assert res.exit_code == 0, res.output
    text = "".join(p.read_text() for p in (out / "dataset").rglob("*.jsonl"))
    assert a not in text and b not in text and c not in text
    assert "<SECRET_USER_SUPPLIED_" in text
    assert "keep-me@northwind-labs.io" in text and "drop-me@northwind-labs.io" not in text


def test_report_lists_harvest_masked(isolated_home, tmp_path, monkeypatch):
    token = "nwl." + expand("{{alnum:24}}", RNG)
    monkeypatch.setenv("NWL_DEPLOY_TOKEN", token)
    src = tmp_path / "src" / "projects" / "p" / "s1.jsonl"
    _claude_session(src, [f"token {token}"])
    out = tmp_path / "out"
    res = CliRunner().invoke(
        cli, ["redact", str(tmp_path / "src"), "--out", str(out), "--jobs", "1", "--no-ner"]
    )
    assert res.exit_code == 0, res.output
    html = (out / "review" / "report.html").read_text()
    assert "$NWL_DEPLOY_TOKEN" in html and token not in html


def test_exact_values_see_through_json_escapes():
    from tracepub.detect.identity import ExactValues, HomePaths
    from tracepub.model import Leaf

    text = '{"content": "jdoe\\ntove-laptop\\n/home/jdoe/src"}'  # JSON inside a string: literal \n
    got = {
        text[s.start : s.end] for s in ExactValues({"tove-laptop": "identity.hostname"}).scan(text, Leaf("x"))
    }
    assert got == {"tove-laptop"}
    assert {text[s.start : s.end] for s in HomePaths().scan(text, Leaf("x"))} == {"jdoe"}


def test_engine_resolves_escapes_for_every_detector():
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig
    from tracepub.model import Leaf

    token = github_token(random.Random(5), "gho")
    text = '<tool_response>\n{"content": "retries = 3\\n' + token + '\\ntimeout = 30"}\n</tool_response>'
    spans = Engine(DetectConfig(ner=False)).scan(text, Leaf("x"))
    assert any(text[s.start : s.end] == token for s in spans)


def test_windows_paths_keep_their_names_and_double_escapes_resolve():
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig
    from tracepub.detect.text import escaped_view
    from tracepub.model import Leaf

    eng = Engine(DetectConfig(ner=False))
    text = r"C:\Users\nick\src and C:\\Users\\nora\\app"
    got = {text[s.start : s.end] for s in eng.scan(text, Leaf("x"))}
    assert {"nick", "nora"} <= got
    double = r"{\"content\": \"[\\n  {\\\"author\\\": \\\"Pedro Herrera\\\"}]\"}"
    assert len(escaped_view(double)) == len(double) and "\n" in escaped_view(double)
    assert any(double[s.start : s.end] == "Pedro Herrera" for s in eng.scan(double, Leaf("x")))


def test_generic_hostnames_and_users_are_not_identity(isolated_home, monkeypatch):
    monkeypatch.setenv("HOSTNAME", "ubuntu")
    monkeypatch.setenv("USER", "root")
    h = harvest()
    assert "ubuntu" not in h.values and "root" not in h.values
