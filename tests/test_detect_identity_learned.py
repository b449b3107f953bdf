"""Identities learned from the traces (#8 item 2): the owner named by the sessions' working
folders, other people's account and host names learned from identity places, each redacted
wherever it appears in such a place; short or common-word names never as a word in prose or code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from samples import claude_prompts

from tracepub.detect.cues import cued
from tracepub.detect.identity import ExactValues, HomePaths, guarded
from tracepub.detect.places import IdentityPlaces
from tracepub.model import Leaf, Unit
from tracepub.run.pipeline import RunOptions, run
from tracepub.sources import harvest

KEY = "AAAAC3NzaC1lZDI1NTE5AAAAIHq3vX0pL8mN2bR5tW9yZ4cF6gJ1kD7sA3eQ0uV8iO2x"


def _claude(path: Path, cwd: str, texts: list[str]) -> None:
    claude_prompts(path, texts, cwd)


def _redact(src: Path, out: Path, identity: dict[str, str] | None = None):
    """Setting (b): the run knows nothing of the owner (no harvested identity)."""
    return run(RunOptions(out=out, sources=[src], detect=_cfg(identity or {}), jobs=1))


def _cfg(identity: dict[str, str]):
    from tracepub.detect.registry import DetectConfig

    return DetectConfig(identity=identity, ner=False)


def _texts(out: Path) -> list[str]:
    """Every string of the published records (JSON decoded), and the file names."""
    found: list[str] = []

    def walk(v) -> None:
        if isinstance(v, str):
            found.append(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                found.append(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for p in sorted((out / "dataset").rglob("*.jsonl")):
        found.append(str(p.relative_to(out)))
        for line in p.read_text(encoding="utf-8").splitlines():
            walk(json.loads(line))
    return found


def _bounded(token: str, texts: list[str]) -> list[str]:
    rx = re.compile(r"(?<![^\W_])" + re.escape(token) + r"(?![^\W_])")
    return [t for t in texts if rx.search(re.sub(r"<[A-Z][A-Za-z0-9_]*>", " ", t))]


# The owner's places, for a two-letter username "jo" (Jo Lindqvist) that is also in "job" and "json".
OWNER_PLACES = [
    "jo\n",  # whoami
    "jo@jo-laptop:~/src/orders$ make migrate",
    "total 8\ndrwxr-xr-x  4 jo jo 4096 Mar  3 09:12 .\n-rw-r--r--  1 jo jo 18231 Mar  2 16:03 a.csv",
    "uid=1000(jo) gid=1000(jo) groups=1000(jo),4(adm),27(sudo)",
    "jo      48213  2.1  1.9 1187644 158312 pts/3  Sl+  09:40   0:07 node dist/server.js",
    f"ssh-ed25519 {KEY} jo@jo-laptop",
    '{\n  "service": "orders-sync",\n  "owner": "jo",\n  "replicas": 2\n}',
    "+------+\n| CURRENT_USER() |\n| JO |\n+------+",
    "Jo\nDESKTOP-7K2Q9LM",
    "Linux jo-laptop 6.8.0-45-generic #45-Ubuntu SMP x86_64 GNU/Linux",
    "jo-MacBook-Air\njo-MacBook-Air.local",
    "DATABASE_URL=postgres://localhost:5432/jo_dev",
    "origin\tgit@github.com:jofork/orders.git (fetch)",
    "2.1G\t/mnt/backup/jo.backup",
    "jo2",
    '"GET /api/files?path=%2Fhome%2Fjo%2Fsrc%2Fexports HTTP/1.1" 200',
    "/mnt/c/Users/jo",
]
HARMLESS = [
    "the job runs as json",
    '@pytest.mark.parametrize("status", [502])',
    "I hope the cache is warm",
    "GRANT SELECT ON orders TO reporting;",
    "npm run dev",
    "WORKDIR /home/dev/app",
]


def test_the_owner_is_learned_from_the_working_folder_and_redacted_in_every_identity_place(tmp_path):
    src = tmp_path / "src" / "projects" / "-home-jo-src-orders"
    _claude(src / "s1.jsonl", "/home/jo/src/orders", [*OWNER_PLACES, *HARMLESS])
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = _texts(out)
    assert _bounded("jo", texts) == []
    assert _bounded("JO", texts) == [] and _bounded("Jo", texts) == []
    assert not any("jofork" in t or "jo2" in t or "%2Fjo%2F" in t for t in texts)
    for snippet in HARMLESS:
        assert any(snippet in t for t in texts), snippet
    joined = "\n".join(texts)
    assert "<USER>" in joined  # the owner's own placeholder, not another person's
    ident = json.loads((out / "review" / "identity.json").read_text())["identity"]
    learned = [e for e in ident if e["origin"].startswith("working folder")]
    assert learned == [{"type": "identity.username", "origin": "working folder of 1 session", "masked": "j…"}]


def test_the_owner_is_learned_from_a_codex_session_meta_and_a_pi_folder(tmp_path):
    codex = tmp_path / "rollout.jsonl"
    codex.write_text(
        json.dumps({"type": "session_meta", "payload": {"id": "x", "cwd": "/Users/li/src/app"}}) + "\n"
    )
    win = tmp_path / "win.jsonl"
    win.write_text(json.dumps({"cwd": "C:\\Users\\thandiwe\\work"}) + "\n")
    units = [
        Unit("codex", codex, "2026/03/03/rollout.jsonl"),
        Unit("codex", win, "w.jsonl"),
        Unit("pi", tmp_path / "missing.jsonl", "--home-maren-src--/2026_x.jsonl"),
        Unit("claude_code", tmp_path / "missing.jsonl", "-home-runner-work-app/s.jsonl"),
    ]  # generic
    assert harvest.learn(units) == {"li": 1, "maren": 1, "thandiwe": 1}


def test_guarded_names_are_redacted_only_in_identity_places():
    """A harvested username that is a common word (grant) or two letters: never as a word."""
    ev = ExactValues({"grant": "identity.username", "grant-laptop": "identity.hostname"})
    leaf = Leaf("x")

    def found(text: str) -> list[str]:
        return [text[s.start : s.end] for s in ev.scan(text, leaf)]

    assert found("GRANT SELECT ON orders TO reporting;") == []
    assert found("We need to grant the service account read access.") == []
    assert found("grant\n") == ["grant"]
    assert found("/home/grant/src and ~grant/notes") == ["grant", "grant"]
    assert found("grant@grant-laptop:~$ ls") == ["grant", "grant-laptop"]
    assert guarded("grant", own=True) and guarded("jo", own=True) and not guarded("maren", own=True)
    assert not guarded("devin", own=True) and guarded("deva", own=False)  # others: guarded sooner


def test_the_users_own_distinctive_name_is_found_in_compounds():
    ev = ExactValues({"maren": "identity.username"})
    leaf = Leaf("x")
    for text in ("maren_dev", "maren.backup", "maren2", "%2Fhome%2Fmaren%2F", "MAREN", "old-maren"):
        assert [text[s.start : s.end].lower() for s in ev.scan(text, leaf)] == ["maren"], text
    for text in ("marengo", "3f2maren9a", "marenx"):
        assert ev.scan(text, leaf) == [], text


def test_a_full_names_other_forms_and_the_first_name_next_to_a_greeting():
    ev = ExactValues({"Maren Holt": "identity.name"})
    leaf = Leaf("x")

    def found(text: str) -> list[str]:
        return [text[s.start : s.end] for s in ev.scan(text, leaf)]

    assert found("author = {Holt, Maren},") == ["Holt, Maren"]
    assert found("- Retry on 502 (M. Holt)") == ["M. Holt"]
    assert found("Maren here. I'm back on the bug") == ["Maren"]
    assert found("Please write it up.\n\nThanks, Maren") == ["Maren"]
    assert found("Cheers,\nMaren") == ["Maren"] and found("— Maren") == ["Maren"]
    assert found("the maren column") == [] and found("Maren Street station") == []
    assert cued("Hi Hope, it works", 3, 7) and not cued("I hope it works", 2, 6)


@pytest.mark.parametrize(
    "text,users,hosts",
    [
        ("bo@bo-desktop:~/work/orders$ make seed", ["bo"], ["bo-desktop"]),
        ("[mark@build-07 orders]$ ls", ["mark"], ["build-07"]),
        (f"ssh-ed25519 {KEY} will@studio.local", ["will"], ["studio.local"]),
        ("ssh -i ~/.ssh/ci deploy@10.0.0.4 'uptime' && scp a.txt ty@build-box:/tmp", ["ty"], ["build-box"]),
        ("uid=1003(james) gid=1003(james) groups=1003(james),999(docker)", ["james", "james", "james"], []),
        ("-rw-r--r--  1 bo staff 18231 Mar  2 16:03 orders.csv", ["bo"], []),
        ("drwxr-xr-x  2 root root 4096 Mar  2 16:03 .", [], []),
        ("laurabi+  20311  0.4  2.2 289436 180112 ?  S  08:02   1:12 gunicorn", ["laurabi"], []),
        ("Linux bo-desktop 6.5.0-41-generic #41~22.04.2-Ubuntu SMP x86_64 GNU/Linux", [], ["bo-desktop"]),
        (
            '{"username": "testclient", "password": "x"}',
            [],
            [],
        ),  # test fixtures: only a known name counts here
    ],
)
def test_identity_places_find_any_account_name(text, users, hosts):
    spans = IdentityPlaces({"bo": "identity.username"}).scan(text, Leaf("x"))
    assert sorted(text[s.start : s.end] for s in spans if s.type.endswith("username")) == sorted(users)
    assert sorted(text[s.start : s.end] for s in spans if s.type.endswith("hostname")) == sorted(hosts)
    for s in spans:  # the owner's own name and hosts built from it are the owner's
        owner = re.search(r"(?<![a-z])bo(?![a-z])", text[s.start : s.end]) is not None
        assert s.type.startswith("identity.") == owner, (text[s.start : s.end], s.type)


def test_home_folders_that_name_no_one():
    for text in (
        "DataSource('/home/foo/bar.shp')",
        "/Users/distiller/project/src",
        '"/home/polls.com/polls/static"',
        "'/home/guido.foobar.txt'",
        "/home/html/templates",
        "/home/www/project",
    ):
        assert HomePaths().scan(text, Leaf("x")) == [], text
    assert [s.end - s.start for s in HomePaths().scan("/home/jo.smith/src", Leaf("x"))] == [8]


def test_wsl_and_url_encoded_home_paths():
    for text in (
        "/mnt/c/Users/okonkwo/Downloads",
        "path=%2Fhome%2Fokonkwo%2Fwork",
        "C%3A%5CUsers%5Cokonkwo%5C",
        "-mnt-c-Users-okonkwo-src",
    ):
        assert [text[s.start : s.end] for s in HomePaths().scan(text, Leaf("x"))] == ["okonkwo"], text


def test_a_colleague_learned_in_ls_output_is_redacted_in_other_files_and_places(tmp_path):
    """mark is a common word: learned from an identity place (ls -l), carried to identity places
    in the whole dataset (whoami in another session, | MARK |, paths), never to prose or code."""
    root = tmp_path / "src" / "projects" / "-work-app"
    _claude(root / "a.jsonl", "/work/app", ["-rw-r--r--  1 mark mark 18231 Mar  2 16:03 orders.csv"])
    _claude(
        root / "b.jsonl",
        "/work/app",
        [
            "mark\n",
            "| MARK | ANALYST |",
            "4.7G\t/mnt/backup/mark.backup",
            "review\tgit@github.com:markfork/orders.git",
            "northwind-ci\nmark2",
            '{"job": "nightly-export", "owner": "mark"}',
            'echo "{\\"owner\\": \\"mark\\"}"',
            "@pytest.mark.parametrize('x', [1])\n# mark the job as done",
            "Mark my words.",
        ],
    )
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = _texts(out)
    leaks = [
        t for t in _bounded("mark", texts) + _bounded("MARK", texts) if "pytest" not in t and "job" not in t
    ]
    assert leaks == []
    assert not any("markfork" in t or "mark2" in t for t in texts)
    assert any("@pytest.mark.parametrize" in t and "# mark the job" in t for t in texts)
    assert any("Mark my words." in t for t in texts)


def test_a_colleagues_name_from_a_commit_is_found_as_last_first_and_in_a_sign_off(tmp_path):
    root = tmp_path / "src" / "projects" / "-work-app"
    _claude(
        root / "a.jsonl", "/work/app", ["commit 9a8b7c6\nAuthor: Bo Jensen <bo.jensen@northwind-labs.io>\n"]
    )
    _claude(
        root / "b.jsonl",
        "/work/app",
        ["# Maintainers\n\n- Jensen, Bo (exports)\n", "can you have a look? Thanks, Bo", "both bots bounce"],
    )
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = _texts(out)
    assert _bounded("Jensen", texts) == [] and _bounded("Bo", texts) == []
    assert any("both bots bounce" in t for t in texts)


def test_a_person_merged_with_the_owners_name_is_carried_as_a_name(tmp_path):
    """ "Devin Shah" around the owner's username "devin" is one span typed as the username; it is
    still carried as a name, so "Shah, Devin" and "D. Shah" elsewhere are redacted."""
    root = tmp_path / "src" / "projects" / "-home-devin-src-orders"
    _claude(root / "a.jsonl", "/home/devin/src/orders", ["Author: Devin Shah <devin@gmail.com>"])
    _claude(root / "b.jsonl", "/home/devin/src/orders", ["author = {Shah, Devin},", "(D. Shah)", "SHAH"])
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = _texts(out)
    assert _bounded("Shah", texts) == [] and _bounded("Devin", texts) == []
    assert any(t == "SHAH" for t in texts)  # a last name alone is not looked for


def test_identity_masks_never_show_a_two_letter_username():
    assert harvest.mask("jo", "identity.username") == "j…"
    assert harvest.mask("jo-MacBook-Air.local", "identity.hostname") == "j…l"
    assert harvest.mask("jo.lindqvist@gmail.com", "identity.email") == "j…m"
    assert harvest.mask("ghp_abcdefgh12345678", "secret.github_token") == "gh…8"


def test_other_forms_only_for_people_working_on_these_machines():
    """A found person's other forms (``Last, First``, the first name after "Thanks,") are looked
    for when an account the traces show comes from their name; a package author's are not."""
    from tracepub.detect.found import FoundValues

    fv = FoundValues(
        {
            "Bo Jensen": ("pii.person", "redacted"),
            "bo": ("pii.username", "redacted"),
            "John Doe": ("pii.person", "redacted"),
            "Foo Bar": ("pii.person", "redacted"),
        }
    )
    leaf = Leaf("x")

    def found(text: str) -> list[str]:
        return [text[s.start : s.end] for s in fv.scan(text, leaf)]

    assert found("- Jensen, Bo (exports)") == ["Jensen, Bo"] and found("Thanks, Bo") == ["Bo"]
    assert found("Thanks, John") == [] and found("Doe, John") == [] and found("John Doe") == ["John Doe"]
    assert found('assert d["cookie"] == "bar, foo"') == []


