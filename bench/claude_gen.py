"""A minimal generator of realistic Claude Code sessions, for the throughput benchmark.

Stands in until ``bench/corpus.py`` (the labelled multi-harness corpus) lands; throughput.py
switches to it with ``--corpus corpus``. What it imitates, because that is what makes traces
slow or fast to scan: the envelope every line carries (uuids, timestamps, cwd with the user's
home folder), prose (prompts, answers, thinking), code file reads in ``cat -n`` form, tool
output duplicated in ``toolUseResult``, lock files full of hashes, logs with IPs and
timestamps, ``git log`` with names and emails, diffs, test output, base64 images, and planted
secrets and personal data at a realistic rate (a few per megabyte).

Text is cut from large pools of generated lines at random offsets, so strings are distinct
(the engine's cache sees only the repetition real traces have) while generation stays fast.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Iterator
from pathlib import Path

import orjson

from tracepub.fakes import expand

USER = "jdoe"
USER_NAME = "Jane Doe"
USER_EMAIL = "jane.doe@acme-corp.dev"
HOME = f"/home/{USER}"

_WORDS = (
    "the a to of and in is it that for this we on with be as can not are if function file test "
    "value error config request response server client data user model cache build run update "
    "change fix add remove check return call use need should would could will first then also "
    "because when where which while after before into from about through instead only just "
    "handler route module package import export class method field type interface schema query "
    "index table column row migration deploy release version branch commit merge review issue "
    "token session auth login logout rate limit retry timeout queue worker job task event stream "
    "buffer parse encode decode serialize validate format render template component state props "
    "hook effect context store reducer action dispatch selector middleware endpoint payload"
).split()
_NOUNS = "user order invoice payment session token account item cart report job task event metric".split()
_VERBS = "get load fetch build parse render update create delete validate compute resolve handle".split()
_TYPES = "str int bool dict list float bytes None Any".split()
_PEOPLE = [
    "Alice Johnson",
    "Bob Martinez",
    "Carol Nguyen",
    "David Okafor",
    "Emma Schmidt",
    "Farid Haddad",
    "Grace Liu",
    "Henrik Larsen",
    "Isabel Costa",
    "Jun Tanaka",
]
_DOMAINS = ["example.com", "acme-corp.dev", "mail.example.org", "contoso.io"]
_PKGS = (
    "react react-dom lodash express axios typescript eslint prettier jest webpack babel-core "
    "chalk commander debug ms semver uuid zod vite rollup esbuild postcss tailwindcss "
    "next vue svelte mocha chai sinon nock supertest dotenv cors helmet morgan"
).split()
_PROJECTS = ["acme-api", "billing-service", "web-dashboard", "data-pipeline", "infra"]
_LEVELS = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"]


def _ident(rng: random.Random) -> str:
    return f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}"


_TECH = [
    "React",
    "Python",
    "TypeScript",
    "PostgreSQL",
    "Redis",
    "GitHub",
    "Docker",
    "Express",
    "Pydantic",
    "SQLAlchemy",
    "Celery",
    "Tailwind",
    "Playwright",
    "Vite",
    "Jest",
    "FastAPI",
    "Kubernetes",
    "Terraform",
]
_TEMPLATES = [
    "I'll {verb} the `{ident}` {noun} in `src/{noun}s/{ident}.py` so that the {noun} {verb}s once.",
    "The {noun} {verb}s every {noun} before the {noun} is written, which is why the test fails.",
    "Let me check how the {noun} handler builds the {noun} first.",
    "Now I need to {verb} the {noun} and run the tests again.",
    "This {verb}s the {noun} when the {noun} cache is empty.",
    "Looking at the {tech} docs, the {noun} option has to be set on the {noun}.",
    "{tech} expects the {noun} to be a string here, not a list.",
    "All {n} tests pass now; the {noun} {noun} was the problem.",
    "The fix: move the `{ident}()` call after the {noun} is loaded.",
    "Good catch. The {noun} was never closed, so the {noun} leaked on every retry.",
    "I see the issue: `{ident}` returns None when the {noun} is missing.",
    "We should keep the {noun} in memory and flush it after {n} {noun}s.",
]


def _prose_sentence(rng: random.Random) -> str:
    return rng.choice(_TEMPLATES).format(
        verb=rng.choice(_VERBS),
        noun=rng.choice(_NOUNS),
        ident=_ident(rng),
        tech=rng.choice(_TECH),
        n=rng.randint(2, 400),
    )


def _sentence(rng: random.Random, lo: int = 6, hi: int = 22) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), f"`{_ident(rng)}()`")
    return " ".join(words).capitalize() + rng.choice(".....?!:")


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choices("0123456789abcdef", k=n))


def _uuid(rng: random.Random) -> str:
    h = _hex(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def _email(rng: random.Random) -> str:
    first, last = rng.choice(_PEOPLE).lower().split()
    return f"{first}.{last}@{rng.choice(_DOMAINS)}"


def _code_lines(rng: random.Random, n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        name, noun, arg = _ident(rng), rng.choice(_NOUNS), rng.choice(_NOUNS) + "_id"
        t = rng.choice(_TYPES)
        if rng.random() < 0.5:
            out += [
                f"def {name}(self, {arg}: {t}, *, timeout: float = {rng.randint(1, 60)}.0) -> {t}:",
                f'    """{_sentence(rng)}"""',
                f"    {noun} = self._{noun}s.get({arg})",
                f"    if {noun} is None:",
                f'        raise KeyError(f"unknown {noun}: {{{arg}}}")',
                f'    log.debug("{name} %s took %.2fms", {arg}, {rng.random() * 100:.2f})',
                f"    return {noun}.{rng.choice(_VERBS)}(limit={rng.randint(1, 500)})",
                "",
            ]
        else:
            out += [
                f"export async function {name.replace('_', '')}({arg}: string): Promise<{noun.title()}> {{",
                f"  // {_sentence(rng)}",
                f"  const res = await fetch(`${{API_BASE}}/{noun}s/${{{arg}}}`, {{ method: 'GET' }});",
                f"  if (!res.ok) throw new Error(`{name} failed: ${{res.status}}`);",
                f"  return (await res.json()) as {noun.title()};",
                "}",
                "",
            ]
    return out


def _lock_lines(rng: random.Random, n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        pkg = rng.choice(_PKGS) + rng.choice(["", "-utils", "-core", "-plugin", "-parser"])
        ver = f"{rng.randint(0, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 20)}"
        integrity = base64.b64encode(rng.randbytes(64)).decode()
        out += [
            f'    "node_modules/{pkg}": {{',
            f'      "version": "{ver}",',
            f'      "resolved": "https://registry.npmjs.org/{pkg}/-/{pkg}-{ver}.tgz",',
            f'      "integrity": "sha512-{integrity}",',
            f'      "dev": {rng.choice(["true", "false"])}',
            "    },",
        ]
        if rng.random() < 0.3:
            out.append(
                f'name = "{pkg}"\nversion = "{ver}"\nfiles = [\n    {{file = "{pkg}-{ver}.tar.gz", '
                f'hash = "sha256:{_hex(rng, 64)}"}},\n]'
            )
    return out


def _log_lines(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        ts = (
            f"2026-03-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
            f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z"
        )
        ip = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        kind = rng.random()
        if kind < 0.5:
            out.append(
                f"{ts} {rng.choice(_LEVELS):5} [http] {rng.choice(['GET', 'POST', 'PUT'])} "
                f"/api/v1/{rng.choice(_NOUNS)}s/{rng.randint(1, 99999)} {rng.choice([200, 200, 201, 404, 500])} "
                f"{rng.randint(1, 900)}ms ip={ip} req={_uuid(rng)}"
            )
        elif kind < 0.8:
            out.append(
                f"{ts} {rng.choice(_LEVELS):5} [worker-{rng.randint(1, 8)}] {_sentence(rng, 4, 12)} "
                f"job={_hex(rng, 12)} attempt={rng.randint(1, 5)}"
            )
        else:
            out.append(
                f"  at {_ident(rng)} ({HOME}/src/{rng.choice(_PROJECTS)}/src/{rng.choice(_NOUNS)}.ts:"
                f"{rng.randint(1, 400)}:{rng.randint(1, 80)})"
            )
    return out


def _git_lines(rng: random.Random, n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        who = rng.random()
        if who < 0.4:
            name, email = USER_NAME, USER_EMAIL
        else:
            name = rng.choice(_PEOPLE)
            email = _email(rng)
        out += [
            f"commit {_hex(rng, 40)}",
            f"Author: {name} <{email}>",
            f"Date:   {rng.choice(['Mon', 'Tue', 'Wed', 'Thu', 'Fri'])} Mar {rng.randint(1, 28)} "
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} 2026 +0100",
            "",
            f"    {_sentence(rng, 3, 10)}",
            "",
        ]
    return out


def _diff_lines(rng: random.Random, code: list[str], n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        path = f"src/{rng.choice(_NOUNS)}/{_ident(rng)}.py"
        start = rng.randint(1, 400)
        out += [
            f"diff --git a/{path} b/{path}",
            f"index {_hex(rng, 7)}..{_hex(rng, 7)} 100644",
            f"--- a/{path}",
            f"+++ b/{path}",
            f"@@ -{start},7 +{start},8 @@ def {_ident(rng)}",
        ]
        i = rng.randrange(len(code) - 10)
        for line in code[i : i + 8]:
            out.append(rng.choice([" ", " ", " ", "-", "+"]) + line)
    return out


def _misc_lines(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        k = rng.random()
        if k < 0.35:
            out.append(
                f"tests/test_{_ident(rng)}.py::test_{_ident(rng)} "
                f"{rng.choice(['PASSED', 'PASSED', 'PASSED', 'FAILED', 'SKIPPED'])} [{rng.randint(0, 100):3d}%]"
            )
        elif k < 0.6:
            out.append(
                f"-rw-r--r--  1 {USER} staff {rng.randint(100, 99999):6d} Mar {rng.randint(1, 28):2d} "
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {_ident(rng)}.{rng.choice(['py', 'ts', 'json', 'md'])}"
            )
        elif k < 0.8:
            out.append(
                f"{HOME}/src/{rng.choice(_PROJECTS)}/src/{rng.choice(_NOUNS)}/{_ident(rng)}.py:"
                f"{rng.randint(1, 500)}:    {rng.choice(_VERBS)}_{rng.choice(_NOUNS)}()"
            )
        else:
            out.append(
                f"added {rng.randint(1, 900)} packages, and audited {rng.randint(100, 2000)} packages in "
                f"{rng.randint(1, 30)}s"
            )
    return out


# Planted values: what redaction exists for. (template, weight)
_PLANTS = [
    ("GITHUB_TOKEN={{github:ghp}}", 3),
    ("aws_access_key_id = AKIA{{b32:16}}\naws_secret_access_key = {{b64:40}}", 2),
    ("OPENAI_API_KEY=sk-proj-{{alnum:48}}", 2),
    ("DATABASE_URL=postgres://app:{{alnum:16}}@db.internal.acme-corp.dev:5432/app", 2),
    ('password = "{{alnum:14}}"', 2),
    ("//registry.npmjs.org/:_authToken={{npm}}", 1),
    ("HF_TOKEN=hf_{{alpha:34}}", 1),
    ("contact: {email} or {phone}", 3),
    ("card on file: {card}", 1),
    ("ssh deploy@{ip} -i {home}/.ssh/id_ed25519", 2),
    ("/home/{other}/projects/notes.md", 2),
]


class Pools:
    """Large pools of generated lines; outputs are windows cut from them at random offsets."""

    def __init__(self, rng: random.Random):
        self.code = _code_lines(rng, 40_000)
        self.lock = _lock_lines(rng, 20_000)
        self.log = _log_lines(rng, 30_000)
        self.git = _git_lines(rng, 12_000)
        self.diff = _diff_lines(rng, self.code, 12_000)
        self.misc = _misc_lines(rng, 20_000)
        self.prose = [_prose_sentence(rng) if rng.random() < 0.8 else _sentence(rng) for _ in range(30_000)]

    @staticmethod
    def window(rng: random.Random, pool: list[str], lo: int, hi: int) -> list[str]:
        n = min(len(pool) - 1, int(rng.triangular(lo, hi, lo + (hi - lo) / 5)))
        i = rng.randrange(len(pool) - n)
        return pool[i : i + n]


def _plant(rng: random.Random) -> str:
    tpl = rng.choices([p for p, _ in _PLANTS], [w for _, w in _PLANTS])[0]
    values = {
        "email": _email(rng),
        "phone": f"+1 (415) 555-{rng.randint(1000, 9999)}",
        "card": expand("{{luhn:4}}", rng),
        "ip": f"203.0.113.{rng.randint(1, 254)}",
        "home": HOME,
        "other": rng.choice(["mkowalski", "sarah_k", "tbrown", "priya.r"]),
    }
    for name, value in values.items():
        tpl = tpl.replace("{" + name + "}", value)
    return expand(tpl, rng)


class Session:
    """Writes one session, line by line, until it reaches about ``target`` bytes."""

    def __init__(self, rng: random.Random, pools: Pools, project: str):
        self.rng, self.p = rng, pools
        self.session_id = _uuid(rng)
        self.cwd = f"{HOME}/src/{project}"
        self.parent: str | None = None
        self.t = rng.randint(0, 10**6)
        self.slug = "-".join(rng.choice(_WORDS) for _ in range(3))
        self.branch = rng.choice(["main", "feat/rate-limit", "fix/auth-timeout", "chore/deps"])

    def _env(self, kind: str, **fields) -> dict:
        uid = _uuid(self.rng)
        self.t += self.rng.randint(1, 40_000)
        s = self.t // 1000
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.74",
            "gitBranch": self.branch,
            "slug": self.slug,
            "type": kind,
            **fields,
            "uuid": uid,
            "timestamp": f"2026-03-{1 + s // 86400 % 28:02d}T{s // 3600 % 24:02d}:{s // 60 % 60:02d}:"
            f"{s % 60:02d}.{self.t % 1000:03d}Z",
        }
        self.parent = uid
        return rec

    def _assistant(self, block: dict, stop: str | None) -> dict:
        r = self.rng
        msg = {
            "model": "claude-opus-4-6",
            "id": "msg_01" + "".join(r.choices(string.ascii_letters + string.digits, k=22)),
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": r.randint(1, 9),
                "cache_creation_input_tokens": r.randint(0, 5000),
                "cache_read_input_tokens": r.randint(0, 90000),
                "cache_creation": {
                    "ephemeral_5m_input_tokens": r.randint(0, 5000),
                    "ephemeral_1h_input_tokens": 0,
                },
                "output_tokens": r.randint(10, 2000),
                "service_tier": "standard",
            },
        }
        return self._env(
            "assistant",
            message=msg,
            requestId="req_011C" + "".join(r.choices(string.ascii_letters + string.digits, k=20)),
        )

    def _prose(self, lo: int, hi: int) -> str:
        r = self.rng
        text = " ".join(self.p.window(r, self.p.prose, lo, hi))
        if r.random() < 0.1:
            text += f" {r.choice(_PEOPLE)} asked about this in the review."
        if r.random() < 0.05:
            text += f" Thanks, {r.choice(_PEOPLE).split()[0]}!"
        if r.random() < 0.1:
            text += f" Ping {_email(r)} if it breaks."
        return text

    def _tool_output(self) -> tuple[str, str, dict, str]:
        """(tool name, tool_result text, toolUseResult, input)."""
        r, p = self.rng, self.p
        kind = r.choices(
            ["read", "bash_log", "bash_git", "bash_diff", "bash_misc", "lock", "edit", "grep"],
            [22, 12, 8, 8, 12, 8, 18, 12],
        )[0]
        path = f"{self.cwd}/src/{r.choice(_NOUNS)}/{_ident(r)}.{r.choice(['py', 'ts'])}"
        if kind in ("read", "lock"):
            if kind == "lock":
                path = f"{self.cwd}/package-lock.json"
            lines = p.window(r, p.lock if kind == "lock" else p.code, 20, 900)
            if r.random() < 0.04:
                lines = [*lines[: len(lines) // 2], _plant(r), *lines[len(lines) // 2 :]]
            start = r.randint(1, 200)
            content = "\n".join(lines)
            numbered = "\n".join(f"{start + i:>6}\u2192{line}" for i, line in enumerate(lines))
            tur = {
                "type": "text",
                "file": {
                    "filePath": path,
                    "content": content,
                    "numLines": len(lines),
                    "startLine": start,
                    "totalLines": start + len(lines) + r.randint(0, 300),
                },
            }
            return "Read", numbered, tur, path
        if kind == "edit":
            lines = p.window(r, p.code, 40, 700)
            i = r.randrange(max(1, len(lines) - 6))
            old, new = (
                "\n".join(lines[i : i + 3]),
                "\n".join(lines[i : i + 3]) + "\n" + _sentence(r).replace(" ", "_"),
            )
            original = "\n".join(lines)
            text = (
                f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the "
                f"edited file:\n"
                + "\n".join(f"{i + j + 1:>6}\u2192{ln}" for j, ln in enumerate(lines[i : i + 8]))
            )
            tur = {
                "filePath": path,
                "oldString": old,
                "newString": new,
                "originalFile": original,
                "structuredPatch": [
                    {
                        "oldStart": i + 1,
                        "oldLines": 3,
                        "newStart": i + 1,
                        "newLines": 4,
                        "lines": [" " + ln for ln in lines[i : i + 3]] + ["+" + new.rsplit("\n", 1)[-1]],
                    }
                ],
                "userModified": False,
                "replaceAll": False,
            }
            return "Edit", text, tur, path
        pool = {
            "bash_log": p.log,
            "bash_git": p.git,
            "bash_diff": p.diff,
            "bash_misc": p.misc,
            "grep": p.misc,
        }[kind]
        lines = p.window(r, pool, 5, 400)
        if r.random() < 0.06:
            lines = [*lines[: len(lines) // 2], _plant(r), *lines[len(lines) // 2 :]]
        out = "\n".join(lines)
        cmd = {
            "bash_log": "tail -n 400 logs/app.log",
            "bash_git": "git log -n 30",
            "bash_diff": "git diff HEAD~1",
            "bash_misc": "pytest -q",
            "grep": "rg -n TODO src",
        }[kind]
        return "Bash", out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}, cmd

    def lines(self, target: int) -> Iterator[bytes]:
        r = self.rng
        size = 0
        yield (
            line := orjson.dumps(
                {
                    "type": "file-history-snapshot",
                    "messageId": _uuid(r),
                    "snapshot": {
                        "messageId": _uuid(r),
                        "trackedFileBackups": {},
                        "timestamp": "2026-03-12T13:17:35.480Z",
                    },
                    "isSnapshotUpdate": False,
                }
            )
        )
        size += len(line)
        while size < target:
            for line in self._turn():
                size += len(line) + 1
                yield line
        yield orjson.dumps({"type": "summary", "summary": _sentence(r, 3, 8), "leafUuid": self.parent})

    def _turn(self) -> Iterator[bytes]:
        r = self.rng
        content: object = self._prose(1, 6)
        if r.random() < 0.08:
            content = [
                {"type": "text", "text": content},
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": base64.b64encode(r.randbytes(r.randint(2000, 60000))).decode(),
                    },
                },
            ]
        yield orjson.dumps(self._env("user", message={"role": "user", "content": content}))
        for _ in range(r.randint(1, 8)):
            if r.random() < 0.5:
                sig = base64.b64encode(r.randbytes(r.randint(200, 900))).decode()
                yield orjson.dumps(
                    self._assistant(
                        {"type": "thinking", "thinking": self._prose(2, 14), "signature": sig}, None
                    )
                )
            name, text, tur, arg = self._tool_output()
            tid = "toolu_01" + "".join(r.choices(string.ascii_letters + string.digits, k=22))
            inp = (
                {"command": arg, "description": _sentence(r, 3, 6)} if name == "Bash" else {"file_path": arg}
            )
            if name == "Edit":
                inp = {"file_path": arg, "old_string": tur["oldString"], "new_string": tur["newString"]}
            yield orjson.dumps(
                self._assistant({"type": "tool_use", "id": tid, "name": name, "input": inp}, "tool_use")
            )
            yield orjson.dumps(
                self._env(
                    "user",
                    message={
                        "role": "user",
                        "content": [
                            {"tool_use_id": tid, "type": "tool_result", "content": text, "is_error": False}
                        ],
                    },
                    toolUseResult=tur,
                )
            )
        yield orjson.dumps(self._assistant({"type": "text", "text": self._prose(2, 25)}, "end_turn"))


def generate(dest: Path, size: int, seed: int = 1, single_file: bool = False) -> int:
    """Write Claude Code sessions under ``dest/projects/`` until about ``size`` bytes; returns bytes."""
    rng = random.Random(seed)
    pools = Pools(rng)
    total = 0
    n = 0
    while total < size:
        project = rng.choice(_PROJECTS)
        folder = dest / "projects" / ("-home-" + USER + "-src-" + project)
        folder.mkdir(parents=True, exist_ok=True)
        # Real sessions range from kilobytes to tens of megabytes; most are small, a few large.
        target = size - total if single_file else min(size - total, int(rng.lognormvariate(14.2, 1.0)))
        session = Session(rng, pools, project)
        path = folder / f"{session.session_id}.jsonl"
        with open(path, "wb") as fh:
            for line in session.lines(max(target, 20_000)):
                fh.write(line + b"\n")
        total += path.stat().st_size
        n += 1
    return total
