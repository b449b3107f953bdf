"""The personal data that matters in traces (issue #8 item 4): each class is planted where agents
meet it (shell output, a file read, a prompt) and must be found by the whole engine, with its
look-alikes next to it kept."""

from __future__ import annotations

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.model import Leaf

CODE = Leaf("test")


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def found(engine: Engine, text: str) -> list[tuple[str, str]]:
    engine.start_unit()
    return [(text[s.start : s.end], s.type) for s in engine.scan(text, CODE)]


def values(engine: Engine, text: str, type_: str) -> set[str]:
    return {v for v, t in found(engine, text) if t == type_}


IFCONFIG = """en0: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500
\tether a4:83:e7:1c:2d:3e
\tinet6 fe80::1c2b:3a4d:5e6f:7a8b%en0 prefixlen 64 secured scopeid 0x4
\tinet 192.168.1.23 netmask 0xffffff00 broadcast 192.168.1.255
lo0: flags=8049<UP,LOOPBACK,RUNNING,MULTICAST> mtu 16384
\tinet 127.0.0.1 netmask 0xff000000"""

IP_ADDR = """2: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP
    link/ether 3c:22:fb:91:7a:10 brd ff:ff:ff:ff:ff:ff
    inet 10.0.0.57/24 brd 10.0.0.255 scope global dynamic noprefixroute wlan0
    inet6 2a02:8109:b6c0:1234:5e0a:1ff:fe3c:9a1b/64 scope global dynamic"""

HOSTS = """##
# Host Database
127.0.0.1\tlocalhost
255.255.255.255\tbroadcasthost
::1             localhost
10.0.0.5   build07.corp.acme.internal build07
192.168.1.10 nas.local"""


def test_network_configuration_names_the_machine(engine):
    ips = values(engine, IFCONFIG, "pii.ip") | values(engine, IP_ADDR, "pii.ip")
    assert {"192.168.1.23", "10.0.0.57", "2a02:8109:b6c0:1234:5e0a:1ff:fe3c:9a1b"} <= ips
    assert any(v.startswith("fe80::1c2b") for v in ips)
    assert not {"127.0.0.1", "192.168.1.255", "10.0.0.255"} & ips  # loopback, broadcast
    route = "default via 192.168.1.1 dev wlan0 proto dhcp src 192.168.1.23 metric 600"
    assert values(engine, route, "pii.ip") == {"192.168.1.1", "192.168.1.23"}


def test_private_addresses_in_code_and_docs_stay(engine):
    for text in (
        'DB_HOST = "192.168.1.10"  # the example in the README',
        "from 81.2.69.160 via 10.0.3.12",
        "curl http://10.0.0.5:8080/health",
        "Last login from 10.0.0.2 on ttys000",
    ):
        assert not [
            v for v, t in found(engine, text) if t == "pii.ip" and v.startswith(("10.", "192.168."))
        ], text


def test_hosts_file_addresses_and_names(engine):
    got = found(engine, HOSTS)
    assert ("10.0.0.5", "pii.ip") in got and ("192.168.1.10", "pii.ip") in got
    names = {v for v, t in got if t == "pii.hostname"}
    assert {"build07.corp.acme.internal", "build07", "nas.local"} <= names
    assert not {"localhost", "broadcasthost"} & names
    assert not [v for v, t in got if v in ("127.0.0.1", "255.255.255.255", "::1")]


def test_mac_addresses(engine):
    macs = values(engine, IFCONFIG, "pii.mac_address") | values(engine, IP_ADDR, "pii.mac_address")
    assert macs == {"a4:83:e7:1c:2d:3e", "3c:22:fb:91:7a:10"}  # not the broadcast ff:ff:...
    win = "   Physical Address. . . . . . . . . : 00-1B-44-11-3A-B7"
    assert values(engine, win, "pii.mac_address") == {"00-1B-44-11-3A-B7"}
    for text in (
        "MD5:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89",
        "at 12:34:56 today",
        "mac = 00:11:22:33:44:55  # example",
        "01:00:5e:00:00:fb multicast",
    ):
        assert not values(engine, text, "pii.mac_address"), text


