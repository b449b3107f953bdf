"""Over-redaction on real public material: how many harmless values ``tracepub redact`` removes.

    python bench/overredaction.py                   # download once, wrap, redact, report
    python bench/overredaction.py --keep /tmp/ovr   # keep the sessions and the output folder
    python bench/overredaction.py --json figures.json --candidates cands.jsonl

Traces are only worth publishing if they stay useful: a git ``Date:`` line read as a phone
number, an OID read as an IP address or a class name read as a secret makes the text worse
for training. The evaluation (bench/eval.py) measures look-alikes its authors planted; this
measures what happens to text nobody wrote for the purpose: public packages pinned in
``bench/overredaction_sources.toml`` (PyPI sdists and wheels, npm tarballs, and the
``/usr/share/doc`` of a few Debian packages whose upstream ships ``git log`` as ChangeLog),
downloaded once into ``bench/.cache/overredaction/`` and checked against their sha256.

The text is wrapped the way an agent meets it (bench/corpus_formats.py writers): Claude Code
and Codex sessions of file reads (``Read`` / ``cat``, ``sed -n`` for big files, tens of KB a
tool result) and shell output made from the same material: ``ls -la`` of the unpacked trees
(owned by the fake user), ``git log`` (the Debian ChangeLogs), ``pytest -v`` of the packages'
test suites, a real ``pip install -v`` of the wheels and a real ``npm ls`` of the tarballs.
The real ``tracepub redact`` runs as a subprocess with a fake HOME (bench/corpus.py
``build_home``, as bench/eval.py does); every finding in ``DIR/review/findings.jsonl`` is
traced back to its value in the input and put in a class. The fake owner's own identity (the
``ls -la`` owner column, the home folder in paths) must be redacted and is counted apart; so
are credential-shaped values (public test keys and vectors: the material is public, so none
should be a live credential, but they are listed for a person to look at). Everything else
found in the public text is an over-redaction.
"""

from __future__ import annotations

import argparse
import fnmatch
import gzip
import hashlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import urllib.request
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache" / "overredaction"
SOURCES_TOML = HERE / "overredaction_sources.toml"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import corpus_fake as fk  # noqa: E402
from corpus import build_home  # noqa: E402
from corpus_formats import Call, ClaudeWriter, CodexWriter, Session, Step  # noqa: E402
from eval import run_redact  # noqa: E402

CHUNK = 40_000  # characters per tool result: tens of KB, as agents read files and commands print
SESSION_TEXT = 1_500_000  # tool text per session before a new one starts
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # the sessions' clock: `ls -la` shows years for older files
PROMPT = "Go through the {name} {version} sources in this folder and tell me how the project is organised."
STEP_TEXT = [
    "Looking at the next files.",
    "Reading on.",
    "Continuing with the listing.",
    "Next part of the output.",
]


# -- the pinned sources -----------------------------------------------------------------------------
@dataclass
class Source:
    """One pinned archive of public text (a row of overredaction_sources.toml)."""

    kind: str  # pypi | npm | debian
    name: str
    version: str
    file: str
    sha256: str
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    budget_kb: int | None = None
    tests: bool = False

    @property
    def label(self) -> str:
        sep = {"pypi": "==", "npm": "@", "debian": "="}[self.kind]
        return f"{self.name}{sep}{self.version}"

    @property
    def slug(self) -> str:
        """Folder name in the fake home (``~/src/requests-2.34.2``)."""
        return re.sub(r"[^A-Za-z0-9._+-]", "_", f"{self.name}-{self.version}")


def load_sources(path: Path = SOURCES_TOML) -> list[Source]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Source(kind=kind, **row) for kind in ("pypi", "npm", "debian") for row in data.get(kind, [])]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _pypi_api() -> str:
    """The JSON API of the index pip itself uses by default (pip knows where it is)."""
    from pip._internal.models.index import PyPI

    return PyPI.pypi_url


def fetch(src: Source, cache: Path) -> Path:
    """The archive, downloaded once with the registry's own client or API and checked by sha256."""
    dl = cache / "downloads"
    dl.mkdir(parents=True, exist_ok=True)
    path = dl / src.file
    if not path.exists():
        tmp = Path(tempfile.mkdtemp(prefix="dl-", dir=dl))
        try:
            if src.kind == "pypi":
                # The project's JSON lists every release's files (the per-version endpoint is not
                # served everywhere); the pinned file is picked by name, then checked by sha256.
                api = f"{_pypi_api()}/{src.name}/json"
                with urllib.request.urlopen(api, timeout=120) as resp:
                    meta = json.load(resp)
                files = meta.get("releases", {}).get(src.version) or meta.get("urls", [])
                rows = [u for u in files if u["filename"] == src.file]
                if not rows:
                    raise RuntimeError(f"{src.label}: no file {src.file} in the index")
                with urllib.request.urlopen(urljoin(api, rows[0]["url"]), timeout=600) as resp:
                    (tmp / src.file).write_bytes(resp.read())
            elif src.kind == "npm":
                subprocess.run(
                    ["npm", "pack", f"{src.name}@{src.version}", "--pack-destination", str(tmp), "--silent"],
                    check=True,
                    capture_output=True,
                    text=True,
                )
            else:
                subprocess.run(
                    ["apt-get", "download", f"{src.name}={src.version}"],
                    cwd=tmp,
                    check=True,
                    capture_output=True,
                    text=True,
                )
            got = tmp / src.file
            if not got.exists():
                raise RuntimeError(
                    f"{src.label}: the client wrote {sorted(p.name for p in tmp.iterdir())}, not {src.file}"
                )
            got.replace(path)
        except OSError as e:  # urllib's errors included
            raise RuntimeError(f"{src.label}: download failed: {e}") from e
        except subprocess.CalledProcessError as e:
            raise RuntimeError(
                f"{src.label}: {' '.join(e.cmd)} failed: {(e.stderr or '').strip()[-500:]}"
            ) from e
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    digest = _sha256(path)
    if digest != src.sha256:
        raise RuntimeError(
            f"{src.label}: sha256 of {path} is {digest}, pinned {src.sha256} (remove the file to "
            "download it again, or fix the pin)"
        )
    return path


# -- unpacking ------------------------------------------------------------------------------------------
@dataclass
class Member:
    path: str  # inside the package, top folder removed
    size: int
    mtime: float
    mode: int
    is_dir: bool = False
    text: str | None = None  # UTF-8 text files only


def _text(data: bytes) -> str | None:
    if not data or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _tar_members(tf: tarfile.TarFile, strip: int) -> Iterator[Member]:
    for m in tf.getmembers():
        parts = [p for p in m.name.split("/") if p not in ("", ".")][strip:]
        if not parts:
            continue
        path = "/".join(parts)
        if m.isdir():
            yield Member(path, 4096, m.mtime, m.mode, is_dir=True)
        elif m.isfile():
            fh = tf.extractfile(m)
            data = fh.read() if fh else b""
            if path.endswith(".gz"):
                try:
                    data = gzip.decompress(data)
                    path = path[:-3]
                except OSError:
                    pass
            yield Member(path, m.size, m.mtime, m.mode, text=_text(data))


