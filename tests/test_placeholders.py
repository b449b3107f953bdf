from tracepub.redact.placeholders import Namer, label, load_key


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


def test_same_value_same_placeholder_across_files_and_runs(tmp_path):
    """DESIGN: typed placeholders, consistent across the dataset, suffix from a key kept in review/."""
    import json
    import re
    import stat

    from click.testing import CliRunner

    from tracepub.cli import cli
    from tracepub.fakes import github_token

    token = github_token(__import__("random").Random(3), "ghp")
    src = tmp_path / "src" / "projects" / "p"
    src.mkdir(parents=True)
    for name, text in (
        ("a.jsonl", f"mail priya@kestrel.dev, token {token}"),
        ("b.jsonl", f"again: {token} and priya@kestrel.dev and lukas@proton.me"),
    ):
        (src / name).write_text(
            json.dumps(
                {
                    "type": "user",
                    "sessionId": name,
                    "uuid": "u-" + name,
                    "message": {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": "t", "content": text}],
                    },
                }
            )
            + "\n"
        )

    def run(out):
        res = CliRunner().invoke(
            cli, ["redact", str(tmp_path / "src"), "--out", str(out), "--jobs", "1", "--no-ner"]
        )
        assert res.exit_code == 0, res.output
        return {p.name: p.read_text() for p in (out / "dataset" / "claude_code").rglob("*.jsonl")}

    first = run(tmp_path / "out")
    phs = {n: re.findall(r"<[A-Z_]+_[0-9a-f]{8}>", t) for n, t in first.items()}
    email_a = [p for p in phs["a.jsonl"] if p.startswith("<EMAIL_")]
    email_b = [p for p in phs["b.jsonl"] if p.startswith("<EMAIL_")]
    tok_a = [p for p in phs["a.jsonl"] if p.startswith("<SECRET_GITHUB_TOKEN_")]
    tok_b = [p for p in phs["b.jsonl"] if p.startswith("<SECRET_GITHUB_TOKEN_")]
    assert (
        len(email_a) == 1 and email_a[0] in email_b and len(set(email_b)) == 2
    )  # same value, same name; others differ
    assert tok_a and tok_a == tok_b
    key = tmp_path / "out" / "review" / "placeholder.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert run(tmp_path / "out") == first  # a re-run with the same key: the same bytes
    other = run(tmp_path / "out2")  # a new dataset, a new key: suffixes nobody can link
    assert email_a[0] not in other["a.jsonl"] and "<EMAIL_" in other["a.jsonl"]
