"""Paths built from file content never lead a reader out of the source tree (readers.base.inside).

A session's id, project id or a symlink inside a harness's store must not make tracepub read
(and publish) files from elsewhere on the disk: such a file is refused, listed as a problem,
and nothing of it reaches DIR. Output paths stay under dataset/ whatever a relpath holds.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from samples import SAMPLES

from tracepub.detect.registry import DetectConfig
from tracepub.model import Unit
from tracepub.readers.base import inside
from tracepub.readers.gemini import project_root
from tracepub.run.pipeline import assign_dests, run
from tracepub.runtypes import RunOptions
from tracepub.sources.discover import discover

MARKER = "OUTSIDEMARKERTEXT"  # plain text no detector touches: if it shows in DIR, a file outside was read
SAMPLE_SID = "ses_7e449af7f2160jQx83ez4Jw69K"


def _doc(path: Path, value: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _message(sid: str, mid: str) -> dict:
    return {
        "id": mid,
        "sessionID": sid,
        "role": "user",
        "time": {"created": 1772360141000},
        "summary": {"title": MARKER},
    }


def _session(sid: str, project: str = "proj") -> dict:
    return {
        "id": sid,
        "projectID": project,
        "directory": "/work/app",
        "title": "t",
        "time": {"created": 1772360141000, "updated": 1772360150000},
    }


def _outside(tmp_path: Path) -> Path:
    """A folder outside every source, full of documents that must never be read."""
    out = tmp_path / "outside"
    _doc(out / "msg_outside.json", _message("x", "msg_outside"))
    _doc(out / "proj.json", {"id": "proj", "worktree": MARKER})
    _doc(out / "sub" / "ses_linked.json", _session("ses_linked") | {"title": MARKER})
    return out


def _storage(tmp_path: Path) -> tuple[Path, Path]:
    """The sample legacy tree plus sessions whose content or links point outside it."""
    outside = _outside(tmp_path)
    storage = tmp_path / "src" / "storage"
    shutil.copytree(SAMPLES / "opencode" / "storage", storage)
    # an absolute id, and a relative id climbing out of storage/message/
    _doc(storage / "session" / "proj" / "ses_abs.json", _session(str(outside)))
    _doc(
        storage / "session" / "proj" / "ses_rel.json", _session(os.path.relpath(outside, storage / "message"))
    )
    # a good id whose projectID climbs out of storage/project/
    _doc(
        storage / "session" / "proj" / "ses_pid.json",
        _session("ses_pid", os.path.relpath(outside / "proj", storage / "project")),
    )
    # a message folder, a message document and a part document that are symlinks out of the tree
    _doc(storage / "session" / "proj" / "ses_linkdir.json", _session("ses_linkdir"))
    (storage / "message" / "ses_linkdir").symlink_to(outside, target_is_directory=True)
    _doc(storage / "session" / "proj" / "ses_linkfile.json", _session("ses_linkfile"))
    (storage / "message" / "ses_linkfile").mkdir()
    (storage / "message" / "ses_linkfile" / "msg_a.json").symlink_to(outside / "msg_outside.json")
    _doc(
        storage / "message" / "ses_linkfile" / "msg_b.json",
        {"id": "msg_b", "sessionID": "ses_linkfile", "role": "user"},
    )
    (storage / "part" / "msg_b").mkdir()
    (storage / "part" / "msg_b" / "prt_x.json").symlink_to(outside / "proj.json")
    # a project folder of session documents that is a symlink out of the tree
    (storage / "session" / "linked").symlink_to(outside / "sub", target_is_directory=True)
    return storage, outside


def _everything(out: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in out.rglob("*") if p.is_file())


def test_inside_joins_resolves_and_refuses_what_leaves_the_root(tmp_path):
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "link").symlink_to(tmp_path, target_is_directory=True)
    assert inside(root, "a", "b.json") == root / "a" / "b.json"
    assert inside(root, "a", "..", "a") == root / "a" / ".." / "a"  # still inside
    assert inside(root, "..", "x") is None
    assert inside(root, "/etc/passwd") is None
    assert inside(root, "link", "x") is None  # a symlink out of the tree
    assert inside(root, "a\0b") is None
    assert inside(root, root / "a") == root / "a"


def test_opencode_legacy_reads_nothing_outside_its_storage_tree(tmp_path):
    storage, outside = _storage(tmp_path)
    out = tmp_path / "out"
    summary = run(RunOptions(out=out, sources=[storage.parent], detect=DetectConfig(ner=False), jobs=1))
    assert MARKER not in _everything(out)
    problems = "\n".join(summary.problems)
    session = storage / "session" / "proj"
    for refused in ("ses_abs.json", "ses_rel.json", "ses_linkdir.json"):  # two ids, one symlinked folder
        assert (
            f"{session / refused}: its session id names a folder that resolves outside {storage}; "
            "session not read" in problems
        )
    assert f"{storage / 'session' / 'linked' / 'ses_linked.json'}: resolves outside" in problems
    assert f"{session / 'ses_pid.json'}: its projectID names a file outside" in problems
    assert str(storage / "message" / "ses_linkfile" / "msg_a.json") in problems
    assert str(storage / "part" / "msg_b" / "prt_x.json") in problems
    names = {p.name for p in (out / "dataset" / "opencode").iterdir()}
    # the sample session and the sessions whose ids are fine are still published, minus what was refused
    assert {f"{SAMPLE_SID}.jsonl", "ses_pid.jsonl", "ses_linkfile.jsonl"} <= names
    assert not names & {"ses_linkdir.jsonl", "ses_linked.jsonl"}
    assert not any(str(outside) in name for name in names)
    lines = [
        json.loads(x) for x in (out / "dataset" / "opencode" / "ses_linkfile.jsonl").read_text().splitlines()
    ]
    assert [line["opencode"]["message"]["id"] for line in lines[1:]] == ["msg_b"]
    assert lines[1]["opencode"]["parts"] == []


def test_opencode_legacy_refusals_show_in_discovery_and_deps(tmp_path):
    storage, outside = _storage(tmp_path)
    disc = discover([storage.parent])
    keys = {u.key for u in disc.units}
    assert str(outside) not in keys and "ses_linkdir" not in keys and "ses_linked" not in keys
    for u in disc.units:
        assert all(inside(storage, d) is not None for d in u.deps), u.deps
    assert sum("outside" in p.message for p in disc.problems) >= 4


def test_gemini_project_root_marker_linked_out_of_the_tree_is_not_read(tmp_path):
    (tmp_path / "secret.txt").write_text(MARKER)
    chats = tmp_path / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    session = chats / "session-1.jsonl"
    session.write_text("{}\n")
    (chats.parent / ".project_root").symlink_to(tmp_path / "secret.txt")
    assert project_root(session) is None
    (chats.parent / ".project_root").unlink()
    (chats.parent / ".project_root").write_text("/work/app\n")
    assert project_root(session) == "/work/app"


class _SameNames:
    """A path redactor that changes nothing (assign_dests only needs these three calls)."""

    def start_unit(self, *args) -> None:
        pass

    def redact_text(self, text: str, path: tuple) -> str:
        return text

    def finding_dicts(self) -> list:
        return []


def test_output_paths_stay_under_dataset_whatever_the_relpath(tmp_path):
    units = [
        Unit("opencode", tmp_path / "x", rel)
        for rel in ("../../escape.jsonl", "a/../../b.jsonl", "..", "ok/s.jsonl")
    ]
    dests, _ = assign_dests(units, _SameNames())  # type: ignore[arg-type]
    dataset = (tmp_path / "out" / "dataset").resolve()
    for d in dests:
        assert (dataset / d).resolve().is_relative_to(dataset / "opencode"), d
    assert dests[-1] == "opencode/ok/s.jsonl"
