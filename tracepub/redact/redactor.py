"""Replace detected spans with placeholders and describe each replacement as a finding.

One ``Redactor`` serves one output file at a time (``start_unit``) and is the ``visit``
callback of the walker. Findings carry context taken from the *redacted* text, so a snippet
never shows a neighbouring secret in clear, and the value itself is masked for secrets and the
user's identity (review/ is local, but the identity is never written in clear anywhere).
"""

from __future__ import annotations

import binascii
import hashlib
from collections import Counter
from typing import TYPE_CHECKING, Any

import orjson

from tracepub.detect.engine import Engine
from tracepub.detect.found import Found, carried_type, propagates
from tracepub.detect.identity import WORKDIR_KEYS, HomePaths, accounts_of
from tracepub.model import KEPT, REDACTED, Leaf, Span
from tracepub.redact.placeholders import Namer, for_path
from tracepub.redact.policy import apply as apply_operator
from tracepub.redact.policy import operator_for
from tracepub.walk.walker import JSON, KEY, Walker, format_path

if TYPE_CHECKING:
    from tracepub.outputs.groups import SpanFold

CONTEXT = 48


def mask(value: str, type_: str) -> str:
    """What the report may show of a value: PII in clear (a person must judge it), the rest masked."""
    if type_.startswith("identity."):
        return value[:1] + "…" if len(value) > 1 else "…"
    if type_.startswith("secret.") or type_.startswith("custom."):
        if len(value) >= 16:
            return value[:4] + "…" + value[-2:]
        return value[:2] + "…"
    return value


def prose_of(record: Any, is_prose, prose_strings=None) -> list[str]:
    """The strings of ``record`` that ``is_prose(record, path)`` accepts (``prose_strings(record)``:
    the reader's faster way to list them, if it has one)."""
    if is_prose is None:
        return []
    if prose_strings is not None:
        return [s for s in prose_strings(record) if len(s) >= 3]
    out: list[str] = []

    def walk(v: Any, path: tuple) -> None:
        if isinstance(v, str):
            if len(v) >= 3 and is_prose(record, path):
                out.append(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(x, (*path, k))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, (*path, i))

    walk(record, ())
    return out


