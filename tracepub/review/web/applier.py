"""The Apply button's process: ``interactive.apply``, the terminal review's own re-run.

The page's server stays small and long-lived, so the re-run happens in a child process
(``python -m tracepub.review.web.applier DIR``): the pipeline loads models, forks workers and
tunes the garbage collector for one run, none of which belongs in a server that keeps running.
The server holds DIR's lock for it (an in-process caller, like review's own re-run, does not
lock twice). Values given with ``--secret`` come on standard input, never on the command line
(another user's ``ps`` would show them).

Protocol: one JSON object per line on standard output (``{"phase"}``, ``{"done", "total"}``, and
last ``{"ok": true, "summary"}`` or ``{"error"}``); anything else the run prints goes to
standard error. The progress comes from the pipeline's progress bar, replaced here by one that
writes these lines (the bar is the run's only progress hook; without it only phases are shown).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any


class _Lines:
    """The pipeline's ``Progress`` (update/close), written as protocol lines."""

    def __init__(self, emit: Any, total: int) -> None:
        self.emit, self.total, self.done = emit, total, 0
        emit({"phase": "redacting", "done": 0, "total": total})

    def update(self, n: int) -> None:
        self.done += n
        self.emit({"phase": "redacting", "done": self.done, "total": self.total})

    def close(self) -> None:
        self.emit({"phase": "assembling", "done": self.done, "total": self.total})


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0])
    proto: IO[str] = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # whatever else is printed goes to stderr, not into the protocol
    sys.stdout = sys.stderr

    def emit(obj: dict[str, Any]) -> None:
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    given = json.loads(sys.stdin.read() or "{}")
    emit({"phase": "starting"})
    from tracepub.errors import Refusal
    from tracepub.review import interactive
    from tracepub.run import pipeline

    if hasattr(pipeline, "_progress"):
        pipeline._progress = lambda total, enabled: _Lines(emit, total)
    try:
        summary = interactive.apply(
            out,
            False,
            tuple(given.get("secrets", ())),
            tuple(Path(p) for p in given.get("secrets_files", ())),
        )
    except Refusal as exc:
        emit({"error": str(exc)})
        return 1
    emit({"ok": True, "manifest_sha256": summary.manifest_sha256, "summary": summary.to_json()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
