"""Public credits in published material (issue #8, over-redaction): a contributor's profile in a
changelog's contributor list, a README's team list or package metadata, a GitHub Sponsors link,
a copyright file's holder lines and a ``.po`` file's translator credits are not private data in a
tool's output; the same profile in the user's own words, or the user's own values, still are."""

from __future__ import annotations

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.model import Leaf

TOOL = Leaf("claude_code")
PROSE = Leaf("claude_code", (), None, True)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def found(engine: Engine, text: str, leaf: Leaf = TOOL) -> list[str]:
    engine.start_unit()
    return [text[s.start : s.end] for s in engine.scan(text, leaf)]


CREDITS = [
    "### Contributors to this release\n\n"
    '- <img src="https://avatars.githubusercontent.com/u/1?v&#x3D;4" alt="avatar" width="18"/> '
    "[Ilse Vandermeer](https://github.com/ivandermeer '+9/-2 (#41 )')\n"
    "- [Kofi Mensah](https://github.com/kmensah91)\n",
    "  * [kmensah91](https://github.com/kmensah91) - **Kofi Mensah**\n",
    "- Current Lead: [@ivandermeer](https://github.com/ivandermeer) (Ilse Vandermeer)\n",
    '  "contributors": [\n    "Ilse Vandermeer (https://github.com/ivandermeer)",\n'
    '    "Kofi Mensah <kofi@mensah.example.net> (https://github.com/kmensah91)"\n  ],\n',
    '      "funding": {\n        "url": "https://github.com/sponsors/ivandermeer"\n      }\n',
    "  and `@kmensah91 <https://github.com/kmensah91>`_\n",
    "Files: *\nCopyright: 2009-2012, Google Inc.\n           2015-2020, Ilse Vandermeer\n",
    "# Translators:\n# Ilse Vandermeer <ilse@vandermeer.example.net>, 2012, 2014-2015.\n# Kofi Mensah, 2019\n",
    '- header: "@kmensah91"\n  image: https://avatars.githubusercontent.com/u/1839645\n'
    "  link: https://github.com/kmensah91\n",
    "//! locale : Twi [tw]\n//! author : Ilse Vandermeer : https://github.com/ivandermeer\n"
    "//!           Kofi Mensah : https://github.com/kmensah91\n",
    "//!           Kofi Mensah: https://github.com/kmensah91\n",
    ".. _Kofi Mensah: https://github.com/kmensah91\n",  # an rst link's target
    "[kmensah91]: https://github.com/kmensah91\n",  # a Markdown reference link
    "Project-URL: Sponsor, https://github.com/sponsors/kmensah91\n",  # a funding link in PKG-INFO
]


def test_a_maintainer_found_in_a_debian_changelog_is_not_carried_into_its_headings(engine):
    text = (
        "tilemaker (2.1-1) unstable; urgency=medium\n\n  [ Ilse Vandermeer ]\n  * New upstream release.\n\n"
        " -- Ilse Vandermeer <ilse@vandermeer-tiles.nl>  Mon, 02 Mar 2026 10:00:00 +0000\n"
        "Upstream-Contact: Ilse Vandermeer\n"
    )
    assert found(engine, text) == ["Ilse Vandermeer", "ilse@vandermeer-tiles.nl"]


@pytest.mark.parametrize("text", CREDITS)
def test_a_public_credit_in_tool_output_is_kept(engine, text):
    assert found(engine, text) == []


def test_a_profile_url_outside_a_credit_or_in_prose_is_still_redacted(engine):
    assert found(engine, "Homepage: https://github.com/kmensah91\n") == ["github.com/kmensah91"]
    text = "- [Kofi Mensah](https://github.com/kmensah91)\n"
    assert found(engine, text, PROSE) == ["github.com/kmensah91"]
    assert found(engine, "my page: https://github.com/sponsors/kmensah91", PROSE) == [
        "github.com/sponsors/kmensah91"
    ]


