"""Secrets where they really occur in traces, and the hard negatives that must survive.

Every secret here is made at run time by ``tracepub.fakes`` (valid checksums where the format has
one), planted in a realistic snippet, and must be covered completely by the spans the engine
returns. Every hard negative must come back with no ``secret.*`` span at all.
"""

from __future__ import annotations

import json
import random

import pytest

from tracepub.detect.engine import Engine
from tracepub.detect.registry import DetectConfig, build_detectors
from tracepub.detect.secrets.entropy import ContextEntropy, name_tier
from tracepub.detect.secrets.secrets_ds import DetectSecrets
from tracepub.fakes import expand
from tracepub.model import Leaf

RNG = random.Random(20260312)
TEXT = Leaf("test", ("text",), None, False)


def fake(template: str) -> str:
    return expand(template, RNG)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(DetectConfig(ner=False))


def uncovered(text: str, spans, secret: str) -> str:
    """The part of ``secret`` (first occurrence in ``text``) that no span covers."""
    i = text.index(secret)
    cover = set()
    for s in spans:
        cover.update(range(s.start, s.end))
    return "".join(c for j, c in enumerate(secret, start=i) if j not in cover)


def assert_redacted(engine: Engine, text: str, secrets: list[str], leaf: Leaf = TEXT) -> None:
    spans = engine.scan(text, leaf)
    for secret in secrets:
        left = uncovered(text, spans, secret)
        assert not left, f"{secret!r} not fully covered (left: {left!r}) in:\n{text}\n{spans}"
    # and a secret detector claimed it (after merging, a larger overlapping span may name the type)
    raw = [s for d in engine.detectors for s in d.scan(text, leaf) if s.type.startswith("secret.")]
    for secret in secrets:
        i = text.index(secret)
        assert any(s.start < i + len(secret) and s.end > i for s in raw), secret


def secret_spans(engine: Engine, text: str, leaf: Leaf = TEXT):
    return [
        (s.type, s.detector, text[s.start : s.end])
        for s in engine.scan(text, leaf)
        if s.type.startswith("secret.")
    ]


# --- planted secrets ------------------------------------------------------------------------------


def test_env_dump(engine):
    s = {
        "openai": fake("sk-proj-{{b64url:74}}T3BlbkFJ{{b64url:74}}"),
        "anthropic": fake("sk-ant-api03-{{b64url:93}}AA"),
        "github": fake("{{github:ghp}}"),
        "aws_id": fake("AKIA{{b32:16}}"),
        "aws_secret": fake("{{b64:40}}"),
        "db": fake("{{alnum:18}}"),
        "stripe": fake("sk_live_{{alnum:24}}"),
        "internal": fake("{{alnum:32}}"),
        "hf": fake("hf_{{alpha:34}}"),
    }
    text = (
        "$ env | sort\nHOME=/home/jdoe\nLANG=en_US.UTF-8\nPATH=/usr/local/bin:/usr/bin\n"
        f"OPENAI_API_KEY={s['openai']}\nANTHROPIC_API_KEY={s['anthropic']}\nGITHUB_TOKEN={s['github']}\n"
        f"AWS_ACCESS_KEY_ID={s['aws_id']}\nAWS_SECRET_ACCESS_KEY={s['aws_secret']}\n"
        f"DATABASE_URL=postgres://app:{s['db']}@db.internal:5432/app\nSTRIPE_SECRET_KEY={s['stripe']}\n"
        f"ACME_INTERNAL_SERVICE_TOKEN={s['internal']}\nHF_TOKEN={s['hf']}\nSHLVL=1\nPWD=/home/jdoe/src\n"
    )
    assert_redacted(engine, text, list(s.values()))
    # and nothing else: paths and locale survive
    flagged = "".join(v for _, _, v in secret_spans(engine, text))
    assert "/usr/local/bin" not in flagged and "en_US" not in flagged


def test_dotenv_quotes_and_comments(engine):
    slack, session, pw = (
        fake("xoxb-{{digits:12}}-{{digits:13}}-{{alnum:24}}"),
        fake("{{b64url:48}}"),
        fake("Xy7!{{alnum:12}}"),
    )
    text = (
        "# staging\nNODE_ENV=staging\n"
        f'SLACK_BOT_TOKEN="{slack}"\n'
        f"SESSION_SECRET='{session}'  # rotate monthly\n"
        f"DB_PASSWORD={pw}\nDB_USER=app\n"
    )
    assert_redacted(engine, text, [slack, session, pw])


