"""tracepub review: decisions are recorded, applied from the sources at once, and survive redact."""

from __future__ import annotations

import json
import os
import stat

from reviewkit import dataset_text, findings, invoke, planted, redacted_dir, value_id

from tracepub.review import decisions


def test_keep_leaves_value_in_clear_and_survives_a_later_redact(tmp_path):
    p = planted()
    out = redacted_dir(tmp_path, p)
    assert p.email not in dataset_text(out)
    manifest_before = (out / "manifest.json").read_bytes()
    email_id = value_id(out, "pii.email")

    r = invoke("review", out, "--keep", email_id, "--reviewer", "Jane")
    assert r.exit_code == 0, r.output
    assert p.email in dataset_text(out)
    assert {f["action"] for f in findings(out) if f["value_id"] == email_id} == {"kept"}
    assert (out / "manifest.json").read_bytes() != manifest_before
    assert "earlier sign-off no longer matches" in r.output
    entry = decisions.read(out)[-1]
    assert entry["reviewer"] == "Jane" and entry["action"] == "keep" and entry["value_id"] == email_id

    # A plain redact into the same folder replays the decision.
    r = invoke(
        "redact",
        tmp_path / "sources",
        "--out",
        out,
        "--jobs",
        "1",
        "--no-ner",
        "--config",
        tmp_path / "tracepub.toml",
    )
    assert r.exit_code == 0, r.output
    assert p.email in dataset_text(out)
    # Everything else stays redacted.
    assert p.github not in dataset_text(out)

    r = invoke("review", out, "--redact", email_id)
    assert r.exit_code == 0, r.output
    assert p.email not in dataset_text(out)