class Redactor:
    def __init__(
        self, engine: Engine, namer: Namer, keep_ids: set[str] | None = None, remove_blobs: bool = True
    ):
        self.engine = engine
        self.namer = namer
        self.keep_ids = keep_ids or set()
        self.walker = Walker(self._visit, self._blob, remove_blobs)
        self.types: Counter[str] = Counter()
        self.blobs: Counter[str] = Counter()
        # Per text redacted: (file, record, path, the ids of its findings (bytes), the rendering's
        # findings (_ST_* tuples), the rendering's extras (_RenderExtra)): ``finding_dicts`` /
        # ``findings_jsonl`` / ``fold_findings``.
        self.findings: list[tuple[str, int, str, list[bytes], list[tuple], _RenderExtra]] = []
        self._path_json: dict[str, bytes] = {}  # path -> its JSON string
        self.file = ""
        self.harness = ""
        self.record_index = 0
        self._record: Any = None
        self._is_prose = None
        self._prose_strings = None
        self._rendered: dict[tuple, tuple] = {}
        self._rendered_chars = 0
        self._where: dict[tuple, str] = {}  # path -> "$.a.b[0]" (paths repeat line after line)
        # (text, key, prose) of short strings without a space that held nothing (same harness).
        self._clean: set[tuple] = set()
        # The values redacted in this unit that are redacted everywhere (``detect.found``), but for
        # the user's own exact values (the engine matches them everywhere already).
        self.found: Found = {}
        self._own = frozenset(v.lower() for v in engine.cfg.identity)
        self._own_accounts = frozenset(
            v.lower() for v, t in engine.cfg.identity.items() if t == "identity.username"
        )

    def start_unit(self, file: str, harness: str, is_prose, prose_strings=None) -> None:
        """``is_prose(record, path)``: the reader's; ``prose_strings(record)``: the reader's
        faster way to list the strings ``is_prose`` accepts, if it has one."""
        if harness != self.harness:
            self.walker.clean_keys.clear()
            self._clean.clear()
        self.file, self.harness, self._is_prose = file, harness, is_prose
        self._prose_strings = prose_strings if is_prose is not None else None
        self.findings = []
        self.found = {}
        self.engine.start_unit()

    def redact_record(self, index: int, value: Any) -> Any:
        self.record_index, self._record = index, value
        return self.walker.walk(value)

    def prose_strings(self, record: Any) -> list[str]:
        """The strings of ``record`` the reader calls prose (for ``Engine.prefetch``)."""
        return prose_of(record, self._is_prose, self._prose_strings)

    def redact_text(self, text: str, path: tuple = (), key: str | None = None) -> str:
        return self._visit(text, path, key)

    # -- walker callbacks ------------------------------------------------------------------
    def _blob(self, kind: str, path: tuple, text: str) -> None:
        self.blobs[kind] += 1

    def _visit(self, text: str, path: tuple, key: str | None) -> str:
        if len(text) < 2:  # ("owner": "jo": a two-letter username is a whole string)
            return text
        prose = False
        if self._is_prose is not None and (not path or path[-1] is not KEY) and JSON not in path:
            prose = self._is_prose(self._record, path)
        short = len(text) <= 64 and " " not in text  # no remembered person fits in it (two words)
        if short and (text, key, prose) in self._clean:
            return text  # ids, timestamps, flags: the same answer as last time, without a Leaf
        spans = self.engine.scan(text, Leaf(self.harness, path, key, prose))
        if self._own_accounts and spans:
            spans = self._own_people(text, spans)
        if not spans:
            if path and path[-1] is KEY and len(self.walker.clean_keys) < 100_000:
                self.walker.clean_keys.add(text)  # an object key with nothing in it: skip it next time
            elif short:
                if len(self._clean) >= 100_000:
                    self._clean.clear()
                self._clean.add((text, key, prose))
            return text
        new = self._apply(text, spans, path)
        if key in WORKDIR_KEYS:
            self._owner_from(text, spans)
        return new

    def _own_people(self, text: str, spans: list[Span]) -> list[Span]:
        """The user's own name and address among the people found: a person whose name gives one
        of the user's account names (``Anna Schmidt`` for ``aschmidt``), and the address right
        after it (``<anna@…>``) or whose local part is one (``aschmidt@…``), typed as the user's
        (``identity.name``/``identity.email``: ``<USER_NAME>``, masked in findings). When the
        environment does not name the user, this is how the owner's name is known (git log)."""
        out = spans
        own_name_end, made = -1, frozenset[str]()
        for k, sp in enumerate(spans):
            if sp.type == "pii.person":
                names = accounts_of(text[sp.start : sp.end])
                if not names & self._own_accounts:
                    continue
                new = Span(sp.start, sp.end, "identity.name", sp.detector, sp.confidence, sp.action)
                own_name_end, made = sp.end, names
            elif sp.type == "pii.email":
                local = text[sp.start : sp.end].partition("@")[0].lower()
                near = 0 <= sp.start - own_name_end <= 3 and local in made  # "Name <local@…>"
                if not near and local not in self._own_accounts:
                    continue
                new = Span(sp.start, sp.end, "identity.email", sp.detector, sp.confidence, sp.action)
            else:
                continue
            if out is spans:
                out = list(spans)
            out[k] = new
        return out

    def _owner_from(self, text: str, spans: list[Span]) -> None:
        """A session's working folder names its owner: a home-folder username found there is the
        user's own (``identity.username``), carried to the whole dataset. The run learns most
        owners before the first pass (``sources.harvest.learn``); this catches the sessions it
        could not read cheaply (database stores)."""
        for s in spans:
            if s.type == "pii.username" and s.detector == HomePaths.name:
                value = text[s.start : s.end]
                if value.lower() not in self._own:
                    self.found[value] = ("identity.username", REDACTED)

    def _apply(self, text: str, spans: list[Span], path: tuple) -> str:
        in_name = bool(path) and path[0] == "#file"
        # Keyed by the text when short, a long one by the engine's digest of it: a tool output
        # comes back under another key (Claude's toolUseResult), with spans found again but equal.
        key: tuple = (text if len(text) <= self.RENDER_CACHE_LEN else self.engine.text_key(text), in_name)
        rendered = self._rendered.get(key)
        if rendered is None or (rendered[0] is not spans and rendered[0] != spans):
            rendered = (spans, *self._render(text, spans, in_name), _RenderExtra())
            rendered[3].found = _carried(text, rendered[2], self._own)
            self._rendered_chars += len(rendered[1])
            if len(self._rendered) >= 50_000 or self._rendered_chars > 16_000_000:
                self._rendered.clear()
                self._rendered_chars = len(rendered[1])
            self._rendered[key] = rendered
        _, new, static, extra = rendered
        if extra.found:
            found = self.found
            for value, type_action in extra.found:
                found.setdefault(value, type_action)

        where = self._where.get(path)
        if where is None:
            if len(self._where) >= 100_000:
                self._where.clear()
            where = self._where[path] = format_path(path)
        head = f"{self.file}\0{self.record_index}\0{where}\0".encode()
        sha1, hexlify = hashlib.sha1, binascii.hexlify
        # A finding's id: the first 12 hex digits of the SHA-1 of where it is (as bytes: written as bytes)
        if len(static) < _FOLD_SPANS:
            fids = [hexlify(sha1(b"%s%d" % (head, st[_ST_START])).digest()[:6]) for st in static]
        else:  # many: the hash of the common head once, copied for each
            fids = []
            copy = sha1(head).copy
            for st in static:
                h = copy()
                h.update(b"%d" % st[_ST_START])
                fids.append(hexlify(h.digest()[:6]))
        self.findings.append((self.file, self.record_index, where, fids, static, extra))
        types = self.types
        if len(static) < _FOLD_SPANS:
            for st in static:
                types[st[_ST_TYPE]] += 1
        else:
            for t, n in extra.fold(static).by_type.items():
                types[t] += n
        return new

    # -- findings ----------------------------------------------------------------------------
    def finding_dicts(self) -> list[dict]:
        """The findings made since ``start_unit`` (or the last ``findings.clear()``), as dicts."""
        return [
            {"id": fid.decode(), "file": file, "record": record, "path": where, **_fields(st)}
            for file, record, where, fids, static, _ in self.findings
            for fid, st in zip(fids, static, strict=True)
        ]

    def findings_jsonl(self) -> bytes:
        """The findings as findings.jsonl lines: the bytes ``orjson.dumps`` gives each dict of
        ``finding_dicts``, assembled from parts serialised once (a file's name, a path, and all
        but the id, file, record and path of a span's finding, which repeat)."""
        paths = self._path_json
        lines: list[bytes] = []
        file_j: tuple[str | None, bytes] = (None, b"")
        for file, record, where, fids, static, _ in self.findings:
            if file_j[0] is not file:
                file_j = (file, orjson.dumps(file))
            where_j = paths.get(where)
            if where_j is None:
                if len(paths) >= 100_000:
                    paths.clear()
                where_j = paths[where] = orjson.dumps(where)
            # bytes throughout: contexts are often not ASCII, and encoding text costs more than this
            mid = b'","file":%s,"record":%d,"path":%s,' % (file_j[1], record, where_j)
            for fid, st in zip(fids, static, strict=True):
                tail = st[_ST_TAIL]
                if tail is None:  # not serialisable when rendered: orjson raises here, as for the dict
                    tail = orjson.dumps(_fields(st), option=orjson.OPT_APPEND_NEWLINE)[1:]
                lines += (b'{"id":"', fid, mid, tail)  # joined once: no bytes made per line
        return b"".join(lines)

    def fold_findings(self, fold, actions: Counter[str]) -> None:
        """Fold the findings into the report's per-file view (``report.FileFold``) and count actions:
        a text's findings a value at a time (``report.span_fold``) when it holds many."""
        add = fold.add_static
        for file, record, where, fids, static, extra in self.findings:
            if len(static) < _FOLD_SPANS:
                for fid, st in zip(fids, static, strict=True):
                    actions[st[_ST_ACTION]] += 1
                    add(file, fid.decode(), record, where, st[_ST_FOLD])
            else:
                sf = extra.fold(static)
                for a, n in sf.by_action.items():
                    actions[a] += n
                fold.add_spans(sf, file, record, where, fids)

    # Strings repeat (the working folder on every line, tool output in two fields): their
    # rendering is reused. Up to this length the text itself is the key.
    RENDER_CACHE_LEN = 2048

    def _render(self, text: str, spans: list[Span], in_name: bool) -> tuple[str, list[tuple]]:
        """The redacted text and, per span, the finding without the fields that depend on where
        the text occurs (``_ST_*``). A long tool output holds the same value many times (the
        user's name in every path): its placeholder, mask and id are worked out once."""
        namer, keep_ids = self.namer, self.keep_ids
        policy = self.engine.cfg.replace
        values: dict[tuple[str, str], tuple[str, bool, str, str]] = {}
        pieces: list[str] = []
        placed: list[tuple[Span, int, int, tuple[str, bool, str, str]]] = []
        pos = 0
        out_len = 0
        for s in spans:
            value = text[s.start : s.end]
            known = values.get((s.type, value))
            if known is None:
                vid = namer.value_id(value)
                # A reviewer's added value or regex (custom.*) is always redacted, even if also kept.
                kept = bool(keep_ids) and not s.type.startswith("custom.") and vid in keep_ids
                op = operator_for(policy, s.type) if policy else "placeholder"
                if kept:
                    ph = value
                elif op == "placeholder":
                    ph = namer.placeholder(s.type, value)
                else:
                    ph = apply_operator(op, value, namer.key)
                if in_name and not kept:
                    ph = for_path(ph)
                known = values[(s.type, value)] = (ph, kept, mask(value, s.type), vid)
            ph = known[0]
            pieces.append(text[pos : s.start])
            out_len += s.start - pos
            placed.append((s, out_len, out_len + len(ph), known))
            pieces.append(ph)
            out_len += len(ph)
            pos = s.end
        pieces.append(text[pos:])
        new = "".join(pieces)
        static: list[tuple] = []
        dumps = orjson.dumps
        # The serialised fields but start, end and context, per value, detector, confidence and action
        mids: dict[tuple, bytes | None] = {}
        for s, a, b, (ph, kept, shown, vid) in placed:
            action = KEPT if kept else s.action
            placeholder = None if kept else ph
            before, after = new[a - CONTEXT if a > CONTEXT else 0 : a], new[b : b + CONTEXT]
            conf = s.confidence
            mkey = (vid, shown, placeholder, s.type, s.detector, conf.__class__, conf, action)
            mid = mids.get(mkey, False)
            if mid is False:
                try:
                    mid = mids[mkey] = dumps(
                        {
                            "type": s.type,
                            "detector": s.detector,
                            "confidence": conf,
                            "action": action,
                            "placeholder": placeholder,
                            "value": shown,
                            "value_id": vid,
                        }
                    )[1:-1]
                except TypeError:  # orjson refuses it (a lone surrogate): raised where the finding is written
                    mid = mids[mkey] = None
            tail = None
            if (
                mid is not None and s.start.__class__ is int and s.end.__class__ is int
            ):  # as orjson writes them
                try:
                    tail = b'"start":%d,"end":%d,%s,"context":{"before":%s,"after":%s}}\n' % (
                        s.start,
                        s.end,
                        mid,
                        dumps(before),
                        dumps(after),
                    )
                except TypeError:
                    pass
            static.append(
                (
                    s.start,
                    s.type,
                    action,
                    tail,
                    (vid, shown, s.type, s.detector, action, float(conf), placeholder, before, after),
                    s,
                )
            )
        return new, static