def test_yaml_toml_json_config(engine):
    pw, tok, hf = fake("p4ss-{{alnum:14}}"), fake("{{alnum:40}}"), fake("hf_{{alpha:34}}")
    yaml = f'database:\n  host: db\n  user: app\n  password: "{pw}"\napi:\n  token: {tok}\nhuggingface:\n  token: {hf}\n'
    assert_redacted(engine, yaml, [pw, tok, hf])

    key, sec = fake("sk-{{alnum:48}}"), fake("{{lowerhex:64}}")
    toml = f'[openai]\napi_key = "{key}"\nmodel = "gpt-4o"\n\n[webhooks]\nsigning_secret = "{sec}"\n'
    assert_redacted(engine, toml, [key, sec])

    client, refresh = fake("GOCSPX-{{b64url:28}}"), fake("1//0{{b64url:100}}")
    js = json.dumps(
        {
            "installed": {
                "client_id": "1234567890-abc.apps.googleusercontent.com",
                "client_secret": client,
                "refresh_token": refresh,
            }
        },
        indent=2,
    )
    assert_redacted(engine, js, [client, refresh])


def test_structured_json_key(engine):
    """The walker hands over a JSON string with its key: the key alone is the context."""
    for key, value in (
        ("client_secret", fake("{{alnum:32}}")),
        ("password", fake("Pa55-{{alnum:10}}")),
        ("apiKey", fake("{{b64url:40}}")),
        ("private_key_id", fake("{{lowerhex:40}}")),
    ):
        assert_redacted(engine, value, [value], Leaf("test", ("x", key), key, False))


def test_curl_headers(engine):
    bearer, apikey, pw, gl = (
        fake("{{b64url:64}}"),
        fake("{{alnum:32}}"),
        fake("{{alnum:16}}"),
        fake("glpat-{{b64url:20}}"),
    )
    text = (
        f'curl -s https://api.example.com/v1/items -H "Authorization: Bearer {bearer}" '
        f"-H 'X-Api-Key: {apikey}' -H 'Accept: application/json'\n"
        f"curl -u admin:{pw} https://jenkins.example.com/api/json\n"
        f'curl --header "PRIVATE-TOKEN: {gl}" https://gitlab.example.com/api/v4/projects\n'
    )
    assert_redacted(engine, text, [bearer, apikey, pw, gl])
    basic = fake("{{basic}}")
    assert_redacted(engine, f"Authorization: Basic {basic}", [basic])


def test_client_code(engine):
    oa, an, gem, groq = (
        fake("sk-proj-{{b64url:74}}T3BlbkFJ{{b64url:74}}"),
        fake("sk-ant-api03-{{b64url:93}}AA"),
        fake("AIza{{b64url:35}}"),
        fake("gsk_{{alnum:52}}"),
    )
    text = (
        "import openai, anthropic\nimport google.generativeai as genai\nfrom groq import Groq\n\n"
        f'client = openai.OpenAI(api_key="{oa}")\n'
        f"claude = anthropic.Anthropic(api_key='{an}')\n"
        f'genai.configure(api_key="{gem}")\n'
        f'groq = Groq(api_key="{groq}")\n'
    )
    assert_redacted(engine, text, [oa, an, gem, groq])


@pytest.mark.parametrize(
    "name", ["npmrc", "pypirc", "netrc", "gh-hosts", "docker", "kubeconfig", "aws", "gcp-sa"]
)
def test_credential_files(engine, name):
    if name == "npmrc":
        tok, auth = fake("{{npm}}"), fake("{{basic}}")
        text = f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={tok}\n//npm.acme.dev/:_auth={auth}\n"
        secrets = [tok, auth]
    elif name == "pypirc":
        tok, pw = fake("pypi-AgEIcHlwaS5vcmc{{b64url:140}}"), fake("{{alnum:8}}-{{alnum:8}}")
        text = f"[distutils]\nindex-servers =\n  pypi\n  private\n\n[pypi]\nusername = __token__\npassword = {tok}\n\n[private]\nrepository = https://pypi.acme.dev\nusername = ci\npassword = {pw}\n"
        secrets = [tok, pw]
    elif name == "netrc":
        pw, tok = fake("{{alnum:14}}"), fake("{{lowerhex:40}}")
        text = f"machine example.com\n  login bob\n  password {pw}\nmachine api.wandb.ai login user password {tok}\n"
        secrets = [pw, tok]
    elif name == "gh-hosts":
        tok = fake("{{github:gho}}")
        text = f"github.com:\n    git_protocol: https\n    users:\n        jdoe:\n            oauth_token: {tok}\n    oauth_token: {tok}\n    user: jdoe\n"
        secrets = [tok]
    elif name == "docker":
        auth, ident = fake("{{basic}}"), fake("{{b64url:64}}")
        text = json.dumps(
            {
                "auths": {"ghcr.io": {"auth": auth}, "registry.acme.dev": {"identitytoken": ident}},
                "credsStore": "desktop",
            },
            indent="\t",
        )
        secrets = [auth, ident]
    elif name == "kubeconfig":
        tok, key = fake("{{jwt}}"), fake("{{pemb64:RSA}}")
        ca = (
            "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM1ekNDQWMrZ0F3SUJBZ0lCQURBTkJna3Foa2lHOXcwQkFRc0ZBREFW"
        )
        text = (
            f"apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: {ca}\n    server: https://10.0.0.1:6443\n"
            f"  name: prod\nusers:\n- name: admin\n  user:\n    token: {tok}\n- name: cert-user\n  user:\n"
            f"    client-certificate-data: {ca}\n    client-key-data: {key}\n"
        )
        secrets = [tok, key]
    elif name == "aws":
        sec, sess = fake("{{b64:40}}"), fake("IQoJb3JpZ2luX2Vj{{b64:300}}")
        kid = fake("ASIA{{b32:16}}")
        text = f"[default]\naws_access_key_id = {kid}\naws_secret_access_key = {sec}\naws_session_token = {sess}\nregion = eu-west-1\n"
        secrets = [kid, sec, sess]
    else:  # a Google service-account JSON
        kid, pem = fake("{{lowerhex:40}}"), fake("{{pem:PKCS8}}")
        text = json.dumps(
            {
                "type": "service_account",
                "project_id": "acme-prod",
                "private_key_id": kid,
                "private_key": pem,
                "client_email": "ci@acme-prod.iam.gserviceaccount.com",
                "client_id": "104937221055660000000",
                "auth_uri": "https://accounts.google.com/o/oauth2/auth",
                "token_uri": "https://oauth2.googleapis.com/token",
            },
            indent=2,
        )
        secrets = [kid, json.dumps(pem)[1:-1].removesuffix("\\n")]  # as the text holds it: JSON-escaped
    assert_redacted(engine, text, secrets)
    # the surrounding structure is kept
    kept = text
    for s in engine.scan(text, TEXT):
        kept = kept[: s.start] + "\0" * (s.end - s.start) + kept[s.end :]
    for word in (
        "registry",
        "username",
        "login",
        "oauth_token",
        "auths",
        "certificate-authority-data",
        "aws_access_key_id",
        "client_email",
    ):
        if word in text:
            assert word in kept


def test_urls_and_git_remotes(engine):
    pw, rpw, ghs, gl, ghp = (
        fake("{{alnum:20}}"),
        fake("{{alnum:24}}"),
        fake("{{github:ghs}}"),
        fake("glpat-{{b64url:20}}"),
        fake("{{github:ghp}}"),
    )
    text = (
        f"MONGO_URI=mongodb+srv://svc:{pw}@cluster0.ab1cd.mongodb.net/prod?retryWrites=true\n"
        f"redis://:{rpw}@cache.internal:6379/0\n"
        f"$ git remote -v\norigin\thttps://x-access-token:{ghs}@github.com/acme/api.git (fetch)\n"
        f"upstream\thttps://oauth2:{gl}@gitlab.com/acme/api.git (push)\n"
        f"git clone https://{ghp}@github.com/jdoe/private.git\n"
    )
    assert_redacted(engine, text, [pw, rpw, ghs, gl, ghp])


