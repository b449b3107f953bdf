"""A small local stand-in for the Hugging Face Hub API, for tests only (loopback, no network).

It speaks just the part of the Hub HTTP API that ``huggingface_hub``'s ``HfApi`` uses to
publish a dataset and to download it again: create a repo, repo info, paths-info, tree,
validate-yaml, the agent-harness registry the client fetches once a day, preupload (always answering "regular", so neither LFS nor Xet is used), the
NDJSON commit endpoint (with ``create_pr=1`` it opens a pull request instead: the files go to the
PR, main is untouched), and resolve (download). Every request is recorded so tests can assert
what reached the server, and in particular that a refused publish sent no commit. A test can
make commits hang (``hang_commits``: the server never answers until the test ends).

Use the ``hub`` fixture: it starts the server on 127.0.0.1, points ``HF_ENDPOINT`` at it, turns
the suite's offline mode off for ``huggingface_hub`` and sets a fake ``HF_TOKEN``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

TOKEN = "hf_test" + "Tok3n" + "NeverPrinted0123456789abcdef"  # fake, but must never show in output


def git_oid(data: bytes) -> str:
    """The git blob id the Hub reports as a regular file's ``oid``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Repo:
    repo_id: str
    private: bool
    files: dict[str, bytes] = field(default_factory=dict)
    sha: str = field(default_factory=lambda: secrets.token_hex(20))
    prs: list[dict[str, Any]] = field(default_factory=list)  # {"num", "summary", "files": {path: bytes}}


@dataclass
class Request:
    method: str
    path: str
    authorized: bool
    token_seen: bool


class FakeHub:
    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.requests: list[Request] = []
        self.commits: list[dict[str, Any]] = []  # {"repo", "summary", "description", "files": {path: bytes}}
        self.unknown: list[str] = []  # requests this server does not implement
        # Called with the repo id when a create request arrives, before the server looks whether
        # the repo exists: a test makes someone else create it at that moment (a race).
        self.on_create: Callable[[str], None] | None = None
        self.hang_commits = False  # a commit request is never answered (until stop)
        self.released = threading.Event()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.url = ""

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> str:
        hub = self

        class Handler(_Handler):
            fake = hub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        return self.url

    def stop(self) -> None:
        self.released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # -- helpers for tests ---------------------------------------------------------------------
    def add_repo(self, repo_id: str, private: bool = True, files: dict[str, bytes] | None = None) -> Repo:
        repo = Repo(repo_id, private, dict(files or {}))
        self.repos[repo_id] = repo
        return repo

    def commit_requests(self) -> list[Request]:
        return [r for r in self.requests if r.method == "POST" and "/commit/" in r.path]


