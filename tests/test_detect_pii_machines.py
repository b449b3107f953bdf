"""Machines and birth dates in the forms macOS and tables write them (issue #8 item 4): the
network settings ``networksetup -getinfo`` prints, the computer name before it becomes a host
name ("Jane's MacBook Pro"), a birth date in a table cell."""

from __future__ import annotations

import json
import random

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.model import Leaf

CODE = Leaf("test")

GETINFO = """$ networksetup -getinfo Wi-Fi
DHCP Configuration
IP address: 192.168.1.23
Subnet mask: 255.255.255.0
Router: 192.168.1.1
Client ID:
IPv6: Automatic
Wi-Fi ID: a4:83:e7:1c:2d:3e"""


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def found(engine: Engine, text: str) -> set[tuple[str, str]]:
    engine.start_unit()
    return {(text[s.start : s.end], s.type) for s in engine.scan(text, CODE)}


def test_macos_network_settings_name_the_machine(engine):
    got = found(engine, GETINFO)
    assert {
        ("192.168.1.23", "pii.ip"),
        ("192.168.1.1", "pii.ip"),
        ("a4:83:e7:1c:2d:3e", "pii.mac_address"),
    } <= got
    assert not {v for v, t in got if v.startswith("255.")}
    # The same words elsewhere on a line are prose or code, where private addresses stay.
    assert not found(engine, 'print("Your IP address: 192.168.1.23")')


@pytest.mark.parametrize(
    "text, name",
    [
        ("$ scutil --get ComputerName\nJane's MacBook Pro", "Jane's MacBook Pro"),
        ("AirDrop: sent to Kofi’s iPhone", "Kofi’s iPhone"),
        ("Computer Name: Tove's iMac", "Tove's iMac"),
    ],
)
def test_computer_names_before_they_are_host_names(engine, text, name):
    assert (name, "pii.hostname") in found(engine, text)


def test_things_with_a_device_are_not_computer_names(engine):
    for text in ("Apple's MacBook Pro lineup", "the Company's iPhone app", "a user's iPad"):
        assert not {v for v, t in found(engine, text) if t == "pii.hostname"}, text


def test_a_birth_date_in_a_table_cell(engine):
    assert ("1987-03-12", "pii.date_of_birth") in found(engine, "| Date of Birth | 1987-03-12 |")
    assert not found(engine, "| Release date | 2024-03-12 |")


def test_the_new_forms_hold_their_triggers():
    """The triggers stay necessary conditions (``detect/base.py``) with the new forms: through the
    engine the detectors find what they find reading the whole text, raw JSON lines not skipped."""
    from tracepub.detect.pii.birth import DatesOfBirth
    from tracepub.detect.pii.machines import Hostnames, NetworkConfig
    from tracepub.detect.prefilter import Prefilter

    pieces = ["IP address: ", "Router: ", "Wi-Fi ID: ", "192.168.1.23", "a4:83:e7:1c:2d:3e", "\n", " ", "x"]
    pieces += ["Jane", "'s ", "’s ", "MacBook Pro", "iPhone", "the ", "| Date of Birth | ", "1987-03-12", "|"]
    rng = random.Random(5)
    dets = [NetworkConfig(), Hostnames(), DatesOfBirth()]
    engine = Engine(DetectConfig(ner=False), detectors=dets)
    hits = 0
    for _ in range(1500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(2, 12)))
        whole = {(s.start, s.end) for d in dets for s in d.scan(text, CODE)}
        engine.start_unit()
        got = [(s.start, s.end) for s in engine.scan(text, CODE)]
        assert all(any(a <= x and y <= b for a, b in got) for x, y in whole), text
        hits += bool(whole)
        if whole:
            assert engine.line_hits(json.dumps({"a": text})) != Prefilter.NONE, text
    assert hits > 50


@pytest.mark.parametrize(
    "text, host",
    [
        ("connecting to db-02.corp.fjordlabs.io:5432", "db-02.corp.fjordlabs.io"),
        ("ssh build01.internal.fjordlabs.io", "build01.internal.fjordlabs.io"),
        ("curl https://grafana.intra.fjordlabs.io/d/abc", "grafana.intra.fjordlabs.io"),
        ("vault.priv.acme.co.uk rejected the token", "vault.priv.acme.co.uk"),
    ],
)
def test_an_internal_machine_under_a_public_domain_is_a_hostname(engine, text, host):
    assert (host, "pii.hostname") in found(engine, text)


@pytest.mark.parametrize(
    "text",
    [
        "self.internal.dev = 1",  # code, whatever its last word
        "config.internal.api",  # no public suffix
        "from foo.internal.io import bar",
        "see docs.internal.example.com",  # a documentation domain
        "https://lan.party.com",  # no private label inside the name
    ],
)
def test_code_and_example_names_with_a_private_label_stay(engine, text):
    assert not {t for t in found(engine, text) if t[1] == "pii.hostname"}
