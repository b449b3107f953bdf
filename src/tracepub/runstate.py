"""What a run needs to be repeated: review/run.json (and review/values.json), plus decisions.

``tracepub review`` applies decisions by redacting again from the original sources, so the
run stores its sources (absolute paths) and options. The exact values matched (the harvested
identity, ``--secret`` values, secrets from files) go to a separate ``review/values.json``
with mode 0600, like ``placeholder.key``: re-harvesting later, in another shell, could miss a
secret that only an environment variable held, and a re-run must never redact less.
Neither file is uploaded (review/ never is).

Decisions are not stored here: ``with_decisions`` folds ``review/decisions.jsonl`` into the
options at the start of every run, which is how they survive a later ``tracepub redact``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from tracepub import decisions
from tracepub.detect import DetectConfig
from tracepub.output import REVIEW, atomic_writer, write_json

RUN_FILE = "run.json"
VALUES_FILE = "values.json"
# RunOptions fields that are not options of the run itself, or are stored specially.
_NOT_STORED = {"out", "detect", "keep_ids", "progress", "selection", "deny"}


def with_decisions(opts: Any) -> Any:
    """The options with the reviewer's decisions folded in: kept values, added values and regexes
    (always redacted: ``custom.text`` / ``custom.regex``; the redactor never keeps ``custom.*``)."""
    d = decisions.load(opts.out)
    if not (d.keep_ids or d.add_values or d.add_regexes):
        return opts
    identity = {v: "custom.text" for v in d.add_values}
    identity.update(opts.detect.identity)
    detect = dataclasses.replace(
        opts.detect,
        identity=identity,
        add_regexes=[*opts.detect.add_regexes, *(r for r in d.add_regexes if r not in opts.detect.add_regexes)],
    )
    return dataclasses.replace(opts, detect=detect, keep_ids=set(opts.keep_ids) | d.keep_ids)


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def save(opts: Any, sources: list[Path], summary: dict[str, Any], **extra: Any) -> None:
    """Write run.json and values.json for ``opts`` (the options as given, before decisions).

    ``extra`` keys go into run.json as they are (``units``: what sessions.drop_session needs).
    Deny rules go to values.json with the exact values: they name clients and projects."""
    review = opts.out / REVIEW
    options = {f.name: _plain(getattr(opts, f.name)) for f in dataclasses.fields(opts) if f.name not in _NOT_STORED}
    options["sources"] = [str(Path(s).resolve()) for s in sources]
    sel = getattr(opts, "selection", None)
    options["selection"] = dataclasses.asdict(sel) if sel is not None else None
    detect = {k: _plain(v) for k, v in dataclasses.asdict(opts.detect).items() if k != "identity"}
    detect["extra_rules"] = [str(Path(p).resolve()) for p in opts.detect.extra_rules]
    write_json(review / RUN_FILE, {
        "sources": options["sources"],
        "options": options,
        "detect": detect,
        "summary": summary,
        **extra,
    })
    values = {"identity": opts.detect.identity,
              "deny": [dataclasses.asdict(r) for r in getattr(opts, "deny", None) or []]}
    with atomic_writer(review / VALUES_FILE) as fh:
        os.fchmod(fh.fileno(), 0o600)  # mkstemp's mode already; said explicitly
        fh.write(json.dumps(values, ensure_ascii=False, indent=1) + "\n")


def read(out: Path) -> dict[str, Any]:
    path = out / REVIEW / RUN_FILE
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `tracepub redact SOURCES --out {out}` first")
    return json.loads(path.read_text(encoding="utf-8"))


def _values(out: Path) -> dict[str, Any]:
    path = out / REVIEW / VALUES_FILE
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def stored_values(out: Path) -> dict[str, str]:
    return dict(_values(out).get("identity", {}))


def load_options(out: Path, fresh_identity: dict[str, str] | None = None, progress: bool = False) -> Any:
    """Rebuild the RunOptions of the last run into ``out`` (decisions are folded in by ``run``).

    ``fresh_identity`` (a new harvest) is added to the stored values: a re-run redacts at least
    what the first run did."""
    from tracepub.pipeline import RunOptions

    state = read(out)
    known = {f.name for f in dataclasses.fields(RunOptions)}
    options = {k: v for k, v in state.get("options", {}).items() if k in known and k not in _NOT_STORED}
    options["sources"] = [Path(s) for s in state.get("sources", options.get("sources", []))]
    dknown = {f.name for f in dataclasses.fields(DetectConfig)}
    detect = {k: v for k, v in state.get("detect", {}).items() if k in dknown}
    identity = dict(fresh_identity or {})
    identity.update(stored_values(out))
    detect["identity"] = identity
    if "selection" in known and state.get("options", {}).get("selection"):
        from tracepub.selection import Selection

        options["selection"] = Selection(**state["options"]["selection"])
    if "deny" in known:
        from tracepub.deny import DenyRule

        options["deny"] = [DenyRule(**r) for r in _values(out).get("deny", [])]
    return RunOptions(out=out, detect=DetectConfig(**detect), progress=progress, **options)


def update_card(out: Path, meta: dict[str, Any]) -> None:
    """Remember card settings given to approve (license, title) so a later re-run keeps them."""
    state = read(out)
    state.setdefault("options", {}).setdefault("card", {}).update({k: v for k, v in meta.items() if v})
    write_json(out / REVIEW / RUN_FILE, state)
