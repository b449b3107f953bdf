"""Harvest the user's own identity and secrets before scanning.

Whatever the patterns know, the most common leak in shared traces is the author: their username
in every path, their name and email in every ``git log``, their hostname in every prompt, and
their own tokens, which may have no public format at all. These values are read from the
machine (git config, ``$USER``, home folder, hostname, secret-like environment variables and
credential files) and matched exactly. They are never written anywhere in clear: the report
shows them masked and the config hash uses their keyed hashes.
"""

from __future__ import annotations

import os
import pwd
import re
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tracepub.detect.identity import _GENERIC_USERS

SECRET_ENV = re.compile(r"(?i)(token|secret|passw(or)?d|passwd|api_?key|access_?key|private_?key|credential|auth)")
NOT_SECRET_ENV = re.compile(r"(?i)(_path|_file|_dir|_url|_host|_user(name)?|_region|_endpoint|_type|_mode)$")
MIN_SECRET = 8


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
        if type_ == "identity.hostname" and value.lower() in ("localhost", "localhost.localdomain"):
            return
        if type_.startswith("secret.") and len(value) < MIN_SECRET:
            return
        self.values[value] = type_
        self.origins.append((type_, origin, mask(value)))


def mask(value: str) -> str:
    if len(value) <= 4:
        return value[:1] + "…"
    return value[:2] + "…" + value[-1:]


def _git(args: list[str], env: dict[str, str]) -> str | None:
    try:
        out = subprocess.run(["git", "config", *args], capture_output=True, text=True, env=env, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


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
    host = socket.gethostname()
    h.add(host, "identity.hostname", "hostname")
    if "." in host:
        h.add(host.split(".")[0], "identity.hostname", "hostname")
    genv = {**env, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    h.add(_git(["--global", "--get", "user.name"], genv), "identity.name", "git config user.name")
    h.add(_git(["--global", "--get", "user.email"], genv), "identity.email", "git config user.email")
    for name, value in sorted(env.items()):
        if SECRET_ENV.search(name) and not NOT_SECRET_ENV.search(name) and value and len(value) >= MIN_SECRET:
            if "/" in value and " " not in value and value.startswith(("/", "~", ".")):
                continue  # a path, not a secret
            h.add(value, "secret.environment", f"${name}")
    return h
