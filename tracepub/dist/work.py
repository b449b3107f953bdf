"""The work folder of a distributed run: what its stages hand each other, sealed.

Stages run in other processes, often on other machines, so what they exchange (the tasks, the
workers' arguments, every unit's result) goes through a folder that all of them reach: any
fsspec URL (a local or shared path, ``s3://``, ...). What goes there holds values in clear (the
harvested identity and ``--secret`` values in the workers' arguments, the found values of each
result, source paths with the user's name), so every file is encrypted and authenticated
(AES-GCM) with a key derived from the placeholder key (DIR/review/placeholder.key): the folder
says nothing to whoever can read it without DIR, and nothing forged there is ever unpickled.
Each blob is bound to its name (the associated data), so a result copied to another unit's
place does not open.
"""

from __future__ import annotations

import dataclasses
import hashlib
import heapq
import hmac
import json
import os
import pickle
import uuid
from pathlib import PurePath
from typing import Any

WORK_INFO = b"tracepub dist work\0"


def work_key(key: bytes) -> bytes:
    """The work folder's key, from the placeholder key (one secret to keep, in DIR/review/)."""
    return hmac.new(key, WORK_INFO, hashlib.sha256).digest()


def canonical(value: Any) -> Any:
    """A JSON-able form of ``value`` that is the same in every process: sets and dict items
    sorted (their order follows string hashing, which differs between processes), dataclasses
    by field, paths as strings. What fingerprints are taken of."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            type(value).__name__,
            {f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value)},
        ]
    if isinstance(value, dict):
        items = [[canonical(k), canonical(v)] for k, v in value.items()]
        return sorted(items, key=lambda kv: json.dumps(kv[0], sort_keys=True, default=str))
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True, default=str))
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, bytes):
        return value.hex()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


class Work:
    """One work folder (``url``), sealed with the key of the DIR it works for."""

    def __init__(self, url: str, key: bytes) -> None:
        from fsspec.core import url_to_fs

        self.url = url.rstrip("/") or url
        self.fs, self.root = url_to_fs(self.url)
        self._key = work_key(key)

    def __repr__(self) -> str:  # the key stays out of logs and datatrove's executor.json
        return f"Work({self.url!r})"

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError("a Work is not pickled: tasks open it from its URL and DIR's key")

    def path(self, name: str) -> str:
        return f"{self.root.rstrip('/')}/{name}" if name else self.root

    def fingerprint(self, value: Any) -> str:
        """A keyed digest of ``value``'s canonical form (a plain hash of values in clear would
        let anyone confirm a guess)."""
        data = json.dumps(canonical(value), sort_keys=True, ensure_ascii=False, default=str)
        return hmac.new(self._key, data.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()

    def put(self, name: str, value: Any) -> None:
        """Seal ``value`` under ``name``: written to a temporary name, then moved into place, so
        a reader sees the whole blob or none (a killed task leaves at most a stray temporary)."""
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        nonce = os.urandom(12)
        blob = nonce + AESGCM(self._key).encrypt(nonce, pickle.dumps(value, protocol=5), name.encode())
        path = self.path(name)
        parent = path.rpartition("/")[0]
        if parent:
            self.fs.makedirs(parent, exist_ok=True)
        tmp = f"{path}.{uuid.uuid4().hex[:12]}.tmp"
        with self.fs.open(tmp, "wb") as fh:
            fh.write(blob)
        self.fs.mv(tmp, path)

    def get(self, name: str) -> Any:
        """What ``put`` sealed under ``name``; None when it is not there or does not open (a
        blob of another DIR's key, a damaged file): the caller then makes it again."""
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        try:
            with self.fs.open(self.path(name), "rb") as fh:
                blob = fh.read()
        except (FileNotFoundError, OSError):
            return None
        try:
            data = AESGCM(self._key).decrypt(blob[:12], blob[12:], name.encode())
        except (InvalidTag, ValueError):
            return None
        return pickle.loads(data)  # noqa: S301  (authenticated above: only this DIR's key made it)

    def exists(self, name: str) -> bool:
        return bool(self.fs.exists(self.path(name)))

    def remove(self, name: str) -> None:
        path = self.path(name)
        if self.fs.exists(path):
            self.fs.rm(path, recursive=True)

    def logs(self, name: str) -> str:
        """A datatrove logging folder under the work folder, as a URL datatrove opens itself."""
        if self.url.startswith(("/", ".")) or "://" not in self.url:
            return self.path(name)
        return f"{self.url}/{name}"


def balance(sizes: list[int], n: int) -> list[list[int]]:
    """Positions 0..len(sizes)-1 in ``n`` shards of about equal total size: largest first, each
    to the lightest shard so far (ties to the lower rank). Deterministic, so a resumed run
    makes the same shards and datatrove's completion marks still apply."""
    n = max(1, min(n, len(sizes)))
    heap = [(0, rank) for rank in range(n)]
    shards: list[list[int]] = [[] for _ in range(n)]
    for pos in sorted(range(len(sizes)), key=lambda p: (-sizes[p], p)):
        load, rank = heapq.heappop(heap)
        shards[rank].append(pos)
        heapq.heappush(heap, (load + max(1, sizes[pos]), rank))
    return shards
