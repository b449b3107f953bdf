"""A labelled evaluation corpus: realistic sessions in every harness format with planted values.

    python bench/corpus.py OUT --size 20MB [--seed 1]

writes ``OUT/corpus/`` (sessions as each harness stores them), ``OUT/home/<user>/`` (a fake home
folder whose credential files and git config the identity harvest reads), ``OUT/env.json``
(the environment to run tracepub with: the fake user's variables and secrets),
``OUT/labels.jsonl`` (one line per planted value: session, harness, kind, type, value, where)
and ``OUT/sessions.jsonl`` (each session's harness, file and canary).

Kinds: ``secret`` (must not leak, not even a 16-character piece), ``pii``, ``identity`` (the
fake user's own name, username, email, hostname, home and tokens: zero leaks allowed), and
``negative`` (harmless look-alikes that must survive: git SHAs, UUIDs, integrity hashes,
public keys, placeholders, documentation example keys, private IPs).

Secret types are drawn from the rule pack at run time (``patterns/*.toml``
examples), so every new rule is planted automatically, plus structural secrets no single rule
names (URL passwords, private keys, service-account JSON, docker auths, kubeconfig tokens).
Each session carries a canary (``evalref-<harness>-<n>``) in its first prompt, so the
evaluation can tell which sessions a reader picked up and which output file holds each one.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import corpus_fake as fk  # noqa: E402
from corpus_bulk import Bulk, docker_pull, git_diff, go_sum, package_lock, prose  # noqa: E402
from corpus_formats import WEIGHTS, WRITERS, Call, Session, Step, Writer  # noqa: E402

from tracepub.detect.secrets.patterns import PatternDetector  # noqa: E402
from tracepub.detect.secrets.rules import Rule, load_rules  # noqa: E402
from tracepub.fakes import expand  # noqa: E402


def parse_size(text: str) -> int:
    m = re.fullmatch(r"(?i)\s*([\d.]+)\s*(b|kb|k|mb|m|gb|g)?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (e.g. 500KB, 20MB)")
    unit = (m.group(2) or "b").lower()[0]
    return int(float(m.group(1)) * {"b": 1, "k": 1e3, "m": 1e6, "g": 1e9}[unit])


# -- secret values ---------------------------------------------------------------------------------
@dataclass
class Secret:
    type: str
    value: str
    source: str  # rule id, or the structural kind
    example: str = ""  # the rule example's full text, for values that need their context
    standalone: bool = True  # the bare value is recognisable without its example's context
    env: str = "API_KEY"


_ENV_FIX = re.compile(r"[^A-Z0-9]+")


class SecretPool:
    """Fresh secret values of every type the rule pack knows, plus structural ones."""

    STRUCTURAL = [
        "url_password",
        "yaml_password",
        "pem",
        "openssh",
        "gcp_sa",
        "docker_auth",
        "kube_token",
        "jwt",
        "basic_auth",
        "api_key_header",
        "pypirc",
        "git_remote",
    ]

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.rules = [r for r in load_rules() if r.examples]

    def from_rule(self, rule: Rule) -> Secret | None:
        for _ in range(4):
            text = expand(self.rng.choice(rule.examples), self.rng)
            spans = PatternDetector.apply(rule, text)
            if not spans:
                continue
            s = spans[0]
            value = text[s.start : s.end]
            alone = PatternDetector.apply(rule, value)
            standalone = bool(alone) and alone[0].start == 0 and alone[0].end == len(value)
            env = _ENV_FIX.sub("_", rule.type.partition(".")[2].upper()).strip("_") or "API_KEY"
            return Secret(rule.type, value, rule.id, text, standalone, env)
        return None

    def draw(self) -> Secret:
        if self.rules and self.rng.random() < 0.7:
            s = self.from_rule(self.rng.choice(self.rules))
            if s is not None:
                return s
        return self.structural(self.rng.choice(self.STRUCTURAL))

    def structural(self, kind: str) -> Secret:
        r = self.rng
        if kind in ("url_password", "yaml_password"):
            return Secret(
                "secret.password",
                expand("{{alnum:10}}", r) + r.choice("-_.") + expand("{{alnum:8}}", r),
                kind,
                env="DB_PASSWORD",
            )
        if kind == "pem":
            lead, label = r.choice(
                [
                    ("MIIEowIBAAKCAQEA", "RSA PRIVATE KEY"),
                    ("MHcCAQEEI", "EC PRIVATE KEY"),
                    ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "PRIVATE KEY"),
                ]
            )
            return Secret(
                "secret.private_key",
                fk.pem_body(r, lead, 1190 if "RSA" in label or label == "PRIVATE KEY" else 121),
                kind,
                example=label,
            )
        if kind == "openssh":
            return Secret(
                "secret.private_key",
                fk.pem_body(
                    r, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 400, 70
                ),
                kind,
                example="OPENSSH PRIVATE KEY",
            )
        if kind == "gcp_sa":
            return Secret(
                "secret.private_key", fk.pem_body(r, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 1190), kind
            )
        if kind == "docker_auth":
            return Secret(
                "secret.docker_auth",
                base64.b64encode(f"ci-bot:{expand('{{alnum:24}}', r)}".encode()).decode(),
                kind,
            )
        if kind == "kube_token":
            return Secret("secret.kubernetes_token", self.jwt(), kind)
        if kind == "jwt":
            return Secret("secret.jwt", self.jwt(), kind, env="SESSION_TOKEN")
        if kind == "basic_auth":
            return Secret(
                "secret.basic_auth",
                base64.b64encode(f"deploy:{expand('{{alnum:16}}', r)}".encode()).decode(),
                kind,
            )
        if kind == "api_key_header":
            return Secret("secret.api_key", expand("{{hex:32}}", r), kind, env="PARTNER_API_KEY")
        if kind == "pypirc":
            return Secret(
                "secret.pypi_token",
                "pypi-AgEIcHlwaS5vcmc" + expand("{{b64url:120}}", r),
                kind,
                env="PYPI_TOKEN",
            )
        if kind == "git_remote":
            return Secret("secret.github_token", expand("{{github:ghs}}", r), kind, env="GITHUB_TOKEN")
        raise ValueError(kind)

    def jwt(self) -> str:
        def enc(obj: dict) -> str:
            return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

        payload = {
            "sub": fk.uuid4(self.rng),
            "iss": "https://auth.northwind-labs.io",
            "exp": 1893456000,
            "scope": "read write",
            "jti": fk.hexs(self.rng, 16),
        }
        return f"{enc({'alg': 'RS256', 'typ': 'JWT'})}.{enc(payload)}.{expand('{{b64url:86}}', self.rng)}"


# -- the planter -----------------------------------------------------------------------------------
PLACEHOLDERS = [
    "YOUR_API_KEY",
    "${OPENAI_API_KEY}",
    "<token>",
    "${{ secrets.NPM_TOKEN }}",
    "<your-github-token>",
    "$GITHUB_TOKEN",
    "your-api-key-here",
    "sk-...",
    "xxxxxxxxxxxxxxxxxxxx",
    "{{ vault_db_password }}",
    "%(SECRET_KEY)s",
    "changeme",
    "<PASSWORD>",
    "REPLACE_ME",
]
DOC_EXAMPLES = ["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]
HARMLESS_ENV = [
    "SHELL=/bin/bash",
    "LANG=en_US.UTF-8",
    "TERM=xterm-256color",
    "EDITOR=nvim",
    "PAGER=less",
    "NODE_ENV=development",
    "PYTHONDONTWRITEBYTECODE=1",
    "COLORTERM=truecolor",
    "SHLVL=2",
    "XDG_SESSION_TYPE=wayland",
    "GOPATH=/opt/go",
    "LOG_LEVEL=debug",
    "TZ=Europe/Stockholm",
]


class Planter:
    """Builds the steps of one session, recording every planted value as a label."""

    def __init__(self, rng: random.Random, user: fk.FakeUser, pool: SecretPool, bulk: Bulk):
        self.rng, self.user, self.pool, self.bulk = rng, user, pool, bulk
        self.labels: dict[tuple[str, str], dict] = {}
        self.session = ""
        self.harness = ""
        self.cwd = ""

    def start(self, session: str, harness: str, cwd: str) -> None:
        self.session, self.harness, self.cwd = session, harness, cwd

    def label(self, kind: str, type_: str, value: str, where: str) -> str:
        key = (self.session, value)
        if key not in self.labels and value:
            self.labels[key] = {
                "session": self.session,
                "harness": self.harness,
                "kind": kind,
                "type": type_,
                "value": value,
                "where": where,
            }
        return value

    def secret(self, s: Secret, where: str) -> str:
        return self.label("secret", s.type, s.value, where)

    def negative(self, type_: str, value: str, where: str) -> str:
        return self.label("negative", type_, value, where)

    def pii(self, type_: str, value: str, where: str) -> str:
        return self.label("pii", type_, value, where)

    def ident(self, type_: str, value: str, where: str) -> str:
        return self.label("identity", type_, value, where)

    # -- helpers -----------------------------------------------------------------------------
    def standalone(self) -> Secret:
        for _ in range(20):
            s = self.pool.draw()
            if s.standalone and "\n" not in s.value and s.source not in ("pem", "openssh", "gcp_sa"):
                return s
        return self.pool.structural("api_key_header")

    def name(self, where: str) -> tuple[str, str]:
        n = fk.person(self.rng)
        return self.pii("pii.person", n, where), self.pii("pii.email", fk.email_for(self.rng, n), where)

    def call(self, kind: str, output: str, **args) -> Step:
        return Step("call", call=Call(kind, args, output))

    def path(self, rel: str) -> str:
        return f"{self.cwd}/{rel}"

    # -- secret contexts ----------------------------------------------------------------------
    def env_dump(self) -> Step:
        u, r = self.user, self.rng
        lines = list(HARMLESS_ENV)
        lines += [
            f"HOME={self.ident('identity.home', u.home, 'env')}",
            f"USER={self.ident('identity.username', u.username, 'env')}",
            f"HOSTNAME={self.ident('identity.hostname', u.hostname, 'env')}",
            f"PATH={u.home}/.local/bin:/usr/local/bin:/usr/bin:/bin",
            f"NWL_DEPLOY_TOKEN={self.ident('identity.own_token', u.tokens['internal_token'], 'env')}",
        ]
        for _ in range(r.randint(2, 5)):
            s = self.standalone()
            lines.append(f"{s.env}={self.secret(s, 'env_dump')}")
        lines.append(
            f"AWS_ACCESS_KEY_ID={self.negative('doc_example', DOC_EXAMPLES[0], 'env_dump')}"
            if r.random() < 0.3
            else f"API_BASE=https://api.{r.choice(fk.MAIL_DOMAINS)}"
        )
        r.shuffle(lines)
        return self.call("shell", "\n".join(lines), command=r.choice(["env | sort", "printenv", "env"]))

    def dotenv(self) -> Step:
        r = self.rng
        lines = [f"# {self.cwd}/.env", "PORT=8080", "NODE_ENV=development"]
        for _ in range(r.randint(2, 4)):
            s = self.standalone()
            q = r.choice(["", '"', "'"])
            lines.append(f"{s.env}={q}{self.secret(s, 'dotenv')}{q}")
        pw = self.pool.structural("url_password")
        lines.append(
            f"DATABASE_URL=postgres://app:{self.secret(pw, 'url_password')}@db.{r.choice(['internal', 'prod', 'staging'])}"
            f".northwind-labs.io:5432/app"
        )
        ph = self.negative("placeholder", r.choice(PLACEHOLDERS), "dotenv")
        lines.append(f"STRIPE_SECRET_KEY={ph}")
        lines.append(f"SENTRY_RELEASE={self.negative('git_sha', fk.hexs(r, 40), 'dotenv')}")
        return self.call(
            "read",
            "\n".join(lines) + "\n",
            path=self.path(r.choice([".env", ".env.local", "deploy/.env.production"])),
        )

    def yaml_config(self) -> Step:
        r = self.rng
        s1, s2 = self.standalone(), self.standalone()
        pw = self.pool.structural("yaml_password")
        text = "\n".join(
            [
                "server:",
                "  port: 8080",
                "  request_id_header: X-Request-Id",
                "database:",
                "  host: db.internal",
                "  user: app",
                f"  password: {self.secret(pw, 'yaml')}",
                "integrations:",
                f"  {s1.env.lower()}: {self.secret(s1, 'yaml')}",
                f'  {s2.env.lower()}: "{self.secret(s2, "yaml")}"',
                f"  webhook_secret: {self.negative('placeholder', r.choice(PLACEHOLDERS), 'yaml')}",
                "image:",
                f"  digest: {self.negative('docker_digest', 'sha256:' + fk.hexs(r, 64), 'yaml')}",
                f"  build_id: {self.negative('uuid', fk.uuid4(r), 'yaml')}",
                "",
            ]
        )
        return self.call(
            "read",
            text,
            path=self.path(r.choice(["config/settings.yml", "docker-compose.yml", "config.yaml"])),
        )

    def toml_config(self) -> Step:
        r = self.rng
        s = self.standalone()
        text = "\n".join(
            [
                "[tool.deploy]",
                'region = "eu-north-1"',
                f'token = "{self.secret(s, "toml")}"',
                f'commit = "{self.negative("git_sha", fk.hexs(r, 40), "toml")}"',
                f'api_key = "{self.negative("placeholder", r.choice(PLACEHOLDERS), "toml")}"',
                "",
            ]
        )
        return self.call("read", text, path=self.path(r.choice(["deploy.toml", "config/local.toml"])))

    def json_config(self) -> Step:
        r = self.rng
        s = self.standalone()
        key = re.sub(r"_(\w)", lambda m: m.group(1).upper(), s.env.lower())
        doc = {
            "name": "northwind-web",
            "requestTimeoutMs": 30000,
            key: self.secret(s, "json_config"),
            "buildId": self.negative("ulid", fk.ulid(r), "json_config"),
            "features": {"beta": True},
            "exampleKey": self.negative("doc_example", r.choice(DOC_EXAMPLES), "json_config"),
        }
        return self.call(
            "read",
            json.dumps(doc, indent=2, ensure_ascii=False),
            path=self.path(r.choice(["appsettings.json", "config/local.json"])),
        )

    def curl(self) -> Step:
        r = self.rng
        s = self.standalone()
        hdr = r.choice(["Authorization: Bearer ", "Authorization: token ", "X-API-Key: ", "api-key: "])
        cmd = (
            f'curl -sS -H "{hdr}{self.secret(s, "curl_header")}" -H "Content-Type: application/json" '
            f"https://api.{r.choice(['northwind-labs.io', 'example-saas.com', 'partner.io'])}/v1/{r.choice(['orders', 'users', 'jobs'])}"
        )
        out = json.dumps(
            {
                "id": self.negative("uuid", fk.uuid4(r), "curl_output"),
                "status": "ok",
                "created_at": "2026-03-01T10:00:00Z",
                "items": [],
            },
            indent=2,
        )
        return self.call("shell", out, command=cmd)

    def client_code(self) -> Step:
        r = self.rng
        s = self.standalone()
        v = self.secret(s, "client_code")
        if r.random() < 0.5:
            body = (
                f'import os\nfrom client import Client\n\nclient = Client(\n    api_key="{v}",\n'
                f'    base_url="https://api.northwind-labs.io",\n    timeout=30,\n)\n'
            )
            path = self.path(f"scripts/{r.choice(['sync', 'backfill', 'smoke'])}.py")
        else:
            body = f"const client = new Client({{ apiKey: '{v}', retries: 3 }})\nexport default client\n"
            path = self.path(f"src/{r.choice(['client', 'api', 'sdk'])}.ts")
        return self.call("write", "", path=path, content=body)

    def export_cmd(self) -> Step:
        s = self.standalone()
        cmd = f"export {s.env}={self.secret(s, 'export_cmd')} && npm run deploy -- --env staging"
        return self.call("shell", "> deploy\n> node scripts/deploy.js\n\nDeployed build in 41s", command=cmd)

    def http_tool(self) -> Step:
        s = self.standalone()
        return self.call(
            "http",
            json.dumps({"status": 200, "body": {"ok": True}}),
            url="https://api.partner.io/v2/sync",
            method="POST",
            headers={"Authorization": f"Bearer {self.secret(s, 'tool_arguments')}"},
            body={"dry_run": False},
        )

    def prompt_paste(self) -> Step:
        s = self.pool.draw()
        if s.standalone and "\n" not in s.value:
            text = self.rng.choice(
                [
                    "here's the key, use it for the test run: {v}",
                    "use this token: {v} (it expires friday)",
                    "the staging key is {v} — don't commit it",
                ]
            ).format(v=self.secret(s, "prompt"))
        else:
            if s.source in ("pem", "openssh"):
                label = s.example or "PRIVATE KEY"
                text = f"is this key still valid?\n-----BEGIN {label}-----\n{s.value}\n-----END {label}-----"
            elif s.example and s.source not in self.pool.STRUCTURAL:
                text = "this is what the config has, it fails with 401:\n" + s.example
            else:
                text = f"my key: {s.value}"
            self.secret(s, "prompt")
        return Step("user", text=text)

    def example_line(self) -> Step:
        """A rule's own example text (context included) inside a config file or log."""
        s = self.pool.draw()
        if s.source in self.pool.STRUCTURAL:
            return self.credential_file()
        self.secret(s, "config_line")
        text = "\n".join([f"# generated {fk.uuid4(self.rng)}", "retries = 3", s.example, "timeout = 30", ""])
        return self.call(
            "read",
            text,
            path=self.path(self.rng.choice(["config/secrets.conf", "ci/vars.txt", ".github/env"])),
        )

    def credential_file(self) -> Step:
        r = self.rng
        kind = r.choice(
            [
                "npmrc",
                "pypirc",
                "netrc",
                "gh_hosts",
                "docker",
                "kubeconfig",
                "pem",
                "openssh",
                "gcp_sa",
                "git_remote",
                "aws",
            ]
        )
        if kind == "npmrc":
            s = (
                self.pool.from_rule(next((x for x in self.pool.rules if x.id == "npm-token"), None))
                if any(x.id == "npm-token" for x in self.pool.rules)
                else self.standalone()
            )
            return self.call(
                "read",
                f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={self.secret(s, 'npmrc')}\n"
                "save-exact=true\n",
                path=self.path(".npmrc"),
            )
        if kind == "pypirc":
            s = self.pool.structural("pypirc")
            return self.call(
                "read",
                f"[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = {self.secret(s, 'pypirc')}\n",
                path=self.path(".pypirc"),
            )
        if kind == "netrc":
            s = self.pool.structural("yaml_password")
            return self.call(
                "shell",
                f"machine ci.northwind-labs.io\n  login deploy-bot\n  password {self.secret(s, 'netrc')}\n",
                command="cat deploy/netrc",
            )
        if kind == "gh_hosts":
            s = self.pool.structural("git_remote")
            return self.call(
                "read",
                f"github.com:\n    git_protocol: https\n    users:\n        ci-bot:\n    oauth_token: {self.secret(s, 'gh_hosts')}\n    user: ci-bot\n",
                path=self.path("ci/gh/hosts.yml"),
            )
        if kind == "docker":
            s = self.pool.structural("docker_auth")
            doc = {
                "auths": {"registry.northwind-labs.io": {"auth": self.secret(s, "docker_config")}},
                "credsStore": "",
            }
            return self.call(
                "read", json.dumps(doc, indent=2, ensure_ascii=False), path=self.path("ci/docker/config.json")
            )
        if kind == "kubeconfig":
            s = self.pool.structural("kube_token")
            ca = self.negative("certificate", fk.b64(r, 600), "kubeconfig")
            text = (
                f"apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: {ca}\n    server: https://10.0.0.1:6443\n"
                f"  name: prod\nusers:\n- name: ci\n  user:\n    token: {self.secret(s, 'kubeconfig')}\n"
            )
            return self.call("read", text, path=self.path("deploy/kubeconfig.yaml"))
        if kind in ("pem", "openssh"):
            s = self.pool.structural(kind)
            label = s.example or "PRIVATE KEY"
            text = f"-----BEGIN {label}-----\n{self.secret(s, kind)}\n-----END {label}-----\n"
            return self.call(
                "shell",
                text,
                command=f"cat {r.choice(['deploy/key.pem', 'certs/server.key', '.ssh/deploy_ed25519'])}",
            )
        if kind == "gcp_sa":
            s = self.pool.structural("gcp_sa")
            pkid = self.pool.structural("api_key_header")
            pkid.type = "secret.gcp_private_key_id"
            pkid.value = fk.hexs(r, 40)
            doc = {
                "type": "service_account",
                "project_id": "northwind-prod-4821",
                "private_key_id": self.secret(pkid, "gcp_sa"),
                "private_key": f"-----BEGIN PRIVATE KEY-----\n{s.value}\n-----END PRIVATE KEY-----\n",
                "client_email": "deployer@northwind-prod-4821.iam.gserviceaccount.com",
                "client_id": str(r.randint(10**20, 10**21)),
                "token_uri": "https://oauth2.googleapis.com/token",
            }
            # As printed, the key's line breaks are ``\n`` escapes inside the JSON string.
            s.value = s.value.replace("\n", "\\n")
            self.secret(s, "gcp_sa")
            return self.call(
                "read", json.dumps(doc, indent=2, ensure_ascii=False), path=self.path("secrets/gcp-sa.json")
            )
        if kind == "git_remote":
            s = self.pool.structural("git_remote")
            v = self.secret(s, "git_remote")
            out = (
                f"origin\thttps://x-access-token:{v}@github.com/northwind-labs/web.git (fetch)\n"
                f"origin\thttps://x-access-token:{v}@github.com/northwind-labs/web.git (push)\n"
                f"upstream\t{self.negative('email_like', 'git@github.com', 'git_remote')}:northwind-labs/web.git (fetch)"
            )
            return self.call("shell", out, command="git remote -v")
        s = (
            next((self.pool.from_rule(x) for x in self.pool.rules if x.id == "aws-access-key-id"), None)
            or self.standalone()
        )
        secret_key = Secret("secret.aws_secret_access_key", expand("{{b64:40}}", r).replace("+", "/"), "aws")
        return self.call(
            "read",
            f"[default]\naws_access_key_id = {self.secret(s, 'aws_credentials')}\n"
            f"aws_secret_access_key = {self.secret(secret_key, 'aws_credentials')}\nregion = eu-north-1\n",
            path=self.path("ci/aws/credentials"),
        )

    def url_password_log(self) -> Step:
        r = self.rng
        s = self.pool.structural("url_password")
        scheme = r.choice(["postgres", "postgresql", "mysql", "redis", "amqp", "mongodb+srv", "https"])
        host = r.choice(
            ["db.internal", "cache.prod.northwind-labs.io", "mq.staging", "cluster0.ab12c.mongodb.net"]
        )
        out = (
            f"Error: connect ECONNREFUSED {scheme}://svc_user:{self.secret(s, 'url_password')}@{host}:5432/app\n"
            f"    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1595:16)"
        )
        return self.call("shell", out, command="npm run migrate")

    # -- PII contexts -------------------------------------------------------------------------------
    def git_log(self) -> Step:
        r, u = self.rng, self.user
        entries = []
        for i in range(r.randint(3, 6)):
            sha = self.negative("git_sha", fk.hexs(r, 40), "git_log")
            if i == 0 or r.random() < 0.3:
                author = f"{self.ident('identity.name', u.full_name, 'git_log')} <{self.ident('identity.email', u.email, 'git_log')}>"
            else:
                n, e = self.name("git_log")
                author = f"{n} <{e}>"
            body = [
                f"commit {sha}",
                f"Author: {author}",
                f"Date:   Mon Mar {r.randint(2, 28)} 10:{r.randint(10, 59)}:00 2026 +0100",
                "",
                f"    {r.choice(['Fix', 'Add', 'Refactor', 'Update'])} {r.choice(['retry logic', 'rate limiter', 'login flow', 'cache keys'])}",
                "",
            ]
            if r.random() < 0.5:
                n, e = self.name("co_authored_by")
                body.append(f"    Co-authored-by: {n} <{e}>")
            if r.random() < 0.4:
                n, e = self.name("signed_off_by")
                body.append(f"    Signed-off-by: {n} <{e}>")
            if r.random() < 0.2:
                n, e = self.name("reviewed_by")
                body.append(f"    Reviewed-by: {n} <{e}>")
            entries.append("\n".join(body))
        if r.random() < 0.3:
            entries.append(
                f"commit {self.negative('git_sha', fk.hexs(r, 40), 'git_log')}\nMerge: {fk.hexs(r, 7)} {fk.hexs(r, 7)}\n"
                f"Author: GitHub <{self.negative('email_like', 'noreply@github.com', 'git_log')}>\nDate:   Tue Mar 3 2026\n\n    Merge pull request #42\n"
            )
        return self.call(
            "shell",
            "\n".join(entries),
            command=r.choice(["git log -n 6", "git log --format=fuller -5", "git log"]),
        )

    def package_json(self) -> Step:
        r = self.rng
        n, e = self.name("package_json")
        c1, c1e = self.name("package_json")
        c2 = self.pii("pii.person", fk.person(r), "package_json")
        doc = {
            "name": "@northwind/web",
            "version": "2.4.1",
            "author": f"{n} <{e}>",
            "contributors": [{"name": c1, "email": c1e}, c2],
            "license": "MIT",
            "dependencies": {"express": "^4.19.2", "zod": "^3.23.8"},
        }
        return self.call(
            "read", json.dumps(doc, indent=2, ensure_ascii=False), path=self.path("package.json")
        )

    def license_file(self) -> Step:
        r = self.rng
        # A copyright line names a published work's rights holder: not redacted (ARCHITECTURE.md,
        # "Detection: personal data"), so not labelled either way (a drawn name may also be planted
        # as a person elsewhere).
        n = fk.person(r)
        return self.call(
            "read",
            f"MIT License\n\nCopyright (c) 2021-2026 {n}\n\nPermission is hereby granted, free of charge, "
            "to any person obtaining a copy\nof this software...\n",
            path=self.path("LICENSE"),
        )

    def pyproject(self) -> Step:
        n, e = self.name("pyproject")
        return self.call(
            "read",
            f'[project]\nname = "northwind-sync"\nversion = "0.3.0"\nauthors = [\n  {{ name = "{n}", email = "{e}" }},\n]\n'
            'requires-python = ">=3.11"\n',
            path=self.path("pyproject.toml"),
        )

    def customers_fixture(self) -> Step:
        r = self.rng
        rows = []
        for _ in range(r.randint(2, 4)):
            n, e = self.name("fixture")
            street, rest = fk.address(r)
            kind, nid = fk.national_id(r)
            rows.append(
                {
                    "id": self.negative("uuid", fk.uuid4(r), "fixture"),
                    "name": n,
                    "email": e,
                    "phone": self.pii("pii.phone", fk.phone(r), "fixture"),
                    "address": f"{self.pii('pii.address', street, 'fixture')}, {rest}",
                    "card_number": self.pii("pii.credit_card", fk.card(r), "fixture"),
                    "iban": self.pii("pii.iban", fk.iban(r), "fixture"),
                    "national_id": self.pii("pii.national_id", nid, "fixture"),
                }
            )
        return self.call(
            "read",
            json.dumps(rows, indent=2, ensure_ascii=False),
            path=self.path("tests/fixtures/customers.json"),
        )

    def sql_output(self) -> Step:
        r = self.rng
        lines = [
            " id  |        name         |            email             |      phone",
            "-----+---------------------+------------------------------+------------------",
        ]
        for i in range(r.randint(2, 5)):
            n, e = self.name("sql_output")
            p = self.pii("pii.phone", fk.phone(r), "sql_output")
            lines.append(f" {i + 101:3d} | {n:<19} | {e:<28} | {p}")
        lines.append(f"({len(lines) - 2} rows)")
        return self.call(
            "shell",
            "\n".join(lines),
            command="psql -c 'select id, name, email, phone from customers limit 5'",
        )

    def access_log(self) -> Step:
        r = self.rng
        lines = []
        for _ in range(r.randint(4, 10)):
            if r.random() < 0.1:
                ip = self.pii("pii.ip", fk.public_ipv6(r), "access_log")
            elif r.random() < 0.5:
                ip = self.pii("pii.ip", fk.public_ip(r), "access_log")
            else:
                ip = self.negative("private_ip", fk.private_ip(r), "access_log")
            lines.append(
                f'{ip} - - [01/Mar/2026:10:{r.randint(10, 59)}:{r.randint(10, 59)} +0000] "GET /api/v1/orders HTTP/1.1" '
                f'200 {r.randint(100, 9000)} "-" "Mozilla/5.0" rt={r.uniform(0, 1):.3f}'
            )
        if r.random() < 0.5:
            ip = self.pii("pii.ip", fk.public_ip(r), "ssh_log")
            lines.append(
                f"sshd[{r.randint(1000, 99999)}]: Accepted publickey for deploy from {ip} port {r.randint(30000, 65000)} ssh2"
            )
        return self.call("shell", "\n".join(lines), command="tail -n 20 /var/log/nginx/access.log")

    def pii_prompt(self) -> Step:
        r = self.rng
        n = self.pii("pii.person", fk.person(r), "prompt")
        choice = r.randint(0, 6)
        if choice == 0:
            text = f"Please add {n} as a maintainer, her email is {self.pii('pii.email', fk.email_for(r, n), 'prompt')}."
        elif choice == 1:
            text = f"The customer {n} called from {self.pii('pii.phone', fk.phone(r), 'prompt')} about the failed refund, can you check the logs?"
        elif choice == 2:
            street, rest = fk.address(r)
            text = f"Ship the replacement to {n}, {self.pii('pii.address', street, 'prompt')}, {rest}. The order form drops the street number."
        elif choice == 3:
            h = fk.handle_for(r, n)
            app = r.choice(["Telegram", "Discord", "Slack"])
            text = f"{n} reported this bug, ping them on {app} @{self.pii('pii.handle', h, 'prompt')} once it's fixed."
        elif choice == 4:
            text = (
                f"Refund card {self.pii('pii.credit_card', fk.card(r), 'prompt')} for {n}; "
                f"the IBAN on file is {self.pii('pii.iban', fk.iban(r), 'prompt')}."
            )
        elif choice == 5:
            kind, nid = fk.national_id(r)
            label = {
                "us_ssn": "SSN",
                "uk_nino": "National Insurance number",
                "es_nif": "NIF",
                "in_aadhaar": "Aadhaar",
            }[kind]
            text = f"The onboarding form for {n} rejects a valid {label} ({self.pii('pii.national_id', nid, 'prompt')}). Why?"
        else:
            text = f"Thanks {n}, I merged it. Ask {self.pii('pii.person', fk.person(r), 'prompt')} to review the migration too."
        return Step("user", text=text)

    def pii_variety(self) -> Step:
        """Less common shapes: git blame, mail headers, titles and initials, JSON user records."""
        r = self.rng
        choice = r.randint(0, 4)
        if choice == 0:
            lines = []
            for i in range(r.randint(3, 6)):
                n = self.pii("pii.person", fk.person(r), "git_blame")
                lines.append(
                    f"{fk.hexs(r, 8)} ("
                    + f"{n:<20} 2025-11-{r.randint(10, 28)} 10:{r.randint(10, 59)}:00 +0100 {i + 40:>3}) "
                    f"    return {r.choice(['cache', 'conn', 'retry'])}.get(key)"
                )
            return self.call("shell", "\n".join(lines), command="git blame -L 40,46 src/cache.py")
        if choice == 1:
            n, e = self.name("mail_header")
            to_n, to_e = self.name("mail_header")
            return self.call(
                "read",
                f"From: {n} <{e}>\nTo: {to_n} <{to_e}>\nSubject: Re: invoice 2291\n"
                f"Date: Tue, 3 Mar 2026 09:12:44 +0100\n\nHi {to_n.split()[0]},\nsee attached.\n",
                path=self.path("tests/fixtures/mail.eml"),
            )
        if choice == 2:
            first, last = r.choice(fk.FIRST), r.choice(fk.LAST)
            full = self.pii(
                "pii.person", f"{first} {r.choice('ABCDEFGHJKLMNPRSTW')}. {last}", "prompt_initial"
            )
            title = r.choice(["Dr.", "Prof.", "Ms.", "Mr."])
            return Step(
                "user",
                text=f"Can you add {title} {full} to the CODEOWNERS reviewers? They lead the payments team.",
            )
        if choice == 3:
            n = fk.person(r)
            doc = {
                "id": r.randint(1000, 99999),
                "real_name": self.pii("pii.person", n, "user_record"),
                "profile": {
                    "email": self.pii("pii.email", fk.email_for(r, n), "user_record"),
                    "phone": self.pii("pii.phone", fk.phone(r), "user_record"),
                    "tz": "Europe/Berlin",
                },
                "is_admin": False,
            }
            return self.call(
                "http",
                json.dumps(doc, ensure_ascii=False),
                url="https://slack.com/api/users.info",
                method="GET",
            )
        n = fk.person(r)
        return Step(
            "assistant",
            text=f"The failing test was added by {self.pii('pii.person', n, 'assistant_prose')} in the "
            "last refactor; I kept their fixture but fixed the off-by-one.",
        )

    def team_file(self) -> Step:
        r = self.rng
        lines = ["# On-call rotation"]
        for _ in range(r.randint(2, 4)):
            n = self.pii("pii.person", fk.person(r), "team_file")
            h = self.pii("pii.handle", fk.handle_for(r, n), "team_file")
            lines.append(
                f'- name: {n}\n  slack: "@{h}"\n  phone: "{self.pii("pii.phone", fk.phone(r), "team_file")}"'
            )
        return self.call("read", "\n".join(lines) + "\n", path=self.path("ops/oncall.yml"))

    def gateway(self) -> dict:
        """Hermes sessions that came through a messaging gateway name the person who wrote."""
        r = self.rng
        n = fk.person(r)
        handle = fk.handle_for(r, n)
        return {
            "source": "telegram",
            "user_id": self.pii("pii.handle", f"tg:{r.randint(10**8, 10**10)}", "gateway"),
            "chat_type": "dm",
            "chat_id": str(-r.randint(10**12, 10**13)),
            "display_name": self.pii("pii.person", n, "gateway"),
            "origin": {
                "platform": "telegram",
                "handle": self.pii("pii.handle", handle, "gateway"),
                "user_name": n,
            },
        }

    # -- identity contexts -------------------------------------------------------------------------
    def identity(self) -> Step:
        r, u = self.rng, self.user
        choice = r.randint(0, 8)
        if choice == 6:
            tok = self.ident("identity.own_token", u.tokens["huggingface_token"], "hf_token")
            return self.call("shell", f"{tok}\n", command="cat ~/.cache/huggingface/token")
        if choice == 7:
            key = self.ident("identity.own_token", u.tokens["aws_secret_access_key"], "aws_credentials")
            kid = self.ident("identity.own_token", u.tokens["aws_access_key_id"], "aws_credentials")
            return self.call(
                "shell",
                f"[default]\naws_access_key_id = {kid}\naws_secret_access_key = {key}\n",
                command="cat ~/.aws/credentials",
            )
        if choice == 8:
            pw = self.ident("identity.own_token", u.tokens["docker_password"], "docker_login")
            sec = self.ident("identity.own_token", u.tokens["env_secret"], "env_secret")
            return self.call(
                "shell",
                "Login Succeeded",
                command=f"NWL_SIGNING_SECRET={sec} docker login registry.northwind-labs.io "
                f"-u {u.username} -p {pw}",
            )
        if choice == 0:
            return self.call(
                "shell",
                f"{self.ident('identity.username', u.username, 'whoami')}\n{self.ident('identity.hostname', u.hostname, 'whoami')}",
                command="whoami && hostname",
            )
        if choice == 1:
            return self.call(
                "shell",
                f"user.name={self.ident('identity.name', u.full_name, 'git_config')}\n"
                f"user.email={self.ident('identity.email', u.email, 'git_config')}\ncore.editor=nvim\npull.rebase=true",
                command="git config --list --global",
            )
        if choice == 2:
            tok = self.ident("identity.own_token", u.tokens["github_token"], "gh_hosts")
            return self.call(
                "shell",
                f"github.com:\n    oauth_token: {tok}\n    user: {u.username}\n    git_protocol: https",
                command="cat ~/.config/gh/hosts.yml",
            )
        if choice == 3:
            tok = self.ident("identity.own_token", u.tokens["internal_token"], "curl_header")
            return self.call(
                "shell",
                '{"deployed": true}',
                command=f'curl -H "X-NWL-Token: {tok}" https://deploy.northwind-labs.io/api/release',
            )
        if choice == 4:
            tok = self.ident("identity.own_token", u.tokens["internal_netrc"], "netrc")
            return Step(
                "user",
                text=f"the artifact server wants basic auth, my password there is {tok} (user {u.username})",
            )
        prompt = f"{self.ident('identity.username', u.username, 'shell_prompt')}@{self.ident('identity.hostname', u.hostname, 'shell_prompt')}"
        return self.call(
            "shell",
            f"{prompt}:~/src$ ls -la\ntotal 24\ndrwxr-xr-x  6 {u.username} staff  192 Mar  1 10:00 .\n"
            f"-rw-r--r--  1 {u.username} staff 1024 Mar  1 10:00 {self.ident('identity.home', u.home, 'shell_prompt')}/.zshrc",
            command="ls -la",
        )

    # -- hard negatives ------------------------------------------------------------------------------
    def negatives(self) -> Step:
        r = self.rng
        choice = r.randint(0, 6)
        if choice == 0:
            text, integ = package_lock(r, r.randint(10, 40))
            for i in r.sample(integ, min(4, len(integ))):
                self.negative("integrity", i, "package_lock")
            return self.call("read", text, path=self.path("package-lock.json"))
        if choice == 1:
            text, hashes = go_sum(r, r.randint(5, 20))
            for h in r.sample(hashes, min(4, len(hashes))):
                self.negative("go_sum", h, "go_sum")
            return self.call("read", text, path=self.path("go.sum"))
        if choice == 2:
            out, digest = docker_pull(r, r.choice(["library/postgres", "library/redis", "grafana/grafana"]))
            self.negative("docker_digest", digest, "docker_pull")
            return self.call("shell", out, command="docker pull postgres")
        if choice == 3:
            key = fk.ssh_public_key(r)
            self.negative("ssh_public_key", key.split(" ", 1)[1], "authorized_keys")
            cert = self.negative("certificate", fk.pem_body(r, "MIIDazCCAlOgAwIBAgIU", 900), "certificate")
            return self.call(
                "shell",
                f"{key} deploy-key\n-----BEGIN CERTIFICATE-----\n{cert}\n-----END CERTIFICATE-----",
                command="cat deploy/authorized_keys certs/ca.crt",
            )
        if choice == 4:
            data = self.negative(
                "base64_data", base64.b64encode(prose(r, 2).encode()).decode(), "test_fixture"
            )
            ph = self.negative("placeholder", r.choice(PLACEHOLDERS), "readme")
            doc = self.negative("doc_example", r.choice(DOC_EXAMPLES), "readme")
            return self.call(
                "read",
                f'EXPECTED_BODY = "{data}"\n\n# README: set OPENAI_API_KEY={ph}\n# AWS docs example: {doc}\n',
                path=self.path("tests/test_payload.py"),
            )
        if choice == 5:
            ids = [self.negative("uuid", fk.uuid4(r), "log"), self.negative("ulid", fk.ulid(r), "log")]
            ts = self.negative("epoch_ms", str(r.randint(1_700_000_000_000, 1_800_000_000_000)), "log")
            snow = self.negative("numeric_id", str(r.randint(10**17, 10**19 - 1)), "log")
            ver = self.negative(
                "version",
                f"{r.randint(1, 9)}.{r.randint(0, 20)}.{r.randint(0, 99)}.{r.randint(0, 999)}",
                "log",
            )
            ip = self.negative("private_ip", fk.private_ip(r), "log")
            return self.call(
                "shell",
                f"job {ids[0]} queued as {ids[1]} at {ts} on worker {ip}:9000\n"
                f"trace_id={fk.hexs(r, 32)} span_id={fk.hexs(r, 16)}\nmessage_id={snow} agent/{ver}",
                command="./bin/jobs status --last",
            )
        sha = self.negative("git_sha", fk.hexs(r, 40), "rev_parse")
        return self.call("shell", f"{sha}\n", command="git rev-parse HEAD")

    PRODUCTS = [
        "Visual Studio Code",
        "GitHub Actions",
        "Docker Compose",
        "Hugging Face",
        "Stack Overflow",
        "Apache Kafka",
        "Redis Cluster",
        "Amazon Web Services",
        "Google Cloud Run",
        "Azure DevOps",
        "React Native",
        "Tailwind CSS",
        "Let's Encrypt",
        "Material UI",
        "Grafana Loki",
        "Pull Request",
        "Postgres",
        "Kubernetes",
        "Terraform Cloud",
        "Sentry",
        "Jest",
        "Vitest",
        "Homebrew",
    ]
    IDENTIFIERS = [
        "password_reset_token",
        "get_api_key",
        "AUTH_TOKEN_HEADER",
        "secret_key_base",
        "apiKeyFromEnv",
        "refresh_token_ttl",
        "SESSION_SECRET_NAME",
        "validate_access_token",
        "privateKeyPath",
    ]

    def prose_negatives(self) -> Step:
        """Names of tools and products in prose, identifiers in code: what NER and entropy must leave."""
        r = self.rng
        a, b = r.sample(self.PRODUCTS, 2)
        ident = self.negative("identifier", r.choice(self.IDENTIFIERS), "assistant_prose")
        text = (
            f"I checked the {self.negative('product_name', a, 'assistant_prose')} docs: the failing step runs before "
            f"{self.negative('product_name', b, 'assistant_prose')} starts, so `{ident}()` sees an empty value. "
            + prose(r, 2)
        )
        return Step("assistant", text=text)

    # -- bulk -------------------------------------------------------------------------------------
    def bulk_step(self) -> Step:
        r = self.rng
        choice = r.random()
        if choice < 0.45:
            path, content = self.bulk.source_file()
            return self.call("read", content, path=self.path(path))
        if choice < 0.7:
            return self.call(
                "shell",
                self.bulk.output(),
                command=r.choice(
                    ["pytest -q", "npm test", "make test", "npm install", "kubectl logs deploy/api --tail=80"]
                ),
            )
        if choice < 0.85:
            path, content = self.bulk.source_file()
            return self.call("shell", git_diff(r, path, content), command="git diff")
        if choice < 0.93:
            path, content = self.bulk.source_file()
            lines = content.split("\n")
            i = r.randint(0, max(0, len(lines) - 2))
            return self.call(
                "edit", "", path=self.path(path), old=lines[i], new=lines[i] + "  # updated", original=content
            )
        return Step("assistant", text=prose(r, r.randint(2, 6)), thinking=prose(r, 2))

    PLANTS = [
        "env_dump",
        "dotenv",
        "yaml_config",
        "toml_config",
        "json_config",
        "curl",
        "client_code",
        "export_cmd",
        "http_tool",
        "prompt_paste",
        "example_line",
        "example_line",
        "credential_file",
        "credential_file",
        "url_password_log",
        "git_log",
        "package_json",
        "license_file",
        "pyproject",
        "customers_fixture",
        "sql_output",
        "access_log",
        "pii_prompt",
        "pii_prompt",
        "team_file",
        "pii_variety",
        "pii_variety",
        "identity",
        "identity",
        "negatives",
        "negatives",
        "negatives",
        "prose_negatives",
    ]

    def session_steps(self, canary: str, budget: int, plant_every: int = 3) -> list[Step]:
        r = self.rng
        first = (
            f"{prose(r, 1)} Can you look into it? (ref {canary}) I'm in {self.cwd}, "
            f"my machine is {self.ident('identity.hostname', self.user.hostname, 'prompt')}."
        )
        steps = [Step("user", text=first), Step("assistant", text=prose(r, 2), thinking=prose(r, 1))]
        size = len(first)
        n = 0
        while size < budget:
            n += 1
            if n % plant_every == 0:
                st = getattr(self, r.choice(self.PLANTS))()
            else:
                st = self.bulk_step()
            steps.append(st)
            size += len(st.text) + (len(st.call.output) + len(json.dumps(st.call.args)) if st.call else 0)
            if r.random() < 0.15:
                steps.append(Step("assistant", text=prose(r, r.randint(1, 4))))
        steps.append(Step("assistant", text="Done. " + prose(r, 2)))
        return steps


