"""Harvest the user's own identity and secrets before scanning.

Whatever the patterns know, the most common leak in shared traces is the author: their username
in every path, their name and email in every ``git log``, their hostname in every prompt, and
their own tokens, which may have no public format at all (a company-internal token). These
values are read from the machine and matched exactly (``detect/identity.py``, one Aho-Corasick
pass), so they are found wherever they occur, whatever their shape:

- git config ``user.name`` / ``user.email``, ``$USER``/``$LOGNAME``, the home folder's name,
  the account's full name, the hostname (``socket.gethostname()`` and ``$HOSTNAME``);
- values of environment variables with secret-like names (``*_TOKEN``, ``*_SECRET``, ...);
- credential files: ``~/.aws/credentials``, ``~/.netrc``, ``~/.git-credentials``,
  ``~/.config/gh/hosts.yml``, the Hugging Face token (``$HF_HOME/token``,
  ``~/.cache/huggingface/token``), ``~/.npmrc``, ``~/.pypirc``, ``~/.docker/config.json``.

When the traces were recorded elsewhere (copied from a laptop, redacted under another account),
the machine knows nothing of their owner, but the traces do: a session's working folder lies
under its owner's home (``/home/u/src``, ``/Users/u``, ``C:\\Users\\u``, ``/mnt/c/Users/u``,
and the harnesses' folder names ``-home-u-src``, ``--home-u-src--``). ``learn`` reads those
before the first pass (the units' paths, and the working-folder fields in the first kilobytes of
each session file), and the usernames it finds become identity values like the harvested ones.

Values are never written anywhere in clear: ``Harvest.summary()`` (what ``review/identity.json``
and the report show) carries only the type, where it came from and a masked form, and the
config hash uses keyed hashes.
"""

from __future__ import annotations

import base64
import binascii
import configparser
import json
import os
import pwd
import re
import socket
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tracepub.detect.identity import _GENERIC_USERS, WORKDIR_KEYS, HomePaths
from tracepub.detect.places import GENERIC_HOSTS
from tracepub.detect.secrets.filters import is_placeholder

SECRET_ENV = re.compile(
    r"(?i)(token|secret|passw(or)?d|passwd|api_?key|access_?key|private_?key|credential|auth)"
)
NOT_SECRET_ENV = re.compile(
    r"(?i)(_path|_file|_dir|_url|_host|_user(name)?|_region|_endpoint|_type|_mode|_method)$"
)
MIN_SECRET = 8
# Default hostnames name an OS image, not a person; matched everywhere they would eat "ubuntu".
_GENERIC_HOSTS = GENERIC_HOSTS
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")


@dataclass
class Harvest:
    values: dict[str, str] = field(default_factory=dict)  # value -> type
    origins: list[tuple[str, str, str]] = field(default_factory=list)  # (type, origin, masked value)

    def add(self, value: str | None, type_: str, origin: str) -> None:
        if not value:
            return
        value = value.strip()
        if len(value) < 2 or value in self.values:
            return
        if type_ == "identity.username" and value.lower() in _GENERIC_USERS:
            return
        if type_ == "identity.hostname" and value.lower() in _GENERIC_HOSTS:
            return
        if type_.startswith("secret.") and (len(value) < MIN_SECRET or is_placeholder(value)):
            return
        self.values[value] = type_
        self.origins.append((type_, origin, mask(value, type_)))

    def summary(self) -> list[dict[str, str]]:
        """What may be shown: type, origin and a masked value, never the value itself."""
        return [{"type": t, "origin": o, "masked": m} for t, o, m in self.origins]


def mask(value: str, type_: str = "") -> str:
    """A value as review/identity.json, run.json and the report show it: for the user's identity
    one letter (two would show a two-letter username whole, in ``jo-laptop`` too), the last one
    also when the value is long; for a secret two letters and the last one."""
    if type_.startswith("identity.") or len(value) <= 4:
        return value[:1] + "…" + (value[-1:] if len(value) >= 8 else "")
    return value[:2] + "…" + value[-1:]


