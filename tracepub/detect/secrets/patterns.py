"""Rule packs: credential formats described as data in ``patterns/*.toml``.

A rule is ``id``, ``type`` (``secret.<name>``), a regex, ``keywords`` (lower-case literals, at
least one of which appears in every match) and optionally ``secret_group``, ``entropy``
(minimum Shannon entropy of the secret), ``random`` (the secret must pass
``filters.looks_random``), ``validator`` (a checksum or a decoding check, see ``validators.py``;
``require_valid`` drops a match that fails it), ``confidence``, ``action`` and
``examples``/``negatives`` that the test suite checks.

The regex is written in one of two ways:

- ``regex``: the whole pattern. ``{L}`` and ``{R}`` stand for token boundaries (no letter,
  digit, ``_`` or ``-`` on that side; ``{L}`` also accepts a JSON-escaped ``\\n`` before it);
  ``{NL}`` for a line break, JSON-escaped or not, with the line number of a file view.
- ``context`` + ``value``: a credential with no distinctive prefix, recognised by the name it
  is assigned to. ``context`` is a case-insensitive regex for the provider's name, ``value`` the
  secret's shape; the loader builds ``NAME[rest of name] [quote] OPERATOR [quote] VALUE`` for
  ``=``, ``:``, ``:=``, ``=>``, ``,`` (``.env``, YAML, TOML, JSON, code, JSON-in-text).

Speed: all keywords of all rules go into one Aho-Corasick automaton, so one pass over the
lower-cased text (``keywords.py``) says which rules can match at all. A rule whose matches are at most ``W``
characters long (computed from the regex) then runs only in windows of ``W`` around its
keyword hits, not over the whole text: a 100 kB tool output with one ``token`` word costs one
small regex run. Rules that start with a literal (``ghp_``, ``sk-ant-``) are instead searched
over the whole text in one call: ``re`` finds a literal prefix with a fast substring search, so
that is cheaper than many small windows. (The loader moves ``{L}`` behind the literal prefix so
that most prefix rules qualify.) Unbounded rules (PEM blocks) also scan the whole text, and
only when their keyword occurs. A rule whose every match starts with one of its keywords (one
literal prefix, or one per branch: ``{L}(?:ghp_|AKIA|...)``, ``Rule.prefix_keyword``) is tried
only at those keywords' hits where they are few, or where its regex starts with no literal
(such a regex is searched at ~40 MB/s, trying its look-behind at every position).
"""

from __future__ import annotations

import functools
import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.secrets import validators
from tracepub.detect.secrets.filters import (
    entropy_enough,
    is_doc_example,
    is_password_placeholder,
    is_placeholder,
    is_reference,
    looks_random,
    lowered,
    wordy,
)
from tracepub.detect.secrets.keywords import KeywordIndex
from tracepub.detect.secrets.rules import _FOLD_EXTRA, UNBOUNDED, Rule
from tracepub.model import REDACTED, REVIEW, Leaf, Span

# A rule that starts with its keyword is tried at each keyword hit rather than searched for over
# the whole text when the text has at least this many characters per hit (a match attempt
# costs about as much as ``re``'s literal search over a few hundred characters).
_PER_HIT = 400


