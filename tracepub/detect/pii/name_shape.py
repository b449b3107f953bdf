"""What a person's name looks like, shared by every detector that finds people.

The word lists (particles, cue words, greetings, placeholders), the shape check
``looks_like_name``, the trims that cut a candidate to its name-like words and the NER scores:
``people.py`` (names from structure), ``prose_names.py`` (NER and one-word names), ``presidio.py``
and ``addresses.py`` all decide with the same rules, so one list of exceptions serves them all.
"""

from __future__ import annotations

import functools
import re

from tracepub.model import REDACTED, REVIEW

# Lower-case words allowed inside a name ("Ludwig van Beethoven", "Maria de la Cruz").
PARTICLES = {
    "van",
    "von",
    "de",
    "da",
    "del",
    "der",
    "den",
    "di",
    "la",
    "le",
    "bin",
    "binti",
    "al",
    "el",
    "y",
    "dos",
    "das",
    "du",
    "ter",
    "ten",
    "zu",
    "af",
    "av",
    "ibn",
    "mac",
    "st.",
}
# Capitalised words that make a candidate something other than a person.
_NOT_NAMES = {
    "the",
    "this",
    "that",
    "and",
    "or",
    "for",
    "with",
    "build",
    "test",
    "tests",
    "fix",
    "add",
    "update",
    "merge",
    "release",
    "deploy",
    "production",
    "staging",
    "server",
    "client",
    "api",
    "error",
    "warning",
    "info",
    "debug",
    "inc",
    "inc.",
    "llc",
    "ltd",
    "ltd.",
    "gmbh",
    "ag",
    "corp",
    "corp.",
    "corporation",
    "company",
    "co.",
    "foundation",
    "authors",
    "contributors",
    "team",
    "project",
    "bot",
    "github",
    "gitlab",
    "google",
    "microsoft",
    "apple",
    "amazon",
    "meta",
    "openai",
    "anthropic",
    "license",
    "licensed",
    "copyright",
    "all",
    "rights",
    "reserved",
    "mit",
    "apache",
    "version",
    "unknown",
    "none",
    "null",
    "true",
    "false",
    "main",
    "master",
    "default",
    "admin",
    "root",
    "user",
    "example",
    "sample",
    "demo",
    "dependabot",
    "renovate",
    "actions",
    "action",
    "workflow",
    "job",
    "step",
    "run",
    "install",
    "setup",
    "check",
    "lint",
    "format",
    "docker",
    "node",
    "python",
    "go",
    "rust",
    "java",
    "ubuntu",
    "linux",
    "windows",
    "macos",
    "service",
    "services",
    "system",
    "systems",
    "group",
    "labs",
    "lab",
    "software",
    "technologies",
    "university",
    "institute",
    "community",
    "developers",
    "maintainers",
    "org",
    "organization",
    "your",
    "name",
    "my",
    "our",
    "new",
    "old",
    "first",
    "last",
    "full",
    "display",
    "app",
    "web",
    "cli",
    "core",
    "claude",
    "codex",
    "gemini",
    "assistant",
    "agent",
    "model",
    "tool",
    "tools",
    "code",
    "data",
    "database",
    "contact",
    "support",
    "sales",
    "help",
    "office",
    "billing",
    "security",
    "privacy",
    "abuse",
    "hello",
    "noreply",
    "cloud",
    "stack",
    "overflow",
    "hugging",
    "face",
    "studio",
    "visual",
    "compose",
    "issues",
    "request",
    "pull",
    "national",
    "insurance",
    "social",
    "number",
    "grafana",
    "loki",
    "kafka",
    "redis",
    "terraform",
    "azure",
    "devops",
    "kubernetes",
    "tailwind",
    "material",
    "native",
    "encrypt",
    "homebrew",
    "sentry",
    "vitest",
    "jest",
    "postgres",
    "react",
    "vue",
    "angular",
    "svelte",
    "django",
    "flask",
    "rails",
    "laravel",
    "spring",
    "platform",
    "engine",
    "storage",
    "functions",
    "lambda",
    "bucket",
    "cluster",
    "console",
    "dashboard",
}
# The words of a street address ("51 Franklin Street, Fifth Floor" in every GPL header): a place.
_NOT_NAMES |= {"street", "st.", "avenue", "ave.", "road", "floor", "suite", "boulevard", "blvd.", "parkway"}
# First words of places' names (San Jose, Fort Worth, Rio Grande): a place, not a person.
_PLACE_OPENERS = frozenset(("san", "santa", "los", "las", "fort", "port", "mount", "saint", "sankt", "rio"))
# After a one-word name, words that make it a person ("Raman said", "Priya's").
SPEECH = {
    "said",
    "says",
    "wrote",
    "writes",
    "mentioned",
    "suggested",
    "reported",
    "asked",
    "thinks",
    "thought",
    "agreed",
    "approved",
    "reviewed",
    "merged",
    "'s",
    "’s",
}
# Before a one-word name, words that make it a person ("thanks Priya", "ask Raman").
CUES = {
    "thanks",
    "thank",
    "hi",
    "hey",
    "hello",
    "dear",
    "ask",
    "asked",
    "ping",
    "pinged",
    "cc",
    "dm",
    "tell",
    "told",
    "call",
    "called",
    "email",
    "emailed",
    "cheers",
    "congrats",
    "welcome",
}
# Words in front of a name that NER tends to swallow ("Thanks Malik Quispe").
GREETINGS = {
    "thanks",
    "thank",
    "hi",
    "hey",
    "hello",
    "dear",
    "ask",
    "ping",
    "cc",
    "dm",
    "email",
    "call",
    "tell",
    "and",
    "with",
    "from",
    "by",
    "to",
    "for",
    "per",
    "via",
    "cheers",
    "regards",
    "congrats",
    "welcome",
}


