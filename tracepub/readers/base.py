"""The reader contract: one small class per harness, registered in ``readers/__init__.py``.

A reader answers four questions about files it recognises *by content*:
``sniff`` (is this mine?), ``units`` (which output files does it make?), ``records`` (stream
them), ``info`` (describe a session without detection), and ``is_prose`` (which strings are
user/assistant natural language, the only text NER runs on).

Native JSONL harnesses subclass ``JsonlReader`` and mostly only describe their records; the
pipeline writes their lines back in the same shape. Stores that are not JSONL (SQLite, a JSON
tree) yield STS records (``{"type":"session",...}`` then ``{"type":"message",...}``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from tracepub.model import Problem, Record, SessionInfo, Unit
from tracepub.walk.walker import loads

HEAD_BYTES = 64 * 1024

# How deep a record may nest (arrays and objects, JSON inside its strings included) and still be
# read as JSON. Every stage walks records recursively (the walker, prose, deny rules), and
# Python stops at about a thousand frames: a record nested deeper is kept as plain text (still
# scanned and redacted) and reported, instead of failing its whole file. Real sessions nest a
# few dozen levels at most.
MAX_DEPTH = 400
DEEP = f"line is nested more than {MAX_DEPTH} levels deep; kept as plain text and scanned"


# A first line longer than the head (a pasted screenshot, a 20 KB system prompt plus tools) is
# read to its end, up to this much, so that sniffing still sees one whole record.
FIRST_LINE_MAX = 64 * 1024 * 1024


def inside(root: Path, *parts: str | Path) -> Path | None:
    """``root`` joined with ``parts`` if that resolves (symlinks followed, ``..`` folded) to a
    place inside ``root`` (resolved too), else None.

    Readers build paths from file content (an OpenCode session's ``id`` names its message
    folder, its ``projectID`` its project document): an id such as ``/etc`` or ``../../x``, or a
    symlink in the tree, must never make tracepub read files outside the SOURCE the user gave
    (their text would be published under the session). Every such path goes through here, and a
    None is reported as a problem and not read. The joined path (not the resolved one) is
    returned, so names shown and recorded stay the ones under the source."""
    joined = root.joinpath(*parts)
    try:
        base = root.resolve()
        target = joined.resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a NUL byte in an id
        return None
    return joined if target.is_relative_to(base) else None


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes, extended to the end of the first line if that is longer."""
    with open(path, "rb") as fh:
        head = fh.read(size)
        if len(head) < size or b"\n" in head or head.lstrip()[:1] not in (b"{", b"["):
            return head
        chunks = [head]
        total = len(head)
        while total < FIRST_LINE_MAX:
            chunk = fh.read(1 << 20)
            if not chunk:
                break
            cut = chunk.find(b"\n")
            if cut >= 0:
                chunks.append(chunk[: cut + 1])
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)


def too_deep(text: str, value: Any, limit: int = MAX_DEPTH) -> bool:
    """Does ``value`` (parsed from ``text``) nest more than ``limit`` levels, counting JSON inside
    its strings as the walker reads it? A text with fewer opening brackets cannot: for almost
    every line that is the only cost (a count of two characters)."""
    if len(text) <= 2 * limit or text.count("{") + text.count("[") <= limit:
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            if depth > limit:
                return True
            stack.extend(
                (x, depth + 1) for x in v.values() if not isinstance(x, (int, float, bool)) and x is not None
            )
        elif isinstance(v, list):
            if depth > limit:
                return True
            stack.extend((x, depth + 1) for x in v if not isinstance(x, (int, float, bool)) and x is not None)
        elif (
            isinstance(v, str)
            and len(v) > 2 * (limit - depth)
            and v.lstrip()[:1] in ("{", "[")
            and v.count("{") + v.count("[") > limit - depth
        ):
            try:
                stack.append((loads(v.strip()), depth))
            except RecursionError:  # deeper than the parsers go: the walker could not read it either
                return True
            except ValueError as exc:  # not JSON: the walker scans it as text
                if _depth_error(exc):
                    return True
    return False


def _depth_error(exc: ValueError) -> bool:
    """A parser's refusal to nest deeper (orjson stops at 1024 levels), not a syntax error."""
    text = str(exc).lower()
    return "depth limit" in text or "recursion" in text


def head_lines(head: bytes, n: int = 5) -> list[Any]:
    """Parse up to ``n`` JSON lines of a file's head; lines that do not parse (the last one may
    be cut) are passed over."""
    out = []
    for line in head.split(b"\n"):
        line = line.strip()
        if not line:
            continue
        try:
            out.append(loads(line.decode("utf-8", "replace")))
        except (ValueError, RecursionError):
            continue
        if len(out) >= n:
            break
    return out


