"""What the page can do to DIR, through the code the terminal review and approve use.

One source of truth: a keep or redact click appends a line to review/decisions.jsonl
(``review.decisions``), an added text or regex is recorded by ``interactive.decide`` (without
applying), a drop or restore is ``review.sessions``, Apply runs ``interactive.apply`` (in a
child process, ``applier``), and Sign is ``publish.signoff.approve``. Nothing here writes a
file of DIR itself.

Every change holds DIR's lock (``outdir.locked``) while it writes, as the terminal commands
do, so a ``tracepub redact`` in another shell refuses instead of interleaving. The lock is taken
per change, not for the life of the server: the page may stay open for hours. Changes of this
process are one at a time (``_mut``); while an Apply runs, the others refuse (the run reads the
decisions at its start, and a decision made meanwhile would be shown as applied when it is not).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracepub.errors import Refusal
from tracepub.outdir import OutDir, locked
from tracepub.outputs import card
from tracepub.publish import signoff as so
from tracepub.review import decisions, runstate, sessions
from tracepub.review import interactive as rv
from tracepub.review.web import index as ix
from tracepub.runtypes import RunSummary


class ActionError(Exception):
    """A change the page asked for that cannot be done; ``status`` is the HTTP status."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class ApplyJob:
    state: str = "idle"  # idle, running, done, error
    phase: str = ""
    done: int = 0
    total: int = 0
    started: float = 0.0
    finished: float = 0.0
    message: str = ""
    before: dict[str, int] = field(default_factory=dict)
    after: dict[str, int] = field(default_factory=dict)
    signoff_invalidated: bool = False

    def to_json(self) -> dict[str, Any]:
        end = self.finished or time.monotonic()
        return {
            "state": self.state,
            "phase": self.phase,
            "done": self.done,
            "total": self.total,
            "seconds": round(end - self.started, 1) if self.started else 0,
            "message": self.message,
        }