# Copyright lines and license headers: the holder of a published work's rights, not a person to
# redact (``on_copyright_line``); nothing on such a line is taken for a person or an address.
COPYRIGHT_LINE = re.compile(r"(?i)copyright|\(c\)|©|&copy;|&#169;|&#xa9;")


_EMAIL_IN = re.compile(r"[\w.+%-]+@[\w-]+(?:\.[\w-]+)+")


def placeholder_email_in(match_text: str) -> bool:
    """The match's email is no one's (``checks.not_personal_email``: ``you@example.com``): the
    name beside it is a placeholder too ("John Smith <john@example.com>" in a docstring)."""
    from tracepub.detect.pii.checks import not_personal_email

    m = _EMAIL_IN.search(match_text)
    return m is not None and not_personal_email(match_text, m.start(), m.end())


# Credit lines without the marker: a DEP-5 ``copyright`` file's continuation lines (indented, the
# years first: ``           2015-2020, Ebrahim Byagowi``) and a ``.po`` file's translator credits
# (``# Klaus Dahlén <k@x.org>, 2012, 2014.``), a Debian changelog's co-maintainer heading
# (``  [ Colin Watson ]``), DEP-5's ``Upstream-Contact:``. A file-reading tool may put a line
# number first.
_NUMBERED = r"(?:[ \t]*\d+(?:→|\t))?"
_YEARS = r"\d{4}(?:[ \t]*[-–,][ \t]*\d{4})*"
_HOLDER_LINE = re.compile(
    rf"{_NUMBERED}(?:[ \t]+{_YEARS},?[ \t]+[^\W\d]"
    rf"|#[ \t]+[^\W\d][^\n,#<>]{{1,80}}?(?:[ \t]*<[^<>\n]*>)?,[ \t]*{_YEARS}\.?[ \t]*(?:\n|$)"
    r"|[ \t]+\[ [^\W\d][^\[\]\n]{1,80} \][ \t]*(?:\n|$)"
    r"|Upstream[- ](?:Authors?|Contact)[ \t]*:)"
)


