"""Places found by probing outside this project's own benchmarks (#8 items 2 and 3): the owner's
word-like username in more shell outputs, the owner's name in more written forms, and secrets in
tables, SQL, headers and calls that no rule named. Each case is planted in, and must not come out."""

from __future__ import annotations

import pytest
from test_detect_identity_learned import _bounded, _claude, _redact, _texts

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.model import Leaf

# The owner "grant" (Grant Ellison): a username that is an English word, so only its places count.
OWNER_PLACES = [
    "grant    tty7         2026-03-03 08:55 (:0)\ngrant    pts/1        2026-03-03 09:02",  # who / last
    "grant:x:1000:1000:Grant Ellison,,,:/home/grant:/bin/bash",  # getent passwd
    "grant adm cdrom sudo dip plugdev docker",  # groups
    "Host gh\n  HostName github.com\n  User grant\n  IdentityFile ~/.ssh/id_ed25519",  # ~/.ssh/config
    "github.com\n  ✓ Logged in to github.com account grant (keyring)",  # gh auth status
    "latest: Pulling from grant/export-worker",  # docker pull
    "heroku: Logged in as grant on this machine",
    "Merge pull request #42 from grant/fix-retry",  # a merge commit's subject
    "remote: Permission to acme/orders.git denied to grant.",  # a refused push
    "REPOSITORY         TAG       IMAGE ID       CREATED\ngrant/orders-api   latest    3f2a1b9c8d7e   2 hours ago",
    '{"nameWithOwner":"grant/orders","url":"https://github.com/grant/orders"}',  # gh repo view
    "USER=grant\nLOGNAME=grant\nSHELL=/bin/bash",  # env
    "the bot keeps tagging @grant on every PR",  # a mention
    "Assignee: Ellison Grant",  # Last First
    "- Ellison G. (sync)",  # Last F.
    "Sure, Grant! I'll look at the retry logic.",  # the assistant's reply
    "GET /api/invite?to=grant.ellison%40example.com&role=admin",  # a URL-encoded address
]
HARMLESS = [
    "we grant read access to the reporting role",
    "GRANT SELECT ON orders TO reporting;",
    "@grant\ndef handler(): ...",  # a decorator, not a mention
    "Sure Grant funding works that way",  # no clause ends after the name
    "the account grants access",
    "the policy denied to grant the role",
]


def test_the_owners_word_like_username_and_name_in_more_places(tmp_path):
    src = tmp_path / "src" / "projects" / "-home-grant-src-orders"
    _claude(src / "s1.jsonl", "/home/grant/src/orders", [*OWNER_PLACES, *HARMLESS])
    out = tmp_path / "out"
    identity = {"Grant Ellison": "identity.name", "grant.ellison@example.com": "identity.email"}
    _redact(tmp_path / "src", out, identity)
    texts = _texts(out)
    planted = [t for t in texts if any(p[:12] in t for p in OWNER_PLACES)]
    assert _bounded("grant", planted) == [] and _bounded("Grant", planted) == []
    assert _bounded("Ellison", planted) == [] and not any("grant.ellison" in t for t in texts)
    for snippet in HARMLESS:
        assert any(snippet in t for t in texts), snippet


def _found(text: str) -> list[str]:
    engine = Engine(DetectConfig(ner=False))
    return [text[s.start : s.end] for s in engine.scan(text, Leaf("claude_code", (), None, False))]