class Review:
    """The server's state: DIR, who decides, the index, and the running Apply."""

    def __init__(
        self,
        out: Path,
        reviewer: str | None = None,
        secrets: tuple[str, ...] = (),
        secrets_files: tuple[Path, ...] = (),
    ) -> None:
        rv.check_dir(out)
        self.out = OutDir(out)
        self.reviewer = reviewer or rv.default_reviewer()
        # The login name is the user's identity: recorded with decisions (review/ is never
        # uploaded) but not sent to the page; neither is a home folder in DIR's path.
        self.shown_reviewer = reviewer or "your login name"
        self.shown_dir = runstate.home_relative(out)
        self.approver = reviewer or ""
        self._secrets, self._secrets_files = secrets, secrets_files
        self._index: ix.Index | None = None
        self._cond = threading.Condition()
        self._builder: threading.Thread | None = None
        self._build_error: str | None = None
        self._decisions: tuple[Any, decisions.Decisions] | None = None
        self._mut = threading.Lock()
        self.job = ApplyJob()
        self.facts = ix.FactsCache()
        self._stop = threading.Event()
        self.pending_adds = self._adds_since_run()
        self.index(timeout=0)  # start reading the findings before the browser asks

    # -- reading -------------------------------------------------------------------------------------
    def index(self, timeout: float | None = None) -> ix.Index | None:
        """The index, rebuilt when a file it was built from changed (here or in another shell).

        Built in a thread of its own (100k findings take seconds): with ``timeout`` this returns
        None if it is not ready by then (a page then says so and reloads), else it waits."""
        with self._cond:
            while True:
                cur = self._index
                if cur is not None and cur.stamp == ix.stamp_of(self.out):
                    return cur
                if self._build_error is not None:
                    err, self._build_error = self._build_error, None
                    raise ActionError(f"cannot read {self.out.findings}: {err}")
                if self._builder is None:
                    self._builder = threading.Thread(target=self._build, daemon=True)
                    self._builder.start()
                if not self._cond.wait(timeout) and timeout is not None:
                    return None

    def ready(self) -> ix.Index:
        """The index for code that cannot go on without it."""
        idx = self.index()
        assert idx is not None
        return idx

    def _build(self) -> None:
        idx, err = None, None
        try:
            idx = ix.build(self.out)
        except (OSError, ValueError) as exc:
            err = str(exc)
        with self._cond:
            if idx is not None:
                self._index = idx
                self._stop.set()  # the previous index's warming thread
                self._stop = threading.Event()
                threading.Thread(target=self.facts.warm, args=(idx, self._stop), daemon=True).start()
            self._build_error = err
            self._builder = None
            self._cond.notify_all()

    def folded(self) -> decisions.Decisions:
        try:
            st = os.stat(self.out.decisions)
            key: Any = (st.st_mtime_ns, st.st_size)
        except OSError:
            key = None
        if self._decisions is None or self._decisions[0] != key:
            self._decisions = (key, decisions.load(self.out))
        return self._decisions[1]

    def keep_ids(self) -> set[str]:
        return self.folded().keep_ids

    def pending(self) -> dict[str, int]:
        """Decisions recorded but not yet in dataset/: values to keep or redact, texts added."""
        idx, keep = self.ready(), self.keep_ids()
        to_keep = to_redact = 0
        for g in idx.groups:
            now, wanted = ix.value_state(g, keep)
            if now != wanted:
                to_keep += wanted == "kept"
                to_redact += wanted == "redacted"
        return {
            "keep": to_keep,
            "redact": to_redact,
            "add": len(self.pending_adds),
            "total": to_keep + to_redact + len(self.pending_adds),
        }

    def _adds_since_run(self) -> list[dict[str, Any]]:
        """Texts and regexes recorded after the last run wrote the manifest (e.g. by a review
        whose re-run was refused): not in effect yet."""
        try:
            since = datetime.fromtimestamp(os.stat(self.out.manifest).st_mtime, UTC)
        except OSError:
            return []
        out = []
        for e in decisions.read(self.out):
            if e.get("action") in ("add", "add_regex"):
                try:
                    when = datetime.fromisoformat(e.get("time", ""))
                except ValueError:
                    continue
                if when > since:
                    out.append(e)
        return out

    def close(self) -> None:
        self._stop.set()

    # -- changes -------------------------------------------------------------------------------------
    def _changing(self) -> Any:
        """Refuse while an Apply runs; otherwise hold this process's change lock and DIR's."""
        review = self

        class _Ctx:
            def __enter__(self) -> None:
                review._mut.acquire()
                if review.job.state == "running":
                    review._mut.release()
                    raise ActionError("an Apply is running: wait for it to finish")
                try:
                    self._lock = locked(review.out)
                    self._lock.__enter__()
                except Refusal as exc:
                    review._mut.release()
                    raise ActionError(str(exc)) from None

            def __exit__(self, *exc: object) -> None:
                try:
                    self._lock.__exit__(None, None, None)
                finally:
                    review._mut.release()

        return _Ctx()

    def decide(self, action: str, vids: list[str]) -> dict[str, Any]:
        """Keep or redact values: one decision line per value whose state it changes (the terminal
        review's warnings for secrets, identity and added values)."""
        if action not in ("keep", "redact"):
            raise ActionError(f"unknown decision {action!r}", 400)
        idx = self.ready()
        warnings: list[str] = []
        appended = 0
        with self._changing():
            keep = decisions.load(self.out).keep_ids
            for vid in vids:
                g = idx.by_id.get(vid)
                if g is None:
                    raise ActionError(
                        f"no value with id {vid} (the page is older than the last run: reload)", 404
                    )
                if action == "keep":
                    if g.family == "custom":
                        warnings.append(f"{vid}: added by a reviewer, so it stays redacted")
                        continue
                    if vid in keep:
                        continue
                    if g.blocks:
                        warnings.append(
                            f"{g.type} {g.value}: a high-confidence secret; publish refuses while it "
                            "is in clear"
                        )
                    elif g.family == "identity":
                        warnings.append(
                            f"{g.value} is your own {g.type.partition('.')[2]}: it will be published in clear"
                        )
                elif vid not in keep:
                    continue
                decisions.append(self.out, action, self.reviewer, value_id=vid)
                appended += 1
        return {"appended": appended, "warnings": warnings[:20], "more_warnings": max(0, len(warnings) - 20)}

    def add(self, text: str, is_regex: bool) -> dict[str, Any]:
        try:
            value = rv.validate_regex(text) if is_regex else rv.validate_add(text)
        except ValueError as exc:
            raise ActionError(
                str(exc).replace("--add-regex", "the regex").replace("--add", "a text"), 400
            ) from None
        with self._changing():
            outcome = rv.decide(
                self.out.root,
                self.reviewer,
                add=[] if is_regex else [value],
                add_regex=[value] if is_regex else [],
                apply_now=False,
            )
            self.pending_adds.extend(outcome.appended)
        return {"appended": len(outcome.appended)}

    def session(self, action: str, sid: str) -> dict[str, Any]:
        if action not in ("drop", "restore"):
            raise ActionError(f"unknown session action {action!r}", 400)
        with self._changing():
            try:
                fn = sessions.drop_session if action == "drop" else sessions.restore_session
                result = fn(self.out.root, sid, self.reviewer)
            except sessions.DropError as exc:
                raise ActionError(str(exc)) from None
        return {"message": result.message(), "session": result.session, "immediate": result.immediate}

    # -- apply ---------------------------------------------------------------------------------------
    def start_apply(self) -> ApplyJob:
        with self._mut:
            if self.job.state == "running":
                return self.job
            self.job = ApplyJob(
                "running", "waiting for DIR", started=time.monotonic(), before=self.ready().counts()
            )
            job = self.job
        threading.Thread(target=self._apply, args=(job,), daemon=True).start()
        return job

    def _apply(self, job: ApplyJob) -> None:
        err: deque[str] = deque(maxlen=20)
        try:
            with locked(self.out):
                job.phase = "starting"
                env = dict(os.environ)
                here = str(Path(__file__).resolve().parents[3])  # the checkout holding tracepub/
                env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
                proc = subprocess.Popen(
                    [sys.executable, "-m", "tracepub.review.web.applier", str(self.out.root)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    env=env,
                )
                assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
                stderr = proc.stderr
                drain = threading.Thread(
                    target=lambda: err.extend(line.rstrip() for line in stderr), daemon=True
                )
                drain.start()
                proc.stdin.write(
                    json.dumps(
                        {
                            "secrets": list(self._secrets),
                            "secrets_files": [str(p) for p in self._secrets_files],
                        }
                    )
                )
                proc.stdin.close()
                result: dict[str, Any] = {}
                for line in proc.stdout:
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        continue
                    job.phase = msg.get("phase", job.phase)
                    job.done, job.total = msg.get("done", job.done), msg.get("total", job.total)
                    if "ok" in msg or "error" in msg:
                        result = msg
                rc = proc.wait()
                drain.join(5)
            if result.get("ok") and rc == 0:
                self.pending_adds = []
                job.after = self.ready().counts()
                job.signoff_invalidated = self.out.signoff.exists()
                job.state, job.phase = "done", "done"
                job.message = "dataset/ was redacted again from the sources and manifest.json rewritten."
            else:
                job.state = "error"
                job.message = result.get("error") or ("the re-run failed: " + " | ".join(list(err)[-3:]))
        except Refusal as exc:
            job.state, job.message = "error", str(exc)
        except Exception as exc:  # the page must learn that it failed, whatever happened
            job.state, job.message = "error", f"the re-run failed: {exc}"
        finally:
            job.finished = time.monotonic()

    # -- approve -------------------------------------------------------------------------------------
    def plan(self, license_: str | None, title: str | None, reviewer: str) -> dict[str, Any]:
        try:
            plan = so.plan(self.out.root, license_ or None, title or None)
        except Refusal as exc:
            raise ActionError(str(exc)) from None
        state = runstate.read(self.out)
        meta = {
            "license": plan.card["license"],
            "title": plan.card["title"],
            "reviewer": reviewer.strip() or "(your name)",
            "date": datetime.now(UTC).date().isoformat(),
        }
        preview = card.render(RunSummary.from_json(state.get("summary", {})), meta)
        return {"plan": plan, "card": preview, "signed": self.signed()}

    def signed(self) -> dict[str, Any] | None:
        """The current sign-off, and whether it still matches manifest.json."""
        if not self.out.signoff.exists():
            return None
        try:
            signoff, _ = so.check_signoff(self.out.root)
            return {**signoff, "valid": True}
        except Refusal:
            try:
                data = json.loads(self.out.signoff.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            return {**data, "valid": False} if isinstance(data, dict) else {"valid": False}

    def approve(self, reviewer: str, license_: str | None, title: str | None) -> dict[str, str]:
        if not reviewer.strip():
            raise ActionError("type the reviewer's name: it goes into the dataset card and signoff.json", 400)
        pending = self.pending()["total"]
        if pending:
            raise ActionError(
                f"{pending} decision(s) are not applied yet: Apply them first, so that what you sign "
                "is what you decided"
            )
        with self._changing():
            try:
                signed = so.approve(self.out.root, reviewer.strip(), license_ or None, title or None)
            except Refusal as exc:
                raise ActionError(str(exc)) from None
        self.approver = reviewer.strip()
        return signed
