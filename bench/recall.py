"""Secret recall on text nobody in this project wrote: gitleaks' own rule examples.

    python bench/recall.py                                  # every sample, harness and place
    python bench/recall.py --harness claude_code,codex --places prompt,read --limit 200
    python bench/recall.py --json /tmp/recall-failures.json --check

Our rule pack's examples are our own guesses of what a credential looks like, and the labelled
evaluation (bench/eval.py) plants values drawn from those same examples, so it cannot show a
shape we never thought of. gitleaks' per-rule true and false positives are a second opinion:
written by other people, in the surroundings they met them in (XML, PHP, curl lines, YAML).

Every sample's ``input`` is planted, unchanged, in sessions of every harness tracepub reads and
in four places: the user's prompt, a shell tool's output, a file-read tool result, and a JSON
tool argument (a write tool's ``content``; a JSON string inside a string where the harness
stores arguments that way). Each sample x harness x place has its own canary
(``recallref-<harness>-<n>``) in the record that opens the planting (the prompt, the tool call's
command or path), so the published bytes can be mapped back; a record without a canary belongs
to the planting before it (a tool's result follows its call). The real ``tracepub redact`` runs
as a subprocess with a clean environment and a fake HOME, as in bench/eval.py.

A true positive is *fully redacted* when none of its secrets survives whole and no 16-character
piece of one does (*partial* when only pieces survive, *leaked* when a whole secret does); a
false positive is *kept* when its ``keep`` text survives. The samples file is read at run time
from /work/shared (``--samples``); nothing of it is committed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import corpus_fake as fk  # noqa: E402
import orjson  # noqa: E402
from corpus import build_home  # noqa: E402
from corpus_formats import WRITERS, Call, Session, Step, Writer  # noqa: E402
from eval import _strings, run_redact  # noqa: E402

SAMPLES = Path("/work/shared/external-secrets/gitleaks-samples.json")
HARNESSES = ("claude_code", "codex", "pi", "gemini", "opencode", "hermes")
PLACES = ("prompt", "shell", "read", "json_arg")
TARGETS = {"tp_fully_redacted": 0.97, "fp_kept": 0.75}
WINDOW = 16
CANARY = re.compile(r"recallref-[a-z_]+-\d{5}")
CONTEXT = 160  # characters either side of a survivor in the failure report
# Formats that store a whole conversation as one record (a JSON file, or one JSONL line per
# conversation): the canary cannot tell plantings of one session apart, so each gets its own.
WHOLE_RECORD = {"gemini_legacy", "hermes_json", "openai", "sharegpt", "atif"}


# -- samples -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sample:
    id: str
    family: str
    kind: str  # tp | fp
    input: str
    secrets: tuple[str, ...] = ()
    keep: str = ""

    @property
    def kept_text(self) -> str:
        """What an fp must leave behind: its ``keep`` text, else the input's longest token."""
        if self.keep:
            return self.keep
        return max(re.split(r"\s+", self.input.strip()), key=len)


def load_samples(path: Path) -> list[Sample]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for s in doc["samples"]:
        secrets = tuple(x for x in s.get("secrets") or [] if x)
        if s["kind"] == "tp" and not secrets:
            continue  # nothing to measure
        out.append(Sample(s["id"], s["family"], s["kind"], s["input"], secrets, s.get("keep") or ""))
    return out


def subsample(
    samples: list[Sample], limit: int | None, seed: int, family: str | None = None, kind: str | None = None
) -> list[Sample]:
    """``limit`` samples spread over the families (round-robin over shuffled families), so a small
    run still sees many providers rather than the first few rule files."""
    if family:
        rx = re.compile(family)
        samples = [s for s in samples if rx.search(s.family)]
    if kind:
        samples = [s for s in samples if s.kind == kind]
    if limit is None or limit >= len(samples):
        return samples
    rng = random.Random(seed)
    by_family: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        by_family[s.family].append(s)
    families = sorted(by_family)
    rng.shuffle(families)
    picked: list[Sample] = []
    i = 0
    while len(picked) < limit:
        for f in families:
            if i < len(by_family[f]):
                picked.append(by_family[f][i])
                if len(picked) == limit:
                    break
        i += 1
    order = {s.id: n for n, s in enumerate(samples)}
    return sorted(picked, key=lambda s: order[s.id])


# -- planting ----------------------------------------------------------------------------------------
@dataclass
class Planting:
    canary: str
    sample: Sample
    harness: str
    place: str


