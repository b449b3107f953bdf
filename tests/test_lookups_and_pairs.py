"""Places found by probing (#8 items 3 and 4), each planted in and kept out: a name/value pair in
parsed JSON (Kubernetes' env, ECS, SSM, CloudFormation), a secret alone on the line after its name,
and a hosts lookup's output without the hosts file's localhost line."""

from __future__ import annotations

import json

import pytest
from test_detect_identity_learned import _claude, _redact, _texts

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.model import Leaf


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def _leaf(key: str) -> Leaf:
    return Leaf("claude_code", ("toolUseResult", key), key, False)


def _after(engine: Engine, command: str, output: str) -> set[tuple[str, str]]:
    """What the output gives after the command, in one file."""
    engine.start_unit()
    engine.scan(command, _leaf("command"))
    return {(output[s.start : s.end], s.type) for s in engine.scan(output, _leaf("stdout"))}


def test_a_name_value_pair_in_parsed_json_is_judged_by_its_name(tmp_path):
    """The walker names a value field by the name beside it, so ``{"name": "STRIPE_KEY", "value": V}``
    is judged as ``STRIPE_KEY``'s value; names that hold no secret keep theirs."""
    secrets = [
        "rk9Tq2ZrT9vLw3NpXa8Bc",
        "Qv7mTr2pLx9",
        "xq8Rt2LmZ9vK3wPa7NbY4c",
        "Zk3#pQ9wLm2x",
        "h8Kq2ZrT9vLw3NpX",
    ]
    kept = ["debug", "12345678", "eu-west-1", "prod-eu-1", "dark-mode-2024"]
    docs = [
        {"env": [{"name": "STRIPE_KEY", "value": secrets[0]}, {"name": "LOG_LEVEL", "value": kept[0]}]},
        {"env": [{"name": "token_count", "value": kept[1]}, {"name": "DB_PASSWORD", "value": secrets[1]}]},
        {"environment": [{"name": "API_TOKEN", "value": secrets[2]}, {"name": "REGION", "value": kept[2]}]},
        {"Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": secrets[3]}]},
        {"Parameters": [{"ParameterKey": "Env", "ParameterValue": kept[3]}]},
        {"Parameter": {"Name": "/prod/db/api/config", "Type": "SecureString", "Value": secrets[4]}},
        [{"key": "theme", "value": kept[4]}],
    ]
    src = tmp_path / "src" / "projects" / "-srv-infra"
    _claude(src / "s1.jsonl", "/srv/infra", [json.dumps(d, indent=2) for d in docs])
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = "\n".join(_texts(out))
    assert [s for s in secrets if s in texts] == []
    assert [k for k in kept if k not in texts] == []


PASSWORD = "Qv7#mTr2pLx9!"


@pytest.mark.parametrize(
    "output, value",
    [
        (f"Staging DB\npassword\n{PASSWORD}\nuser: app\n", PASSWORD),
        (f"     1\tpassword\n     2\t{PASSWORD}\n", PASSWORD),  # cat -n
        ("     1→DEPLOY_TOKEN\n     2→xq8Rt2LmZ9vK3wPa7NbY4c\n", "xq8Rt2LmZ9vK3wPa7NbY4c"),  # a file view
    ],
)
def test_a_secret_alone_on_the_line_after_its_name(engine, output, value):
    assert value in {text for text, _ in _after(engine, "cat notes.txt", output)}


@pytest.mark.parametrize(
    "output",
    [
        "password\npassword_hash\npassword_reset\n",  # grep -o: names, not values
        "test_token\nPASSED\ntoken\nv2.3.1\n",  # a test run; a version after a token's name
        "--token\n    Token to use (default: env TOKEN)\n--password\n    prompt\n",  # help text
        "password\n${DB_PASSWORD}\napi_key\nsrc/config/keys.py\n",  # a reference, a path
    ],
)
def test_the_line_after_a_name_is_kept_when_it_is_no_value(engine, output):
    assert _after(engine, "cat notes.txt", output) == set()


@pytest.mark.parametrize(
    "command, output, found",
    [
        ("getent hosts db-02", "10.20.30.42     db-02.corp.fjordlabs.io db-02\n", ["10.20.30.42", "db-02"]),
        ("grep build /etc/hosts", "10.20.30.41   build-01.corp.fjordlabs.io build-01\n", ["10.20.30.41"]),
        ("getent ahosts build-01", "10.20.30.41     STREAM build-01.corp.fjordlabs.io\n", ["10.20.30.41"]),
        (
            "host db-02.corp.fjordlabs.io",
            "db-02.corp.fjordlabs.io has address 10.20.30.42\n",
            ["10.20.30.42"],
        ),
    ],
)
def test_a_hosts_lookups_output_names_machines(engine, command, output, found):
    got = _after(engine, command, output)
    assert {(v, "pii.ip") for v in found[:1]} <= got
    assert all(any(v == text for text, _ in got) for v in found)
    assert not any(text in ("STREAM", "DGRAM") for text, _ in got)


@pytest.mark.parametrize("command", ["cat README.md", "ls -la", "ssh deploy@host"])
def test_an_address_and_name_line_after_another_command_stays(engine, command):
    """A docs example ("add this to your hosts file") is no lookup: without the command, or the hosts
    file's localhost line, the private address stays."""
    assert _after(engine, command, "Add this line:\n\n    10.0.0.5   myapp.test\n") == set()