@pytest.mark.parametrize(
    "text, name",
    [
        ("ssh jane@Janes-MacBook-Air.local", "Janes-MacBook-Air.local"),
        ("jdoe@Priyas-MBP ~ % ls", "Priyas-MBP"),
        ("ping raspberrypi.local", "raspberrypi.local"),
        ("deploy to build07.corp.acme.internal first", "build07.corp.acme.internal"),
        ("Computer name: DESKTOP-7QK2M1B", "DESKTOP-7QK2M1B"),
        ("open http://nas.lan:5000", "nas.lan"),
    ],
)
def test_private_hostnames(engine, text, name):
    assert name in values(engine, text, "pii.hostname")


@pytest.mark.parametrize(
    "text",
    [
        "git clone https://github.com/psf/requests",
        "threading.local()",
        "from werkzeug.local import LocalProxy",
        "cp .env.local .env",
        "curl http://host.docker.internal:8080",
        "redis.default.svc.cluster.local:6379",
        "./configure --host=x86_64-pc-linux-gnu",
        "ip-10-0-1-5.ec2.internal",
        "metadata.google.internal",
    ],
)
def test_public_and_infrastructure_names_stay(engine, text):
    assert not values(engine, text, "pii.hostname")


@pytest.mark.parametrize(
    "text, date",
    [
        ('{"name": "x", "dob": "1987-03-12"}', "1987-03-12"),
        ('"dateOfBirth": "1987-03-12T00:00:00.000Z",', "1987-03-12T00:00:00.000Z"),
        ("date_of_birth: 12/03/1987", "12/03/1987"),
        ("birthdate=19870312", "19870312"),
        ("I was born on 12 March 1987 in Leeds.", "12 March 1987"),
        ("Birthday: March 12, 1987", "March 12, 1987"),
        ("Geburtsdatum: 12.03.1987", "12.03.1987"),
    ],
)
def test_dates_of_birth(engine, text, date):
    assert values(engine, text, "pii.date_of_birth") == {date}


def test_birth_words_without_a_date_and_other_dates_stay(engine):
    for text in (
        "date_of_birth = models.DateField()",
        "released 2024-03-12",
        "adobe 1987-03-12",
        "I was born in 1987.",
        "dob: Optional[date] = None",
    ):
        assert not values(engine, text, "pii.date_of_birth"), text


def test_aws_account_ids_in_arns_and_fields(engine):
    arn = "arn:aws:iam::384721950362:role/deploy"
    got = found(engine, arn)
    assert ("384721950362", "pii.aws_account_id") in got
    ident = (
        '{"UserId": "AIDAXXXXXXXXXXXXXXXXX", "Account": "384721950362", "Arn": "arn:aws:sts::384721950362:x"}'
    )
    assert values(engine, ident, "pii.aws_account_id") == {"384721950362"}
    ecr = "docker push 384721950362.dkr.ecr.eu-west-1.amazonaws.com/app:1.4"
    assert values(engine, ecr, "pii.aws_account_id") == {"384721950362"}
    # AWS's documentation ids stay; a 12-digit number elsewhere is not an account.
    assert not values(
        engine, "arn:aws:iam::123456789012:role/x and arn:aws:s3:::my-bucket", "pii.aws_account_id"
    )
    assert not values(engine, "request 384721950362 done", "pii.aws_account_id")


@pytest.mark.parametrize(
    "text, handle",
    [
        ("my profile: https://github.com/mkrause92", "mkrause92"),
        ("sponsor me at github.com/sponsors/tanaka-k", "tanaka-k"),
        ("https://twitter.com/priya_r/status/1789", "priya_r"),
        ("https://x.com/priya_r", "priya_r"),
        ("https://www.linkedin.com/in/jane-doe-1a2b3c/", "jane-doe-1a2b3c"),
        ("ping me https://t.me/mkrause", "mkrause"),
        ("https://mastodon.social/@ezhang", "ezhang"),
    ],
)
def test_handles_in_profile_urls(engine, text, handle):
    # the span is the site and the handle: carried elsewhere as that URL, not as a bare word
    assert {v.rsplit("/", 1)[-1].lstrip("@") for v in values(engine, text, "pii.handle")} == {handle}


def test_repository_and_site_urls_are_not_profiles(engine):
    for text in (
        "https://github.com/psf/requests/issues/42",
        "https://github.com/features/actions",
        "https://github.com/login?return_to=%2F",
        "https://twitter.com/intent/tweet?text=x",
        "https://github.com/",
    ):
        assert not values(engine, text, "pii.handle"), text