def planting_steps(place: str, text: str, canary: str, cwd: str, harness: str) -> list[Step]:
    """The steps that put ``text`` in ``place``. The canary sits in the record that opens the
    planting and never inside the planted text itself (except the prompt, where the user's own
    words carry it), so the text reaches the detectors exactly as gitleaks tests it."""
    path = f"{cwd}/fixtures/{canary}/config"
    if place == "prompt":
        return [
            Step("user", text=f"Can you check this? ref {canary}\n\n{text}"),
            Step("assistant", text="Let me look."),
        ]
    if place == "shell":
        call = Call(
            "shell", {"command": f"./scripts/show-config --case {canary}", "description": "Show config"}, text
        )
    elif place == "read":
        call = Call("read", {"path": path}, text)
    elif place == "json_arg":
        # Codex's writer turns a write into an apply_patch text; its JSON-argument tool call
        # (``function_call`` with ``arguments`` a JSON string) is the writer's "http" kind.
        call = Call("http" if harness == "codex" else "write", {"path": path, "content": text}, "ok")
    else:
        raise ValueError(f"unknown place {place!r}")
    # An assistant turn before each call: Gemini and OpenCode attach calls to the assistant
    # message before them, and one planting per record keeps the mapping exact.
    return [Step("assistant", text="Checking the next one."), Step("call", call=call)]


@dataclass
class Corpus:
    corpus: Path
    env: dict[str, str]
    plantings: list[Planting]
    bytes: int