# License texts name their holder in their clauses (X11/HPND/ISC): "the name of Jane Roe not be
# used in advertising", "Jane Roe makes no representations", "IN NO EVENT SHALL JANE ROE BE LIABLE".
_W = r"[ \t]*\n?[ \t]*"
_CLAUSE_BEFORE = re.compile(rf"(?i)(?:\bthe{_W}names?{_W}of|\bevent{_W}shall){_W}$")
_CLAUSE_AFTER = re.compile(
    rf"(?i)[^\n]{{1,80}}?[ \t\n]+(?:makes{_W}no{_W}representations|disclaims{_W}all|be{_W}liable{_W}for"
    rf"|not{_W}be{_W}used{_W}in{_W}advertising)"
)


def on_copyright_line(text: str, start: int) -> bool:
    """A copyright marker before ``start`` on its line (at most 200 characters back), a line of
    the holders' or translators' credits that has none (``_HOLDER_LINE``), or a license clause
    naming its holder (``_CLAUSE_BEFORE``/``_CLAUSE_AFTER``)."""
    nl = text.rfind("\n", max(0, start - 200), start)
    bol = nl + 1 if nl >= 0 else max(0, start - 200)
    return (
        COPYRIGHT_LINE.search(text, bol, start) is not None
        or _HOLDER_LINE.match(text, bol) is not None
        or _CLAUSE_BEFORE.search(text, max(0, start - 30), start) is not None
        or _CLAUSE_AFTER.match(text, start, start + 120) is not None
    )


# The names docs and tests write for "a person" ("Author: Foo Bar", "John Doe"): no one.
PLACEHOLDER_NAMES = frozenset({
    "john doe", "jane doe", "joe bloggs", "fred bloggs", "max mustermann", "erika mustermann", "john q. public",
    "john q public", "your name", "first last", "firstname lastname", "first name", "last name", "test user",
    "mario rossi", "jean dupont", "juan perez", "taro yamada", "ivan ivanov", "a. n. other", "some one",
})  # fmt: skip
_PLACEHOLDER_WORDS = frozenset({"foo", "bar", "baz", "qux", "quux", "foobar", "lorem", "ipsum", "dolor"})


def looks_like_name(text: str, min_tokens: int = 2, strict: bool = True) -> bool:
    """A person's name: 1-5 words, capitalised (particles aside), no digits, not an org or a bot,
    not a placeholder ("Foo Bar", "John Doe")."""
    text = text.strip()
    if not text or len(text) > 80 or "[bot]" in text.lower() or any(c.isdigit() for c in text):
        return False
    low = text.lower()
    if low in PLACEHOLDER_NAMES or any(w in _PLACEHOLDER_WORDS for w in low.split()):
        return False
    if any(c in text for c in '/\\:=@{}()[]_|$%&*+#;!?"`'):
        return False
    tokens = text.split()
    if not (min_tokens <= len(tokens) <= 5):
        return False
    lower = [t.lower().strip(".,") for t in tokens]
    if any(t in _NOT_NAMES for t in lower) or len(lower) > 1 and lower[0] in _PLACE_OPENERS:
        return False
    if not strict:
        return True
    capitalised = 0
    for tok, low in zip(tokens, lower, strict=True):
        if low in PARTICLES and capitalised:
            continue
        if not tok[0].isupper():
            return False
        if len(tok.rstrip(".")) > 1 and tok.isupper():
            return False  # an acronym ("CSS", "UI"), not part of a name
        capitalised += 1
    # "API KEY" is not a name; a name has lower-case letters somewhere.
    return capitalised >= min_tokens and any(c.islower() for c in text)


