"""Identity benchmark: is the owner's identity, and a colleague's, redacted where it really appears?

    python bench/identity.py                 # 10 fake identities x (Claude Code, Codex) x settings (a), (b)
    python bench/identity.py --check         # exit 1 when the owner leaks anywhere, or the colleague
                                             # in more than 3 of 24 places (in either setting)
    python bench/identity.py --isolate       # each place in a session of its own

The labelled evaluation (bench/eval.py) plants the user's identity in a handful of contexts and
always redacts with an environment that names the user. Real traces are messier: the username
shows up bare (``whoami``, ``ls -la``, ``ps aux``, ``id``, a shell prompt), glued into other
words (``maren_dev``, ``marenfork``), capitalised or upper-cased, as a first name alone ("Thanks,
Maren"), and traces are often redacted somewhere else than where they were recorded. So every
*place* here is a separate, named case, planted in a Claude Code and a Codex session whose
working folder lies under the owner's home (as real traces' does), for several fake identities
(common and uncommon names, two-letter usernames, names that are words, names close to guard
words such as ``dev``), and measured in two settings:

- **(a) named**: the environment names the owner (HOME, USER, LOGNAME, HOSTNAME, a git config
  with their name and email: ``bench/corpus.py:build_home``), so the identity harvest has them;
- **(b) elsewhere**: the traces were copied to another machine or account: HOME and USER are
  another person's, no git config names the owner, another hostname. Only what the traces
  themselves show can be used.

Places (``OWNER_DEFS`` and ``COLLEAGUE_DEFS`` hold the text of each):

- owner, 30: ``cwd`` (the working folder where the harness records it), ``session_folder`` (the
  Claude project folder's name), home paths ``home_linux`` / ``home_macos`` / ``home_windows`` /
  ``home_wsl`` / ``home_urlencoded`` (``%2Fhome%2Fu%2F``) / ``home_json_escaped``
  (``C:\\\\Users\\\\u``), ``whoami``, ``shell_prompt`` (``u@host:~$``), ``ls_la`` (owner and
  group columns), ``id``, ``ps_aux``, ``hostname_macbook`` (``u-MacBook-Air.local``),
  ``hostname_laptop`` (``u-laptop``), ``compound_underscore`` / ``compound_glued`` /
  ``compound_dot`` / ``compound_digit`` (``u_dev``, ``ufork``, ``u.backup``, ``u2``),
  ``git_author``, ``name_last_first`` (``Last, First``), ``name_initial`` (``F. Last``),
  ``first_greeting`` ("Maren here."), ``first_signoff`` ("Thanks, Maren"), ``email_prose``,
  ``ssh_key_comment``, ``json_owner`` (``"owner": "u"``), ``username_upper``,
  ``username_capitalised``, ``name_upper``;
- colleague, 24, in session order: ``home_linux`` (a pasted traceback under ``/home/c/``) first,
  then ``whoami``, ``shell_prompt``, ``ls_la``, ``id``, ``ps_aux``, ``ssh_key_comment``,
  ``json_owner``, ``username_upper``, ``username_capitalised``, ``home_macos``, ``home_windows``,
  ``home_wsl``, ``home_urlencoded``, ``home_json_escaped``, ``hostname`` (``c-desktop``), the four
  compounds, ``git_author``, ``name_last_first``, ``email_prose``, ``first_signoff``.

A place is *leaked* when any identity token planted there (the username, first or last name,
the email's local part, in the exact form planted) survives in the published bytes of that place
(``DIR/dataset``, decoded: JSON, JSON inside strings, escapes; placeholders ignored). A place is
found by its text in the source file: the line, the JSON path of each string holding it and the
text around it there (Codex's "Chunk ID: ...Output:" header); the output keeps lines and shape
(Claude Code and Codex are written back line for line), so the same path shows what became of
it. Usernames are looked for between non-alphanumeric characters (``jo`` is not in ``job``;
``maren_dev`` does hold ``maren``), except where the place glues them to letters or digits
(``marenfork``, ``maren2``, ``%2Fmaren%2F``), where any occurrence counts. The working folder
recorded by the harness itself (``cwd``, ``workdir``, the agent's own tool paths and commands)
is scored as the place ``cwd``, not as part of every other place. The owner's values (username,
full name, email, hostnames) must not appear in clear under ``DIR/review`` or in
``manifest.json`` (``placeholder.key`` excepted) either; the dataset card and file names count as
published.

Over-redaction: every session also holds harmless words equal to short guard names or to the
identities' word-like usernames, in code and prose (``npm run dev``, ``admin.site.register``,
``"test": "vitest run"``, ``@pytest.mark.parametrize``, "this will retry"), and generic accounts'
home paths (``WORKDIR /home/dev/app``); each that is gone from its record counts as removed.

The scorer checks itself on every run before trusting a figure: the unredacted corpus read as
an output must score every place leaked, and the same sessions rendered with every identity
replaced by a placeholder must score none leaked and nothing removed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The package lives in src/ today and may move to the top level: use whichever exists.
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import corpus_fake as fk  # noqa: E402
from corpus import build_home  # noqa: E402
from corpus_bulk import Bulk, numbered, prose  # noqa: E402
from corpus_formats import Call, ClaudeWriter, CodexWriter, Session, Step  # noqa: E402
from eval import SECRET_STORES, _unescape  # noqa: E402
from eval import run_redact as eval_run_redact  # noqa: E402

SETTINGS = {"a": "environment names the owner", "b": "redacted elsewhere (another account)"}
HARNESSES = ("claude_code", "codex")
COLLEAGUE_LIMIT = 3  # --check: at most this many of the colleague's 24 places may leak
CANARY = re.compile(r"identref-\d{2}-[a-z_]+-\d{3}")
# Keys where a harness records the session's own working folder (and the agent's tool paths and
# commands built from it): scored as the place "cwd", kept out of every other place's records.
ENVELOPE_KEYS = frozenset({"cwd", "workdir", "file_path", "filePath", "command", "cmd"})
# tracepub's placeholders (<USER>, <PII_PERSON_1a2b3c4d>) and the perfect rendering's (<OWNER_U>).
PLACEHOLDER = re.compile(r"<[A-Z][A-Za-z0-9_]*>")
JsonPath = tuple[str | int, ...]


# -- identities --------------------------------------------------------------------------------------
def ascii_fold(text: str) -> str:
    """Letters and digits only, accents dropped: how a username or email is made from a name."""
    table = {"Þ": "Th", "þ": "th", "ð": "d", "Ð": "D", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "ß": "ss"}
    text = "".join(table.get(c, c) for c in text)
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if c.isascii() and c.isalnum())


@dataclass(frozen=True)
class Ident:
    """One person as the places write them: every form is a field, so a placeholder rendering
    can replace each form without guessing how it was derived."""

    first: str
    last: str
    username: str
    email: str
    host_mac: str
    host_linux: str
    upper: str  # the username upper-cased (MAREN)
    cap: str  # the username capitalised (Maren)
    first_upper: str
    last_upper: str
    initial: str
    category: str = ""

    @classmethod
    def make(
        cls, first: str, last: str, username: str, email: str, host_linux_suffix: str, category: str
    ) -> Ident:
        return cls(
            first,
            last,
            username,
            email,
            f"{username}-MacBook-Air.local",
            f"{username}-{host_linux_suffix}",
            username.upper(),
            username.capitalize(),
            first.upper(),
            last.upper(),
            first[0],
            category,
        )

    @property
    def full_name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def local(self) -> str:
        return self.email.partition("@")[0]

    def fields(self) -> dict[str, str]:
        return {
            "u": self.username,
            "U": self.upper,
            "Uc": self.cap,
            "F": self.first,
            "L": self.last,
            "FI": self.initial,
            "FU": self.first_upper,
            "LU": self.last_upper,
            "e": self.email,
            "hm": self.host_mac,
            "hl": self.host_linux,
        }

    def tokens(self, name: str) -> list[str]:
        """The identifying tokens a field writes (a hostname is identifying by its username)."""
        return {
            "u": [self.username],
            "U": [self.upper],
            "Uc": [self.cap],
            "F": [self.first],
            "L": [self.last],
            "FI": [],
            "FU": [self.first_upper],
            "LU": [self.last_upper],
            "e": [self.local],
            "hm": [self.username],
            "hl": [self.username],
        }[name]

    def placeholders(self, tag: str) -> Ident:
        """The same person with every form replaced: what a perfect redaction would leave."""
        p = lambda x: f"<{tag}_{x}>"  # noqa: E731
        return Ident(
            p("FIRST"),
            p("LAST"),
            p("U"),
            p("EMAIL"),
            p("U") + "-MacBook-Air.local",
            p("U") + "-" + self.host_linux.rpartition("-")[2],
            p("UPPER"),
            p("CAP"),
            p("FIRSTUP"),
            p("LASTUP"),
            p("I"),
            self.category,
        )


# Pools by category; a profile draws one of each from its seed. Names are fake combinations.
POOLS: dict[str, list[tuple[str, str, str]]] = {
    # (first, last, username style or username)
    "common": [
        ("Maren", "Holt", "first"),
        ("Sarah", "Miller", "flast"),
        ("David", "Chen", "first"),
        ("Anna", "Schmidt", "flast"),
        ("James", "Walker", "first"),
        ("Laura", "Bianchi", "firstlast"),
    ],
    "short": [
        ("Jo", "Lindqvist", "jo"),
        ("Al", "Haddad", "al"),
        ("Li", "Wei", "li"),
        ("Bo", "Jensen", "bo"),
        ("Ty", "Okafor", "ty"),
        ("Ed", "Brennan", "ed"),
    ],
    "word": [
        ("Mark", "Fisher", "mark"),
        ("Will", "Hartley", "will"),
        ("Grant", "Ellison", "grant"),
        ("Rose", "Kimura", "rose"),
        ("Hope", "Asante", "hope"),
    ],
    "uncommon": [
        ("Thandiwe", "Okonkwo-Adeyemi", "flast"),
        ("Siobhán", "Ní Bhriain", "flast"),
        ("Xiadani", "Quispe Mamani", "first"),
        ("Eyvindur", "Þórsson", "first"),
        ("Zdeněk", "Hrubý", "flast"),
        ("Oluwaseun", "Adébáyọ̀", "first"),
    ],
    "guardish": [
        ("Devin", "Shah", "devin"),
        ("Devi", "Prasad", "devi"),
        ("Deva", "Moorthy", "deva"),
        ("Devon", "Clarke", "devon"),
        ("Admir", "Hodžić", "admir"),
    ],
}
# (owner category, colleague category, the owner's OS); profile i uses PAIRS[i % len(PAIRS)].
PAIRS = [
    ("common", "short", "linux"),
    ("short", "word", "macos"),
    ("word", "guardish", "macos"),
    ("uncommon", "common", "linux"),
    ("guardish", "uncommon", "linux"),
]
DOMAINS = ["northwind-labs.io", "gmail.com", "fastmail.com", "proton.me"]


def _ident(rng: random.Random, category: str, host_suffix: str, taken: set[str], used: set[tuple]) -> Ident:
    """A person of ``category`` not drawn before (``used``, until the pool runs out) whose names
    are not in ``taken``."""
    pool = [c for c in POOLS[category] if not ({c[0], c[1]} & taken)]
    fresh = [c for c in pool if c not in used] or pool
    first, last, style = rng.choice(fresh)
    used.add((first, last, style))
    f, lf = ascii_fold(first).lower(), ascii_fold(last).lower()
    username = {"first": f, "flast": f[0] + lf, "firstlast": f + lf}.get(style, style)
    local = rng.choice([f"{f}.{lf}", f"{f[0]}{lf}", f"{f}"]) if len(f) > 2 else f"{f}.{lf}"
    return Ident.make(first, last, username, f"{local}@{rng.choice(DOMAINS)}", host_suffix, category)


@dataclass(frozen=True)
class Profile:
    index: int
    owner: Ident
    colleague: Ident
    os: str  # linux | macos: where the owner's home is

    @property
    def home(self) -> str:
        return ("/Users/" if self.os == "macos" else "/home/") + self.owner.username

    @property
    def hostname(self) -> str:
        return self.owner.host_mac if self.os == "macos" else self.owner.host_linux


def _bounded(token: str) -> re.Pattern:
    return re.compile(r"(?<![^\W_])" + re.escape(token) + r"(?![^\W_])")


def make_profiles(seed: int, n: int) -> list[Profile]:
    """``n`` owner/colleague pairs, drawn with fixed seeds; no token of one occurs in the other."""
    out = []
    used: set[tuple] = set()
    for i in range(n):
        owner_cat, coll_cat, os_ = PAIRS[i % len(PAIRS)]
        rng = random.Random(seed * 1000 + i)
        owner = _ident(rng, owner_cat, "laptop", set(), used)
        colleague = _ident(rng, coll_cat, "desktop", {owner.first, owner.last}, used)
        for a, b in ((owner, colleague), (colleague, owner)):
            text = " ".join(b.fields().values()).lower()
            for tok in (a.username, a.first, a.last, a.local):
                if _bounded(tok.lower()).search(text):
                    raise RuntimeError(f"profile {i}: {tok!r} of one identity occurs in the other's")
        out.append(Profile(i, owner, colleague, os_))
    return out


# -- places ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlaceDef:
    """One realistic place an identity appears. ``template`` uses the fields of ``Ident.fields``
    (``{u}``, ``{F}``...); ``glued``: the username is glued to letters or digits there, so it is
    looked for as a substring."""

    name: str
    klass: str
    kind: str  # shell | read | user | assistant
    template: str
    command: str = ""  # the shell command, or the file read (relative to the working folder)
    glued: bool = False


_FIELD = re.compile(r"\{(\w+)\}")
FIELDS = frozenset(Ident.make("A", "B", "c", "d@e.f", "x", "").fields())


def render(template: str, fields: dict[str, str]) -> str:
    """Fills only the given fields, so other braces (bibtex, JSON, shell) stay as written."""
    return _FIELD.sub(lambda m: fields.get(m.group(1), m.group(0)), template)


def used_fields(template: str) -> list[str]:
    return [f for f in dict.fromkeys(_FIELD.findall(template)) if f in FIELDS]


_ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"

# The owner's places: 28 here plus "cwd" and "session_folder" (where the harness records the
# working folder), 30 in all. Commands are neutral so each place's identity is in its output.
OWNER_DEFS: list[PlaceDef] = [
    PlaceDef(
        "home_linux",
        "home path",
        "shell",
        'Traceback (most recent call last):\n  File "/home/{u}/src/orders/.venv/lib/python3.12/site-packages/'
        'celery/app/trace.py", line 453, in trace_task\n    R = retval = fun(*args, **kwargs)\n'
        '  File "/home/{u}/src/orders/app/tasks.py", line 41, in sync_orders\n'
        '    raise RuntimeError("upstream returned 502")\nRuntimeError: upstream returned 502',
        "python -m app.worker --once",
    ),
    PlaceDef("home_macos", "home path", "shell", "/Users/{u}/Library/Caches/pip", "pip cache dir"),
    PlaceDef(
        "home_windows",
        "home path",
        "user",
        "On my Windows box the install fails with:\n\nError: ENOENT: no such file or directory, open "
        "'C:\\Users\\{u}\\AppData\\Roaming\\npm\\node_modules\\pnpm\\package.json'\n\nany idea?",
    ),
    PlaceDef("home_wsl", "home path", "shell", "/mnt/c/Users/{u}", "realpath ~/winhome"),
    PlaceDef(
        "home_urlencoded",
        "home path",
        "shell",
        '127.0.0.1 - - [03/Mar/2026:10:14:02 +0000] "GET /api/files?path=%2Fhome%2F{u}%2Fsrc%2Forders%2F'
        'exports%2Fmarch.csv HTTP/1.1" 200 5120 "-" "python-requests/2.32.3"',
        "tail -n 1 logs/access.log",
        glued=True,
    ),
    PlaceDef(
        "home_json_escaped",
        "home path",
        "shell",
        '{\n  "python.defaultInterpreterPath": "C:\\\\Users\\\\{u}\\\\.venvs\\\\orders\\\\Scripts\\\\python.exe",'
        '\n  "editor.formatOnSave": true\n}',
        "cat .vscode/settings.json",
    ),
    PlaceDef("whoami", "bare username", "shell", "{u}\n", "whoami"),
    PlaceDef(
        "shell_prompt",
        "bare username",
        "user",
        "here's what I get in the other terminal:\n\n{u}@{hl}:~/src/orders$ make migrate\n"
        "make: *** No rule to make target 'migrate'.  Stop.",
    ),
    PlaceDef(
        "ls_la",
        "bare username",
        "shell",
        "total 16\ndrwxr-xr-x  4 {u} {u} 4096 Mar  3 09:12 .\ndrwxr-x--- 21 {u} {u} 4096 Mar  3 08:55 ..\n"
        "drwxr-xr-x  8 {u} {u} 4096 Mar  3 09:12 orders\ndrwxr-xr-x  5 {u} {u} 4096 Feb 27 17:40 infra",
        "ls -la ~/src",
    ),
    PlaceDef(
        "id",
        "bare username",
        "shell",
        "uid=1000({u}) gid=1000({u}) groups=1000({u}),4(adm),27(sudo),998(docker)",
        "id",
    ),
    PlaceDef(
        "ps_aux",
        "bare username",
        "shell",
        "{u}      48213  2.1  1.9 1187644 158312 pts/3  Sl+  09:40   0:07 node dist/server.js\n"
        "{u}      48227  0.0  0.6  951204  51208 pts/3  Sl+  09:40   0:00 node dist/worker.js",
        "ps aux | grep -v grep | grep node",
    ),
    PlaceDef(
        "hostname_macbook",
        "hostname",
        "shell",
        "{u}-MacBook-Air\n{hm}",
        "scutil --get LocalHostName; hostname",
    ),
    PlaceDef(
        "hostname_laptop",
        "hostname",
        "shell",
        "Linux {hl} 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024 x86_64 GNU/Linux",
        "uname -a",
    ),
    PlaceDef(
        "compound_underscore",
        "compound",
        "shell",
        "DATABASE_URL=postgres://localhost:5432/{u}_dev",
        "grep DATABASE_URL .env.local",
    ),
    PlaceDef(
        "compound_glued",
        "compound",
        "shell",
        "origin\tgit@github.com:{u}fork/orders.git (fetch)\norigin\tgit@github.com:{u}fork/orders.git (push)\n"
        "upstream\tgit@github.com:northwind-labs/orders.git (fetch)",
        "git remote -v",
        glued=True,
    ),
    PlaceDef(
        "compound_dot",
        "compound",
        "shell",
        "2.1G\t/mnt/backup/{u}.backup\n312M\t/mnt/backup/shared",
        "du -sh /mnt/backup/*",
    ),
    PlaceDef("compound_digit", "compound", "shell", "{u}2", "npm whoami", glued=True),
    PlaceDef(
        "git_author",
        "name",
        "shell",
        "commit 4e1f0c9b2a7d3e8f6c5b4a3928170f6e5d4c3b2a\nAuthor: {F} {L} <{e}>\n"
        "Date:   Tue Mar 3 09:12:44 2026 +0100\n\n    Retry order sync on 502",
        "git log -1",
    ),
    PlaceDef(
        "name_last_first",
        "name",
        "read",
        "@misc{orders2026,\n  author = {{L}, {F}},\n  title = {Order sync at scale},\n  year = {2026}\n}",
        "docs/paper.bib",
    ),
    PlaceDef(
        "name_initial",
        "name",
        "read",
        "## 2.4.1\n\n- Retry order sync on 502 responses ({FI}. {L})\n- Bump celery to 5.4.0\n",
        "CHANGELOG.md",
    ),
    PlaceDef(
        "first_greeting",
        "first name alone",
        "user",
        "{F} here. I'm back on the sync bug, what did we find yesterday about the 502s?",
    ),
    PlaceDef(
        "first_signoff",
        "first name alone",
        "user",
        "Please write up the findings in NOTES.md so I can share them with the team.\n\nThanks, {F}",
    ),
    PlaceDef(
        "email_prose", "email", "user", "When the export is done, email the CSV to {e} and cc the team list."
    ),
    PlaceDef(
        "ssh_key_comment", "bare username", "shell", _ED25519 + "{key} {u}@{hl}", "cat ~/.ssh/id_ed25519.pub"
    ),
    PlaceDef(
        "json_owner",
        "bare username",
        "shell",
        '{\n  "service": "orders-sync",\n  "owner": "{u}",\n  "replicas": 2\n}',
        "cat deploy/service.json",
    ),
    PlaceDef(
        "username_upper",
        "upper/capitalised",
        "shell",
        "+----------------+\n| CURRENT_USER() |\n|----------------|\n| {U} |\n+----------------+",
        'snowsql -q "select current_user()"',
    ),
    PlaceDef(
        "username_capitalised",
        "upper/capitalised",
        "shell",
        "{Uc}\nDESKTOP-7K2Q9LM",
        "powershell.exe -c '[Environment]::UserName; $env:COMPUTERNAME'",
    ),
    PlaceDef(
        "name_upper",
        "upper/capitalised",
        "shell",
        "subject=CN = {FU} {LU}, O = Northwind Labs, C = SE",
        "openssl x509 -noout -subject -in certs/client.crt",
    ),
]

# The colleague's 24 places, in session order: the pasted traceback naming /home/c/ first.
COLLEAGUE_DEFS: list[PlaceDef] = [
    PlaceDef(
        "home_linux",
        "home path",
        "user",
        "Someone on the team gets this on the same commit:\n\nTraceback (most recent call last):\n"
        '  File "/home/{u}/work/orders/app/tasks.py", line 41, in sync_orders\n'
        '    raise RuntimeError("upstream returned 503")\nRuntimeError: upstream returned 503',
    ),
    PlaceDef("whoami", "bare username", "shell", "{u}\n", "ssh build-box whoami"),
    PlaceDef(
        "shell_prompt",
        "bare username",
        "user",
        "they pasted their terminal too:\n\n{u}@{hl}:~/work/orders$ make seed\n"
        "psql: error: connection to server on socket failed",
    ),
    PlaceDef(
        "ls_la",
        "bare username",
        "shell",
        "total 8\n-rw-r--r--  1 {u} {u} 18231 Mar  2 16:03 orders-0302.csv\n"
        "-rw-r--r--  1 {u} {u} 17104 Mar  1 16:02 orders-0301.csv",
        "ls -la /srv/shared/exports",
    ),
    PlaceDef(
        "id",
        "bare username",
        "shell",
        "uid=1003({u}) gid=1003({u}) groups=1003({u}),999(docker)",
        "ssh build-box id",
    ),
    PlaceDef(
        "ps_aux",
        "bare username",
        "shell",
        "{u}      20311  0.4  2.2 289436 180112 ?      S    08:02   1:12 gunicorn app.wsgi --workers 4",
        "ssh staging 'ps aux | grep [g]unicorn'",
    ),
    PlaceDef(
        "ssh_key_comment", "bare username", "shell", _ED25519 + "{key} {u}@{hl}", "cat deploy/authorized_keys"
    ),
    PlaceDef(
        "json_owner",
        "bare username",
        "shell",
        '{\n  "job": "nightly-export",\n  "schedule": "0 2 * * *",\n  "owner": "{u}"\n}',
        "cat deploy/cron.json",
    ),
    PlaceDef(
        "username_upper",
        "upper/capitalised",
        "shell",
        "+------+---------------+\n| name | default_role  |\n|------+---------------|\n| {U} | ANALYST |\n"
        "+------+---------------+",
        "snowsql -q \"show users like 'a%'\"",
    ),
    PlaceDef(
        "username_capitalised",
        "upper/capitalised",
        "shell",
        "Public\n{Uc}",
        "powershell.exe -c 'Get-ChildItem C:/Users -Name'",
    ),
    PlaceDef(
        "home_macos", "home path", "shell", "/Users/{u}/Library/Caches/pip", "ssh studio-mac 'pip cache dir'"
    ),
    PlaceDef(
        "home_windows",
        "home path",
        "user",
        "and on their Windows laptop:\n\nError: EPERM: operation not permitted, rename "
        "'C:\\Users\\{u}\\AppData\\Local\\Temp\\pnpm-4412'",
    ),
    PlaceDef(
        "home_wsl",
        "home path",
        "shell",
        "/mnt/c/Users/{u}/Downloads/orders-export.csv",
        "find /mnt/c/Users -name 'orders-export*.csv' 2>/dev/null",
    ),
    PlaceDef(
        "home_urlencoded",
        "home path",
        "shell",
        '10.0.4.17 - - [03/Mar/2026:10:20:41 +0000] "GET /api/files?path=%2Fhome%2F{u}%2Fwork%2Fexports '
        'HTTP/1.1" 404 0 "-" "curl/8.5.0"',
        "grep 404 logs/access.log | tail -n 1",
        glued=True,
    ),
    PlaceDef(
        "home_json_escaped",
        "home path",
        "shell",
        '{"folders": [{"path": "C:\\\\Users\\\\{u}\\\\work\\\\orders"}], "settings": {}}',
        "cat shared/orders.code-workspace",
    ),
    PlaceDef(
        "hostname",
        "hostname",
        "shell",
        "Linux {hl} 6.5.0-41-generic #41~22.04.2-Ubuntu SMP PREEMPT_DYNAMIC x86_64 GNU/Linux",
        "ssh build-box uname -a",
    ),
    PlaceDef(
        "compound_underscore",
        "compound",
        "shell",
        "DATABASE_URL=postgres://db.internal:5432/{u}_dev",
        "grep DATABASE_URL shared/.env.example",
    ),
    PlaceDef(
        "compound_glued",
        "compound",
        "shell",
        "review\tgit@github.com:{u}fork/orders.git (fetch)\nreview\tgit@github.com:{u}fork/orders.git (push)",
        "git remote -v | grep review",
        glued=True,
    ),
    PlaceDef(
        "compound_dot", "compound", "shell", "4.7G\t/mnt/backup/{u}.backup", "du -sh /mnt/backup/*.backup"
    ),
    PlaceDef(
        "compound_digit",
        "compound",
        "shell",
        "northwind-ci\n{u}2",
        "gh api repos/northwind-labs/orders/collaborators --jq '.[].login'",
        glued=True,
    ),
    PlaceDef(
        "git_author",
        "name",
        "shell",
        "commit 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b\nAuthor: {F} {L} <{e}>\n"
        "Date:   Mon Mar 2 17:40:03 2026 +0000\n\n    Add nightly export job",
        "git log -1 origin/export-job",
    ),
    PlaceDef(
        "name_last_first",
        "name",
        "read",
        "# Maintainers\n\n- {L}, {F} (exports)\n- Platform team (infra)\n",
        "MAINTAINERS.md",
    ),
    PlaceDef("email_prose", "email", "user", "Also forward the summary to {e}, they own the export job."),
    PlaceDef(
        "first_signoff",
        "first name alone",
        "user",
        'Their message in #orders was: "staging is red again on my side, can you have a look? Thanks, {F}"',
    ),
]
OWNER_PLACES = ["cwd", "session_folder", *[d.name for d in OWNER_DEFS]]
COLLEAGUE_PLACES = [d.name for d in COLLEAGUE_DEFS]
CLAUDE_ONLY = {"session_folder"}  # Codex names its files by date and id only
PLACE_CLASS = {
    ("owner", "cwd"): "home path",
    ("owner", "session_folder"): "home path",
    **{("owner", d.name): d.klass for d in OWNER_DEFS},
    **{("colleague", d.name): d.klass for d in COLLEAGUE_DEFS},
}
assert len(OWNER_PLACES) == 30 and len(COLLEAGUE_PLACES) == 24


# -- harmless words (over-redaction) -----------------------------------------------------------------
# (word, file or command, text, [snippets that must survive]): every snippet holds the word as a word.
HARMLESS: list[tuple[str, str, str, str, list[tuple[str, str]]]] = [
    (
        "read",
        "package.json",
        "",
        '{\n  "name": "orders-web",\n  "scripts": {\n    "dev": "vite --port 5173",\n'
        '    "test": "vitest run",\n    "build": "vite build"\n  }\n}',
        [("dev", '"dev": "vite --port 5173"'), ("test", '"test": "vitest run"')],
    ),
    (
        "read",
        "tests/test_sync.py",
        "",
        'import pytest\n\n\n@pytest.mark.parametrize("status", [502, 503])\n'
        "def test_retry_on_gateway_error(status):\n    assert sync(status).retried\n\n\n@pytest.mark.slow\n"
        "def test_full_export():\n    assert export().rows > 0\n",
        [("mark", '@pytest.mark.parametrize("status", [502, 503])'), ("mark", "@pytest.mark.slow")],
    ),
    (
        "read",
        "app/admin.py",
        "",
        "from django.contrib import admin\n\nfrom .models import Order\n\nadmin.site.register(Order)\n",
        [("admin", "from django.contrib import admin"), ("admin", "admin.site.register(Order)")],
    ),
    (
        "shell",
        "npm run dev",
        "",
        "\n> orders-web@2.4.1 dev\n> vite --port 5173\n\n  VITE v5.4.2  ready in 412 ms\n",
        [("dev", "> orders-web@2.4.1 dev")],
    ),
    (
        "shell",
        "npm test",
        "",
        "\n> orders-web@2.4.1 test\n> vitest run\n\n Test Files  12 passed (12)\n",
        [("test", "> orders-web@2.4.1 test")],
    ),
    (
        "read",
        "Dockerfile",
        "",
        "FROM python:3.12-slim\nRUN useradd -m dev\nUSER dev\nWORKDIR /home/dev/app\n"
        "COPY --chown=dev:dev . /home/dev/app\n",
        [("dev", "RUN useradd -m dev"), ("dev", "USER dev"), ("/home/dev", "WORKDIR /home/dev/app")],
    ),
    (
        "read",
        "deploy/ansible/users.yml",
        "",
        "- name: admin keys\n  authorized_key:\n    user: admin\n"
        "    path: /home/admin/.ssh/authorized_keys\n    key: \"{{ lookup('file', 'keys/ops.pub') }}\"\n",
        [("admin", "user: admin"), ("/home/admin", "path: /home/admin/.ssh/authorized_keys")],
    ),
    (
        "assistant",
        "",
        "",
        "I'll mark the flaky test as xfail and restart the dev server; the admin page should load "
        "after that. Then I'll run the test suite again.",
        [
            ("mark", "I'll mark the flaky test"),
            ("dev", "restart the dev server"),
            ("admin", "the admin page"),
            ("test", "run the test suite"),
        ],
    ),
]
# Word-like usernames (the "word" pool) used as ordinary words: removed only if the name eats them.
WORD_USES = {
    "mark": [("code", "# mark the job as done before the ack", "# mark the job as done before the ack")],
    "will": [("prose", "This will retry three times before it gives up.", "This will retry three times")],
    "grant": [
        ("code", "GRANT SELECT ON orders TO reporting;", "GRANT SELECT ON orders TO reporting;"),
        ("prose", "We need to grant the service account read access.", "grant the service account"),
    ],
    "rose": [("prose", "The error rate rose to 4% right after the deploy.", "The error rate rose to 4%")],
    "hope": [
        ("prose", "I hope the cache is warm by then, otherwise the first export is slow.", "I hope the cache")
    ],
}


# -- sessions ----------------------------------------------------------------------------------------
@dataclass
class Plant:
    """A planted place (or harmless snippet) in one session: its text, how to find its records,
    and what must (not) survive there."""

    who: str  # owner | colleague | harmless
    name: str
    signature: str  # a text that only this place's records hold
    tokens: list[tuple[str, bool]] = field(default_factory=list)  # (token, bounded)
    snippets: list[tuple[str, str]] = field(default_factory=list)  # harmless: (word, snippet)
    paths: list[tuple[int, JsonPath, str, str]] = field(default_factory=list)  # (line, path, before, after)
    records: list[int] = field(default_factory=list)


@dataclass
class Built:
    session: Session
    canary: str
    plants: list[Plant]


def _def_tokens(d: PlaceDef, ident: Ident) -> list[tuple[str, bool]]:
    out: dict[tuple[str, bool], None] = {}
    for f in used_fields(d.template):
        for tok in ident.tokens(f):
            out[(tok, not (d.glued and f == "u"))] = None
    return list(out)


def _step(kind: str, text: str, command: str, cwd: str) -> Step:
    if kind == "shell":
        return Step("call", call=Call("shell", {"command": command}, text))
    if kind == "read":
        return Step("call", call=Call("read", {"path": f"{cwd}/{command}"}, text))
    return Step(kind, text=text)


def _place_step(d: PlaceDef, real: Ident, shown: Ident, cwd: str, key: str) -> tuple[Step, Plant, str]:
    assert not used_fields(d.command), d.name
    text = render(d.template, {**shown.fields(), "key": key})
    plant = Plant("", d.name, text, _def_tokens(d, real))
    return _step(d.kind, text, d.command, cwd), plant, text


def _harmless_steps(profile: Profile, cwd: str) -> list[tuple[Step, Plant]]:
    out = []
    for kind, cmd, _, text, snippets in HARMLESS:
        out.append((_step(kind, text, cmd, cwd), Plant("harmless", cmd or "prose", text, snippets=snippets)))
    for ident in (profile.owner, profile.colleague):
        for where, text, snippet in WORD_USES.get(ident.username, []):
            kind = "read" if where == "code" else "assistant"
            full = f"def ack(job):\n    {text}\n    job.ack()\n" if where == "code" else text
            cmd = "app/queue.py" if where == "code" else ""
            out.append(
                (
                    _step(kind, full, cmd, cwd),
                    Plant("harmless", cmd or "prose", full, snippets=[(ident.username, snippet)]),
                )
            )
    return out


def build_session(
    profile: Profile,
    harness: str,
    k: int,
    owner_defs: list[PlaceDef],
    colleague_defs: list[PlaceDef],
    perfect: bool,
    rng: random.Random,
    bulk: Bulk,
    harmless: bool = True,
    envelope: bool = True,
    scored: Callable[[str, str], bool] | None = None,
) -> Built:
    """One session of ``profile`` holding the given places (in order), rendered with the real
    identities, or with placeholders (``perfect``: what an ideal redaction would publish).
    ``envelope``: score the working folder (cwd, the Claude folder name) in this session;
    ``scored(who, name)``: which of the places are scored here (all by default)."""
    o_real, c_real = profile.owner, profile.colleague
    o_shown = o_real.placeholders("OWNER") if perfect else o_real
    c_shown = c_real.placeholders("COLL") if perfect else c_real
    home = ("/Users/" if profile.os == "macos" else "/home/") + o_shown.username
    project = "orders"
    cwd = f"{home}/src/{project}"
    canary = f"identref-{profile.index:02d}-{harness}-{k:03d}"
    keys = {who: fk.b64(random.Random(f"{profile.index}-{who}"), 32)[:43] for who in ("owner", "colleague")}
    steps = [
        Step(
            "user",
            text=f"The nightly order sync fails since this morning, can you look into it? (ref {canary})",
        ),
        Step("assistant", text=prose(rng, 2), thinking=prose(rng, 1)),
    ]
    plants: list[Plant] = []
    extras = _harmless_steps(profile, cwd) if harmless else []
    seq: list[tuple[str, PlaceDef]] = [("owner", d) for d in owner_defs] + [
        ("colleague", d) for d in colleague_defs
    ]
    for i, (who, d) in enumerate(seq):
        real, shown = (o_real, o_shown) if who == "owner" else (c_real, c_shown)
        st, plant, _ = _place_step(d, real, shown, cwd, keys[who])
        plant.who = who
        steps.append(st)
        if scored is None or scored(who, d.name):
            plants.append(plant)
        if i % 4 == 3:
            if extras:
                hst, hp = extras.pop(0)
                steps.append(hst)
                plants.append(hp)
            else:
                path, content = bulk.source_file()
                steps.append(Step("call", call=Call("read", {"path": f"{cwd}/{path}"}, content)))
    for hst, hp in extras:
        steps.append(hst)
        plants.append(hp)
    steps.append(Step("assistant", text="Done. " + prose(rng, 2)))
    start = datetime(2026, 3, 3, 9, 0, tzinfo=UTC) + timedelta(hours=profile.index * 24 + k)
    sid = fk.uuid4(random.Random(f"{profile.index}-{harness}-{k}"))
    s = Session(sid, harness, project, cwd, start, steps)
    # The owner's working folder: where the harness records it, and the Claude project folder's name.
    if envelope:
        plants.append(Plant("owner", "cwd", "", [(o_real.username, True)]))
        if harness == "claude_code":
            plants.append(Plant("owner", "session_folder", "", [(o_real.username, True)]))
    return Built(s, canary, plants)


# -- reading records ---------------------------------------------------------------------------------
def _json_text(value: str) -> Any:
    s = value.strip()
    if len(s) > 1 and s[0] in "{[" and s[-1] in "}]":
        try:
            return orjson.loads(s)
        except orjson.JSONDecodeError:
            pass
    return None


def decoded(value: str) -> list[str]:
    """A string as eval.py reads it: itself, with one and two levels of JSON escapes undone, and
    the strings of the JSON it holds (tool output that is JSON, arguments encoded as a string)."""
    out = [value]
    if "\\" in value:
        once = _unescape(value)
        out.append(once)
        if "\\" in once:
            out.append(_unescape(once))
    inner = _json_text(value)
    if inner is not None:
        for _, leaf in leaves(inner):
            out += decoded(leaf)
    return out


def leaves(value: Any, path: JsonPath = ()) -> list[tuple[JsonPath, str]]:
    """Every string value of a JSON value with its path (keys are structure, not content)."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in leaves(v, (*path, k))]
    if isinstance(value, list):
        return [x for i, v in enumerate(value) for x in leaves(v, (*path, i))]
    return []