def test_a_name_form_whose_first_name_the_first_pass_took_as_the_username(tmp_path):
    """Setting (b), each place in its own session: the first pass redacts "Eyvindur" (the learned
    username) out of "Þórsson, Eyvindur" and "EYVINDUR ÞÓRSSON" before it knows the full name; the
    file still holds the last name, so the second pass reads it again and takes the whole name."""
    root = tmp_path / "src" / "projects" / "-home-eyvindur-src-orders"
    _claude(root / "a.jsonl", "/home/eyvindur/src/orders", ["Author: Eyvindur Þórsson <eyvindur@gmail.com>"])
    _claude(root / "b.jsonl", "/home/eyvindur/src/orders", ["@misc{o,\n  author = {Þórsson, Eyvindur},\n}"])
    _claude(root / "c.jsonl", "/home/eyvindur/src/orders", ["subject=CN = EYVINDUR ÞÓRSSON, O = Northwind"])
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    texts = _texts(out)
    assert _bounded("Þórsson", texts) == [] and _bounded("ÞÓRSSON", texts) == []


def test_an_address_links_a_person_only_through_both_names():
    from tracepub.detect.found import linked_people

    found = {
        "Julien Schueller": ("pii.person", "redacted"),
        "julien@example.org": ("pii.email", "redacted"),
        "Sarah Miller": ("pii.person", "redacted"),
        "s.miller@northwind-labs.io": ("pii.email", "redacted"),
        "Anna Schmidt": ("pii.person", "redacted"),
    }
    assert linked_people(found, {"aschmidt": "identity.username"}) == {"Sarah Miller", "Anna Schmidt"}


