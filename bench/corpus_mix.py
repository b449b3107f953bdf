"""The realistic mix of every harness that ``bench/throughput.py --corpus mix`` times.

    python bench/corpus_mix.py OUT --size 50MB [--seed 1]

The bench default (bench/claude_gen.py) is long Claude Code lines in a few large files, whose
findings are mostly one exact username. Real traces are not shaped like that, and what makes
a redactor slow on them is per-line, per-string and per-session cost, phone numbers and
people's names in prose, and the stores that are not JSONL. This corpus imitates them:

- the six harnesses whose sessions a developer has on disk: Claude Code, Codex, pi and Gemini
  CLI as JSONL files, OpenCode and Hermes as one SQLite store each (bench/corpus_formats.py's
  writers), Claude Code and Codex weighted heavier (corpus_formats.WEIGHTS), as in real use;
- hundreds of small sessions (sizes lognormal, ~140 KB on average), short lines (~3 KB);
- tool output cut from bench/claude_gen.py's pools (code reads and edits, logs, git log, diffs,
  test output, lock files, grep) and bench/corpus_bulk.py's (source files, test and install
  logs, diffs), so strings are distinct and the engine's cache sees only real repetition;
- at realistic rates: a few people's names and about one phone number per session, in prompts,
  answers and tool output; about 2.5 secrets of common kinds per MB (labelled, so that
  bench/peers.py can count what each tool leaves); the user's own name, email and home folder
  where a real trace has them (every cwd, git log, ls), and no tokens of theirs.

Writes ``OUT/corpus/`` (the sessions as each harness stores them), ``OUT/home/jdoe/`` (the fake
user's git config and credential files, bench/corpus.py's ``build_home``: the identity harvest
reads them), ``OUT/env.json`` (the environment to run tracepub with), ``OUT/labels.jsonl`` (one
line per planted value: session, harness, kind ``secret`` or ``pii``, type, value) and
``OUT/sessions.jsonl`` (session, harness, file relative to ``OUT/corpus`` and its bytes for the
JSONL harnesses). The same seed and size give the same corpus, byte for byte in every JSONL
file and row for row in the stores.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src" if (HERE.parent / "src").is_dir() else HERE.parent))

import claude_gen  # noqa: E402
import corpus_fake as fk  # noqa: E402
from corpus import build_home, parse_size  # noqa: E402
from corpus_bulk import Bulk, git_diff, npm_install_log, pytest_output  # noqa: E402
from corpus_formats import (  # noqa: E402
    WEIGHTS,
    Call,
    ClaudeWriter,
    CodexWriter,
    GeminiWriter,
    HermesDbWriter,
    OpenCodeDbWriter,
    PiWriter,
    Session,
    Step,
    Writer,
)

from tracepub.fakes import expand  # noqa: E402

MIX_WRITERS: list[type[Writer]] = [
    ClaudeWriter,
    CodexWriter,
    PiWriter,
    GeminiWriter,
    OpenCodeDbWriter,
    HermesDbWriter,
]
HARNESSES = [w.harness for w in MIX_WRITERS]
_TOP = {"claude_code": "claude", "codex": "codex", "pi": "pi", "gemini": "gemini"}  # a JSONL harness's folder
# The files each generator module writes with: the cache key of a generated corpus (throughput.py),
# so that a change to any of them makes a new corpus instead of timing a stale one.
SOURCES = [
    "corpus_mix.py",
    "corpus_formats.py",
    "corpus_bulk.py",
    "corpus_fake.py",
    "claude_gen.py",
    "corpus.py",
]

SECRETS_PER_MB = 5.0  # of step text: ~2.5 per MB on disk (envelopes, tool output written twice)
SESSION_MU, SESSION_SIGMA = 10.75, 0.8  # lognormal text budget per session: median ~47 KB of step text
PHONE_P, NAME_P = 0.05, 0.15  # per prose step: with the fixtures, ~0.8 phones and ~2.4 names a session

# Common kinds, as they are shaped (fakes.expand templates): (type, variable name, template).
SECRET_KINDS: list[tuple[str, str, str]] = [
    ("github_token", "GITHUB_TOKEN", "{{github:ghp}}"),
    ("github_fine_grained_pat", "GH_TOKEN", "github_pat_{{alnum:22}}_{{alnum:59}}"),
    ("aws_access_key_id", "AWS_ACCESS_KEY_ID", "AKIA{{b32:16}}"),
    ("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "{{b64:40}}"),
    ("openai_api_key", "OPENAI_API_KEY", "sk-proj-{{b64url:74}}T3BlbkFJ{{b64url:74}}"),
    ("anthropic_api_key", "ANTHROPIC_API_KEY", "sk-ant-api03-{{b64url:93}}AA"),
    ("slack_bot_token", "SLACK_BOT_TOKEN", "xoxb-{{digits:12}}-{{digits:13}}-{{alnum:24}}"),
    ("stripe_secret_key", "STRIPE_SECRET_KEY", "sk_live_{{alnum:24}}"),
    ("google_api_key", "GOOGLE_API_KEY", "AIza{{b64url:35}}"),
    ("huggingface_token", "HF_TOKEN", "hf_{{alpha:34}}"),
    ("npm_token", "NPM_TOKEN", "{{npm}}"),
    ("sendgrid_api_key", "SENDGRID_API_KEY", "SG.{{b64url:22}}.{{b64url:43}}"),
    ("jwt", "SESSION_TOKEN", "{{jwt}}"),
    ("database_password", "DB_PASSWORD", "{{alnum:10}}-{{alnum:8}}"),
    ("private_key", "", ""),
]

_ASK = [
    "The {a} tests fail after the last merge, can you look?",
    "Can you make the {a} handler retry on timeouts?",
    "Why is the {a} job so slow on large inputs?",
    "Please add a test for the empty {a} case.",
    "Refactor the {a} module, it has grown too big.",
    "The CI build fails on the {a} step, here is what I see.",
]
_NAME_LINES = [
    "{name} asked for this in the review, so keep the old behaviour behind a flag.",
    "Thanks {name}, that fixed it.",
    "Can you send the summary to {name} when it's done?",
    "{name} owns the {a} service; ask before changing its schema.",
    "The failing test was added by {name} in the last refactor.",
    "I paired with {name} on this yesterday and we suspected the cache.",
]
_PHONE_LINES = [
    "If the deploy breaks, call me at {phone}.",
    "The customer {name} called from {phone} about the failed refund.",
    "{name}'s number for the on-call handover is {phone}.",
    "Text {phone} when the migration is done.",
]


@dataclass
class Mix:
    """Builds the steps of one session and labels what it plants."""

    rng: random.Random
    user: fk.FakeUser
    pools: claude_gen.Pools
    bulk: Bulk
    labels: list[dict] = dataclasses.field(default_factory=list)
    queue: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)  # secret kinds still to come
    session: str = ""
    harness: str = ""
    cwd: str = ""

    def label(self, kind: str, type_: str, value: str) -> str:
        self.labels.append(
            {"session": self.session, "harness": self.harness, "kind": kind, "type": type_, "value": value}
        )
        return value

    # -- text ------------------------------------------------------------------------------------
    def prose(self, lo: int, hi: int) -> str:
        return " ".join(self.pools.window(self.rng, self.pools.prose, lo, hi))

    def window(self, pool: list[str], lo: int, hi: int) -> str:
        return "\n".join(self.pools.window(self.rng, pool, lo, hi))

    def person(self) -> str:
        return self.label("pii", "pii.person", fk.person(self.rng))

    def phone(self) -> str:
        return self.label("pii", "pii.phone", fk.phone(self.rng))

    def name_line(self) -> str:
        r = self.rng
        return r.choice(_NAME_LINES).format(name=self.person(), a=r.choice(claude_gen._NOUNS))

    def phone_line(self) -> str:
        line = self.rng.choice(_PHONE_LINES)  # a name is drawn (and labelled) only where one is written
        return line.format(name=self.person() if "{name}" in line else "", phone=self.phone())

    def with_people(self, text: str) -> str:
        """Prose, now and then with a person's name or a phone number in it."""
        r = self.rng
        if r.random() < NAME_P:
            text = f"{text} {self.name_line()}" if r.random() < 0.7 else f"{self.name_line()} {text}"
        if r.random() < PHONE_P:
            text = f"{text} {self.phone_line()}"
        return text

    # -- secrets ---------------------------------------------------------------------------------
    def secret(self, one_line: bool = False) -> tuple[str, str, str]:
        """(type, variable name, value) of a fresh secret, labelled. The kinds come round in turn
        (shuffled each round), so that a small slice of the corpus still holds every kind."""
        if one_line:
            type_, env, template = self.rng.choice(SECRET_KINDS[:-1])
        else:
            if not self.queue:
                self.queue = self.rng.sample(SECRET_KINDS, len(SECRET_KINDS))
            type_, env, template = self.queue.pop()
        if type_ == "private_key":
            value = fk.pem_body(self.rng, "MIIEowIBAAKCAQEA", self.rng.choice([1190, 1216]))
            env = "PRIVATE_KEY"
        else:
            value = expand(template, self.rng)
        return type_, env, self.label("secret", f"secret.{type_}", value)

    def secret_step(self) -> Step:
        r = self.rng
        type_, env, value = self.secret()
        if type_ == "private_key":
            pem = f"-----BEGIN RSA PRIVATE KEY-----\n{value}\n-----END RSA PRIVATE KEY-----"
            if r.random() < 0.5:
                return Step("user", text=f"is this deploy key still the right one?\n{pem}")
            return self.call("read", pem + "\n", path=f"{self.cwd}/deploy/id_rsa")
        if type_ == "database_password":
            url = f"postgres://app:{value}@db.{r.choice(['internal', 'staging'])}.acme-corp.dev:5432/app"
            if r.random() < 0.5:
                return self.call(
                    "shell", "Migrations applied: 3", command=f"DATABASE_URL={url} npm run migrate"
                )
            return self.call(
                "read", f"PORT=8080\nDATABASE_URL={url}\nLOG_LEVEL=debug\n", path=f"{self.cwd}/.env"
            )
        choice = r.randrange(6)
        if choice == 0:  # an env file read, two secrets or one among harmless settings
            lines = ["PORT=8080", "NODE_ENV=development", f"{env}={value}", "LOG_LEVEL=info"]
            if r.random() < 0.4:
                _, env2, value2 = self.secret(one_line=True)
                lines.insert(2, f"{env2}={value2}")
            return self.call(
                "read", "\n".join(lines) + "\n", path=f"{self.cwd}/{r.choice(['.env', '.env.local'])}"
            )
        if choice == 1:
            return self.call(
                "shell", "> deploy\nDeployed in 38s", command=f"export {env}={value} && npm run deploy"
            )
        if choice == 2:
            cmd = f'curl -sS -H "Authorization: Bearer {value}" https://api.acme-corp.dev/v1/{r.choice(claude_gen._NOUNS)}s'
            return self.call("shell", json.dumps({"ok": True, "items": []}), command=cmd)
        if choice == 3:
            body = f'import os\n\nclient = Client(\n    api_key="{value}",\n    timeout=30,\n)\n'
            return self.call("write", "", path=f"{self.cwd}/scripts/smoke.py", content=body)
        if choice == 4:
            return Step(
                "user", text=f"{r.choice(['use this key for the test run:', 'the staging token is'])} {value}"
            )
        text = f"settings:\n  region: eu-north-1\n  {env.lower()}: {value}\n  retries: 3\n"
        return self.call("read", text, path=f"{self.cwd}/config/{r.choice(['local', 'staging'])}.yml")

    # -- tool calls ------------------------------------------------------------------------------
    def call(self, kind: str, output: str, **args: object) -> Step:
        return Step("call", call=Call(kind, dict(args), output))

    def tool_step(self) -> Step:
        r, p = self.rng, self.pools
        src = f"{self.cwd}/src/{r.choice(claude_gen._NOUNS)}/{claude_gen._ident(r)}.{r.choice(['py', 'ts'])}"
        k = r.random()
        if k < 0.24:  # a file read
            return self.call("read", self.window(p.code, 12, 300), path=src)
        if k < 0.36:
            path, content = self.bulk.source_file()
            return self.call("read", content, path=f"{self.cwd}/{path}")
        if k < 0.50:  # an edit: old and new strings, the original file beside them (Claude Code)
            lines = p.window(r, p.code, 30, 300)
            i = r.randrange(max(1, len(lines) - 4))
            old = "\n".join(lines[i : i + 3])
            return self.call("edit", "", path=src, old=old, new=old + "  # fixed", original="\n".join(lines))
        if k < 0.60:
            return self.call("shell", self.window(p.log, 5, 260), command="tail -n 120 logs/app.log")
        if k < 0.67:
            return self.call("shell", self.window(p.git, 6, 160), command="git log -n 15")
        if k < 0.75:
            diff = self.window(p.diff, 10, 220) if r.random() < 0.6 else git_diff(r, *self.bulk.source_file())
            return self.call("shell", diff, command="git diff")
        if k < 0.84:
            out = self.window(p.misc, 5, 100) if r.random() < 0.5 else pytest_output(r)
            return self.call("shell", out, command=r.choice(["pytest -q", "rg -n TODO src", "ls -la src"]))
        if k < 0.88:
            return self.call("shell", npm_install_log(r), command="npm install")
        if k < 0.92:
            return self.call("read", self.window(p.lock, 12, 200), path=f"{self.cwd}/package-lock.json")
        if k < 0.975:
            return self.call("write", "", path=src, content=self.window(p.code, 10, 80))
        return self.call(
            "shell", self.people_output(), command=r.choice(["cat fixtures/customers.json", "cat OWNERS"])
        )

    def people_output(self) -> str:
        """A fixture or owners file: where names and numbers sit in tool output."""
        r = self.rng
        if r.random() < 0.5:
            rows = [
                {
                    "id": r.randint(100, 99999),
                    "name": self.person(),
                    "phone": self.phone(),
                    "plan": r.choice(["free", "pro"]),
                }
                for _ in range(r.randint(1, 3))
            ]
            return json.dumps(rows, indent=2, ensure_ascii=False)
        return "\n".join(
            f"{r.choice(['src/', 'api/', 'infra/'])}{r.choice(claude_gen._NOUNS)}/  {self.person()}"
            for _ in range(r.randint(1, 3))
        )

    # -- a session -------------------------------------------------------------------------------
    def steps(self, budget: int) -> list[Step]:
        r = self.rng
        ask = r.choice(_ASK).format(a=r.choice(claude_gen._NOUNS))
        steps = [Step("user", text=self.with_people(f"{ask} I'm in {self.cwd}. {self.prose(0, 3)}".strip()))]
        size = len(steps[0].text)
        secret_p = SECRETS_PER_MB / 1e6
        while size < budget:
            think = self.prose(1, 8) if r.random() < 0.5 else ""
            turn = [Step("assistant", text=self.with_people(self.prose(1, 5)), thinking=think)]
            for _ in range(r.choices([1, 2, 3, 4], [40, 30, 20, 10])[0]):
                turn.append(self.tool_step())
            if r.random() < 0.25:
                turn.append(Step("user", text=self.with_people(self.prose(1, 3))))
            for st in turn:
                n = _size(st)
                size += n
                steps.append(st)
                if r.random() < n * secret_p:
                    st2 = self.secret_step()
                    size += _size(st2)
                    steps.append(st2)
        steps.append(Step("assistant", text="Done. " + self.prose(1, 3)))
        return steps


