"""Secret recall on secretlint's rule snapshots: a fifth suite of another hand, in whole files.

    python bench/recall_secretlint.py                              # every snapshot, harness, place
    python bench/recall_secretlint.py --harness claude_code --places read
    python bench/recall_secretlint.py --json /tmp/recall-sl.json --check

secretlint (secretlint/secretlint) tests each rule package on snapshot files: an ``ng.<case>/input.*``
holding secrets, and the ``output.json`` beside it listing what the rule reports (a message per
finding, with its ``range`` in the input and often the value in ``data``). Unlike the YAML suites
(bench/recall_np.py), an input is a whole file (a ``.env``, a JSON document, a README paragraph,
several keys in a row), so each is planted whole, as a file read, a prompt, a shell output and a JSON
tool argument in every harness, exactly as bench/recall.py plants gitleaks' samples, and scored the
same way. The snapshots are read at run time from a git checkout of the repository (``--repo``),
never copied into this tree.

A finding's secret is its ``data`` value that occurs in the input (else the text of its range):
a URL's password without the scheme, user and host; an assignment's value without its name. Left
out (counted in the "left out" line): rules that report no secret (home folders, the user's own
patterns, comments that switch rules off, the example rule), identifiers (Azure's tenant and client
ids, an AWS account id), binary inputs (``.p12``), and values shorter than 4 characters. Many
snapshot values are written stand-ins (``AAAA...``, ``XXXXXX``, ``aBcDeF...1234567890``): they stay
in the figure, and tracepub keeps them by policy (README, "What it still finds").
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import recall as rc  # noqa: E402
import recall_np  # noqa: E402

REPO = Path("/work/.mirror/secretlint+secretlint/repo")
PACKAGES = "packages/@secretlint/"
# Rule packages that report no secret: a home folder, the user's own patterns, comment switches, a sample.
NO_SECRET_RULES = ("no-homedir", "pattern", "filter-comments", "example")
# Messages that report an identifier, not what authenticates.
IDENTIFIER_MESSAGES = re.compile(r"(?i)tenant_?id|client_?id|account_?id")
URL_PASSWORD = re.compile(r"[A-Za-z][\w+.-]*://[^:@/\s]*:(?P<pw>[^\s/]+)@[^@\s]+")
ASSIGNED = re.compile(r"""^[\w"'.-]+\s*(?:=>|:=|=|:)\s*["']?(?P<v>[^"'\s]+)""")
PRIVATE_KEY_FIELD = re.compile(r'"private_key"\s*:\s*"(?P<v>[^"]+)"')
MIN_SECRET = 4


def secret_of(text: str, message: dict) -> str:
    """What a finding reports as secret: its ``data`` value found in the input, else its range's text;
    a URL's password alone (up to its last ``@``), a webhook's ids, a service account's private key, an
    assignment's value alone."""
    found = [
        v for v in (message.get("data") or {}).values() if isinstance(v, str) and len(v) >= 6 and v in text
    ]
    if found:
        value = found[0]
    else:
        a, b = message["range"]
        value = text[a:b]
    if value.lstrip().startswith("{"):
        key = PRIVATE_KEY_FIELD.search(value)  # a service account's JSON: its private key
        return key.group("v") if key is not None else value
    m = URL_PASSWORD.search(value)
    if m is not None:
        return m.group("pw").rsplit("@", 1)[0] if "@" in m.group("pw") else m.group("pw")
    if "://" in value:
        return recall_np.secret_of(value)  # a webhook: the ids after its host and path words
    m = ASSIGNED.match(value)
    return m.group("v") if m is not None else value


def samples_from(
    rule: str, case: str, text: str, messages: list[dict], left: dict[str, int]
) -> list[rc.Sample]:
    """The tp sample of one ``ng.`` snapshot (``rule``: its package, ``case``: its folder), or none
    when what it reports is left out (counted in ``left``)."""
    if any(rule.endswith(f"rule-{r}") for r in NO_SECRET_RULES):
        left["no_secret_rules"] += 1
        return []
    secrets = []
    for m in messages:
        if IDENTIFIER_MESSAGES.search(m.get("messageId", "")):
            left["identifiers"] += 1
            continue
        v = secret_of(text, m)
        if len(v) < MIN_SECRET:
            left["short"] += 1
            continue
        if v not in secrets:
            secrets.append(v)
    if not secrets:
        return []
    family = rule.removeprefix("secretlint-rule-")
    return [rc.Sample(f"{family}:{case}", family, "tp", text, tuple(secrets))]