def test_card_numbers_in_log_lines(engine):
    line = "2026-03-01T10:14:03Z INFO charge failed card=4539578763621486 amount=12.00 user=81723"
    assert values(engine, line, "pii.credit_card") == {"4539578763621486"}
    assert values(engine, "payment with 4539 5787 6362 1486 declined", "pii.credit_card") == {
        "4539 5787 6362 1486"
    }
    for text in (
        "# re-encode (OSS-Fuzz 4694619275984896)",
        '"X": 0.6394737362861633,',
        "seed=4539578763621486",
    ):
        assert not values(engine, text, "pii.credit_card"), text


def test_name_before_a_postal_address(engine):
    block = "Ship to:\nPriya Raman\n742 Evergreen Terrace\nSpringfield, OR 97477"
    got = found(engine, block)
    assert ("742 Evergreen Terrace", "pii.address") in got and ("Priya Raman", "pii.person") in got
    assert ("Lukas Becker", "pii.person") in found(
        engine, "Deliver to: Lukas Becker, 12 Baker Street, London"
    )


def _sg_nric(rng) -> str:
    from tracepub.detect.pii.national_ids import _sg_nric as valid

    while True:
        body = "S" + "".join(str(rng.randint(0, 9)) for _ in range(7))
        for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
            if valid(body + letter):
                return body + letter


def test_national_ids_of_more_countries(engine):
    import random

    from tracepub.fakes import luhn_number

    rng = random.Random(3)
    sin = luhn_number(rng, "5", 9)
    nric = _sg_nric(rng)
    cases = {
        f"Employee SIN: {sin[:3]} {sin[3:6]} {sin[6:]}": f"{sin[:3]} {sin[3:6]} {sin[6:]}",
        f"sin={sin}": sin,
        f"payroll row 12: {sin[:3]}-{sin[3:6]}-{sin[6:]}": f"{sin[:3]}-{sin[3:6]}-{sin[6:]}",
        f"NRIC {nric} on file": nric,
        "codice fiscale RSSMRA85T10A562S": "RSSMRA85T10A562S",
        "CF: RSSMRA85T10A562S": "RSSMRA85T10A562S",
        "HETU 131052-308T": "131052-308T",
        "NIE X1234567L": "X1234567L",
        "PESEL: 44051401359": "44051401359",
        "TFN 123 456 782": "123 456 782",
        "personnummer 811218-9876": "811218-9876",
        "TC kimlik no: 10000000146": "10000000146",
        "NHS number 943 476 5919": "943 476 5919",
        "Steuer-ID: 65929970489": "65929970489",
        "passport number X12345678 expires 2031": "X12345678",
        "Passport No: 533380006": "533380006",
        '"passportNumber": "C01X00T47"': "C01X00T47",
    }
    for text, value in cases.items():
        assert value in values(engine, text, "pii.national_id"), text


def test_passport_words_without_a_number_stay(engine):
    for text in (
        "the passport number field is required",
        "passport photo 1234 x 5678",
        "check passport expiry 20310402",
        "passport: 2026",
    ):
        assert not values(engine, text, "pii.national_id"), text


def test_bare_numbers_with_a_weak_check_need_their_name(engine):
    import random

    from tracepub.fakes import luhn_number

    sin = luhn_number(random.Random(3), "5", 9)
    for text in (
        f"order {sin} shipped",
        "44051401359 rows",
        "x = 10000000146",
        "S1234567A is not valid",
        "ABN 51 824 753 556",
    ):
        assert not values(engine, text, "pii.national_id"), text


