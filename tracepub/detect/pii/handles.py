"""Messaging handles, only next to their app's name ("Telegram @x", ``slack: "@x"``).

A bare ``@name`` is as often a decorator or an npm scope: the app's name is the context.
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

# -- shapes Presidio does not cover ------------------------------------------------------------------
_APPS = r"(?:telegram|tg|discord|slack|twitter|mastodon|signal|matrix|keybase|instagram|threads|bluesky|wechat|skype|irc)"


_HANDLE_AT = re.compile(rf"(?i)\b{_APPS}\b[^\n@]{{0,40}}?(?<![\w.])@([A-Za-z0-9_][A-Za-z0-9_.-]{{1,38}}[A-Za-z0-9_])")


_HANDLE_KEY = re.compile(rf"(?im)^[ \t-]*[\"']?{_APPS}(?:_handle|_user(?:name)?|_id)?[\"']?[ \t]*[:=][ \t]*[\"']?@?"
                         r"([A-Za-z0-9_][A-Za-z0-9_.-]{1,38}[A-Za-z0-9_])")


# Gateway metadata: a messaging account id under a generic key needs its app prefix
# (Hermes ``user_id: "tg:123456789"``); under an app-specific key any value is one.
_ACCOUNT_KEYS = {"user_id", "sender_id", "from_id", "author_id", "chat_user", "from_user"}


_ACCOUNT_ID = re.compile(r"^(?:tg|telegram|discord|slack|wa|whatsapp|signal|matrix):@?[\w.-]{3,64}$", re.IGNORECASE)


_APP_KEYS = {"telegram_id", "discord_id", "slack_id", "telegram", "discord", "handle", "telegram_handle",
             "discord_handle", "slack_handle"}


_DISCORD = re.compile(r"(?i)\bdiscord\b[^\n]{0,40}?\b([a-z0-9_.]{2,32})#\d{4}\b")


_APP_WORDS = ("telegram", "discord", "slack", "twitter", "mastodon", "signal", "matrix", "keybase", "instagram",
              "threads", "bluesky", "wechat", "skype")


class Handles(Detector):
    """Messaging handles, only where the app is named next to them. The engine runs it as two
    parts: the gateway keys (any text under them) and the app names (on their lines: every
    pattern above stays on a line)."""

    name = "handles"
    trigger = None  # never asked: the engine registers the parts

    def parts(self) -> list[Detector]:
        return [_HandleKeys(), _HandleText()]

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return _HandleKeys().scan(text, leaf) or _HandleText().scan(text, leaf)


class _HandleKeys(Detector):
    name = "handles"
    trigger = Trigger(keys=(*_ACCOUNT_KEYS, *_APP_KEYS))

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        key = (leaf.key or "").lower()
        if (key in _ACCOUNT_KEYS and _ACCOUNT_ID.match(text)) or (key in _APP_KEYS and re.fullmatch(r"@?[\w.-]{3,64}", text)):
            # Gateway metadata (Hermes ``user_id: "tg:123456789"``, ``origin.username``): a
            # messaging account, whatever its shape.
            return [Span(0, len(text), "pii.handle", "handles:key", 0.85)]
        return []


class _HandleText(Detector):
    name = "handles"
    context_free = True
    # The app names; "tg" and "irc" as whole words (they are pieces of many others).
    trigger = Trigger(literals=_APP_WORDS, folded=(r"tg(?<!\wtg)(?!\w)", r"irc(?<!\wirc)(?!\w)"), lines=True)

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        text = escaped_view(text)
        low = text.lower()
        if not any(a in low for a in (*_APP_WORDS, "tg", "irc")):
            return []
        spans = []
        for rx in (_HANDLE_AT, _HANDLE_KEY, _DISCORD):
            for m in rx.finditer(text):
                spans.append(Span(m.start(1), m.end(1), "pii.handle", "handles", 0.8))
        return spans
