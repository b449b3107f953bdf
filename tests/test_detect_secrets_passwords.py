"""The password tier (docs/design/secrets.md, "Passwords"): a value in a password's place is a
password whatever its letters, unless it is a stand-in, a reference or a name in code. Checked
through ``Engine.scan`` with fake values of the shapes people choose (words, stand-in words),
and the look-alikes that must stay.
"""

from __future__ import annotations

import pytest
from secretkit import covered, secret_spans

from tracepub.detect.engine import Engine
from tracepub.detect.found import propagates
from tracepub.detect.registry import DetectConfig


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


# (text, the password in it): words, stand-in words and weak passwords people do use
PASSWORDS = [
    ("REACT_APP_AUTH_PASSWORD=bluefalcon", "bluefalcon"),
    ("    APP_DB_PASS=bluefalcon    # local only", "bluefalcon"),
    ("[Portal]\nUsername=jdoe\nPassword=thisisourpassword\n", "thisisourpassword"),
    ("AUTO_LOGIN_PASSWORD=ourpassword", "ourpassword"),
    ("Server=db;Port=5432;User Id=app;Password=lanternfish;Database=app;", "lanternfish"),
    ("Data Source=10.0.0.5,1433;User ID=app;Password=ourDbPassword;", "ourDbPassword"),
    ("Provider=SQLNCLI;Server=db;Uid=app;Pwd=ourDbPassword;", "ourDbPassword"),
    ("  password        => 'thisisourpassword',", "thisisourpassword"),
    ('private const string CertPassword = "thisisourpassword";', "thisisourpassword"),
    ("user = 'Aladdin'\npassword = 'open barley'\n", "open barley"),
    ("echo \"The password is 'Lantern42'\"", "Lantern42"),
    ('ensure the password is "lanternfish" and press the "On" button', "lanternfish"),
    ("PsExec.exe \\\\host -u CORP\\svc -p ourpass cmd", "ourpass"),
    ("machine git.example.org\n  login jdoe\n  password lamp123\n", "lamp123"),
    ("postgresql://app:lanternfish@localhost:5433/app", "lanternfish"),
    ("mongodb+srv://svc:Lanternfish@cluster0.example.net/db", "Lanternfish"),
    ("DB_PASSWORD=secret", "secret"),
]


@pytest.mark.parametrize(("text", "secret"), PASSWORDS, ids=[p[1] + str(i) for i, p in enumerate(PASSWORDS)])
def test_password_whatever_its_letters(engine: Engine, text: str, secret: str) -> None:
    assert covered(engine, text, secret), text


# Not values: stand-ins, references, names and expressions in code, labels
NOT_PASSWORDS = [
    "DB_PASSWORD=changeme",
    "DB_PASSWORD=<password>",
    "DB_PASSWORD=${DB_PASS}",
    "psexec \\\\host -u svc -p $Password cmd",
    "psexec \\\\host -u svc -p %PASSWORD% cmd",
    "DB_PASSWORD=********",
    "DB_PASSWORD=your_password",
    "Server=db;User Id=app;Password=password;",
    'connection.settings_dict["PASSWORD"] = old_password',
    "client: { username, password: oldPassword },",
    "    password: Option<CffiBuf<'_>>,",
    "    password: encryption_algorithm\n        .getattr(x)?,",
    "def load(data: bytes, password: bytes | None) -> Key: ...",
    "password = self.password",
    "password = os.getenv('DB_PASSWORD')",
    '<input type="submit" name="password" value="Submit">',
    '<li>Password: <input type="password" name="password1"></li>',
    'errors["password1"] = "password1"',
    "the password is incorrect",
    "module.exports = function (jwtString, secretOrPublicKey) {",
]


@pytest.mark.parametrize("text", NOT_PASSWORDS)
def test_not_a_password(engine: Engine, text: str) -> None:
    spans = secret_spans(engine, text)
    assert not spans, [(s.type, text[s.start : s.end]) for s in spans]


def test_a_password_that_is_a_word_is_not_carried_everywhere() -> None:
    """Redacted where it is a password; elsewhere "secret" or "function" is a word."""
    assert not propagates("secret", "secret.password", "entropy:assign")
    assert not propagates("Secure", "secret.password", "entropy:assign")
    assert propagates("lanternfish42", "secret.password", "entropy:assign")
    assert propagates("secretvalue9Zq", "secret.token", "entropy:assign")