def plant(
    out: Path,
    samples: Sequence[Sample],
    harnesses: Sequence[str] = HARNESSES,
    places: Sequence[str] = PLACES,
    seed: int = 1,
    per_session: int = 30,
) -> Corpus:
    """Write the sessions under ``out/corpus`` and a fake home under ``out/home``."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    corpus_dir = out / "corpus"
    if corpus_dir.exists() and any(corpus_dir.iterdir()):
        raise SystemExit(f"{corpus_dir} is not empty; give a new folder")
    user = fk.fake_user(rng)
    _, env = build_home(out, user)
    known = {w.harness: w for w in WRITERS}
    unknown = [h for h in harnesses if h not in known]
    if unknown:
        raise SystemExit(f"unknown harness(es): {', '.join(unknown)} (known: {', '.join(known)})")
    plantings: list[Planting] = []
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    nsession = 0
    for h in harnesses:
        writer: Writer = known[h](corpus_dir, rng)
        items = [(s, p) for s in samples for p in places]
        rng.shuffle(items)
        step = 1 if h in WHOLE_RECORD else per_session
        for k in range(0, len(items), step):
            project = rng.choice(["web", "api", "billing", "infra"])
            cwd = f"{user.home}/src/{project}"
            steps = [Step("user", text="Going through the failing config checks one by one.")]
            for s, p in items[k : k + step]:
                canary = f"recallref-{h}-{len(plantings):05d}"
                plantings.append(Planting(canary, s, h, p))
                steps += planting_steps(p, s.input, canary, cwd, h)
            steps.append(Step("assistant", text="Done."))
            session = Session(
                fk.uuid4(rng),
                h,
                project,
                cwd,
                start + timedelta(hours=nsession),
                steps=steps,
                model="gpt-5.5" if h == "codex" else "claude-sonnet-4-5",
            )
            nsession += 1
            writer.add(session)
        writer.close()
    nbytes = sum(p.stat().st_size for p in corpus_dir.rglob("*") if p.is_file())
    return Corpus(corpus_dir, env, plantings, nbytes)


def planted_run(
    args: argparse.Namespace,
    samples: Sequence[Sample],
    harnesses: Sequence[str],
    places: Sequence[str],
    prefix: str,
    read: Callable[[Path], Any],
) -> tuple[Corpus, dict, float, Any]:
    """Plant ``samples``, run the real ``tracepub redact`` on them and read its dataset with ``read``:
    the corpus, the run's JSON summary, its seconds and what ``read`` made of the output. In
    ``args.keep`` if given, else in a temporary folder removed afterwards (every outside-suite bench
    runs the same way; only how the output is read and scored differs)."""
    ctx = tempfile.TemporaryDirectory(prefix=prefix) if args.keep is None else None
    work = args.keep or Path(ctx.name)  # type: ignore[union-attr]
    try:
        c = plant(work, samples, harnesses, places, args.seed, args.per_session)
        t0 = time.perf_counter()
        run = run_redact(c.corpus, work / "out", c.env, args.jobs)
        seconds = time.perf_counter() - t0
        return c, run, seconds, read(work / "out" / "dataset")
    finally:
        if ctx is not None:
            ctx.cleanup()


# -- reading the output ------------------------------------------------------------------------------
def record_strings(path: Path) -> list[list[str]]:
    """Each record of an output file as its strings: every string leaf and key, JSON inside
    strings decoded, escapes undone once and twice (bench/eval.py's ``_strings``), and the encoded
    line itself, since a value may survive in any of these forms."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    chunks = raw.split("\n") if path.suffix == ".jsonl" else [raw]
    out = []
    for chunk in chunks:
        if not chunk.strip():
            continue
        parts: list[str] = []
        try:
            _strings(orjson.loads(chunk), parts)
        except orjson.JSONDecodeError:
            parts = []
        parts += [_unicode_unescape(x) for x in parts if "\\u" in x]
        parts.append(chunk)
        out.append(parts)
    return out


_UNICODE = re.compile(r"\\u([0-9a-fA-F]{4})")


def _unicode_unescape(text: str) -> str:
    """``\\uXXXX`` escapes undone (surrogate pairs joined): JSON written with ASCII escapes inside
    text that is not JSON (ShareGPT's ``<tool_response>``) keeps non-ASCII text that way, and a
    look-alike is only found as it was planted once they are."""
    s = _UNICODE.sub(lambda m: chr(int(m.group(1), 16)), text)
    return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


@dataclass
class Output:
    texts: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # canary -> strings
    common: str = ""  # file names and the dataset card: a survivor there counts for every planting
    shared: int = 0  # records holding several canaries: their plantings cannot be told apart


def read_output(dataset: Path) -> Output:
    """Each output record's strings under the canary the record carries, or under the last
    canary seen before it in the same file (a tool's result follows its call)."""
    res = Output()
    names: list[str] = []
    for path in sorted(dataset.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(dataset).as_posix()
        names.append(rel)
        if rel == "README.md":
            names.append(path.read_text(encoding="utf-8"))
            continue
        current: list[str] = []
        for parts in record_strings(path):
            found = list(dict.fromkeys(CANARY.findall(parts[-1])))
            if found:
                current = found
                res.shared += len(found) > 1
            for c in current:
                res.texts[c].extend(parts)
    res.common = "\n".join(names)
    return res


# -- scoring -----------------------------------------------------------------------------------------
@dataclass
class Result:
    planting: Planting
    outcome: str  # redacted | partial | leaked (tp); kept | removed (fp); unread (no output seen)
    survivors: list[str] = field(default_factory=list)  # surviving secret or pieces of it
    context: list[str] = field(default_factory=list)  # output text around each survivor


def _grams(text: str) -> set[str]:
    return {text[i : i + WINDOW] for i in range(len(text) - WINDOW + 1)}


def _pieces(secret: str, *grams: set[str]) -> list[str]:
    """The maximal runs of the secret made of 16-character windows found in any of ``grams``."""

    def alive(w: str) -> bool:
        return any(w in g for g in grams)

    runs: list[str] = []
    i, n = 0, len(secret)
    while i + WINDOW <= n:
        if alive(secret[i : i + WINDOW]):
            j = i
            while j + 1 + WINDOW <= n and alive(secret[j + 1 : j + 1 + WINDOW]):
                j += 1
            runs.append(secret[i : j + WINDOW])
            i = j + WINDOW
        else:
            i += 1
    return runs


def _around(texts: list[str], piece: str) -> str:
    """The piece in the shortest output string holding it (the decoded leaf rather than the
    encoded line), with its surroundings: enough to see the shape a detector missed."""
    holding = [t for t in texts if piece in t]
    if not holding:
        return ""
    text = min(holding, key=len)
    i = text.find(piece)
    return text[max(0, i - CONTEXT) : i + len(piece) + CONTEXT]


def score_one(
    p: Planting, texts: list[str], common: str = "", common_grams: set[str] | None = None
) -> Result:
    """``common``: text that counts for every planting (file names, the card), with its 16-grams
    computed once by the caller."""
    if not texts:
        return Result(p, "unread")
    texts = [*texts, common]
    blob = "\n\x00\n".join(texts[:-1])
    s = p.sample
    if s.kind == "fp":
        keep = s.kept_text
        return Result(p, "kept") if keep in blob or keep in common else Result(p, "removed")
    whole = [x for x in s.secrets if x in blob or x in common]
    if whole:
        return Result(p, "leaked", whole, [_around(texts, x) for x in whole[:2]])
    grams = _grams(blob), common_grams if common_grams is not None else _grams(common)
    pieces = [run for x in s.secrets if len(x) > WINDOW for run in _pieces(x, *grams)]
    if pieces:
        return Result(p, "partial", pieces, [_around(texts, x) for x in pieces[:2]])
    return Result(p, "redacted")


def score(plantings: Iterable[Planting], output: Output) -> list[Result]:
    common_grams = _grams(output.common)
    return [score_one(p, output.texts.get(p.canary, []), output.common, common_grams) for p in plantings]


@dataclass
class Tally:
    tp: int = 0
    redacted: int = 0
    partial: int = 0
    leaked: int = 0
    fp: int = 0
    kept: int = 0
    unread: int = 0

    def add(self, r: Result) -> None:
        o = r.outcome
        if o == "unread":
            self.unread += 1
        elif r.planting.sample.kind == "tp":
            self.tp += 1
            self.redacted += o == "redacted"
            self.partial += o == "partial"
            self.leaked += o == "leaked"
        else:
            self.fp += 1
            self.kept += o == "kept"

    def rate(self, name: str) -> float:
        d = self.fp if name == "kept" else self.tp
        return getattr(self, name) / d if d else 1.0

    @property
    def failures(self) -> int:
        return self.partial + self.leaked + self.fp - self.kept


def tally(results: Iterable, key, make=None) -> dict:
    """Results grouped by ``key`` into tallies (``make``: another bench's tally class; this one's by default)."""
    out: dict = defaultdict(make or Tally)
    for r in results:
        out[key(r)].add(r)
    return out


def summary(results: list[Result]) -> dict:
    total = Tally()
    for r in results:
        total.add(r)
    return {
        "tp": total.tp,
        "fully_redacted": total.rate("redacted"),
        "partial": total.rate("partial"),
        "leaked": total.rate("leaked"),
        "fp": total.fp,
        "fp_kept": total.rate("kept"),
        "unread": total.unread,
    }


def missed(s: dict) -> list[str]:
    out = []
    if s["fully_redacted"] < TARGETS["tp_fully_redacted"]:
        out.append(
            f"tp fully redacted {100 * s['fully_redacted']:.1f}% < {100 * TARGETS['tp_fully_redacted']:.0f}%"
        )
    if s["fp_kept"] < TARGETS["fp_kept"]:
        out.append(f"fp kept {100 * s['fp_kept']:.1f}% < {100 * TARGETS['fp_kept']:.0f}%")
    return out


# -- rendering ---------------------------------------------------------------------------------------
def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "-"


def _table(title: str, rows: dict[str, Tally], order: list[str] | None = None) -> list[str]:
    lines = [
        f"| {title} | tp | fully redacted | partial | leaked | fp | fp kept |",
        "|---|---|---|---|---|---|---|",
    ]
    for k in sorted(rows) if order is None else order:
        t = rows[k]
        lines.append(
            f"| {k} | {t.tp} | {_pct(t.redacted, t.tp)} | {_pct(t.partial, t.tp)} | {_pct(t.leaked, t.tp)} | "
            f"{t.fp} | {_pct(t.kept, t.fp)} |" + (f" ({t.unread} unread)" if t.unread else "")
        )
    return lines


def render(results: list[Result], families: int = 60) -> str:
    total = Tally()
    for r in results:
        total.add(r)
    lines = _table("overall", {"all": total})
    lines += [""] + _table(
        "place",
        tally(results, lambda r: r.planting.place),
        [p for p in PLACES if any(r.planting.place == p for r in results)],
    )
    lines += [""] + _table("harness", tally(results, lambda r: r.planting.harness))
    fam = tally(results, lambda r: r.planting.sample.family)
    bad = sorted(
        (f for f, t in fam.items() if t.failures),
        key=lambda f: (fam[f].rate("redacted"), fam[f].rate("kept"), -fam[f].tp, f),
    )
    lines += [
        "",
        f"Rule families with a failure, worst first ({len(bad)} of {len(fam)}; "
        f"the other {len(fam) - len(bad)} fully redacted / kept everywhere):",
    ]
    lines += _table("family", fam, bad[:families])
    if len(bad) > families:
        lines.append(f"... {len(bad) - families} more (--families N)")
    per_sample: dict[str, set[str]] = defaultdict(set)
    for r in results:
        if r.planting.sample.kind == "tp" and r.outcome != "unread":
            per_sample[r.planting.sample.id].add(r.outcome)
    somewhere = sum(o != {"redacted"} for o in per_sample.values())
    everywhere = sum("redacted" not in o for o in per_sample.values())
    lines += [
        "",
        f"tp samples not fully redacted somewhere: {somewhere} of {len(per_sample)} "
        f"(in every planting: {everywhere}).",
    ]
    if total.unread:
        lines += ["", f"{total.unread} plantings had no output at all (canary never seen): not scored."]
    return "\n".join(lines)


def failures_json(results: list[Result]) -> list[dict]:
    out = []
    for r in results:
        if r.outcome in ("redacted", "kept"):
            continue
        p, s = r.planting, r.planting.sample
        out.append(
            {
                "id": s.id,
                "family": s.family,
                "kind": s.kind,
                "harness": p.harness,
                "place": p.place,
                "canary": p.canary,
                "outcome": r.outcome,
                "input": s.input,
                "secrets": list(s.secrets),
                "keep": s.keep,
                "survivors": r.survivors,
                "context": r.context,
            }
        )
    return out


def _names(text: str, allowed: Sequence[str], what: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in names if x not in allowed]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown {what}: {', '.join(bad)} (known: {', '.join(allowed)})")
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n")[1],
    )
    ap.add_argument(
        "--samples", type=Path, default=SAMPLES, help="gitleaks samples JSON (default: %(default)s)."
    )
    ap.add_argument(
        "--harness",
        default=",".join(HARNESSES),
        help="Comma-separated harnesses (default: %(default)s; any writer of bench/corpus_formats.py).",
    )
    ap.add_argument(
        "--places", default=",".join(PLACES), help="Comma-separated places (default: %(default)s)."
    )
    ap.add_argument("--limit", type=int, help="At most this many samples, spread over the rule families.")
    ap.add_argument("--family", help="Only families matching this regex.")
    ap.add_argument("--kind", choices=["tp", "fp"], help="Only true or only false positives.")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--per-session", type=int, default=30, help="Plantings per session (default: %(default)s)."
    )
    ap.add_argument("--jobs", type=int, default=0, help="Passed to tracepub redact (0: one per core).")
    ap.add_argument("--keep", type=Path, help="Work in this (new) folder and keep the corpus and output.")
    ap.add_argument(
        "--families", type=int, default=60, help="Rows of the family table (default: %(default)s)."
    )
    ap.add_argument(
        "--json", type=Path, metavar="FILE", help="Write the summary and every failing planting here."
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help=f"Exit 1 below the targets (tp fully redacted >= {100 * TARGETS['tp_fully_redacted']:.0f}%%, "
        f"fp kept >= {100 * TARGETS['fp_kept']:.0f}%%).",
    )
    args = ap.parse_args(argv)
    try:
        harnesses = _names(args.harness, [w.harness for w in WRITERS], "harness")
        places = _names(args.places, PLACES, "place")
    except argparse.ArgumentTypeError as exc:
        ap.error(str(exc))
    samples = subsample(load_samples(args.samples), args.limit, args.seed, args.family, args.kind)
    if not samples:
        ap.error("no sample left after --family/--kind/--limit")
    c, run, seconds, output = planted_run(args, samples, harnesses, places, "tracepub-recall-", read_output)
    results = score(c.plantings, output)
    s = summary(results)
    print(render(results, args.families))
    print(
        f"\n{len(samples)} samples ({sum(x.kind == 'tp' for x in samples)} tp) x {len(harnesses)} harnesses x "
        f"{len(places)} places = {len(results)} plantings; corpus {c.bytes / 1e6:.1f} MB, "
        f"{run.get('files', '?')} files, redacted in {seconds:.1f} s."
    )
    if output.shared:
        print(f"warning: {output.shared} output records held several canaries (plantings not told apart)")
    miss = missed(s)
    print("Targets met." if not miss else "Targets missed: " + "; ".join(miss))
    if args.json:
        doc = {
            "summary": s,
            "targets": TARGETS,
            "harnesses": harnesses,
            "places": places,
            "samples": str(args.samples),
            "failures": failures_json(results),
        }
        args.json.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"{len(doc['failures'])} failing plantings written to {args.json}")
    return 1 if args.check and miss else 0


if __name__ == "__main__":
    sys.exit(main())
