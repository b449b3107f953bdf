"""Escapes never hide a value: text holding JSON the walker could not parse.

A tool's output is often JSON cut short (truncated), nested deeper than a parser allows, or
written inside other text (``<tool_response>{"content": "x = \\"v\\""}</tool_response>``). The
walker then has a string, not a value, and detectors would read its escapes as written: a key
spelled ``\\u0041KIA...``, a token with an escaped slash (``Uu0U\\/o72...``), a value inside
escaped quotes. Two steps undo that, for detection only; what is not redacted stays byte for byte:

- ``literals``: the JSON string literals of the text that hold an escape (a literal cut by the
  end of the text included), each with the object key written before it. The walker visits each
  one decoded, as a string of its own under that key, and writes a changed one back encoded.
- ``decode``: the text with every ``\\uXXXX`` and ``\\/`` escape (at any nesting depth) replaced by
  the character it stands for, and the map from decoded offsets back to the text's. The walker
  visits the decoded text and carries each replacement back over the escapes it came from
  (``carry_back``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

# A JSON object key, a colon, then the opening quote of a string value.
_JSONISH = re.compile(r'[{\[,][ \t\r\n]{0,8}"(?:[^"\\\n]|\\.){1,200}"[ \t]{0,4}:')
# A string literal (closed, or cut by the end of the text), and the key before it, if any.
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)(?:"|\\?\Z)')
# \uXXXX (a surrogate pair as one) and \/, each behind any run of backslashes (JSON in JSON).
_ESCAPE = re.compile(
    r"\\+(?:u([dD][89abAB][0-9a-fA-F]{2})\\+u([dD][c-fC-F][0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|/)"
)
# A placeholder as the redactor writes it (``<SECRET_TOKEN_1a2b3c4d>``, ``<USER>``).
_PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_]*(?:_[0-9a-f]{4,16})?>")


def needs_decoding(text: str) -> bool:
    """Cheap test first: an escape ``decode`` undoes, or JSON written inside the text with an
    escape in it (the walker parses whole-JSON strings itself)."""
    if "\\" not in text:
        return False
    if "\\u" in text or "\\/" in text:
        return True
    return '":' in text and _JSONISH.search(text) is not None


def literals(text: str) -> Iterator[tuple[int, int, str, str | None]]:
    """``(start, end, decoded, key)`` of each string literal of JSON written in ``text`` that
    holds an escape: ``start:end`` is its body (between the quotes), ``key`` the object key
    written before it (None for a key itself, an array item, or text that is not JSON)."""
    if not _JSONISH.search(text):
        return
    pos = 0
    n = len(text)
    while pos < n:
        q = text.find('"', pos)
        if q < 0:
            return
        m = _LITERAL.match(text, q)
        if m is None:
            pos = q + 1
            continue
        body_start, body_end = m.start(1), m.end(1)
        pos = max(m.end(), q + 1)
        body = m.group(1)
        if "\\" not in body:
            continue
        decoded = _decode_literal(body)
        if decoded is None:
            continue
        after = text[m.end() : m.end() + 8].lstrip()
        if after.startswith(":"):
            continue  # a key: its value is visited under it
        raw_key = _key_before(text, q)
        key = _decode_literal(raw_key) if raw_key is not None else None
        yield body_start, body_end, decoded, key


def _key_before(text: str, q: int) -> str | None:
    """The body of the object key written right before the value whose quote is at ``q``
    (``"key": "``), read backwards over a bounded stretch (no regex tried at many starts)."""
    j = q - 1
    while j >= max(0, q - 8) and text[j] in " \t":
        j -= 1
    if j < 0 or text[j] != ":":
        return None
    j -= 1
    stop = max(0, j - 8)
    while j >= stop and text[j] in " \t":
        j -= 1
    if j < 1 or text[j] != '"':
        return None
    end = j
    low = max(0, end - 201)
    k = text.rfind('"', low, end)
    while k > 0:
        slashes = 0
        while k - 1 - slashes >= low and text[k - 1 - slashes] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            break
        k = text.rfind('"', low, k)
    if k < 0 or "\n" in text[k + 1 : end]:
        return None
    return text[k + 1 : end]


def _decode_literal(body: str) -> str | None:
    """A literal's body decoded (a cut one: up to its last whole escape), None if not JSON."""
    for cut in (0, 1, 2, 3, 4, 5):
        part = body[: len(body) - cut] if cut else body
        try:
            value = json.loads(f'"{part}"')
        except ValueError:
            continue
        return value if isinstance(value, str) else None
    return None


def encode_literal(value: str, original: str) -> str:
    """``value`` as the body of a JSON string literal, written as ``original`` was (ASCII only
    where it had ``\\u`` escapes and nothing beyond ASCII)."""
    ascii_only = "\\u" in original and original.isascii()
    return json.dumps(value, ensure_ascii=ascii_only)[1:-1]


def decode(text: str) -> tuple[str, list[int]] | None:
    """``(decoded, starts)``: ``text`` with its ``\\uXXXX`` and ``\\/`` escapes decoded, and for each
    decoded character (and the end) the offset in ``text`` where it starts. None: no escape."""
    pieces: list[str] = []
    starts: list[int] = []
    last = 0
    for m in _ESCAPE.finditer(text):
        if m.group(1) is not None:
            ch = chr(0x10000 + ((int(m.group(1), 16) - 0xD800) << 10) + (int(m.group(2), 16) - 0xDC00))
        elif m.group(3) is not None:
            code = int(m.group(3), 16)
            ch = "\ufffd" if 0xD800 <= code <= 0xDFFF else chr(code)
        else:
            ch = "/"
        pieces.append(text[last : m.start()])
        starts.extend(range(last, m.start()))
        pieces.append(ch)
        starts.append(m.start())
        last = m.end()
    if not pieces:
        return None
    pieces.append(text[last:])
    starts.extend(range(last, len(text)))
    starts.append(len(text))
    return "".join(pieces), starts


def carry_back(text: str, decoded: str, starts: list[int], redacted: str) -> str:
    """``text`` with the replacements the visit made in ``decoded`` (giving ``redacted``) made over
    the escapes they cover. ``redacted`` is ``decoded`` with some pieces replaced by placeholders:
    the pieces it kept are found in ``decoded`` in order, and what lies between two of them
    there was replaced. Placed from the left and from the right, they must agree (a kept piece
    that also occurs inside a replaced value would otherwise cut it); if they do not, the
    decoded text as redacted is returned (recall first: the escapes' spelling is lost, no value)."""
    if redacted == decoded:
        return text
    kept: list[str] = []
    groups: list[str] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(redacted):
        if groups and m.start() == pos:
            groups[-1] += m.group(0)  # adjacent placeholders: one replaced piece
        else:
            kept.append(redacted[pos : m.start()])
            groups.append(m.group(0))
        pos = m.end()
    if not groups:
        return redacted
    kept.append(redacted[pos:])
    # kept[0], groups[0], kept[1], groups[1], ..., kept[-1]
    n = len(decoded)
    if not decoded.startswith(kept[0]) or not decoded.endswith(kept[-1]) or len(kept[0]) + len(kept[-1]) > n:
        return redacted
    left = [0]
    at = len(kept[0])
    for piece in kept[1:-1]:
        j = decoded.find(piece, at + 1)
        if j < 0:
            return redacted
        left.append(j)
        at = j + len(piece)
    right = [n - len(kept[-1])]
    at = right[0]
    for piece in reversed(kept[1:-1]):
        j = decoded.rfind(piece, 0, at - 1)
        if j < 0:
            return redacted
        right.append(j)
        at = j
    right.reverse()  # right[k]: where kept[k + 1] starts (kept[-1] last)
    if left[1:] != right[:-1]:
        return redacted
    ends = [*left[1:], right[-1]]  # where the piece replaced by groups[k] ends
    out: list[str] = []
    raw = 0
    i = len(kept[0])
    for k, group in enumerate(groups):
        j = ends[k]
        if j <= i:
            return redacted
        if decoded[i:j] != group:  # not a placeholder the text held already
            out.append(text[raw : starts[i]])
            out.append(group)
            raw = starts[j]
        i = j + len(kept[k + 1])
    out.append(text[raw:])
    return "".join(out)
