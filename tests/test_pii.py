"""Personal data: structural names, Presidio recognizers with our filters, handles, addresses, NER on prose."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from tracepub.detect.pii.addresses import Addresses
from tracepub.detect.pii.handles import Handles
from tracepub.detect.pii.people import StructuredNames, looks_like_name
from tracepub.detect.pii.presidio import Presidio
from tracepub.fakes import luhn_number
from tracepub.model import Leaf

CODE = Leaf("test")
PROSE = Leaf("test", prose=True)


@pytest.fixture(scope="module")
def presidio() -> Presidio:
    return Presidio(ner=True)


def found(detector, text: str, leaf: Leaf = CODE) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.type) for s in detector.scan(text, leaf)]


def values(detector, text: str, leaf: Leaf = CODE) -> set[str]:
    return {v for v, _ in found(detector, text, leaf)}


@pytest.mark.parametrize(
    "text, name",
    [
        ("commit 1f2e3d\nAuthor: Priya Raman <priya@kestrel.dev>\nDate: Mon", "Priya Raman"),
        ("    Co-authored-by: Lukas Becker <lukas.becker@proton.me>", "Lukas Becker"),
        ("    Signed-off-by: Amara Okafor <aokafor@gmail.com>", "Amara Okafor"),
        ("a1b2c3d Mateo Alvarez <mateo@hey.com> fix cache", "Mateo Alvarez"),
        (
            '{"name": "@acme/web", "author": "Kenji Tanaka <kenji@fastmail.com> (https://kt.dev)"}',
            "Kenji Tanaka",
        ),
        (
            '"contributors": [{"name": "Fatima Haddad", "email": "f@h.io"}, "Oliver Whitfield"]',
            "Oliver Whitfield",
        ),
        ('authors = [\n  { name = "Chiara Romano", email = "c@r.it" },\n]', "Chiara Romano"),
        ("[user]\n\tname = Dmitri Volkov\n\temail = d@v.ru", "Dmitri Volkov"),
        ("     3→- name: Emeka Zhang\n     4→  slack: '@ez'", "Emeka Zhang"),
        (" 101 | Sofia Castellano    | sofia.c@outlook.com | +1", "Sofia Castellano"),
        ("   42\tHannah Brennan\n   17\tMarcus Delacroix", "Hannah Brennan"),
        (
            "b66ad6f0 (Tariq Krause         2025-11-12 10:37:00 +0100  40)     return conn.get(key)",
            "Tariq Krause",
        ),
        ("- name: Aoife O'Brien\n  slack: x", "Aoife O'Brien"),
        ('{"id": 96106, "real_name": "Aoife Becker", "profile": {}}', "Aoife Becker"),
    ],
)
def test_names_from_structure(text, name):
    assert name in values(StructuredNames(), text)


@pytest.mark.parametrize(
    "text",
    [
        "name: Build and test",
        "  name: northwind-web",
        "Copyright (c) 2024 Google LLC",
        "MIT License\n\nCopyright (c) 2021-2026 Ingrid Lindqvist\n\nPermission is hereby granted",  # a rights holder
        "# Copyright (c) 2005-2020, Ilya Etingof <etingof@gmail.com>",
        "Copyright 2019 The Go Authors. All rights reserved.",
        "Author: dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
        "Contact Support, support@northwind-labs.io",
        "def get_user_name(user):\n    return user.name",
    ],
)
def test_names_not_found_in_look_alikes(text):
    assert not [v for v, _ in found(StructuredNames(), text) if v not in ("",)]


def test_looks_like_name():
    assert looks_like_name("Maria de la Cruz")
    assert looks_like_name("Zoë Müller-Lüdenscheidt")
    assert not looks_like_name("API KEY")
    assert not looks_like_name("Jane2 Doe")
    assert not looks_like_name("jane doe")


def test_names_from_json_keys():
    d = StructuredNames()
    assert values(d, "Tove Berglund", Leaf("x", key="author")) == {"Tove Berglund"}
    assert values(d, "Arjun Iyer <arjun@iyer.dev>", Leaf("x", key="contributors")) >= {"Arjun Iyer"}
    assert not values(d, "northwind-web", Leaf("x", key="name"))


def test_versions_are_not_addresses(presidio):
    text = "agent/8.0.76.214 v4.2.1.0 version 2.1.0.7; GET http://81.2.69.160/ from 81.2.69.161"
    assert values(presidio, text) == {"81.2.69.160", "81.2.69.161"}


def test_ip_only_public(presidio):
    text = (
        "from 81.2.69.160 via 10.0.3.12, 192.168.1.20, 127.0.0.1, 172.17.0.2, 203.0.113.7 and 198.51.100.23"
    )
    assert values(presidio, text) == {"81.2.69.160"}


def test_email_decisions(presidio):
    text = (
        "origin git@github.com:acme/web.git; GitHub <noreply@github.com>; "
        "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>; user.email=jane.doe@proton.me; "
        "mail 12345+jdoe@users.noreply.github.com"
    )
    got = values(presidio, text)
    assert "jane.doe@proton.me" in got  # the value of user.email=..., not the key
    assert "12345+jdoe@users.noreply.github.com" in got  # a noreply address that names a person
    assert not any("github.com:" in v or v.startswith("noreply@") or "[bot]" in v or "=" in v for v in got)


def test_phones_cards_ibans_national_ids(presidio):
    rng = random.Random(1)
    card = luhn_number(rng, "4", 16)
    text = (
        f"call +44 20 7946 0958 or +49 1512 3456789 or (415) 867-2671; card {card}; "
        "IBAN DE89 3704 0044 0532 0130 00; SSN 536-22-8471; NINO AB 12 34 56 C; NIF 12345678Z"
    )
    got = dict(found(presidio, text))
    assert got.get("+44 20 7946 0958") == "pii.phone"
    assert got.get("+49 1512 3456789") == "pii.phone"
    assert got.get(card) == "pii.credit_card"
    assert got.get("DE89 3704 0044 0532 0130 00") == "pii.iban"
    assert got.get("536-22-8471") == "pii.national_id"
    assert got.get("AB 12 34 56 C") == "pii.national_id"
    assert got.get("12345678Z") == "pii.national_id"


def test_numbers_that_are_not_phones(presidio):
    text = "GET / 200 from 203.0.113.174 at 1772360141000; version 4.2.1.0; sha 4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    assert not [v for v, t in found(presidio, text) if t == "pii.phone"]


def test_handles_need_the_app_named():
    h = Handles()
    assert values(h, "ping me on Telegram @mkrause92 when it's merged") == {"mkrause92"}
    assert values(h, '- name: X\n  slack: "@priya.raman"\n') == {"priya.raman"}
    assert values(h, "my discord is tanaka_k#4821") == {"tanaka_k"}
    assert not values(h, "@pytest.fixture\ndef x(): pass")
    assert not values(h, "npm i @types/node; mail me at jane@slack.com")


def test_gateway_accounts_by_key():
    h = Handles()
    assert values(h, "tg:123456789", Leaf("x", key="user_id")) == {"tg:123456789"}
    assert values(h, "tove_b", Leaf("x", key="handle")) == {"tove_b"}
    assert not values(h, "usr_8f3k2", Leaf("x", key="user_id"))  # an app's own id: not a messaging account
    assert not values(h, "postgres", Leaf("x", key="username"))


def test_addresses():
    a = Addresses()
    assert values(a, "Ship to 742 Evergreen Terrace, Springfield, OR 97477") == {"742 Evergreen Terrace"}
    assert values(a, "Lieferadresse: Hauptstraße 12, 10115 Berlin") == {"Hauptstraße 12"}
    assert values(a, "chez nous, 14 rue de la Paix, Paris") == {"14 rue de la Paix"}
    assert not values(a, "retry 3 times; wait 10 seconds; port 8080")


def test_ner_runs_on_prose_only(presidio):
    if presidio.ner_model is None:
        pytest.skip("no spaCy model installed")
    text = "Please ask Priya Raman to review the migration before Friday."
    assert ("Priya Raman", "pii.person") in found(presidio, text, PROSE)
    assert not [v for v, t in found(presidio, text, CODE) if t == "pii.person"]
    spans = presidio.scan("I asked Raman about it yesterday, and Jest runs fine in Madison.", PROSE)
    assert {s.start for s in spans if s.type == "pii.person"} == {8}  # only the name after a cue
    assert all(s.action == "review" for s in spans if s.type == "pii.person")  # one word: below the threshold


def test_without_a_model_ner_is_off_and_said(tmp_path, monkeypatch):
    from tracepub.cli import cli
    from tracepub.detect.pii import prose_names as pii

    monkeypatch.setattr(pii, "NER_MODELS", ("no_such_spacy_model",))
    src = tmp_path / "src" / "projects" / "p" / "s.jsonl"
    src.parent.mkdir(parents=True)
    src.write_text(
        json.dumps(
            {
                "type": "user",
                "sessionId": "s",
                "uuid": "u1",
                "message": {"role": "user", "content": "Ask Priya Raman, her email is priya@kestrel.dev"},
            }
        )
        + "\n"
    )
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["redact", str(tmp_path / "src"), "--out", str(out), "--jobs", "1"])
    assert res.exit_code == 0, res.output
    assert "NER for person names was off" in res.output
    assert json.loads((out / "review" / "identity.json").read_text())["ner"] is None
    text = "".join(p.read_text() for p in (out / "dataset" / "claude_code").rglob("*.jsonl"))
    assert "Ask" in text
    assert "priya@kestrel.dev" not in text  # everything else still runs


def test_uuid_groups_are_not_national_ids(presidio):
    text = '"id": "8ff44182-f79f-48d7-ae1b-750250401117", "aadhaar": "7502 5040 1117"'
    assert values(presidio, text) <= {"7502 5040 1117"}


def test_uuid_next_to_phone_context_is_not_a_phone(presidio):
    text = '    "phone": "+12015600072",\n  },\n  {\n    "id": "83680012-2f3e-4136-9071-200c561ce9e6",'
    assert values(presidio, text) == {"+12015600072"}


def test_json_written_inside_a_string(presidio):
    """``<tool_response>{"content": "...\\n..."}</tool_response>``: escapes must not hide lines or glue letters."""
    text = (
        '<tool_response>\n{"name": "shell", "content": "# On-call\\n- name: Emeka Zhang\\n  slack: \\"@ezhang\\"\\n'
        '81.2.69.160 - - [01/Mar/2026]\\nAuthor: Priya Raman <priya@kestrel.dev>"}\n</tool_response>'
    )
    assert {"Emeka Zhang", "Priya Raman"} <= values(StructuredNames(), text)
    assert "81.2.69.160" in values(presidio, text)
    assert "ezhang" in values(Handles(), text)


def test_prose_names_carry_to_the_same_text_elsewhere(presidio):
    """STS keeps the source's copy of a prompt beside message.content; both must lose the name."""
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig

    eng = Engine(DetectConfig(ner=presidio.ner_model is not None))
    text = "Thanks Zanele Dlamini, I merged it."
    assert any(text[s.start : s.end] == "Zanele Dlamini" for s in eng.scan(text, PROSE))
    assert any(text[s.start : s.end] == "Zanele Dlamini" for s in eng.scan(text, Leaf("test", key="text")))


