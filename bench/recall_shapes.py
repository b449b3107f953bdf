"""Secret recall on random values of other projects' key shapes, in the places secrets sit.

    python bench/recall_shapes.py                          # Kingfisher's shapes, every template, one harness
    python bench/recall_shapes.py --suite noseyparker --harness claude_code,codex --places prompt,read
    python bench/recall_shapes.py --json /tmp/shapes.json  # every failing planting

bench/recall_np.py plants other suites' *examples*, which their authors wrote by hand: runs and
fills (``abcdef1234567890``) and the places their rules happened to need. This bench asks the
other half of the question: does a *real-looking* value of each rule's shape survive in the
places people and agents write secrets? For every rule of the suite (Kingfisher's or Nosey
Parker's YAML rules, read at run time from a fetched copy of the repository, as recall_np.py
reads them; nothing of theirs is committed) the pattern of its secret's capture group is drawn
from with hypothesis' ``from_regex`` (derandomized: the same values every run), one value per
template, each used once (a value found once is redacted everywhere in the dataset, so a shared
value would hide a place that misses it): 16-200 printable ASCII characters with some entropy (a
shape's degenerate draws, ``0000...``, and values holding quotes, blanks, ``<>`` or a URL, which the
templates cannot hold, are skipped), put in ``TEMPLATES`` under the rule's vendor name (``ASANA_API_KEY=V``,
``Authorization: Bearer V``, ``<apiKey>V</apiKey>``, ``gh secret set X --body V``, ``here's the asana
key: V``...). Rules labelled identifiers (recall_np.py's rule) and rules whose capture is context
(a user, a host) are left out; so are rules with more than one secret capture.

The samples are then planted and scored as bench/recall.py does (harnesses x places, the real
``tracepub redact`` in a subprocess): a value counts as fully redacted only if none of it survives
anywhere. The table by family is by template: a template that fails for many shapes is a place the
detectors do not read whole; a rule that fails in every template is a shape no place accepts.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import warnings
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import recall as rc  # noqa: E402
import recall_np as np_  # noqa: E402

# Where a secret sits, written as people and agents write it: {V} the vendor's name upper case,
# {l} lower case, {C} capitalised, {v} the value.
TEMPLATES = {
    "env": "{V}_API_KEY={v}",
    "export": 'export {V}_TOKEN="{v}"',
    "dotenv-quoted": "{V}_ACCESS_TOKEN='{v}'",
    "env-secret": "{V}_SECRET={v}",
    "env-key": "{V}_KEY={v}",
    "yaml": "{l}:\n  api_key: {v}\n",
    "toml": '[{l}]\ntoken = "{v}"\n',
    "ini": "[{l}]\napi_secret = {v}\n",
    "properties": "{l}.api.secret={v}",
    "json": '{{"{l}ApiKey": "{v}"}}',
    "xml": "<{l}>\n  <apiKey>{v}</apiKey>\n</{l}>",
    "python": '{l}_api_key = "{v}"',
    "javascript": 'const {l}ApiKey = "{v}";',
    "go": '{l}Token := "{v}"',
    "php": "$config['{l}_api_key'] = '{v}';",
    "make": "{V}_TOKEN := {v}",
    "java": 'System.setProperty("{V}_API_KEY", "{v}");',
    "call": '{C}Client(api_key="{v}")',
    "bearer": 'curl -H "Authorization: Bearer {v}" https://api.{l}.com/v1/me',
    "header": "curl -H 'X-Api-Key: {v}' https://api.{l}.com",
    "url-query": "https://api.{l}.com/v1/data?api_key={v}",
    "gh-secret": "gh secret set {V}_TOKEN --body {v}",
    "flag": "{l}-cli login --api-key {v}",
    "flag-equals": "{l} deploy --token={v}",
    "docker-env": "docker run -e {V}_API_KEY={v} app",
    "prose": "my {l} key is {v}",
    "handed": "here's the {l} key: {v}",
    "label": "{l} token: {v}",
}
# Each value goes into one template only: a value found in one place is redacted everywhere in the
# dataset (the found-once rule), so a value shared by templates would hide the places that miss it.
VALUES_PER_RULE = len(TEMPLATES)
_UNFIT = re.compile(r"""[\s"'`<>{}\\]|://""")


