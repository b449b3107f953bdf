"""Text for the page: escaped, placeholders marked, long texts cut.

Every piece of dataset text reaches the page through ``marked``: Jinja2's autoescape does not
help for text the code splits into pieces, so each piece is escaped here (``markupsafe``) and
only the markup made here is trusted. A placeholder becomes a button carrying its value id; the
page asks ``/api/value`` for what it stands for when clicked (masked for secrets and identity).
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

from tracepub.review.web.index import Index, VRow

MAX_TEXT = 8000
# ``<EMAIL_1a2b3c4d>`` in text, ``USER_1a2b3c4d`` in file and folder names.
# The user's own have no suffix (``redact.placeholders``: one user, one <USER>).
PLACEHOLDER = re.compile(
    r"<[A-Z][A-Z0-9_]*_[0-9a-f]{8}>|<(?:USER|USER_NAME|USER_EMAIL|HOSTNAME|HOME)>"
    r"|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_[0-9a-f]{8}\b"
)


def state_class(g: VRow, keep_ids: set[str]) -> str:
    if g.value_id in keep_ids and g.family != "custom":
        return "kept"
    return "flagged" if g.flagged else "redacted"


def marked(text: str, idx: Index, keep_ids: set[str], limit: int = MAX_TEXT) -> Markup:
    """``text`` escaped, each placeholder a button, cut after ``limit`` characters."""
    cut = text[:limit]
    parts: list[str] = []
    pos = 0
    for m in PLACEHOLDER.finditer(cut):
        parts.append(escape(cut[pos : m.start()]))
        g = idx.group_for_placeholder(m.group())
        if g is None:
            parts.append(Markup('<span class="ph unknown">{}</span>').format(m.group()))
        else:
            parts.append(
                Markup('<button type="button" class="ph {}" data-vid="{}" title="{}">{}</button>').format(
                    state_class(g, keep_ids), g.value_id, g.type, m.group()
                )
            )
        pos = m.end()
    parts.append(escape(cut[pos:]))
    if len(text) > limit:
        parts.append(
            Markup('<span class="more">… {} more characters</span>').format(f"{len(text) - limit:,}")
        )
    return Markup("").join(parts)


def snippet(before: str, value: str, after: str, idx: Index, keep_ids: set[str]) -> Markup:
    """A context snippet with the value highlighted (``value`` as the report shows it: masked
    for secrets and identity)."""
    return Markup('{}<mark class="val">{}</mark>{}').format(
        marked(before[-160:], idx, keep_ids), value, marked(after[:160], idx, keep_ids)
    )
