"""Per-session costs removed from the readers and the seal (#15), each checked against the
formulation it replaces: the OpenCode parts of a session in one query (one per message before),
and a store's seal key computed once per process (once per session before)."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import sqlite3
from pathlib import Path

from tracepub.model import Unit
from tracepub.readers import sqlite as sq
from tracepub.readers.opencode import OpenCodeDb
from tracepub.run import incremental


def _store(path: Path, rng: random.Random) -> list[str]:
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT, time_created INTEGER);"
        "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);"
        "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, data TEXT);"
    )
    sessions = [f"ses_{k}" for k in range(3)]
    parts = []
    for s, sid in enumerate(sessions):
        con.execute("INSERT INTO session VALUES (?, ?, ?)", (sid, f"title {s}", s))
        for m in range(rng.randint(0, 6)):
            mid = f"msg_{s}_{m}"
            role = rng.choice(["user", "assistant"])
            con.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?)",
                (mid, sid, rng.randint(0, 3), json.dumps({"role": role})),
            )
            for p in range(rng.randint(0, 4)):  # none, or several in no order
                data = json.dumps({"type": "text", "text": f"part {p} of {mid}"}) if p != 2 else "not json"
                parts.append((f"prt_{rng.randint(0, 10**6):07d}_{p}", mid, sid, data))
    rng.shuffle(parts)
    con.executemany("INSERT INTO part VALUES (?, ?, ?, ?)", parts)
    con.commit()
    con.close()
    return sessions


class _PerMessage:
    """What the reader did before: a query per message."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def get(self, message_id: object, default: object) -> list[dict]:
        return [
            sq.row_dict(r)
            for r in self.con.execute("SELECT * FROM part WHERE message_id = ? ORDER BY id", (message_id,))
        ]


def test_opencode_parts_in_one_query_read_as_one_query_per_message(tmp_path, monkeypatch):
    for seed in range(5):
        db = tmp_path / f"opencode-{seed}.db"
        sessions = _store(db, random.Random(seed))
        units = [Unit("opencode", db, f"{s}.jsonl", "jsonl", key=s, deps=(db,)) for s in sessions]

        def read(unit: Unit) -> tuple[list, list]:
            problems: list = []
            records = [(r.index, r.value) for r in OpenCodeDb().records(unit, problems)]
            return records, [str(p) for p in problems]

        grouped = [read(u) for u in units]
        with monkeypatch.context() as m:
            m.setattr(OpenCodeDb, "_parts", staticmethod(lambda con, session: _PerMessage(con)))
            assert [read(u) for u in units] == grouped


def test_seal_key_of_a_store_is_the_hmac_of_its_bytes_and_follows_a_change(tmp_path):
    db = tmp_path / "state.db"
    db.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 10)
    key = bytes(range(32))

    def reference() -> bytes:
        mac = hmac.new(key, b"tracepub found values\0", hashlib.sha256)
        mac.update(str(db).encode() + b"\0" + db.read_bytes())
        return mac.digest()

    units = [Unit("hermes", db, f"s{k}.jsonl", "jsonl", key=f"s{k}", deps=(db,)) for k in range(3)]
    assert {incremental._source_key(u, key) for u in units} == {reference()}
    db.write_bytes(db.read_bytes() + b"more")  # another size (and mtime): computed again
    assert incremental._source_key(units[0], key) == reference()
    db.unlink()
    assert incremental._source_key(units[0], key) is None