def at(value: Any, path: JsonPath) -> Any:
    for step in path:
        value = value[step]
    return value


def load_record(line: str) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return line


def envelope(value: Any, out: list[str], inside: bool = False) -> list[str]:
    """The strings under ``ENVELOPE_KEYS``, at any depth, JSON inside strings included (Codex's
    ``workdir`` is inside the arguments string): where the harness records the working folder."""
    if isinstance(value, str):
        if inside:
            out += decoded(value)
        else:
            inner = _json_text(value)
            if inner is not None:
                envelope(inner, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            envelope(v, out, inside or k in ENVELOPE_KEYS)
    elif isinstance(value, list):
        for v in value:
            envelope(v, out, inside)
    return out


def _in_envelope(path: JsonPath) -> bool:
    return any(step in ENVELOPE_KEYS for step in path)


def _locate(text: str, signature: str) -> tuple[str, str] | None:
    """Where ``signature`` sits in a string: (text before, text after), or None. A short one
    (``whoami``'s "ed\\n") must be the whole string or end Codex's wrapped output
    ("...Output:\\ned\\n"), not a piece of another ("retried\\n")."""
    if len(signature) < 16:
        if text == signature or text.endswith("\n" + signature):
            return text[: len(text) - len(signature)], ""
        return None
    k = text.find(signature)
    return None if k < 0 else (text[:k], text[k + len(signature) :])


def map_records(lines: list[str], plants: list[Plant], harness: str) -> None:
    """Each place's strings: (line, JSON path, text around it) of every string of the source file
    that holds its signature (or Claude's numbered copy of a file read), outside the envelope.
    Output files keep the lines and the shape, so the same path in the output holds what became of
    the place, and the text around it (Codex's "Chunk ID: ...Output:" header) is left out, so a
    short username is not found in "exited". A signature in an unexpected number of lines, or a
    line claimed by two places, is a generator bug and raises."""
    records = [load_record(x) for x in lines]
    strings = [[(path, v) for path, v in leaves(r) if not _in_envelope(path)] for r in records]
    owner_of: dict[int, str] = {}
    for p in plants:
        if not p.signature:
            continue
        variants = [p.signature, numbered(p.signature)]
        p.paths = []
        for i, rs in enumerate(strings):
            for path, v in rs:
                spot = next((x for x in (_locate(v, sig) for sig in variants) if x is not None), None)
                if spot is None and any(_locate(d, p.signature) for d in decoded(v)[1:]):
                    spot = ("", "")  # only in a decoded form: the whole string is the place's
                if spot is not None:
                    p.paths.append((i, path, *spot))
        p.records = sorted({x[0] for x in p.paths})
        # Claude: the tool result line (content and toolUseResult) or the prompt; Codex: the
        # output and exec_command_end, or the response_item and the event_msg of a message.
        expected = 1 if harness == "claude_code" else 2
        if len(p.records) != expected:
            raise RuntimeError(
                f"{harness} {p.who}/{p.name}: signature in {len(p.records)} records, expected {expected}"
            )
        for i in p.records:
            if i in owner_of:
                raise RuntimeError(f"{harness}: record {i} holds both {owner_of[i]} and {p.who}/{p.name}")
            owner_of[i] = f"{p.who}/{p.name}"


def place_text(records: list[Any], paths: list[tuple[int, JsonPath, str, str]]) -> str:
    """What a place's strings hold in ``records`` (an output file's), decoded, without the text
    around the place where that text is unchanged."""
    out = []
    for i, path, before, after in paths:
        try:
            value = at(records[i], path)
        except (KeyError, IndexError, TypeError):
            raise RuntimeError(f"record {i}: no string at {path} in the output") from None
        if not isinstance(value, str):
            raise RuntimeError(f"record {i}: {path} is not a string in the output")
        if before and value.startswith(before):
            value = value[len(before) :]
        if after and value.endswith(after):
            value = value[: len(value) - len(after)]
        out += decoded(value)
    return "\n".join(out)


# -- corpus ------------------------------------------------------------------------------------------
@dataclass
class SessionMeta:
    canary: str
    harness: str
    source: str  # file path relative to the corpus
    plants: list[Plant]
    lines: int


WRITER = {"claude_code": ClaudeWriter, "codex": CodexWriter}


def write_corpus(root: Path, profile: Profile, isolate: bool, perfect: bool = False) -> list[SessionMeta]:
    """Writes the profile's sessions under ``root`` (claude/..., codex/...) and returns where each
    place's records are. The same seeds give the same sessions, perfect or not."""
    metas: list[SessionMeta] = []
    for harness in HARNESSES:
        rng = random.Random(f"sessions-{profile.index}-{harness}")
        bulk = Bulk(random.Random(f"bulk-{profile.index}"))
        writer = WRITER[harness](root, random.Random(f"writer-{profile.index}-{harness}"))
        intro = COLLEAGUE_DEFS[0]
        if isolate:  # (owner places, colleague places, harmless, scored): the intro counted once
            groups: list[tuple[list[PlaceDef], list[PlaceDef], bool, Callable[[str, str], bool] | None]] = [
                ([d], [], False, None) for d in OWNER_DEFS
            ]
            groups += [
                (
                    [],
                    [intro] + ([d] if d is not intro else []),
                    False,
                    (lambda who, name, d=d: name == d.name),
                )
                for d in COLLEAGUE_DEFS
            ]
            groups.append(([], [], True, None))  # the harmless words, in a session of their own
        else:
            groups = [(OWNER_DEFS, COLLEAGUE_DEFS, True, None)]
        for k, (od, cd, harmless, scored) in enumerate(groups):
            built = build_session(profile, harness, k, od, cd, perfect, rng, bulk, harmless, k == 0, scored)
            before = set(root.rglob("*.jsonl"))
            writer.add(built.session)
            new = [p for p in root.rglob("*.jsonl") if p not in before]
            assert len(new) == 1, new
            lines = new[0].read_text(encoding="utf-8").splitlines()
            plants = built.plants
            map_records(lines, plants, harness)
            metas.append(
                SessionMeta(built.canary, harness, new[0].relative_to(root).as_posix(), plants, len(lines))
            )
    return metas


# -- scoring -----------------------------------------------------------------------------------------
@dataclass
class OutSession:
    rel: str  # path under the output folder
    lines: list[str]


def read_sessions(folder: Path) -> dict[str, OutSession]:
    """Output (or any) JSONL files by the canary in their first prompt."""
    out: dict[str, OutSession] = {}
    for path in sorted(folder.rglob("*.jsonl")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        head = "\n".join(lines[:4])
        m = CANARY.search(head)
        if m:
            out[m.group(0)] = OutSession(path.relative_to(folder).as_posix(), lines)
    return out


def _present(text: str, token: str, bounded: bool) -> bool:
    return bool(_bounded(token).search(text)) if bounded else token in text


def survivors(text: str, tokens: Iterable[tuple[str, bool]]) -> list[str]:
    """The planted tokens still in ``text`` once placeholders are taken out."""
    clean = PLACEHOLDER.sub(" ", text)
    return [t for t, b in tokens if _present(clean, t, b)]


@dataclass
class Result:
    """One place in one session: leaked (with the tokens that survived) or redacted."""

    profile: int
    harness: str
    who: str
    place: str
    leaked: list[str]


@dataclass
class Harmless:
    profile: int
    harness: str
    word: str
    snippet: str
    removed: bool


@dataclass
class RunScore:
    results: list[Result] = field(default_factory=list)
    harmless: list[Harmless] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # sessions not found in the output
    review_leaks: list[str] = field(default_factory=list)
    card_leaks: list[str] = field(default_factory=list)


def score_sessions(
    profile: Profile, metas: list[SessionMeta], sources: dict[str, OutSession], outputs: dict[str, OutSession]
) -> RunScore:
    """Scores one profile's output against where its places were planted."""
    sc = RunScore()
    for m in metas:
        out = outputs.get(m.canary)
        if out is None:
            sc.missing.append(m.canary)
            continue
        if len(out.lines) != m.lines:
            raise RuntimeError(f"{out.rel}: {len(out.lines)} lines, the source has {m.lines}")
        records = [load_record(x) for x in out.lines]
        src = [load_record(x) for x in sources[m.canary].lines] if sources else []
        for p in m.plants:
            if p.who == "harmless":
                before, after = place_text(src, p.paths), place_text(records, p.paths)
                for word, snip in p.snippets:
                    removed = after.count(snip) < before.count(snip)
                    sc.harmless.append(Harmless(profile.index, m.harness, word, snip, removed))
                continue
            if p.name == "cwd":
                text = "\n".join(x for r in records for x in envelope(r, []))
            elif p.name == "session_folder":
                text = out.rel
            else:
                text = place_text(records, p.paths)
            sc.results.append(Result(profile.index, m.harness, p.who, p.name, survivors(text, p.tokens)))
    return sc


def _owner_values(profile: Profile) -> list[tuple[str, bool]]:
    o = profile.owner
    return [
        (o.username, True),
        (o.full_name, True),
        (o.email, False),
        (o.host_mac, True),
        (o.host_linux, True),
    ]


_TAG_NAME = re.compile(r"</?[A-Za-z][A-Za-z0-9]*")
_CUT_BEFORE = re.compile(r"^[^\W_]+")
_CUT_AFTER = re.compile(r"[^\W_]+$")


def _context_strings(value: Any, out: list[str], key: str = "") -> list[str]:
    """Every key and string of a review JSON value. A finding's context is cut out of the text
    at a fixed width, so the first word of ``before`` and the last of ``after`` are usually
    pieces ("...exit|ed with code 0"): they are left out, or a username "ed" is found there."""
    if isinstance(value, str):
        if key == "before":
            value = _CUT_BEFORE.sub("", value)
        elif key == "after":
            value = _CUT_AFTER.sub("", value)
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(k)
            _context_strings(v, out, k)
    elif isinstance(value, list):
        for v in value:
            _context_strings(v, out, key)
    return out


def review_text(path: Path) -> str:
    """A review file's text as the check reads it: JSON decoded with context edges cut (above);
    in HTML, the page's CSS and script, the cut words beside a snippet's ellipses and the tag
    names (a username "mark" is not leaked by a ``<mark>`` element) left out."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".html":
        text = re.sub(r"(?s)<(style|script)\b.*?</\1>", " ", text)  # the page's own CSS and code
        text = re.sub(r"…[^\W_]+", "…", text)
        text = re.sub(r"[^\W_]+…</div>", "…</div>", text)
        return _TAG_NAME.sub(" ", text)
    if path.suffix in (".json", ".jsonl"):
        chunks = [text] if path.suffix == ".json" else text.splitlines()
        out: list[str] = []
        for chunk in chunks:
            try:
                _context_strings(orjson.loads(chunk), out)
            except orjson.JSONDecodeError:
                out.append(chunk)
        return "\n".join(out)
    return text


def check_review(out: Path, profile: Profile) -> list[str]:
    """Files under review/ (and manifest.json; placeholder.key excepted) holding owner values in
    clear (``review_text``), one entry per file with the values."""
    leaks = []
    for path in [out / "manifest.json", *sorted((out / "review").rglob("*"))]:
        if not path.is_file() or path.name in SECRET_STORES:
            continue
        text = review_text(path)
        found = [v for v, bounded in _owner_values(profile) if _present(text, v, bounded)]
        if found:
            leaks.append(f"{path.relative_to(out)}: {', '.join(found)}")
    return leaks


def check_card(out: Path, profile: Profile) -> list[str]:
    card = out / "dataset" / "README.md"
    text = card.read_text(encoding="utf-8", errors="replace") if card.is_file() else ""
    return [v for v, b in _owner_values(profile) if _present(text, v, b)]


def self_check(
    work: Path, profile: Profile, isolate: bool, metas: list[SessionMeta], sources: dict[str, OutSession]
) -> None:
    """The scorer must call the unredacted corpus leaked everywhere, and a perfect redaction
    (the same sessions with placeholders) leaked nowhere, with no harmless word removed."""
    raw = score_sessions(profile, metas, sources, sources)
    clean = [r for r in raw.results if not r.leaked]
    if clean or raw.missing:
        raise RuntimeError(
            f"self-check: unredacted places scored redacted: {[(r.who, r.place) for r in clean]}"
            f" missing {raw.missing}"
        )
    perfect_dir = work / "perfect"
    pmetas = write_corpus(perfect_dir, profile, isolate, perfect=True)
    pout = read_sessions(perfect_dir)
    perf = score_sessions(profile, pmetas, pout, pout)
    bad = [(r.harness, r.who, r.place, r.leaked) for r in perf.results if r.leaked]
    if bad or perf.missing or any(h.removed for h in perf.harmless):
        raise RuntimeError(f"self-check: a perfect redaction scored leaks {bad} (missing {perf.missing})")
    if len(perf.results) != len(raw.results):
        raise RuntimeError("self-check: the perfect rendering has other places")


# -- running -----------------------------------------------------------------------------------------
OTHER = fk.FakeUser(
    username="pquinlan", full_name="Pat Quinlan", email="pat.quinlan@kestrel.dev", hostname="build-07"
)


def setting_env(work: Path, profile: Profile, setting: str) -> dict[str, str]:
    """(a): the owner's own fake home and variables; (b): another person's account and host."""
    tokens = fk.fake_user(random.Random(f"tokens-{profile.index}-{setting}")).tokens
    if setting == "a":
        o = profile.owner
        user = fk.FakeUser(o.username, o.full_name, o.email, profile.hostname, tokens)
    else:
        user = replace(OTHER, tokens=tokens)
    _, env = build_home(work / f"env-{setting}", user)
    return env


def run_redact(corpus: Path, out: Path, env: dict[str, str]) -> dict:
    """The real command (``eval.run_redact``: a clean environment, this checkout), one process."""
    return eval_run_redact(corpus, out, env, jobs=1)


@dataclass
class Bench:
    profiles: list[Profile]
    isolate: bool
    scores: dict[str, RunScore] = field(default_factory=lambda: defaultdict(RunScore))  # setting -> merged
    seconds: float = 0.0


def _merge(into: RunScore, sc: RunScore) -> None:
    into.results += sc.results
    into.harmless += sc.harmless
    into.missing += sc.missing
    into.review_leaks += sc.review_leaks
    into.card_leaks += sc.card_leaks


def run(
    work: Path,
    seed: int = 1,
    profiles: int = 2 * len(PAIRS),
    isolate: bool = False,
    jobs: int = 2,
    settings: Iterable[str] = ("a", "b"),
    runner: Callable[[Path, Path, dict[str, str]], dict] = run_redact,
) -> Bench:
    """Generates each profile's corpus, checks the scorer on it, redacts it in each setting and scores."""
    bench = Bench(make_profiles(seed, profiles), isolate)
    tasks = []
    prepared = []
    for p in bench.profiles:
        pdir = work / f"profile-{p.index}"
        corpus = pdir / "corpus"
        metas = write_corpus(corpus, p, isolate)
        sources = read_sessions(corpus)
        self_check(pdir, p, isolate, metas, sources)
        prepared.append((p, pdir, corpus, metas, sources))
        for s in settings:
            tasks.append((p, s, pdir, corpus))
    t0 = time.perf_counter()

    def one(task: tuple[Profile, str, Path, Path]) -> tuple[str, int]:
        p, s, pdir, corpus = task
        runner(corpus, pdir / f"out-{s}", setting_env(pdir, p, s))
        return s, p.index

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = list(pool.map(one, tasks))
    bench.seconds = time.perf_counter() - t0
    by_index = {p.index: (p, pdir, metas, sources) for p, pdir, _, metas, sources in prepared}
    for s, i in done:
        p, pdir, metas, sources = by_index[i]
        out = pdir / f"out-{s}"
        sc = score_sessions(p, metas, sources, read_sessions(out / "dataset"))
        sc.review_leaks = [f"profile {i}: {x}" for x in check_review(out, p)]
        sc.card_leaks = [f"profile {i}: {x}" for x in check_card(out, p)]
        _merge(bench.scores[s], sc)
    return bench


# -- report ------------------------------------------------------------------------------------------
def leaked_places(sc: RunScore, who: str) -> list[str]:
    names = OWNER_PLACES if who == "owner" else COLLEAGUE_PLACES
    bad = {r.place for r in sc.results if r.who == who and r.leaked}
    return [n for n in names if n in bad]


def summary(bench: Bench) -> dict[str, dict[str, Any]]:
    out = {}
    for s, sc in sorted(bench.scores.items()):
        harmless = [h for h in sc.harmless]
        out[s] = {
            "owner_leaked_places": leaked_places(sc, "owner"),
            "owner_leaked_instances": sum(1 for r in sc.results if r.who == "owner" and r.leaked),
            "owner_instances": sum(1 for r in sc.results if r.who == "owner"),
            "colleague_leaked_places": leaked_places(sc, "colleague"),
            "colleague_leaked_instances": sum(1 for r in sc.results if r.who == "colleague" and r.leaked),
            "colleague_instances": sum(1 for r in sc.results if r.who == "colleague"),
            "harmless_removed": sum(h.removed for h in harmless),
            "harmless": len(harmless),
            "review_leaks": sc.review_leaks,
            "card_leaks": sc.card_leaks,
            "missing_sessions": sc.missing,
        }
    return out


def missed(bench: Bench) -> list[str]:
    """What --check fails on. Review leaks count in setting (a) only: in (b) the owner is just
    another person to the tool, and review/ shows other people's data in clear by design."""
    out = []
    for s, m in summary(bench).items():
        if m["owner_leaked_places"]:
            out.append(f"({s}) owner leaked in {len(m['owner_leaked_places'])} places")
        if len(m["colleague_leaked_places"]) > COLLEAGUE_LIMIT:
            out.append(
                f"({s}) colleague leaked in {len(m['colleague_leaked_places'])} of {len(COLLEAGUE_PLACES)} "
                f"places (> {COLLEAGUE_LIMIT})"
            )
        if m["card_leaks"]:
            out.append(f"({s}) owner in the dataset card")
        if s == "a" and m["review_leaks"]:
            out.append(f"({s}) owner in clear under review/ or manifest.json")
        if m["missing_sessions"]:
            out.append(f"({s}) {len(m['missing_sessions'])} sessions missing from the output")
    return out


def _cell(sc: RunScore, who: str, place: str) -> str:
    rs = [r for r in sc.results if r.who == who and r.place == place]
    if not rs:
        return "-"
    n = sum(1 for r in rs if r.leaked)
    return "redacted" if n == 0 else f"**leaked** {n}/{len(rs)}"


def _short(ident: Ident) -> str:
    return f"{ident.full_name} ({ident.username}, {ident.category})"


def render_report(bench: Bench) -> str:
    settings = sorted(bench.scores)
    lines = ["Identities (owner / colleague; owner's home):"]
    for p in bench.profiles:
        lines.append(f"  {p.index}: {_short(p.owner)} / {_short(p.colleague)}; {p.home}, host {p.hostname}")
    lines.append("")
    lines.append(
        "Settings: "
        + "; ".join(f"({s}) {SETTINGS[s]}" for s in settings)
        + f". Cells: sessions where the place leaked, of {len(bench.profiles)} identities x "
        f"{len(HARNESSES)} harnesses."
    )
    lines.append("")
    head = "| who | place | class | " + " | ".join(f"({s})" for s in settings) + " |"
    lines += [head, "|" + "---|" * (3 + len(settings))]
    for who, names in (("owner", OWNER_PLACES), ("colleague", COLLEAGUE_PLACES)):
        for n in names:
            cells = " | ".join(_cell(bench.scores[s], who, n) for s in settings)
            lines.append(f"| {who} | {n} | {PLACE_CLASS[(who, n)]} | {cells} |")
    lines.append("")
    summ = summary(bench)
    lines += [
        "| measure | " + " | ".join(f"({s})" for s in settings) + " | target |",
        "|" + "---|" * (2 + len(settings)),
    ]
    row = lambda label, f, target: lines.append(  # noqa: E731
        f"| {label} | " + " | ".join(f(summ[s]) for s in settings) + f" | {target} |"
    )
    row(
        "owner places leaked",
        lambda m: (
            f"{len(m['owner_leaked_places'])} of {len(OWNER_PLACES)} "
            f"({m['owner_leaked_instances']} of {m['owner_instances']} instances)"
        ),
        "0",
    )
    row(
        "colleague places leaked",
        lambda m: (
            f"{len(m['colleague_leaked_places'])} of {len(COLLEAGUE_PLACES)} "
            f"({m['colleague_leaked_instances']} of {m['colleague_instances']} instances)"
        ),
        f"≤ {COLLEAGUE_LIMIT}",
    )
    row(
        "files with the owner in clear under review/, manifest.json",
        lambda m: str(len(m["review_leaks"])),
        "0 in (a)",
    )
    row("owner in the dataset card", lambda m: str(len(m["card_leaks"])), "0")
    row("harmless words removed", lambda m: f"{m['harmless_removed']} of {m['harmless']}", "0")
    lines.append("")
    lines += [
        "| identity (owner / colleague) | "
        + " | ".join(
            f"({s}) owner leaked | ({s}) colleague leaked | ({s}) harmless removed" for s in settings
        )
        + " |",
        "|---|" + "---|" * (3 * len(settings)),
    ]
    for p in bench.profiles:
        cells = []
        for s in settings:
            sc = bench.scores[s]
            for who, names in (("owner", OWNER_PLACES), ("colleague", COLLEAGUE_PLACES)):
                bad = {r.place for r in sc.results if r.profile == p.index and r.who == who and r.leaked}
                cells.append(f"{len(bad)}/{len(names)}")
            hs = [h for h in sc.harmless if h.profile == p.index]
            cells.append(f"{sum(h.removed for h in hs)}/{len(hs)}")
        lines.append(
            f"| {p.index}: {p.owner.username} / {p.colleague.username} | " + " | ".join(cells) + " |"
        )
    lines.append("")
    for s in settings:
        sc = bench.scores[s]
        lines.append(f"({s}) leaking places by class:")
        classes: dict[str, list[str]] = defaultdict(list)
        for who in ("owner", "colleague"):
            for n in leaked_places(sc, who):
                classes[PLACE_CLASS[(who, n)]].append(f"{who}/{n}")
        if not classes:
            lines.append("  none")
        for k, v in sorted(classes.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"  {k}: {', '.join(v)}")
        removed: dict[str, list[str]] = defaultdict(list)
        for h in sc.harmless:
            if h.removed:
                removed[h.word].append(f"p{h.profile}/{h.harness}: {h.snippet}")
        if removed:
            lines.append(f"({s}) harmless words removed:")
            for w, v in sorted(removed.items()):
                lines.append(f"  {w}: {len(v)}; e.g. {v[0]}")
        if sc.review_leaks:
            lines.append(
                f"({s}) owner values in clear under review/ or manifest.json: {len(sc.review_leaks)}; "
                + "; ".join(sc.review_leaks[:4])
            )
        lines.append("")
    return "\n".join(lines)


def render_details(bench: Bench) -> str:
    """Which identity and harness each leak is in, and which tokens survived (fake values)."""
    lines = ["Leaks by place (profile/harness: surviving tokens):"]
    for s in sorted(bench.scores):
        by: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in bench.scores[s].results:
            if r.leaked:
                by[(r.who, r.place)].append(f"p{r.profile}/{r.harness}: {' '.join(r.leaked)}")
        for (who, place), v in sorted(by.items()):
            lines.append(f"  ({s}) {who}/{place}: {'; '.join(v)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1, help="Seed for the fake identities (default 1).")
    ap.add_argument(
        "--profiles", type=int, default=2 * len(PAIRS), help=f"Fake identities (default {2 * len(PAIRS)})."
    )
    ap.add_argument("--isolate", action="store_true", help="Each place in a session of its own.")
    ap.add_argument("--setting", choices=["a", "b", "both"], default="both")
    ap.add_argument("--jobs", type=int, default=2, help="tracepub runs at a time (each with --jobs 1).")
    ap.add_argument("--keep", type=Path, help="Work in this folder and keep corpora and outputs.")
    ap.add_argument(
        "--details", action="store_true", help="Also list each leak with its identity and tokens."
    )
    ap.add_argument("--check", action="store_true", help="Exit 1 when a target is missed.")
    ap.add_argument("--json", action="store_true", help="Print the summary as JSON.")
    args = ap.parse_args(argv)
    ctx = tempfile.TemporaryDirectory(prefix="tracepub-ident-") if args.keep is None else None
    work = args.keep or Path(ctx.name)  # type: ignore[union-attr]
    work.mkdir(parents=True, exist_ok=True)
    settings = ("a", "b") if args.setting == "both" else (args.setting,)
    try:
        bench = run(work, args.seed, args.profiles, args.isolate, args.jobs, settings)
    finally:
        if ctx is not None:
            ctx.cleanup()
    miss = missed(bench)
    if args.json:
        print(
            json.dumps(
                {
                    "summary": summary(bench),
                    "missed": miss,
                    "places": {
                        s: [r.__dict__ for r in sc.results if r.leaked] for s, sc in bench.scores.items()
                    },
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        print(render_report(bench))
        if args.details:
            print(render_details(bench))
        runs = len(bench.profiles) * len(settings)
        print(
            f"{len(bench.profiles)} identities x {len(HARNESSES)} harnesses"
            f"{' (each place in a session of its own)' if bench.isolate else ''}; {runs} tracepub runs "
            f"({args.jobs} at a time) in {bench.seconds:.1f} s."
        )
        print("All targets met." if not miss else "Targets missed: " + "; ".join(miss))
    return 1 if args.check and miss else 0


if __name__ == "__main__":
    sys.exit(main())
