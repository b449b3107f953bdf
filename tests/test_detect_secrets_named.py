"""Places and shapes found missing on Kingfisher's rule examples, round 2 (bench/recall_np.py --suite
kingfisher): a vendor named right before its key with no secret word (``patterns/named.toml``,
``blank = true``), vendor prefixes with no rule or a rule narrower than the vendor's keys
(``patterns/vendors.toml`` and the packs), a label glued after a vendor ending in "api"
(``zipcodeapiSECRET``), a strong label after a vendor as a strong place (typed test keys count), an
API key as curl's user with an empty password, Android ``meta-data`` value attributes. Fake values
of the right shape (``tracepub.fakes`` templates), checked through ``Engine.scan``: the whole value
covered; look-alikes give no ``secret.*`` span."""

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
    "named-blank-hex": ("wandb {v}", "{{lowerhex:40}}"),
    "named-blank-alnum": ("skrapp {v}", "{{alnum:42}}"),
    "named-next-line": ("cloudsmith\n{v}\n", "{{lowerhex:40}}"),
    "named-underscore-body": ("nozbe {v} ", "{{alnum:16}}_{{b64url:64}}"),
    "named-assigned": ("telnyx = {v}", "KEY{{alnum:20}}-{{alnum:14}}_{{alnum:19}}"),
    "label-after-api-vendor": ("zipcodeapiSECRET {v}", "{{alnum:40}}"),
    "label-after-api-vendor-dash": ("holidayapiSECRET-{v}", "{{alnum:8}}-{{alnum:8}}-{{alnum:8}}"),
    "salesforce-any-body": ("{v}", "00D{{alnum:12}}!CJ{{alnum:60}}.{{alnum:30}}"),
    "typeform-short": ("{v}", "tfp_{{alnum:45}}"),
    "tailscale-short": ("{v}", "tskey-api-{{alnum:7}}-{{alnum:9}}"),
    "buildkite-alnum": ("{v}", "bkua_{{lowerdigits:40}}"),
    "contentful-long": ("{v}", "CFPAT-{{b64url:60}}"),
    "replicate-long": ("{v}", "r8_{{alnum:45}}"),
    "xai-underscore": ("{v}", "xai-{{alnum:40}}_{{alnum:39}}"),
    "sourcegraph-local": ("{v}", "sgp_{{lowerhex:16}}_local_{{lowerhex:40}}"),
    "segment-public": ("{v}", "sgp_{{alnum:64}}"),
    "slack-config-refresh": ("{v}", "xoxe-1-{{upperdigits:143}}"),
    "supabase-alnum": ("{v}", "sbp_{{lowerdigits:40}}"),
    "square-64": ("square {v}", "EAAA{{alnum:64}}"),
    "flexport": ("{v}", "shltm_{{b64url:40}}"),
    "fleetbase": ("{v}", "flb_live_{{alnum:20}}"),
    "pubnub": ("{v}", "pub-c-{{uuid}}"),
    "maxmind": ("{v}", "{{alnum:6}}_{{alnum:29}}_mmk"),
    "zoho": ("{v}", "1000.{{lowerhex:32}}.{{lowerhex:32}}"),
    "ubidots-typed": ("{v}", "BBFF-pQwErTyUiOpAsDfGhJkLmNbVxYzZ12"),
    "blank-existing-mistral": ("mistral {v}", "{{alnum:32}}"),
    "blank-existing-datadog-next-line": ("datadog\n{v}", "{{lowerhex:32}}"),
    "blank-existing-heroku": ("heroku {v}", "{{uuid}}"),
    "openweather-owm": ("owm = '{v}'", "{{lowerdigits:32}}"),
    "label-short-strong-after-vendor": ("ipinfo private token {v}", "{{alnum:6}}4{{alnum:6}}Q"),
    "label-short-glued-name": ("ipinfo_secret key={v}", "{{alnum:6}}4{{alnum:6}}Q"),
    "label-strong-after-vendor-typed": ("bannerbear SECRET {v}", "bb1234567890abcdefghijtt"),
    "label-strong-glued-vendor-typed": ("vatlayerTOKEN {v}", "abcdefghijklmnopqrstuvwxyzabcdef"),
    "curl-user-key-empty-password": (
        "curl https://api.example.com/v1/charges -u {v}: -d amount=100",
        "{{alnum:24}}",
    ),
    "android-meta-data-value": (
        '<meta-data android:name="com.acme.API_KEY" android:value="{v}"/>',
        "{{alnum:32}}",
    ),
    "jws-opaque-payload": ("stripo_tokeny = {v}", "eyJhbGciOiJIUzI1NiJ9.{{b64url:120}}.{{b64url:32}}"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_place_or_shape_is_redacted_whole(engine, name):
    text, template = CASES[name]
    value = expand(template, RNG)
    planted = text.replace("{v}", value)
    assert covered(engine, planted, value), (name, planted, secret_spans(engine, planted))


LOOK_ALIKES = [
    "wandb run 3f9a1b2c",  # a word after the name
    "wandb_run_id 3f9a1b2c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f90",  # the name is longer than the vendor's
    "cloudsmith push raw my-org/my-repo build.tar.gz",
    "the skrapp docs say to use the dashboard",
    "telnyx KEYBOARD shortcuts",
    "total 1000.00 USD",
    "if (!arguments.length) return 00D",
    "mistral is a wind, datadog is a vendor",
    "heroku run bash",
    "the secret token aK3jd9SlqP0wZm",  # a short value after prose, not after a vendor
    "sha256 token 1234abcd5678ef",  # a digest's name
    "ACCESS_TOKEN aK3jd9SlqP0wZm",
    "the SECRET abcdefghijklmnopqrstuvwx",  # typed after prose: not a vendor's label
    "csrf TOKEN abcdefghijklmnopqrstuvwx",
    "curl -u username: https://example.com",
    '<meta-data android:name="com.acme.API_KEY" android:value="@string/acme_key"/>',
    "lowmem = 0123456789abcdef0123456789abcdef",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_stay(engine, text):
    assert not secret_spans(engine, text), text