# A span's finding without the fields that depend on where its text occurs (id, file, record,
# path), built once per rendering and reused for every occurrence of the text: a tuple (spans
# are many; a class instance costs more to make) of the span's start, type, action, the other
# fields serialised as findings.jsonl ends a line (None where orjson refuses a string: then
# ``findings_jsonl`` raises as ``orjson.dumps`` of the dict would), their form for
# ``report.FileFold.add_static``, and the span.
_ST_START, _ST_TYPE, _ST_ACTION, _ST_TAIL, _ST_FOLD, _ST_SPAN = range(6)
# A text with at least this many findings is folded a value at a time (``report.span_fold``).
_FOLD_SPANS = 4


def _fields(st: tuple) -> dict[str, Any]:
    """A finding's fields but id, file, record and path (the dict findings.jsonl serialises)."""
    s = st[_ST_SPAN]
    vid, shown, _, _, action, _, placeholder, before, after = st[_ST_FOLD]
    return {
        "start": s.start,
        "end": s.end,
        "type": s.type,
        "detector": s.detector,
        "confidence": s.confidence,
        "action": action,
        "placeholder": placeholder,
        "value": shown,
        "value_id": vid,
        "context": {"before": before, "after": after},
    }


def _carried(text: str, static: list[tuple], own: frozenset[str]) -> tuple[tuple[str, tuple[str, str]], ...]:
    """The values of a rendering that are redacted everywhere, with their type and action (not
    the user's own exact values, ``own``, lower case)."""
    out: dict[str, tuple[str, str]] = {}
    for st in static:
        s, action = st[_ST_SPAN], st[_ST_ACTION]
        if action == KEPT:
            continue
        value = text[s.start : s.end]
        if value not in out and value.lower() not in own and propagates(value, s.type, s.detector):
            out[value] = (carried_type(value, s.type), action)
    return tuple(out.items())


class _RenderExtra:
    """What is worked out from a rendering: the values it carries everywhere, and on first need
    its findings folded (``report.span_fold``)."""

    __slots__ = ("_fold", "found")

    def __init__(self) -> None:
        self._fold: SpanFold | None = None
        self.found: tuple[tuple[str, tuple[str, str]], ...] = ()

    def fold(self, static: list[tuple]) -> SpanFold:
        if self._fold is None:
            from tracepub.outputs.report import span_fold

            self._fold = span_fold([st[_ST_FOLD] for st in static])
        return self._fold