class PatternDetector(Detector):
    """Runs the rules whose keywords occur in the text, near where they occur.

    ``min_confidence``: publish's re-scan keeps only rules (and matches) at or above
    ``HIGH_CONFIDENCE``, so a context-only guess cannot block an upload.
    """

    name = "pattern"
    high_confidence = True
    context_free = True

    def __init__(self, rules: list[Rule], min_confidence: float = 0.0):
        self.min_confidence = min_confidence
        self.rules = [r for r in rules if r.confidence >= min_confidence]
        self._always: list[int] = [i for i, r in enumerate(self.rules) if not r.keywords]
        self._index = KeywordIndex(k for r in self.rules for k in r.keywords)
        self._by_kw: list[list[int]] = [[] for _ in self._index.keywords]
        pos = {k: j for j, k in enumerate(self._index.keywords)}
        for i, r in enumerate(self.rules):
            for kw in dict.fromkeys(r.keywords):
                self._by_kw[pos[kw]].append(i)
        # What every match of a rule holds besides its keyword (url-password: "@"): a window
        # without it is not searched.
        # (None: not computed yet; rules compile when first used, see ``Rule``)
        self._required: list[tuple[str, ...] | None] = [None] * len(self.rules)
        # The engine's prefilter (tracepub.prefilter): every rule's keywords; a rule without
        # keywords (a user's rule) means always run.
        self.trigger = None if self._always else Trigger(literals=tuple(self._index.keywords))

    def candidates(self, text: str) -> list[Rule]:
        """Rules whose keywords occur in ``text`` (and rules without keywords)."""
        hit: dict[int, None] = dict.fromkeys(self._always)
        for j, _, _ in self._index.find(lowered(text)):
            hit.update(dict.fromkeys(self._by_kw[j]))
        return [self.rules[i] for i in hit]

    def share_hits(self, prefilter) -> None:
        """Called by the engine: keyword hits come from its prefilter's pass over the string."""
        if self.trigger is not None:
            self._index.share(prefilter)

    def scan(self, text: str, leaf: Leaf | None) -> list[Span]:
        spans: list[Span] = []
        required = self._required
        if self._index:
            found = self._index.find_text(text)
            if found is None:
                low = lowered(text)
                found = self._index.find(low)
                exact = len(low) == len(text)  # a case fold that changes length: no windows
            else:
                exact = True
            # keyword positions per rule
            hits: dict[int, list[int]] = {}  # where a keyword of the rule starts
            by_kw = self._by_kw
            for j, a, _ in found:
                for i in by_kw[j]:
                    if i in hits:
                        hits[i].append(a)
                    else:
                        hits[i] = [a]
            n = len(text)
            for i, starts in hits.items():
                rule = self.rules[i]
                need = required[i]
                if need is None:
                    need = required[i] = _required_literals(rule.regex)
                # ``(?i:t)`` matches a character beyond ASCII only among these: without them, a
                # context rule's name is its keyword in the lower-cased text
                if rule.at_keyword and exact and (text.isascii() or not any(c in text for c in _FOLD_EXTRA)):
                    # tried at each hit (windows would only bound matches no longer than them; a
                    # match holds its required literals anyway)
                    if not need or all(lit in text for lit in need):
                        spans.extend(self._apply_at(rule, text, sorted(set(starts)), n))
                # many hits (a run of "AAAA..." for a keyword of A's): one whole-text scan is cheaper
                elif not exact or rule.literal or rule.width >= UNBOUNDED or len(starts) > 32:
                    if not need or all(lit in text for lit in need):
                        # (a regex that starts with no literal is slow to search: ~40 MB/s)
                        if (
                            exact
                            and rule.prefix_keyword
                            and (not rule.literal or len(starts) * _PER_HIT <= n)
                        ):
                            spans.extend(self._apply_at(rule, text, sorted(set(starts)), n))
                        else:
                            spans.extend(self.apply(rule, text))
                else:
                    at = sorted(set(starts)) if exact and rule.prefix_keyword else None
                    for a, b in _windows(starts, rule.width, len(text)):
                        if not need or all(text.find(lit, a, b) >= 0 for lit in need):
                            if at is None:
                                spans.extend(self.apply(rule, text, a, b))
                            else:  # tried only where a match can start (a keyword), as _apply_at says
                                spans.extend(self._apply_at(rule, text, [p for p in at if a <= p < b], b))
        for i in self._always:
            need = required[i]
            if need is None:
                need = required[i] = _required_literals(self.rules[i].regex)
            if all(lit in text for lit in need):
                spans.extend(self.apply(self.rules[i], text))
        if self.min_confidence:
            spans = [s for s in spans if s.confidence >= self.min_confidence]
        return spans

    @staticmethod
    def apply(rule: Rule, text: str, pos: int = 0, endpos: int | None = None) -> list[Span]:
        it = rule.regex.finditer(text, pos) if endpos is None else rule.regex.finditer(text, pos, endpos)
        return PatternDetector._spans(rule, text, it)

    @staticmethod
    def _apply_at(rule: Rule, text: str, starts: list[int], endpos: int) -> list[Span]:
        """``apply(rule, text, starts[0], endpos)`` for a rule whose matches can start only at
        ``starts`` (sorted): the regex tried there, in order, skipping starts inside the last
        match, instead of at every letter of the window ("token" rules: a frequent word).
        Equal to ``apply`` (tests, random text)."""
        matches = []
        end = 0
        for p in starts:
            if p < end:
                continue
            m = rule.regex.match(text, p, endpos)
            if m is not None:
                matches.append(m)
                end = m.end()
        return PatternDetector._spans(rule, text, matches)

    @staticmethod
    def _spans(rule: Rule, text: str, matches) -> list[Span]:
        out = []
        for m in matches:
            try:
                start, end = m.span(rule.secret_group)
            except IndexError:
                start, end = m.span()
            if start < 0 or end <= start:
                continue
            secret = text[start:end]
            if rule.type in _PASSWORD_TYPES:
                if is_password_placeholder(secret) or is_doc_example(secret):
                    continue  # the password tier's stand-ins (docs/design/secrets.md, "Passwords")
            elif is_placeholder(secret) or is_doc_example(secret):
                continue
            if rule.context is not None and (
                not _name_is_word(text, m.start(), rule.name_regex)
                or wordy(secret)
                and not _HEXISH.fullmatch(secret)
            ):
                continue  # okta in rookTable, sumo in sumOfExposures; a name or a word as the value
            if rule.truncated and not _cut_here(text, start, end):
                continue
            if rule.entropy is not None and not entropy_enough(secret, rule.entropy):
                continue
            if rule.random and (not looks_random(secret, 8) or is_reference(secret)):
                continue
            confidence, action = rule.confidence, rule.action
            if rule.validator:
                if validators.check(rule.validator, secret):
                    confidence = max(confidence, 0.99)
                elif rule.require_valid:
                    continue
                else:
                    # Recall first: a value of the right shape with a bad checksum is still
                    # replaced, but it is not trusted enough to block a publish on its own.
                    confidence = min(confidence, 0.7)
                    action = REVIEW if action == REVIEW else REDACTED
            out.append(Span(start, end, rule.type, f"pattern:{rule.id}", confidence, action))
        return out


