"""A secret's place in a table: its name in one column, its value in the next.

Tools print secrets as tables (``vault kv get``: ``password    s3cr3t…``; ``railway variables``:
``║ DATABASE_PASSWORD ║ value ║``), and people and agents write them as markdown tables
(``| DEPLOY_TOKEN | `value` |``). There the name stands at a line's start or in a row's first
cell, two or more blanks or a cell border stand for the operator, and the value is the whole
next cell or the rest of the line. ``entropy`` asks here after the name's other places gave
nothing; the value is judged by ``values.value_ok`` as a delimited (quoted) value of the name's
tier, so a column of words or types (``password    required``, ``| token | string |``) stays.
Help text and prose (``--token    The token to use``) have more words after the name: no cell.
"""

from __future__ import annotations

import re

_BORDER = "|║│┃"
# Before the name: a line's start (also a JSON-escaped one), maybe a row's first border.
_ROW_START = re.compile(rf"(?:\A|\n|\\n)[ \t]*(?:[{_BORDER}][ \t]*)?\Z")
# After the name: a column's gap or a border, the value (maybe in backticks), then a border or the line's end.
_CELL = re.compile(
    rf"(?:[ \t]{{2,40}}|[ \t]*[{_BORDER}][ \t]*)`?(?P<v>[^\s{_BORDER}`]{{6,512}})`?[ \t]*(?=[{_BORDER}]|\r?\n|\\n|\Z)"
)


def cell_value(text: str, a: int, b: int) -> tuple[int, int] | None:
    """The value's span when the name at ``text[a:b]`` heads a row whose next cell holds it."""
    if not _ROW_START.search(text, max(0, a - 12), a):
        return None
    m = _CELL.match(text, b)
    return None if m is None else m.span("v")