def test_people_found_in_a_file_are_redacted_everywhere_in_it_whatever_the_jobs(tmp_path):
    from tracepub.cli import cli

    src = tmp_path / "src" / "projects" / "p"
    src.mkdir(parents=True)
    for n in range(3):
        lines = [
            {
                "type": "user",
                "sessionId": f"s{n}",
                "uuid": f"u{n}a",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t",
                            "content": "Author: Siobhán McAllister <s@mca.ie>",
                        }
                    ],
                },
            },
            {
                "type": "user",
                "sessionId": f"s{n}",
                "uuid": f"u{n}b",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t",
                            "content": "see notes from Siobhán McAllister",
                        }
                    ],
                },
            },
        ]
        (src / f"s{n}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        res = CliRunner().invoke(
            cli, ["redact", str(tmp_path / "src"), "--out", str(out), "--jobs", jobs, "--no-ner"]
        )
        assert res.exit_code == 0, res.output
        outs.append({p.name: p.read_bytes() for p in (out / "dataset").rglob("*.jsonl")})
    assert outs[0].keys() == outs[1].keys() and len(outs[0]) == 3
    for data in outs[0].values():
        assert b"McAllister" not in data  # the second line has no structure: the first line taught it
    # Each run has its own key, so compare shapes: same placeholders count per file.
    assert [d.count(b"<PERSON_") for d in outs[0].values()] == [
        d.count(b"<PERSON_") for d in outs[1].values()
    ]


def test_blame_inside_escaped_tool_response():
    text = (
        '<tool_response>\n{"content": "b66ad6f0 (Tariq Krause   2025-11-12 10:37:00 +0100 40) x\\n'
        '75d203ab (Marcus Ferreira  2025-11-12 10:38:00 +0100 41) y"}\n</tool_response>'
    )
    from tracepub.detect.engine import Engine
    from tracepub.detect.registry import DetectConfig

    got = {text[s.start : s.end] for s in Engine(DetectConfig(ner=False)).scan(text, CODE)}
    assert {"Tariq Krause", "Marcus Ferreira"} <= got
