"""bench/throughput.py's summary of repeated runs: the median run, not the best one."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import throughput  # noqa: E402


def _run(seconds: float) -> dict:
    return {
        "bytes": 200_000_000,
        "seconds": seconds,
        "cpu_seconds": 2 * seconds,
        "files": 90,
        "rss_largest": 1,
        "rss_tree": 2,
        "findings": 3,
        "perf": {},
    }


def test_median_run_is_the_middle_run_and_keeps_every_time() -> None:
    got = throughput.median_run([_run(11.0), _run(9.0), _run(12.5), _run(10.0), _run(9.5)])
    assert got["seconds"] == 10.0
    assert got["mb_per_s"] == 20.0
    assert got["runs_seconds"] == [11.0, 9.0, 12.5, 10.0, 9.5]  # in the order they ran


def test_median_of_an_even_number_is_the_slower_middle_run() -> None:
    assert throughput.median_run([_run(9.0), _run(10.0), _run(12.0), _run(8.0)])["seconds"] == 10.0


def test_report_prints_every_run(capsys) -> None:
    tp = throughput.median_run([_run(10.0), _run(12.5), _run(8.0)])
    throughput.print_report(
        {"tracepub": tp, "single_file": False, "corpus": "builtin", "cores": 2, "jobs": 2}
    )
    out = capsys.readouterr().out
    assert "median of 3 runs: 10.0, 12.5, 8.0 s (16.0 to 25.0 MB/s)" in out
    assert "200.0 MB in 10.0 s = 20.0 MB/s" in out
    assert "CPU 20.0 s" in out


def test_against_compares_round_by_round_and_prints_it(capsys) -> None:
    """``--against``: another checkout's median CPU, and the median of the per-round ratios (not
    the ratio of medians: a round's two runs share the machine's speed of that minute)."""
    ours = [_run(10.0), _run(20.0), _run(11.0)]  # CPU 20, 40, 22
    theirs = [_run(8.0), _run(10.0), _run(10.0)]  # CPU 16, 20, 20
    a = throughput.against("/old/src", theirs, ours)
    assert a["cpu_seconds"] == 20.0
    assert a["cpu_ratios"] == [1.25, 2.0, 1.1]
    assert a["cpu_ratio"] == 1.25
    tp = throughput.median_run(ours)
    throughput.print_report(
        {"tracepub": tp, "single_file": False, "corpus": "builtin", "cores": 2, "jobs": 2, "against": [a]}
    )
    out = capsys.readouterr().out
    assert "against     /old/src: CPU 20.0 s (median; runs 16.0, 20.0, 20.0)" in out
    assert "per round: median 1.25 (1.25, 2.00, 1.10)" in out


def test_a_run_uses_the_package_it_names_not_the_current_folder(tmp_path, monkeypatch) -> None:
    """``--against`` run from a checkout's root must still run the other checkout's tracepub."""
    for where, count in (("here", 1), ("other", 2)):
        pkg = tmp_path / where / "tracepub"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "cli.py").write_text(
            f'print(\'{{"bytes_in": 1, "files": 1, "findings": {{"x": {count}}}}}\')\n'
        )
    monkeypatch.chdir(tmp_path / "here")
    got = throughput.run_tracepub(tmp_path, {}, None, tmp_path / "out", package=str(tmp_path / "other"))
    assert got["findings"] == 2
