"""``tracepub.toml``: deny and allow lists, extra secrets and rules, kept with a project.

Looked up in the current folder unless ``--config`` names one. Keys::

    secrets = ["an-internal-token-value"]       # exact values, always redacted
    redact_regex = ["ACME-[0-9]{6}"]             # regexes, always redacted
    allow = ["jane@example.com"]                # exact values never redacted
    allow_regex = ["build-[0-9]+"]
    deny = ["Client Corp", "re:internal\\.acme\\.com"]   # sessions mentioning these are left out
                                                  # (plain: case-insensitive substring; re: as written)
    [[rules]]                                     # more credential rules, same format as patterns/
    [replace]                                     # how a type is replaced (redact/policy.py)
    "pii.phone" = "mask"                          # placeholder (default), mask, hash or redact
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_NAME = "tracepub.toml"


@dataclass
class Config:
    path: Path | None = None
    secrets: list[str] = field(default_factory=list)
    redact_regex: list[str] = field(default_factory=list)
    allow: list[str] = field(default_factory=list)
    allow_regex: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    has_rules: bool = False
    replace: dict[str, str] = field(default_factory=dict)


def load(path: Path | None) -> Config:
    if path is None:
        candidate = Path.cwd() / DEFAULT_NAME
        if not candidate.exists():
            return Config()
        path = candidate
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from exc
    section = data.get("redact", data)

    def strings(key: str) -> list[str]:
        value = section.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{path}: {key} must be a list of strings")
        return value

    return Config(
        path=path,
        secrets=strings("secrets"),
        redact_regex=strings("redact_regex"),
        allow=strings("allow"),
        allow_regex=strings("allow_regex"),
        deny=strings("deny"),
        has_rules=bool(data.get("rules")),
        replace=_replace(data.get("replace", {}), path),
    )


def _replace(table: object, path: Path) -> dict[str, str]:
    from tracepub.redact import policy

    if not isinstance(table, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in table.items()
    ):
        raise ValueError(f"{path}: [replace] must map types to operator names")
    try:
        return policy.check(table)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc
