"""Secret classes found missing on a second outside suite (bench/recall_np.py) and the held-out
corpus (#8 item 3): places and rule families, each planted with a fake value of the right shape
and checked through ``Engine.scan`` (the whole value covered by ``secret.*`` spans), with the
look-alikes beside them that must stay.
"""

from __future__ import annotations

import random

import pytest
from secretkit import covered, secret_spans

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig
from tracepub.fakes import expand

RNG = random.Random(20261202)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def x(template: str) -> str:
    return expand(template, RNG)


# (text with {v}, value template)
CASES = {
    # CLI tools that take a password as a flag
    "sqlcmd": ('sqlcmd -S db,1433 -U sa -P "{v}" -Q "SELECT 1"', "{{alnum:14}}"),
    "sqlcmd-bare": ("sqlcmd -S db -U sa -P {v} -d app", "{{alnum:12}}"),
    "psexec": ("PsExec.exe \\\\10.0.0.5 -u CORP\\svc -p {v} cmd /c whoami", "{{alnum:12}}"),
    # .NET credential constructors
    "network-credential": (
        'client.Credentials = new NetworkCredential("ci@example.com", "{v}");',
        "{{lower:16}}",
    ),
    "directory-entry": (
        'new DirectoryEntry("LDAP://dc01.corp.example", "CORP\\\\svc", "{v}")',
        "{{alnum:12}}",
    ),
    # hashes of passwords
    "md5-crypt": ("admin:$1${{alnum:8}}${v}:19000:0:99999:7:::", "{{alnum:22}}"),
    "sha256-crypt-rounds": ("$5$rounds=5000${{alnum:16}}${v}", "{{alnum:43}}"),
    "cisco-type8": ("enable secret 8 $8${{alnum:14}}${v}", "{{alnum:43}}"),
    "yescrypt": ("user:$y$j9T${{alnum:22}}${v}:19500::::::", "{{alnum:43}}"),
    "krb5-asrep": ("$krb5asrep$23$svc@corp.example:{{lowerhex:32}}${v}", "{{lowerhex:160}}"),
    # provider shapes
    "twitch-stream-key": ("rtmp://live.twitch.tv/app/{v}", "live_{{digits:9}}_{{alnum:30}}"),
    "codeclimate": ("env:\n  CC_TEST_REPORTER_ID: {v}\n", "{{lowerhex:64}}"),
    "newrelic-admin": ("admin_access:{v}", "NRAA-{{lowerhex:27}}"),
    "newrelic-query": ('  "querykey": "{v}",', "NRIQ-{{b64url:32}}"),
    "newrelic-license-region": ("        license: {v}", "eu01xx{{lowerhex:30}}NRAL"),
    "dependency-track": ("X-Api-Key: {v}", "odt_{{alnum:32}}"),
    "thingsboard": ("coap://coap.thingsboard.cloud/api/v1/{v}/telemetry", "{{lowerdigits:20}}"),
    "truenas": (
        '{"id": "{{uuid}}", "msg": "method", "method": "auth.login_with_api_key",\n "params": [\n  "{v}"\n ]}',
        "12-{{alnum:64}}",
    ),
    "jenkins-setup": (
        "Please use the following password to proceed to installation:\n\n{v}\n\nThis may also be found at: "
        "/var/jenkins_home/secrets/initialAdminPassword",
        "{{lowerhex:32}}",
    ),
    "jenkins-crumb": ("curl -X POST http://ci.example/job/x/build -H 'Jenkins-Crumb:{v}'", "{{lowerhex:32}}"),
    "vault-unseal": ("vault operator unseal {v}", "{{b64:44}}"),
    "vault-init-output": ("Unseal Key 1: {v}\nUnseal Key 2: {{b64:44}}", "{{b64:44}}"),
    "telegram-32": ("TELEGRAM_TOKEN={v}", "{{digits:10}}:AA{{b64url:32}}"),
    # places: values aligned in a column after the operator
    "aligned-yaml": ('     fbApiKey:            "{v}",', "{{lowerhex:32}}"),
    "aligned-php": ('$user = "mg1021";              $password = "{v}";', "{{alnum:12}}"),
    # prose that hands a key over, with words between the key and the value
    "prose-words-between": ("here's the key I got from the dashboard {v}", "{{alnum:40}}"),
    "prose-heres-no-apostrophe": ("heres my key {v}", "{{alnum:40}}"),
    "prose-give-you": ("I'll give you my key, it's {v}", "{{alnum:40}}"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_class_is_redacted_whole(engine, name):
    template, value = CASES[name]
    v = x(value)
    text = x(template.replace("{v}", "\x00")).replace("\x00", v)
    assert covered(engine, text, v), (
        name,
        text,
        [(text[s.start : s.end], s.type) for s in secret_spans(engine, text)],
    )


KEPT = {
    "sqlcmd-variable": "sqlcmd -S db -U sa -P $SA_PASSWORD -Q 'SELECT 1'",
    "sqlcmd-windows-auth": "sqlcmd -S db -E -Q 'SELECT 1'",
    "psexec-variable": "psexec \\\\host -u User -p $Password -i -d calc.exe",
    "credential-variables": "new NetworkCredential(user, password)",
    "regex-backrefs": "s/(a)(b)/$1$2/g; echo $1$2$3$4$5$6$7$8$9",
    "live-identifier": "if is_live_stream_enabled(live_1234_short):",
    "codeclimate-ref": "CC_TEST_REPORTER_ID: ${{ secrets.CC_TEST_REPORTER_ID }}",
    "unseal-no-key": "vault operator unseal\nUnseal Key (will be hidden):",
    "prose-commit-after-words": "use the key from commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 for the fix",
    "prose-key-insight": "here's the key insight from the paper about tokenization_strategies_overview",
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_look_alike_is_kept(engine, name):
    text = KEPT[name]
    assert not secret_spans(engine, text), (
        name,
        [(text[s.start : s.end], s.type) for s in secret_spans(engine, text)],
    )


def test_private_key_in_string_concatenation(engine):
    """A PEM block written as concatenated string literals (Java, C#, JS): the whole body goes."""
    lines = [x("{{b64:64}}") for _ in range(4)]
    body = ' +\n    "'.join(f'{ln}"' for ln in lines)
    text = f'String key = "-----BEGIN RSA PRIVATE KEY-----" +\n    "{body} +\n    "-----END RSA PRIVATE KEY-----";'
    for ln in lines:
        assert covered(engine, text, ln), ln


def test_key_header_constant_is_not_a_block(engine):
    text = 'HEADER = "-----BEGIN RSA PRIVATE KEY-----"\nFOOTER = "-----END RSA PRIVATE KEY-----"\n'
    assert not secret_spans(engine, text)


def test_more_places(engine):
    tf = x("{{b64url:42}}")
    text = f'variable "corp_okta_api_token" {{\n  description = "Okta"\n  default     = "{tf}"\n}}\n'
    assert covered(engine, text, tf)
    pw = x("{{alnum:10}}")
    text = f'new DirectoryEntry("LDAP://EXAMPLE.COM",\n          "ADMIN@EXAMPLE.COM",\n          "{pw}");'
    assert covered(engine, text, pw)


def test_more_look_alikes(engine):
    for text in (
        "REACT_APP_LOGIN_FORGOT_PASSWORD=$REACT_APP_BASE_URL/classroom/#/forgot_password",
        'variable "token_ttl" {\n  default = "3600"\n}',
    ):
        assert not secret_spans(engine, text), (
            text,
            [(text[s.start : s.end], s.type) for s in secret_spans(engine, text)],
        )


def test_jwe_compact_form_whole(engine):
    """A JWE (five dot-separated parts) goes whole, not only its JWT-shaped head."""
    header = "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ"
    jwe = ".".join([header, x("{{b64url:342}}"), x("{{b64url:16}}"), x("{{b64url:200}}"), x("{{b64url:22}}")])
    assert covered(engine, f"JWE: {jwe}", jwe)


CLI = {
    "mongo": "mongo -u admin -p {v} --authenticationDatabase admin",
    "redis-cli": "redis-cli -h cache -a {v} ping",
    "ldapsearch": "ldapsearch -x -D cn=admin,dc=corp,dc=example -w {v} -b dc=corp,dc=example",
    "keytool": "keytool -importcert -keystore ks.jks -storepass {v} -noprompt",
    "az-login": "az login --service-principal -u http://ci -p {v} --tenant corp.example",
    "smbclient": "smbclient //fs01/share -U CORP/svc%{v}",
    "net-use": "net use Z: \\\\fs01\\share {v} /user:CORP\\svc",
    "net-use-after-user": "net use \\\\fs01\\share /user:CORP\\svc {v}",
    "rabbitmqctl": "rabbitmqctl add_user svc {v}",
    "htpasswd": "htpasswd -b /etc/nginx/.htpasswd admin {v}",
    "mysqladmin": "mysqladmin -u root password {v}",
    "echo-docker-login": "echo '{v}' | docker login -u ci --password-stdin registry.example.com",
}


@pytest.mark.parametrize("name", sorted(CLI))
def test_cli_password_argument(engine, name):
    """Command lines that take a password as an argument, tool by tool (the flag differs)."""
    v = x("{{alnum:14}}")
    text = CLI[name].replace("{v}", v)
    assert covered(engine, text, v), (
        text,
        [(text[s.start : s.end], s.type) for s in secret_spans(engine, text)],
    )


@pytest.mark.parametrize(
    "text",
    [
        "mongosh -u admin -p $MONGO_PASS",
        "redis-cli -a $REDIS_PASSWORD ping",
        "ldapsearch -x -D cn=admin -W -b dc=corp",
        "keytool -list -keystore ks.jks -storepass:env STOREPASS",
        "net use Z: \\\\fs01\\share * /user:CORP\\svc",
        "net use Z: \\\\fs01\\share /user:CORP\\svc /persistent:yes",
        "htpasswd -c /etc/nginx/.htpasswd admin",
        "echo $CR_PAT | docker login ghcr.io -u ci --password-stdin",
    ],
)
def test_cli_password_look_alikes(engine, text):
    assert not secret_spans(engine, text), [
        (text[s.start : s.end], s.type) for s in secret_spans(engine, text)
    ]


def test_private_key_concatenation_in_a_numbered_file_view(engine):
    lines = [x("{{b64:64}}") for _ in range(3)]
    rows = [
        '"-----BEGIN RSA PRIVATE KEY-----" +',
        *[f'"{ln}" +' for ln in lines],
        '"-----END RSA PRIVATE KEY-----"',
    ]
    text = "\n".join(f"{n:6d}→{row}" for n, row in enumerate(rows, 1))
    for ln in lines:
        assert covered(engine, text, ln), ln


@pytest.mark.parametrize(
    "text",
    [
        '"//localhost:1337/:_password = "+new Buffer("feast").toString("base64")',
        'usernameLabel:"Username or email:",passwordLabel:"Password:",rememberMeLabel:"Remember me:"',
        "put '/passwords/:id' => \"cms/sites/passwords#update\", as: 'password'",
    ],
)
def test_code_between_string_literals_is_not_a_value(engine, text):
    assert not secret_spans(engine, text), [
        (text[s.start : s.end], s.type) for s in secret_spans(engine, text)
    ]


def test_computed_values_in_code_are_not_secrets(engine):
    """pyasn1's ``dhSinglePass_stdDH_sha1kdf_scheme = x9_63_scheme + (2, )``: a name holding "Pass"
    assigned an expression of other names; a scheme is not a secret either."""
    for text in (
        "dhSinglePass_stdDH_sha1kdf_scheme = x9_63_scheme + (2, )",
        "db_password = base_password + suffix",
        "auth_scheme = default_scheme",
    ):
        assert not secret_spans(engine, text), (
            text,
            [(text[s.start : s.end], s.type) for s in secret_spans(engine, text)],
        )
    pw = x("{{alnum:14}}")
    assert covered(engine, f"db_password = {pw}", pw)


def test_random_mixed_case_is_not_a_code_name(engine):
    """A random token that happens to break into short camel-case pieces (``sOnVa9KxBW_MI0XY6AN``:
    s, On, Va9, Kx, BW...) holds no word: it is a value, not a name."""
    text = "the staging key is sOnVa9KxBW_MI0XY6AN, don't commit it"
    assert covered(engine, text, "sOnVa9KxBW_MI0XY6AN")
    text = "database:\n  host: db.internal\n  user: app\n  password: P4wf3RE84X.ipfSnVEX\n"
    assert covered(engine, text, "P4wf3RE84X.ipfSnVEX")


def test_a_hash_sign_in_a_password_is_not_a_route(engine):
    assert covered(engine, "JWT:\n  Secret: 'development#product'\n  exp: '50m'\n", "development#product")
