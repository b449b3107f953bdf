"""Found once, redacted everywhere: a value a detector redacts in one place is redacted at every
other occurrence, in the same string, other records, other files and file names."""

from __future__ import annotations

import json
from pathlib import Path

from samples import claude_prompts as _claude
from samples import redact

from tracepub.detect.found import propagates

# A generic-looking secret with no provider prefix: found only through its place (TOKEN=).
SECRET = "q8ZrT2vLw9XkP4mN7bYc3HdS6fJa"
COLLEAGUE = "okonkwo"


def _published(out: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8") for p in sorted((out / "dataset").rglob("*")) if p.is_file()
    )


def test_a_second_copy_in_the_same_string_is_redacted(tmp_path):
    src = tmp_path / "src" / "projects" / "-work-app" / "s1.jsonl"
    _claude(src, [f"token = '{SECRET}' | '{SECRET}'"])
    redact([tmp_path / "src"], tmp_path / "out")
    text = _published(tmp_path / "out")
    assert SECRET not in text
    assert text.count("<SECRET_") >= 2


def test_copies_in_other_records_and_files_are_redacted(tmp_path):
    root = tmp_path / "src" / "projects" / "-work-app"
    _claude(root / "a.jsonl", [f"the key shows up bare first: {SECRET}", f"export API_TOKEN={SECRET}"])
    _claude(root / "b.jsonl", [f"grep output: config.py:12: {SECRET}"])
    redact([tmp_path / "src"], tmp_path / "out")
    text = _published(tmp_path / "out")
    assert SECRET not in text
    placeholders = {p for p in text.split() if p.startswith("<SECRET_")}
    assert len({p.rstrip(".,'\"") for p in placeholders}) == 1, placeholders  # one placeholder everywhere
    findings = (tmp_path / "out" / "review" / "findings.jsonl").read_text().splitlines()
    files = {json.loads(f)["file"] for f in findings if json.loads(f)["type"].startswith("secret.")}
    assert len(files) == 2  # the report counts the copies under the value, in both files


def test_a_colleagues_username_from_a_home_path_is_redacted_in_whoami_output(tmp_path):
    root = tmp_path / "src" / "projects" / "-work-app"
    _claude(root / "a.jsonl", [f"$ whoami\n{COLLEAGUE}\n", f"ls /home/{COLLEAGUE}/src"])
    redact([tmp_path / "src"], tmp_path / "out")
    assert COLLEAGUE not in _published(tmp_path / "out")


def test_a_value_in_a_file_name_is_redacted_in_the_name(tmp_path):
    root = tmp_path / "src" / "projects" / "-work-app"
    _claude(root / "a.jsonl", [f"export API_TOKEN={SECRET}"])
    _claude(root / f"notes-{SECRET}.jsonl", ["nothing here"])
    redact([tmp_path / "src"], tmp_path / "out")
    names = [p.name for p in (tmp_path / "out" / "dataset").rglob("*")]
    assert not any(SECRET in n for n in names), names
    assert SECRET not in _published(tmp_path / "out")


def test_common_words_and_short_values_are_not_carried_everywhere(tmp_path):
    root = tmp_path / "src" / "projects" / "-work-app"
    _claude(root / "a.jsonl", ["ls /home/admin/ and /home/html/", "render the html page as admin"])
    redact([tmp_path / "src"], tmp_path / "out")
    text = _published(tmp_path / "out")
    assert "render the html page as admin" in text


def test_propagation_guard():
    assert propagates(SECRET, "secret.generic")
    assert not propagates("abc12", "secret.generic")  # too short to be the same secret by more than chance
    assert propagates("okonkwo", "pii.username", "home-path")
    assert not propagates("mark", "pii.username", "home-path")  # a common word in a path: only there
    assert propagates("mark", "pii.username", "identity-places")  # in `ls -l` columns: to identity places
    assert not propagates("ubuntu", "pii.username", "identity-places")
    assert propagates("Jane Doe", "pii.person")
    assert not propagates("mark", "pii.person")
    assert not propagates("jdoe", "identity.username", "identity")  # the user's own values are exact already
    assert propagates("jo-laptop", "identity.hostname", "identity-places")  # learned: carried


def test_copies_are_the_occurrences_no_span_covers():
    """``copies`` on a text with many spans: exactly the occurrences outside every span (the
    overlap test is a bisection; it must say what the scan over every span said)."""
    import random

    from tracepub.detect.found import _Taken, copies
    from tracepub.model import Span

    text = " ".join(f"{SECRET}" if i % 3 else f"x{SECRET}y" for i in range(40))
    at = [i for i in range(len(text)) if text.startswith(SECRET, i)]
    spans = [Span(i, i + len(SECRET), "secret.token", "entropy:assign", 0.8, "redact") for i in at[::2]]
    got = sorted((s.start, s.end) for s in copies(text, spans))
    assert got == [(i, i + len(SECRET)) for i in at[1::2]]

    rng = random.Random(5)
    for _ in range(300):
        ranges = [(a, a + rng.randint(0, 9)) for a in (rng.randint(0, 60) for _ in range(rng.randint(0, 8)))]
        taken = _Taken([Span(a, b, "secret.token", "x", 0.8, "redact") for a, b in ranges])
        for a in range(0, 70, 3):
            b = a + rng.randint(1, 6)
            assert taken.overlaps(a, b) == any(x < b and a < y for x, y in ranges)


def test_many_values_are_found_as_a_few_are():
    """``copies``' search for many values at once (one automaton pass) finds each value where
    ``str.find`` finds it, overlapping occurrences included, also beyond ASCII and with a lone
    surrogate (searched value by value there)."""
    from tracepub.detect.found import _FEW_NEEDLES, _starts

    needles = [f"dev{i}@x.io" for i in range(40)] + ["aa", "éa", "zz"]
    assert len(needles) > _FEW_NEEDLES
    for low in ("dev1@x.io dev12@x.io aaa ééa dev39@x.io", "x\ud800 aaaa dev3@x.io"):
        many = _starts(low, needles)
        few = {n: _starts(low, [n])[n] for n in needles}
        assert many == few
    assert _starts("aaaa", needles)["aa"] == [0, 1, 2]
