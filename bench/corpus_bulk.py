"""Realistic bulk for the evaluation corpus: what most bytes of a real trace are.

Source files read by the agent, test and build output, lock files, logs, git log and diffs,
and prose. None of it is labelled: it is there so detectors are measured (and timed) on text
that looks like real sessions, full of hashes, ids and identifiers that must survive. Pools are
built once and reused with small variations, so generating hundreds of MB stays fast.
"""

from __future__ import annotations

import json
import random

from corpus_fake import b64, hexs, uuid4

WORDS = [
    "user",
    "order",
    "invoice",
    "cache",
    "session",
    "config",
    "handler",
    "request",
    "response",
    "payload",
    "client",
    "server",
    "queue",
    "worker",
    "job",
    "retry",
    "limit",
    "rate",
    "auth",
    "db",
    "conn",
    "pool",
    "item",
    "cart",
    "price",
    "report",
    "metric",
    "event",
    "stream",
    "buffer",
    "parser",
    "schema",
    "field",
    "record",
    "batch",
    "index",
    "query",
    "filter",
    "page",
    "cursor",
    "route",
    "router",
    "store",
    "state",
    "render",
    "view",
    "model",
    "task",
    "plan",
    "node",
    "graph",
    "edge",
    "path",
    "file",
    "entry",
    "loader",
]
PACKAGES = [
    "express",
    "react",
    "lodash",
    "axios",
    "zod",
    "vite",
    "typescript",
    "eslint",
    "prettier",
    "jest",
    "webpack",
    "chalk",
    "commander",
    "dotenv",
    "uuid",
    "date-fns",
    "pg",
    "redis",
    "ioredis",
    "fastify",
    "next",
    "tailwindcss",
    "postcss",
    "esbuild",
    "rollup",
    "vitest",
    "undici",
    "ws",
    "yaml",
    "semver",
]
GO_MODULES = [
    "github.com/spf13/cobra",
    "github.com/stretchr/testify",
    "golang.org/x/sync",
    "golang.org/x/net",
    "github.com/google/uuid",
    "go.uber.org/zap",
    "github.com/jackc/pgx/v5",
    "gopkg.in/yaml.v3",
    "github.com/prometheus/client_golang",
    "google.golang.org/grpc",
    "github.com/rs/zerolog",
]
PROSE = [
    "The {a} {b} is created on every request, which is why latency grows with load.",
    "I'll move the {a} setup into a factory so the tests can inject a fake {b}.",
    "Looking at the stack trace, the failure starts in `{a}_{b}()` when the {c} is empty.",
    "This keeps the public API the same; only the internal {a} changes.",
    "The {a} tests pass now; the remaining failure is in the {b} {c} integration test.",
    "We should cache the {a} per {b} instead of rebuilding it for each {c}.",
    "Let me check how `{a}{B}` is used before renaming it.",
    "There are two places that build the {a} {b}: the CLI and the worker.",
    "I'd rather not change the {a} schema in this PR; a migration can follow.",
    "The {a} retries three times with exponential backoff before giving up on the {b}.",
    "Next I'll add a regression test for the empty {a} case and run the whole suite.",
    "That error comes from the {a} {b} timing out, not from the {c} itself.",
]


def _ident(rng: random.Random, n: int = 2) -> str:
    return "_".join(rng.choice(WORDS) for _ in range(n))


def _camel(rng: random.Random, n: int = 2) -> str:
    parts = [rng.choice(WORDS) for _ in range(n)]
    return parts[0] + "".join(p.title() for p in parts[1:])


def prose(rng: random.Random, sentences: int = 3) -> str:
    out = []
    for _ in range(sentences):
        a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
        out.append(rng.choice(PROSE).format(a=a, b=b, c=c, B=b.title()))
    return " ".join(out)


def python_file(rng: random.Random, funcs: int = 8) -> str:
    lines = [
        '"""' + prose(rng, 1) + '"""',
        "",
        "from __future__ import annotations",
        "",
        "import logging",
        "from dataclasses import dataclass",
        "",
        "log = logging.getLogger(__name__)",
        "",
    ]
    cls = _camel(rng).title().replace("_", "")
    lines += ["", "@dataclass", f"class {cls}:"]
    for _ in range(rng.randint(2, 5)):
        lines.append(
            f"    {_ident(rng)}: {rng.choice(['int', 'str', 'float', 'bool', 'list[str]'])} = "
            f"{rng.choice(['0', repr(''), '0.0', 'False', 'None'])}"
        )
    for _ in range(funcs):
        name, arg = _ident(rng), _ident(rng, 1)
        lines += [
            "",
            "",
            f"def {name}({arg}: {cls}, limit: int = {rng.randint(1, 500)}) -> list[str]:",
            f'    """{prose(rng, 1)}"""',
            "    out: list[str] = []",
            f"    for i, {rng.choice(WORDS)} in enumerate(getattr({arg}, '{_ident(rng, 1)}', [])):",
            "        if i >= limit:",
            "            break",
            f"        out.append(str({rng.choice(WORDS)}))",
            f'    log.debug("{name}: %d items", len(out))',
            "    return out",
        ]
    return "\n".join(lines) + "\n"


