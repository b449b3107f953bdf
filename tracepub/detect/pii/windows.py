"""Running Presidio's pattern recognizers on the lines that can hold a match, not the whole text.

A 100 kB tool output with one card number costs the card recognizer one line: the lines with a
digit shape are joined (``_joined``), recognized once, and the results shifted back.
"""

from __future__ import annotations

import re

from tracepub.detect.pii.triggers import _ANY_DIGIT_SHAPE, _DIGIT_SHAPES


def _joined(text: str, windows: list[tuple[int, int]]) -> tuple[str, list[int]]:
    """The windows of ``text`` joined by line breaks, and where each starts in the result."""
    if len(windows) == 1:
        a, b = windows[0]
        return text[a:b], [0]
    starts, pos = [], 0
    for a, b in windows:
        starts.append(pos)
        pos += b - a + 1
    return "\n".join(text[a:b] for a, b in windows), starts


def _shifted(results: list, windows: list[tuple[int, int]], starts: list[int]) -> list:
    """Results found in ``_joined`` text, with offsets in the original text."""
    import bisect

    out = []
    for r in results:
        k = bisect.bisect_right(starts, r.start) - 1
        shift = windows[k][0] - starts[k]
        out.append(_Result(r.entity_type, r.start + shift, r.end + shift, r.score))
    return out


def _lines_with(
    fj: str, rx: re.Pattern, windows: list[tuple[int, int]], starts: list[int]
) -> list[tuple[int, int]]:
    """The lines of ``_joined`` text (``fj``, folded) where ``rx`` matches, as windows of the
    original text (a search per matching line)."""
    import bisect

    out: list[tuple[int, int]] = []
    m = rx.search(fj)
    while m is not None:
        a = fj.rfind("\n", 0, m.start()) + 1
        b = fj.find("\n", m.start())
        b = len(fj) if b < 0 else b
        k = bisect.bisect_right(starts, a) - 1
        shift = windows[k][0] - starts[k]
        out.append((a + shift, b + shift))
        m = rx.search(fj, b + 1) if b < len(fj) else None
    return out


def _shape_lines(fj: str, windows: list[tuple[int, int]], starts: list[int]) -> list[list[tuple[int, int]]]:
    """``[_lines_with(fj, rx, windows, starts) for rx in _DIGIT_SHAPES]``: one search of all the
    shapes finds the lines that hold any (few), each shape is then searched in those lines only
    (a line's look-behinds read the line break before it, as in the whole text)."""
    import bisect

    out: list[list[tuple[int, int]]] = [[] for _ in _DIGIT_SHAPES]
    n = len(fj)
    m = _ANY_DIGIT_SHAPE.search(fj)
    while m is not None:
        a = fj.rfind("\n", 0, m.start()) + 1
        b = fj.find("\n", m.start())
        b = n if b < 0 else b
        k = bisect.bisect_right(starts, a) - 1
        shift = windows[k][0] - starts[k]
        for rx, lines in zip(_DIGIT_SHAPES, out, strict=True):
            if rx.search(fj, a, b) is not None:
                lines.append((a + shift, b + shift))
        m = _ANY_DIGIT_SHAPE.search(fj, b + 1) if b < n else None
    return out


class _Result:
    """What ``Presidio._spans`` reads from a RecognizerResult."""

    __slots__ = ("entity_type", "start", "end", "score")

    def __init__(self, entity_type: str, start: int, end: int, score: float):
        self.entity_type, self.start, self.end, self.score = entity_type, start, end, score
