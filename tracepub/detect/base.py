"""The detector contract: small plugin classes in the style of detect-secrets.

A detector looks at one string and its ``Leaf`` context and returns spans. It must be cheap to
call on text that holds nothing (most text): do a fast rejection first. Register a new detector
in ``detect/registry.py:build_detectors``.

Every detector should also declare a ``trigger``: a cheap necessary condition for it to find
anything (see ``tracepub.prefilter``). The engine combines all triggers into one pass per
string and one per raw JSONL line; a detector whose trigger does not fire is not called, and a
line on which no trigger fires is written back without being walked. A detector without a
trigger (``None``) is called on every string and turns the line-level skip off: slow, never
wrong. ARCHITECTURE.md ("Speed") states the contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tracepub.model import Leaf, Span


@dataclass(frozen=True)
class Trigger:
    """What must occur in a string for a detector to find anything in it.

    ``literals``: case-insensitive substrings. ``shapes``: substrings of the text with every
    digit written as ``0`` (``"000-0000"`` finds any 3-4 digit group). All literals and shapes
    of all detectors go into one Aho-Corasick automaton, run once per string over the text
    lower-cased with digits as ``0`` (so a literal's digits also match any digit: a superset).
    ``patterns``: regexes, for what literals cannot say; slower, so start them with a literal
    character where possible. ``folded``: regexes searched in the folded text (lower case,
    digits as ``0``), so a case-insensitive keyword or a digit run can be a fast literal prefix
    (``key\\W{0,3}=``, ``00000000:``). Both kinds are also searched in raw JSON lines, so they must be
    *escape-safe*: a match in a decoded string must also be a match in its JSON encoding (with
    ``\\uXXXX`` and ``\\/`` decoded, which the prefilter does): no ``^``/``$`` anchors, and
    lookarounds/``\\b`` only in forms that a neighbouring ``\\n``/``\\"`` also satisfies.
    ``lines``: everything the detector finds lies within one line holding a trigger hit, and
    what it finds in a line does not depend on the other lines; the engine then calls it on
    those lines only (merged when adjacent), not on the whole string. A detector whose findings
    stay on those lines but whose scores read a little around them (Presidio's context words)
    defines ``scan_windows(text, windows, leaf)``: it then gets the whole string and the lines.
    ``prose_only``: the detector runs on prose leaves only (NER); a line counts only if the
    reader says it may hold prose.
    ``keys``: the detector also runs on any string under one of these object keys (lower case),
    whatever the text (``{"author_name": "..."}``); on raw lines a key counts where it is written
    as a JSON key (quoted, then a colon). ``keys_spaced``: what the detector finds under its keys
    has whitespace in it (a full name), so on raw lines such a key counts only when a string with
    whitespace (or a list or an object) follows it: ``"name":"Bash"`` does not.
    ``key_words``: the same as ``keys`` for any key *containing* one of these (lower case):
    ``token`` covers ``GH_TOKEN``, ``refreshToken``, ``_authToken``. The detector decides; on raw
    lines they must also be among ``literals`` (a key is in the raw line as written).
    ``shape_check``: a regex that must match (``re.match``) in the text where a shape starts for
    that hit to count: what the fold loses (an IBAN's country code is upper case, at a word start,
    and "ad00" is in every other hex digest). Not applied to raw lines (a superset there).
    ``line_patterns``: regexes on the folded raw line (and its views) that stand, on raw lines
    only, for ``literals``/``shapes``/``patterns``/``folded``: a cheap literal for every string,
    a precise (slower) check for the line skip, where a literal is too common in JSON itself
    (``"name":`` keys), or for ``keys`` (a key and the kind of value the detector reads under it).
    The same rules apply: necessary and escape-safe.
    ``shape_ends``: shapes (among ``shapes``) where ``shape_check`` matches only if no ASCII
    letter, digit or underscore follows the shape (``St(?!\\w)``; list a longer word that can
    follow, " street", as a shape of its own). In an ASCII text the automaton then looks for the
    shape with each other ASCII character after it, and the text's end (" st" is in "start").
    ``folded_split``: regexes on the folded text like ``folded``, in groups that each stand for
    one regex split by its alternatives' first characters (a match where one part matches), so
    that ``re`` skips to each part's literal prefix ("00", "0.") rather than stopping at every
    "0". A group counts as one pattern for the share of a string its lines cover
    (``Prefilter.WHOLE``): the plans are the one regex's.
    """

    literals: tuple[str, ...] = ()
    shapes: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    folded: tuple[str, ...] = ()
    lines: bool = False
    prose_only: bool = False
    keys: tuple[str, ...] = ()
    keys_spaced: bool = False
    key_words: tuple[str, ...] = ()
    line_patterns: tuple[str, ...] = ()
    shape_check: str = ""
    shape_ends: tuple[str, ...] = ()
    folded_split: tuple[tuple[str, ...], ...] = ()


class Detector:
    name: ClassVar[str] = "detector"
    # Detectors that publish re-runs as a last check: only rules precise enough to refuse an upload.
    high_confidence: ClassVar[bool] = False
    # A cheap necessary condition (see Trigger). None: always called, and no line is ever skipped.
    trigger: Trigger | None = None
    # True if the spans depend only on the text and ``leaf.prose``: the engine then reuses them
    # for the same text under another key (tool output repeated in another field). False (the
    # safe default) also keys the cache on ``leaf.key`` and ``leaf.harness``. No detector may
    # depend on ``leaf.path`` beyond what ``leaf.prose`` says.
    context_free: bool = False
    # True for a detector that remembers what it read earlier in a file (``secrets.bare``: the last
    # command): the engine calls it on every string under its keys, outside its caches, and
    # ``start_unit`` when a file starts.
    stateful: ClassVar[bool] = False

    def start_unit(self) -> None:
        """A new file starts: a stateful detector forgets what it read."""

    def parts(self) -> list[Detector]:
        """The detectors the engine registers for this one: itself, or smaller parts with their
        own triggers (``Presidio`` is one part per recognizer)."""
        return [self]

    def scan(self, text: str, leaf: Leaf) -> list[Span]:  # pragma: no cover - interface
        raise NotImplementedError


# One threshold for "precise enough to refuse an upload": publish's re-scan loads only rules at
# or above it and blocks only on hits at or above it; review warns before keeping such a value.
BLOCK_CONFIDENCE = 0.9

# Ranking used when spans overlap: the user's identity beats a secret beats other PII.
PRIORITY = {"identity": 3, "secret": 2, "pii": 1, "custom": 3}


def priority(type_: str) -> int:
    return PRIORITY.get(type_.partition(".")[0], 0)
