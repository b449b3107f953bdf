"""What a name says about the value it holds: the tiers of secret-like names.

A variable, key or flag name is split into words (``OPENAI_API_KEY``, ``apiKey``, ``db.password``)
and read whole: *password* names (``password``, ``passwd``, ``DB_PASS``), *strong* ones (``secret``,
``token``, ``api_key``, ``client_secret``), *weak* ones (``key``, ``auth``), and names that
describe a secret without holding one (``token_count``, ``max_tokens``, ``public_key``,
``key_down_event``): tier 0. Shared by the context entropy detector and detect-secrets' keyword
plugin (whose keyword may sit inside a name that says otherwise: ``LLM_SECRET_NAME``).
"""

from __future__ import annotations

import re
from functools import lru_cache

PASSWORD, STRONG, WEAK = 3, 2, 1


# Words that end a name describing, not holding, a secret.
_NOT_SECRET_LAST = frozenset(
    """id ids name names type types file files path paths dir directory folder url urls uri uris
    endpoint endpoints host hostname port length len size count counts min max limit limits
    expiry expires expiration expired ttl timeout lifetime enabled enable disabled required
    optional format prefix suffix field fields header headers env var vars variable param params
    usage hint hints help label labels description desc placeholder pattern regex validator
    policy version kind mode method methods algorithm alg scheme schemes scope scopes provider providers source
    store manager helper command cmd script reset changed updated created rotation strength
    location region index idx hash hashed sha md5 digest checksum fingerprint fingerprints len
    class schema option options config settings setting status state flag flags error errors
    message msg prompt title text template tmpl example examples sample test tests spec specs
    handler callback func function fn cache cached exists valid invalid validation
    at on date time timestamp ms seconds secs days issuer audience user username login email
    owner dialog modal input button form page view route link docs doc info meta metadata details
    struct st ptr ref refs obj used""".split()
)
# Words anywhere in a name that make it non-secret.
_NOT_SECRET_ANY = frozenset(
    "public pub publishable fingerprint tokenizer tokenize tokenized tokens keys keyboard keyword keywords "
    "keystroke keypress keydown keyup keycode passed passing bypass passthrough passenger compass secrets jsonwebtoken "
    "author authors authority authorities authored authoring authz oauth2_redirect".split()
)
# Words before "token" that make it something else (pagination, LLM vocabularies, protocol).
_TOKEN_NOT = frozenset(
    """page next prev previous continuation cursor sync idempotency request correlation trace
    span event message cancellation cancel progress eos bos pad unk sep cls mask start end stop
    special input output prompt completion reasoning cached total max num count usage image
    audio text vocab word sentence lexer parser csrf xsrf authenticity resume ws""".split()
)
# Words before "key" that make it an identifier, not a credential.
_KEY_NOT = frozenset(
    """primary foreign sort partition cache dict map hash lookup index unique composite row column
    object field react idempotency public pub ssh gpg pgp host shortcut hot label translation result results
    limit marker more
    i18n group route query config setting settings registry json yaml dedup dedupe s3 bucket
    file path storage redis memcache kv item entry record node element list table order
    cursor state store local localstorage event message metric metrics tag tags
    feature flag experiment cluster shard tenant env attribute attr prop property
    dimension""".split()
)
# "key" preceded by one of these is a credential even with nothing else in the name.
_KEY_STRONG = frozenset(
    """api access secret private priv client signing sign encryption encrypt enc decryption
    master license licence app application service account auth session consumer webhook root
    admin deploy subscription server write read ingest integration sdk mobile hmac jwt aes
    crypto cipher shared rest management personal live prod production sandbox test dev
    secret_access openai anthropic stripe github gitlab slack google gemini groq mistral
    cohere together fireworks perplexity deepseek xai replicate elevenlabs pinecone langsmith
    langchain wandb huggingface hf aws azure gcp firebase supabase sentry datadog twilio
    sendgrid mailgun algolia mapbox""".split()
)
# The end of one word that is a strong name whatever is glued before it (a vendor's name).
_GLUED_STRONG = ("apikey", "secretkey", "accesskey", "privatekey")
_PASS_COMPOUNDS = frozenset(
    {"dbpass", "pgpass", "mysqlpass", "userpass", "keypass", "smtppass", "mailpass", "rootpass", "adminpass"}
)
_PASSWORD_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "passwort",
    "contrasena",
    "contraseña",
    "senha",
)
# Words that may follow a weak secret word (``key``, ``auth``) in a name that still holds it:
# ``KEY_B64``, ``auth_value``, ``key_prod``.
_QUALIFIERS = frozenset(
    """value val str string b64 base64 hex raw data bytes prod production dev development test staging stage live
    local new old current enc encoded plain env default main secret token pass password key auth v""".split()
)
# Full names that are secrets though their last word says otherwise.
_STRONG_NAMES = frozenset(
    {
        "private_key_id",
        "client_key_data",
        "secret_key_base",
        "secret_id",
        "client_secret_id",
        "docker_auth_config",
    }
)


