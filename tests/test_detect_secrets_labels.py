"""Places found missing on a third outside suite (Kingfisher's rule examples, bench/recall_np.py
--suite kingfisher): a vendor's name and a secret word as a label before the value
(``detect/secrets/labels.py``), comparisons against a secret-named field, PHP bare words, URL
passwords holding ``@``, multi-host URLs, and vendor prefixes without a rule before. Each case
plants a fake value of the right shape (``tracepub.fakes`` templates) and checks through
``Engine.scan`` that the whole value is covered; the look-alikes must give no ``secret.*`` span.
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


# (text with {v}, value template)
CASES = {
    "label-blank": ("carboninterface SECRET {v}", "{{alnum:20}}"),
    "label-lower": ("nuget secret {v}", "{{lowerdigits:24}}"),
    "label-weak-private": ("pandadoc PRIVATE {v}", "{{alnum:20}}"),
    "label-weak-key": ("detectlanguage KEY {v}", "{{alnum:20}}"),
    "label-glued-colon": ("sportsmonkPRIVATE:{v}", "{{alnum:24}}"),
    "label-glued-camel": ("apolloSecretTOKEN {v}", "{{alnum:22}}"),
    "label-apikey": ("apolloAPIKEY {v}", "{{alnum:22}}"),
    "label-dashes": ("hellosign-PRIVATE-key-{v}", "{{alnum:30}}"),
    "label-base64": ("d7networkACCESS {v}==", "{{alnum:20}}"),
    "label-lines": ("visualcrossing\nPRIVATE \n{v}\n", "{{alnum:24}}"),
    "label-two-words": ("upcdatabase ACCESS KEY {v}", "{{upperdigits:32}}"),
    "label-hex-strong": ("owlbot TOKEN {v}", "{{lowerhex:40}}"),
    "label-uuid-glued-lower": ("codatoken-{v}", "{{uuid}}"),
    "label-digits-strong": ("vercel SECRET {v}", "{{digits:24}}"),
    "label-json-escaped": ('{{"note": "zonka\\nSECRET {v}\\n"}}', "{{alnum:24}}"),
    "compare-secret": ('if creds.Secret != "{v}" {{', "{{lower:5}}-{{lower:6}}"),
    "compare-secret-eq": ("if (cfg.client_secret == '{v}') return", "{{lower:6}}_{{lower:5}}"),
    "php-bareword": ("\\r\\n\\t\\t$password = {v};\\r\\n", "{{lower:9}}"),
    "url-password-at": (
        'CONNECTION_URI="postgis://postgres:{v}@db.example.com:5434/geo"',
        "{{alnum:6}}@{{alnum:4}}",
    ),
    "url-multihost": ("postgresql://app:{{lower:9}}@h1:5432,app:{v}@h2:5433/db", "{{lower:10}}"),
    "salesforce": ("export SF_ACCESS_TOKEN={v}", "00D{{alnum:12}}!AQ{{alnum:96}}"),
    "teamwork": ("teamwork {v}", "tkn.v1_{{alnum:71}}="),
    # a vendor's test key of its format: a run, a count, a fill (values.typed_token's stance)
    "label-short-typed": ("ipinfo private token {v}", "abcdef12345678"),
    "label-short-typed-assigned": ("ipinfo_secret key={v}", "{{upper:5}}1234567890"),
    "label-weak-letters-run": ("glassnode KEY {v}", "abcdefghijklmnopqrstuvwxyzA"),
    "label-weak-letters-lines": ("visualcrossing\nKEY\n{v}\n", "ABCDEFGHIJKLMNOPQRSTUVWXY"),
    "label-weak-digits": ("planyo_key={v}", "{{digits:40}}"),
    "label-weak-digits-blank": ("mixmax_key = {v}", "123456789012345678901234567890123456"),
    "label-glued-after-assign": ("versioneye_key=versioneyeSECRETkey-{v}", "{{digits:40}}"),
    "name-glued-apikey": ("openweatherapikey={v}", "{{lowerhex:32}}"),
    "label-access-glued-lower": ("speechtextaccess-{v}", "{{lowerhex:32}}"),
    "label-short-weak": ("eagleeyenetworks ACCESS {v}", "{{alnum:5}}1234567890"),
    "label-dotted-token-part": (
        "shipday_secret {v}",
        "abc.def.{{lower:3}}123{{lower:3}}456{{lower:6}}7890123",
    ),
    "assign-dotted-token-part": ("shipday_token = {v}", "abc.def.ghi456{{lowerdigits:20}}123456"),
    "label-long-letter-part": ("tickettailor key {v}", "sk_5678_234567_{{lower:36}}"),
    "label-long-key": ("paperformSECRET-{v}", "{{alnum:1040}}"),
    # a bearer value with the characters real tokens hold beyond RFC 6750's (the whole value goes)
    "bearer-colon": (
        'curl -H "Authorization: Bearer {v}" https://app.asana.com',
        "1/{{digits:16}}:{{lowerhex:32}}",
    ),
    "bearer-bang": ("Authorization: Bearer {v}", "00D{{alnum:12}}!AQ{{alnum:96}}"),
    "bearer-percent": (
        "Authorization: Bearer {v}",
        "AAAAAAAAAAAAAAAAAAAAA{{alnum:20}}%2F{{alnum:8}}%3D{{alnum:40}}",
    ),
    "auth-header-colon": ("Authorization: Token {v}", "{{alnum:12}}:{{alnum:30}}"),
    # a weak word inside a secret's name assigned a value: the name's place reads it whole
    "assigned-name-weak-word": ("ASANA_ACCESS_TOKEN='{v}'", "1/{{digits:16}}:{{lowerhex:32}}"),
    "assigned-name-private": ('STRIPE_PRIVATE_KEY="{v}"', "{{alnum:20}}!{{alnum:20}}"),
    # a dotted password whose parts are no names (bufferParser.readString stays code)
    "yaml-dotted-password": ("database:\n  user: app\n  password: {v}\n", "{{alnum:10}}.{{alnum:8}}"),
    # prose that says a value was set ("I set the token to V")
    "prose-set-to": ("I set the token to {v} in your .env.", "{{alnum:32}}"),
    "prose-updated-to": ("I updated the API key to {v} for you", "{{alnum:32}}"),
    # prose that gives a password after the word (a password: letters with a digit or a sign)
    "prose-password-for": ("Here is the password for the staging DB: {v}", "{{alnum:9}}!{{digits:2}}"),
    "prose-password-for-is": ("the password for admin is {v}", "{{alnum:10}}#"),
    "prose-password-changed-to": ("The password was changed to {v} yesterday", "{{alnum:6}}!{{alnum:4}}"),
    # a password piped into a command that reads it from stdin
    "piped-sudo": ("echo '{v}' | sudo -S apt-get install -y nginx", "{{alnum:14}}"),
    "piped-password-stdin": ("echo {v} | docker login -u ci --password-stdin ghcr.io", "{{alnum:20}}"),
    "label-dotted-mixed-parts": (
        "formbucket SECRET {v}",
        "{{lower:3}}123.{{lower:3}}456.{{lower:3}}789-{{lower:3}}",
    ),
    "ubidots": ("token: {v}", "BBFF-{{alnum:30}}"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_label_place_is_redacted_whole(engine, name):
    template, value_template = CASES[name]
    value = expand(value_template, RNG)
    text = template.replace("{v}", value)
    text = expand(text, RNG)
    assert covered(engine, text, value), (name, text, secret_spans(engine, text))


LOOK_ALIKES = [
    "private String foo = bar;",
    "the access token below is used for the next request",
    "private static final String ACCESS_MODE_READ_ONLY_FOR_TESTS = mode;",
    "the monkey 1aB2cD3eF4gH5iJ6kL7m went home",
    "tokens 1aB2cD3eF4gH5iJ6kL7m were counted",
    "to-create-a-custom-key-store-to-its-cloudhsm-cluster-1628626947750",
    "to-create-a-custom-key-store-1628627769469",
    '"hostname" : "access-analyzer.eu-west-1.api.aws",',
    "forge.pki.privateKey.forge.pkcs5.pbkdf2",
    "pkcs_9_at_userPKCS12",
    # no vendor's name before a weak label: a word of code or prose
    "primary KEY abcdefghijklmnopqrstuvwxyzA",
    "order_key = 123456789012345678901234",
    "the KEY ABCDEFGHIJKLMNOPQRSTUVWXYZ was pressed",
    "user_key = 123456789012345678901234",
    "glassnode KEY someLongIdentifierNameHere",
    "aa_keyPackageReceivers_v2['attrType'] = id_kma_keyPkgReceiversV2",
    "fileaccess-3456cdef7890abcd1234f67e8901abcd",
    "token = self.config.api_token",
    "see Bearer https://tools.ietf.org/html/rfc6750 for the scheme",
    "echo 'done' | sudo -S true",
    "# set the token to None before retrying",
    "the password for admin is incorrect",
    "if password is None:",
    "for password in passwords: print(password)",
    "the password is at least 12 chars",
    "password for user1 is stored in vault",
    "we set the key to 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a",
    "set the auth to basic_authentication_handler",
    'echo "$SUDO_PASSWORD" | sudo -S apt update',
    "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=host",
    "queue limit token: job=2434ff47a7ec9d8a attempt=2",
    "ssh key 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
    "the secret KeyboardInterruptHandler",
    "if token == 'function':",
    "if (secret !== undefined) {",
    "if (!arguments.length) return x;",
    "$password = $request->input('password');",
    # gitleaks' look-alikes: a CSRF token, a public token, Pulumi's fn::secret over a redacted value
    "csrf-token=Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuyOuxmiW9rhROG/Whikle15syazJOkrjJa3U2AbhIvUw==",
    'publicToken = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"',
    "        serviceAccountToken:\n          fn::secret: ops_eyJzaWduSW5B..[Redacted]",
    # base64 lines of a certificate holding KEY / KEy by chance (cacert.pem, cryptography's docs)
    "VSJYACPq4xJDKVtHCN2MQWplBqjlIapBtJUhlbl90TSrE9atvNziPTnNvT51cKEY\nWQPJIrSPnNVeKtelttQKbfi3QBFGmh95DmK/D5fs4C8fF5Q=",
    "    cDNxABlvVNPTnqkOhKBmmwRaBwdvvksgeu2RyBNR0KEy44gWzYB9/Ter2t4Z8ASq",
    "Q/d8JXN/MLyQrk+SECRETx9F5JMy+HuZAgefAQAjugC6389Klpqx2Z1CgwmALhjIs48GnMp",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alike_is_kept(engine, text):
    assert secret_spans(engine, text) == [], text