def _shannon(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def draw(pattern: str, flags: int, k: int = VALUES_PER_RULE) -> list[str]:
    """Up to ``k`` values the capture's pattern matches whole, fit for the templates, the same every run."""
    try:
        strategy = st.from_regex(re.compile(pattern, flags), fullmatch=True)
    except (re.error, ValueError, TypeError):
        return []  # Rust syntax Python's re does not read: the rule is left out
    seen: list[str] = []

    @settings(
        derandomize=True,
        max_examples=4 * k,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(v: str) -> None:
        fit = 16 <= len(v) <= 200 and v.isascii() and v.isprintable() and not _UNFIT.search(v)
        if fit and _shannon(v) >= 3.2 and v not in seen and len(seen) < k:
            seen.append(v)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            collect()
        except Exception:  # noqa: BLE001 (hypothesis gives up on some shapes: the rule is left out)
            return seen
    return seen


def _capture(pattern: str) -> tuple[str, int] | None:
    """The rule's one secret capture as a Python pattern and its flags, or None."""
    spans = np_.group_spans(pattern)
    context = np_.context_groups(pattern)
    secret = [g for g in spans if g not in context]
    if len(secret) != 1 or len(spans) - len(context) != 1:
        return None
    a, b = spans[secret[0]]
    head = pattern.lstrip()[:8]
    flags = (re.VERBOSE if "x" in head.split(")")[0] else 0) | (
        re.IGNORECASE if head.startswith("(?") and "i" in head.split(")")[0] else 0
    )
    body = pattern[a + 1 : b]
    body = re.sub(r"^\?P<\w+>", "", body)
    return re.sub(r"\\b", "", body), flags


def load_samples(repo: Path, rules_dir: str) -> tuple[list[rc.Sample], Counter]:
    """A sample per drawn value and template, and counts of the rules left out (identifiers, as
    recall_np.py leaves them out, rules named for one, rules whose capture gives no value)."""
    left: Counter = Counter()
    out: list[rc.Sample] = []
    for rule in np_.read_rules(repo, rules_dir):
        if np_.identifier_rule(rule):
            left["identifier_rules"] += 1
            continue
        if re.search(
            r"\b(?:id|url|uri|username|user|host|domain|email|public)\b", str(rule.get("name") or ""), re.I
        ):
            left["identifier_names"] += 1
            continue
        cap = _capture(str(rule.get("pattern") or ""))
        values = draw(*cap) if cap is not None else []
        if not values:
            left["no_capture_or_draw"] += 1
            continue
        rid = str(rule["id"])
        vendor = re.sub(r"[^a-z0-9]", "", rid.split(".")[1] if "." in rid else rid.lower()) or "acme"
        # fewer values than templates: the last templates go without (a value is never shared)
        for (tname, t), v in zip(TEMPLATES.items(), values, strict=False):
            text = t.format(V=vendor.upper(), l=vendor, C=vendor.capitalize(), v=v)
            out.append(rc.Sample(f"{rid}:{tname}", tname, "tp", text, (v,)))
    return out, left


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--suite", choices=sorted(np_.SUITES), default="kingfisher")
    ap.add_argument("--repo", type=Path, help="The suite's git directory (default: its mirror).")
    ap.add_argument(
        "--harness", default="claude_code", help="Comma-separated harnesses (default: %(default)s)."
    )
    ap.add_argument("--places", default="prompt", help="Comma-separated places (default: %(default)s).")
    ap.add_argument("--limit", type=int, help="At most this many samples, spread over the templates.")
    ap.add_argument("--family", help="Only templates matching this regex.")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-session", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--keep", type=Path, help="Work in this (new) folder and keep the corpus and output.")
    ap.add_argument("--families", type=int, default=len(TEMPLATES))
    ap.add_argument("--json", type=Path, metavar="FILE", help="Write the summary and every failing planting.")
    args = ap.parse_args(argv)
    default_repo, rules_dir = np_.SUITES[args.suite]
    repo = args.repo or default_repo
    if not (repo / "HEAD").exists() and not (repo / ".git").exists():
        ap.error(f"{repo} is not a git directory of the {args.suite} suite (--repo)")
    harnesses = rc._names(args.harness, [w.harness for w in rc.WRITERS], "harness")
    places = rc._names(args.places, rc.PLACES, "place")
    all_samples, left = load_samples(repo, rules_dir)
    samples = rc.subsample(all_samples, args.limit, args.seed, args.family, None)
    if not samples:
        ap.error("no sample left after --family/--limit")
    c, run, seconds, output = rc.planted_run(
        args, samples, harnesses, places, "tracepub-recall-shapes-", np_.read_sessions
    )
    results = rc.score(c.plantings, output)
    s = rc.summary(results)
    print(rc.render(results, args.families))
    rules = len({x.id.rsplit(":", 1)[0] for x in samples})
    print(
        f"\n{len(samples)} samples ({rules} rules, a value each in up to {len(TEMPLATES)} templates; "
        f"left out: {', '.join(f'{k} {v}' for k, v in sorted(left.items()))}) x {len(harnesses)} harnesses x "
        f"{len(places)} places = {len(results)} plantings; redacted in {seconds:.1f} s."
    )
    if args.json:
        doc = {"summary": s, "suite": args.suite, "failures": rc.failures_json(results)}
        args.json.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"{len(doc['failures'])} failing plantings written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
