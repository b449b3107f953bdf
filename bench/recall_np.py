"""Secret recall on suites of YAML rules nobody here wrote: Nosey Parker's and Kingfisher's examples.

    python bench/recall_np.py                                     # Nosey Parker: every example, harness, place
    python bench/recall_np.py --suite kingfisher                  # Kingfisher's rule examples
    python bench/recall_np.py --limit 100 --harness claude_code,codex
    python bench/recall_np.py --json /tmp/recall-np.json --check

bench/recall.py measures on gitleaks' rule examples; the fixes made against it could fit that one
suite's habits (its generated `KEY := "value"` lines). Nosey Parker's rules (praetorian-inc/
noseyparker, `crates/noseyparker/data/default/builtin/rules/*.yml`) carry `examples` written
from what its authors met in public code (Gradle files, `.npmrc`, ODBC strings, curl lines,
Jenkins XML) and `negative_examples` that look like secrets but are not. A second opinion, of
another hand.

``--suite kingfisher``: MongoDB's Kingfisher (mongodb/kingfisher, `data/rules/*.yml`) grew from
Nosey Parker's rule format (same ``pattern`` / ``examples`` keys) and carries some 640 rule files,
many for vendors no other suite names, with examples written as its authors met them (``vendor
SECRET value``, glued ``vendorTOKEN:value``); it has few negative examples, so its fp figure
rests on a handful. A third opinion, and the widest one on vendors.

``--suite titus``: Praetorian's Titus (praetorian-inc/titus, `pkg/rule/rules/*.yml`), Nosey Parker's
successor, in the same format: Nosey Parker's rules with newer examples, and newer copies of Kingfisher's
(``kingfisher.*`` ids, ``visible: false`` helpers among them) with examples neither of those two suites
holds (516 of its 1,081 examples are in neither). A fourth opinion, on the newest vendors.

The rules are read at run time from a git checkout of the suite's repository (``--repo``: a bare
or normal git directory; its newest commit's rule files are read with ``git show``), never copied
into this tree. An example's secrets are what the rule itself captures: every non-empty group
of its pattern (Rust regex syntax, compiled with the ``regex`` module) on the example; an
example its own rule does not match is skipped. What a rule captures beside its secret is left out
of the score and counted in the "left out" line (an example with nothing left to score is left out
whole): ``identifier_rules``, rules labelled or named for an identifier (Nosey Parker's
``identifier`` category; a hidden Kingfisher rule named for an id, a name, a host, an identifier or an
organisation, a parenthesised qualifier after it; any rule named
for a client id, a public key, a recipient or a URL that names no secret); captures the pattern marks
as context (a user, a host, a client id by its comment, the words before it, its own opening or its
group name: ``(?P<owner>...)``, ``(?P<cred_name>...)``, ``CONTEXT_NAME``);
``url_parts``, the user and host around a URL's password; ``references_masks``, a variable reference
or a mask in a secret's place (``$Password``, ``%nothing%``, ``#{...}``, ``######``, the word
``password`` itself, a ``YOUR...`` fill-in);
``documents_code``, a whole JSON document around a secret, or a string literal joined by ``+`` to a
variable. A PEM armour line stands for its block (the whole match is scored); a match with no
capture is scored without the vendor's name and label words it starts with (``launchdarkly-secret-``),
and a capture without a trailing run of three or more dots (filler, not key); a capture that
is a whole connection string is scored by its password parameter (``...;password=V``). Each example is
then planted exactly as bench/recall.py plants gitleaks' samples (6 harnesses x 4 places, canaries, the real
``tracepub redact`` in a subprocess) and scored the same way: fully redacted / partial /
leaked for the examples, kept for the negative examples (their longest token must survive).
Only the session files are scored: the dataset card (README.md) lists the redaction types and
their counts, and a common word used as a password (``secret``) in its type table is no leak of
the planting (the card is checked by the publish re-scan); file names still count.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import regex

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import recall as rc  # noqa: E402
import yaml  # noqa: E402

# suite -> (its git directory on this machine, the folder of its rule files)
SUITES = {
    "noseyparker": (
        Path("/work/.mirror/praetorian-inc+noseyparker/repo"),
        "crates/noseyparker/data/default/builtin/rules/",
    ),
    "kingfisher": (Path("/work/.mirror/mongodb+kingfisher/repo"), "data/rules/"),
    "titus": (Path("/work/.mirror/praetorian-inc+titus/repo"), "pkg/rule/rules/"),
}
REPO, RULES = SUITES["noseyparker"]
MIN_SECRET = 6  # a shorter capture (a user name, a port) is context, not the secret measured
# A capture its rule comments as one of these (``([a-z0-9]+) (?# username)``) is context, not secret.
CONTEXT_GROUP = re.compile(
    r"user|host|port|domain|region|partition|service|resource|account|organi[sz]ation|client id|etype|salt"
    r"|magic|rounds|path|bucket|scheme|variable|header|prefix|suffix",
    re.IGNORECASE,
)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


# A capture whose value is one of these is context, not the secret: a host (``db.example.com:5432``),
# an email address or login, a URL without a path, a Google OAuth client id, an XML/INI key name.
CONTEXT_VALUE = re.compile(
    r"(?:[\w-]+\.)+[A-Za-z]{2,}(?::\d{1,5})?/?|[^@\s]+@[^@\s]+|[A-Za-z][\w+.-]*://[^/\s]+/?"
    r"|\d{6,}-[a-z0-9]{20,}(?:\.apps\.googleusercontent\.com)?|\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?"
)
# Words of the pattern right before a capture that say it holds the user, host or id beside a secret.
CONTEXT_BEFORE = re.compile(
    r"(?i:user|login|host|domain|client.?id|\bid\b|url|endpoint|email|machine|accountname|server|ldap|smtp)"
    r"[^(]{0,60}\Z"
)
# A capture whose own literal opening names it (``( machine \s+ ...)``, Blynk's ``(oa2-client-id_...)``).
CONTEXT_START = re.compile(r"\s*(?i:(?:machine|user|login|host)\b|[a-z0-9]{0,8}[-_]?client[-_.]?id)")
# With other captures beside it, a code name holding a secret word is the name, not the value
# (``<add key="FromEmailPassword" value="...">``).
KEY_NAME = re.compile(r"(?:[A-Z][a-z]+){2,}\w*")  # (``ConnectionString_B2B`` too)
SECRET_WORD = re.compile(r"(?i:pass|secret|token|key|user|admin|connection)")
# A webhook's scheme, host and fixed path words are public; the ids after them are the secret.
URL_PREFIX = re.compile(r"[A-Za-z][\w+.-]*://[^/\s]+/(?:[A-Za-z]+/)*")


def group_spans(pattern: str) -> dict[int, tuple[int, int]]:
    """Each capture group's number -> (its opening, its closing) offsets in the pattern text."""
    out: dict[int, tuple[int, int]] = {}
    stack: list[tuple[int | None, int]] = []
    n = 0
    i, end = 0, len(pattern)
    in_class = False
    while i < end:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern.startswith("[]", i) or pattern.startswith("[^]", i):
                i += 2 if pattern[i + 1] == "]" else 3
                continue
        elif c == "(":
            if pattern.startswith("(?#", i):
                j = pattern.find(")", i)
                i = end if j < 0 else j + 1
                continue
            capturing = not pattern.startswith("(?", i) or pattern.startswith("(?P<", i)
            if capturing:
                n += 1
            stack.append((n if capturing else None, i))
        elif c == ")" and stack:
            g, start = stack.pop()
            if g is not None:
                out[g] = (start, i)
        i += 1
    return out