def test_private_keys(engine):
    for kind in ("RSA", "OPENSSH", "EC", "PKCS8"):
        pem = fake("{{pem:" + kind + "}}")
        assert_redacted(engine, f"$ cat ~/.ssh/id_key\n{pem}$ ls\n", [pem.strip()])
        escaped = json.dumps(pem)[1:-1]  # inside JSON text that was not decoded
        assert_redacted(engine, f'{{"output": "{escaped}"}}', [escaped.removesuffix("\\n")])


def test_json_encoded_tool_argument(engine):
    """Codex / OpenAI tool calls carry arguments as a JSON string; when it reaches a detector
    undecoded, the KEY=value lines sit behind \\n escapes."""
    key, tok = fake("sk-{{alnum:48}}"), fake("{{alnum:36}}")
    args = json.dumps(
        {
            "cmd": ["bash", "-lc", f"cat .env\nOPENAI_API_KEY={key}\nACME_DEPLOY_TOKEN={tok}\nDEBUG=1"],
            "workdir": "/srv/app",
        }
    )
    assert_redacted(engine, args, [key, tok])
    assert_redacted(engine, json.dumps({"arguments": args}), [key, tok])


def test_token_pasted_in_prompt(engine):
    tok, xai = fake("{{github:ghp}}"), fake("xai-{{alnum:80}}")
    text = f"here is my github token {tok} and the grok key {xai}, please push the branch"
    assert_redacted(engine, text, [tok, xai], Leaf("test", ("message",), "text", True))
    # no known shape: the secret word earlier in the sentence is the context
    basic, pw = fake("{{basic:24}}"), fake("{{alnum:10}}.{{alnum:8}}")
    text = f"here's the key, use it for the test run: {basic} (expires friday)\nexport DB_PASSWORD={pw} && npm run deploy"
    assert_redacted(engine, text, [basic, pw], Leaf("test", ("message",), "text", True))


@pytest.mark.parametrize(
    "template",
    [
        "sk-or-v1-{{lowerhex:64}}",
        "pplx-{{alnum:48}}",
        "r8_{{alnum:37}}",
        "lsv2_pt_{{lowerhex:32}}_{{lowerhex:10}}",
        "pcsk_{{alnum:6}}_{{alnum:63}}",
        "nvapi-{{b64url:64}}",
        "tvly-{{alnum:32}}",
        "sk-ant-oat01-{{b64url:93}}AA",
        "dop_v1_{{lowerhex:64}}",
        "xapp-1-{{upperdigits:11}}-{{digits:13}}-{{lowerhex:64}}",
        "SG.{{b64url:22}}.{{b64url:43}}",
        "shpat_{{lowerhex:32}}",
        "hvs.{{b64url:95}}",
        "{{age}}",
        "dckr_pat_{{b64url:27}}",
        "AKCp{{alnum:69}}",
    ],
)
def test_prefixed_tokens_anywhere(engine, template):
    tok = fake(template)
    assert_redacted(engine, f"output: {tok}\n", [tok])


# --- hard negatives -------------------------------------------------------------------------------

