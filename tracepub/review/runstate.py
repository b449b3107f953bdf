"""What a run needs to be repeated: review/run.json and review/values.json, plus decisions.

``tracepub review`` applies decisions by redacting again from the original sources, so the
run stores its sources (under the home folder as ``~/...``, so the path does not spell the
username) and options. The exact values matched (the harvested identity, ``--secret``
values, secrets from files) are never stored in clear: ``review/values.json`` keeps only their
keyed hashes (the placeholder key's HMAC) and types. A re-run collects the values again
(harvest, ``--secrets-file``, tracepub.toml, ``--secret`` given again) and refuses if one the
last run matched is missing, e.g. an environment variable of another shell or a ``--secret``
not given again: a re-run must never redact less. values.json also keeps the deny rules in
clear (0600): they are the user's own configuration, and a re-run that lost one would let a
denied session through. Neither file is uploaded (review/ never is).

Decisions are not stored here: ``with_decisions`` folds ``review/decisions.jsonl`` into the
options at the start of every run, which is how they survive a later ``tracepub redact``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from tracepub import config as config_mod
from tracepub.detect.registry import DetectConfig
from tracepub.errors import Refusal
from tracepub.outdir import OutDir
from tracepub.outputs.files import atomic_writer, write_json
from tracepub.redact.placeholders import Namer, load_key
from tracepub.review import decisions
from tracepub.runtypes import RunOptions
from tracepub.selection.deny import DenyRule
from tracepub.selection.select import Selection
from tracepub.sources.harvest import collect

# RunOptions fields that are not options of the run itself, or are stored specially.
_NOT_STORED = {"out", "detect", "keep_ids", "progress", "selection", "deny"}


def with_decisions(opts: RunOptions) -> RunOptions:
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
        add_regexes=[
            *opts.detect.add_regexes,
            *(r for r in d.add_regexes if r not in opts.detect.add_regexes),
        ],
    )
    return dataclasses.replace(opts, detect=detect, keep_ids=set(opts.keep_ids) | d.keep_ids)


def _plain(value: object) -> object:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def home_relative(path: Path | str) -> str:
    """``/home/jdoe/x`` → ``~/x``: stored paths should not spell the username."""
    p = Path(path).resolve()
    try:
        return "~/" + p.relative_to(Path.home().resolve()).as_posix()
    except ValueError:
        return str(p)


def _expand(path: str) -> Path:
    return Path(path).expanduser()


def save(opts: RunOptions, sources: list[Path], summary: dict[str, Any], **extra: object) -> None:
    """Write run.json and values.json for ``opts`` (the options as given, before decisions).

    ``extra`` keys go into run.json as they are (``units``: what sessions.drop_session needs).
    Deny rules go to values.json with the exact values: they name clients and projects."""
    od = OutDir(opts.out)
    options = {
        f.name: _plain(getattr(opts, f.name)) for f in dataclasses.fields(opts) if f.name not in _NOT_STORED
    }
    options["sources"] = [home_relative(s) for s in sources]
    options["selection"] = dataclasses.asdict(opts.selection) if opts.selection is not None else None
    detect = {k: _plain(v) for k, v in dataclasses.asdict(opts.detect).items() if k != "identity"}
    detect["extra_rules"] = [home_relative(p) for p in opts.detect.extra_rules]
    detect["secrets_files"] = [home_relative(p) for p in opts.detect.secrets_files]
    if opts.detect.config_file:
        detect["config_file"] = home_relative(opts.detect.config_file)
    write_json(
        od.run_file,
        {
            "sources": options["sources"],
            "options": options,
            "detect": detect,
            "summary": summary,
            **extra,
        },
    )
    namer = Namer(load_key(od.review))
    values = {
        "identity": sorted(
            ({"id": namer.value_id(v), "type": t} for v, t in opts.detect.identity.items()),
            key=lambda e: (e["type"], e["id"]),
        ),
        "deny": [dataclasses.asdict(r) for r in opts.deny],
    }
    with atomic_writer(od.values) as fh:
        os.fchmod(fh.fileno(), 0o600)  # mkstemp's mode already; said explicitly
        fh.write(json.dumps(values, ensure_ascii=False, indent=1) + "\n")


def read(out: Path | OutDir) -> dict[str, Any]:
    od = OutDir(out)
    if not od.run_file.exists():
        raise FileNotFoundError(
            f"{od.run_file} is missing: run `tracepub redact SOURCES --out {od.root}` first"
        )
    data: dict[str, Any] = json.loads(od.run_file.read_text(encoding="utf-8"))
    return data


def _values(out: Path | OutDir) -> dict[str, Any]:
    path = OutDir(out).values
    if not path.exists():
        return {}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def collect_values(
    out: Path,
    secrets: tuple[str, ...] = (),
    secrets_files: tuple[Path, ...] = (),
    what: str = "a re-run",
    missing_out: list[str] | None = None,
) -> dict[str, str]:
    """Collect the exact values again (harvest, the run's --secrets-file and tracepub.toml, and
    ``secrets``/``secrets_files`` given now) and check that every value the last run matched is
    among them (by keyed hash). Refuses otherwise (``what`` would see less than the run did),
    unless ``missing_out`` is given: then the types of missing values are appended to it."""
    detect = read(out).get("detect", {})
    files = [_expand(p) for p in detect.get("secrets_files", [])]
    missing_files = [str(p) for p in files if not p.exists()]
    cfg_secrets: list[str] = []
    if detect.get("config_file"):
        try:
            cfg_secrets = config_mod.load(_expand(detect["config_file"])).secrets
        except ValueError as exc:
            raise Refusal(f"cannot read the run's tracepub.toml again: {exc}") from None
    h = collect(secrets, [*(p for p in files if p.exists()), *secrets_files], cfg_secrets)
    namer = Namer(load_key(OutDir(out).review))
    have = {namer.value_id(v) for v in h.values}
    stored = _values(out).get("identity", [])
    missing = [e for e in stored if isinstance(e, dict) and e.get("id") not in have]
    if missing and missing_out is not None:
        missing_out.extend(e.get("type", "?") for e in missing)
    elif missing:
        kinds = ", ".join(sorted({e.get("type", "?") for e in missing}))
        hint = f" ({', '.join(missing_files)} no longer exists)" if missing_files else ""
        raise Refusal(
            f"{len(missing)} exact value(s) the last redact matched are not available to {what} "
            f"({kinds}){hint}; they are never stored, so give them again with --secret/--secrets-file, "
            "or run from the environment where `tracepub redact` ran. Nothing was changed"
        )
    return dict(h.values)


def load_options(
    out: Path, secrets: tuple[str, ...] = (), secrets_files: tuple[Path, ...] = (), progress: bool = False
) -> RunOptions:
    """Rebuild the RunOptions of the last run into ``out`` (decisions are folded in by ``run``),
    with the exact values collected again (``collect_values``)."""
    state = read(out)
    known = {f.name for f in dataclasses.fields(RunOptions)}
    options = {k: v for k, v in state.get("options", {}).items() if k in known and k not in _NOT_STORED}
    options["sources"] = [_expand(s) for s in state.get("sources", options.get("sources", []))]
    dknown = {f.name for f in dataclasses.fields(DetectConfig)}
    detect = {k: v for k, v in state.get("detect", {}).items() if k in dknown}
    for key in ("extra_rules", "secrets_files"):
        detect[key] = [str(_expand(p)) for p in detect.get(key, [])]
    if detect.get("config_file"):
        detect["config_file"] = str(_expand(detect["config_file"]))
    detect["identity"] = collect_values(out, secrets, secrets_files)
    if state.get("options", {}).get("selection"):
        options["selection"] = Selection(**state["options"]["selection"])
    options["deny"] = [DenyRule(**r) for r in _values(out).get("deny", [])]
    return RunOptions(out=out, detect=DetectConfig(**detect), progress=progress, **options)


def update_card(out: Path, meta: dict[str, str | None]) -> None:
    """Remember card settings given to approve (license, title) so a later re-run keeps them."""
    state = read(out)
    state.setdefault("options", {}).setdefault("card", {}).update({k: v for k, v in meta.items() if v})
    write_json(OutDir(out).run_file, state)