def _trim(text: str, start: int) -> tuple[int, int] | None:
    """The trailing run of name-like words in a candidate (drops ``a1b2c3d`` in ``a1b2c3d Jane Doe``)."""
    tokens = list(re.finditer(r"\S+", text))
    keep: list[re.Match] = []
    for m in reversed(tokens):
        tok = m.group(0)
        if tok[0].isupper() and not any(c.isdigit() for c in tok) or (keep and tok.lower() in PARTICLES):
            keep.insert(0, m)
        else:
            break
    while keep and keep[0].group(0).lower() in PARTICLES:
        keep.pop(0)
    if not keep:
        return None
    return start + keep[0].start(), start + keep[-1].end()


# -- the engine's view: one part per structure, each with the trigger it needs ------------------
# ARCHITECTURE.md, "Speed". Each part's trigger is a necessary condition for its own regex, so a
# string (or a raw JSONL line) that holds none of them is not looked at, and all but the JSON
# list form stay on the lines that hold their cue (``Trigger.lines``: every regex above except
# ``_LIST`` stays within a line). ``StructuredNames.scan`` is still all of them on a whole string.


def _first_letter_form(alts: str) -> str:
    r"""``(?i:\b(?:alts))`` written so that ``re`` can skip to candidates: the cue's first letter
    as a class of the characters it matches ignoring case (``patterns._case_class``), the word
    boundary before it as ``(?<!\w.)`` (the letter is a word character), then the rest of the
    cues that start with that letter. The same matches (tests/test_speed_prefilter.py); twice
    as fast on prose, where a case-insensitive alternation behind ``\b`` is tried at every
    position."""
    from tracepub.detect.secrets.rules import _case_class

    by_first: dict[str, list[str]] = {}
    for alt in alts.split("|"):
        by_first.setdefault(alt[0].lower(), []).append(alt[1:])
    classes = {c: _case_class(c, 0) for c in by_first}
    firsts = "".join(dict.fromkeys("".join(cls[1:-1] for cls in classes.values())))
    branches = "|".join(f"(?<={classes[c]})(?i:{'|'.join(rest)})" for c, rest in by_first.items())
    return rf"[{firsts}](?<!\w.)(?:{branches})"


_COMMON_ZIPF = 4.4  # wordfreq's scale: "devices" 4.6, "dinner" 4.8; "whitfield" 2.5, "diego" 4.4


@functools.lru_cache(maxsize=65536)
def _common_word(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= _COMMON_ZIPF


def all_common_words(value: str) -> bool:
    """Every word of ``value`` is a common English word: a phrase ("Top Devices", "Chinese Dinner")."""
    words = value.lower().split()
    return bool(words) and all(_common_word(w) for w in words)


def _trim_leading(text: str, start: int) -> tuple[int, int] | None:
    """Copyright holders: the leading run of name-like words (``Jane Doe. All rights reserved``)."""
    tokens = list(re.finditer(r"[^\s,.]+\.?", text))
    keep: list[re.Match] = []
    for m in tokens:
        tok = m.group(0)
        if (
            tok[0].isupper()
            and not any(c.isdigit() for c in tok)
            and tok.lower().strip(".") not in _NOT_NAMES
        ):
            keep.append(m)
        elif keep and tok.lower() in PARTICLES:
            keep.append(m)
        else:
            break
    while keep and keep[-1].group(0).lower() in PARTICLES:
        keep.pop()
    if not keep:
        return None
    end = keep[-1].end()
    if text[end - 1 : end] == ".":
        end -= 1
    return start + keep[0].start(), start + end


# Person entities from NER on prose: a score from the shape of the entity, flagged below the threshold.
def ner_score(ent_text: str) -> float:
    tokens = ent_text.split()
    if len(tokens) >= 2 and looks_like_name(ent_text, 2):
        return 0.9
    if len(tokens) == 1 and looks_like_name(ent_text, 1):
        return 0.6
    return 0.0


def ner_action(score: float, threshold: float) -> str:
    return REDACTED if score >= threshold else REVIEW
