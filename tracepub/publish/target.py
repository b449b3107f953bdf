"""What a publish target is: where signed, staged, re-scanned files go (``Target``).

Everything before the upload is the same for any target (``publish.verify``, ``publish.rescan``);
only the sending differs. A target gets the staged copies (``Staged``), never dataset/ itself,
and reports what it did (``Sent``). Another target (a different hub, an object store) is one
module implementing ``Target``, named in ``publish.gate.TARGETS``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from tracepub.outputs.files import FileTable


@dataclass
class Staged:
    """Private copies of the signed files, each checked against the manifest as it was copied."""

    root: Path  # the copies, under their paths in dataset/
    names: list[str]  # sorted
    files: FileTable  # the signed sha256 and size of each
    git_oids: dict[str, str]  # git blob ids of the copies (what git-backed targets compare)


@dataclass
class Sent:
    """What a target did with the staged files."""

    private: bool
    url: str | None = None
    commit: str | None = None
    unchanged: int = 0  # files already there with the same content
    notes: list[str] = field(default_factory=list)


class Target(Protocol):
    def check_id(self, repo: str) -> str:
        """``repo`` if it names a destination of this target, else ValueError (bad usage)."""
        ...

    def send(
        self, staged: Staged, repo: str, *, public: bool, replace: bool, message: str, description: str
    ) -> Sent:
        """Upload every staged file to ``repo`` in one commit, or refuse (``Refusal``) with
        nothing sent: a public destination without ``public``, other bytes at one of the
        paths without ``replace``, no credentials, a failed upload."""
        ...
