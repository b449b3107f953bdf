"""Incremental runs: a source whose bytes did not change is not redacted again.

``review/state.json`` remembers, per output file, what produced it: the source path, its
reader and session key, every dependency's size, mtime and the sha256 of their bytes, the
hash of everything that decides the output (detection config, identity, reviewer decisions,
blob handling, tool version: ``run_key``), and the unit's result (counts, problems). On the
next ``redact`` into the same DIR, a unit whose entry matches, and whose output file and
findings part are still there as written, is reused as it is; a changed or new source is
processed; a removed one drops out of dataset/ (the pipeline removes stale files).
Placeholders stay stable across runs because the HMAC key in review/ is reused.

Cost of a reused unit: a stat per file, and a sha256 of its bytes when the size is unchanged
(mtime alone is not trusted: tools copy files keeping it).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracepub.model import Unit
from tracepub.outdir import OutDir
from tracepub.outputs.files import write_json

if TYPE_CHECKING:
    from tracepub.detect.found import Found

VERSION = 2  # 2: content digests are per file (a store file is hashed once)


def deps_of(unit: Unit) -> tuple[Path, ...]:
    return unit.deps or (unit.source,)


def fingerprint(unit: Unit, name: Callable[[str], str] = str) -> list[list[Any]]:
    """[path, size, mtime_ns] of every file the unit is made of (an unreadable one: -1). Paths go
    through ``name`` (the state file stores keyed hashes: paths hold the user's name)."""
    out = []
    for p in deps_of(unit):
        try:
            st = p.stat()
            out.append([name(str(p)), st.st_size, st.st_mtime_ns])
        except OSError:
            out.append([name(str(p)), -1, -1])
    return out


def content_sha256(unit: Unit, read: dict[Path, bytes] | None = None) -> str:
    """The sha256 of the unit's source bytes (its paths and each file's own digest). A store file
    (OpenCode/Hermes DB) is one dependency of every session in it: its digest is computed once
    per process for a given size and mtime, not once per session. ``read``: the sha256 digests
    of files as the reader read them (``readers.base.records_hashing``: the bytes redacted),
    used instead of reading them again."""
    h = hashlib.sha256()
    for p in deps_of(unit):
        h.update(str(p).encode("utf-8", "surrogateescape") + b"\0")
        if read is not None and p in read:
            h.update(read[p])
            continue
        try:
            st = p.stat()
            h.update(_file_sha256(str(p), st.st_size, st.st_mtime_ns))
        except OSError:
            h.update(b"\0unreadable")
    return h.hexdigest()


@functools.lru_cache(maxsize=256)
def _file_sha256(path: str, size: int, mtime_ns: int) -> bytes:
    """Raises OSError for a file that cannot be read (not cached)."""
    with open(path, "rb") as fh:  # file_digest reads into one buffer: no new bytes per chunk
        return hashlib.file_digest(fh, "sha256").digest()


def seal(found: Found, unit: Unit, key: bytes) -> str | None:
    """A unit's found values (``detect.found``), encrypted for its next reuse.

    A reused unit is not read again, yet the values it redacted must still be looked for in
    every other file. They are not stored in clear (review/ holds no secret in clear): the key
    is the HMAC, under the placeholder key, of the unit's source bytes, which nothing stores,
    so only someone holding the unchanged sources (who has the values anyway) can open them.
    None when a source cannot be read (the unit is then not reused)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    secret = _source_key(unit, key)
    if secret is None:
        return None
    nonce = os.urandom(12)
    data = json.dumps(sorted([v, t, a] for v, (t, a) in found.items()), ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )
    return base64.b64encode(nonce + AESGCM(secret).encrypt(nonce, data, None)).decode()


def unseal(blob: object, unit: Unit, key: bytes) -> Found | None:
    """``seal``'s values, or None if the sources changed or the blob is not ours."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    if not isinstance(blob, str):
        return None
    secret = _source_key(unit, key)
    if secret is None:
        return None
    try:
        raw = base64.b64decode(blob)
        data = AESGCM(secret).decrypt(raw[:12], raw[12:], None)
        return {v: (t, a) for v, t, a in json.loads(data.decode("utf-8", "surrogatepass"))}
    except (ValueError, InvalidTag, TypeError):
        return None


def _source_key(unit: Unit, key: bytes) -> bytes | None:
    """``seal``'s key. A store file (OpenCode/Hermes DB) is the one dependency of every session
    in it: its key is computed once per process for a given size and mtime (``_file_sha256``),
    not once per session (each read the whole store)."""
    try:
        stamps = tuple((str(p), st.st_size, st.st_mtime_ns) for p in deps_of(unit) for st in (p.stat(),))
        return _keyed_digest(key, stamps)
    except OSError:
        return None


@functools.lru_cache(maxsize=64)
def _keyed_digest(key: bytes, stamps: tuple[tuple[str, int, int], ...]) -> bytes:
    """The HMAC of the files' paths and bytes (``stamps``: path, size, mtime); raises OSError
    for a file that cannot be read (not cached)."""
    mac = hmac.new(key, b"tracepub found values\0", hashlib.sha256)
    for path, _, _ in stamps:
        mac.update(path.encode("utf-8", "surrogateescape") + b"\0")
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                mac.update(block)
    return mac.digest()


def run_key(config_hash: str, extra: object = None) -> str:
    """Everything besides the source bytes that decides a unit's output."""
    return hashlib.sha256(json.dumps([config_hash, repr(extra)]).encode()).hexdigest()


class State:
    """The previous run's per-unit records, and the ones this run writes."""

    def __init__(self, out: Path | OutDir, key: str, name: Callable[[str], str] = str) -> None:
        """``name`` turns a path or session key into what is stored (a keyed hash: review/ must
        not hold the user's identity in clear, and paths do)."""
        self.out = OutDir(out).root
        self.key = key
        self.name = name
        self.path = OutDir(out).state
        self.old: dict[str, dict[str, Any]] = {}
        self.new: dict[str, dict[str, Any]] = {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        if isinstance(data, dict) and data.get("version") == VERSION and data.get("key") == key:
            self.old = data.get("units", {})

    def reusable(self, unit: Unit, dest: str, output: Path, part: Path) -> dict[str, Any] | None:
        """The stored result if ``unit`` can be reused for ``dest``, else None."""
        entry = self.old.get(dest)
        if (
            not entry
            or entry.get("source") != self.name(str(unit.source))
            or entry.get("reader") != unit.reader
            or entry.get("unit_key") != (self.name(unit.key) if unit.key else None)
        ):
            return None
        fp = fingerprint(unit, self.name)
        if [f[:2] for f in fp] != [f[:2] for f in entry.get("deps", [])] or any(f[1] < 0 for f in fp):
            return None
        if not _same_file(output, entry.get("output")) or not _same_file(part, entry.get("part")):
            return None
        if content_sha256(unit) != entry.get("sha256"):
            return None
        entry = dict(entry, deps=fp)  # refresh mtimes (a touched file hashes the same)
        return entry

    def record(
        self,
        dest: str,
        unit: Unit,
        deps: list[list[Any]],
        sha256: str,
        output: Path,
        part: Path,
        result: dict[str, Any],
    ) -> None:
        """``deps``: ``fingerprint(unit, name)``, paths already named as stored."""
        self.new[dest] = {
            "source": self.name(str(unit.source)),
            "reader": unit.reader,
            "unit_key": self.name(unit.key) if unit.key else None,
            "deps": deps,
            "sha256": sha256,
            "output": _file_id(output),
            "part": _file_id(part),
            "result": result,
        }

    def keep(self, dest: str, entry: dict[str, Any]) -> None:
        self.new[dest] = entry

    def save(self) -> None:
        write_json(self.path, {"version": VERSION, "key": self.key, "units": self.new})


def _file_id(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _same_file(path: Path, recorded: list[int] | None) -> bool:
    return recorded is not None and _file_id(path) == list(recorded)


def clear(out: Path | OutDir) -> None:
    """Forget the previous run (its outputs are then all rebuilt)."""
    try:
        os.unlink(OutDir(out).state)
    except OSError:
        pass