# A named capture whose name is one of these holds what identifies or locates, not what authenticates:
# a client, app or account id, a key's or account's name, a user, a host, a port, a domain, a URL, a
# path, a repository and its owner, a service, a registry, a data centre (``(?P<dc>us13)``), a
# database, an organisation (``(?P<azure_devops_org>...)``). A name holding a secret word
# (``key_id``, ``token_id``, ``webhook_base``) or a webhook's ids (``user_id``, ``hook_id``) is scored.
CONTEXT_NAME = re.compile(
    r"(?i:(?:client_|app_?|account_)?id|(?:cred_|account_)?name|user(?:name)?|(?:site_)?domain|host|port"
    r"|(?:bucket_)?url|endpoint|arn|(?:repo_)?path|owner|repo|service(?:_alt)?|reg|dc|db|(?:\w+_)?org)"
)
GROUP_NAME = re.compile(r"\(\?P<(\w+)>")


def context_groups(pattern: str) -> set[int]:
    """Captures the rule itself marks as context: by the comment after them (``"(...)" (?# username)``),
    by the words of the pattern between the previous capture and them (``login\\s+(\\S+)``,
    ``(?: AccountName | ...) \\s*=\\s* (...)``), by a word they start with (``( machine \\s+ ...)``), or
    by their name (``CONTEXT_NAME``: ``(?P<owner>...)``, ``(?P<cred_name>...)``)."""
    out = set()
    prev = 0
    for g, (a, b) in sorted(group_spans(pattern).items()):
        after = re.match(r"[^()\n]{0,4}?\s*\(\?#([^)]*)\)", pattern[b + 1 :])
        before = re.sub(r"\(\?#[^)]*\)", "", pattern[prev:a])[-80:]
        named = GROUP_NAME.match(pattern, a)
        if named is not None and CONTEXT_NAME.fullmatch(named.group(1)):
            out.add(g)
        elif after is not None:
            if CONTEXT_GROUP.search(after.group(1)):
                out.add(g)
        elif CONTEXT_BEFORE.search(before) or CONTEXT_START.match(pattern, a + 1):
            out.add(g)
        prev = max(prev, b)
    return out