def ts_file(rng: random.Random, funcs: int = 8) -> str:
    lines = [
        f"import {{ {_camel(rng)} }} from './{rng.choice(WORDS)}'",
        f"import {rng.choice(PACKAGES).replace('-', '')} from '{rng.choice(PACKAGES)}'",
        "",
    ]
    for _ in range(funcs):
        name = _camel(rng, 3)
        lines += [
            f"export async function {name}(input: {_camel(rng).title()}Input): Promise<number> {{",
            f"  const {_camel(rng)} = await input.{_camel(rng)}({rng.randint(1, 100)})",
            f"  if (!{rng.choice(WORDS)}) throw new Error('{prose(rng, 1)[:60]}')",
            f"  return input.items.filter((x) => x.{rng.choice(WORDS)} > {rng.randint(0, 99)}).length",
            "}",
            "",
        ]
    return "\n".join(lines)


def go_file(rng: random.Random, funcs: int = 6) -> str:
    lines = [f"package {rng.choice(WORDS)}", "", "import (", '\t"context"', '\t"fmt"', ")", ""]
    for _ in range(funcs):
        name = _camel(rng).title()
        lines += [
            f"// {name} {prose(rng, 1)}",
            f"func {name}(ctx context.Context, n int) (string, error) {{",
            "\tif n < 0 {",
            f'\t\treturn "", fmt.Errorf("{rng.choice(WORDS)}: negative n %d", n)',
            "\t}",
            f'\treturn fmt.Sprintf("{rng.choice(WORDS)}-%d", n), nil',
            "}",
            "",
        ]
    return "\n".join(lines)


def numbered(content: str) -> str:
    """Claude Code's Read output: right-aligned line numbers and an arrow."""
    return "\n".join(f"{i:>6}→{line}" for i, line in enumerate(content.split("\n"), 1))


def pytest_output(rng: random.Random) -> str:
    n = rng.randint(20, 120)
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0",
        f"rootdir: /workspace/{rng.choice(WORDS)}-service",
        "configfile: pyproject.toml",
        f"collected {n} items",
        "",
    ]
    for mod in range(rng.randint(3, 8)):
        dots = "".join(rng.choice("....................F.s") for _ in range(rng.randint(5, 25)))
        lines.append(f"tests/test_{_ident(rng, 1)}_{mod}.py {dots} [{rng.randint(5, 100):3d}%]")
    lines += [
        "",
        "=================================== FAILURES ===================================",
        f"___________________________ test_{_ident(rng)} ___________________________",
        "",
        f"    def test_{_ident(rng)}():",
        f">       assert {_ident(rng)}(fixture) == {rng.randint(1, 9)}",
        f"E       AssertionError: assert {rng.randint(10, 99)} == {rng.randint(1, 9)}",
        "",
        f"tests/test_{_ident(rng, 1)}.py:{rng.randint(10, 300)}: AssertionError",
        f"========================= 1 failed, {n - 1} passed in {rng.uniform(0.5, 30):.2f}s =========================",
    ]
    return "\n".join(lines)


def npm_install_log(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(3, 10)):
        lines.append(
            f"npm warn deprecated {rng.choice(PACKAGES)}@{rng.randint(0, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}: "
            "This module is not supported, and leaks memory. Do not use it."
        )
    lines += [
        "",
        f"added {rng.randint(100, 1500)} packages, and audited {rng.randint(100, 1500)} packages in {rng.randint(2, 60)}s",
        "",
        f"{rng.randint(50, 300)} packages are looking for funding",
        "  run `npm fund` for details",
        "",
        f"found {rng.randint(0, 5)} vulnerabilities",
    ]
    return "\n".join(lines)