def head_document(path: Path, head: bytes) -> Any:
    """Parse a whole (small enough) JSON document, or None."""
    if head.lstrip()[:1] not in (b"{", b"["):
        return None
    try:
        if len(head) < HEAD_BYTES:
            return loads(head.decode("utf-8"))
        if os.path.getsize(path) > 256 * 1024 * 1024:
            return None
        return loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, OSError):
        return None


class Reader:
    name: ClassVar[str] = ""  # folder name under dataset/, e.g. "claude_code"
    label: ClassVar[str] = ""  # for people, e.g. "Claude Code"
    # File endings this reader can own; discovery only sniffs files with these.
    suffixes: ClassVar[tuple[str, ...]] = (".jsonl",)
    # Generic interchange formats are only read from SOURCES given on the command line, never
    # from the harnesses' home folders (where a JSON file is settings, caches or credentials).
    generic: ClassVar[bool] = False
    # Stores that hold the same sessions (OpenCode's DB and its legacy tree, Hermes' state.db
    # and its session logs): when two units of one harness share a ``key`` (the session id),
    # discovery keeps only the one with the lowest rank. None: never deduplicated.
    store_rank: ClassVar[int | None] = None

    def sniff(self, path: Path, head: bytes) -> bool:
        raise NotImplementedError

    def claims_dir(self, path: Path) -> bool:
        """A folder read as a whole (OpenCode's ``storage/`` tree); discovery does not descend."""
        return False

    def default_locations(self, env: dict[str, str], home: Path) -> list[Path]:
        """Where the harness keeps sessions when no SOURCES are given (env overrides first)."""
        return []

    def relpath(self, path: Path, root: Path) -> str:
        """The output path under ``dataset/<name>/``: by default relative to the given root."""
        try:
            rel = path.relative_to(root)
        except ValueError:
            rel = Path(path.name)
        return rel.as_posix() if str(rel) != "." else path.name

    def units(self, path: Path, root: Path) -> Iterator[Unit | Problem]:
        """The output files ``path`` makes. A session whose content names files outside the
        source tree (see ``inside``) is yielded as a ``Problem`` instead: discovery lists it
        and reads nothing of it."""
        yield Unit(
            self.name, path, self.relpath(path, root), "jsonl", deps=(path,), reader=type(self).__name__
        )

    def records(self, unit: Unit, problems: list[Problem]) -> Iterator[Record]:
        raise NotImplementedError

    def info(self, unit: Unit) -> SessionInfo:
        raise NotImplementedError

    def is_prose(self, record: Any, path: tuple) -> bool:
        return False

    def may_have_prose(self, record: Any) -> bool:
        """Is ``is_prose`` true for any string of this record? The line-level skip asks (only
        when nothing but a prose-only trigger such as NER's fired on the raw line). This walk is
        exact for any ``is_prose``; a reader may answer faster, but never False when in doubt."""

        def walk(v: Any, path: tuple) -> bool:
            if isinstance(v, str):
                return self.is_prose(record, path)
            if isinstance(v, dict):
                return any(walk(x, (*path, k)) for k, x in v.items())
            if isinstance(v, list):
                return any(walk(x, (*path, i)) for i, x in enumerate(v))
            return False

        return walk(record, ())


# Lines are read through a buffer this large: a line is often longer than the default 8 kB, and
# reading one then takes a chunk at a time.
READ_BUFFER = 1 << 20


def iter_jsonl(path: Path, problems: list[Problem], digest: Any = None) -> Iterator[Record]:
    """Stream a JSONL file as records, never failing on a bad line.

    A line that is not JSON is kept as plain text (it is still scanned and redacted) and
    reported with its line number, and so is a line nested too deep to walk (``MAX_DEPTH``,
    reported as that); invalid UTF-8 is reported and replaced by U+FFFD.
    ``digest`` (a hashlib object) is fed every byte read, in order: once the records are all
    read, it is the digest of the file as it was read.
    """
    with open(path, "rb", buffering=READ_BUFFER) as fh:
        for n, raw in enumerate(fh, 1):
            if digest is not None:
                digest.update(raw)
            if raw.endswith(b"\n"):
                raw = raw[:-1]
            utf8: bytes | None = raw
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                problems.append(Problem(str(path), n, f"invalid UTF-8 ({exc.reason}); bad bytes replaced"))
                line = raw.decode("utf-8", "replace")
                utf8 = None
            if not line.strip():
                yield Record(n, line, raw=line, raw_text=True)
                continue
            # JSON's own blanks only: a number padded with \x0b or U+0085 is no JSON line, and the
            # standard library's fallback would read the stripped rest as one (reported, not parsed).
            stripped = line.strip(" \t\r\n")
            try:
                value = loads(stripped, utf8)
                deep = too_deep(stripped, value)
            except RecursionError:
                deep = True
            except ValueError as exc:
                deep = _depth_error(exc)
                if not deep:
                    problems.append(Problem(str(path), n, "line is not JSON; kept as plain text and scanned"))
                    yield Record(n, line, raw=line, raw_text=True)
                    continue
            if deep:
                problems.append(Problem(str(path), n, DEEP))
                yield Record(n, line, raw=line, raw_text=True, deep=True)
                continue
            yield Record(n, value, raw=line)