# A capture that is a whole URL with user-info (Kingfisher's postgres rules): its password is the secret.
URL_USERINFO = re.compile(r"[A-Za-z][\w+.-]*://[^:@/\s]*:(?P<pw>[^\s/]+)@[^@\s]+\Z")


# A capture that is a whole connection string with its password as a parameter (Kingfisher's JDBC rule:
# ``jdbc:postgresql://db.example.com:5432/app?user=admin&password=...``): the password is the secret,
# the driver, host, database and user around it are context.
CONN_PASSWORD = re.compile(r"(?i)(?:jdbc:|[A-Za-z][\w+.-]*://)[^\s]*?[;?&](?:password|pwd)=(?P<pw>[^;&\s]+)")


def secret_of(value: str) -> str:
    """The part of a capture that is secret: a webhook URL without its scheme, host and path words;
    a URL's password without the scheme, user and host around it; a connection string's password
    parameter without the rest of it."""
    u = URL_USERINFO.match(value) or CONN_PASSWORD.match(value)
    if u is not None:
        return u.group("pw")
    m = URL_PREFIX.match(value)
    return value[m.end() :] if m and len(value) - m.end() >= 16 else value


# What a rule captured that is no secret value, whatever the rule (``not_secret``):
# - ``url_parts``: a URL's user-info user (right after ``://``, before ``:``) or its host (right
#   after ``@``), when a rule captures user, password and host of ``https://user:pw@host`` alike;
# - ``references_masks``: a reference to a value kept elsewhere or a mask over it, not the value:
#   a shell, PowerShell or batch variable (``$Password``, ``${DB_PASS}``, ``%nothing%``), a template
#   or Ruby interpolation (``{{ pass }}``, ``#{datastore['DBPASSWORD']}``), a run of one mask
#   character (``######``, ``****``), with the ``=``, quote or separator the capture took beside it
#   (both suites' own generic rules refuse a first ``$``, ``%`` or ``#`` for this reason), or the
#   word for the secret standing in its place (``amqp://user:password@host``, ``-p PASSWORD``) or
#   a fill-in to replace (``YOURPASSWORD``, ``YOUR_..._SECRET_GOES_HERE``);
# - ``documents_code``: a whole JSON document the rule captures to hold its secret (GCP's service
#   account object: the secrets in it are other rules' examples), or a string literal that ``+``
#   joins to a variable (``"application:" + appKey``: the secret is built from variables).
REFERENCE = re.compile(  # (quoted too: PowerShell's -Password "$password")
    r"""[=:]?\s*["']?(?:\$\{?[A-Za-z_]\w*\}?|\$\([^)]*\)|%[A-Za-z_]\w*%|\#\{[^}]*\}|\{\{[^}]*\}\}|([\#*xX\u2022])\1{3,})"""
    r"""["'\s;,]*"""
)
STAND_IN = re.compile(r"(?i:pass(?:word|wd)?|your[\w-]*)")
DOCUMENT = re.compile(r"""\s*\{[\s\S]*"[\w-]+"\s*:[\s\S]*\}\s*""")
JOINED = re.compile(r"""\s*["']\s*\+\s*[A-Za-z_]""")
HOSTNAME = re.compile(r"[\w.-]+(?::\d{1,5})?")
# A capture that is a PEM armour line (Kingfisher's encrypted-key rule captures only its BEGIN line)
# stands for the block its rule matched: the key is the body, the whole match is scored.
ARMOUR = re.compile(r"-----BEGIN [A-Z0-9 ]+-----")
# A run of three or more dots that ends a capture is an ellipsis or filler its class let in (Front's
# example pads its key to length with dots), not the key; one dot can end a crypt hash (``./0-9A-Za-z``).
FILLER = re.compile(r"\.{3,}\Z")
# With no capture, the match begins with the vendor's name and a label (``launchdarkly-secret-``):
# the words the rule needs to find the value, not the secret scored.
LABEL_WORDS = r"(?:[-_.\s]*(?:secret|private|access|key|token|api|sdk|auth))*[-_.\s]+"


