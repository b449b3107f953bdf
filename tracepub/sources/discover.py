"""Finding sessions: in the folders and files given, or in every harness's default location.

Folders are walked recursively, hidden folders included (``~/.claude`` is hidden). A folder a
reader claims as a whole (OpenCode's ``storage/`` tree) is not descended into, and neither is a
symbolic link (``SYMLINK``: listed as skipped, with why). Each file is
given to the readers that accept its ending, and the first whose ``sniff`` accepts its content
owns it; a file nobody accepts is listed as skipped (it is not an error: a folder of sessions
also holds settings, caches and notes). Files that cannot be read (permissions, vanished) and
empty files are problems: reported with the file, and the run goes on.

Without SOURCES, only the harnesses' own locations are searched and the generic formats are
left out: under ``$HOME`` a JSON file is as likely to hold settings or credentials as a
conversation. When two stores hold the same session (OpenCode's DB and its legacy tree,
Hermes' ``state.db`` and its session logs), the unit from the preferred store is kept and the
other is listed under ``duplicates``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tracepub.model import Problem, Unit
from tracepub.readers import READERS, Reader, detect, reader_for_unit
from tracepub.readers.base import read_head

# A symbolic link inside a source folder is not followed: it can lead anywhere on the disk (a
# home folder, /etc), and what it leads to would be published under the session's name. It is
# listed as skipped with this reason, never dropped silently. A SOURCE given by name is read,
# link or not: the user chose it.
SYMLINK = "symbolic link, not followed (it can lead out of the source tree)"


@dataclass
class Discovery:
    units: list[Unit] = field(default_factory=list)
    # files of unknown format (their path), and links not followed ("path: reason")
    skipped: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    roots: list[Path] = field(default_factory=list)
    # Sessions left out because a preferred store read in this run holds them too.
    duplicates: list[str] = field(default_factory=list)


def _suffixes(generic: bool = True) -> set[str]:
    return {s for r in READERS if generic or not r.generic for s in r.suffixes}


def default_locations(env: dict[str, str] | None = None, home: Path | None = None) -> list[Path]:
    """Every default location of every harness (DESIGN.md's table), env overrides honoured,
    whether it exists or not (what a run without SOURCES searched, when it finds nothing)."""
    env = dict(os.environ if env is None else env)
    home = home or Path(env.get("HOME") or Path.home())
    out: list[Path] = []
    for r in READERS:
        if r.generic:
            continue
        for loc in r.default_locations(env, home):
            if loc not in out:
                out.append(loc)
    return out


def default_sources(env: dict[str, str] | None = None, home: Path | None = None) -> list[Path]:
    """The default locations that exist."""
    return [loc for loc in default_locations(env, home) if loc.exists()]


def nothing_found(sources: list[Path], found: Discovery, defaults: bool) -> str | None:
    """Why a run must not go on, in one line, or None: a SOURCE that does not exist (a typo
    would otherwise give an empty dataset and exit 0), or no session anywhere it looked; the
    line lists the places searched (with no SOURCES, every harness's default location)."""
    missing = [str(s) for s in sources if not s.exists()]
    if missing:
        return "no such file or folder: " + ", ".join(missing) + "; nothing was read or written"
    if found.units:
        return None
    places = [
        f"{p} (missing)" if not p.exists() else str(p) for p in (default_locations() if defaults else sources)
    ]
    why = []
    if found.skipped:
        why.append(f"{len(found.skipped)} file(s) skipped")
    if found.problems:
        why.append(f"{len(found.problems)} problem(s), the first: {found.problems[0]}")
    return (
        "no sessions found; searched "
        + ", ".join(places)
        + (f" ({'; '.join(why)})" if why else "")
        + "; nothing was written"
    )


def discover(sources: list[Path], defaults: bool = False) -> Discovery:
    """Units for every session under ``sources``. ``defaults``: the sources are the harnesses'
    default locations (no SOURCES were given), so generic formats are not looked for."""
    found = Discovery(roots=list(sources))
    seen: set[Path] = set()
    generic = not defaults
    for src in sources:
        if not src.exists():
            found.problems.append(Problem(str(src), None, "no such file or folder"))
            continue
        if src.is_file():
            _file(src, src.parent, found, seen, generic)
            continue
        _folder(src, found, seen, generic)
    _dedupe(found)
    found.units.sort(key=lambda u: (u.harness, u.relpath, str(u.source), u.key or ""))
    return found


def _folder(root: Path, found: Discovery, seen: set[Path], generic: bool) -> None:
    suffixes = _suffixes(generic)
    for dirpath, dirnames, filenames in os.walk(
        root,
        onerror=lambda e: found.problems.append(
            Problem(str(e.filename), None, f"cannot read folder: {e.strerror}")
        ),
    ):
        here = Path(dirpath)
        claimed = [r for r in READERS if (generic or not r.generic) and r.claims_dir(here)]
        if claimed:
            real = here.resolve()
            if real not in seen:
                seen.add(real)
                _units(claimed[0], here, root, found)
            dirnames[:] = []
            continue
        dirnames.sort()
        for name in dirnames:  # os.walk lists a linked folder here and does not go in
            if (here / name).is_symlink():
                found.skipped.append(f"{here / name}: {SYMLINK}")
        for name in sorted(filenames):
            path = here / name
            if path.suffix.lower() in suffixes:
                if path.is_symlink():
                    found.skipped.append(f"{path}: {SYMLINK}")
                else:
                    _file(path, root, found, seen, generic)


def _file(path: Path, root: Path, found: Discovery, seen: set[Path], generic: bool) -> None:
    real = path.resolve()
    if real in seen:
        return
    seen.add(real)
    try:
        if path.stat().st_size == 0:
            found.problems.append(Problem(str(path), None, "empty file; skipped"))
            return
        head = read_head(path)
    except OSError as exc:
        found.problems.append(Problem(str(path), None, f"cannot read: {exc.strerror or exc}"))
        return
    reader = detect(path, generic, head)
    if reader is None:
        found.skipped.append(str(path))
        return
    _units(reader, path, root, found)


def _units(reader: Reader, path: Path, root: Path, found: Discovery) -> None:
    try:
        items = list(reader.units(path, root))
    except Exception as exc:  # a corrupt or locked store is reported; the run goes on
        found.problems.append(Problem(str(path), None, f"cannot read as {reader.label}: {exc}"))
        return
    for item in items:
        if isinstance(item, Problem):  # a session refused for naming files outside the tree
            found.problems.append(item)
        else:
            found.units.append(item)


def _dedupe(found: Discovery) -> None:
    def rank(u: Unit) -> int | None:
        return reader_for_unit(u).store_rank if u.key is not None else None

    best: dict[tuple[str, str], int] = {}
    for u in found.units:
        r = rank(u)
        if r is not None:
            k = (u.harness, str(u.key))
            best[k] = min(best.get(k, r), r)
    kept = []
    for u in found.units:
        r = rank(u)
        if r is not None and r > best[(u.harness, str(u.key))]:
            found.duplicates.append(f"{u.source} (session {u.key}: read from its preferred store instead)")
        else:
            kept.append(u)
    found.units = kept
