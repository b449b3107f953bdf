"""Publish's second look: the staged copies re-scanned with the high-confidence detectors.

Whatever the review decided, a credential rule's hit, the user's own identity and secrets,
and the reviewer's added values and regexes must not leave the machine in clear: any such hit
in the bytes about to be sent refuses the publish. It reads the copies, not dataset/, so what
is checked is what is sent; it knows nothing of the target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracepub.detect.base import BLOCK_CONFIDENCE
from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.errors import Refusal
from tracepub.model import Leaf
from tracepub.outdir import OutDir
from tracepub.redact.placeholders import Namer, load_key
from tracepub.redact.redactor import mask
from tracepub.review import decisions, runstate
from tracepub.walk.walker import Walker, loads


@dataclass
class Hit:
    """A value in clear in a staged file (line 0: the file's name), masked."""

    file: str
    line: int
    type: str
    detector: str
    masked: str

    def __str__(self) -> str:
        return f"{self.type} ({self.masked}) in {self.file} " + (
            f"line {self.line}" if self.line else "(file name)"
        )


def rescan_config(
    out: Path,
    secrets: tuple[str, ...] = (),
    secrets_files: tuple[Path, ...] = (),
    missing: list[str] | None = None,
) -> tuple[DetectConfig, dict[str, str]]:
    """The high-confidence detectors, with every exact value and regex a run of this folder used.

    Exact values are collected again (they are never stored); one the redact run matched but
    that is not available now (an environment variable of another shell, a ``--secret`` not
    given again) is reported in ``missing``: the signed bytes were redacted for it, so this only
    narrows the second look, and publish says so rather than refusing."""
    state = runstate.read(out)
    detect = state.get("detect", {})
    dec = decisions.load(out)
    identity: dict[str, str] = {v: "custom.text" for v in dec.add_values}
    identity.update(
        runstate.collect_values(
            out,
            secrets,
            secrets_files,
            what="the re-scan",
            missing_out=missing if missing is not None else [],
        )
    )
    cfg = DetectConfig(
        identity=identity,
        extra_rules=[p for p in detect.get("extra_rules", []) if Path(p).exists()],
        add_regexes=[*detect.get("add_regexes", []), *dec.add_regexes],
        ner=False,
        detect_secrets=False,
        high_confidence_only=True,
    )
    return cfg, identity


def rescan(
    root: Path,
    names: list[str],
    out: Path,
    reviewer: str,
    secrets: tuple[str, ...] = (),
    secrets_files: tuple[Path, ...] = (),
    missing: list[str] | None = None,
) -> list[Hit]:
    """High-confidence hits in the files under ``root``: every JSON string leaf (JSON inside
    strings included) and every raw line, so neither escaping nor a duplicate key hides a value.

    Identity values the reviewer deliberately kept in clear (or that tracepub.toml allows) are
    the user's own to publish; secrets and added values never are. The reviewer's name may
    appear in the card, where approve put it."""
    cfg, _ = rescan_config(out, secrets, secrets_files, missing)
    engine = Engine(cfg)
    namer = Namer(load_key(OutDir(out).review))
    kept = decisions.load(out).keep_ids
    state = runstate.read(out).get("detect", {})
    allowed = {v.lower() for v in state.get("allow_values", [])}
    allow_rx = [re.compile(p) for p in state.get("allow_regexes", [])]
    hits: list[Hit] = []
    seen: set[tuple[str, int, str]] = set()

    def permitted(name: str, value: str, type_: str) -> bool:
        if name == OutDir.CARD and value.strip().lower() == reviewer.strip().lower():
            return True
        if not type_.startswith("identity."):
            return False
        return (
            namer.value_id(value) in kept
            or value.lower() in allowed
            or any(rx.fullmatch(value) for rx in allow_rx)
        )

    where: dict[str, Any] = {"name": "", "line": 0}

    def visit(text: str, path: tuple[Any, ...], key: str | None) -> str:
        for s in engine.scan(text, Leaf("publish", path, key, False)):
            value = text[s.start : s.end]
            if (
                s.confidence < BLOCK_CONFIDENCE
                or s.action == "review"
                or permitted(where["name"], value, s.type)
            ):
                continue
            k = (where["name"], where["line"], value)
            if k not in seen:
                seen.add(k)
                hits.append(Hit(where["name"], where["line"], s.type, s.detector, mask(value, s.type)))
        return text

    walker = Walker(visit, None, remove_blobs=False)
    for name in names:
        where["name"], where["line"] = name, 0
        visit(name, ("#file",), None)  # the path is uploaded too (line 0: the file name)
        with open(root / name, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                where["line"] = lineno
                line = raw.decode("utf-8", errors="replace")
                visit(line, (), None)
                stripped = line.strip()
                if stripped[:1] in ("{", "["):
                    try:
                        walker.walk(loads(stripped))
                    except (ValueError, RecursionError):
                        pass
    return hits


def refuse_hits(hits: list[Hit], out: Path) -> None:
    shown = "; ".join(str(h) for h in hits[:3]) + (f"; and {len(hits) - 3} more" if len(hits) > 3 else "")
    raise Refusal(
        f"the re-scan of dataset/ found {len(hits)} high-confidence value(s) in clear ({shown}): nothing "
        f"was sent; redact them (`tracepub review {out} --add TEXT` or `--redact ID`) and approve again"
    )