def _ar_data(path: Path) -> bytes:
    """The data.tar.* member of a Debian package (an ar archive)."""
    raw = path.read_bytes()
    if not raw.startswith(b"!<arch>\n"):
        raise RuntimeError(f"{path}: not a Debian package")
    pos = 8
    while pos + 60 <= len(raw):
        name = raw[pos : pos + 16].decode().strip().rstrip("/")
        size = int(raw[pos + 48 : pos + 58].decode().strip())
        body = raw[pos + 60 : pos + 60 + size]
        if name.startswith("data.tar"):
            return body
        pos += 60 + size + (size & 1)
    raise RuntimeError(f"{path}: no data.tar member")


def members(src: Source, archive: Path) -> list[Member]:
    """Every file and folder of the package, with the text of its UTF-8 files."""
    if archive.name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(archive, "r:gz") as tf:
            return list(_tar_members(tf, 1))
    if archive.suffix == ".deb":
        with tarfile.open(fileobj=io.BytesIO(_ar_data(archive)), mode="r:*") as tf:
            return list(_tar_members(tf, 0))
    out: list[Member] = []
    with zipfile.ZipFile(archive) as zf:
        dirs: set[str] = set()
        for info in zf.infolist():
            if info.is_dir():
                continue
            mtime = datetime(*info.date_time, tzinfo=UTC).timestamp()
            out.append(Member(info.filename, info.file_size, mtime, 0o100644, text=_text(zf.read(info))))
            parts = info.filename.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:i]))
        out += [Member(d, 4096, out[0].mtime, 0o40755, is_dir=True) for d in sorted(dirs)]
    return out


def select(src: Source, ms: list[Member]) -> list[Member]:
    """The text files the source's globs and budget let through, in path order. A capped package is
    sampled in a fixed pseudo-random order so every folder is represented; the last file taken is
    cut at a line break to fit."""
    files = [m for m in ms if m.text is not None and not m.is_dir]
    if src.include:
        files = [m for m in files if any(fnmatch.fnmatch(m.path, g) for g in src.include)]
    files = [m for m in files if not any(fnmatch.fnmatch(m.path, g) for g in src.exclude)]
    if src.budget_kb is None:
        return sorted(files, key=lambda m: m.path)
    left = src.budget_kb * 1000
    taken: list[Member] = []
    for m in sorted(files, key=lambda m: hashlib.sha1(m.path.encode()).hexdigest()):
        if left <= 0:
            break
        text = m.text or ""
        if len(text) > left:
            cut = text.rfind("\n", 0, left)
            text = text[: cut + 1] if cut > 0 else text[:left]
        taken.append(Member(m.path, m.size, m.mtime, m.mode, text=text))
        left -= len(text)
    return sorted(taken, key=lambda m: m.path)


# -- shell output made from the material ---------------------------------------------------------------
def _mode(m: Member) -> str:
    bits = "".join(c if m.mode & (1 << (8 - i)) else "-" for i, c in enumerate("rwxrwxrwx"))
    return ("d" if m.is_dir else "-") + bits


def _when(ts: float) -> str:
    t = datetime.fromtimestamp(ts, UTC)
    if NOW - timedelta(days=182) < t <= NOW:
        return t.strftime("%b %e %H:%M")
    return t.strftime("%b %e  %Y")


