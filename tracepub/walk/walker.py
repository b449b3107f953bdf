"""Visit every string leaf of a JSON value, object keys and JSON encoded inside strings included.

Copy-on-write: an untouched value is returned as the same object, so the caller can tell
"nothing changed" by identity and write the original bytes back unchanged. JSON found inside a
string (Codex ``arguments``, OpenAI ``tool_calls``) is parsed, walked, and encoded again in the
style it was written in. JSON that does not parse (cut short, too deep, written inside other
text) and ``\\uXXXX`` / ``\\/`` escapes are decoded for the detectors (``escapes``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import ahocorasick_rs
import orjson

from tracepub.walk import blobs, escapes

# Path elements: str (object key), int (array index), KEY (the key itself), JSON (decoded string).
KEY = ("#key",)
JSON = ("#json",)

_VALUE_FIELDS = frozenset(("value", "Value", "VALUE", "ParameterValue"))
_NAME_FIELDS = ("name", "Name", "NAME", "key", "Key", "ParameterKey")


def _value_key(owner: str | None, field: str, mapping: dict) -> str:
    """The key a value field's string is scanned under: the name beside it where the mapping is a
    name/value pair (Kubernetes' and ECS's ``{"name": N, "value": V}``, SSM's ``{"Name":
    "/prod/db/password", "Value": V}``: a path's last part, CloudFormation's ``ParameterKey``), else
    its owner's (terraform's and Pulumi's ``{"db_password": {"sensitive": true, "value": V}}``). An
    SSM ``SecureString`` is a secret whatever its name. ``detect.secrets.names`` reads ``N.value``."""
    if mapping.get("Type") == "SecureString":
        return f"secret.{field}"
    for f in _NAME_FIELDS:
        name = mapping.get(f)
        if name.__class__ is str and name:
            return f"{name.rsplit('/', 1)[-1]}.{field}"
    return f"{owner}.{field}" if owner else field


# visit(text, path, key, parent_dict) -> replacement text
Visit = Callable[[str, tuple, "str | None"], str]
BlobHook = Callable[[str, tuple, str], None]


def format_path(path: tuple) -> str:
    """Render a path tuple as ``$.a.b[0]#json.c`` (``<key>`` marks an object key itself)."""
    out = ["$"]
    for p in path:
        if p is KEY:
            out.append(".<key>")
        elif p is JSON:
            out.append("#json")
        elif isinstance(p, int):
            out.append(f"[{p}]")
        else:
            out.append(f".{p}")
    return "".join(out)


def loads(text: str, utf8: bytes | None = None) -> Any:
    """Parse JSON fast, falling back to the standard library for what orjson refuses (NaN, huge ints).
    ``utf8``: the same text as valid UTF-8 bytes, if the caller has them (orjson reads them
    without making a UTF-8 copy of a text that is not ASCII)."""
    try:
        return orjson.loads(text if utf8 is None else utf8)
    except orjson.JSONDecodeError:
        return json.loads(text)


# The first key of the first object (after any opening brackets) and the separator after it. A
# '": ' anywhere in the text is no guide: a compact line holds one wherever a string value holds
# JSON written with spaces (a tool's output), and was then written back with spaces throughout.
_FIRST_KEY = re.compile(r'[\[\s]*\{\s*"(?:[^"\\]|\\.)*"(\s*:\s?)')
# "\u00" in an ASCII text, searched in its bytes by a SIMD substring search (an ASCII str encodes
# by a copy): ``str.find`` stops at every backslash, and JSON is full of them (1 ns per character).
_U00 = ahocorasick_rs.BytesAhoCorasick([b"\\u00"])


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")  # a str holds a pair as one character: these are lone


def _style(text: str, one_line: bool = False) -> tuple[int | None, str, str, bool]:
    """Guess how a JSON text was written: (indent, item separator, key separator, ensure_ascii).
    ``one_line``: the caller knows the text holds no line break (a JSONL line), so it is not
    searched for one (a pass over a line of often many kB, as wide as its widest character)."""
    body = text.strip()
    indent: int | None = None
    if not one_line and "\n" in body:
        second = body.split("\n", 2)[1]
        indent = len(second) - len(second.lstrip(" ")) or 2
    first = _FIRST_KEY.match(body)  # the first key's separator as written, where there is an object
    spaced = ": " in first.group(1) if first else '": ' in body
    item_sep = "," if indent is not None else (", " if spaced and ", " in body else ",")
    key_sep = ": " if spaced else ":"
    # isascii is a flag: no search when it is not
    ensure_ascii = body.isascii() and bool(_U00.find_matches_as_indexes(body.encode("ascii")))
    return indent, item_sep, key_sep, ensure_ascii


def dumps_like(original: str, value: Any) -> str:
    """Encode ``value`` the way ``original`` was encoded, keeping surrounding white space."""
    indent, item_sep, key_sep, ensure_ascii = _style(original)
    if indent is None and item_sep == "," and key_sep == ":" and not ensure_ascii:
        try:
            body = orjson.dumps(value).decode()
        except TypeError:
            body = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    else:
        body = json.dumps(value, indent=indent, separators=(item_sep, key_sep), ensure_ascii=ensure_ascii)
    lead = original[: len(original) - len(original.lstrip())]
    trail = original[len(original.rstrip()) :]
    return lead + body + trail