class JsonlReader(Reader):
    """A harness that stores one session per JSONL file, written back line for line."""

    def records(self, unit: Unit, problems: list[Problem]) -> Iterator[Record]:
        yield from iter_jsonl(unit.source, problems)

    def records_digest(self, unit: Unit, problems: list[Problem], digest: Any) -> Iterator[Record]:
        """``records``, feeding ``digest`` every byte of ``unit.source`` as it is read (see
        ``records_hashing``)."""
        yield from iter_jsonl(unit.source, problems, digest=digest)

    def info(self, unit: Unit) -> SessionInfo:
        info = SessionInfo(self.name, Path(unit.relpath).stem, size=_size(unit.source))
        problems: list[Problem] = []
        for rec in iter_jsonl(unit.source, problems):
            if not rec.raw_text and isinstance(rec.value, dict):
                self.describe(rec.value, info)
        return info

    def describe(self, record: dict, info: SessionInfo) -> None:
        """Fold one record into the session description (times, counts, project)."""
        fold_time(info, record.get("timestamp"))


class JsonDocReader(Reader):
    """A harness or format that stores one JSON document per file, written back as one."""

    suffixes = (".json",)

    def units(self, path: Path, root: Path) -> Iterator[Unit]:
        yield Unit(
            self.name, path, self.relpath(path, root), "json", deps=(path,), reader=type(self).__name__
        )

    def records(self, unit: Unit, problems: list[Problem]) -> Iterator[Record]:
        yield from self.records_digest(unit, problems, None)

    def records_digest(self, unit: Unit, problems: list[Problem], digest: Any) -> Iterator[Record]:
        """``records``, feeding ``digest`` the bytes of ``unit.source`` as read (see ``records_hashing``)."""
        data = unit.source.read_bytes()
        if digest is not None:
            digest.update(data)
        try:
            raw = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(
                Problem(str(unit.source), None, f"invalid UTF-8 ({exc.reason}); bad bytes replaced")
            )
            raw = data.decode("utf-8", "replace")
        try:
            value = loads(raw)
            deep = too_deep(raw, value)
        except RecursionError:
            deep = True
        except ValueError as exc:
            deep = _depth_error(exc)
            if not deep:
                problems.append(
                    Problem(str(unit.source), None, f"not valid JSON ({exc}); kept as plain text")
                )
                yield Record(1, raw, raw=raw, raw_text=True)
                return
        if deep:
            problems.append(Problem(str(unit.source), None, DEEP.replace("line", "document", 1)))
            yield Record(1, raw, raw=raw, raw_text=True, deep=True)
            return
        yield Record(1, value, raw=raw)

    def info(self, unit: Unit) -> SessionInfo:
        info = SessionInfo(self.name, Path(unit.relpath).stem, size=_size(unit.source))
        problems: list[Problem] = []
        for rec in self.records(unit, problems):
            if not rec.raw_text:
                self.describe(rec.value, info)
        return info

    def describe(self, doc: Any, info: SessionInfo) -> None:
        """Fold the document into the session description."""


def records_hashing(
    reader: Reader, unit: Unit, problems: list[Problem], digest: Any
) -> Iterator[Record] | None:
    """``reader.records(unit, problems)``, feeding ``digest`` (a hashlib object) every byte of the
    unit's one file as it is read: once the records are all read, ``digest`` is the digest of
    the bytes redacted (the pipeline's input hash for incremental runs, without reading the file
    a second time). None where that does not hold: a unit made of other files than its source,
    or a reader that reads records its own way (it overrides ``records``)."""
    if (unit.deps or (unit.source,)) != (unit.source,):
        return None
    for base in (JsonlReader, JsonDocReader):
        if (
            isinstance(reader, base)
            and type(reader).records is base.records
            and type(reader).records_digest is base.records_digest
        ):
            return reader.records_digest(unit, problems, digest)
    return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def size_of(path: Path) -> int:
    return _size(path)


def fold_time(info: SessionInfo, ts: Any) -> None:
    """Widen ``info``'s start/end with a timestamp (ISO string, or epoch seconds / milliseconds)."""
    iso = to_iso(ts)
    if iso is None:
        return
    if info.start is None or iso < info.start:
        info.start = iso
    if info.end is None or iso > info.end:
        info.end = iso


def to_iso(ts: Any) -> str | None:
    """An ISO-8601 UTC string for an ISO string or an epoch number (seconds or milliseconds)."""
    if isinstance(ts, str):
        return ts or None
    if isinstance(ts, bool) or not isinstance(ts, (int, float)):
        return None
    from datetime import UTC, datetime

    seconds = ts / 1000 if ts > 1e11 else ts
    try:
        dt = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"