def ls_la(folder: str, entries: list[Member], owner: str, stamp: float) -> str:
    """`ls -la` of one folder of the unpacked tree, owned by the fake user (their identity, in clear)."""
    rows = [Member(".", 4096, stamp, 0o40755, True), Member("..", 4096, stamp, 0o40755, True), *entries]
    width = max(len(str(m.size)) for m in rows)
    total = sum((m.size + 4095) // 4096 * 4 for m in rows)
    lines = [f"total {total}"]
    for m in rows:
        name = m.path.rsplit("/", 1)[-1]
        links = 2 if m.is_dir else 1
        lines.append(f"{_mode(m)} {links:>2} {owner} {owner} {m.size:>{width}} {_when(m.mtime)} {name}")
    return "\n".join(lines) + "\n"


def listings(ms: list[Member], owner: str, limit: int = 25) -> list[tuple[str, str]]:
    """(command, output) for `ls -la` of the root and the first folders of the package."""
    children: dict[str, list[Member]] = defaultdict(list)
    for m in ms:
        parent = m.path.rsplit("/", 1)[0] if "/" in m.path else ""
        children[parent].append(m)
    stamp = max((m.mtime for m in ms), default=NOW.timestamp())
    out = []
    for folder in sorted(children)[:limit]:
        entries = sorted(children[folder], key=lambda m: m.path.rsplit("/", 1)[-1])
        out.append((f"ls -la {folder}" if folder else "ls -la", ls_la(folder, entries, owner, stamp)))
    return out


_TEST_DEF = re.compile(r"^(\s*)(?:async\s+)?def (test\w*)\(|^class (Test\w*)\b", re.M)


def pytest_run(src: Source, files: list[Member], home: str, rng: random.Random) -> list[tuple[str, str]]:
    """`pytest -v` output over the package's own test files (the names of its real tests)."""
    ids: list[str] = []
    for m in files:
        name = m.path.rsplit("/", 1)[-1]
        if not (name.startswith("test_") and name.endswith(".py")):
            continue
        cls = None
        for g in _TEST_DEF.finditer(m.text or ""):
            if g.group(3):
                cls = g.group(3)
            elif g.group(2):
                ids.append(
                    f"{m.path}::{cls}::{g.group(2)}" if g.group(1) and cls else f"{m.path}::{g.group(2)}"
                )
    if not ids:
        return []
    head = [
        "============================= test session starts ==============================",
        f"platform linux -- Python 3.11.7, pytest-8.3.4, pluggy-1.5.0 -- {home}/.venvs/{src.name}/bin/python",
        "cachedir: .pytest_cache",
        f"rootdir: {home}/src/{src.slug}",
        "configfile: pyproject.toml",
        f"collecting ... collected {len(ids)} items",
        "",
    ]
    body = []
    for i, tid in enumerate(ids, 1):
        status = rng.choices(["PASSED", "SKIPPED", "XFAIL", "FAILED"], [90, 6, 2, 2])[0]
        body.append(f"{tid} {status} [{100 * i // len(ids):>3}%]")
    failed = sum(1 for b in body if " FAILED " in b)
    passed = sum(1 for b in body if " PASSED " in b)
    skipped = len(body) - failed - passed
    tail = [
        f"=========== {failed} failed, {passed} passed, {skipped} skipped in {rng.uniform(3, 90):.2f}s ==========="
    ]
    lines = head + body + ["", *tail]
    out, cur, size = [], [], 0
    for line in lines:
        cur.append(line)
        size += len(line) + 1
        if size > CHUNK:
            out.append("\n".join(cur) + "\n")
            cur, size = [], 0
    if cur:
        out.append("\n".join(cur) + "\n")
    return [
        (
            f"python -m pytest -v tests/ 2>&1 | sed -n '{i * 400 + 1},{(i + 1) * 400}p'"
            if i
            else "python -m pytest -v",
            o,
        )
        for i, o in enumerate(out)
    ]


def git_log_calls(text: str) -> list[tuple[str, str]]:
    """A ChangeLog that is `git log` output, as the agent would page through it (by commits)."""
    commits = re.split(r"(?m)^(?=commit [0-9a-f]{40}\b)", text)
    commits = [c for c in commits if c]
    out, cur, n0, size = [], [], 0, 0
    for i, c in enumerate(commits):
        cur.append(c)
        size += len(c)
        if size > CHUNK or i == len(commits) - 1:
            cmd = f"git log --skip={n0} -n {len(cur)}" if n0 else f"git log -n {len(cur)}"
            out.append((cmd, "".join(cur)))
            n0, cur, size = i + 1, [], 0
    return out


def _rewrite(text: str, pairs: list[tuple[str, str]]) -> str:
    """Real paths of this machine shown as the fake user's (longest first, so a folder inside another
    one keeps its own replacement)."""
    for real, fake in sorted(pairs, key=lambda p: len(p[0]), reverse=True):
        text = text.replace(real, fake)
    return text


def pip_install(archive: Path, home: str, cache: Path) -> str:
    """The output of a real `pip install -v` of a wheel (offline, into a throw-away target), with the
    temporary folders shown as the fake user's virtual environment. Cached: run once."""
    out = cache / "shell" / f"pip-install-v2-{archive.name}.txt"
    if out.exists():
        return out.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="ovr-pip-") as tmp:
        target = Path(tmp) / "site-packages"
        env = {k: v for k, v in os.environ.items() if "TOKEN" not in k.upper()}
        env["PIP_NO_CACHE_DIR"] = "1"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "-v",
                "--no-deps",
                "--no-index",
                "--no-compile",
                "--target",
                str(target),
                str(archive),
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp,
        )
        venv = f"{home}/src/app/.venv"
        text = _rewrite(
            proc.stdout + proc.stderr,
            [
                (str(target), f"{venv}/lib/python3.11/site-packages"),
                (tmp, f"{home}/tmp"),
                (str(archive.parent), f"{home}/Downloads"),
                (sys.prefix, venv),
                (str(ROOT), f"{home}/src/app"),
                (str(Path.home()), home),
            ],
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return text


def npm_ls(npm: list[tuple[Source, Path]], home: str, cache: Path) -> list[tuple[str, str]]:
    """Real `npm ls` output for a project with the npm tarballs unpacked into node_modules (offline:
    npm only reads the tree). Their own dependencies are absent, so npm lists them as missing, as it
    does in a half-installed checkout. Cached: run once."""
    key = hashlib.sha1(" ".join(sorted(s.label for s, _ in npm)).encode()).hexdigest()[:12]
    out = cache / "shell" / f"npm-ls-{key}.json"
    if out.exists():
        return [tuple(x) for x in json.loads(out.read_text(encoding="utf-8"))]
    with tempfile.TemporaryDirectory(prefix="ovr-npm-") as tmp:
        proj = Path(tmp) / "webapp"
        (proj / "node_modules").mkdir(parents=True)
        deps = {s.name: f"^{s.version}" for s, _ in npm}
        (proj / "package.json").write_text(
            json.dumps(
                {"name": "webapp", "version": "1.0.0", "private": True, "dependencies": deps}, indent=2
            ),
            encoding="utf-8",
        )
        for s, archive in npm:
            dest = proj / "node_modules" / s.name
            with tarfile.open(archive, "r:gz") as tf:
                for m in tf.getmembers():
                    parts = m.name.split("/")[1:]
                    if not parts or not m.isfile():
                        continue
                    p = dest.joinpath(*parts)
                    p.parent.mkdir(parents=True, exist_ok=True)
                    fh = tf.extractfile(m)
                    p.write_bytes(fh.read() if fh else b"")
        res = []
        for args in (["ls", "--all"], ["ls", "--all", "--long"]):
            proc = subprocess.run(["npm", *args], cwd=proj, capture_output=True, text=True)
            text = _rewrite(
                proc.stdout + proc.stderr, [(str(proj), f"{home}/src/webapp"), (str(Path.home()), home)]
            )
            res.append(("npm " + " ".join(args), text))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res), encoding="utf-8")
    return res


# -- sessions ---------------------------------------------------------------------------------------------
def _chunks(text: str) -> list[str]:
    if len(text) <= CHUNK:
        return [text]
    out, start = [], 0
    while start < len(text):
        end = text.rfind("\n", start, start + CHUNK)
        end = start + CHUNK if end <= start else end + 1
        out.append(text[start:end])
        start = end
    return out


