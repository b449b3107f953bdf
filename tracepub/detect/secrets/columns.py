"""A secret's place in a table: its name in one column, its value in the next; or in two fields.

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
# Before the name: a line's start (also a JSON-escaped one, and a file view's line number), maybe a
# row's first border.
_ROW_START = re.compile(rf"(?:\A|\n|\\n)[ \t]*(?:\d{{1,6}}(?:→|\t)[ \t]*)?(?:[{_BORDER}][ \t]*)?\Z")
# After the name: a column's gap or a border, the value (maybe in backticks), then a border or the line's end.
_CELL = re.compile(
    rf"(?:[ \t]{{2,40}}|[ \t]*[{_BORDER}][ \t]*)`?(?P<v>[^\s{_BORDER}`]{{6,512}})`?[ \t]*(?=[{_BORDER}]|\r?\n|\\n|\Z)"
)


# Or the name alone on its line and the value alone on the next (notes, a form's dump: ``password`` then
# ``Qv7#mTr2pLx9!``): one word with a letter, and a digit or a sign; no path, call, reference or pair.
_NEXT_LINE = re.compile(
    r"[ \t]*(?:\r?\n|\\n)[ \t]*(?:\d{1,6}(?:→|\t)[ \t]*)?(?=[^\s\\]*[A-Za-z])(?=[^\s\\]*[0-9!#%^&*+?~@])"
    r"(?P<v>[^\s\\=/()<>\[\]{}$'\"`,;:]{6,128})[ \t]*(?=\r?\n|\\n|\Z)"
)


# A name/value pair (Kubernetes' ``env``, ECS task definitions, SSM parameters): the name is the
# value of a ``name`` field (after a path's folders: ``/prod/db/password``), the secret that of the
# mapping's next ``value`` field, other fields between but not another ``name``.
_NAME_FIELD = re.compile(r"""(?i:\\?["']?name\\?["']?)[ \t]*:[ \t]*(?:\\?["'])?(?:[\w.-]*/)*\Z""")
_VALUE_FIELD = re.compile(
    r"""(?:\\?["'])?(?:(?!(?i:\\?["']?name\\?["']?)[ \t]*:)[^{}\[\]]){0,200}?(?<![\w-])(?:\\?["'])?(?i:value)"""
    r"""(?:\\?["'])?[ \t]*:[ \t]*(?:(?P<q>\\?["'])(?P<qv>[^"'\n\\]{1,512})(?P=q)|(?P<uv>[^\s"',}\\]{1,512}))"""
)


# A name that opens a mapping (JSON written in text that did not parse: cut short, inside a log line):
# the secret is the mapping's ``value`` field (terraform's ``"db_password": {"sensitive": true, "value": V}``).
_OPENS = re.compile(r"""(?:\\?["'])?[ \t]*:[ \t]*\{""")


def cell_value(text: str, a: int, b: int) -> tuple[int, int] | None:
    """The value's span when the name at ``text[a:b]`` heads a row whose next cell (or line) holds it, is a
    ``name`` field's value whose ``value`` field holds it, or opens a mapping with a ``value`` field."""
    # (each regex is searched only where the characters it needs are there: most names are in prose)
    row = max(0, a - 12)
    if (row == 0 or text.find("\n", row, a) >= 0 or text.find("\\n", row, a) >= 0) and _ROW_START.search(
        text, row, a
    ):
        m = _CELL.match(text, b) or _NEXT_LINE.match(text, b)
        return None if m is None else m.span("v")
    field = max(0, a - 80)
    if text.find(":", field, a) >= 0 and _NAME_FIELD.search(text, field, a):
        at = b  # the mapping's next value field
    elif (opens := _OPENS.match(text, b)) is not None:
        at = opens.end()  # the value field of the mapping the name opens
    else:
        return None
    m = _VALUE_FIELD.match(text, at)
    return None if m is None else m.span("qv" if m.group("qv") is not None else "uv")