def load_samples(repo: Path) -> tuple[list[rc.Sample], dict[str, int]]:
    names = recall_np._git(repo, "ls-tree", "-r", "--name-only", "HEAD", PACKAGES).splitlines()
    left = {"no_secret_rules": 0, "identifiers": 0, "short": 0, "binary": 0}
    out: list[rc.Sample] = []
    for name in names:
        parts = name.split("/")  # packages/@secretlint/<rule>/test/snapshots/ng.<case>/input.<ext>
        if len(parts) != 7 or parts[3:5] != ["test", "snapshots"] or not parts[5].startswith("ng."):
            continue
        if not parts[6].startswith("input"):
            continue
        if name.endswith(".p12"):
            left["binary"] += 1
            continue
        folder = name.rsplit("/", 1)[0]
        try:
            text = recall_np._git(repo, "show", f"HEAD:{name}")
            report = json.loads(recall_np._git(repo, "show", f"HEAD:{folder}/output.json"))
        except (subprocess.CalledProcessError, json.JSONDecodeError, UnicodeDecodeError):
            continue
        out += samples_from(parts[2], parts[-2], text, report.get("messages", []), left)
    return out, left


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n")[1],
    )
    ap.add_argument(
        "--repo", type=Path, default=REPO, help="secretlint's git directory (default: %(default)s)."
    )
    ap.add_argument("--harness", default=",".join(rc.HARNESSES), help="Comma-separated harnesses.")
    ap.add_argument("--places", default=",".join(rc.PLACES), help="Comma-separated places.")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-session", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--keep", type=Path, help="Work in this (new) folder and keep the corpus and output.")
    ap.add_argument("--families", type=int, default=60)
    ap.add_argument(
        "--json", type=Path, metavar="FILE", help="Write the summary and every failing planting here."
    )
    ap.add_argument("--check", action="store_true", help="Exit 1 below bench/recall.py's recall target.")
    args = ap.parse_args(argv)
    if not (args.repo / "HEAD").exists() and not (args.repo / ".git").exists():
        ap.error(f"{args.repo} is not a git directory of secretlint (--repo)")
    harnesses = rc._names(args.harness, [w.harness for w in rc.WRITERS], "harness")
    places = rc._names(args.places, rc.PLACES, "place")
    samples, left = load_samples(args.repo)
    if not samples:
        ap.error("no snapshot found: is --repo secretlint's repository?")
    c, run, seconds, output = rc.planted_run(
        args, samples, harnesses, places, "tracepub-recall-sl-", recall_np.read_sessions
    )
    results = rc.score(c.plantings, output)
    s = rc.summary(results)
    print(rc.render(results, args.families))
    print(
        f"\n{len(samples)} snapshots ({sum(len(x.secrets) for x in samples)} secrets; left out: "
        f"{', '.join(f'{k} {v}' for k, v in left.items())}) x {len(harnesses)} harnesses x {len(places)} places"
        f" = {len(results)} plantings; corpus {c.bytes / 1e6:.1f} MB, redacted in {seconds:.1f} s."
    )
    miss = [
        m for m in rc.missed(s) if m.startswith("tp")
    ]  # (no look-alikes: the ok. snapshots are whole files)
    print("Target met." if not miss else "Target missed: " + "; ".join(miss))
    if args.json:
        doc = {
            "summary": s,
            "targets": rc.TARGETS,
            "repo": str(args.repo),
            "commit": recall_np._git(args.repo, "rev-parse", "HEAD").strip(),
            "failures": rc.failures_json(results),
        }
        args.json.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"{len(doc['failures'])} failing plantings written to {args.json}")
    return 1 if args.check and miss else 0


if __name__ == "__main__":
    sys.exit(main())