def not_secret(example: str, start: int, end: int) -> str:
    """Why the capture ``example[start:end]`` is no secret value (a key of ``load_samples``' left-out
    counts; the comments above), or "" if it is one."""
    value = example[start:end]
    if "://" in example[:start] and (
        example.endswith("://", 0, start)
        and example.startswith(":", end)
        or example.endswith("@", 0, start)
        and HOSTNAME.fullmatch(value)
    ):
        return "url_parts"
    if REFERENCE.fullmatch(value) or STAND_IN.fullmatch(value):
        return "references_masks"
    if DOCUMENT.fullmatch(value) or JOINED.match(example, end):
        return "documents_code"
    return ""


def without_label(value: str, rule_id: str) -> str:
    """A whole match without the vendor's name and label words it starts with (``LABEL_WORDS``)."""
    vendor = rule_id.split(".")[1] if rule_id.count(".") >= 2 else ""
    m = regex.match(rf"(?i){regex.escape(vendor)}{LABEL_WORDS}", value) if vendor else None
    return value[m.end() :] if m and len(value) - m.end() >= MIN_SECRET else value


# Kingfisher's ``visible: false`` rules are not findings it reports: they capture what another rule's
# validation needs beside the secret. Those named for an id, a name, a host or a URL (an Azure storage
# account name, an Auth0 client id, a Salesforce instance) are identifiers, as Nosey Parker's
# ``identifier`` category says; a hidden rule named for a key or a token (AWS's key id, Trello's token)
# stays a secret.
HIDDEN_ID_NAME = re.compile(
    r"\b(?:id|name|username|domain|host|url|email|identifier|organi[sz]ation)(?:\s*\([^)]*\))?\s*$",
    re.IGNORECASE,
)
HIDDEN_SECRET_NAME = re.compile(r"key|token|secret|password", re.IGNORECASE)
# Any rule, shown or hidden, named for what identifies rather than authenticates: a client or app id
# (Bitbucket's, GitHub's, LinkedIn's ``... Client ID``), a public key or an age recipient (X25519
# public keys, made to be shared), a service URL (``Azure Search URL``). Nosey Parker files the same
# rules under ``identifier``; Kingfisher gives most of them no category. A name that also says a
# secret (``Credentials in a URL``, ``... URL with hardcoded password``, a webhook URL, which is the
# secret itself) or ends in another word (``CodeClimate Reporter ID``, a token) stays a secret rule.
ID_RULE_NAME = re.compile(
    r"\b(?:(?:client|app|application|product|organi[sz]ation|bot|account|tenant|project)\s+id(?:entifier)?"
    r"|public\s+key|recipient|ur[li])\W*$",
    re.IGNORECASE,
)
ID_RULE_SECRET = re.compile(r"token|secret|password|credential|webhook|private|connection", re.IGNORECASE)