def _git(args: list[str], env: dict[str, str]) -> str | None:
    try:
        out = subprocess.run(["git", "config", *args], capture_output=True, text=True, env=env, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _read(path: Path) -> str | None:
    try:
        if path.is_file() and path.stat().st_size < 1_000_000:
            return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        pass
    return None


# How a credential file's text is read: (text, the harvest, where it came from).
Parser = Callable[[str, Harvest, str], None]


def _home_files(home: Path, env: dict[str, str]) -> list[tuple[Path, str, Parser]]:
    hf_home = Path(env["HF_HOME"]) if env.get("HF_HOME") else home / ".cache" / "huggingface"
    gh = Path(env["GH_CONFIG_DIR"]) if env.get("GH_CONFIG_DIR") else home / ".config" / "gh"
    aws = (
        Path(env["AWS_SHARED_CREDENTIALS_FILE"])
        if env.get("AWS_SHARED_CREDENTIALS_FILE")
        else home / ".aws" / "credentials"
    )
    docker = (
        Path(env["DOCKER_CONFIG"]) / "config.json"
        if env.get("DOCKER_CONFIG")
        else home / ".docker" / "config.json"
    )
    files: list[tuple[Path, str, Parser]] = [
        (aws, "~/.aws/credentials", _aws),
        (home / ".netrc", "~/.netrc", _netrc),
        (home / "_netrc", "~/_netrc", _netrc),
        (home / ".git-credentials", "~/.git-credentials", _git_credentials),
        (gh / "hosts.yml", "gh hosts.yml", _gh_hosts),
        (hf_home / "token", "Hugging Face token", _whole),
        (hf_home / "stored_tokens", "Hugging Face stored tokens", _ini_secrets),
        (home / ".npmrc", "~/.npmrc", _npmrc),
        (home / ".pypirc", "~/.pypirc", _ini_secrets),
        (docker, "~/.docker/config.json", _docker),
    ]
    if env.get("HF_TOKEN_PATH"):
        files.append((Path(env["HF_TOKEN_PATH"]), "Hugging Face token", _whole))
    return files


# -- credential file parsers: each adds what it finds, and never fails on a malformed file -------
def _aws(text: str, h: Harvest, origin: str) -> None:
    for m in re.finditer(
        r"(?im)^\s*(aws_access_key_id|aws_secret_access_key|aws_session_token)\s*=\s*(\S+)", text
    ):
        h.add(m.group(2), "secret.aws_credentials", origin)


def _netrc(text: str, h: Harvest, origin: str) -> None:
    tokens = text.split()
    for key, value in zip(tokens, tokens[1:], strict=False):
        if key == "password":
            h.add(value, "secret.netrc_password", origin)
        elif key == "login" and _EMAIL.match(value):
            h.add(value, "identity.email", origin)


def _git_credentials(text: str, h: Harvest, origin: str) -> None:
    for m in re.finditer(r"(?m)^\s*\w[\w+.-]*://([^:/@\s]+):([^@\s]+)@", text):
        h.add(m.group(2), "secret.git_credentials", origin)
        if _EMAIL.match(m.group(1)):
            h.add(m.group(1), "identity.email", origin)


def _gh_hosts(text: str, h: Harvest, origin: str) -> None:
    for m in re.finditer(r"(?m)^\s*(oauth_token|token)\s*:\s*['\"]?([^'\"\s]+)", text):
        h.add(m.group(2), "secret.github_token", origin)
    for m in re.finditer(r"(?m)^\s*user\s*:\s*['\"]?([A-Za-z0-9][A-Za-z0-9-]{1,38})", text):
        h.add(m.group(1), "identity.username", origin)


def _whole(text: str, h: Harvest, origin: str) -> None:
    value = text.strip()
    if value and "\n" not in value:
        h.add(value, "secret.token_file", origin)


def _ini_secrets(text: str, h: Harvest, origin: str) -> None:
    """``.pypirc`` and Hugging Face's ``stored_tokens``: every password/token value."""
    cp = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        cp.read_string(text)
    except configparser.Error:
        for m in re.finditer(r"(?im)^\s*(password|token|hf_token)\s*[=:]\s*(\S+)", text):
            h.add(m.group(2), "secret.credentials_file", origin)
        return
    for section in cp.sections():
        for key, value in cp.items(section):
            if key in ("password", "token", "hf_token"):
                h.add(value, "secret.credentials_file", origin)


def _npmrc(text: str, h: Harvest, origin: str) -> None:
    for m in re.finditer(
        r"(?m)^\s*(?:\S*:)?(_authToken|_auth|_password|email)\s*=\s*['\"]?([^'\"\s]+)", text
    ):
        key, value = m.group(1), m.group(2)
        if key == "email":
            h.add(value, "identity.email", origin)
            continue
        h.add(value, "secret.npm_token", origin)
        if key in ("_auth", "_password"):
            decoded = _b64(value)
            if decoded:
                h.add(decoded.split(":", 1)[-1], "secret.npm_token", origin)


def _docker(text: str, h: Harvest, origin: str) -> None:
    try:
        doc = json.loads(text)
    except ValueError:
        return
    auths = doc.get("auths") if isinstance(doc, dict) else None
    for entry in (auths or {}).values():
        if not isinstance(entry, dict):
            continue
        for key in ("auth", "identitytoken", "registrytoken", "password"):
            value = entry.get(key)
            if isinstance(value, str):
                h.add(value, "secret.docker_auth", origin)
                if key == "auth":
                    decoded = _b64(value)
                    if decoded and ":" in decoded:
                        h.add(decoded.split(":", 1)[1], "secret.docker_auth", origin)


def _b64(value: str) -> str | None:
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def read_secrets_file(path: Path) -> list[str]:
    """Values from a ``--secrets-file``: one per line; ``KEY=value`` lines give the value."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.partition("=")
        out.append(value.strip() if eq and key and " " not in key.strip() else line)
    return out


def collect(
    secrets: tuple[str, ...] | list[str] = (),
    secrets_files: tuple | list = (),
    config_secrets: tuple | list = (),
    env: dict[str, str] | None = None,
    home: Path | None = None,
) -> Harvest:
    """Everything matched exactly: the harvest plus ``--secret``, ``--secrets-file`` and
    ``tracepub.toml`` secrets. Re-runs (review, publish's re-scan) call this again instead of
    reading stored values: the values are never stored in clear, only their keyed hashes
    (``runstate.py``), which tell a re-run whether it still has them all."""
    h = harvest(env, home)
    for value in secrets:
        h.add(value, "secret.user_supplied", "--secret")
    for f in secrets_files:
        for value in read_secrets_file(Path(f)):
            h.add(value, "secret.user_supplied", str(f))
    for value in config_secrets:
        h.add(value, "secret.user_supplied", "tracepub.toml")
    return h


def harvest(env: dict[str, str] | None = None, home: Path | None = None) -> Harvest:
    env = dict(os.environ if env is None else env)
    home = home or Path(env.get("HOME") or Path.home())
    h = Harvest()
    h.add(env.get("USER"), "identity.username", "$USER")
    h.add(env.get("LOGNAME"), "identity.username", "$LOGNAME")
    if home.parent.name in ("home", "Users") or home.parent == Path("/home"):
        h.add(home.name, "identity.username", "home folder")
    try:
        pw = pwd.getpwuid(os.getuid())
        if Path(pw.pw_dir) == home:
            h.add(pw.pw_name, "identity.username", "account")
            gecos = pw.pw_gecos.split(",")[0].strip()
            if " " in gecos:
                h.add(gecos, "identity.name", "account name")
    except (KeyError, OSError):
        pass
    for host, origin in ((socket.gethostname(), "hostname"), (env.get("HOSTNAME", ""), "$HOSTNAME")):
        h.add(host, "identity.hostname", origin)
        if "." in host:
            h.add(host.split(".")[0], "identity.hostname", origin)
    genv = {**env, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    h.add(_git(["--global", "--get", "user.name"], genv), "identity.name", "git config user.name")
    h.add(_git(["--global", "--get", "user.email"], genv), "identity.email", "git config user.email")
    for name, value in sorted(env.items()):
        if SECRET_ENV.search(name) and not NOT_SECRET_ENV.search(name) and value and len(value) >= MIN_SECRET:
            if "/" in value and " " not in value and value.startswith(("/", "~", ".")):
                continue  # a path, not a secret
            h.add(value, "secret.environment", f"${name}")
    for path, origin, parse in _home_files(home, env):
        text = _read(path)
        if text:
            parse(text, h, origin)
    return h


# -- owners learned from the traces ------------------------------------------------------------------
HEAD_BYTES = 256 << 10  # a session file's working folder is read from this much of its start
_KEYS = "|".join(re.escape(k) for k in sorted(WORKDIR_KEYS))
_WORKDIR_FIELD = re.compile(rf'"(?:{_KEYS})"\s*:\s*(?:\[\s*)?"((?:[^"\\]|\\.){{1,500}})"')
# A home folder at the start of a working folder (``/home/u``, ``/Users/u``, ``C:\Users\u``, WSL).
_HOME_START = re.compile(r"(?:/home/|/Users/|/mnt/[a-z]/Users/|[A-Za-z]:[\\/]Users[\\/])([^/\\]+)")


def learn(units) -> dict[str, int]:
    """The owners the sessions name: username -> how many sessions (``units``: discovered
    ``Unit``s). From a unit's path (the harness's encoded folder name, ``-home-u-src``) and from
    the working-folder fields (``"cwd"``, ``"directory"``, ...) in the first ``HEAD_BYTES`` of a
    session file (JSON, JSONL). Generic accounts (``runner``, ``ubuntu``) name no one."""
    seen: dict[str, set[int]] = {}
    for i, u in enumerate(units):
        names = set(_from_path(u.relpath))
        if getattr(u, "kind", "jsonl") in ("jsonl", "json"):
            names.update(_from_head(Path(u.source)))
        for name in names:
            seen.setdefault(name, set()).add(i)
    return {n: len(s) for n, s in sorted(seen.items())}


def _from_path(relpath: str) -> list[str]:
    found = HomePaths._found(relpath)
    return [n for a, b in found if _owner_name(n := relpath[a:b])]


def _from_head(path: Path) -> list[str]:
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return []
    out = []
    for m in _WORKDIR_FIELD.finditer(head):
        try:
            folder = json.loads(f'"{m.group(1)}"')
        except ValueError:
            continue
        h = _HOME_START.match(folder)
        if h and _owner_name(h.group(1)):
            out.append(h.group(1))
    return list(dict.fromkeys(out))


def _owner_name(name: str) -> bool:
    return (
        bool(name) and name.lower() not in _GENERIC_USERS and not name.startswith(".") and not name.isdigit()
    )


def with_learned(opts, units):
    """``opts`` (``RunOptions``) with the owners ``learn`` finds added to the identity values
    (``identity.username``, placeholder ``<USER>``) and to the summary review/identity.json shows
    (masked). A value the harvest has already is left as it is."""
    import dataclasses

    owners = learn(units)
    known = {v.lower() for v in opts.detect.identity}
    new = {n: c for n, c in owners.items() if n.lower() not in known}
    if not new:
        return opts
    identity = {**opts.detect.identity, **dict.fromkeys(new, "identity.username")}
    summary = [
        *opts.identity_summary,
        *(
            {
                "type": "identity.username",
                "origin": f"working folder of {c} session{'s' * (c > 1)}",
                "masked": mask(n, "identity.username"),
            }
            for n, c in new.items()
        ),
    ]
    return dataclasses.replace(
        opts, detect=dataclasses.replace(opts.detect, identity=identity), identity_summary=summary
    )