SECRET_PLACES = [  # (text, the secret)
    (
        "Key         Value\n---         -----\npassword    .iSQitwh*@3UKTHIP@z5\n",
        ".iSQitwh*@3UKTHIP@z5",
    ),  # vault
    ("║ DATABASE_PASSWORD ║ m@#*XaiuXpc9Lq2Z ║\n║ PORT              ║ 5432 ║", "m@#*XaiuXpc9Lq2Z"),
    (
        "| Name | Value |\n|---|---|\n| DEPLOY_TOKEN | `oxYXdRjaQ2mP9vLk7sBn3TzW` |",
        "oxYXdRjaQ2mP9vLk7sBn3TzW",
    ),
    ("const key = process.env.API_KEY || 'k3FThlFrQ9xZpL2mVb7sNc4D';", "k3FThlFrQ9xZpL2mVb7sNc4D"),
    ("I've set `SERVICE_TOKEN` to bRURUNX9XnHQ7vLp2Zq8sKt4 in `.env`", "bRURUNX9XnHQ7vLp2Zq8sKt4"),
    (
        "ngrok config add-authtoken 2THzW9c6KXzBa7Nxx3fQ_7YaWPqLmN2vB8sKt4",
        "2THzW9c6KXzBa7Nxx3fQ_7YaWPqLmN2vB8sKt4",
    ),
    ("ALTER USER app WITH PASSWORD 'VS6wKsX^n3Ifvy39x';", "VS6wKsX^n3Ifvy39x"),
    ("    storePassword 'CPToqMfejFJ#U_I4p7'\n    keyAlias 'upload'", "CPToqMfejFJ#U_I4p7"),
    ("< Set-Cookie: session=nfD5Cyy7Qm2LpZ8vBx4TkW9s; Path=/; HttpOnly", "nfD5Cyy7Qm2LpZ8vBx4TkW9s"),
    (
        "https://b.s3.amazonaws.com/r.pdf?X-Amz-Expires=3600&X-Amz-Signature=d1644e7b8d2b0bc5352138cf5c663fd43a8744f75b25e274cc62ce6d684cdfb7",
        "d1644e7b8d2b0bc5352138cf5c663fd43a8744f75b25e274cc62ce6d684cdfb7",
    ),
]
SECRET_PLACES += [
    (
        'env:\n  - name: DB_PASSWORD\n    value: "Xk9#mQ2vLp7zRt4w"\n  - name: PORT\n    value: "8080"',
        "Xk9#mQ2vLp7zRt4w",
    ),
    (
        '{"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": "67YQt@74FIq9Lm2"}}',
        "67YQt@74FIq9Lm2",
    ),
]
SECRET_PLACES += [  # a secret's name opening a mapping whose "value" holds it, in text that does not parse
    (
        'plan: {"db_password": {"sensitive": true, "type": "string", "value": "Qx7#fP2qLm8Rt7Vw"}, "endpoint": {',
        "Qx7#fP2qLm8Rt7Vw",
    ),
    (
        'stack: {"apiKey": {"secret": true, "value": "Zk9fP2qLm8Rt7Vw3Yz6Bn1Cd4Ef5"}',
        "Zk9fP2qLm8Rt7Vw3Yz6Bn1Cd4Ef5",
    ),
]
SECRET_PLACES += [  # a Dockerfile's ENV, "has been set to", a token shown after a blank line
    ("FROM node:22\nENV DB_PASS Qx7fP2qLm8Rt7Vw3\nRUN npm ci", "Qx7fP2qLm8Rt7Vw3"),
    ("root password has been set to Qx7#fP2qLm8", "Qx7#fP2qLm8"),
    (
        "Copy this token now, it won't be shown again:\n\n  Zk9fP2qLm8Rt7Vw3Yz6Bn1Cd\n",
        "Zk9fP2qLm8Rt7Vw3Yz6Bn1Cd",
    ),
]
SECRET_PLACES += [  # prose that names the secret after its value
    ("use Qx7#fP2qLm8 as the admin password", "Qx7#fP2qLm8"),
    ("Set `k9fP2qLm8Rt7Vw3Yz6Bn1` as the API token for staging", "k9fP2qLm8Rt7Vw3Yz6Bn1"),
]
KEPT = [
    "ENV TOKEN_TTL 3600",
    "ENV PASSWORD_MIN_LENGTH twelve",
    "the password has been set to expire",
    "use this as the password field label",
    "use bcrypt as the password hash",
    "use SECRET_KEY as the secret",
    "use something as the password for now",
    "try it with 'hunterlong' as the password",
    '{"token": {"type": "string", "description": "the value: see docs"}} ...',
    '"db_password": {"value": "${var.db_password}"}, "cut',
    "env:\n  - name: API_TOKEN\n    valueFrom:\n      secretKeyRef:\n        name: api\n        key: token",
    "- name: GITHUB_TOKEN\n  value: ${{ secrets.GITHUB_TOKEN }}",
    "env:\n  - name: DB_PASSWORD\n  - name: PORT\n    value: '8080'",
    "| token | string | The API token |",
    "password    required",
    "  --token    The token to use",
    "| api_key | YOUR_API_KEY |",
    "use the token to call the API",
    "Cookie: theme=dark; lang=en",
    "enter your password 'twice' and then confirm",
    "token || 'default'",
]


@pytest.mark.parametrize(("text", "secret"), SECRET_PLACES)
def test_a_secret_in_a_table_sql_header_or_call_is_found_whole(text, secret):
    assert secret in _found(text)


@pytest.mark.parametrize("text", KEPT)
def test_words_and_stand_ins_in_those_places_are_kept(text):
    assert _found(text) == []


def test_the_owners_name_is_learned_from_git_config_output_and_redacted_in_other_sessions(tmp_path):
    """Setting (b), a username that gives no name (``dev42``): the name ``git config --list`` prints
    in one session is the owner's, in every other session too (a sign-off, a copyright line)."""
    src = tmp_path / "src" / "projects" / "-home-dev42-src-orders"
    _claude(
        src / "s1.jsonl", "/home/dev42/src/orders", ["user.email=am@example.org\nuser.name=Arjun Mehta\n"]
    )
    later = ["Can you also clean up the flaky fixtures?\n\n— Arjun", "Copyright (c) 2026 Arjun Mehta"]
    _claude(src / "s2.jsonl", "/home/dev42/src/orders", later)
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = _texts(out)
    assert _bounded("Arjun", texts) == [] and _bounded("Mehta", texts) == []
    assert any("Can you also clean up the flaky fixtures?" in t for t in texts)