NEGATIVES = {
    "git log": "commit 3f2a9c1b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a\nAuthor: Jane Doe <jane@example.com>\n\n    Fix token refresh\n\n"
    "$ git rev-parse HEAD\n9fceb02d0ae598e95dc970b74767f19372d61af8\n$ git log --oneline\n1a2b3c4 key rotation\n",
    "sha256sum": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  secret_key.txt\n",
    "uuids": '{"sessionId": "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a11", "uuid": "c1a0e7b2-0001-4f00-8000-000000000001", '
    '"requestId": "req_011CVr5n7aQwZ3xYk4mN2pL8", "tool_use_id": "toolu_01A09q90qw90lq917835lq9"}',
    "ulid": "id=01ARZ3NDEKTSV4RRFFQ69G5FAV event=token.refreshed",
    "package-lock": '"node_modules/left-pad": {\n  "version": "1.3.0",\n  "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",\n'
    '  "integrity": "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQcwu1j/iqh0k0V2x8eTHXnKAw8ZDZLkr6EnrM4uIXOAA4YJw==",\n'
    '  "shasum": "e7bda2f8a0c7c0d4de8b8ff6b1d2bc3e6f5d0a11"\n}',
    "yarn.lock": 'left-pad@^1.3.0:\n  version "1.3.0"\n  integrity sha1-W4o6d2Xf4AEmHd6RVYnngvjJTR4=\n',
    "go.sum": "golang.org/x/crypto v0.21.0 h1:X31++rzVUdKhX5sWmSOFZxx8UW/ldWx55cbf08iNAMA=\n"
    "golang.org/x/crypto v0.21.0/go.mod h1:0BP0Qh7PJ3p7yQXqW+8a4kDQ0P2jOw+TfTqFRoJbJcg=\n",
    "poetry/cargo": 'files = [{file = "requests-2.31.0.tar.gz", hash = "sha256:942c5a758f98d790eaed1a29cb6eefc7ffb0d1cf7af05c3d2791656dbd6ad1e1"}]\n'
    '[[package]]\nname = "serde"\nchecksum = "3fb1c873e1b9b056a4dc4c0c198b24c3ffa059243875552b2bd0933b1aee4ce2"\n',
    "docker digests": "FROM python:3.12-slim@sha256:2be8daddbb82756f7d1f2c7ece706aadcb284bf6ab6d769ea695cc3ed6016743\n"
    '"Digest": "sha256:9b2a28eb47540823042a2ba401386845089bb7b62a9637d55816132c4c3c36eb"\n',
    "ssh public keys": "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQC7vbqajDhA3aOm6nHEnPq0G7X1s9nO2hFNx6b3Ck9dyqMpQIDAQAB jdoe@laptop\n"
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl jdoe@host\n"
    "github.com ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEmKSENjQEezOmxkZMy7opKgwFB9nkt5YRrYMjNuG5N87uRgg6CLrbo5wAdT/y6v0mKV0U2w0WZ2YB/++Tpockg=\n",
    "public key pem": "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----\n"
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----\n",
    "kube ca": "    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM1ekNDQWMrZ0F3SUJBZ0lCQURBTkJna3Foa2lHOXcwQkFRc0ZBREFW\n",
    "base64 data": "$ base64 logo.png | head -2\niVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg\n"
    "H4sIAAAAAAAAA+3OMQ6CQBCF4T2FJ4g2Wrq7sYDxAt4gR7CKO4HuN4m2wu7/vlmZ4dUAAAAAAAAAAAAAAPg1\n",
    "placeholders": 'OPENAI_API_KEY=YOUR_API_KEY\nexport GITHUB_TOKEN=${GITHUB_TOKEN}\ncurl -H "Authorization: Bearer $TOKEN" -H "X-Api-Key: <your-api-key>" https://x\n'
    'password: changeme\napi_key: "xxxxxxxxxxxxxxxxxxxxxxxx"\ntoken: ${{ secrets.GH_TOKEN }}\n'
    'AWS_SECRET_ACCESS_KEY=...\n"api_key": "<API_KEY>"\nDB_PASSWORD=%(db_password)s\nANTHROPIC_API_KEY=sk-ant-...\n'
    # a vendor's prefix with a masked body is a stand-in only bare, with no place (in one it is
    # redacted: tests/test_detect_secrets_masks.py)
    "SLACK_TOKEN=xoxb-your-token-here\nOpenAI keys look like sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
    "doc examples": "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    "AWS_ACCESS_KEY_ID=AKIAI44QH8DHBEXAMPLE\nAWS_SECRET_ACCESS_KEY=je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY\n"
    "stripe.api_key = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'\n",
    "code": 'api_key = os.environ["OPENAI_API_KEY"]\ntoken = response.json()["access_token"]\nresp = client.chat(max_tokens=4096)\n'
    'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")\npassword_field = forms.CharField(widget=forms.PasswordInput)\n'
    "secret = get_secret(name)\nconst apiKey = process.env.OPENAI_API_KEY;\nPASSWORD_MIN_LENGTH = 12\n"
    'headers = {"Authorization": f"Bearer {token}"}\nif key == "ArrowDown": move()\ncache_key = f"user:{uid}:profile"\n'
    "self.password = config['password']\nsession_token_ttl = 3600\n",
    "claude usage": '{"usage": {"input_tokens": 3, "cache_creation_input_tokens": 1684, "output_tokens": 512}, '
    '"stop_reason": "end_turn", "id": "msg_01XFDUDYJgAACzvnptvVoYEL"}',
    "prose": "The token bucket algorithm refills at a fixed rate. Use a password manager and rotate the API key "
    "every 90 days. Authorization: required for admin routes. The secret sauce is caching.",
}