def test_a_finding_id_is_accepted_for_its_value(tmp_path):
    p = planted()
    out = redacted_dir(tmp_path, p)
    fid = next(f["id"] for f in findings(out) if f["type"] == "pii.email")
    r = invoke("review", out, "--keep", fid, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["applied"] is True
    assert data["decisions"][0]["value_id"] == value_id(out, "pii.email")
    assert p.email in dataset_text(out)


def test_added_text_and_regex_are_always_redacted_even_if_kept(tmp_path):
    p = planted()
    out = redacted_dir(tmp_path, p, config=False)
    assert p.codename in dataset_text(out) and p.ticket in dataset_text(out)
    r = invoke("review", out, "--add", p.codename, "--add-regex", r"ACME-[0-9]{6}")
    assert r.exit_code == 0, r.output
    text = dataset_text(out)
    assert p.codename not in text and p.ticket not in text
    assert "<CUSTOM_TEXT_" in text and "<CUSTOM_REGEX_" in text
    types = {f["type"] for f in findings(out)}
    assert {"custom.text", "custom.regex"} <= types

    custom_id = value_id(out, "custom.text")
    r = invoke("review", out, "--keep", custom_id)
    assert r.exit_code == 0, r.output
    assert "stays redacted" in r.output
    assert p.codename not in dataset_text(out)


def test_keeping_a_high_confidence_secret_warns_that_publish_will_refuse(tmp_path):
    out = redacted_dir(tmp_path)
    r = invoke("review", out, "--keep", value_id(out, "secret.github_token"))
    assert r.exit_code == 0, r.output
    assert "publish refuses" in r.output


def test_unknown_id_is_refused_with_one_line_and_nothing_recorded(tmp_path):
    out = redacted_dir(tmp_path)
    r = invoke("review", out, "--keep", "0123456789abcdef")
    assert r.exit_code == 1
    assert "no value or finding with id 0123456789abcdef" in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert decisions.read(out) == []


def test_bad_usage_exits_2(tmp_path):
    out = redacted_dir(tmp_path)
    assert invoke("review", out, "--add-regex", "(unclosed").exit_code == 2
    assert invoke("review", out, "--add", "ab").exit_code == 2
    assert decisions.read(out) == []


def test_not_an_output_folder_is_refused(tmp_path):
    r = invoke("review", tmp_path / "nothing", "--keep", "x")
    assert r.exit_code == 1 and "not a tracepub output folder" in r.output


def test_missing_source_refuses_and_leaves_dataset_alone(tmp_path):
    out = redacted_dir(tmp_path)
    before = dataset_text(out)
    manifest = (out / "manifest.json").read_bytes()
    for f in (tmp_path / "sources").rglob("*.jsonl"):
        f.unlink()
    (tmp_path / "sources" / "-home-jdoe-src-app").rmdir()
    (tmp_path / "sources").rmdir()
    r = invoke("review", out, "--keep", value_id(out, "pii.email"))
    assert r.exit_code == 1
    assert "no longer exists" in r.output
    assert dataset_text(out) == before
    assert (out / "manifest.json").read_bytes() == manifest
    assert decisions.read(out)[-1]["action"] == "keep"  # recorded; applies on the next redact


def test_no_options_without_terminal_lists_flagged_values(tmp_path):
    out = redacted_dir(tmp_path)
    r = invoke("review", out)
    assert r.exit_code == 0
    assert "1 flagged value(s)" in r.output and value_id(out, "secret.acme_ticket") in r.output


def test_interactive_keep_add_and_quit(tmp_path):
    p = planted()
    out = redacted_dir(tmp_path, p)
    # One flagged value (the ACME ticket): keep it, after adding a value in between.
    r = invoke("review", out, "--interactive", "--reviewer", "Jane", input=f"a\n{p.codename}\nk\n")
    assert r.exit_code == 0, r.output
    assert "[1/1] secret.acme_ticket" in r.output
    text = dataset_text(out)
    assert p.ticket in text  # kept in clear
    assert p.codename not in text  # added
    actions = [e["action"] for e in decisions.read(out)]
    assert actions == ["add", "keep"]  # in the order they were made, each written when made


def test_interactive_quit_records_nothing(tmp_path):
    out = redacted_dir(tmp_path)
    manifest = (out / "manifest.json").read_bytes()
    r = invoke("review", out, "--interactive", input="q\n")
    assert r.exit_code == 0, r.output
    assert "No decision recorded" in r.output
    assert decisions.read(out) == []
    assert (out / "manifest.json").read_bytes() == manifest


def test_user_secrets_are_never_stored_and_a_rerun_needs_them_again(tmp_path):
    p = planted()
    out = redacted_dir(tmp_path, p)
    r = invoke(
        "redact",
        tmp_path / "sources",
        "--out",
        out,
        "--jobs",
        "1",
        "--no-ner",
        "--secret",
        "internal-Zq81-value",
    )
    assert r.exit_code == 0, r.output
    for path in (out / "review").rglob("*"):
        if path.is_file() and path.name != "placeholder.key":
            assert "internal-Zq81-value" not in path.read_text(), path.name
    values = out / "review" / "values.json"
    assert {e["type"] for e in json.loads(values.read_text())["identity"]} >= {"secret.user_supplied"}
    assert stat.S_IMODE(os.stat(values).st_mode) == 0o600
    (tmp_path / "sources" / "-home-jdoe-src-app" / "more.jsonl").write_text(
        (tmp_path / "sources" / "-home-jdoe-src-app" / "session.jsonl")
        .read_text()
        .replace("Deploy", "Deploy internal-Zq81-value")
    )
    manifest = (out / "manifest.json").read_bytes()
    # Without the value a re-run would redact less: refused, nothing changed (the decision is kept).
    r = invoke("review", out, "--add", "something-else")
    assert r.exit_code == 1 and "--secret" in r.output and "secret.user_supplied" in r.output, r.output
    assert (out / "manifest.json").read_bytes() == manifest
    # Given again, the re-run redacts it everywhere, old and new files alike.
    r = invoke("review", out, "--add", "something-else", "--secret", "internal-Zq81-value")
    assert r.exit_code == 0, r.output
    assert "internal-Zq81-value" not in dataset_text(out)
    assert "something-else" not in dataset_text(out)


def test_rerun_keeps_selection_and_deny_rules(tmp_path):
    p = planted()
    src = tmp_path / "sources" / "-home-jdoe-src-app"
    from reviewkit import claude_session

    claude_session(src, p, name="a.jsonl")
    claude_session(src, p, name="b.jsonl", extra="Client Corp asked for it.")
    # b.jsonl has the same session id as a.jsonl in the kit; give it its own.
    b = src / "b.jsonl"
    b.write_text(
        b.read_text().replace("8f2c1e4a-6b7d-4c3e-9a1f-2d5e7b9c0a11", "11111111-2222-4333-8444-555555555555")
    )
    out = tmp_path / "out"
    r = invoke(
        "redact",
        tmp_path / "sources",
        "--out",
        out,
        "--jobs",
        "1",
        "--no-ner",
        "--harness",
        "claude",
        "--deny",
        "Client Corp",
    )
    assert r.exit_code == 0, r.output
    files = sorted(p.name for p in (out / "dataset").rglob("*.jsonl"))
    assert files == ["a.jsonl"]
    assert json.loads((out / "review" / "values.json").read_text())["deny"][0]["text"] == "Client Corp"
    r = invoke("review", out, "--add", p.codename)
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in (out / "dataset").rglob("*.jsonl")) == ["a.jsonl"]
    run = json.loads((out / "review" / "run.json").read_text())
    assert run["options"]["selection"]["harnesses"] == ["claude"]
    page = (out / "review" / "report.html").read_text()
    assert "Sessions left out (1)" in page and "deny rule" in page and "Cl…rp" in page