def _size(st: Step) -> int:
    n = len(st.text) + len(st.thinking)
    if st.call is not None:
        n += len(st.call.output) + sum(len(v) for v in st.call.args.values() if isinstance(v, str))
    return n


def mix_user(rng: random.Random) -> fk.FakeUser:
    """bench/claude_gen.py's user (their name, email and home are in its pools' git log and
    paths), with the credential files of bench/corpus_fake.py's fake user."""
    u = fk.fake_user(rng)
    return dataclasses.replace(
        u,
        username=claude_gen.USER,
        full_name=claude_gen.USER_NAME,
        email=claude_gen.USER_EMAIL,
        hostname="jdoe-laptop",
    )


@dataclass
class MixCorpus:
    root: Path
    corpus: Path
    env: dict[str, str]
    labels: list[dict]
    sessions: list[dict]
    bytes: int


def generate(out: Path, size: int, seed: int = 1) -> MixCorpus:
    """Write about ``size`` bytes of sessions (files and stores on disk) under ``out``."""
    rng = random.Random(seed)
    corpus_dir = out / "corpus"
    if corpus_dir.exists() and any(corpus_dir.iterdir()):
        raise SystemExit(f"{corpus_dir} is not empty; give a new folder")
    corpus_dir.mkdir(parents=True)
    user = mix_user(rng)
    _, env = build_home(out, user)
    mix = Mix(rng, user, claude_gen.Pools(rng), Bulk(rng))
    writers = [w(corpus_dir, rng) for w in MIX_WRITERS]
    order = [w for w in writers for _ in range(WEIGHTS[w.harness])]
    sessions: list[dict] = []
    start = datetime(2026, 3, 2, 8, 30, tzinfo=UTC)
    known: set[Path] = set()
    jsonl_bytes = n = 0
    stores = [w for w in writers if isinstance(w, OpenCodeDbWriter | HermesDbWriter)]
    while n < len(writers) or jsonl_bytes + sum(w.path.stat().st_size for w in stores) < size:
        w = writers[n] if n < len(writers) else rng.choice(order)  # every harness first
        sid = fk.uuid4(rng)
        project = rng.choice(claude_gen._PROJECTS)
        mix.session, mix.harness, mix.cwd = sid, w.harness, f"{user.home}/src/{project}"
        s = Session(
            sid,
            w.harness,
            project,
            mix.cwd,
            start + timedelta(minutes=97 * n),
            model=rng.choice(["claude-sonnet-4-5", "claude-opus-4-6", "gpt-5.5", "gemini-2.5-pro"]),
        )
        s.steps = mix.steps(int(min(1.5e6, rng.lognormvariate(SESSION_MU, SESSION_SIGMA))))
        w.add(s)
        row: dict = {"session": sid, "harness": w.harness}
        if w in stores:
            w.db.commit()  # so that the store's size on disk counts this session
        else:  # the one file this session made
            new = sorted(set(corpus_dir.joinpath(_TOP[w.harness]).rglob("*.jsonl")) - known)
            assert len(new) == 1, (w.harness, new)
            known.add(new[0])
            row.update(file=new[0].relative_to(corpus_dir).as_posix(), bytes=new[0].stat().st_size)
            jsonl_bytes += row["bytes"]
        sessions.append(row)
        n += 1
    for w in writers:
        w.close()
    _write_jsonl(out / "labels.jsonl", mix.labels)
    _write_jsonl(out / "sessions.jsonl", sessions)
    (out / "env.json").write_text(json.dumps(env, indent=2) + "\n", encoding="utf-8")
    return MixCorpus(out, corpus_dir, env, mix.labels, sessions, _disk(corpus_dir))


