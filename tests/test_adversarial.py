"""Hostile strings: every stage finishes in time linear in the string (measured by
bench/adversarial.py), and a long string scanned in pieces loses nothing at a piece's edge."""

from __future__ import annotations

import random
import signal

import pytest

from tracepub.detect.engine import Engine, pieces
from tracepub.detect.registry import DetectConfig
from tracepub.fakes import github_token
from tracepub.model import Leaf


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(
        DetectConfig(identity={"jdoe": "identity.username"}),
    )


@pytest.fixture
def deadline():
    """Fail instead of hanging: the quadratic cases this guards took minutes at these sizes."""

    def boom(*_):
        raise TimeoutError("took far longer than a linear scan")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize(
    "text",
    [
        "A" * 300_000,  # a run of capitals in prose: the name gate tried each capital to the run's end
        "a" * 300_000,  # a trigger word of ten "a"s matched at every position
        "Q" * 250_000 + " Smith",
    ],
)
def test_long_runs_finish(engine, deadline, text):
    for prose in (False, True):
        engine.scan(text, Leaf("claude_code", ("message", "content"), "content", prose))


def test_pieces_cover_the_text_and_overlap():
    text = ("x" * 99 + "\n") * 5000
    got = pieces(text, 64_000, 4_000)
    assert got[0][0] == 0 and got[-1][1] == len(text)
    for (_, b), (c, _) in zip(got, got[1:], strict=False):
        assert c < b and b - c >= 4_000  # neighbours overlap by at least the overlap
        assert text[c + 4_000 - 1] == "\n"  # a piece starts after a line break where one is near


def test_a_secret_at_a_piece_edge_is_redacted_whole(engine):
    token = github_token(random.Random(5))
    filler = "lorem ipsum dolor sit amet " * 20_000
    for at in (Engine.PIECE - 10, Engine.PIECE + Engine.OVERLAP - 5, 2 * Engine.PIECE):
        text = filler[:at] + " " + token + " " + filler[at:]
        assert len(text) > Engine.HUGE
        spans = engine.scan(text, Leaf("claude_code", ("x",), "output", False))
        hits = [(s.start, s.end) for s in spans if s.type.startswith("secret.")]
        assert (at + 1, at + 1 + len(token)) in hits, (at, hits)
