"""Sources on any fsspec file system (``s3://``, ``hf://``, ``memory://``...): listed in parallel,
copied in parallel to a staging folder under DIR by the fetch stage, then read from there.

The readers read local files (SQLite stores need a file to open; JSONL is streamed from one),
so a remote source is staged rather than streamed: each datatrove task of the fetch stage
copies its shard of the listing (``stages.FetchShard``), and discovery then runs on the staged
copy exactly as on a local folder. A remote folder's files keep their paths relative to it
(so the output paths under dataset/ are those of a local copy of that folder), with the
remote modification time where the file system gives one: a file unchanged since the last run
is not fetched again, and its units are reused like any unchanged local source. The staging
folder stays after the run: review re-runs the pipeline from the sources of the run, which are
these copies. It holds the sources in clear, like the folders they came from.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from tracepub.errors import Refusal
from tracepub.runtypes import RunOptions

if TYPE_CHECKING:
    from tracepub.dist.engine import DatatroveMap
    from tracepub.dist.work import Work

# (source URL, path on its file system, local path, size, mtime in ns or None)
Entry = tuple[str, str, str, int | None, int | None]


def is_url(source: object) -> bool:
    """A source on another file system than this machine's (``file://`` is this machine's)."""
    text = str(source)
    return "://" in text and not text.startswith("file://")


def local_path(source: object) -> Path:
    text = str(source)
    return Path(text[len("file://") :]) if text.startswith("file://") else Path(text)


def stage(opts: RunOptions, work: Work, mapper: DatatroveMap, root: Path) -> RunOptions:
    """``opts`` with every remote source replaced by its staged copy (fetched by the fetch stage)."""
    remote = [str(s) for s in opts.sources if is_url(s)]
    if not remote:
        return dataclasses.replace(opts, sources=[local_path(s) for s in opts.sources])
    with ThreadPoolExecutor(max(1, min(8, len(remote)))) as pool:
        listed = list(
            pool.map(lambda url: listing(url, root / work.fingerprint(["source", url])[:16]), remote)
        )
    staged = {url: local for url, (local, _) in zip(remote, listed, strict=True)}
    entries = [e for _, files in listed for e in files]
    fetch(entries, work, mapper, max(1, opts.jobs or os.cpu_count() or 1))
    for local, files in listed:
        _remove_unlisted(local, {Path(e[2]) for e in files})
    sources = [staged[str(s)] if is_url(s) else local_path(s) for s in opts.sources]
    return dataclasses.replace(opts, sources=sources)


def listing(url: str, base: Path) -> tuple[Path, list[Entry]]:
    """Where ``url`` is staged (a file: ``base/<name>``; a folder: ``base/<its name>/``) and every
    file under it. A folder's first level is listed, then each subfolder in its own thread."""
    from fsspec.core import url_to_fs

    fs, root = url_to_fs(url)
    root = root.rstrip("/") or root
    try:
        info = fs.info(root)
    except FileNotFoundError:
        raise Refusal(f"{url}: no such file or folder") from None
    name = PurePosixPath(root).name or "source"
    if info.get("type") != "directory":
        local = base / name
        return local, [(url, root, str(local), info.get("size"), _mtime_ns(info))]
    local = base / name
    top = fs.ls(root, detail=True)
    files = [i for i in top if i.get("type") != "directory"]
    folders = [i["name"] for i in top if i.get("type") == "directory"]
    with ThreadPoolExecutor(max(1, min(16, len(folders)))) as pool:
        for found in pool.map(lambda d: list(fs.find(d, detail=True).values()), folders):
            files.extend(found)
    out: list[Entry] = []
    for i in sorted(files, key=lambda i: i["name"]):
        rel = _relative(i["name"], root)
        if rel is not None:
            out.append((url, i["name"], str(local.joinpath(*rel.parts)), i.get("size"), _mtime_ns(i)))
    return local, out


def _relative(name: str, root: str) -> PurePosixPath | None:
    """A listed file's path under ``root``, or None for one that would land outside the staging
    folder (a ``..`` component, a name outside ``root``)."""
    name, root = name.rstrip("/"), root.rstrip("/")
    if not name.startswith(root + "/"):
        return None
    rel = PurePosixPath(name[len(root) + 1 :])
    if not rel.parts or any(p in ("", ".", "..") for p in rel.parts):
        return None
    return rel


def _mtime_ns(info: dict[str, Any]) -> int | None:
    """The modification time a listing gives, in ns (the keys differ between file systems:
    local ``mtime``, s3 ``LastModified``, gcs ``updated``, hf ``last_commit``, memory ``created``)."""
    for k in ("mtime", "LastModified", "last_modified", "updated", "last_commit", "created"):
        v = info.get(k)
        v = getattr(v, "date", v) if k == "last_commit" else v
        if isinstance(v, datetime):
            return int(v.timestamp() * 1e9)
        if isinstance(v, (int, float)) and v > 0:
            return int(v * 1e9)
        if isinstance(v, str):
            try:
                return int(datetime.fromisoformat(v.replace("Z", "+00:00")).timestamp() * 1e9)
            except ValueError:
                continue
    return None


def fetch(entries: list[Entry], work: Work, mapper: DatatroveMap, jobs: int) -> None:
    """The fetch stage: the files in shards of about equal size, copied by datatrove tasks."""
    from tracepub.dist.stages import FetchShard, _same, shard_name
    from tracepub.dist.work import balance

    if not entries:
        return

    def collect() -> list[bool | None]:
        return [True if _done(e) else None for e in entries]

    def _done(e: Entry) -> bool:
        return _same(Path(e[2]), e[3], e[4]) if e[4] is not None else Path(e[2]).is_file()

    for e in entries:
        if e[4] is None:  # no time to tell an old copy from a new one: copied again, and only then done
            Path(e[2]).unlink(missing_ok=True)
    sizes = [e[3] or 0 for e in entries]
    shards = balance(sizes, mapper.task_count(sizes, jobs))
    work.remove("fetch")
    for rank, shard in enumerate(shards):
        work.put(shard_name("fetch", rank), [entries[p] for p in shard])
    mapper.counts["fetch_files"] = len(entries)
    todo = [p for p, e in enumerate(entries) if not _same(Path(e[2]), e[3], e[4])]
    mapper.counts["fetch_kept"] = len(entries) - len(todo)
    if not todo:
        return
    logs = work.logs(f"fetch/logs-{work.fingerprint(['fetch', shards, entries, todo])[:12]}")
    mapper.run_stage("fetch", [FetchShard(str(mapper.out), work.url)], len(shards), logs, collect, jobs)


def _remove_unlisted(local: Path, listed: set[Path]) -> None:
    """A staged file whose remote is gone must not be read as a source any more."""
    if not local.is_dir():
        return
    for p in _files(local):
        if p not in listed:
            p.unlink(missing_ok=True)


def _files(root: Path) -> Iterator[Path]:
    for p in sorted(root.rglob("*")):
        if p.is_file() or p.is_symlink():
            yield p