def _strings(value, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)


def _drop_unwritten(planter: Planter, session: str, steps: list[Step], meta: dict | None = None) -> int:
    """A label must name a value that is really in the session (a generator bug must not pass
    as a detector's success or failure)."""
    parts: list[str] = []
    _strings(meta or {}, parts)
    for st in steps:
        parts += [st.text, st.thinking]
        if st.call:
            parts.append(st.call.output)
            _strings(st.call.args, parts)
    blob = "\n".join(parts)
    gone = [k for k in planter.labels if k[0] == session and k[1] not in blob]
    for k in gone:
        del planter.labels[k]
    return len(gone)


# -- the fake home ---------------------------------------------------------------------------------
def build_home(root: Path, user: fk.FakeUser) -> tuple[Path, dict[str, str]]:
    """A home folder like a developer's, whose files the identity harvest reads."""
    home = root / "home" / user.username
    t = user.tokens
    files = {
        ".gitconfig": f"[user]\n\tname = {user.full_name}\n\temail = {user.email}\n[pull]\n\trebase = true\n",
        ".aws/credentials": f"[default]\naws_access_key_id = {t['aws_access_key_id']}\naws_secret_access_key = {t['aws_secret_access_key']}\n",
        ".netrc": f"machine artifacts.northwind-labs.io\n  login {user.username}\n  password {t['internal_netrc']}\n",
        ".git-credentials": f"https://{user.username}:{t['git_credentials']}@github.com\n",
        ".config/gh/hosts.yml": f"github.com:\n    oauth_token: {t['github_token']}\n    user: {user.username}\n    git_protocol: https\n",
        ".cache/huggingface/token": t["huggingface_token"] + "\n",
        ".npmrc": f"//registry.npmjs.org/:_authToken={t['npm_token']}\n",
        ".pypirc": f"[pypi]\nusername = __token__\npassword = {t['pypi_token']}\n",
        ".docker/config.json": json.dumps(
            {
                "auths": {
                    "registry.northwind-labs.io": {
                        "auth": base64.b64encode(f"{user.username}:{t['docker_password']}".encode()).decode()
                    }
                }
            }
        ),
    }
    for rel, text in files.items():
        p = home / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    env = {
        "HOME": str(home),
        "USER": user.username,
        "LOGNAME": user.username,
        "HOSTNAME": user.hostname,
        "NWL_DEPLOY_TOKEN": t["internal_token"],
        "NWL_SIGNING_SECRET": t["env_secret"],
    }
    return home, env