def source_calls(
    src: Source, ms: list[Member], files: list[Member], cwd: str, home: str, owner: str, rng: random.Random
) -> list[Call]:
    """The tool calls of an agent going through one package: listings, file reads, the package's
    test run, its git log."""
    calls: list[Call] = []
    lists = listings(ms, owner)
    for cmd, out in lists[:1]:
        calls.append(Call("shell", {"command": cmd, "description": "List files"}, out))
    rest = lists[1:]
    for i, m in enumerate(files):
        if rest and i % max(1, len(files) // (len(rest) + 1)) == 0:
            cmd, out = rest.pop(0)
            calls.append(Call("shell", {"command": cmd, "description": "List files"}, out))
        text = m.text or ""
        if text.startswith("commit ") and re.match(r"commit [0-9a-f]{40}\n", text):
            for cmd, out in git_log_calls(text):
                calls.append(Call("shell", {"command": cmd, "description": "Show history"}, out))
            continue
        parts = _chunks(text)
        if len(parts) == 1:
            calls.append(Call("read", {"path": f"{cwd}/{m.path}"}, text))
            continue
        line = 1
        for p in parts:
            n = p.count("\n") or 1
            calls.append(
                Call(
                    "shell",
                    {
                        "command": f"sed -n '{line},{line + n - 1}p' {m.path}",
                        "description": "Show part of a file",
                    },
                    p,
                )
            )
            line += n
    for cmd, out in rest:
        calls.append(Call("shell", {"command": cmd, "description": "List files"}, out))
    if src.tests:
        for cmd, out in pytest_run(src, files, home, rng):
            calls.append(Call("shell", {"command": cmd, "description": "Run the tests"}, out))
    return calls


@dataclass
class Built:
    corpus: Path
    env: dict[str, str]
    user: fk.FakeUser
    sessions: dict[str, dict]  # session id -> harness, source, file
    text_bytes: int  # public text wrapped (each tool output once)
    by_source: dict[str, int]


def build(work: Path, sources: list[tuple[Source, Path]], cache: Path = CACHE, seed: int = 1) -> Built:
    """Claude Code and Codex sessions (alternating) over every source's tool calls."""
    rng = random.Random(seed)
    user = fk.fake_user(rng)
    home, env = build_home(work, user)
    corpus = work / "corpus"
    writers = [ClaudeWriter(corpus, rng), CodexWriter(corpus, rng)]
    sessions: dict[str, dict] = {}
    by_source: Counter[str] = Counter()
    start = NOW
    n = 0
    shell_extra: list[tuple[Source | None, str, str]] = []
    wheels = [(s, a) for s, a in sources if a.suffix == ".whl"]
    for s, a in wheels:
        shell_extra.append((s, f"pip install -v {a.name}", pip_install(a, user.home, cache)))
    npm = [(s, a) for s, a in sources if s.kind == "npm"]
    if npm:
        for cmd, out in npm_ls(npm, user.home, cache):
            shell_extra.append((None, cmd, out))
    plan: list[tuple[str, str, list[Call]]] = []  # (source label, cwd, calls)
    for src, archive in sources:
        ms = members(src, archive)
        files = select(src, ms)
        cwd = f"{user.home}/src/{src.slug}"
        calls = source_calls(src, ms, files, cwd, user.home, user.username, rng)
        calls += [
            Call("shell", {"command": cmd, "description": "Install"}, out)
            for s, cmd, out in shell_extra
            if s is src
        ]
        plan.append((src.label, cwd, calls))
    extra = [
        Call("shell", {"command": cmd, "description": "List packages"}, out)
        for s, cmd, out in shell_extra
        if s is None
    ]
    if extra:
        plan.append(("npm ls", f"{user.home}/src/webapp", extra))
    for label, cwd, calls in plan:
        i = 0
        while i < len(calls):
            w = writers[n % len(writers)]
            sid = fk.uuid4(rng)
            name, _, version = label.replace("==", "@").replace("=", "@").partition("@")
            steps = [Step("user", text=PROMPT.format(name=name, version=version or "(local)"))]
            size = 0
            while i < len(calls) and (size < SESSION_TEXT or len(steps) == 1):
                c = calls[i]
                steps.append(Step("call", call=c))
                size += len(c.output)
                by_source[label] += len(c.output.encode())
                i += 1
                if i % 4 == 0:
                    steps.append(Step("assistant", text=STEP_TEXT[i // 4 % len(STEP_TEXT)]))
            steps.append(Step("assistant", text="That is the whole folder."))
            s = Session(
                sid,
                w.harness,
                cwd.rsplit("/", 1)[-1],
                cwd,
                start + timedelta(hours=3 * n),
                model="claude-sonnet-4-5" if w.harness == "claude_code" else "gpt-5.5",
            )
            s.steps = steps
            w.add(s)
            sessions[sid] = {"harness": w.harness, "source": label}
            n += 1
    for path in corpus.rglob("*.jsonl"):
        for sid in sessions:
            if sid in path.name:
                sessions[sid]["file"] = str(path)
    return Built(corpus, env, user, sessions, sum(by_source.values()), dict(by_source))


# -- tracing findings back to the input ---------------------------------------------------------------
_PATH = re.compile(r"\.<key>|#json|\[(\d+)\]|\.([^.\[#]+)")


def resolve(doc: Any, path: str) -> str | None:
    """The string at a finding's JSON path (``$.a[0]#json.b``) in the parsed input record."""
    cur = doc
    for m in _PATH.finditer(path[1:]):
        tok = m.group(0)
        if tok == "#json":
            if not isinstance(cur, str):
                return None
            try:
                cur = json.loads(cur)
            except ValueError:
                return None
        elif tok == ".<key>":
            return None
        elif m.group(1) is not None:
            if not isinstance(cur, list) or int(m.group(1)) >= len(cur):
                return None
            cur = cur[int(m.group(1))]
        else:
            if not isinstance(cur, dict) or m.group(2) not in cur:
                return None
            cur = cur[m.group(2)]
    return cur if isinstance(cur, str) else None


# Where the public text sits in each writer's records, in one copy (the harnesses store tool output
# twice: Claude's tool_result and toolUseResult, Codex's function_call_output and exec_command_end).
CANONICAL = (
    re.compile(r"^\$\.toolUseResult\.(?:stdout|file\.content)$"),
    re.compile(r"^\$\.payload\.output$"),
)
CODEX_HEAD = "\nOutput:\n"


@dataclass
class Hit:
    """One finding with its value and surroundings in the input."""

    type: str
    detector: str
    action: str
    value: str
    line: str  # the input line (of the string) holding the value
    before: str
    after: str
    source: str
    where: str  # file path or command of the tool call
    canonical: bool  # in the one copy of the public text that is counted
    tool: str  # read | shell | wrapper


def _tool_index(lines: list[dict]) -> dict[str, tuple[str, str]]:
    """tool call id -> (kind, file path or command)."""
    idx: dict[str, tuple[str, str]] = {}
    for d in lines:
        if d.get("type") == "assistant":
            for c in d.get("message", {}).get("content", []):
                if isinstance(c, dict) and c.get("type") == "tool_use":
                    inp = c.get("input", {})
                    kind = "read" if "file_path" in inp else "shell"
                    idx[c["id"]] = (kind, inp.get("file_path") or inp.get("command", ""))
        p = d.get("payload", {})
        if isinstance(p, dict) and p.get("type") == "function_call":
            try:
                cmd = json.loads(p.get("arguments", "{}")).get("cmd", "")
            except ValueError:
                cmd = ""
            kind = "read" if cmd.startswith("cat ") else "shell"
            idx[p["call_id"]] = (kind, cmd[4:] if kind == "read" else cmd)
    return idx


def _call_of(d: dict, idx: dict[str, tuple[str, str]]) -> tuple[str, str]:
    for c in (
        d.get("message", {}).get("content", [])
        if isinstance(d.get("message", {}).get("content"), list)
        else []
    ):
        if isinstance(c, dict) and c.get("type") == "tool_result":
            return idx.get(c.get("tool_use_id", ""), ("wrapper", ""))
    p = d.get("payload")
    if isinstance(p, dict) and "call_id" in p:
        return idx.get(p["call_id"], ("wrapper", ""))
    return ("wrapper", "")


def hits(out: Path, built: Built) -> tuple[list[Hit], list[dict]]:
    """Every finding traced to its value; findings that cannot be traced (file names) come back raw."""
    by_file: dict[str, list[dict]] = defaultdict(list)
    raw: list[dict] = []
    with open(out / "review" / "findings.jsonl", encoding="utf-8") as fh:
        for line in fh:
            f = json.loads(line)
            by_file[f["file"]].append(f)
    res: list[Hit] = []
    for ofile, fs in by_file.items():
        sid = next((s for s in built.sessions if s in ofile), None)
        if sid is None or "file" not in built.sessions[sid]:
            raw += fs
            continue
        meta = built.sessions[sid]
        lines = [json.loads(x) for x in Path(meta["file"]).read_text(encoding="utf-8").splitlines() if x]
        idx = _tool_index(lines)
        for f in fs:
            rec = f["record"] - 1  # records are line numbers, from 1
            if f["path"] == "$.#file" or not (0 <= rec < len(lines)):
                raw.append(f)
                continue
            text = resolve(lines[rec], f["path"])
            if text is None:
                raw.append(f)
                continue
            s, e = f["start"], f["end"]
            value = text[s:e]
            shown = f.get("value", "")
            if "…" not in shown and shown != value:  # values in clear must be what the offsets say
                raw.append(f)
                continue
            ls = text.rfind("\n", 0, s) + 1
            le = text.find("\n", e)
            le = len(text) if le < 0 else le
            canonical = any(p.match(f["path"]) for p in CANONICAL)
            if canonical and f["path"] == "$.payload.output":
                head = text.find(CODEX_HEAD)
                canonical = head >= 0 and s >= head + len(CODEX_HEAD)
            kind, where = _call_of(lines[rec], idx)
            res.append(
                Hit(
                    f["type"],
                    f["detector"],
                    f["action"],
                    value,
                    text[ls:le][:600],
                    text[max(0, s - 120) : s],
                    text[e : e + 120],
                    meta["source"],
                    where,
                    canonical,
                    kind if canonical else "wrapper",
                )
            )
    return res, raw


# -- classes of over-redaction -----------------------------------------------------------------------------
_GIT_DATE = re.compile(
    r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d+ "
    r"\d\d:\d\d:\d\d \d{4} [+-]\d{4}"
)
_OID_NEAR = re.compile(
    r"(?i)\boid\b|object.?identifier|ObjectIdentifier|univ\.|asn\.?1|x509|pkcs|1\.2\.840|2\.5\.\d|"
    r"1\.3\.6\.1|2\.16\.840|dotted string|_IN\("
)
_SVG = re.compile(r"<path|\sd=\"[MmLl]|viewBox|points=\"|matrix\(|<polygon|<svg")
_SECTION = re.compile(
    r"(?i)(?:section|sections|sec\.?|§|rfc\s*\d+|#section-|#sec-|clause|chapter)\s*[`\"'(]*$"
)
_VERSION = re.compile(r"(?i)(?:version|ver\.?|v|release|build|==|>=|<=|~=|@|-|/|\")\s*$")
_SLICE = re.compile(r"^[0-9a-fA-F]{0,4}::[0-9a-fA-F]{0,4}$")
_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\d|\d\d:\d\d")
_SSH_DOMAIN = re.compile(r"(?i)@(?:openssh\.com|libssh\.org|ssh\.com|libssh2\.org)$")
_AUTHOR_CTX = re.compile(
    r"(?i)^\W*(?:author|commit|merge|signed-off-by|reviewed-by|acked-by|tested-by|reported-by|co-authored-by|"
    r"suggested-by|helped-by|cc|from|maintainer|maintainers|uploaders?|last-translator|language-team|"
    r"author-email|maintainer-email|contributors?|authors?|credits?|thanks(?: to)?|patch(?:es)? (?:by|from)|"
    r"reviewed by|reported by|original(?:ly)? by|written by)\b"
    r"|@author\b|\bauthors?\s*=|\bmaintainers?\s*=|\"(?:author|maintainer|contributors?|maintainers)\"\s*:"
    r"|^\s*--\s+\S.*<[^>]*@[^>]*>\s+\w{3}, |^\d{4}-\d\d-\d\d\s+\S.*<[^>]*@|^#\s.*<[^>]*@[^>]*>,\s*\d{4}"
    r"|\(gh: @|<[^<>\s]+@[^<>\s]+>|\b(?:by|from|thanks):?\s|\bname\s*=\s*\"[^\"]+\",\s*email\s*="
)
_COPYRIGHT = re.compile(r"(?i)copyright|\(c\)|©|&copy;")
_EXAMPLE_DOMAIN = re.compile(
    r"(?i)@(?:[\w-]+\.)*(?:example(?:\.(?:com|org|net|co\.\w+)|)|test|invalid|localhost|"
    r"domain\.(?:com|tld|org)|foo\.(?:com|bar|org)|bar\.(?:com|org)|baz\.com|email\.com|"
    r"mail\.com|company\.com|host\.com|somewhere\.com|test\.com|server\.com|site\.com|"
    r"acme\.com|yourdomain\.com|mydomain\.com|something\.com|xyz\.com|abc\.com)$"
)
_CODE_VALUE = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*(?:<.*|\[.*|\(.*|,?)$")
_SLUG = re.compile(r"^[a-z]+(?:[-_][a-z0-9]+)+$")
_AUTH_SCHEME = re.compile(
    r"(?:[A-Z]{2,}[0-9]*)(?:-[A-Z]{2,}[0-9]*)+|(?i:bearer|basic|digest|negotiate|hmac-sha\d+)"
)
_HEXISH = re.compile(r"^[0-9a-fA-F]{16,}$")
_DOTTED = re.compile(r"^\d+(?:\.\d+)+$")
# (letter runs, one separator between: written without nested repeats, which backtrack exponentially
# on a long run of letters that fails at its end)
_WORDY_PASSWORD = re.compile(
    r"^[A-Za-z]+(?:[ .!][A-Za-z]+)*[ .!]?$|^[a-z]+\d{0,3}$|^[A-Za-z]+\d{1,3}[A-Za-z]*$"
)


def _is_ip_glued(h: Hit) -> bool:
    """An IPv4-shaped value that is part of a longer dotted number (an OID, a four-part version)."""
    return bool(re.search(r"\d\.$", h.before)) or bool(re.match(r"\.\d", h.after))


def _code_like(v: str) -> bool:
    """Markup, a type path (a.B, a::B, Option<...>), a CamelCase, snake_case or slug identifier; not a
    random mix of letters and digits."""
    v = v.lstrip("&*")
    if v.startswith("<") or _SLUG.match(v):
        return True
    if not _CODE_VALUE.match(v) or _HEXISH.match(v) or v.startswith("eyJ"):  # eyJ: a JWT's '{"'
        return False
    if re.search(r"\.|::|->|<|\[|\(", v) or (v.isalpha() and v[:1].isupper()):
        return True
    words = re.findall(r"[A-Z]?[a-z]{3,}|[A-Z]{2,}(?![a-z])", v)
    covered = sum(len(w) for w in words) / max(1, len(v))
    return ("_" in v and covered >= 0.4) or (bool(re.search(r"[a-z][A-Z]", v)) and covered >= 0.7)


def _person_like(t: str) -> bool:
    return t in ("pii.person", "pii.email", "pii.handle")


Rule = tuple[str, str, Callable[[Hit], bool]]
# Counted apart from the over-redactions: they are redacted on purpose (the material being public does
# not make a person's name public everywhere it could occur; a key is a key).
BY_DESIGN = {
    "public_contributor": "real people in authorship records: git log Author:/trailers, ChangeLogs, .po translator "
    "headers, package metadata (redacted by design: the same lines name colleagues in private repos)",
    "url_userinfo_as_email": "the user:password@host part of a URL (http://u:p@example.com) read as an email: the "
    "password is rightly removed, only the type is wrong (secret.url_password would be right)",
    "test_fixture_password": "a human-made password in a test suite (anewpassword, testpw): the password rule doing "
    "its job, harmless only because the suite is public",
}
RULES: list[Rule] = [
    (
        "gpl_fsf_address",
        "the FSF's postal address in GPL/LGPL headers (51 Franklin Street, 02110-1301)",
        lambda h: (
            bool(re.search(r"(?i)franklin st|temple place|02110-1301|02111-1307|02139", h.value))
            or (
                h.type in ("pii.address", "pii.phone")
                and bool(re.search(r"(?i)franklin|temple place", h.line))
            )
        ),
    ),
    (
        "git_date_as_phone",
        "git log `Date:` line (seconds, year, zone: `01 2009 -0500`) read as a phone number",
        lambda h: h.type == "pii.phone" and bool(_GIT_DATE.search(h.line)),
    ),
    (
        "svg_path_numbers",
        'numbers in SVG path data (d="M8 0C3.58...") read as phone, IP or card',
        lambda h: h.type in ("pii.phone", "pii.ip", "pii.credit_card") and bool(_SVG.search(h.line)),
    ),
    (
        "code_syntax_as_ipv6",
        "code read as IPv6: slices (a[1::2], x[::2]), reST `example::`, Rust paths (aead::)",
        lambda h: (
            h.type == "pii.ip"
            and (
                bool(_SLICE.match(h.value))
                and (
                    h.before.endswith(("[", ",", " ", "."))
                    or h.value.endswith("::")
                    or h.value.startswith("::")
                )
                or bool(re.search(r"[A-Za-z]$", h.before))
                or "%d" in h.value
            )
        ),
    ),
    (
        "oid_as_ip",
        "ASN.1 object identifier (2.5.29.17, 1.2.840.113549.1.1.1, 1.3.6.1...) read as an IP or phone",
        lambda h: (
            h.type in ("pii.ip", "pii.phone")
            and bool(_OID_NEAR.search(h.line))
            and (h.type == "pii.ip" or (bool(_DOTTED.match(h.value)) and h.value.count(".") >= 3))
        ),
    ),
    (
        "version_or_section_as_ip",
        "versions, RFC sections, build numbers and longer dotted numbers (RFC 5280 4.2.1.10, 4.6.0.66, "
        "Chrome 67.0.3396.87) read as an IP",
        lambda h: (
            (
                h.type == "pii.ip"
                and ":" not in h.value
                and (
                    _is_ip_glued(h)
                    or bool(_SECTION.search(h.before))
                    or bool(_VERSION.search(h.before))
                    or bool(re.search(r"(?i)(?:\b\d{4}|CA/B|bump to|libX11|ragel|spec)\s*$", h.before))
                    or ".99." in h.value
                    or bool(re.search(r"(?i)section|rfc|version", h.line))
                )
            )
            or (h.type == "pii.phone" and bool(_DOTTED.match(h.value)) and h.value.count(".") >= 3)
        ),
    ),
    (
        "ip_in_test_or_docs",
        "public IP address used as test or documentation data (173.194.35.7, 12.34.56.78, 8.8.8.8)",
        lambda h: h.type == "pii.ip",
    ),
    (
        "phone_library_data",
        "phone prefixes and example numbers in phonenumbers' own data and docs",
        lambda h: h.type == "pii.phone" and h.source.startswith("phonenumbers"),
    ),
    (
        "date_as_phone",
        "ISO date/time (PO-Revision-Date: 2017-09-19 16:40, `37.0.2 - 2022-05-03`) read as a phone",
        lambda h: h.type == "pii.phone" and bool(_ISO_DATE.search(h.value)),
    ),
    (
        "decimal_as_phone",
        "decimal numbers (test data, benchmarks, coordinates: 0.88409679, 13.2   0.01) read as a phone",
        lambda h: h.type == "pii.phone" and bool(re.search(r"\d\.\d", h.value)),
    ),
    (
        "integer_as_phone",
        "integer constants and ranges (seeds, timestamps, 2147483647, bytes 0-1048575) read as a phone",
        lambda h: h.type == "pii.phone" and not re.search(r"(?i)phone|tel[:.\s]|mobile|fax|\+\d", h.line),
    ),
    ("example_phone", "phone-shaped example in docs or tests", lambda h: h.type == "pii.phone"),
    (
        "ssh_name_as_email",
        "SSH algorithm or protocol extension name (aes128-gcm@openssh.com, limits@openssh.com) as email",
        lambda h: h.type == "pii.email" and bool(_SSH_DOMAIN.search(h.value)),
    ),
    (
        "package_at_version_as_email",
        "package@version (axios@1.20.0 in a CDN URL) read as an email address",
        lambda h: h.type == "pii.email" and bool(re.search(r"@[\^~]?\d+\.\d", h.value)),
    ),
    (
        "url_userinfo_as_email",
        BY_DESIGN["url_userinfo_as_email"],
        lambda h: h.type == "pii.email" and bool(re.search(r"://[^\s/@]*$", h.before)),
    ),
    (
        "example_email",
        "documentation/test email at a reserved or placeholder domain (example.com, .test, foo.bar)",
        lambda h: h.type == "pii.email" and bool(_EXAMPLE_DOMAIN.search(h.value)),
    ),
    (
        "copyright_holder",
        "copyright holder (person or their email) in a license or source header",
        lambda h: _person_like(h.type) and bool(_COPYRIGHT.search(h.line)),
    ),
    (
        "public_contributor",
        BY_DESIGN["public_contributor"],
        lambda h: (
            (_person_like(h.type) or h.type == "pii.username")
            and (h.detector == "names:trailer" or bool(_AUTHOR_CTX.search(h.line)))
        ),
    ),
    (
        "timestamp_as_secret",
        'a timestamp in an API example read as a password ("Password": "2016-09-08T21:47:36Z")',
        lambda h: (
            h.type.startswith("secret.") and bool(re.fullmatch(r"\d{4}-\d\d-\d\d[T ][\d:.]+Z?", h.value))
        ),
    ),
    (
        "code_as_secret",
        "code read as a secret value: type annotations (password: Option<CffiBuf<'_>>, "
        "ed25519.Ed25519PrivateKey), identifiers (urlPassword, x9_63_scheme), paginator keys, markup (<input)",
        lambda h: h.type.startswith("secret.") and _code_like(h.value),
    ),
    (
        "url_or_arn_as_secret",
        "URL or AWS ARN read as a secret (https://tools.ietf.org/html/rfc6750, arn:aws:kms:...)",
        lambda h: h.type.startswith("secret.") and bool(re.match(r"(?i)(?:https?://|arn:aws)", h.value)),
    ),
    (
        "auth_scheme_name",
        "authentication scheme or algorithm name read as a credential (AWS4-HMAC-SHA256, Bearer)",
        lambda h: h.type.startswith("secret.") and bool(_AUTH_SCHEME.fullmatch(h.value)),
    ),
    (
        "test_fixture_password",
        BY_DESIGN["test_fixture_password"],
        lambda h: (
            h.type in ("secret.password", "secret.token", "secret.generic")
            and bool(_WORDY_PASSWORD.match(h.value))
        ),
    ),
    (
        "number_as_card_or_id",
        "digits of floats, serials, AWS example account ids or short hashes read as a card "
        "number or national id (0.15111111104488373, 444455556666, Merge: 43016715e)",
        lambda h: h.type in ("pii.credit_card", "pii.national_id"),
    ),
    (
        "home_path_username",
        "another person's or a placeholder home folder in public docs/logs (/home/foo, /home/guido)",
        lambda h: h.type == "pii.username",
    ),
    (
        "code_as_handle",
        "code read as a messaging handle (`signal: AbortSignal`, `signal: name`)",
        lambda h: h.type == "pii.handle",
    ),
    (
        "address_in_code_or_docs",
        'street-address-shaped text in tests or docs (123 Sesame St, "Engineering 0")',
        lambda h: h.type == "pii.address",
    ),
    (
        "name_in_code_or_docs",
        "names in test fixtures, docs and prose (Demon Dogs, San Francisco, John Doe, people "
        "mentioned in ChangeLogs)",
        lambda h: h.type == "pii.person",
    ),
    (
        "email_in_code_or_docs",
        "other email in public code or docs (test fixtures, role and list addresses)",
        lambda h: h.type == "pii.email",
    ),
]
CREDENTIAL = "credential_shaped"  # secret-typed findings no rule explains: listed for a person to look at
IDENTITY = "owner_identity"
NOT_FALSE_POSITIVE = {IDENTITY, CREDENTIAL, *BY_DESIGN}


def identity_values(user: fk.FakeUser) -> list[str]:
    return [user.username, user.full_name, user.email, user.hostname, user.home, *user.tokens.values()]


def classify(h: Hit, ident: list[str]) -> str:
    if h.type.startswith("identity.") or any(
        v and (v in h.value or h.value in v) for v in ident if len(h.value) >= 3
    ):
        return IDENTITY
    for name, _, pred in RULES:
        if pred(h):
            return name
    return CREDENTIAL if h.type.startswith("secret.") else "other_" + h.type.split(".", 1)[-1]


# -- report -----------------------------------------------------------------------------------------------
def _short(v: str, n: int = 60) -> str:
    v = v.replace("\n", "\\n")
    return v if len(v) <= n else v[: n - 1] + "…"


def report(
    hs: list[Hit],
    raw: list[dict],
    built: Built,
    summary: dict,
    seconds: float,
    ident: list[str],
    top: int = 20,
) -> tuple[str, dict]:
    mb_in = (summary.get("bytes_in") or 1) / 1e6
    mb_text = built.text_bytes / 1e6
    canon = [h for h in hs if h.canonical]
    cls = [classify(h, ident) for h in canon]
    public = [(h, c) for h, c in zip(canon, cls, strict=True) if c not in NOT_FALSE_POSITIVE]
    apart = Counter(c for c in cls if c in NOT_FALSE_POSITIVE)
    harness = Counter(s["harness"] for s in built.sessions.values())
    lines = [
        f"Public text: {mb_text:.1f} MB from {len(built.by_source)} sources, wrapped in {len(built.sessions)} "
        f"sessions ({', '.join(f'{k} {v}' for k, v in sorted(harness.items()))}); tracepub read {mb_in:.1f} MB "
        f"of session files in {seconds:.1f} s (NER: {summary.get('ner') or 'off'})."
    ]
    total = len(hs) + len(raw)
    rest = [h for h, _ in public if not h.source.startswith("phonenumbers")]
    mb_rest = mb_text - sum(n for k, n in built.by_source.items() if k.startswith("phonenumbers")) / 1e6
    lines += [
        "",
        f"All findings: {total} ({total / mb_in:.1f} per MB of session files). In the public text, each tool "
        f"output counted once: {len(canon)}, of which",
    ]
    lines += [
        f"  {IDENTITY} (the fake owner in `ls -la` and paths: must be redacted): {apart[IDENTITY]}",
        f"  {CREDENTIAL} (keys, JWTs, tokens of test suites: listed below): {apart[CREDENTIAL]}",
    ]
    lines += [f"  {c} (by design: {BY_DESIGN[c].split(': ')[0]}): {apart[c]}" for c in BY_DESIGN]
    lines += [
        f"  OVER-REDACTIONS of harmless public text: {len(public)} = {len(public) / mb_text:.1f} per MB of "
        f"public text",
        f"  (without phonenumbers, one package of phone tables: {len(rest)} = {len(rest) / mb_rest:.1f} per MB)",
        f"  (not counted: {len(hs) - len(canon) + len(raw)} findings in the harnesses' second copies of tool "
        "output and in the sessions' own fields, nearly all the owner's home folder)",
    ]

    def table(title: str, key: Callable[[Hit], str], rows: list[Hit]) -> None:
        c = Counter(key(h) for h in rows)
        lines.extend(["", f"{title} (over-redactions):", "| | count | per MB |", "|---|---|---|"])
        for k, n in c.most_common():
            lines.append(f"| {k} | {n} | {n / mb_text:.2f} |")

    pub_hits = [h for h, _ in public]
    table("By type", lambda h: h.type, pub_hits)
    table("By detector", lambda h: h.detector, pub_hits)
    table("By action", lambda h: h.action, pub_hits)
    table("By source", lambda h: h.source, pub_hits)
    by_class: dict[str, list[Hit]] = defaultdict(list)
    for h, c in zip(canon, cls, strict=True):
        if c != IDENTITY:
            by_class[c].append(h)
    desc = {n: d for n, d, _ in RULES}
    desc[CREDENTIAL] = (
        "secret-typed values no rule explains (test keys, JWT vectors, API-doc examples): look for a live one"
    )
    lines += [
        "",
        "Classes (over-redactions first; count, per MB of public text; examples: value | line | source):",
    ]
    for c, group in sorted(by_class.items(), key=lambda kv: (kv[0] in NOT_FALSE_POSITIVE, -len(kv[1]))):
        mark = " [not counted as over-redaction]" if c in NOT_FALSE_POSITIVE else ""
        lines.append(
            f"- {c}{mark}: {len(group)} ({len(group) / mb_text:.2f}/MB), {len({h.value for h in group})} "
            f"distinct; {desc.get(c, 'not classified yet')}"
        )
        shown: set[str] = set()
        sources: Counter[str] = Counter()
        for h in sorted(group, key=lambda h: hashlib.sha1((h.value + h.where).encode()).hexdigest()):
            if h.value in shown or sources[h.source] >= 1:
                continue
            shown.add(h.value)
            sources[h.source] += 1
            lines.append(f"    {_short(h.value, 50)!r} | {_short(h.line.strip(), 90)!r} | {h.source}")
            if len(shown) >= 3:
                break
    lines += ["", f"Top {top} redacted values per type (over-redactions):"]
    by_type: dict[str, Counter] = defaultdict(Counter)
    for h in pub_hits:
        by_type[h.type][h.value] += 1
    for t, c in sorted(by_type.items(), key=lambda kv: -sum(kv[1].values())):
        lines.append(
            f"  {t} ({sum(c.values())}): "
            + "; ".join(f"{_short(v, 40)!r} {n}" for v, n in c.most_common(top))
        )
    creds = [h for h, c in zip(canon, cls, strict=True) if c == CREDENTIAL]
    kinds = Counter(h.type for h in creds)
    lines += [
        "",
        f"Credential-shaped values ({len(creds)} findings, {len({h.value for h in creds})} distinct; "
        f"{', '.join(f'{t} {n}' for t, n in kinds.most_common())}). All sit in test suites, test vectors or "
        "API docs of the packages; a person should still look for a live one:",
    ]
    cc = Counter((h.type, h.value, h.source, h.where) for h in creds)
    for (t, v, s, w), n in sorted(cc.items(), key=lambda kv: (kv[0][2], kv[0][0]))[:40]:
        lines.append(f"  {t} x{n} {_short(v, 36)!r} in {s} {_short(w.rsplit('/', 1)[-1], 50)}")
    if len(cc) > 40:
        lines.append(f"  ... {len(cc) - 40} more")
    ids = [h for h, c in zip(canon, cls, strict=True) if c == IDENTITY]
    lines += [
        "",
        f"Owner identity ({len(ids)}): "
        + ", ".join(f"{t} {n}" for t, n in Counter((h.type + " in " + h.tool) for h in ids).most_common()),
    ]
    figures = {
        "mb_public_text": round(mb_text, 3),
        "mb_session_input": round(mb_in, 3),
        "seconds": round(seconds, 2),
        "findings_total": total,
        "findings_public_text": len(canon),
        "apart": dict(apart),
        "over_redactions": len(public),
        "over_redactions_per_mb": round(len(public) / mb_text, 3),
        "by_type": dict(Counter(h.type for h in pub_hits)),
        "by_detector": dict(Counter(h.detector for h in pub_hits)),
        "by_source": dict(Counter(h.source for h in pub_hits)),
        "by_class": {c: len(g) for c, g in by_class.items()},
        "top_values": {t: c.most_common(top) for t, c in by_type.items()},
    }
    return "\n".join(lines), figures


def candidates(hs: list[Hit], ident: list[str], per_class: int = 40) -> list[dict]:
    """Snippets of harmless text for the hand-labelled sample: per class, values from many sources."""
    by_class: dict[str, list[Hit]] = defaultdict(list)
    for h in hs:
        if h.canonical:
            by_class[classify(h, ident)].append(h)
    out = []
    for c, group in by_class.items():
        if c == IDENTITY:
            continue
        seen: set[str] = set()
        per_src: Counter[str] = Counter()
        for h in sorted(group, key=lambda h: hashlib.sha1((h.value + h.where).encode()).hexdigest()):
            if h.value in seen or per_src[h.source] >= max(3, per_class // 6):
                continue
            seen.add(h.value)
            per_src[h.source] += 1
            line = h.line
            i = line.find(h.value)
            if i < 0 or len(line) > 300:
                text = (h.before[-100:] + h.value + h.after[:100]).split("\n")
                text = "\n".join(x for x in text if x.strip())
            else:
                text = line.strip()
            out.append(
                {
                    "class": c,
                    "value": h.value,
                    "text": text,
                    "source": h.source,
                    "file": h.where.rsplit("/src/", 1)[-1],
                    "tool": h.tool,
                    "type": h.type,
                    "detector": h.detector,
                }
            )
            if len(seen) >= per_class:
                break
    return out


# -- the command -------------------------------------------------------------------------------------------
def prepare(cache: Path, allow_missing: bool, only: list[str]) -> list[tuple[Source, Path]]:
    got = []
    for s in load_sources():
        if only and not any(fnmatch.fnmatch(s.name, o) for o in only):
            continue
        try:
            got.append((s, fetch(s, cache)))
        except RuntimeError as e:
            if not allow_missing:
                raise SystemExit(f"error: {e}\n(--allow-missing runs without it)") from None
            print(f"warning: skipped {s.label}: {e}", file=sys.stderr)
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--keep", type=Path, help="Work in this (new or empty) folder and keep sessions and output."
    )
    ap.add_argument("--jobs", type=int, default=0, help="Passed to tracepub redact (0: one per core).")
    ap.add_argument(
        "--cache", type=Path, default=CACHE, help="Download cache (default: bench/.cache/overredaction)."
    )
    ap.add_argument("--allow-missing", action="store_true", help="Skip a source that cannot be downloaded.")
    ap.add_argument(
        "--only", action="append", default=[], help="Only sources whose name matches (repeatable)."
    )
    ap.add_argument("--top", type=int, default=20, help="Most frequent values shown per type.")
    ap.add_argument("--json", type=Path, help="Also write the figures as JSON to this file.")
    ap.add_argument(
        "--candidates", type=Path, help="Write candidate harmless snippets (JSONL) for labelling."
    )
    ap.add_argument(
        "--analyse",
        type=Path,
        metavar="DIR",
        help="Only read the findings of an earlier --keep DIR again (no build, no redaction).",
    )
    args = ap.parse_args(argv)
    if args.analyse:
        built, summary, seconds = load_run(args.analyse)
        hs, raw = hits(args.analyse / "out", built)
        return finish(args, built, summary, seconds, hs, raw)
    sources = prepare(args.cache, args.allow_missing, args.only)
    ctx = tempfile.TemporaryDirectory(prefix="tracepub-overred-") if args.keep is None else None
    work = args.keep or Path(ctx.name)  # type: ignore[union-attr]
    work.mkdir(parents=True, exist_ok=True)
    try:
        built = build(work, sources, args.cache)
        out = work / "out"
        t0 = time.perf_counter()
        summary = run_redact(built.corpus, out, built.env, args.jobs)
        seconds = time.perf_counter() - t0
        hs, raw = hits(out, built)
        if args.keep is not None:
            save_run(work, built, summary, seconds)
    finally:
        if ctx is not None:
            ctx.cleanup()
    return finish(args, built, summary, seconds, hs, raw)


def save_run(work: Path, built: Built, summary: dict, seconds: float) -> None:
    """What --analyse needs to read a kept run again."""
    data = {
        "sessions": built.sessions,
        "text_bytes": built.text_bytes,
        "by_source": built.by_source,
        "env": built.env,
        "summary": summary,
        "seconds": seconds,
        "user": vars(built.user),
    }
    (work / "run.json").write_text(json.dumps(data, indent=1), encoding="utf-8")


def load_run(work: Path) -> tuple[Built, dict, float]:
    d = json.loads((work / "run.json").read_text(encoding="utf-8"))
    built = Built(
        work / "corpus", d["env"], fk.FakeUser(**d["user"]), d["sessions"], d["text_bytes"], d["by_source"]
    )
    return built, d["summary"], d["seconds"]


def finish(
    args: argparse.Namespace, built: Built, summary: dict, seconds: float, hs: list[Hit], raw: list[dict]
) -> int:
    ident = identity_values(built.user)
    text, figures = report(hs, raw, built, summary, seconds, ident, args.top)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, ensure_ascii=False), encoding="utf-8")
    if args.candidates:
        with open(args.candidates, "w", encoding="utf-8") as fh:
            for row in candidates(hs, ident):
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