def test_a_credited_profile_found_elsewhere_is_not_carried_into_the_credit(engine):
    text = "Homepage: https://github.com/kmensah91\n- [Kofi Mensah](https://github.com/kmensah91)\n"
    assert found(engine, text) == ["github.com/kmensah91"]


def test_the_users_own_profile_is_redacted_in_a_credit_too():
    own = Engine(DetectConfig(ner=False, identity={"kmensah91": "identity.username"}))
    own.start_unit()
    text = "- [Kofi Mensah](https://github.com/kmensah91)\n"
    assert [text[s.start : s.end] for s in own.scan(text, TOOL)] == ["kmensah91"]


def test_a_credited_contributor_under_a_parsed_list_key_is_kept(engine):
    engine.start_unit()
    credit = "Kofi Mensah (https://github.com/kmensah91)"
    assert not [s for s in engine.scan(credit, Leaf("codex", ("contributors", 2), "contributors"))]
    engine.start_unit()
    plain = "Kofi Mensah <kofi@mensah.example.net>"
    got = engine.scan(plain, Leaf("codex", ("contributors", 2), "contributors"))
    assert "Kofi Mensah" in [plain[s.start : s.end] for s in got]


def test_a_rights_holder_found_elsewhere_is_not_carried_into_the_license_clauses(engine):
    text = (
        "Author: Ilse Vandermeer <ilse@vandermeer-tiles.nl>\n\n"
        "documentation, and that the name of Ilse Vandermeer not be used in\n"
        "advertising or publicity.  Ilse Vandermeer makes no\nrepresentations about the suitability\n"
        "IN NO EVENT SHALL ILSE VANDERMEER BE LIABLE FOR ANY SPECIAL DAMAGES\n"
        "Ilse Vandermeer wrote the parser.\n"
    )
    names = [v for v in found(engine, text) if "@" not in v]
    assert names == ["Ilse Vandermeer", "Ilse Vandermeer"]  # the Author: line and the last line


def test_a_person_found_elsewhere_is_not_carried_into_a_credit(engine):
    text = (
        "Author: Kofi Mensah <kofi@mensah-tiles.nl>\n"
        "- [@kmensah91](https://github.com/kmensah91) (Kofi Mensah)\n"
        '  "contributors": ["Kofi Mensah (https://github.com/kmensah91)"]\n'
        "Kofi Mensah fixed the parser.\n"
    )
    names = [v for v in found(engine, text) if "@" not in v]
    assert names == ["Kofi Mensah", "Kofi Mensah"]  # the Author: line and the last line


PYPI_INFO = (
    '{\n  "info": {\n    "author": "Kofi Mensah",\n    "author_email": "kofi@mensah-tiles.nl",\n'
    '    "bugtrack_url": null,\n    "home_page": "https://mensah-tiles.nl/",\n'
    '    "maintainer": "Ilse Vandermeer",\n    "maintainer_email": "ilse@vandermeer-tiles.nl",\n'
    '    "name": "tiles",\n    "package_url": "https://pypi.org/project/tiles/",\n'
    '    "project_url": "https://pypi.org/project/tiles/"\n  }\n}\n'
)


def test_the_author_of_a_package_on_the_public_index_is_kept(engine):
    import json

    assert found(engine, PYPI_INFO) == []
    assert found(engine, json.dumps({"stdout": PYPI_INFO})) == []  # as a tool's JSON output
    carried = "Author: Kofi Mensah <kofi@mensah-tiles.nl>\n" + PYPI_INFO  # found in a log, carried here
    assert found(engine, carried) == ["Kofi Mensah", "kofi@mensah-tiles.nl"]
    private = PYPI_INFO.replace("https://pypi.org/", "https://pypi.kestrel.dev/")  # a private index
    assert "kofi@mensah-tiles.nl" in found(engine, private)
    assert "Kofi Mensah" in found(engine, private)