def _product(word: str) -> bool:
    """A word no English text uses (wordfreq knows it not at all), of five letters or more: a product's
    name (``diffbot_key``, ``ipstack_key``), whose key is its API key, hex or UUID as its vendor makes it.
    An identifier's words (``_KEY_NOT``: ``cache``, ``dedup``, ``idempotency``) are ruled out before."""
    from wordfreq import zipf_frequency

    return len(word) >= 5 and word.isalpha() and zipf_frequency(word, "en") == 0


_SPLIT_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[^A-Za-z0-9ñ]+")


def words(name: str) -> list[str]:
    """The words of a name, lower case; a number ending a secret word is a counter (``token4``,
    ``access_token2``), not part of what the word says (``b64``, ``sha256`` keep theirs)."""
    out = []
    for w in _SPLIT.split(_SPLIT_CAMEL.sub("_", name).lower()):
        if w:
            bare = w.rstrip(_DIGITS)
            out.append(bare if bare != w and bare.endswith(_COUNTED) else w)
    return out


_DIGITS = "0123456789"
_COUNTED = (
    "token",
    "key",
    "secret",
    "pass",
    "password",
    "passwd",
    "pwd",
    "auth",
    "pat",
    "cred",
    "credential",
    "credentials",
)


@lru_cache(maxsize=8192)
def name_tier(name: str) -> int:
    """How strongly a variable / key / flag name says its value is a secret (0: not at all)."""
    ws = words(name)
    if not ws:
        return 0
    joined = "_".join(ws)
    if joined in _STRONG_NAMES:
        return STRONG
    if ws[-1] in _NOT_SECRET_LAST or any(w in _NOT_SECRET_ANY for w in ws):
        return 0
    tier = 0
    for i, w in enumerate(ws):
        prev = ws[i - 1] if i else ""
        if any(p in w for p in _PASSWORD_WORDS) or w in ("pass", "pw") or w in _PASS_COMPOUNDS:
            return PASSWORD
        if w.endswith("pwd") and (w != "pwd" or len(ws) > 1) and w != "oldpwd":
            return PASSWORD  # MYSQL_PWD, dbpwd; a lone PWD is the working directory
        if "secret" in w and not w.startswith("secretar"):
            tier = max(tier, STRONG)
        elif w == "token" or (w.endswith("token") and w != "token"):
            if prev not in _TOKEN_NOT and w[:-5] not in _TOKEN_NOT:
                tier = max(tier, STRONG)
        elif w in (
            "apikey",
            "apitoken",
            "accesskey",
            "privatekey",
            "secretkey",
            "authkey",
            "authtoken",
            "credential",
            "credentials",
            "creds",
            "cred",
            "bearer",
            "apisecret",
            "clientsecret",
            "signingkey",
            "masterkey",
            "sessionkey",
            "encryptionkey",
            "licensekey",
        ):
            tier = max(tier, STRONG)
        elif w == "key":
            if prev in _KEY_NOT:
                continue
            if prev not in _KEY_STRONG and any(x not in _QUALIFIERS for x in ws[i + 1 :]):
                continue  # key_down_event, BlindKeySignatures, None_KeyMeshing: the name is about something else
            tier = max(tier, STRONG if prev in _KEY_STRONG or (len(ws) == 2 and _product(prev)) else WEAK)
        elif w.endswith("key") and len(w) > 3 and (w[:-3] in _KEY_STRONG or w.endswith(_GLUED_STRONG)):
            tier = max(tier, STRONG)  # (openweatherapikey, stripesecretkey: a vendor glued before api key)
        elif w == "salt" or (
            w.endswith("salt") and w[:-4] in ("auth", "nonce", "secure", "cookie", "session")
        ):
            tier = max(tier, STRONG)  # WordPress' AUTH_SALT, COOKIE_SALT: what hashes are keyed with
        elif w == "pat" and len(ws) > 1:
            tier = max(tier, STRONG)  # AZURE_DEVOPS_PAT, GITHUB_PAT: a personal access token
        elif w in ("auth", "authorization"):
            if any(x not in _QUALIFIERS for x in ws[i + 1 :]):
                continue  # auth_flow_step, authorization_server: the name is about something else
            tier = max(tier, WEAK)
    return tier


def code_shaped(name: str) -> bool:
    """Written as code names things (``credentialsId``, ``user_name``, ``x2``), not a word of prose."""
    return any(c in "_." or c.isdigit() for c in name) or any(c.isupper() for c in name[1:])


def _last_part(name: str) -> str:
    """``settings.SECRET_KEY`` -> ``SECRET_KEY``; a lone weak word keeps its parent
    (``config.api.key`` -> ``api.key``). The dotted path before it says where, not what."""
    parts = [p for p in name.split(".") if p]
    if len(parts) <= 1:
        return name
    last = parts[-1]
    return f"{parts[-2]}.{last}" if last.lower() in ("key", "auth", "token", "secret") else last


@lru_cache(maxsize=8192)
def last_part_tier(name: str) -> int:
    return name_tier(_last_part(name))
