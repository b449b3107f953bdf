"""Fake personal data of real shape for the evaluation corpus: names, emails, phones, cards,
IBANs, national ids, addresses, IPs, handles, and the fake user whose identity is harvested.

Everything is drawn from a seeded ``random.Random`` so a corpus is reproducible. Values carry
valid checksums where the real ones do (Luhn, IBAN mod 97, NIF letter, Aadhaar Verhoeff), and
phone numbers are checked with ``phonenumbers`` so a detector cannot pass by rejecting them.
"""

from __future__ import annotations

import ipaddress
import random
import string
from dataclasses import dataclass, field

import phonenumbers

from tracepub.fakes import expand, github_token, luhn_number

FIRST = [
    "Priya",
    "Lukas",
    "Amara",
    "Mateo",
    "Ingrid",
    "Kenji",
    "Fatima",
    "Oliver",
    "Chiara",
    "Dmitri",
    "Aisha",
    "Tomasz",
    "Yuki",
    "Rafael",
    "Sigrid",
    "Nikhil",
    "Leila",
    "Bastian",
    "Chen",
    "Olga",
    "Emeka",
    "Sofia",
    "Hannah",
    "Marcus",
    "Ines",
    "Arjun",
    "Beatriz",
    "Jonas",
    "Mei",
    "Kwame",
    "Elena",
    "Henrik",
    "Zanele",
    "Diego",
    "Astrid",
    "Ravi",
    "Camille",
    "Niamh",
    "Ahmed",
    "Greta",
    "Tariq",
    "Lucia",
    "Florian",
    "Anika",
    "Matthias",
    "Nadia",
    "Pedro",
    "Svetlana",
    "Wei",
    "Malik",
    "Isabel",
    "Joaquim",
    "Keiko",
    "Thandiwe",
    "José",
    "Łukasz",
    "Zoë",
    "Søren",
    "Ana-María",
    "Siobhán",
    "Björn",
    "Aoife",
    "Răzvan",
    "Çağla",
]
LAST = [
    "Raman",
    "Becker",
    "Okafor",
    "Alvarez",
    "Lindqvist",
    "Tanaka",
    "Haddad",
    "Whitfield",
    "Romano",
    "Volkov",
    "Mensah",
    "Kowalczyk",
    "Nakamura",
    "Oliveira",
    "Halvorsen",
    "Iyer",
    "Farahani",
    "Krause",
    "Zhang",
    "Petrova",
    "Nwosu",
    "Castellano",
    "Brennan",
    "Delacroix",
    "Moreau",
    "Srinivasan",
    "Sousa",
    "Engström",
    "Lindgren",
    "Asante",
    "Papadopoulos",
    "Fischer",
    "Dlamini",
    "Herrera",
    "Johansson",
    "Chaudhary",
    "Lefebvre",
    "Gallagher",
    "Rahman",
    "Vogel",
    "Karimi",
    "Ferreira",
    "Hartmann",
    "Mbeki",
    "Schröder",
    "Novak",
    "Quispe",
    "Ivanova",
    "Takahashi",
    "Abdullah",
    "Márquez",
    "Kuznetsov",
    "Adeyemi",
    "O'Brien",
    "McAllister",
    "Nguyễn",
    "Wiśniewski",
    "Øvergaard",
    "Duarte-Silva",
    "Yılmaz",
    "Van der Berg",
]
MAIL_DOMAINS = [
    "gmail.com",
    "proton.me",
    "outlook.com",
    "fastmail.com",
    "northwind-labs.io",
    "kestrel.dev",
    "hey.com",
    "icloud.com",
    "yahoo.co.uk",
    "web.de",
    "orbitalfreight.com",
    "mailbox.org",
]
CITIES_US = [
    ("Springfield", "OR", "97477"),
    ("Austin", "TX", "78704"),
    ("Portland", "ME", "04101"),
    ("Madison", "WI", "53703"),
    ("Boulder", "CO", "80302"),
    ("Raleigh", "NC", "27601"),
]
STREETS = [
    "Maple",
    "Cedar",
    "Willow",
    "Lakeview",
    "Harbor",
    "Juniper",
    "Ridge",
    "Orchard",
    "Sycamore",
    "Chestnut",
    "Meadow",
    "Birch",
    "Highland",
    "Magnolia",
    "Aspen",
    "Hawthorne",
]
STREET_TYPES = ["Street", "Avenue", "Road", "Lane", "Drive", "Boulevard", "Way", "Court", "Place", "Terrace"]
DE_STREETS = ["Haupt", "Linden", "Garten", "Schiller", "Goethe", "Bahnhof", "Kirch", "Berg", "Wald", "Rosen"]
DE_CITIES = [
    ("10115", "Berlin"),
    ("80331", "München"),
    ("50667", "Köln"),
    ("20095", "Hamburg"),
    ("04109", "Leipzig"),
]
UK_POSTCODES = [
    ("London", "SW1A 2AA"),
    ("Manchester", "M1 1AE"),
    ("Leeds", "LS1 4DY"),
    ("Bristol", "BS1 5TR"),
]
PHONE_REGIONS = ["US", "GB", "DE", "FR", "IN", "BR", "AU", "ES", "IT", "NL", "JP", "SE", "ZA", "MX", "CA"]


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def _ascii(s: str) -> str:
    table = str.maketrans(
        {
            "ö": "o",
            "ä": "a",
            "ü": "u",
            "é": "e",
            "á": "a",
            "ß": "ss",
            "ø": "o",
            "å": "a",
            "ł": "l",
            "ë": "e",
            "í": "i",
            "ă": "a",
            "ç": "c",
            "ğ": "g",
            "ễ": "e",
            "ś": "s",
            "ı": "i",
            "'": "",
            " ": "",
        }
    )
    return s.translate(table)


