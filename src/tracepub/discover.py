"""Finding sessions: in the folders and files given, or in every harness's default location.

Folders are walked recursively, hidden folders included (``~/.claude`` is hidden). A folder a
reader claims as a whole (OpenCode's ``storage/`` tree) is not descended into. Each file is
given to the readers that accept its ending, and the first whose ``sniff`` accepts its content
owns it; a file nobody accepts is listed as skipped (it is not an error: a folder of sessions
also holds settings, caches and notes).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tracepub.model import Problem, Unit
from tracepub.readers import READERS, detect


@dataclass
class Discovery:
    units: list[Unit] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # files of unknown format
    problems: list[Problem] = field(default_factory=list)
    roots: list[Path] = field(default_factory=list)


def _suffixes() -> set[str]:
    return {s for r in READERS for s in r.suffixes}


def default_sources(env: dict[str, str] | None = None, home: Path | None = None) -> list[Path]:
    """Every existing default location of every harness (DESIGN.md's table)."""
    env = dict(os.environ if env is None else env)
    home = home or Path(env.get("HOME") or Path.home())
    out: list[Path] = []
    for r in READERS:
        for loc in r.default_locations(env, home):
            if loc.exists() and loc not in out:
                out.append(loc)
    return out


def discover(sources: list[Path]) -> Discovery:
    found = Discovery(roots=list(sources))
    seen: set[Path] = set()
    for src in sources:
        if not src.exists():
            found.problems.append(Problem(str(src), None, "no such file or folder"))
            continue
        if src.is_file():
            _file(src, src.parent, found, seen, explicit=True)
            continue
        _folder(src, found, seen)
    found.units.sort(key=lambda u: (u.harness, u.relpath, str(u.source), u.key or ""))
    return found


def _folder(root: Path, found: Discovery, seen: set[Path]) -> None:
    suffixes = _suffixes()
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: found.problems.append(
            Problem(str(e.filename), None, f"cannot read folder: {e.strerror}"))):
        here = Path(dirpath)
        claimed = [r for r in READERS if r.claims_dir(here)]
        if claimed:
            _units(claimed[0], here, root, found, seen)
            dirnames[:] = []
            continue
        dirnames.sort()
        for name in sorted(filenames):
            path = here / name
            if path.suffix.lower() in suffixes and not path.is_symlink():
                _file(path, root, found, seen, explicit=False)


def _file(path: Path, root: Path, found: Discovery, seen: set[Path], explicit: bool) -> None:
    real = path.resolve()
    if real in seen:
        return
    seen.add(real)
    try:
        if path.stat().st_size == 0:
            found.problems.append(Problem(str(path), None, "empty file; skipped"))
            return
    except OSError as exc:
        found.problems.append(Problem(str(path), None, f"cannot read: {exc.strerror}"))
        return
    if not os.access(path, os.R_OK):
        found.problems.append(Problem(str(path), None, "cannot read: permission denied"))
        return
    reader = detect(path)
    if reader is None:
        found.skipped.append(str(path))
        return
    _units(reader, path, root, found, seen)


def _units(reader, path: Path, root: Path, found: Discovery, seen: set[Path]) -> None:
    try:
        found.units.extend(reader.units(path, root))
    except Exception as exc:  # a corrupt or locked store is reported; the run goes on
        found.problems.append(Problem(str(path), None, f"cannot read as {reader.label}: {exc}"))