def test_an_html_closing_tag_is_not_a_short_usernames_path():
    engine = Engine(DetectConfig(identity={"li": "identity.username"}, ner=False))
    leaf = Leaf("claude_code", (), "content", False)
    assert engine.scan("<ul>\n  <li>one</li>\n</ul>", leaf) == []
    assert [s.type for s in engine.scan("ls /home/li/src /mnt/backup/li", leaf)] == ["identity.username"] * 2


def test_a_name_learned_in_one_session_is_found_in_anothers_groups_output(tmp_path):
    """The second pass sends a file back by the texts of the places a known name stands in
    (``found.scan_forms``): ``groups`` output starting with any system group is one of them."""
    src = tmp_path / "src" / "projects" / "-home-jo-src-orders"
    listing = "total 8\ndrwxr-xr-x  4 rose rose 4096 Mar  3 09:12 shared"
    _claude(src / "s1.jsonl", "/home/jo/src/orders", [listing])
    _claude(src / "s2.jsonl", "/home/jo/src/orders", ["rose audio video plugdev", "a rose by any other name"])
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = _texts(out)
    assert not any("rose audio" in t for t in texts)
    assert any("a rose by any other name" in t for t in texts)


def test_a_name_learned_in_one_session_is_found_in_anothers_git_places(tmp_path):
    """A colleague's word-like account name, learned from ls -l in one session, in another's merge
    commit and refused push (found.scan_forms sends that file back for its identity places)."""
    src = tmp_path / "src" / "projects" / "-home-jo-src-orders"
    listing = "total 8\ndrwxr-xr-x  4 rose rose 4096 Mar  3 09:12 shared"
    _claude(src / "s1.jsonl", "/home/jo/src/orders", [listing])
    _claude(src / "s2.jsonl", "/home/jo/src/orders", ["Merge pull request #7 from rose/fix-retry"])
    _claude(src / "s3.jsonl", "/home/jo/src/orders", ["remote: Permission to acme/x.git denied to rose."])
    _claude(src / "s4.jsonl", "/home/jo/src/orders", ["a rose by any other name"])
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = _texts(out)
    assert not any("from rose/" in t or "denied to rose" in t for t in texts)
    assert any("a rose by any other name" in t for t in texts)


def test_a_value_field_under_a_secrets_name_in_parsed_json_is_redacted(tmp_path):
    """terraform output -json and Pulumi's stack output: the walker gives a "value" field its owner's
    name ("db_password.value"), so the whole string under it is judged as the owner's."""
    import json

    password, key = "Qx7#fP2qLm8Rt7Vw", "Zk9fP2qLm8Rt7Vw3Yz6Bn1Cd4Ef5"
    outputs = {
        "db_password": {"sensitive": True, "type": "string", "value": password},
        "endpoint": {"sensitive": False, "type": "string", "value": "db.internal.example.com:5432"},
        "api": {"apiKey": {"secret": True, "value": key}, "region": {"value": "eu-west-1"}},
    }
    src = tmp_path / "src" / "projects" / "-srv-infra"
    _claude(src / "s1.jsonl", "/srv/infra", [json.dumps(outputs, indent=2)])
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = "\n".join(_texts(out))
    assert password not in texts and key not in texts
    assert "db.internal.example.com:5432" in texts and "eu-west-1" in texts


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("define('DB_PASSWORD', 'Hq7#vR2mLp9kW');", "Hq7#vR2mLp9kW"),  # wp-config: a short signed password
        ("define('AUTH_SALT', 'x$Lk2@Mx7Qw4^Rt8Yz1Nb6Vc3&pD9');", "x$Lk2@Mx7Qw4^Rt8Yz1Nb6Vc3&pD9"),
        ("COOKIE_SALT=p9Lk2Mx7Qw4Rt8Yz1Nb6Vc3\nHOME=/home/app", "p9Lk2Mx7Qw4Rt8Yz1Nb6Vc3"),
        ('{"salt": "c2VjcmV0LXNhbHQtOWY4ZTdkNmM1YjRh"}', "c2VjcmV0LXNhbHQtOWY4ZTdkNmM1YjRh"),
    ],
)
def test_a_salt_and_a_short_password_paired_with_its_name_are_found(text, secret):
    assert secret in _found(text)


@pytest.mark.parametrize(
    "text",
    [
        'REQUIRED = ("DB_PASSWORD", "DB_HOST", "DB_USER")',  # a list of names
        "define('DB_PASSWORD', 'hunter2');",  # short and unsigned: a list's next name as often
        "SALT_ROUNDS=10",
        'salt = "pepper"',
    ],
)
def test_names_and_words_beside_a_password_or_salt_stay(text):
    assert _found(text) == []