def _identifier_rule(rule: dict) -> bool:
    """The rule finds an identifier, not a secret: a hidden rule named for an id, a name or a host,
    or any rule named for a client id, a public key, a recipient or a URL (the comments above)."""
    name = str(rule.get("name") or "")
    hidden = (
        rule.get("visible") is False
        and HIDDEN_ID_NAME.search(name) is not None
        and HIDDEN_SECRET_NAME.search(name) is None
    )
    return hidden or ID_RULE_NAME.search(name) is not None and ID_RULE_SECRET.search(name) is None


def read_rules(repo: Path, rules_dir: str = RULES) -> list[dict]:
    """Every rule of the suite's YAML files in ``rules_dir``, as its newest commit has them."""
    files = [
        f for f in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", rules_dir).split() if f.endswith(".yml")
    ]
    rules: list[dict] = []
    for f in sorted(files):
        doc = yaml.safe_load(_git(repo, "show", f"HEAD:{f}")) or {}
        rules += doc.get("rules") or []
    return rules


def identifier_rule(rule: dict) -> bool:
    """The rule finds an identifier, not a secret: Nosey Parker's own ``identifier`` category (without
    ``secret``), or its name says so (``_identifier_rule``)."""
    cats = set(rule.get("categories") or ())
    return "identifier" in cats and "secret" not in cats or _identifier_rule(rule)


def load_samples(repo: Path, rules_dir: str = RULES) -> tuple[list[rc.Sample], dict[str, int]]:
    """The examples of every rule as tp samples and the negative examples as fp samples, with counts
    of what was left out: examples the rule's own pattern does not capture, rules labelled
    ``identifier`` and not ``secret`` by Nosey Parker (ARNs, buckets, client ids), and negative
    examples another of its rules takes as a secret (a Slack token is a negative of the rule for
    another Slack shape: it is no look-alike)."""
    rules = read_rules(repo, rules_dir)
    left = dict.fromkeys(
        ("uncaptured", "identifier_rules", "url_parts", "references_masks", "documents_code"), 0
    )
    left["negatives_other_rule"] = 0
    secret_rules = []
    for rule in rules:
        if identifier_rule(rule):
            left["identifier_rules"] += 1
            continue  # the rule's own label: an id, a bucket, a public key (PII's or nobody's)
        secret_rules.append((rule, regex.compile(rule["pattern"])))
    out: list[rc.Sample] = []
    for rule, rx in secret_rules:
        rid = str(rule["id"])
        context = context_groups(rule["pattern"])
        for n, ex in enumerate(rule.get("examples") or []):
            m = rx.search(ex)
            caps = m.groups() if m else ()
            groups, why = [], []
            for k, g in enumerate(caps, 1):
                if (
                    not g
                    or len(g) < MIN_SECRET
                    or k in context
                    or CONTEXT_VALUE.fullmatch(g)
                    or len(caps) > 1
                    and KEY_NAME.fullmatch(g)
                    and SECRET_WORD.search(g)
                ):
                    continue
                reason = not_secret(ex, *m.span(k))  # type: ignore[union-attr]
                if reason:
                    why.append(reason)
                elif ARMOUR.fullmatch(g):
                    groups.append(m.group(0))  # type: ignore[union-attr]
                else:
                    groups.append(secret_of(FILLER.sub("", g) if len(FILLER.sub("", g)) >= MIN_SECRET else g))
            if not groups and not why and m and not m.groups() and len(m.group(0)) >= MIN_SECRET:
                groups = [without_label(secret_of(m.group(0)), rid)]
            if not groups:
                left[why[0] if why else "uncaptured"] += 1
                continue
            out.append(rc.Sample(f"{rid}:tp{n}", rid, "tp", ex, tuple(dict.fromkeys(groups))))
        for n, ex in enumerate(rule.get("negative_examples") or []):
            if any(orx.search(ex) for other, orx in secret_rules if other is not rule):
                left["negatives_other_rule"] += 1
                continue
            out.append(rc.Sample(f"{rid}:fp{n}", rid, "fp", ex))
    return out, left