def test_the_owners_name_from_git_log_is_the_users_own(tmp_path):
    """Setting (b): "Author: Anna Schmidt <anna@…>" in a session under /home/aschmidt is the
    owner's name and address (``<USER_NAME>``, masked in the findings), not another person's."""
    root = tmp_path / "src" / "projects" / "-home-aschmidt-src-orders"
    _claude(
        root / "a.jsonl",
        "/home/aschmidt/src/orders",
        [
            "commit 4e1f0c9\nAuthor: Anna Schmidt <anna@northwind-labs.io>\n\n    Retry order sync",
            "Author: Bo Jensen <bo.jensen@northwind-labs.io>",
        ],
    )
    _claude(root / "b.jsonl", "/home/aschmidt/src/orders", ["Anna here. Mail it to anna@northwind-labs.io"])
    out = tmp_path / "out"
    _redact(tmp_path / "src", out)
    joined = "\n".join(_texts(out))
    assert "Anna" not in joined and "anna@" not in joined and "Jensen" not in joined
    assert "<USER_NAME>" in joined and "<USER_EMAIL>" in joined
    review = "\n".join(p.read_text() for p in (out / "review").rglob("*.jsonl"))
    assert "Anna Schmidt" not in review and "anna@northwind-labs.io" not in review


def test_a_first_name_alone_is_written_as_a_name_and_not_someone_elses():
    ev = ExactValues({"Julien Cristau": "identity.name"})
    leaf = Leaf("x")
    assert [s.type for s in ev.scan("Thanks, Julien!", leaf)] == ["identity.name"]
    assert (
        ev.scan("(Thanks, Julien Schueller)", leaf) == [] and ev.scan("Thanks, Julien A. Booth", leaf) == []
    )
    assert ev.scan("HELLO JULIEN", leaf) == []


