"""The dataset card: loadable per kind of file, honest about placeholders, license and figures.

The loading tests run ``datasets`` on the published folder offline, in a subprocess (``datasets``
reads its offline switches at import), with ``teich`` and without it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from huggingface_hub import DatasetCard
from reviewkit import invoke, redacted_dir

from tracepub.outputs import card, configs

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_traces"


@pytest.fixture(scope="module")
def samples_out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cardsamples") / "out"
    r = invoke("redact", SAMPLES, "--out", out, "--no-ner", "--jobs", "1", "--license", "cc-by-4.0")
    assert r.exit_code == 0, r.output
    return out


def card_data(out: Path) -> dict:
    return DatasetCard.load(out / "dataset" / "README.md").data.to_dict()


def test_one_config_per_kind_of_file_and_no_file_in_two(samples_out):
    data = card_data(samples_out)
    names = [c["config_name"] for c in data["configs"]]
    assert names == sorted(names)
    assert {
        "claude_code",
        "codex",
        "codex_legacy",
        "pi",
        "gemini_cli",
        "opencode",
        "hermes",
        "hermes_trajectories",
        "openai",
        "sharegpt",
        "sts",
    } <= set(names)
    files = [
        p.relative_to(samples_out / "dataset").as_posix() for p in (samples_out / "dataset").rglob("*.jsonl")
    ]
    for f in files:  # every JSONL session file is in exactly one config
        owners = [
            c["config_name"] for c in data["configs"] if any(configs._rx(g).match(f) for g in c["data_files"])
        ]
        assert len(owners) == 1, (f, owners)
    # raw configs declare every key (datasets would take the schema from the first file)
    infos = {i["config_name"]: i for i in data["dataset_info"]}
    assert set(infos) == set(names) - set(configs.PARSED)
    assert {f["name"] for f in infos["hermes"]["features"]} >= {"type", "harness", "message", "hermes"}


def test_card_metadata_license_categories_language(samples_out):
    data = card_data(samples_out)
    assert data["license"] == "cc-by-4.0"
    assert data["task_categories"] == ["text-generation"]
    assert data["size_categories"] == ["n<1K"]
    assert data["language"] == ["en"]
    assert card.size_category(999) == "n<1K" and card.size_category(1000) == "1K<n<10K"


def test_placeholder_forms_by_type(samples_out):
    text = (samples_out / "dataset" / "README.md").read_text()
    assert "| pii.email | `<EMAIL_…>` |" in text
    assert "| identity.username | `<USER>` |" in text  # learned from the sessions' working folders
    assert "| secret.github_token | `<SECRET_GITHUB_TOKEN_…>` |" in text
    assert card.placeholder_form("identity.username", {}) == "`<USER>`"
    assert card.placeholder_form("pii.phone", {"pii.phone": "mask"}).startswith("masked")
    assert card.placeholder_form("secret.x", {"secret": "mask"}) == "`<SECRET_X_…>`"  # always placeholders


def test_measured_figures_are_the_readmes(samples_out):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("<!-- eval-table -->") : readme.index("<!-- /eval-table -->")]
    for measure, value in card.MEASURED["rows"]:
        assert re.search(rf"\| {re.escape(measure)} \| {re.escape(value)} \|", table), measure
    outside = readme[readme.index("<!-- outside-table -->") : readme.index("<!-- /outside-table -->")]
    for bench, value in card.MEASURED_OUTSIDE:
        assert f"| {bench} | {value} |" in outside, bench
    text = (samples_out / "dataset" / "README.md").read_text()
    assert "## Detection quality" in text and card.MEASURED["rows"][2][1] in text
    assert all(f"| {b} | {v} |" in text for b, v in card.MEASURED_OUTSIDE)
    assert card.NOTICE in text


# One process for both runs (importing datasets takes seconds): with teich if it is installed,
# then without it; streaming reads the files as a full load does, without writing an Arrow cache.
_LOAD = r"""
import importlib.util, json, sys
import datasets
names = json.loads(sys.argv[2])
runs = ["with", "without"] if importlib.util.find_spec("teich") else ["without"]
out = {}
for run in runs:
    if run == "without":
        sys.modules["teich"] = None
        datasets.config.TEICH_AVAILABLE = False
    got = out[run] = {}
    for name in names:
        try:
            rows = list(datasets.load_dataset(sys.argv[1], name, split="train", streaming=True))
            row = {"rows": len(rows), "columns": sorted(rows[0]) if rows else []}
            if rows and "messages" in rows[0] and "harness" in rows[0]:
                row["harness"] = sorted({r["harness"] for r in rows})
                row["messages"] = [len(r["messages"] or []) for r in rows]
            got[name] = row
        except Exception as exc:
            chain, e = [], exc
            while e is not None:
                chain.append(f"{type(e).__name__}: {e}")
                e = e.__cause__ or e.__context__
            got[name] = {"error": " | ".join(chain)}
print(json.dumps(out))
"""


def _load(folder: Path, names: list[str], cache: Path) -> dict:
    env = {
        **os.environ,
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": str(cache / "hf"),
        "HF_DATASETS_CACHE": str(cache / "ds"),
    }
    r = subprocess.run(
        [sys.executable, "-c", _LOAD, str(folder), json.dumps(names)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _lines(folder: Path, globs: list[str]) -> int:
    names = [p.relative_to(folder).as_posix() for p in folder.rglob("*.jsonl")]
    return sum(
        sum(1 for line in (folder / n).read_bytes().splitlines() if line.strip())
        for n in names
        if any(configs._rx(g).match(n) for g in globs)
    )


def test_published_folder_loads_per_config_with_datasets(samples_out, tmp_path):
    pytest.importorskip("datasets")
    folder = samples_out / "dataset"
    cfgs = card_data(samples_out)["configs"]
    names = [c["config_name"] for c in cfgs]
    for teich, got in _load(folder, names, tmp_path).items():
        for c in cfgs:
            name, res = c["config_name"], got[c["config_name"]]
            if name in configs.PARSED:
                if teich == "with":  # one row per session, labelled with its own harness
                    assert "error" not in res, (name, res)
                    assert res["harness"] == [name] and min(res["messages"]) > 0, (name, res)
                else:  # the card says these need teich
                    assert "teich" in res["error"], (name, res)
                continue
            assert "error" not in res, (teich, name, res)
            assert res["rows"] == _lines(folder, c["data_files"]), (name, res)  # one row per line
            assert "harness" not in res  # never handed to the agent-trace parser
    text = (folder / "README.md").read_text()
    assert "pip install teich" in text and "snapshot_download" in text


def test_approve_without_a_license_refuses_with_yes_and_asks_otherwise(tmp_path):
    out = redacted_dir(tmp_path, license=None)
    r = invoke("approve", out, "--reviewer", "Jane", "--yes")
    assert r.exit_code == 1 and "no license chosen" in r.output and "--license" in r.output
    assert not (out / "signoff.json").exists()
    r = invoke("approve", out, "--reviewer", "Jane", input="mit\ny\n")
    assert r.exit_code == 0, r.output
    assert card.read_meta(out)["license"] == "mit"
    assert "license: other" not in (out / "dataset" / "README.md").read_text()


def test_language_chosen_at_approve(tmp_path):
    out = redacted_dir(tmp_path)
    assert invoke("approve", out, "--reviewer", "Jane", "--language", "de", "--yes").exit_code == 0
    assert card_data(out)["language"] == ["de"]
