"""Someone else's account where only its place says it is one (#8 item 2, probed): a login's row of
``who`` / ``w`` / ``last``, ``getent passwd``'s full name, ``finger``, sudo's and sshd's log lines,
``chown`` / ``sudo -u`` / ``su -``, a fork's head ref in ``gh pr list``. Found with no identity
given, and look-alikes kept."""

from __future__ import annotations

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.model import Leaf


def _found(text: str, identity: dict[str, str] | None = None) -> set[tuple[str, str]]:
    """Through an engine, so the prefilter's trigger words for each place are tested too."""
    engine = Engine(DetectConfig(identity=identity or {}, ner=False))
    leaf = Leaf("claude_code", ("toolUseResult", "stdout"), "stdout", False)
    return {
        (text[s.start : s.end], s.type) for s in engine.scan(text, leaf) if s.detector.startswith("identity")
    }


@pytest.mark.parametrize(
    "text, value, kind",
    [
        ("tkovacs  pts/1        10.0.0.14        09:01    0.00s bash", "tkovacs", "pii.username"),  # w
        ("mhale    console  Mar  3 08:55", "mhale", "pii.username"),  # who on macOS
        (
            "gpell    pts/0        10.0.0.12        Mon Mar  3 08:55   still logged in",
            "gpell",
            "pii.username",
        ),
        ("hsolo:x:1001:1001:Han Solo,,,:/home/hsolo:/bin/bash", "Han Solo", "pii.person"),  # getent passwd
        ("Login: oprak          \t\t\tName: Oskar Prak", "Oskar Prak", "pii.person"),  # finger
        (
            "Mar 03 09:01:12 box sudo[4121]:   ivrae : TTY=pts/1 ; PWD=/srv ; USER=root",
            "ivrae",
            "pii.username",
        ),
        ("sshd[511]: Accepted publickey for jkoru from 10.0.0.15 port 51122 ssh2", "jkoru", "pii.username"),
        (
            "sshd[77]: Failed password for invalid user qaziz from 203.0.113.9 port 4711",
            "qaziz",
            "pii.username",
        ),
        (
            "pam_unix(sshd:session): session opened for user rvell(uid=1004) by (uid=0)",
            "rvell",
            "pii.username",
        ),
        ("sudo chown -R nquell:nquell /srv/app", "nquell", "pii.username"),
        ("sudo -u svoigt psql orders", "svoigt", "pii.username"),
        ("su - tbrandt", "tbrandt", "pii.username"),
        ("crontab -u wdunn -l", "wdunn", "pii.username"),
        ("pkill -u gpell node", "gpell", "pii.username"),
        ("sudo usermod -aG docker bnoor", "bnoor", "pii.username"),
        ("apt update && sudo useradd -m -s /bin/bash kroth", "kroth", "pii.username"),
        (
            "42\tFix rate limit\tcnakai:fix-rate\tOPEN\t2026-03-03T09:12:01Z",
            "cnakai",
            "pii.username",
        ),  # to a pipe
    ],
)
def test_an_account_in_its_place_is_found(text, value, kind):
    assert (value, kind) in _found(text)


def test_the_owners_full_name_in_passwd_is_the_owners():
    found = _found("mhale:x:1000:1000:Maren Hale,,,:/home/mhale:/bin/bash", {"mhale": "identity.username"})
    assert ("Maren Hale", "identity.name") in found


@pytest.mark.parametrize(
    "text",
    [
        "Browser console output: error",  # a terminal's word, no login row
        "serial  console  settings",
        "root:x:0:0:root:/root:/bin/bash",  # system accounts
        "sudo chown -R root:root /srv/app",
        "sudo -u postgres psql",
        "chown 1000:1000 data",
        "state:pending in review",
        "echo passwd changed",  # not the command
        "the usermod command works",
        "ps -u root",
        "Accepted the invitation for Maren",  # prose
    ],
)
def test_look_alikes_and_system_accounts_stay(text):
    assert _found(text) == set()
