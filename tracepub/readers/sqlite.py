"""Read-only access to the harnesses' SQLite stores (OpenCode ``opencode.db``, Hermes ``state.db``).

The database is opened through a ``file:…?mode=ro`` URI, so nothing can write to it (sources
are never modified; see ``connect`` for when it is also ``immutable``), with a short busy timeout: a store that the running harness holds locked,
or a corrupt file, raises ``sqlite3.Error``, which discovery and the pipeline report as a
problem for that file while the run goes on. Rows are streamed from cursors, never fetched all
at once.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

MAGIC = b"SQLite format 3\x00"
# Seconds to wait for a lock held by the harness itself before giving up on the store.
BUSY_TIMEOUT = 2.0


def is_sqlite(head: bytes) -> bool:
    return head.startswith(MAGIC)


def connect(path: Path) -> sqlite3.Connection:
    """Open read-only. With no ``-wal`` or ``-journal`` beside the file, nobody is writing and
    the file holds everything: it is opened ``immutable``, because even a read-only connection
    to a WAL-mode database would otherwise create ``-wal`` and ``-shm`` files next to it. With
    one, the harness may be writing: normal read-only locking (uncheckpointed WAL data is read;
    a writer's lock makes this fail, reported as a problem)."""
    resolved = path.resolve()
    busy = any(Path(f"{resolved}{suffix}").exists() for suffix in ("-wal", "-journal"))
    uri = resolved.as_uri() + ("?mode=ro" if busy else "?mode=ro&immutable=1")
    con = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT)
    con.row_factory = sqlite3.Row
    return con


def tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


def columns(con: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]


def sniff_tables(path: Path, head: bytes, needed: set[str], store_names: tuple[str, ...]) -> bool:
    """Is this a SQLite file with the harness's tables?

    A file with SQLite's header that cannot be opened (locked, corrupt) is still claimed when it
    has the harness's store name, so that the failure is reported instead of the file being
    silently listed as unknown. Without the header, nothing is claimed.
    """
    if not is_sqlite(head):
        return False
    try:
        con = connect(path)
        try:
            return needed <= tables(con)
        finally:
            con.close()
    except sqlite3.Error:
        return path.name in store_names or any(
            path.name.startswith(n.split("*")[0]) and path.name.endswith(n.split("*")[-1])
            for n in store_names
            if "*" in n
        )


def row_dict(row: sqlite3.Row) -> dict:
    """A row as a JSON-ready dict (a BLOB becomes text: these stores keep text in BLOBs if at all)."""
    out = {}
    for k in row.keys():
        v = row[k]
        if isinstance(v, (bytes, memoryview)):
            v = bytes(v).decode("utf-8", "replace")
        out[k] = v
    return out
