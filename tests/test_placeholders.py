from tracepub.placeholders import Namer, label, load_key


def test_same_value_same_placeholder_and_keyed(tmp_path):
    key = load_key(tmp_path)
    assert load_key(tmp_path) == key  # created once, then reused
    n = Namer(key)
    a = n.placeholder("pii.email", "jane@example.com")
    assert a == n.placeholder("pii.email", "jane@example.com")
    assert a.startswith("<EMAIL_") and a.endswith(">") and len(a) == len("<EMAIL_>") + 8
    assert a != n.placeholder("pii.email", "john@example.com")
    # a different key gives different suffixes: nobody can confirm a guess without the key
    assert Namer(b"x" * 32).placeholder("pii.email", "jane@example.com") != a


def test_labels():
    assert label("secret.github_token") == "SECRET_GITHUB_TOKEN"
    assert label("pii.email") == "EMAIL"
    assert Namer(b"k").placeholder("identity.username", "jdoe") == "<USER>"