# Chosen by people, so letters and stand-in words do not make them harmless.
_PASSWORD_TYPES = frozenset(("secret.password", "secret.url_password"))
_MARK = re.compile(r"…|\.\.\.|[ \t]*[\[(<](?:[\w ]{0,24}truncated|\.\.\.|…)")
LONG_LINE, LONG_TEXT = 500, 1000  # where tools cut lines (Claude's Read: 2000) and outputs


def _cut_here(text: str, start: int, end: int) -> bool:
    """A prefixed token shorter than its format at ``end`` was cut by a tool, not mistyped or
    made up for a test: a truncation mark follows it, or it ends a line or a text long enough to
    have been cut (a short line ending in ``sntryu_`` and 63 hex is a wrong-length sample)."""
    if _MARK.match(text, end):
        return True
    line_start = text.rfind("\n", 0, start) + 1
    if end - line_start >= LONG_LINE:
        return True
    return not text[end:].strip() and len(text) >= LONG_TEXT


_HEXISH = re.compile(r"[0-9a-fA-F:-]+")  # hex (cafebabe:deadbeef): words made of a-f say nothing


def _name_is_word(text: str, start: int, name: re.Pattern | None) -> bool:
    """The provider name matched at ``start`` is a word of its identifier: it begins where a word
    begins (no letter before it, or a lower-case letter or digit then the name's capital:
    ``myOktaToken``, or a flag's one capital: ``-Dsonar.login``) and ends where one ends (no letter after it, a capital after a lower-case
    letter: ``oktaToken``, or, written in one case throughout, glued to more of the same case:
    ``slackbot``, ``SLACKBOT``). ``etsy`` in ``SetSysctl``, ``okta`` in ``rookTable``, ``sumo``
    in ``sumOfExposures``, ``meraki`` in ``CameraKit`` are not the provider."""
    if name is None:
        return True
    m = name.match(text, start)
    if m is None:
        return True
    end = m.end()
    if start > 0:
        before, first = text[start - 1], text[start]
        # (a single capital before a lower-case name is a flag's letter: -Dsonar.login)
        flag = before.isupper() and first.islower() and (start < 2 or not text[start - 2].isalpha())
        if before.isalpha() and not (before.islower() and first.isupper()) and not flag:
            return False
    if end < len(text) and text[end].isalpha():
        last, after, word = text[end - 1], text[end], text[start:end]
        if last.islower() and after.isupper():
            return True
        letters = [c for c in word if c.isalpha()]
        one_case = all(c.islower() for c in letters) or all(c.isupper() for c in letters)
        return (
            one_case and (after.islower() if letters[0].islower() else after.isupper()) if letters else False
        )
    return True


@functools.cache  # per compiled rule: the bundled rules are shared by every detector of a process
def _required_literals(regex: re.Pattern) -> tuple[str, ...]:
    """The runs of literal characters in the regex's top-level sequence: every match holds each
    of them, within its own span (none if the regex ignores case as a whole)."""
    if regex.flags & re.IGNORECASE:
        return ()
    try:
        ops = list(re._parser.parse(regex.pattern, regex.flags))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an internal API: if it moves, search every window
        return ()
    runs: list[str] = []
    run: list[str] = []
    for op, arg in (*ops, (None, None)):
        if op is re._parser.LITERAL:  # type: ignore[attr-defined]
            run.append(chr(arg))
            continue
        if run:
            runs.append("".join(run))
        run = []
    return tuple(dict.fromkeys(runs))


def _windows(hits: list[int], width: int, n: int) -> list[tuple[int, int]]:
    """Merged ``[pos, endpos)`` windows around keyword hits (where each keyword starts).

    A match of at most ``width`` characters that contains the keyword lies inside
    ``[start - width, start + width]``; the margin keeps look-arounds seeing real characters,
    and merging means no match is cut at a window's edge (every keyword inside a match has its
    own window, merged into the same one).
    """
    margin = 8
    spans = sorted((max(0, a - width - margin), min(n, a + width + margin)) for a in hits)
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out
