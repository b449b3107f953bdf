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
