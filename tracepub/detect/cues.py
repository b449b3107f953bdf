"""A first name alone, the user's own: where it is the user's name because of the words around it.

A first name is often a word (``Grant``, ``Will``, ``Rose``) or a common name: alone, it is the
user's only where it addresses or signs: after a greeting ("Thanks, Maren", "Hi Maren"), in a
reply that addresses the user ("Sure, Maren!", "Good catch Maren —": the name then ends the clause),
before "here" ("Maren here."), or alone after a dash or a sign-off line ("— Maren",
"Thanks,\\nMaren"). ``found.scan_forms`` sends a file to the second pass by the same words
(``GREETINGS``, ``REPLIES``).
"""

from __future__ import annotations

import re

GREETINGS = ("thanks", "thank you", "thx", "cheers", "hi", "hey", "hello", "dear", "cc", "ping")
# Words of a reply before the name it addresses; the name must then end the clause ("Sure, Will!",
# not "Sure Will it work").
REPLIES = (
    "sure", "ok", "okay", "yes", "great", "nice", "sorry", "absolutely", "of course", "no problem",
    "got it", "good catch", "good question", "great question", "good point", "great point",
)  # fmt: skip
_GREETING = re.compile(rf"(?i)(?<![\w])(?:{'|'.join(GREETINGS)})[,!:]?[ \t]+$")
_REPLY = re.compile(rf"(?i)(?<![\w])(?:{'|'.join(REPLIES)})[,!]?[ \t]+$")
_CLAUSE_END = re.compile(r"[!,.?;:]|[ \t]+(?:—|–|--?)(?:[ \t]|$)|[ \t]*$")
_SIGN_OFF = re.compile(
    r"(?i)(?:(?:^|\n)[ \t]*(?:—|–|--)[ \t]*|(?:^|\n)[ \t]*(?:thanks|thank you|cheers|best|regards|best regards|"
    r"kind regards|all the best|yours)[ \t]*[,!.]?[ \t]*\n[ \t]*)$"
)
_LINE_END = re.compile(r"[ \t]*[,.!]?[ \t]*(?:\n|$)")
_HERE = re.compile(r"(?:'s)?[ \t]+here\b")
_NEXT_NAME = re.compile(r"[ \t]+(?:[A-Z]\.[ \t]+)?[A-Z][a-z]")


def cued(view: str, s: int, e: int) -> bool:
    """Whether the first name at ``view[s:e]`` is capitalised, whole, and next to a greeting, a
    reply or a sign-off: "Thanks, Maren", "Hi Maren", "Sure, Maren!", "Maren here.", "— Maren",
    "Thanks,\\nMaren"."""
    n = len(view)
    if (
        not view[s].isupper()
        or view[s:e].isupper()
        or (s and view[s - 1].isalnum())
        or (e < n and (view[e].isalnum() or view[e] == "_"))
    ):
        return False  # written as a name ("Maren"; not "MAREN" in "HELLO MAREN", nor inside a word)
    if _NEXT_NAME.match(view, e):
        return False  # "Thanks, Julien Schueller": another Julien
    head = view[max(0, s - 40) : s]
    if _GREETING.search(head) or _HERE.match(view, e):
        return True
    if _REPLY.search(head) and _CLAUSE_END.match(view, e):
        return True
    return bool(_SIGN_OFF.search(head)) and bool(_LINE_END.match(view, e))
