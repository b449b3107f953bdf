"""Person names from structure: where text says "this is a person", anywhere in a trace.

NER is unreliable on code and tool output, yet that is where most names are: ``git log``
authors, commit trailers (``Co-authored-by:``, ``Signed-off-by:``), ``Name <email>``,
``package.json`` authors and contributors, ``pyproject.toml`` authors, git config ``name =``,
copyright lines and LICENSE files, ``git shortlog``, and ``name:`` keys in YAML/JSON. Each form
has a fixed shape, so a regex finds the candidate and a small check (capitalised words, no
digits, not an organisation or a bot) decides. Trailers and ``Author:`` lines trust the
structure more (a lower-case handle there is still a person).
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.identity import escaped_view
from tracepub.model import REDACTED, REVIEW, Leaf, Span

# Lower-case words allowed inside a name ("Ludwig van Beethoven", "Maria de la Cruz").
_PARTICLES = {"van", "von", "de", "da", "del", "der", "den", "di", "la", "le", "bin", "binti", "al", "el", "y",
              "dos", "das", "du", "ter", "ten", "zu", "af", "av", "ibn", "mac", "st."}
# Capitalised words that make a candidate something other than a person.
_NOT_NAMES = {
    "the", "this", "that", "and", "or", "for", "with", "build", "test", "tests", "fix", "add", "update", "merge",
    "release", "deploy", "production", "staging", "server", "client", "api", "error", "warning", "info", "debug",
    "inc", "inc.", "llc", "ltd", "ltd.", "gmbh", "ag", "corp", "corp.", "corporation", "company", "co.", "foundation",
    "authors", "contributors", "team", "project", "bot", "github", "gitlab", "google", "microsoft", "apple", "amazon",
    "meta", "openai", "anthropic", "license", "licensed", "copyright", "all", "rights", "reserved", "mit", "apache",
    "version", "unknown", "none", "null", "true", "false", "main", "master", "default", "admin", "root", "user",
    "example", "sample", "demo", "dependabot", "renovate", "actions", "action", "workflow", "job", "step", "run",
    "install", "setup", "check", "lint", "format", "docker", "node", "python", "go", "rust", "java", "ubuntu",
    "linux", "windows", "macos", "service", "services", "system", "systems", "group", "labs", "lab", "software",
    "technologies", "university", "institute", "community", "developers", "maintainers", "org", "organization",
    "your", "name", "my", "our", "new", "old", "first", "last", "full", "display", "app", "web", "cli", "core",
    "claude", "codex", "gemini", "assistant", "agent", "model", "tool", "tools", "code", "data", "database",
    "contact", "support", "sales", "help", "office", "billing", "security", "privacy", "abuse", "hello", "noreply",
    "cloud", "stack", "overflow", "hugging", "face", "studio", "visual", "compose", "issues", "request", "pull",
    "national", "insurance", "social", "number", "grafana", "loki", "kafka", "redis", "terraform",
    "azure", "devops", "kubernetes", "tailwind", "material", "native", "encrypt", "homebrew", "sentry", "vitest",
    "jest", "postgres", "react", "vue", "angular", "svelte", "django", "flask", "rails", "laravel", "spring", "platform", "engine", "storage", "functions", "lambda", "bucket", "cluster", "console", "dashboard",
}
# After a one-word name, words that make it a person ("Raman said", "Priya's").
SPEECH = {"said", "says", "wrote", "writes", "mentioned", "suggested", "reported", "asked", "thinks", "thought",
          "agreed", "approved", "reviewed", "merged", "'s", "’s"}
# Before a one-word name, words that make it a person ("thanks Priya", "ask Raman").
CUES = {"thanks", "thank", "hi", "hey", "hello", "dear", "ask", "asked", "ping", "pinged", "cc", "dm", "tell", "told",
        "call", "called", "email", "emailed", "cheers", "congrats", "welcome"}
# Words in front of a name that NER tends to swallow ("Thanks Malik Quispe").
GREETINGS = {"thanks", "thank", "hi", "hey", "hello", "dear", "ask", "ping", "cc", "dm", "email", "call", "tell",
             "and", "with", "from", "by", "to", "for", "per", "via", "cheers", "regards", "congrats", "welcome"}
_TOKEN = r"[^\W\d_][\w'’.-]*"
# Line starts, allowing the line numbers that file-reading tools put in front (``   12→``, ``12\t``).
_BOL = r"^(?:[ \t]*\d+(?:→|\t))?"
_CANDIDATE = rf"{_TOKEN}(?:[ \t]+{_TOKEN}){{0,4}}"

# git log / trailers: ``Author: Name <email>``, ``Co-authored-by: Name <email>``.
_TRAILER = re.compile(
    rf"(?im){_BOL}[ \t>]*(?:author|commit|committer|co-authored-by|signed-off-by|reviewed-by|acked-by|tested-by|"
    r"reported-by|suggested-by|helped-by|reviewed-on-behalf-of|cc)[ \t]*:[ \t]*([^<>\n:]{1,80}?)[ \t]*(?:<[^<>\n]*>|$)"
)
# ``Name <email>`` anywhere (git log --format, AUTHORS, MAINTAINERS, mailmap, package.json author).
_NAME_EMAIL = re.compile(rf"({_CANDIDATE})[ \t]*<[^<>@\s]+@[^<>\s]+>")
# Copyright lines and LICENSE headers.
_COPYRIGHT = re.compile(
    r"(?i)(?:copyright|\(c\)|©)[ \t]*(?:\(c\)|©)?[ \t]*(?:\d{4}(?:[ \t]*[-–,][ \t]*\d{4})*,?[ \t]+)(?:by[ \t]+)?"
    rf"({_CANDIDATE})"
)
# ``name = "X"`` / ``name: X`` / ``"author": "X"`` in config files (git config, YAML, TOML, JSON).
_KEYED = re.compile(
    rf"""(?im)(?:{_BOL}[ \t-]*|["'{{,][ \t]*)["']?[ \t]*(name|author|full_?name|display_?name|owner|maintainer|contact(?:_name)?|"""
    r"""customer(?:_name)?|user_?name|real_?name|author_?name|sender(?:_name)?|recipient(?:_name)?|committer|"""
    r"""reviewer|assignee)["']?[ \t]*[:=][ \t]*["']([^"'\n<>]{3,80}?)[ \t]*"""
    r"""(?:<[^"'\n]*>)?[ \t]*(?:\([^"'\n]*\))?["']"""
    rf"""|{_BOL}[ \t-]*(name|author|full_?name|owner|maintainer|contact)[ \t]*[:=][ \t]*([^"\n#<>]{{3,80}}?)[ \t]*$"""
)
# ``"contributors": ["Name <email>", ...]`` and ``authors = ["Name <email>"]``.
_LIST = re.compile(r"""(?is)["']?(?:contributors|maintainers|authors)["']?[ \t]*[:=][ \t]*\[([^\]]{1,4000})\]""")
_LIST_ITEM = re.compile(r"""["']([^"'<>\n]{3,80}?)[ \t]*(?:<[^"'\n]*>)?[ \t]*(?:\([^"'\n]*\))?["']""")
# ``git blame``: ``^1f2e3d4 (Jane Doe 2025-11-12 10:00:00 +0100 40) code`` (a path may sit before the paren).
_BLAME = re.compile(r"(?<![\w^])\^?[0-9a-f]{7,40}[ \t]+(?:\S+[ \t]+)?\(([^()\n]{2,80}?)[ \t]+\d{4}-\d{2}-\d{2}[ T]\d")
# ``git shortlog -sn``: a count, a tab, a name.
_SHORTLOG = re.compile(r"(?m)^[ \t]*\d+\t([^\t\n]{3,80})$")
# A name written next to an email in tables and CSV: ``| Jane Doe | jane@x.com |``, ``Jane Doe, jane@x.com``.
_NEAR_EMAIL = re.compile(rf"({_TOKEN}(?:[ \t]+{_TOKEN}){{1,3}})[ \t]*[|,;(\t\"'][ \t|\"']*[\w.+-]+@[\w-]+\.[\w.-]+")

# In prose, words that introduce a person ("thanks Jane Doe", "ask Li Wei to", "customer Ana Sousa").
_CUE = re.compile(
    r"(?i:\b(?:thanks|thank\s+you|hi|hey|hello|dear|ask|asked|ping|pinged|cc|add|added|invite|invited|tell|told|"
    r"email|emailed|call|called|contact|message|from|by|with|customer|client|colleague|manager|engineer|user|"
    r"owner|reviewer|author|maintainer|assignee|for|to|and|per)\b[ \t,:]+)"
    rf"({_TOKEN}[ \t]+{_TOKEN}(?:[ \t]+{_TOKEN})?)"
)
_KEYWORDS = ("@", "(", "author", "by:", "commit", "copyright", "(c)", "©", "name", "<", "contributors", "maintainer",
             "owner", "contact", "customer", "reviewer", "assignee", "\t")
_NAME_KEYS = {"name", "author", "full_name", "fullname", "display_name", "displayname", "contact_name", "real_name",
              "realname", "author_name", "authorname", "sender_name", "recipient_name", "user_name",
              "customer_name", "contributors", "maintainers", "authors", "owner", "committer", "reviewer", "assignee"}


def looks_like_name(text: str, min_tokens: int = 2, strict: bool = True) -> bool:
    """A person's name: 1-5 words, capitalised (particles aside), no digits, not an org or a bot."""
    text = text.strip()
    if not text or len(text) > 80 or "[bot]" in text.lower() or any(c.isdigit() for c in text):
        return False
    if any(c in text for c in "/\\:=@{}()[]_|$%&*+#;!?\"`"):
        return False
    tokens = text.split()
    if not (min_tokens <= len(tokens) <= 5):
        return False
    lower = [t.lower().strip(".,") for t in tokens]
    if any(t in _NOT_NAMES for t in lower):
        return False
    if not strict:
        return True
    capitalised = 0
    for tok, low in zip(tokens, lower, strict=True):
        if low in _PARTICLES and capitalised:
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
        if tok[0].isupper() and not any(c.isdigit() for c in tok) or (keep and tok.lower() in _PARTICLES):
            keep.insert(0, m)
        else:
            break
    while keep and keep[0].group(0).lower() in _PARTICLES:
        keep.pop(0)
    if not keep:
        return None
    return start + keep[0].start(), start + keep[-1].end()


_CUE_WORDS = ("thanks", "thank", "hi", "hey", "hello", "dear", "ask", "ping", "cc", "add", "invite", "tell", "told",
              "email", "call", "contact", "message", "from", "by", "with", "customer", "client", "colleague",
              "manager", "engineer", "user", "owner", "reviewer", "author", "maintainer", "assignee", "for", "to",
              "and", "per")


class StructuredNames(Detector):
    """Names from the structures above; everything it finds is redacted."""

    name = "names"
    high_confidence = False
    # Its keywords, the prose cue words (``_CUE``), and its name keys (keys decide alone).
    trigger = Trigger(literals=(*_KEYWORDS, *_CUE_WORDS), keys=tuple(_NAME_KEYS))

    @staticmethod
    def _prose(text: str) -> list[Span]:
        return _prose_names(text)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        spans: list[Span] = []
        text = escaped_view(text)  # same offsets; JSON written inside a string has its lines back
        if leaf.prose:
            spans += self._prose(text)
        key = (leaf.key or "").lower()
        if key in _NAME_KEYS and len(text) <= 120:
            value = re.sub(r"\s*<[^<>]*>\s*|\s*\([^()]*\)\s*$", "", text).strip()
            if value and looks_like_name(value, 2):
                i = text.find(value)
                spans.append(Span(i, i + len(value), "pii.person", "names:key", 0.85))
        low = text.lower()
        if not any(k in low for k in _KEYWORDS):
            return spans
        if ":" in text:
            for m in _TRAILER.finditer(text):
                value = m.group(1).strip()
                if value and looks_like_name(value, 1, strict=False):
                    s = m.start(1) + m.group(1).find(value)
                    spans.append(Span(s, s + len(value), "pii.person", "names:trailer", 0.9))
        if "<" in text and "@" in text:
            for m in _NAME_EMAIL.finditer(text):
                cut = _trim(m.group(1), m.start(1))
                if cut and looks_like_name(text[cut[0]:cut[1]], 1):
                    spans.append(Span(cut[0], cut[1], "pii.person", "names:name-email", 0.9))
        if "@" in text:
            for m in _NEAR_EMAIL.finditer(text):
                cut = _trim(m.group(1), m.start(1))
                if cut and looks_like_name(text[cut[0]:cut[1]], 2):
                    spans.append(Span(cut[0], cut[1], "pii.person", "names:near-email", 0.8))
        if "copyright" in low or "(c)" in low or "©" in text:
            for m in _COPYRIGHT.finditer(text):
                cut = _trim_leading(m.group(1), m.start(1))
                if cut and looks_like_name(text[cut[0]:cut[1]], 2):
                    spans.append(Span(cut[0], cut[1], "pii.person", "names:copyright", 0.85))
        if "=" in text or ":" in text:
            for m in _KEYED.finditer(text):
                g = 2 if m.group(2) is not None else 4
                value = m.group(g).strip()
                if value and looks_like_name(value, 2):
                    s = m.start(g) + m.group(g).find(value)
                    spans.append(Span(s, s + len(value), "pii.person", "names:key", 0.8))
        if "[" in text:
            for lm in _LIST.finditer(text):
                for im in _LIST_ITEM.finditer(lm.group(1)):
                    value = im.group(1).strip()
                    if looks_like_name(value, 2):
                        s = lm.start(1) + im.start(1) + im.group(1).find(value)
                        spans.append(Span(s, s + len(value), "pii.person", "names:list", 0.85))
        if "(" in text:
            for m in _BLAME.finditer(text):
                value = m.group(1).strip()
                if looks_like_name(value, 1, strict=False):
                    s = m.start(1) + m.group(1).find(value)
                    spans.append(Span(s, s + len(value), "pii.person", "names:blame", 0.9))
        if "\t" in text:
            for m in _SHORTLOG.finditer(text):
                value = m.group(1).strip()
                if looks_like_name(value, 2):
                    s = m.start(1) + m.group(1).find(value)
                    spans.append(Span(s, s + len(value), "pii.person", "names:shortlog", 0.8))
        return spans


def _prose_names(text: str) -> list[Span]:
    out = []
    for m in _CUE.finditer(text):
        cut = _trim_leading(m.group(1), m.start(1))
        if cut and looks_like_name(text[cut[0]:cut[1]], 2):
            out.append(Span(cut[0], cut[1], "pii.person", "names:prose-cue", 0.85))
    return out


def _trim_leading(text: str, start: int) -> tuple[int, int] | None:
    """Copyright holders: the leading run of name-like words (``Jane Doe. All rights reserved``)."""
    tokens = list(re.finditer(r"[^\s,.]+\.?", text))
    keep: list[re.Match] = []
    for m in tokens:
        tok = m.group(0)
        if tok[0].isupper() and not any(c.isdigit() for c in tok) and tok.lower().strip(".") not in _NOT_NAMES:
            keep.append(m)
        elif keep and tok.lower() in _PARTICLES:
            keep.append(m)
        else:
            break
    while keep and keep[-1].group(0).lower() in _PARTICLES:
        keep.pop()
    if not keep:
        return None
    end = keep[-1].end()
    if text[end - 1:end] == ".":
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
