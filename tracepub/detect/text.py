"""Views of a text that detectors and the prefilter read instead of the text itself.

Traces hold text at several levels of encoding: JSON written inside a string that is not JSON
(``<tool_response>{...}</tool_response>``), ``\\uXXXX`` escapes in raw lines, digits and case
that a cheap pass should not care about. Every view keeps the text's length, so offsets found
in a view are offsets in the text. Shared by the prefilter and the detectors (it imports
nothing of theirs, which keeps the import graph acyclic).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# \uXXXX escapes at any nesting depth (JSON inside a string doubles the backslash).
_U_ESCAPE = re.compile(r"\\+u([0-9a-fA-F]{4})")


def decoded_view(raw: str) -> str | None:
    """The line with ``\\uXXXX`` and ``\\/`` decoded (None when it has neither).

    Decoding a backslash that was itself escaped can produce a character that is not in any
    string; that only adds candidates, since callers check both the raw line and this view.
    """
    if "\\" not in raw:
        return None
    view = raw
    if "\\/" in view:
        view = view.replace("\\/", "/")
    if "\\u" in view:
        view = _U_ESCAPE.sub(_decode_u, view)
    return view if view is not raw else None


def _decode_u(m: re.Match) -> str:
    code = int(m.group(1), 16)
    # A surrogate escape (half of a pair, or lone) as U+FFFD: the automaton reads UTF-8, which has
    # no surrogates; no trigger literal holds one.
    return "\ufffd" if 0xD800 <= code <= 0xDFFF else chr(code)


_FOLD = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ123456789", b"abcdefghijklmnopqrstuvwxyz000000000")


_DIGIT_FOLD = bytes.maketrans(b"123456789", b"000000000")


def folded(text: str) -> str:
    """What the automaton reads: ASCII letters in lower case, every digit ``0``; nothing else
    changes, so offsets stay offsets. Done on UTF-8 bytes: ``str.lower``/``translate`` are ten
    times slower on text with any non-ASCII character (``→`` in every Read tool output)."""
    return text.encode("utf-8", "surrogatepass").translate(_FOLD).decode("utf-8", "surrogatepass")


def occurrences(text: str, word: str) -> Iterator[int]:
    """Where ``word`` starts in ``text``, overlapping occurrences included, in order."""
    i = text.find(word)
    while i >= 0:
        yield i
        i = text.find(word, i + 1)


def line_windows(text: str, positions: Iterable[int], limit: float | None = None) -> list[tuple[int, int]]:
    """(start, end) of the lines holding ``positions``; adjacent or repeated lines merged. With
    ``limit``: an empty list as soon as the lines cover more than ``limit`` characters (the
    caller then reads the whole text)."""
    import bisect

    pos_sorted = sorted(positions)
    out: list[tuple[int, int]] = []
    k, n = 0, len(pos_sorted)
    covered = 0
    while k < n:
        pos = pos_sorted[k]
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        if out and start <= out[-1][1] + 1:
            covered += end - out[-1][1]
            out[-1] = (out[-1][0], end)
        else:
            covered += end - start
            out.append((start, end))
        if limit is not None and covered > limit:
            return []
        k = bisect.bisect_left(pos_sorted, end, k + 1)  # the other hits on this line
    return out


def windows_matching(text: str, rx: re.Pattern) -> list[tuple[int, int]]:
    """The lines of ``text`` in which ``rx`` matches (merged when adjacent)."""
    return line_windows(text, (m.start() for m in rx.finditer(text)))


# -- names: NER only on sentences that can hold a name ---------------------------------------
# spaCy's NER reads ~50 kB/s per core, slower than everything else together, and prose is a few
# percent of a trace. It runs only on the sentences (with their neighbours) around the spots
# ``detect.pii.name_spots`` finds: capitalised words shaped like a name where at least one is not
# a common English or technical word (spaCy's stop words plus the list below, ``name_like``).
_SENTENCE_END = re.compile(r"[.!?:;]\s+|\n+|\s[-*•]\s")


def sentence_windows(text: str, spots: list[int], context: int = 1) -> list[tuple[int, int]]:
    """(start, end) of the sentences holding ``spots``, with ``context`` sentences each side,
    merged when they touch."""
    if not spots:
        return []
    import bisect

    bounds = [0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]
    out: list[tuple[int, int]] = []
    for pos in sorted(spots):
        k = bisect.bisect_right(bounds, pos) - 1
        a, b = bounds[max(0, k - context)], bounds[min(len(bounds) - 1, k + 1 + context)]
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


# A run of backslashes before n, t, r, " or /: an escape at some level of JSON inside JSON.
_ESCAPE = re.compile(r'(\\+)([ntr"/])')


_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "/": "/"}


def escaped_view(text: str) -> str:
    """``text`` with JSON escapes (``\\n``, ``\\t``, ``\\"``, and their doubled forms in JSON inside
    JSON) turned into the character they stand for and spaces, so offsets stay the same. Tool
    output is often JSON written inside a string that is not itself JSON
    (``<tool_response>{...}</tool_response>``): without this, ``\\nJane`` glues an "n" to the
    name and no line-start or word-boundary pattern matches. Detectors that must also see the
    literal text (Windows paths: ``C:\\Users\\nick``) scan both."""
    if "\\" not in text:
        return text
    return _ESCAPE.sub(lambda m: _ESCAPED[m.group(2)] + " " * len(m.group(1)), text)