def dumps_like_bytes(original: str, value: Any, one_line: bool = False) -> bytes:
    """``dumps_like(original, value).encode("utf-8")``, without decoding orjson's bytes to text
    and encoding them again (a record is written to a binary file). ``one_line``: ``original``
    holds no line break (see ``_style``)."""
    indent, item_sep, key_sep, ensure_ascii = _style(original, one_line)
    if indent is None and item_sep == "," and key_sep == ":" and not ensure_ascii:
        try:
            body = orjson.dumps(value)
        except TypeError:
            return _utf8(dumps_like(original, value))
        lead = original[: len(original) - len(original.lstrip())]
        trail = original[len(original.rstrip()) :]
        return lead.encode("utf-8") + body + trail.encode("utf-8") if lead or trail else body
    return _utf8(dumps_like(original, value))


def _utf8(text: str) -> bytes:
    """UTF-8 of JSON text; a lone surrogate (only inside a string: it came from a ``\\udXXX``
    escape) written back as that escape, so the line stays valid JSON with the same value."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


def _maybe_json(text: str) -> Any:
    # The ends first: ``strip`` copies a string that ends with a line break (most tool output)
    if len(text) < 2:
        return None
    first, last = text[0], text[-1]
    if (first not in "{[" and not first.isspace()) or (last not in "}]" and not last.isspace()):
        return None
    s = text.strip()
    if len(s) < 2 or s[0] not in "{[" or s[-1] not in "}]":
        return None
    try:
        value = loads(s)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, (dict, list)) else None


class Walker:
    """Walks one JSON value; ``visit`` decides each string's replacement."""

    def __init__(self, visit: Visit, on_blob: BlobHook | None = None, remove_blobs: bool = True):
        self.visit = visit
        self.on_blob = on_blob
        self.remove_blobs = remove_blobs
        # Object keys that ``visit`` left unchanged before: keys repeat on every line ("type",
        # "uuid", "message"...), so they are not visited again. The owner of ``visit`` fills it.
        self.clean_keys: set[str] = set()

    def walk(self, value: Any, path: tuple = ()) -> Any:
        return self._walk(value, path, None, None)

    def _walk(self, value: Any, path: tuple, key: str | None, parent: dict | None) -> Any:
        if isinstance(value, str):
            return self._string(value, path, key, parent)
        if isinstance(value, dict):
            out: dict | None = None
            clean = self.clean_keys
            for k, v in value.items():
                nk = k if not k or k in clean else self._visit(k, (*path, k, KEY), None)
                cls = v.__class__
                if cls is str:  # most values: strings, numbers, flags (no call to _walk for them)
                    vk = _value_key(key, k, value) if k in _VALUE_FIELDS else k  # (name/value pairs)
                    nv = self._string(v, (*path, k), vk, value) if v else v
                elif cls is bool or cls is int or v is None or cls is float:
                    nv = v
                else:
                    nv = self._walk(v, (*path, k), k, value)
                if out is None and (nk is not k or nv is not v):
                    out = {}
                    for k0, v0 in value.items():  # the items before this one, unchanged
                        if k0 is k:
                            break
                        out[k0] = v0
                if out is not None:
                    out[nk] = nv
            return value if out is None else out
        if isinstance(value, list):
            new: list | None = None
            for i, v in enumerate(value):
                nv = self._walk(v, (*path, i), key, None)
                if new is None and nv is not v:
                    new = value[:i]
                if new is not None:
                    new.append(nv)
            return value if new is None else new
        return value

    def _string(self, text: str, path: tuple, key: str | None, parent: dict | None) -> str:
        if not text:
            return text
        # ``classify`` finds nothing under other keys in a text not starting "data:" (no call for most strings)
        if self.remove_blobs and (key in blobs.KEYS or text.startswith(blobs.DATA_URL_START)):
            kind = blobs.classify(key, text, parent)
            if kind is not None:
                if self.on_blob is not None:
                    self.on_blob(kind, path, text)
                return blobs.marker(kind)
        inner = _maybe_json(text)
        if inner is not None:
            new_inner = self._walk(inner, (*path, JSON), key, None)
            if new_inner is inner:
                return text
            return dumps_like(text, new_inner)
        if "\\" in text and escapes.needs_decoding(text):
            return self._escaped(text, path, key)
        return self._visit(text, path, key)

    def _escaped(self, text: str, path: tuple, key: str | None) -> str:
        """A string holding JSON that did not parse (cut short, too deep, written inside other
        text) or ``\\uXXXX`` / ``\\/`` escapes: its string literals with an escape are visited
        decoded, each under the key written before it, then the whole text with those escapes
        decoded (``escapes``); what nothing redacts stays as written."""
        new = text
        parts: list[str] = []
        last = 0
        for a, b, decoded, lit_key in escapes.literals(text):
            redone = self._string(decoded, (*path, JSON), lit_key if lit_key is not None else key, None)
            if redone is not decoded and redone != decoded:
                parts += [text[last:a], escapes.encode_literal(redone, text[a:b])]
                last = b
        if parts:
            parts.append(text[last:])
            new = "".join(parts)
        decoded_all = escapes.decode(new)
        if decoded_all is None:
            return self._visit(new, path, key)
        decoded, starts = decoded_all
        redacted = self._visit(decoded, path, key)
        if redacted is decoded or redacted == decoded:
            return new
        return escapes.carry_back(new, decoded, starts, redacted)

    def _visit(self, text: str, path: tuple, key: str | None) -> str:
        """``visit``, where a text holding a lone surrogate (JSON allows ``"\\ud800"``; no UTF-8
        has one, and detectors, findings and the report need UTF-8) is visited as it would be
        decoded leniently: each lone surrogate a U+FFFD, one character for one, so offsets hold.
        Costs nothing for other texts: the automaton is what refuses it."""
        try:
            return self.visit(text, path, key)
        except UnicodeEncodeError:
            fixed = _LONE_SURROGATE.sub("\ufffd", text)
            if fixed == text:
                raise
            return self.visit(fixed, path, key)