class _Handler(BaseHTTPRequestHandler):
    fake: FakeHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- plumbing ------------------------------------------------------------------------------
    def _body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _send(
        self,
        status: int,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
        content_type: str = "application/json",
        head: bool = False,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(value).encode(), headers)

    def _not_found(self, code: str = "RepoNotFound", message: str = "Repository not found") -> None:
        self._json(404, {"error": message}, {"X-Error-Code": code, "X-Error-Message": message})

    def _record(self) -> bool:
        auth = self.headers.get("Authorization", "")
        ok = auth == f"Bearer {TOKEN}"
        self.fake.requests.append(Request(self.command, self.path, ok, TOKEN in auth))
        return ok

    def _repo(self, ns: str, name: str) -> Repo | None:
        return self.fake.repos.get(f"{unquote(ns)}/{unquote(name)}")

    # -- routes --------------------------------------------------------------------------------
    def do_HEAD(self) -> None:
        self._record()
        self._resolve(head=True)

    def do_GET(self) -> None:
        self._record()
        path = urlsplit(self.path).path
        if path.startswith("/datasets/"):
            return self._resolve(head=False)
        m = re.fullmatch(r"/api/datasets/([^/]+)/([^/]+)(?:/revision/[^/]+)?", path)
        if m:
            repo = self._repo(*m.groups())
            if repo is None:
                return self._not_found()
            return self._json(200, _info(repo))
        m = re.fullmatch(r"/api/datasets/([^/]+)/([^/]+)/tree/([^/]+)(?:/(.*))?", path)
        if m:
            repo = self._repo(m.group(1), m.group(2))
            if repo is None:
                return self._not_found()
            prefix = unquote(m.group(4) or "").strip("/")
            return self._json(
                200,
                [
                    _entry(p, d)
                    for p, d in sorted(repo.files.items())
                    if not prefix or p.startswith(prefix + "/")
                ],
            )
        if path == "/api/agent-harnesses":  # the client's agent-detection registry (best effort)
            return self._json(200, {"standardEnvVars": [], "harnesses": {}})
        if path == "/api/whoami-v2":
            return self._json(200, {"type": "user", "name": "me", "auth": {"type": "access_token"}})
        self.fake.unknown.append(f"GET {path}")
        self._not_found("EntryNotFound", "not implemented by the test hub")

    def do_POST(self) -> None:
        authorized = self._record()
        path = urlsplit(self.path).path
        body = self._body()
        if path == "/api/validate-yaml":
            return self._json(200, {"errors": [], "warnings": []})
        if not authorized:
            return self._json(401, {"error": "Invalid credentials in Authorization header"})
        if path == "/api/repos/create":
            data = json.loads(body)
            repo_id = f"{data.get('organization') or 'me'}/{data['name']}"
            url = f"{self.fake.url}/datasets/{repo_id}"
            if self.fake.on_create is not None:
                self.fake.on_create(repo_id)
            with self.fake._lock:
                if repo_id in self.fake.repos:
                    return self._json(409, {"error": "You already created this dataset repo", "url": url})
                private = data.get("visibility", "private" if data.get("private") else "public") == "private"
                self.fake.add_repo(repo_id, private)
            return self._json(200, {"url": url, "name": repo_id})
        m = re.fullmatch(r"/api/datasets/([^/]+)/([^/]+)/(paths-info|preupload|commit)/([^/]+)", path)
        if not m:
            self.fake.unknown.append(f"POST {path}")
            return self._not_found("EntryNotFound", "not implemented by the test hub")
        repo = self._repo(m.group(1), m.group(2))
        if repo is None:
            return self._not_found()
        kind = m.group(3)
        if kind == "paths-info":
            paths = parse_qs(body.decode())["paths"]
            return self._json(200, [_entry(p, repo.files[p]) for p in paths if p in repo.files])
        if kind == "preupload":
            files = json.loads(body)["files"]
            return self._json(
                200,
                {
                    "files": [
                        {
                            "path": f["path"],
                            "uploadMode": "regular",
                            "shouldIgnore": False,
                            "oid": git_oid(repo.files[f["path"]]) if f["path"] in repo.files else None,
                        }
                        for f in files
                    ]
                },
            )
        if self.fake.hang_commits:
            self.fake.released.wait(120)
            return None
        return self._commit(repo, body)

    def _commit(self, repo: Repo, body: bytes) -> None:
        pr = "create_pr=1" in (urlsplit(self.path).query or "")
        header: dict[str, Any] = {}
        files: dict[str, bytes] = {}
        for line in body.splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            if item["key"] == "header":
                header = item["value"]
            elif item["key"] == "file":
                v = item["value"]
                files[v["path"]] = (
                    base64.b64decode(v["content"]) if v.get("encoding") == "base64" else v["content"].encode()
                )
            else:  # lfsFile, deletedFile...: not expected from tracepub
                return self._json(400, {"error": f"unsupported commit operation {item['key']}"})
        with self.fake._lock:
            sha = secrets.token_hex(20)
            pr_url = None
            if pr:  # a pull request: main stays as it was
                num = len(repo.prs) + 1
                repo.prs.append({"num": num, "summary": header.get("summary", ""), "files": files})
                pr_url = f"{self.fake.url}/datasets/{repo.repo_id}/discussions/{num}"
            else:
                repo.files.update(files)
                repo.sha = sha
            self.fake.commits.append(
                {
                    "repo": repo.repo_id,
                    "summary": header.get("summary", ""),
                    "description": header.get("description", ""),
                    "files": files,
                    "pr": pr,
                }
            )
        self._json(
            200,
            {
                "commitUrl": f"{self.fake.url}/datasets/{repo.repo_id}/commit/{sha}",
                "commitOid": sha,
                "pullRequestUrl": pr_url,
            },
        )

    def _resolve(self, head: bool) -> None:
        path = urlsplit(self.path).path
        m = re.fullmatch(r"/datasets/([^/]+)/([^/]+)/resolve/([^/]+)/(.+)", path)
        repo = self._repo(m.group(1), m.group(2)) if m else None
        if m is None or repo is None:
            return self._not_found()
        name = unquote(m.group(4))
        if name not in repo.files:
            return self._not_found("EntryNotFound", "Entry not found")
        data = repo.files[name]
        self._send(
            200,
            data,
            {"X-Repo-Commit": repo.sha, "ETag": f'"{git_oid(data)}"'},
            content_type="application/octet-stream",
            head=head,
        )


def _entry(path: str, data: bytes) -> dict[str, Any]:
    return {"type": "file", "path": path, "size": len(data), "oid": git_oid(data)}


def _info(repo: Repo) -> dict[str, Any]:
    return {
        "id": repo.repo_id,
        "private": repo.private,
        "sha": repo.sha,
        "siblings": [
            {"rfilename": p, "size": len(d), "blobId": git_oid(d)} for p, d in sorted(repo.files.items())
        ],
    }


@pytest.fixture
def hub(monkeypatch):
    """A running FakeHub; HF_ENDPOINT points at it and HF_TOKEN holds a fake token."""
    import huggingface_hub.constants as hf_constants

    fake = FakeHub()
    url = fake.start()
    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hf_constants, "ENDPOINT", url)
    monkeypatch.setattr(
        hf_constants, "HUGGINGFACE_CO_URL_TEMPLATE", url + "/{repo_id}/resolve/{revision}/{filename}"
    )
    _loopback_only(monkeypatch)
    # The stored login lives under HF_HOME; keep the real one out of reach.
    monkeypatch.setattr(hf_constants, "HF_TOKEN_PATH", str(_nowhere(monkeypatch)))
    yield fake
    fake.stop()


def _loopback_only(monkeypatch) -> None:
    """Any attempt to resolve a host other than the loopback fails at once: tests stay offline
    even if some code path ignored HF_ENDPOINT."""
    real = socket.getaddrinfo

    def guarded(host, *args, **kwargs):
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise OSError(f"test suite is offline: refused to resolve {host!r}")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", guarded)


def _nowhere(monkeypatch) -> str:
    import os
    import tempfile

    d = tempfile.mkdtemp(prefix="hfhome-")
    monkeypatch.setenv("HF_HOME", d)
    return os.path.join(d, "token")