def test_a_hosts_lookup_arms_only_the_next_output(engine):
    engine.start_unit()
    engine.scan("getent hosts db-02", _leaf("command"))
    engine.scan("cat README.md", _leaf("command"))
    text = "10.20.30.42     db-02.corp.fjordlabs.io db-02\n"
    assert not any(text[s.start : s.end] == "10.20.30.42" for s in engine.scan(text, _leaf("stdout")))


@pytest.mark.parametrize(
    "command, output, names",
    [
        ("git config user.name", "Maren Hale\n", ["Maren Hale"]),
        ("git config --global --get user.name", "Maren Hale", ["Maren Hale"]),
        ("git log -3 --format=%an", "Maren Hale\nTomas Kovacs\nMaren Hale\n", ["Maren Hale", "Tomas Kovacs"]),
        ("git show -s --format='%cN' HEAD", "Ilse Varga\n", ["Ilse Varga"]),
        ("id -F", "Maren Hale\n", ["Maren Hale"]),  # macOS
        ("dscl . -read /Users/mhale RealName", "RealName:\n Maren Hale\n", ["Maren Hale"]),
    ],
)
def test_a_name_lookups_output_names_people(engine, command, output, names):
    got = _after(engine, command, output)
    assert {(n, "pii.person") for n in names} <= got


@pytest.mark.parametrize(
    "command, output",
    [
        ("git config core.editor", "Visual Studio\n"),  # another setting
        ('git config --global user.name "Maren Hale"', "Set Up\n"),  # setting it, not reading it
        ("git log -3 --format=%s", "Fix Retry\nBump Deps\n"),  # subjects
        ("cat names.txt", "Maren Hale\n"),  # no lookup: a file of words
    ],
)
def test_two_words_after_another_command_stay(engine, command, output):
    assert _after(engine, command, output) == set()


def test_an_issue_trackers_assignee_and_reporter_are_people(engine):
    text = "Summary: Fix retry\nAssignee: Ilse Varga\nReporter: Jon Dahl\nStatus: In Progress\n"
    engine.start_unit()
    found = {text[s.start : s.end] for s in engine.scan(text, _leaf("stdout"))}
    assert {"Ilse Varga", "Jon Dahl"} <= found and "In Progress" not in found
    assert not engine.scan("Assignee: Unassigned\nReporter: Automation\n", _leaf("stdout"))


def test_a_codeowners_files_people_are_handles_and_its_teams_stay(engine):
    text = "# billing\n/src/billing/ @rquist @fjordlabs/payments\n*.tf @ops-bot @svoigt\n"
    got = _after(engine, "cat .github/CODEOWNERS", text)
    assert {("rquist", "pii.username"), ("svoigt", "pii.username")} <= got
    assert not any("payments" in v or "fjordlabs" in v for v, _ in got)
    assert _after(engine, "cat README.md", text) == set()


KUBECONFIG = """apiVersion: v1
clusters:
- cluster:
    server: https://k8s.fjordlabs.io
  name: prod
contexts:
- context:
    cluster: prod
    user: bvoss
  name: prod
users:
- name: bvoss
  user:
    token: REDACTED
- name: kubernetes-admin
  user: {}
"""


def test_a_kubeconfigs_accounts_are_usernames_and_its_clusters_stay(engine):
    got = _after(engine, "kubectl config view", KUBECONFIG)
    assert ("bvoss", "pii.username") in got
    assert not any(v in ("prod", "kubernetes-admin") for v, _ in got)
    assert not any(v == "bvoss" for v, _ in _after(engine, "cat notes.yaml", KUBECONFIG))


def test_a_github_api_reads_logins_are_handles_and_bots_stay(tmp_path):
    """gh's JSON output is parsed by the walker: each login field is judged after the command."""
    src = tmp_path / "src" / "projects" / "-home-jo-src-orders"
    src.mkdir(parents=True)
    records = [
        {
            "type": "assistant",
            "sessionId": "s1",
            "uuid": "a",
            "cwd": "/home/jo/src/orders",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": "gh pr view 42 --json author,reviews"},
                    }
                ],
            },
        },
        {
            "type": "user",
            "sessionId": "s1",
            "uuid": "b",
            "cwd": "/home/jo/src/orders",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": json.dumps(
                            {
                                "author": {"login": "lmerz"},
                                "reviews": [{"author": {"login": "dependabot[bot]"}}],
                            }
                        ),
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "sessionId": "s1",
            "uuid": "c",
            "cwd": "/home/jo/src/orders",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t2",
                        "name": "Bash",
                        "input": {"command": "cat fixtures/users.json"},
                    }
                ],
            },
        },
        {
            "type": "user",
            "sessionId": "s1",
            "uuid": "d",
            "cwd": "/home/jo/src/orders",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t2", "content": json.dumps({"login": "octocat"})}
                ],
            },
        },
    ]
    (src / "s1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = "\n".join(_texts(out))
    assert "lmerz" not in texts
    assert "dependabot[bot]" in texts and "octocat" in texts  # a bot; a fixture read by another command


def test_logins_in_a_github_api_reads_text_output_are_handles(engine):
    """Codex prints its exec header before the output, so the JSON stays text: its login fields are read there."""
    header = "Chunk ID: ef0014\nWall time: 0.5 seconds\nProcess exited with code 0\nOutput:\n"
    text = header + '{"user": {"login": "lmerz"}, "head": {"user": {"login": "dependabot[bot]"}}}\n'
    got = _after(engine, "gh api repos/acme/api/pulls/42", text)
    assert got == {("lmerz", "pii.handle")}
    assert _after(engine, "cat fixtures/pulls.json", text) == set()