@pytest.mark.parametrize("name", sorted(NEGATIVES))
def test_hard_negatives_survive(engine, name):
    text = NEGATIVES[name]
    assert secret_spans(engine, text) == []


def test_hard_negatives_as_structured_json(engine):
    for key, value in (
        ("sha", "3f2a9c1b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"),
        ("integrity", "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQcwu1j=="),
        ("sessionId", "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a11"),
        ("public_key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0"),
        ("key", "3f2a9c1b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"),
        ("api_key", "YOUR_API_KEY"),
        ("token", "Hello"),
        ("max_tokens", "4096"),
        ("next_page_token", "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA3"),
        ("key", "settings.profile.title"),
        ("password", "********"),
        ("auth", "bearer"),
    ):
        assert secret_spans(engine, value, Leaf("test", ("x", key), key, False)) == [], (key, value)


# --- detector details ---------------------------------------------------------------------------


def test_name_tiers():
    assert name_tier("DB_PASSWORD") == name_tier("PGPASSWORD") == name_tier("MYSQL_PWD") == 3
    assert name_tier("OPENAI_API_KEY") == name_tier("client_secret") == name_tier("_authToken") == 2
    assert name_tier("AZURE_DEVOPS_PAT") == name_tier("GITHUB_PAT") == 2
    assert name_tier("client-key-data") == name_tier("private_key_id") == 2
    assert name_tier("key") == name_tier("_auth") == 1
    for name in (
        "max_tokens",
        "token_count",
        "public_key",
        "next_page_token",
        "PWD",
        "api_key_header",
        "TOKEN_URL",
        "certificate-authority-data",
        "password_reset_url",
        "cache_key",
        "tokenizer",
        "keyboard",
        "author",
        "path",
        "pattern",
        "PAT",
    ):
        assert name_tier(name) == 0, name


def test_detect_secrets_agrees_with_filters():
    ds = DetectSecrets()
    sha, uuid = "3f2a9c1b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a", "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a11"
    for text in (
        f'password = "{sha}"',
        f"secret: {uuid}",
        f'db_key = "{sha}"',
        'password = "${DB_PASSWORD}"',
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ):
        assert ds.scan(text, TEXT) == [], text
    pw = fake("Zq8!{{alnum:14}}")
    text = f'db_password = "{pw}"'
    assert [text[s.start : s.end] for s in ds.scan(text, TEXT)] == [pw]
    assert ds.scan("def add(a, b):\n    return a + b\n" * 50, TEXT) == []  # no gate word: nothing runs


def test_detect_secrets_windows_and_value_gate():
    """Lines scanned together (``scan_windows``) find what each line alone finds; the IBM Cloud
    IAM plugin still runs where a 44-character value can be."""
    ds = DetectSecrets()
    assert any(v is not None for v in ds._values)  # the gate exists for the installed plugin
    key = fake("{{alnum:20}}_{{alnum:23}}")
    lines = [
        f'ibm_cloud_iam_key = "{key}"',
        "nothing here",
        f'db_password = "{fake("Zq8!{{alnum:14}}")}"',
        "token = short",
        f"auth_token: {key}",
    ]
    text = "\n".join(lines)
    starts = [sum(len(x) + 1 for x in lines[:k]) for k in range(len(lines))]
    windows = [(a, a + len(x)) for a, x in zip(starts, lines, strict=True)]
    alone = [
        (s.start + a, s.end + a, s.type, s.detector) for a, b in windows for s in ds.scan(text[a:b], TEXT)
    ]
    together = [(s.start, s.end, s.type, s.detector) for s in ds.scan_windows(text, windows, TEXT)]
    assert together == alone
    assert {text[a:b] for a, b, *_ in together} >= {key}


def test_entropy_needs_context():
    det = ContextEntropy()
    value = fake("{{alnum:40}}")
    assert det.scan(f"value = {value}", TEXT) == []
    assert det.scan(f"output: {value}", TEXT) == []
    assert [f"{value}"] == [
        f"API_TOKEN={value}"[s.start : s.end] for s in det.scan(f"API_TOKEN={value}", TEXT)
    ]