def _disk(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def source_digest() -> str:
    """Eight hex digits of the generator's files: the cache key of a generated corpus."""
    h = hashlib.sha256()
    for name in SOURCES:
        h.update(name.encode() + b"\0" + (HERE / name).read_bytes())
    return h.hexdigest()[:8]


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def describe(c: MixCorpus) -> dict:
    """What the corpus holds, for the report: sessions per harness, lines, line size, labels."""
    per: dict[str, int] = {}
    for s in c.sessions:
        per[s["harness"]] = per.get(s["harness"], 0) + 1
    lines = jbytes = 0
    for s in c.sessions:
        if "file" in s:
            with open(c.corpus / s["file"], "rb") as fh:
                for line in fh:
                    lines += 1
                    jbytes += len(line)
    kinds: dict[str, int] = {}
    for lab in c.labels:
        k = lab["type"] if lab["kind"] == "pii" else lab["kind"]
        kinds[k] = kinds.get(k, 0) + 1
    return {
        "bytes": c.bytes,
        "sessions": len(c.sessions),
        "per_harness": per,
        "jsonl_lines": lines,
        "bytes_per_line": jbytes / max(lines, 1),
        "labels": kinds,
        "secrets_per_mb": kinds.get("secret", 0) / (c.bytes / 1e6),
    }


def load(root: Path) -> MixCorpus:
    """A corpus written by ``generate``, read back."""

    def rows(name: str) -> list[dict]:
        return [json.loads(x) for x in (root / name).read_text(encoding="utf-8").splitlines() if x]

    corpus_dir = root / "corpus"
    return MixCorpus(
        root,
        corpus_dir,
        json.loads((root / "env.json").read_text()),
        rows("labels.jsonl"),
        rows("sessions.jsonl"),
        _disk(corpus_dir),
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument(
        "--size", type=parse_size, default=parse_size("5MB"), help="about this many bytes on disk"
    )
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print(json.dumps(describe(generate(args.out, args.size, args.seed)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