# -- generation ---------------------------------------------------------------------------------------
@dataclass
class Corpus:
    root: Path
    corpus: Path
    home: Path
    env: dict[str, str]
    labels: list[dict]
    sessions: list[dict]
    bytes: int


def generate(
    out: Path, size: int, seed: int = 1, harnesses: list[str] | None = None, plant_every: int = 3
) -> Corpus:
    """``plant_every``: one step in so many plants values (3 for the evaluation, which wants many
    labels; bench/throughput.py uses a sparser corpus, closer to real sessions)."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    corpus_dir = out / "corpus"
    if corpus_dir.exists() and any(corpus_dir.iterdir()):
        raise SystemExit(f"{corpus_dir} is not empty; give a new folder")
    user = fk.fake_user(rng)
    home, env = build_home(out, user)
    pool, bulk = SecretPool(rng), Bulk(rng)
    planter = Planter(rng, user, pool, bulk)
    writers: list[Writer] = [
        w(corpus_dir, rng) for w in WRITERS if harnesses is None or w.harness in harnesses
    ]
    order = [w for w in writers for _ in range(WEIGHTS.get(w.harness, 1))]
    rng.shuffle(order)
    order = writers + order  # every harness first, then weighted
    sessions: list[dict] = []
    total, n, dropped = 0, 0, 0
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    avg = max(12_000, min(250_000, size // 150))  # budget of tool text per session; files are 2-4x larger
    while total < size or n < len(writers):
        w = order[n % len(order)]
        sid = fk.uuid4(rng)
        project = rng.choice(["web", "api", "billing", "sync-worker", "infra", "mobile-backend"])
        cwd = f"{user.home}/src/{project}"
        canary = f"evalref-{w.harness}-{n:04d}"
        planter.start(sid, w.harness, cwd)
        budget = int(avg * rng.uniform(0.4, 1.6))
        s = Session(
            sid,
            w.harness,
            project,
            cwd,
            start + timedelta(hours=7 * n),
            model=rng.choice(["claude-sonnet-4-5", "claude-opus-4-6", "gpt-5.5", "gemini-2.5-pro"]),
        )
        s.steps = planter.session_steps(canary, budget, plant_every)
        if w.harness == "hermes" and rng.random() < 0.6:
            s.meta = planter.gateway()
        dropped += _drop_unwritten(planter, sid, s.steps, s.meta)
        total += w.add(s)
        sessions.append({"session": sid, "harness": w.harness, "canary": canary})
        n += 1
    for w in writers:
        total += w.close()
    if dropped:
        print(f"warning: {dropped} label(s) whose value was not written were dropped", file=sys.stderr)
    labels = list(planter.labels.values())
    with open(out / "labels.jsonl", "w", encoding="utf-8") as fh:
        for lab in labels:
            fh.write(json.dumps(lab, ensure_ascii=False) + "\n")
    with open(out / "sessions.jsonl", "w", encoding="utf-8") as fh:
        for s in sessions:
            fh.write(json.dumps(s) + "\n")
    (out / "env.json").write_text(json.dumps(env, indent=2, ensure_ascii=False), encoding="utf-8")
    corpus_bytes = sum(p.stat().st_size for p in corpus_dir.rglob("*") if p.is_file())
    return Corpus(out, corpus_dir, home, env, labels, sessions, corpus_bytes)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument(
        "--size",
        type=parse_size,
        default=parse_size("2MB"),
        help="Approximate corpus size (e.g. 500KB, 20MB).",
    )
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    c = generate(args.out, args.size, args.seed)
    kinds: dict[str, int] = {}
    for lab in c.labels:
        kinds[lab["kind"]] = kinds.get(lab["kind"], 0) + 1
    print(f"{len(c.sessions)} sessions, {c.bytes / 1e6:.1f} MB in {c.corpus}; labels: {kinds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