def test_profile_handles_are_not_carried_as_bare_words(tmp_path):
    """A profile URL's account found in one session is redacted in that URL form everywhere, but
    the same word in a package name elsewhere stays ("pydata-sphinx-theme")."""
    import json

    from click.testing import CliRunner

    from tracepub.cli import cli

    src = tmp_path / "src" / "projects" / "p"
    src.mkdir(parents=True)
    texts = ["Maintained by the community at https://github.com/pydata", "pip install pydata-sphinx-theme"]
    for n, text in enumerate(texts):
        line = {
            "type": "user",
            "sessionId": f"s{n}",
            "uuid": f"u{n}",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": text}],
            },
        }
        (src / f"s{n}.jsonl").write_text(json.dumps(line) + "\n")
    out = tmp_path / "out"
    res = CliRunner().invoke(
        cli, ["redact", str(tmp_path / "src"), "--out", str(out), "--jobs", "1", "--no-ner"]
    )
    assert res.exit_code == 0, res.output
    data = {p.stem: p.read_text() for p in (out / "dataset").rglob("*.jsonl")}
    assert "github.com/pydata" not in data["s0"]
    assert "pydata-sphinx-theme" in data["s1"]


@pytest.mark.parametrize(
    "key, value, type_",
    [
        ("card_number", "374805780633095", "pii.credit_card"),
        ("cardNumber", "4539578763621486", "pii.credit_card"),
        ("phone", "4158675309", "pii.phone"),
        ("mobile", "07400 123456", "pii.phone"),
        ("dob", "1987-03-12", "pii.date_of_birth"),
        ("dateOfBirth", "12/03/1987", "pii.date_of_birth"),
        ("Account", "384721950362", "pii.aws_account_id"),
    ],
)
def test_values_whose_json_key_says_what_they_are(engine, key, value, type_):
    """JSON inside a tool output is parsed and its strings scanned alone: the key is the cue."""
    engine.start_unit()
    got = [(value[s.start : s.end], s.type) for s in engine.scan(value, Leaf("test", (), key, False))]
    assert (value, type_) in got


def test_keyed_values_still_need_their_shape(engine):
    for key, value in (
        ("card_number", "1234567890123456"),
        ("phone", "n/a"),
        ("dob", "unknown"),
        ("Account", "123456789012"),
        ("card", "visa"),
    ):
        engine.start_unit()
        assert not engine.scan(value, Leaf("test", (), key, False)), (key, value)


def test_new_detectors_find_on_their_trigger_lines_what_they_find_in_the_whole_text():
    """Each new detector's trigger is a necessary condition (``detect/base.py``): run through the
    engine (the prefilter picks the lines) it finds what it finds reading the whole text, on
    random text built from the pieces its forms are made of, raw JSON lines with them not skipped."""
    import json
    import random

    from tracepub.detect.pii.accounts import AwsAccounts
    from tracepub.detect.pii.birth import DatesOfBirth
    from tracepub.detect.pii.handles import Handles
    from tracepub.detect.pii.machines import Hostnames, NetworkConfig
    from tracepub.detect.pii.national_ids import NationalIds
    from tracepub.detect.prefilter import Prefilter

    pieces = [
        "inet ",
        "inet6 ",
        "inet addr:",
        "192.168.1.23",
        "10.0.0.5",
        "fe80::1c2b:3a4d",
        " via ",
        " src ",
        " dev ",
        "? (",
        ") at ",
        "a4:83:e7:1c:2d:3e",
        "\tether ",
        "link/ether ",
        "mac ",
        "127.0.0.1",
        "\tlocalhost",
        " ",
        "\n",
        "\t",
        "nas.local",
        "Janes-MacBook-Air",
        "build07.corp.acme.internal",
        "dob: ",
        "born on ",
        "1987-03-12",
        "12 March 1987",
        "arn:aws:iam::",
        "384721950362",
        ":role/x",
        "SIN ",
        "539-825-976",
        "S9190748H",
        "131052-308T",
        "https://github.com/",
        "octocat",
        "/repo",
        "x.com/",
        "priya_r",
        "é",
        "x",
    ]
    rng = random.Random(13)
    dets = [NetworkConfig(), Hostnames(), DatesOfBirth(), AwsAccounts(), NationalIds(), Handles()]
    engine = Engine(DetectConfig(ner=False), detectors=dets)
    found = 0
    for _ in range(1500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(2, 14)))
        whole = {(s.start, s.end) for d in dets for s in d.scan(text, CODE)}
        engine.start_unit()
        got = [(s.start, s.end) for s in engine.scan(text, CODE)]  # (overlapping spans are merged)
        assert all(any(a <= x and y <= b for a, b in got) for x, y in whole), text
        found += bool(whole)
        if whole:
            assert engine.line_hits(json.dumps({"a": text})) != Prefilter.NONE, text
    assert found > 300