def test_identity_places_on_lines_find_what_each_line_alone_finds():
    """``scan_windows`` (the engine's hit lines) gives each line's ``scan``, placed in the string."""
    lines = [
        "bo@bo-desktop:~/work/orders$ make seed",
        "nothing here: mark the test as done",
        "uid=1003(james) gid=1003(james) groups=1003(james),999(docker)",
        "-rw-r--r--  1 bo bo 18231 Mar  2 16:03 orders.csv",
        "laurabi+  20311  0.4  2.2 289436 180112 ?  S  08:02   1:12 gunicorn",
        "Linux bo-desktop 6.5.0-41-generic #41~22.04.2-Ubuntu SMP x86_64 GNU/Linux",
    ]
    text = "\n".join(lines)
    starts = [text.index(line) for line in lines]
    windows = [(a, a + len(line)) for a, line in zip(starts, lines, strict=True)]
    places = IdentityPlaces({"bo": "identity.username"})
    leaf = Leaf("x")
    alone = [(s.start + a, s.end + a, s.type) for a, b in windows for s in places.scan(text[a:b], leaf)]
    got = [(s.start, s.end, s.type) for s in places.scan_windows(text, windows, leaf)]
    assert got == alone and len(got) == 9
    assert [text[a:b] for a, b, _ in got[-2:]] == ["laurabi", "bo-desktop"]
