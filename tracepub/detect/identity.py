"""The user's own identity and known secrets, matched exactly in one multi-pattern pass.

Values come from ``tracepub.sources.harvest`` (git config, $USER, home, hostname, credential
files, secret-like environment variables, the owners the sessions' working folders name) plus
``--secret`` and ``tracepub.toml``. They are matched with one Aho-Corasick automaton,
case-insensitively, so the cost does not grow with the number of values. How an occurrence
counts depends on the value (``ExactValues.mode``):

- secrets anywhere (a secret inside a longer string is still a secret);
- the user's own account and host names also glued to ``_``, ``-``, ``.`` or digits
  (``maren_dev``, ``maren.backup``, ``maren2``, ``%2Fmaren%2F``), and in identity places
  (``detect/places.py``: ``github.com:marenfork/``);
- names and other values between word boundaries (``al`` is not in ``also``); a full name also
  in its other forms (``name_forms``), its first name alone only as ``detect.cues`` says;
- an account name that is short or a common word (``jo``, ``mark``, ``grant``: ``guarded``)
  only in identity places (``whoami`` output, ``| JO |``, ``/home/jo``, ``jo@host``,
  ``"owner": "jo"``, ``/mnt/backup/jo.backup``), never as a word in prose or code.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import ahocorasick_rs

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.cues import cued
from tracepub.detect.pii.handles import credited, public_credit
from tracepub.detect.pii.name_shape import on_copyright_line
from tracepub.detect.pii.network import personal_ip
from tracepub.detect.places import SYSTEM_ACCOUNTS, in_place, zipf
from tracepub.detect.secrets.keywords import KeywordIndex
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

# Types matched only at word boundaries.
_BOUNDED = {"identity.username", "identity.name", "identity.hostname", "custom.text"}
# Account and host names (their guard and places), and person names (their forms).
USERISH = frozenset({"identity.username", "identity.hostname", "pii.username", "pii.hostname"})
NAMES = frozenset({"identity.name", "pii.person"})
# Someone else's name, address or profile is not redacted on a copyright line, found there or elsewhere.
_HOLDERS = frozenset({"pii.person", "pii.email", "pii.handle"})
# How an occurrence of a value counts (``ExactValues.mode``); FORM: a name's other form, between word
# boundaries with its words capitalised ("Holt, Maren", "M. Holt"; not "bar, foo" in code).
ANY, WORD, COMPOUND, PLACE, CUE, FORM = range(6)
# An account name at least this frequent as an English word (wordfreq's Zipf scale: 3 is once per
# million words) is guarded: the user's own ("grant" 4.7, "hope" 5.4; "devin" 3.3 is not), anyone
# else's from a lower frequency on ("glyph" 2.7, "deva" 2.7; "maren" 2.4 and "okonkwo" 1.9 are not).
OWN_ZIPF = 3.3
OTHERS_ZIPF = 2.5
# Generic account names: redacted in a home path, never looked for in prose and code.
GENERIC = (
    frozenset(
        {
            "shared",
            "public",
            "user",
            "users",
            "username",
            "runner",
            "ubuntu",
            "root",
            "admin",
            "guest",
            "vagrant",
            "ec2-user",
            "node",
            "app",
            "default",
            "you",
            "me",
            "name",
            "home",
            "nobody",
            "linuxbrew",
            "administrator",
            "www-data",
            "jenkins",
            "circleci",
            "travis",
            "codespace",
            "vscode",
            "coder",
            "dev",
            "developer",
            "test",
            "tester",
            "docker",
            "git",
            "postgres",
            "mysql",
            "redis",
            "nginx",
            "apache",
        }
    )
    | SYSTEM_ACCOUNTS
)
_PCT = ("%2F", "%2f", "%5C", "%5c")
# Keys under which harnesses record a session's working folder: the home folder there is the owner's.
WORKDIR_KEYS = frozenset(
    {"cwd", "directory", "directories", "worktree", "working_directory"}
    | {"project_root", "projectRoot", "git_repo_root"}
)
_HEX_LETTERS = frozenset("abcdef")


def guarded(value: str, own: bool) -> bool:
    """Whether an account or host name is redacted only in identity places: two letters, a
    generic account, or a common English word."""
    low = value.strip().lower()
    if len(low) <= 2 or low in GENERIC:
        return True
    return low.isalpha() and zipf(low) >= (OWN_ZIPF if own else OTHERS_ZIPF)


def value_mode(value: str, type_: str, bounded: bool) -> int:
    """How an occurrence of a value counts (the module's docstring); ``bounded``: its type is
    matched between word boundaries at all."""
    if not bounded:
        return ANY
    own = type_.startswith("identity.")
    if type_ in USERISH:
        if guarded(value, own):
            return PLACE
        return COMPOUND if own else WORD
    if type_ in NAMES and " " not in value.strip() and guarded(value, own):
        return CUE  # a name of one common word (git's user.name "Grant"): only as a name
    return WORD


def name_forms(name: str) -> list[tuple[str, int]]:
    """A full name's other written forms: ``Last, First``, ``F. Last``, ``Last First``, ``Last F.`` (the
    last name as all the words after the first, and as the last word alone), the first name (``CUE``)."""
    words = name.split()
    if len(words) < 2 or not all(w[:1].isupper() and all(_name_char(c) for c in w) for w in words):
        return []
    first = words[0]
    lasts = dict.fromkeys((" ".join(words[1:]), words[-1]))
    i = first[0]
    out = [(f, FORM) for ln in lasts for f in (f"{ln}, {first}", f"{i}. {ln}", f"{ln} {first}", f"{ln} {i}.")]
    if len(first) >= 2:
        out.append((first, CUE))
    return out


def encoded_forms(value: str, type_: str) -> tuple[str, ...]:
    """An address as a URL writes it (``?to=maren%40example.com``); the second pass looks for it too."""
    return (value.replace("@", "%40"),) if type_.endswith(".email") and "@" in value else ()


_FOLD = str.maketrans(
    {"þ": "th", "Þ": "th", "ð": "d", "Ð": "d", "ø": "o", "Ø": "o", "ł": "l", "Ł": "l", "ß": "ss"}
)


def ascii_fold(word: str) -> str:
    return "".join(
        c for c in unicodedata.normalize("NFKD", word.translate(_FOLD)) if c.isascii() and c.isalnum()
    ).lower()


@functools.lru_cache(maxsize=65536)
def accounts_of(name: str) -> frozenset[str]:
    """The account names people make from a full name (``mholt``, ``maren.holt``, ``marenh``, ...):
    a person whose name gives one the traces show as an account is someone working there."""
    words = [w for w in (ascii_fold(w) for w in name.split()) if w]
    if len(words) < 2:
        return frozenset()
    f, last, lw = words[0], "".join(words[1:]), words[-1]
    out = {f}
    for ln in {last, lw}:
        out |= {
            ln,
            f + ln,
            f[0] + ln,
            f"{f}.{ln}",
            f"{f}_{ln}",
            f"{f}-{ln}",
            f"{f[0]}.{ln}",
            ln + f,
            ln + f[0],
        }
    return frozenset(out)


def _name_char(c: str) -> bool:
    return c.isalpha() or c in "-'’" or unicodedata.category(c).startswith("M")  # (Adébáyọ̀: combining marks)


def profile_end(view: str, e: int) -> bool:
    """A profile URL's handle (``github.com/pyca``) ends at ``e``: not inside a longer handle
    (``-``) nor a repository's URL (``github.com/pyca/cryptography``, which points at code and
    stays: ``handles.py``), where a copy of the profile is carried (``found.py``)."""
    n = len(view)
    if e == n:
        return True
    c = view[e]
    if c.isalnum() or c in "_-":
        return False
    return not (c == "/" and e + 1 < n and (view[e + 1].isalnum() or view[e + 1] in "_.-"))


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def compound_bounded(view: str, s: int, e: int, hexish: bool) -> bool:
    """``view[s:e]`` not glued to letters: alone, or joined by ``_``, ``-``, ``.``, a URL-encoded
    separator, or digits after it (``maren2``; not in a hex run when the name is hex letters)."""
    n = len(view)
    if s and view[s - 1].isalnum() and not (s >= 3 and view[s - 3 : s] in _PCT):
        return False
    if e == n:
        return True
    c = view[e]
    if c.isdigit():
        if hexish:
            return False
        j = e
        while j < n and view[j].isdigit():
            j += 1
        return j == n or not view[j].isalpha()
    return not c.isalpha()


class ExactValues(Detector):
    """Exact, case-insensitive matching of a fixed set of values, each with its type."""

    name = "identity"
    high_confidence = True
    sees_raw = True  # matches the literal text; uses the escaped view only for word boundaries
    context_free = True

    def __init__(self, values: dict[str, str]):
        self._types: dict[str, str] = {}  # lower case -> the type of its first kind
        # lower case -> ways it counts: (type, mode, the user's own, an account or host name, made of
        # hex letters only); a username and a first name can fold to the same text ("jo", "Jo")
        self._by_word: dict[str, tuple[Kind, ...]] = {}
        for value, type_ in values.items():
            if value and value.strip():
                mode = self.mode(value, type_)
                for form in (value, *encoded_forms(value, type_)):
                    self._add(form, type_, mode)
        for value, type_ in values.items():  # a name's other forms
            if type_ in NAMES and value.strip() and self.formable(value, type_):
                for form, mode in name_forms(value.strip()):
                    self._add(form, type_, mode)
        self._ready = bool(self._types)
        self._words = list(self._types)
        # Every occurrence, overlapping ones included (a value inside another value)
        self._auto = (
            ahocorasick_rs.AhoCorasick(self._words, matchkind=ahocorasick_rs.MatchKind.Standard)
            if self._ready
            else None
        )
        self.trigger = Trigger(literals=tuple(self._types))
        self._index: KeywordIndex | None = None  # the values, read from the engine's prefilter pass

    def _add(self, value: str, type_: str, mode: int) -> None:
        low = value.lower()
        kind = (type_, mode, type_.startswith("identity."), type_ in USERISH, set(low) <= _HEX_LETTERS)
        kinds = self._by_word.get(low, ())
        if kind in kinds:
            return
        # On two values that fold to the same text, the most specific type first: a username last.
        if kinds and type_.startswith("identity.username"):
            self._by_word[low] = (*kinds, kind)
        else:
            self._by_word[low] = (kind, *kinds)
            self._types[low] = type_

    def formable(self, value: str, type_: str) -> bool:
        """Whether a name's other forms are looked for too (the user's own: always)."""
        return True

    def mode(self, value: str, type_: str) -> int:
        """How an occurrence of this value counts (the module's docstring)."""
        return value_mode(value, type_, self.bounded(type_))

    def share_hits(self, prefilter) -> None:
        """Called by the engine: value hits come from its prefilter's pass over the string."""
        if self._ready:
            self._index = KeywordIndex(self._types)
            self._index.share(prefilter)
            self._kinds = [self._by_word[w] for w in self._index.keywords]

    def __bool__(self) -> bool:
        return self._ready

    @staticmethod
    def bounded(type_: str) -> bool:
        """Whether a value of this type counts only between word boundaries."""
        return type_ in _BOUNDED

    @property
    def types(self) -> set[str]:
        return set(self._types.values())

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        if not self._ready:
            return []
        found = self._index.find_text(text) if self._index is not None else None
        if found is not None:  # (word index, start, end) in any order: spans are sorted later
            kinds = self._kinds
            hits = [(kinds[j], start, end) for j, start, end in found]
        else:
            low = text.lower()
            if len(low) != len(text):  # a rare case fold that changes length: search the slow way
                hits = [
                    (self._by_word[w], m.start(), m.end())
                    for w in self._words
                    for m in re.finditer(re.escape(w), text, re.IGNORECASE)
                ]
            else:
                assert self._auto is not None
                words, by_word = self._words, self._by_word
                hits = [
                    (by_word[words[k]], a, b)
                    for k, a, b in self._auto.find_matches_as_indexes(low, overlapping=True)
                ]
        if not hits:
            return []
        view, name = escaped_view(text), self.name
        out = []
        for hit_kinds, start, end in hits:
            for kind in hit_kinds:
                if accept(text, view, start, end, kind):
                    out.append(Span(start, end, kind[0], name, 1.0))
                    break
        return out


Kind = tuple[str, int, bool, bool, bool]


def accept(text: str, view: str, s: int, e: int, kind: Kind) -> bool:
    """Whether a known value's occurrence at ``text[s:e]`` counts, by its mode (``ExactValues``);
    ``view``: the text's escaped view."""
    type_, mode, own, userish, hexish = kind
    if mode == ANY:
        return True
    if type_ == "pii.handle" and not profile_end(view, e):
        return False
    if not own and (type_ in _HOLDERS or type_ == "pii.username") and on_copyright_line(view, s):
        return False  # a rights holder found elsewhere stays in the copyright line (ARCHITECTURE.md),
        # also as an account name seen in a prompt ("Upstream-Contact: Behdad Esfahbod" after "behdad:src$")
    if not own and type_ == "pii.handle" and public_credit(view, s):
        return False  # nor a contributor's profile in a published credit (``handles.public_credit``)
    if not own and type_ in _HOLDERS and type_ != "pii.handle" and credited(view, s, e):
        return False  # nor their name or address on that credit's line (``handles.credited``)
    if type_ == "pii.ip" and ":" not in text[s:e] and not personal_ip(view, s, e):
        return False  # the same digits as a section, a version or an OID's piece are not the address
    if mode == WORD:
        n = len(view)
        if (s == 0 or not _is_word(view[s - 1]) or (s >= 3 and view[s - 3 : s] in _PCT)) and (
            e == n or not _is_word(view[e])
        ):
            return True
        return userish and in_place(text, view, s, e, own)
    if mode == FORM:
        n = len(view)
        return (
            (s == 0 or not _is_word(view[s - 1]))
            and (e == n or not _is_word(view[e]))
            and all(w[:1].isupper() for w in view[s:e].split())
        )
    if mode == COMPOUND:
        return compound_bounded(view, s, e, hexish) or in_place(text, view, s, e, True)
    if mode == PLACE:
        return in_place(text, view, s, e, own)
    return cued(view, s, e)


# Home folders of any user, in plain and in the harnesses' encoded folder names.
_GENERIC_USERS = GENERIC | {
    "all users",
    "default user",
    "your-username",
    "yourname",
    "your_username",
    "youruser",
    # names documentation puts under /home/ (``/home/foo/bar.shp``, ``/home/html/templates``) and
    # CI images' accounts (CircleCI's macOS ``distiller``)
    "foo",
    "bar",
    "baz",
    "qux",
    "html",
    "htdocs",
    "public_html",
    "web",
    "distiller",
}
# A folder under /home/ named like a host or a file (``/home/polls.com/``, ``/home/guido.foobar.txt``).
_NOT_A_NAME = re.compile(r"\.(?:com|org|net|io|dev|edu|gov|co|txt|log|json|py|md|html?)$", re.I)
_HOME = re.compile(
    r"(?:(?<![\w.-])/home/|(?:(?<![\w.-])|(?<=/mnt/[a-z]))/Users/|\b[A-Za-z]:\\{1,2}Users\\{1,2})"
    r"([A-Za-z0-9_][A-Za-z0-9._-]{0,63})"
)
# Encoded folder names (Claude ``-Users-NAME-src-app``, pi ``--home-NAME-src--``, WSL
# ``-mnt-c-Users-NAME-``): the name ends at "-".
_ENCODED_HOME = re.compile(
    r"(?:(?<![A-Za-z0-9])|(?<=-mnt-[a-z]))-(?:home|Users)-([A-Za-z0-9_][A-Za-z0-9._]{0,63})(?=-|$|[^\w.])"
)
# URL-encoded (``?path=%2Fhome%2FNAME%2Fsrc``, ``C%3A%5CUsers%5CNAME``): the name ends at "%".
_PCT_HOME = re.compile(r"(?i:%2F(?:home|Users)%2F)([A-Za-z0-9_][A-Za-z0-9._-]{0,63})")
_PCT_WIN_HOME = re.compile(r"(?i:[A-Z]%3A%5CUsers%5C)([A-Za-z0-9_][A-Za-z0-9._-]{0,63})")


def _finditer_at(rx: re.Pattern, text: str, starts: list[int]) -> list[re.Match]:
    """``rx.finditer(text)``, given every position where a match can start: a match tried at
    each of them in order, skipping those inside the last match. Home-path patterns begin with
    look-behinds and alternatives, so ``re`` tries them at every character (about 10 MB/s);
    every match holds "home" or "Users" at a fixed distance from its start."""
    out = []
    end = 0
    for p in sorted(set(starts)):
        if p < end:  # also skips negative positions
            continue
        m = rx.match(text, p)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


def _home_matches(text: str) -> list[re.Match]:
    """``[*_HOME.finditer(text), *_ENCODED_HOME.finditer(text), *_PCT_HOME…]``, tried where a
    match can start: before "home" or "Users", by the character in front of it ("/home/",
    "-Users-", "C:\\Users", "%2Fhome"; a start where the pattern cannot match adds nothing)."""
    plain: list[int] = []
    encoded: list[int] = []
    pct: list[int] = []
    pct_win: list[int] = []
    for word in ("home", "Users"):
        q = text.find(word, 1)  # (a match starts before the word)
        while q >= 0:
            c = text[q - 1]
            if c == "/":
                plain.append(q - 1)
            elif c == "-":
                encoded.append(q - 1)
            elif c == "\\" and word == "Users":
                plain += (q - 3, q - 4)
            elif c in "Ff" and text[q - 3 : q - 1] == "%2":
                pct.append(q - 3)
            elif c in "Cc" and text[q - 3 : q - 1] == "%5" and word == "Users":
                pct_win.append(q - 7)
            q = text.find(word, q + 1)
    out = _finditer_at(_HOME, text, plain)
    if encoded:
        out += _finditer_at(_ENCODED_HOME, text, encoded)
    if pct:
        out += _finditer_at(_PCT_HOME, text, pct)
    if pct_win:
        out += _finditer_at(_PCT_WIN_HOME, text, pct_win)
    return out


class HomePaths(Detector):
    """Usernames inside home-folder paths (``/home/NAME``, ``/Users/NAME``, ``C:\\Users\\NAME``,
    ``-home-NAME-src``): other people's usernames are personal data too."""

    name = "home-path"
    high_confidence = False
    context_free = True
    trigger = Trigger(literals=("home", "users"), lines=True)  # a path never spans lines

    # Sees the literal text (``C:\\Users\\nick`` must not lose its "n" to an escape) and the view.
    sees_raw = True

    TYPE, CONFIDENCE = "pii.username", 0.9

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return [Span(a, b, self.TYPE, self.name, self.CONFIDENCE) for a, b in self._found(text)]

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        """``scan`` on each window, its spans shifted (made once, not made and copied)."""
        return [
            Span(a + w0, b + w0, self.TYPE, self.name, self.CONFIDENCE)
            for w0, w1 in windows
            for a, b in self._found(text[w0:w1])
        ]

    @staticmethod
    def _found(text: str) -> dict[tuple[int, int], None]:
        if "home" not in text and "Users" not in text:
            return {}
        view = escaped_view(text)
        found: dict[tuple[int, int], None] = {}
        names = _NAMES
        for t in (text, view) if view is not text else (text,):
            for m in _home_matches(t):
                raw = m.group(1)
                size = names.get(raw)
                if size is None:
                    size = _name_size(raw)
                    if len(names) >= 10_000:
                        names.clear()
                    names[raw] = size
                if size:
                    start = m.start(1)
                    found[(start, start + size)] = None
        return found


# A home folder's name as matched -> the length of the username in it, 0 for none (the same few
# names recur in every path of a session)
_NAMES: dict[str, int] = {}


def _name_size(raw: str) -> int:
    name = raw.rstrip(".")
    if name.lower() in _GENERIC_USERS or name.startswith(".") or name.isdigit() or _NOT_A_NAME.search(name):
        return 0
    return len(name)