def email_for(rng: random.Random, name: str) -> str:
    first, _, last = name.lower().partition(" ")
    first, last = _ascii(first), _ascii(last)
    local = rng.choice(
        [f"{first}.{last}", f"{first[0]}{last}", f"{first}{rng.randint(1, 99)}", f"{first}_{last}"]
    )
    return f"{local}@{rng.choice(MAIL_DOMAINS)}"


def handle_for(rng: random.Random, name: str) -> str:
    first, _, last = name.lower().partition(" ")
    first, last = _ascii(first), _ascii(last)
    return rng.choice(
        [
            f"{first}_{last[:4]}",
            f"{first[0]}{last}{rng.randint(1, 99)}",
            f"{first}.{last}",
            f"{last}{first[:2]}_dev",
        ]
    )


def phone(rng: random.Random) -> str:
    """A number that ``phonenumbers`` accepts as valid, in one of the common written formats."""
    region = rng.choice(PHONE_REGIONS)
    example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
    national = str(example.national_number)
    for _ in range(50):
        keep = max(2, len(national) - 6)
        digits = national[:keep] + "".join(rng.choice(string.digits) for _ in range(len(national) - keep))
        num = phonenumbers.parse(f"+{example.country_code}{digits}")
        if phonenumbers.is_valid_number(num):
            break
    else:
        num = example
    fmt = rng.choice(
        [
            phonenumbers.PhoneNumberFormat.INTERNATIONAL,
            phonenumbers.PhoneNumberFormat.E164,
            phonenumbers.PhoneNumberFormat.INTERNATIONAL,
        ]
    )
    if region in ("US", "GB", "DE") and rng.random() < 0.3:
        return phonenumbers.format_number(num, phonenumbers.PhoneNumberFormat.NATIONAL)
    out = phonenumbers.format_number(num, fmt)
    if fmt == phonenumbers.PhoneNumberFormat.INTERNATIONAL and rng.random() < 0.25:
        out = out.replace(" ", "-")  # +1-415-555-0132
    return out


def card(rng: random.Random) -> str:
    prefix, length = rng.choice([("4", 16), ("51", 16), ("55", 16), ("37", 15), ("6011", 16)])
    n = luhn_number(rng, prefix, length)
    if rng.random() < 0.5:
        return n
    if length == 15:
        return f"{n[:4]} {n[4:10]} {n[10:]}"
    return " ".join(n[i : i + 4] for i in range(0, 16, 4))


def _iban_check(country: str, bban: str) -> str:
    num = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{98 - int(num) % 97:02d}"


def iban(rng: random.Random) -> str:
    country = rng.choice(["DE", "GB", "NL", "ES", "FR", "IT"])
    d = lambda n: "".join(rng.choice(string.digits) for _ in range(n))  # noqa: E731
    u = lambda n: "".join(rng.choice(string.ascii_uppercase) for _ in range(n))  # noqa: E731
    bban = {
        "DE": lambda: d(18),
        "GB": lambda: u(4) + d(14),
        "NL": lambda: u(4) + d(10),
        "ES": lambda: d(20),
        "FR": lambda: d(23),
        "IT": lambda: u(1) + d(22),
    }[country]()
    code = country + _iban_check(country, bban) + bban
    if rng.random() < 0.5:
        return code
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4))