def package_lock(rng: random.Random, n: int = 40) -> tuple[str, list[str]]:
    """A package-lock.json and its integrity strings (hard negatives)."""
    pkgs = {"": {"name": f"{rng.choice(WORDS)}-app", "version": "1.0.0"}}
    integrities = []
    for _ in range(n):
        name = rng.choice(PACKAGES) + ("" if rng.random() < 0.5 else f"-{rng.choice(WORDS)}")
        ver = f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 20)}"
        integ = "sha512-" + b64(rng, 64)
        integrities.append(integ)
        pkgs[f"node_modules/{name}"] = {
            "version": ver,
            "resolved": f"https://registry.npmjs.org/{name}/-/{name}-{ver}.tgz",
            "integrity": integ,
            "dev": rng.random() < 0.3,
        }
    doc = {
        "name": pkgs[""]["name"],
        "version": "1.0.0",
        "lockfileVersion": 3,
        "requires": True,
        "packages": pkgs,
    }
    kept = {p.get("integrity") for p in pkgs.values()}  # a repeated name replaced an earlier entry
    return json.dumps(doc, indent=2), [i for i in integrities if i in kept]


def go_sum(rng: random.Random, n: int = 20) -> tuple[str, list[str]]:
    lines, hashes = [], []
    for _ in range(n):
        mod = rng.choice(GO_MODULES)
        ver = f"v{rng.randint(0, 2)}.{rng.randint(0, 40)}.{rng.randint(0, 12)}"
        h1, h2 = "h1:" + b64(rng, 32), "h1:" + b64(rng, 32)
        hashes += [h1, h2]
        lines += [f"{mod} {ver} {h1}", f"{mod} {ver}/go.mod {h2}"]
    return "\n".join(lines) + "\n", hashes


def docker_pull(rng: random.Random, image: str) -> tuple[str, str]:
    digest = "sha256:" + hexs(rng, 64)
    layers = [f"{hexs(rng, 12)}: Pull complete" for _ in range(rng.randint(3, 9))]
    return "\n".join(
        [
            "Using default tag: latest",
            f"latest: Pulling from {image}",
            *layers,
            f"Digest: {digest}",
            f"Status: Downloaded newer image for {image}:latest",
            f"docker.io/{image}:latest",
        ]
    ), digest


def server_log(rng: random.Random, n: int = 40) -> str:
    lines = []
    for _i in range(n):
        lines.append(
            f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:"
            f"{rng.randint(10, 59)}.{rng.randint(100, 999)}Z {rng.choice(['INFO', 'INFO', 'DEBUG', 'WARN'])} "
            f"[{rng.choice(WORDS)}] request_id={uuid4(rng)} {rng.choice(['GET', 'POST', 'PUT'])} "
            f"/api/v1/{rng.choice(WORDS)}s/{rng.randint(1, 9999)} {rng.choice([200, 200, 201, 204, 404, 500])} "
            f"{rng.randint(1, 900)}ms"
        )
    return "\n".join(lines)


def git_diff(rng: random.Random, path: str, content: str) -> str:
    lines = content.split("\n")
    start = rng.randint(1, max(1, len(lines) - 8))
    hunk = lines[start - 1 : start + 6]
    body = (
        [" " + x for x in hunk[:3]]
        + ["-" + x for x in hunk[3:4]]
        + [f"+{hunk[3] if len(hunk) > 3 else ''}  # fixed"]
    )
    body += [" " + x for x in hunk[4:]]
    return "\n".join(
        [
            f"diff --git a/{path} b/{path}",
            f"index {hexs(rng, 7)}..{hexs(rng, 7)} 100644",
            f"--- a/{path}",
            f"+++ b/{path}",
            f"@@ -{start},{len(hunk)} +{start},{len(hunk) + 1} @@",
            *body,
        ]
    )


class Bulk:
    """Pools of source files and outputs, built once per corpus."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.files: list[tuple[str, str]] = []
        for i in range(36):
            kind = i % 3
            name = _ident(rng)
            if kind == 0:
                self.files.append((f"src/{name}.py", python_file(rng, rng.randint(4, 16))))
            elif kind == 1:
                self.files.append((f"src/{_camel(rng)}.ts", ts_file(rng, rng.randint(4, 16))))
            else:
                self.files.append(
                    (f"internal/{rng.choice(WORDS)}/{name}.go", go_file(rng, rng.randint(4, 12)))
                )
        self.outputs = (
            [pytest_output(rng) for _ in range(8)]
            + [npm_install_log(rng) for _ in range(4)]
            + [server_log(rng, rng.randint(20, 80)) for _ in range(6)]
        )

    def source_file(self) -> tuple[str, str]:
        return self.rng.choice(self.files)

    def output(self) -> str:
        return self.rng.choice(self.outputs)