def read_sessions(dataset: Path) -> rc.Output:
    """bench/recall.py's reading of the output with the dataset card left out of the text every
    planting is scored against (the module docstring says why); file names stay in it."""
    out = rc.read_output(dataset)
    out.common = "\n".join(
        p.relative_to(dataset).as_posix() for p in sorted(dataset.rglob("*")) if p.is_file()
    )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n")[1],
    )
    ap.add_argument(
        "--suite", choices=sorted(SUITES), default="noseyparker", help="Rule suite (default: %(default)s)."
    )
    ap.add_argument("--repo", type=Path, help="The suite's git directory (default: its mirror, see SUITES).")
    ap.add_argument("--harness", default=",".join(rc.HARNESSES), help="Comma-separated harnesses.")
    ap.add_argument("--places", default=",".join(rc.PLACES), help="Comma-separated places.")
    ap.add_argument("--limit", type=int, help="At most this many samples, spread over the rules.")
    ap.add_argument("--family", help="Only rule ids matching this regex.")
    ap.add_argument("--kind", choices=["tp", "fp"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-session", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--keep", type=Path, help="Work in this (new) folder and keep the corpus and output.")
    ap.add_argument("--families", type=int, default=60)
    ap.add_argument(
        "--json", type=Path, metavar="FILE", help="Write the summary and every failing planting here."
    )
    ap.add_argument("--check", action="store_true", help="Exit 1 below bench/recall.py's targets.")
    args = ap.parse_args(argv)
    default_repo, rules_dir = SUITES[args.suite]
    args.repo = args.repo or default_repo
    if not (args.repo / "HEAD").exists() and not (args.repo / ".git").exists():
        ap.error(f"{args.repo} is not a git directory of the {args.suite} suite (--repo)")
    harnesses = rc._names(args.harness, [w.harness for w in rc.WRITERS], "harness")
    places = rc._names(args.places, rc.PLACES, "place")
    all_samples, left = load_samples(args.repo, rules_dir)
    samples = rc.subsample(all_samples, args.limit, args.seed, args.family, args.kind)
    if not samples:
        ap.error("no sample left after --family/--kind/--limit")
    c, run, seconds, output = rc.planted_run(
        args, samples, harnesses, places, "tracepub-recall-np-", read_sessions
    )
    results = rc.score(c.plantings, output)
    s = rc.summary(results)
    print(rc.render(results, args.families))
    print(
        f"\n{len(samples)} samples ({sum(x.kind == 'tp' for x in samples)} tp; left out: "
        f"{', '.join(f'{k} {v}' for k, v in left.items())}) x {len(harnesses)} harnesses x {len(places)} places = "
        f"{len(results)} plantings; corpus {c.bytes / 1e6:.1f} MB, {run.get('files', '?')} files, "
        f"redacted in {seconds:.1f} s."
    )
    miss = rc.missed(s)
    print("Targets met." if not miss else "Targets missed: " + "; ".join(miss))
    if args.json:
        doc = {
            "summary": s,
            "targets": rc.TARGETS,
            "suite": args.suite,
            "repo": str(args.repo),
            "commit": _git(args.repo, "rev-parse", "HEAD").strip(),
            "failures": rc.failures_json(results),
        }
        args.json.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"{len(doc['failures'])} failing plantings written to {args.json}")
    return 1 if args.check and miss else 0


if __name__ == "__main__":
    sys.exit(main())