_VERHOEFF_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
_VERHOEFF_P = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
    [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
    [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]
_VERHOEFF_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def _verhoeff_digit(num: str) -> str:
    c = 0
    for i, ch in enumerate(reversed(num)):
        c = _VERHOEFF_D[c][_VERHOEFF_P[(i + 1) % 8][int(ch)]]
    return str(_VERHOEFF_INV[c])


def national_id(rng: random.Random) -> tuple[str, str]:
    """(kind, value): a US SSN, UK NINO, Spanish NIF or Indian Aadhaar number."""
    kind = rng.choice(["us_ssn", "uk_nino", "es_nif", "in_aadhaar"])
    if kind == "us_ssn":
        area = rng.choice([n for n in range(101, 899) if n != 666])
        return kind, f"{area:03d}-{rng.randint(10, 99):02d}-{rng.randint(1000, 9999):04d}"
    if kind == "uk_nino":
        letters = "ABCEGHJKLMNPRSTWXYZ"
        pre = "GB"
        while pre in ("BG", "GB", "NK", "KN", "TN", "NT", "ZZ"):
            pre = rng.choice(letters) + rng.choice(letters)
        digits = "".join(rng.choice(string.digits) for _ in range(6))
        return kind, f"{pre} {digits[:2]} {digits[2:4]} {digits[4:]} {rng.choice('ABCD')}"
    if kind == "es_nif":
        n = rng.randint(10_000_000, 99_999_999)
        return kind, f"{n}{'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23]}"
    body = str(rng.randint(2, 9)) + "".join(rng.choice(string.digits) for _ in range(10))
    full = body + _verhoeff_digit(body)
    return kind, f"{full[:4]} {full[4:8]} {full[8:]}"


def address(rng: random.Random) -> tuple[str, str]:
    """(street line, rest): the street line is what identifies a home; city and code are context."""
    style = rng.choice(["us", "us", "uk", "de"])
    if style == "us":
        city, st, zip_ = rng.choice(CITIES_US)
        return (
            f"{rng.randint(12, 9899)} {rng.choice(STREETS)} {rng.choice(STREET_TYPES)}",
            f"{city}, {st} {zip_}",
        )
    if style == "uk":
        city, pc = rng.choice(UK_POSTCODES)
        return (
            f"{rng.randint(2, 240)} {rng.choice(STREETS)} {rng.choice(['Road', 'Street', 'Lane', 'Gardens'])}",
            f"{city} {pc}",
        )
    plz, city = rng.choice(DE_CITIES)
    return f"{rng.choice(DE_STREETS)}straße {rng.randint(1, 140)}", f"{plz} {city}"


def public_ip(rng: random.Random) -> str:
    while True:
        ip = ipaddress.IPv4Address(rng.randint(0x01000000, 0xDFFFFFFF))
        if ip.is_global and not str(ip).startswith(("100.", "198.18.", "198.19.")):
            return str(ip)


def public_ipv6(rng: random.Random) -> str:
    while True:
        ip = ipaddress.IPv6Address((0x2A00 + rng.randint(0, 0x1FF)) << 112 | rng.getrandbits(100))
        if ip.is_global:
            return str(ip)


def private_ip(rng: random.Random) -> str:
    return rng.choice(
        [
            f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
            f"192.168.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
            f"172.{rng.randint(16, 31)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
            f"127.0.{rng.randint(0, 9)}.{rng.randint(1, 9)}",
            f"203.0.113.{rng.randint(1, 254)}",
            f"198.51.100.{rng.randint(1, 254)}",
            f"192.0.2.{rng.randint(1, 254)}",
        ]
    )


# -- hard negatives --------------------------------------------------------------------------
def hexs(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def b64(rng: random.Random, nbytes: int) -> str:
    return expand("{{b64bytes:" + str(nbytes) + "}}", rng)


def uuid4(rng: random.Random) -> str:
    h = hexs(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def ulid(rng: random.Random) -> str:
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    return "01J" + "".join(rng.choice(alphabet) for _ in range(23))


def ssh_public_key(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(rng, 32)[:43]
    return "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + b64(rng, 384)[:-4]


def pem_body(rng: random.Random, lead: str, nbytes: int, width: int = 64) -> str:
    body = lead + b64(rng, nbytes)[len(lead) :]
    body = body.rstrip("=")
    return "\n".join(body[i : i + width] for i in range(0, len(body), width))


# -- the fake user ----------------------------------------------------------------------------
@dataclass
class FakeUser:
    """The person running tracepub in the evaluation: their identity must never leak."""

    username: str
    full_name: str
    email: str
    hostname: str
    tokens: dict[str, str] = field(default_factory=dict)  # kind -> value (own secrets)

    @property
    def home(self) -> str:
        return f"/home/{self.username}"


def fake_user(rng: random.Random) -> FakeUser:
    u = FakeUser(
        username="tberglund",
        full_name="Tove Berglund",
        email="tove.berglund@northwind-labs.io",
        hostname="tove-thinkpad",
    )
    # The company-internal token has no public format: only harvesting can find it.
    u.tokens = {
        "internal_token": f"nwl.{expand('{{lowerdigits:6}}', rng)}.{expand('{{alnum:22}}', rng)}",
        "internal_netrc": expand("{{alnum:8}}-{{alnum:8}}-{{alnum:8}}", rng),
        "github_token": github_token(rng, "gho"),
        "git_credentials": github_token(rng, "ghp"),
        "huggingface_token": expand("hf_{{alpha:34}}", rng),
        "npm_token": github_token(rng, "npm"),
        "aws_access_key_id": expand("AKIA{{b32:16}}", rng),
        "aws_secret_access_key": expand("{{b64:40}}", rng).replace("+", "/"),
        "pypi_token": "pypi-AgEIcHlwaS5vcmc" + expand("{{b64url:120}}", rng),
        "docker_password": expand("{{alnum:20}}", rng),
        "env_secret": expand("{{alnum:12}}_{{alnum:18}}", rng),
    }
    return u
