"""bench/recall_np.py's reading of Nosey Parker rules, on hand-written rules in its format.

The figure depends on which captures of a rule count as the secret: a user name, a host or the
key name beside a password are context, and a webhook's scheme and host are public. These
tests feed the loader's helpers hand-written patterns (no checkout of that repository needed).
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import recall_np  # noqa: E402

URI = r"""(?x)
    (?: postgres | postgresql ) ://       (?# URI scheme )
      ([a-z0-9._-]{3,})                    (?# username)
    : ([a-z0-9._-]{3,})                    (?# password)
    @ ([a-z0-9_.-]{3,} (?: :\d{1,5})?)     (?# hostname and port)
"""


def test_captures_named_by_their_comment():
    assert recall_np.context_groups(URI) == {1, 3}


def test_captures_named_by_the_words_before_them():
    azure = r"(?x)(?i)(?: AccountName | SharedAccessKeyName ) \s*=\s* ([^;\s]{3,80}) \s*;\s* AccountKey \s*=\s* ([A-Za-z0-9+/=]{40,})"
    assert recall_np.context_groups(azure) == {1}
    netrc = r"(?x)( machine \s+ [^\s]+ | default ) \s+ login \s+ ([^\s]+) \s+ password \s+ ([^\s]+)"
    assert recall_np.context_groups(netrc) == {1, 2}
    dotnet = r"""(?x) NetworkCredential \s* \( \s* " ( [^"\n]{3,50} ) " (?# username ) \s* , \s* " ( [^"\n]{3,50} ) " (?# password ) \s* \)"""
    assert recall_np.context_groups(dotnet) == {1}


def test_values_that_are_context_and_webhook_prefixes():
    for v in ("db.example.com:5432", "ops@example.com", "https://hooks.example.com/", "10.0.0.5"):
        assert recall_np.CONTEXT_VALUE.fullmatch(v), v
    assert not recall_np.CONTEXT_VALUE.fullmatch("Qx7vPz2Lk9Wm4Tn8")
    tail = "T00000000/B00000000/Qx7vPz2Lk9Wm4Tn8Rb3Yc6Hd"
    assert recall_np.secret_of(f"https://hooks.example.com/services/{tail}") == tail
    assert recall_np.secret_of("Qx7vPz2Lk9Wm4Tn8") == "Qx7vPz2Lk9Wm4Tn8"


def test_rules_named_for_an_identifier_are_left_out():
    ids = ("Bitbucket Client ID", "Age Recipient (X25519 public key)", "Azure Search URL", "GitHub Client ID")
    for name in ids:
        assert recall_np._identifier_rule({"name": name}), name
    secrets = (
        "Discord Webhook URL",
        "Credentials in a URL",
        "Postgres URL with hardcoded password",
        "CodeClimate Reporter ID",
        "GitHub Personal Access Token",
    )
    for name in secrets:
        assert not recall_np._identifier_rule({"name": name}), name
    assert recall_np._identifier_rule({"name": "Auth0 Domain", "visible": False})


def test_a_capture_opening_with_a_client_id_is_context():
    blynk = r"(?x) oauth2/[a-z?=&]* (oa2-client-id_[a-zA-Z0-9_\-]{32}) &client_secret= ([a-zA-Z0-9_\-]{40})"
    assert recall_np.context_groups(blynk) == {1}


def test_references_masks_documents_and_url_parts_are_no_secret():
    def why(example: str, capture: str) -> str:
        i = example.index(capture)
        return recall_np.not_secret(example, i, i + len(capture))

    assert why("psexec -u User -p $Password -i", "$Password") == "references_masks"
    assert why("PsExec.exe -u X -p %nothing% -i 2", "%nothing%") == "references_masks"
    assert why("pwd=#{datastore['DBPASSWORD']}\"\n", "#{datastore['DBPASSWORD']}\"\n") == "references_masks"
    assert why("user=apache password=###### dbname=x", "=######") == "references_masks"
    doc = '{\n  "type": "service_account",\n  "client_id": "1"\n}'
    assert why(doc, doc) == "documents_code"
    assert why('String up = "application:" + appKey;', "application:") == "documents_code"
    url = "https://alice99:Qx7vPz2Lk9@db7host"
    assert why(url, "alice99") == why(url, "db7host") == "url_parts"
    assert why(url, "Qx7vPz2Lk9") == ""
    for value in ("Qx7vPz2Lk9Wm4Tn8", "$8$mTj4RZG8N9ZDOk$elY/asfm8kD3iDmk", "s3cr3t-P4ss%"):
        assert why(f"password = {value}", value) == "", value


def test_label_words_and_filler_are_not_scored():
    assert (
        recall_np.without_label("launchdarkly-secret-123e4567-e89b", "kingfisher.launchdarkly.1")
        == "123e4567-e89b"
    )
    assert (
        recall_np.without_label("sk_live_Qx7vPz2Lk9Wm4Tn8", "kingfisher.stripe.1")
        == "sk_live_Qx7vPz2Lk9Wm4Tn8"
    )
    assert recall_np.FILLER.sub("", "Qx7vPz2Lk9Wm4Tn8.....") == "Qx7vPz2Lk9Wm4Tn8"
    assert recall_np.FILLER.sub("", "O91u.") == "O91u."


def test_the_word_for_the_secret_in_its_place_is_a_stand_in():
    url = "amqp://user:password@mq.example.com/queue"
    assert recall_np.not_secret(url, url.index("password"), url.index("@")) == "references_masks"
    cmd = "psexec -u ADMIN -p PASSWORD cmd"
    assert recall_np.not_secret(cmd, cmd.index("PASSWORD"), cmd.index(" cmd")) == "references_masks"
    real = "amqp://user:passwordQ7x@mq.example.com/queue"
    assert recall_np.not_secret(real, real.index("passwordQ7x"), real.index("@")) == ""
    for fill in ("YOURPASSWORD", "YOUR_CLIENT_SECRET_GOES_HERE"):
        line = f'"password": "{fill}"'
        assert (
            recall_np.not_secret(line, line.index(fill), line.index(fill) + len(fill)) == "references_masks"
        )