def test_publish_rescan_uses_precise_rules_only():
    high = Engine(DetectConfig(high_confidence_only=True))
    assert all(d.high_confidence for d in high.detectors)
    ghp, mistral = fake("{{github:ghp}}"), fake("{{alnum:32}}")
    assert high.scan(f"token {ghp}", TEXT)
    assert not high.scan(f"MISTRAL_API_KEY={mistral}", TEXT)  # a context rule: guides redaction, never blocks
    assert not high.scan(f"API_TOKEN={mistral}", TEXT)
    full = build_detectors(DetectConfig(ner=False, detect_secrets=False))
    assert {d.name for d in full} >= {"pattern", "entropy"}


# --- the whole pipeline ------------------------------------------------------------------------------


def _claude_line(kind: str, content, uuid_: str, parent: str | None) -> str:
    rec = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/srv/app",
        "sessionId": "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a11",
        "version": "2.1.74",
        "type": kind,
        "message": {"role": "assistant" if kind == "assistant" else "user", "content": content},
        "uuid": uuid_,
        "timestamp": "2026-03-12T13:17:35.480Z",
    }
    return json.dumps(rec)


def test_pipeline_planted_secrets_do_not_leak(tmp_path):
    from tracepub.run.pipeline import run
    from tracepub.runtypes import RunOptions

    gh, oa, pw, pem, aws = (
        fake("{{github:ghp}}"),
        fake("sk-proj-{{b64url:74}}T3BlbkFJ{{b64url:74}}"),
        fake("{{alnum:20}}"),
        fake("{{pem:OPENSSH}}"),
        fake("{{b64:40}}"),
    )
    sha = "9fceb02d0ae598e95dc970b74767f19372d61af8"
    tool_json = json.dumps({"env": f"OPENAI_API_KEY={oa}\nDEBUG=1", "cwd": "/srv/app"})
    lines = [
        _claude_line("user", [{"type": "text", "text": f"push with my token {gh} please"}], "u1", None),
        _claude_line(
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "Bash",
                    "input": {"command": f"git push https://x-access-token:{gh}@github.com/acme/api.git"},
                }
            ],
            "a1",
            "u1",
        ),
        _claude_line(
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01",
                    "content": f"{tool_json}\n[main {sha[:7]}] done\ncommit {sha}",
                }
            ],
            "u2",
            "a1",
        ),
        _claude_line(
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_02",
                    "content": f"DB_PASSWORD={pw}\naws_secret_access_key = {aws}\n{pem}",
                }
            ],
            "u3",
            "u2",
        ),
    ]
    src = tmp_path / "projects" / "-srv-app" / "8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a11.jsonl"
    src.parent.mkdir(parents=True)
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    summary = run(RunOptions(out=out, sources=[src], detect=DetectConfig(ner=False), jobs=1))
    assert summary.files == 1

    written = "\n".join(
        p.read_text(encoding="utf-8", errors="replace") for p in out.rglob("*") if p.is_file()
    )
    for secret in (gh, oa, pw, aws, pem.split("\n")[1]):
        for form in (secret, json.dumps(secret)[1:-1]):
            pieces = [form[i : i + 16] for i in range(0, max(1, len(form) - 15))]
            leaked = [p for p in pieces if p in written]
            assert not leaked, f"piece of a planted secret left: {leaked[:3]}"
    dataset = "\n".join(p.read_text(encoding="utf-8") for p in (out / "dataset").rglob("*.jsonl"))
    assert sha in dataset  # the git SHA is kept
    assert "<SECRET_" in dataset
    for line in dataset.splitlines():
        json.loads(line)  # still valid JSONL


@pytest.mark.parametrize("length", [16, 20, 24, 32])
def test_random_hex_keys_of_every_length_are_found_in_their_places(engine, length):
    """Random hex has less entropy per character than base62: a floor set for base62 turned away a
    third of random 20-character hex keys (filters.entropy_floor's hex floor)."""
    rng = random.Random(length)
    for _ in range(150):
        key = "".join(rng.choice("0123456789abcdef") for _ in range(length))
        for text in (f"API_KEY={key}", f'headers={{"Authorization": "Bearer {key}"}}'):
            engine.start_unit()
            assert key in [text[s.start : s.end] for s in engine.scan(text, TEXT)], text
