"""Found once, redacted everywhere, but only where the copy is the same thing (issue #8 items 1, 5):
a value carried to its other occurrences keeps the exceptions its own detector makes there. A
profile URL's account is not the owner in a repository URL, someone else's name is not redacted
on a copyright line, and the digits of an address are not one in a section or version number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from samples import redact

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.model import Leaf


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def found(engine: Engine, text: str, type_: str) -> list[str]:
    engine.start_unit()
    return [text[s.start : s.end] for s in engine.scan(text, Leaf("test")) if s.type == type_]


def _tool_outputs(path: Path, texts: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(
            {
                "type": "user",
                "uuid": f"u{n}",
                "sessionId": path.stem,
                "cwd": "/work/app",
                "timestamp": f"2026-03-01T10:00:{n:02d}.000Z",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": text}],
                },
            }
        )
        for n, text in enumerate(texts)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _published(out: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted((out / "dataset").rglob("*.jsonl")))


def test_a_profile_handle_is_not_carried_into_repository_urls(engine):
    text = (
        "Homepage: https://github.com/kmensah91\n"
        "Source: https://github.com/kmensah91/tilemaker/issues/12\n"
        "Fork: https://github.com/kmensah91-bot/tilemaker\n"
        "Again: https://github.com/kmensah91/ and (github.com/kmensah91)"
    )
    assert found(engine, text, "pii.handle") == ["github.com/kmensah91"] * 3
    assert "https://github.com/kmensah91/tilemaker/issues/12" in _kept(engine, text)


def _kept(engine: Engine, text: str) -> str:
    engine.start_unit()
    out = text
    for s in sorted(engine.scan(text, Leaf("test")), key=lambda s: -s.start):
        out = out[: s.start] + "<X>" + out[s.end :]
    return out


def test_someone_elses_name_found_elsewhere_stays_on_a_copyright_line(engine):
    text = (
        "Author: Ilse Vandermeer <ilse@vandermeer.example.net>\n"
        "# Copyright (c) 2019-2024, Ilse Vandermeer <ilse@vandermeer.example.net>\n"
        "Thanks to Ilse Vandermeer for the patch."
    )
    names = found(engine, text, "pii.person")
    assert len(names) == 2 and text.count("Ilse Vandermeer") == 3  # the author line and the prose


def test_the_users_own_name_is_redacted_on_a_copyright_line_too():
    own = Engine(DetectConfig(ner=False, identity={"Ilse Vandermeer": "identity.name"}))
    own.start_unit()
    text = "# Copyright (c) 2024 Ilse Vandermeer"
    assert [text[s.start : s.end] for s in own.scan(text, Leaf("test"))] == ["Ilse Vandermeer"]


def test_a_rights_holder_found_in_another_file_stays_on_its_copyright_line(tmp_path):
    root = tmp_path / "src" / "projects" / "-work-app"
    _tool_outputs(root / "a.jsonl", ['"author": "Ilse Vandermeer <ilse@vandermeer.example.net>",'])
    _tool_outputs(
        root / "b.jsonl", ["/*! tilemaker v2.1 Copyright (c) 2026 Ilse Vandermeer and contributors */"]
    )
    redact([tmp_path / "src"], tmp_path / "out")
    published = {p.stem: p.read_text() for p in (tmp_path / "out" / "dataset").rglob("*.jsonl")}
    assert "Ilse Vandermeer" not in published["a"]
    assert "Copyright (c) 2026 Ilse Vandermeer and contributors" in published["b"]


def test_an_address_found_once_is_not_carried_into_section_and_version_numbers(engine):
    text = (
        "4.2.1.10 Name Constraints\n"
        "Per RFC 5280 4.2.1.10, directoryName constraints apply\n"
        "Release 4.2.1.10 of the tool\n"
        "then curl 4.2.1.10 again"
    )
    assert found(engine, text, "pii.ip") == ["4.2.1.10", "4.2.1.10"]  # the bare line and the curl


def test_a_machines_private_address_is_still_carried(tmp_path):
    root = tmp_path / "src" / "projects" / "-work-app"
    _tool_outputs(
        root / "a.jsonl",
        ["en0: flags=8863<UP> mtu 1500\n\tinet 10.12.4.77 netmask 0xffffff00", "ssh 10.12.4.77 uptime"],
    )
    redact([tmp_path / "src"], tmp_path / "out")
    assert "10.12.4.77" not in _published(tmp_path / "out")


def test_a_first_name_alone_after_its_cue_whatever_label_the_model_gives():
    """The small NER model labels a lone first name as anything (Priya: NORP after "Thanks,",
    ORG before "said"): with its cue word (a comma or colon may come between), any name-like
    label counts, flagged for review; a common word there is still no one."""
    from tracepub.detect.pii.prose_names import ner_model_name

    if ner_model_name() is None:
        pytest.skip("no NER model installed")
    eng = Engine(DetectConfig(ner=True))
    prose = Leaf("claude_code", (), None, True)
    for text in ("Thanks, Priya! That fixed it.", "Priya said the migration can wait."):
        eng.start_unit()
        got = [(text[s.start : s.end], s.action) for s in eng.scan(text, prose)]
        assert got == [("Priya", "review")], text
    for text in ("Thanks, Docker! That fixed it.", "Thanks, Everyone! That fixed it."):
        eng.start_unit()
        assert not [s for s in eng.scan(text, prose) if s.type == "pii.person"], text


def test_copyright_lines_in_html_and_a_rights_holders_profile(engine):
    text = (
        "Author: Ilse Vandermeer <ilse@vandermeer.example.net>, https://github.com/ivandermeer\n"
        "<p>&copy;2026 Ilse Vandermeer.</p>\n"
        "# Copyright (C) 2019 Ilse Vandermeer <https://github.com/ivandermeer>"
    )
    assert found(engine, text, "pii.person") == ["Ilse Vandermeer"]
    assert found(engine, text, "pii.handle") == ["github.com/ivandermeer"]
