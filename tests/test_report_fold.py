"""The report's fold of findings.jsonl, made per file in the workers and merged in the main
process, equals the fold of findings.jsonl read back one finding at a time."""

from __future__ import annotations

import random

from tracepub.outputs import groups


def _findings(rng: random.Random, files: list[str]) -> list[dict]:
    out = []
    values = [f"v{n}" for n in range(12)]
    for file in files:
        for k in range(rng.randint(0, 40)):
            vid = rng.choice(values)
            in_name = rng.random() < 0.2
            ph = rng.choice([None, f"<PII_{vid}>", f"pii-{vid}", f"PII_{vid}"])
            out.append(
                {
                    "id": f"{file}-{k}",
                    "file": file,
                    "record": k,
                    "path": "#file" if in_name else "$.a",
                    "type": rng.choice(["pii.email", "pii.person", "secret.x"]),
                    "detector": rng.choice(["a", "b"]),
                    "confidence": rng.choice([0.5, 0.8, 0.9]),
                    "action": rng.choice(["redacted", "review", "kept"]),
                    "placeholder": ph,
                    "value": vid.upper(),
                    "value_id": vid,
                    "context": {"before": rng.choice(["x ", "y ", "z "]), "after": rng.choice([" 1", " 2"])},
                }
            )
    return out


def _view(agg: groups.Aggregate):
    groups = [
        (
            g.value_id,
            g.value,
            g.placeholder,
            g.count,
            dict(g.types),
            dict(g.detectors),
            dict(g.actions),
            g.conf_min,
            g.conf_max,
            list(g.files),
            g.n_files,
            g.snippets,
            g.finding_id,
        )
        for g in agg.groups.values()
    ]
    return (
        groups,
        agg.total,
        list(agg.by_type.items()),
        list(agg.by_detector.items()),
        list(agg.by_action.items()),
        list(agg.by_file.items()),
    )


def test_folds_merged_in_order_equal_the_fold_of_findings_jsonl():
    rng = random.Random(4)
    for _ in range(200):
        files = [f"f{n}.jsonl" for n in range(rng.randint(1, 9))]
        paths = _findings(rng, ["a.jsonl", "b.jsonl"])[: rng.randint(0, 6)]  # paths.jsonl: file names
        per_file = {f: [x for x in _findings(rng, [f])] for f in files}
        whole = groups.aggregate([*paths, *(x for f in files for x in per_file[f])])
        merged = groups.Aggregate()
        for x in paths:
            groups.add_finding(merged, x, x["file"])
        for f in files:
            fold = groups.FileFold()
            found = per_file[f]
            cut = rng.randint(0, len(found))  # a split file: two pieces folded apart, then joined
            first, second = groups.FileFold(), groups.FileFold()
            for x in found[:cut]:
                first.add(x)
            for x in found[cut:]:
                second.add(x)
            fold.extend(first)
            fold.extend(second)
            groups.merge(merged, fold)
        assert _view(merged) == _view(whole)


def _fold_view(fold: groups.FileFold):
    return (
        fold.file,
        fold.total,
        [(vid, vars(g)) for vid, g in fold.groups.items()],
        list(fold.by_type.items()),
        list(fold.by_detector.items()),
        list(fold.by_action.items()),
    )


def test_span_fold_equals_adding_each_finding():
    """``FileFold.add_spans`` of a text's findings folded once (``span_fold``) equals
    ``add_static`` of each finding in turn, whatever the group held before, in a file name or not."""
    rng = random.Random(7)
    for _ in range(400):
        one, many = groups.FileFold(), groups.FileFold()
        for _step in range(rng.randint(1, 5)):
            n = rng.randint(1, 30)
            vids = [f"v{k}" for k in range(rng.randint(1, 4))]
            statics = []
            for _k in range(n):
                vid = rng.choice(vids)
                ph = rng.choice([None, f"<PII_{vid}>", f"pii-{vid}", f"PII_{vid}", f"<X_{vid}>"])
                statics.append(
                    (
                        vid,
                        vid.upper(),
                        rng.choice(["pii.email", "pii.person", "secret.x"]),
                        rng.choice(["a", "b"]),
                        rng.choice(["redacted", "review", "kept"]),
                        rng.choice([0.5, 0.8, 0.9, 1.0]),
                        ph,
                        rng.choice(["x ", "y ", "z ", "w "]),
                        rng.choice([" 1", " 2"]),
                    )
                )
            where = rng.choice(["$.a", "$.#file[0]", "$.b[2]"])
            record = rng.randint(1, 9)
            fids = [f"id{rng.random()}".encode() for _ in statics]
            for fid, st in zip(fids, statics, strict=True):
                one.add_static("f.jsonl", fid.decode(), record, where, st)
            many.add_spans(groups.span_fold(statics), "f.jsonl", record, where, fids)
        assert _fold_view(many) == _fold_view(one)
