"""Messaging handles, only next to their app's name ("Telegram @x", ``slack: "@x"``).

A bare ``@name`` is as often a decorator or an npm scope: the app's name is the context.
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.pii.checks import index_metadata
from tracepub.detect.pii.name_shape import on_copyright_line
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

# -- shapes Presidio does not cover ------------------------------------------------------------------
_APPS = r"(?:telegram|tg|discord|slack|twitter|mastodon|signal|matrix|keybase|instagram|threads|bluesky|wechat|skype|irc)"


# App names that are also everyday code words (``signal: AbortSignal``, ``matrix = np.array``,
# ``threads: 4``): a handle after them needs its "@", and in prose the app's capital.
_AMBIGUOUS = frozenset({"signal", "matrix", "threads", "tg", "irc"})
# Values that are code or configuration, not a handle.
_NOT_HANDLES = frozenset(
    {
        "true",
        "false",
        "null",
        "none",
        "undefined",
        "yes",
        "no",
        "on",
        "off",
        "enabled",
        "disabled",
        "new",
        "name",
        "default",
        "string",
        "number",
        "boolean",
        "object",
        "any",
    }
)


_HANDLE_AT = re.compile(
    rf"(?i)\b(?P<app>{_APPS})\b(?P<gap>[^\n@]{{0,40}}?)(?<![\w.])@([A-Za-z0-9_][A-Za-z0-9_.-]{{1,38}}[A-Za-z0-9_])"
)


_HANDLE_KEY = re.compile(
    rf"(?im)^[ \t-]*[\"']?(?P<app>{_APPS})(?P<suffix>_handle|_user(?:name)?|_id)?[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?P<at>@?)(?P<h>[A-Za-z0-9_][A-Za-z0-9_.-]{1,38}[A-Za-z0-9_])(?![\w.(-])"
)


# Gateway metadata: a messaging account id under a generic key needs its app prefix
# (Hermes ``user_id: "tg:123456789"``); under an app-specific key any value is one.
_ACCOUNT_KEYS = {"user_id", "sender_id", "from_id", "author_id", "chat_user", "from_user"}


_ACCOUNT_ID = re.compile(
    r"^(?:tg|telegram|discord|slack|wa|whatsapp|signal|matrix):@?[\w.-]{3,64}$", re.IGNORECASE
)


_APP_KEYS = {
    "telegram_id",
    "discord_id",
    "slack_id",
    "telegram",
    "discord",
    "handle",
    "telegram_handle",
    "discord_handle",
    "slack_handle",
}


_DISCORD = re.compile(r"(?i)\bdiscord\b[^\n]{0,40}?\b([a-z0-9_.]{2,32})#\d{4}\b")


_APP_WORDS = (
    "telegram",
    "discord",
    "slack",
    "twitter",
    "mastodon",
    "signal",
    "matrix",
    "keybase",
    "instagram",
    "threads",
    "bluesky",
    "wechat",
    "skype",
)


class Handles(Detector):
    """Messaging handles, only where the app is named next to them. The engine runs it as two
    parts: the gateway keys (any text under them) and the app names (on their lines: every
    pattern above stays on a line)."""

    name = "handles"
    trigger = None  # never asked: the engine registers the parts

    def parts(self) -> list[Detector]:
        return [_HandleKeys(), _HandleText(), _HandleProfiles()]

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return (_HandleKeys().scan(text, leaf) or _HandleText().scan(text, leaf)) + _HandleProfiles().scan(
            text, leaf
        )


class _HandleKeys(Detector):
    name = "handles"
    trigger = Trigger(keys=(*_ACCOUNT_KEYS, *_APP_KEYS))

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        key = (leaf.key or "").lower()
        if (key in _ACCOUNT_KEYS and _ACCOUNT_ID.match(text)) or (
            key in _APP_KEYS and re.fullmatch(r"@?[\w.-]{3,64}", text)
        ):
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
        for m in _HANDLE_AT.finditer(text):
            app = m.group("app")
            if app.lower() in _AMBIGUOUS and not app[0].isupper():
                continue
            if m.group("gap").startswith(":site"):
                continue  # <meta name="twitter:site" content="@...">: a website's account
            spans.append(Span(m.start(3), m.end(3), "pii.handle", "handles", 0.8))
        for m in _HANDLE_KEY.finditer(text):
            value = m.group("h")
            if m.group("app").lower() in _AMBIGUOUS and not (m.group("at") or m.group("suffix")):
                continue
            if value.lower() in _NOT_HANDLES:
                continue
            spans.append(Span(m.start("h"), m.end("h"), "pii.handle", "handles", 0.8))
        for m in _DISCORD.finditer(text):
            spans.append(Span(m.start(1), m.end(1), "pii.handle", "handles", 0.8))
        return spans


# -- handles in profile URLs ------------------------------------------------------------------------
# A URL that points at a person's profile names them by their handle: ``github.com/<handle>`` (a
# repository URL ``github.com/<owner>/<repo>`` points at code, and stays), ``github.com/sponsors/<h>``,
# ``twitter.com/<h>`` and ``x.com/<h>`` (their posts too), ``linkedin.com/in/<h>``, ``t.me/<h>``,
# ``instagram.com/<h>``, ``facebook.com/<h>``, ``keybase.io/<h>``, ``bsky.app/profile/<h>``,
# ``medium.com/@<h>``, a Mastodon ``<instance>/@<h>``. The site's own pages are not handles.
_PROFILE = re.compile(
    r"(?i)(?<![\w.@-])(?:https?://)?(?:www\.|mobile\.)?"  # (after an @: a git remote, ``ssh://git@github.com/o``)
    r"(?:(?P<site>github\.com|gitlab\.com|codeberg\.org)/(?:sponsors/)?(?P<gh>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))"
    r"(?=/?(?:[?#)\]>\"'\s,;]|$))"
    r"|(?:twitter\.com|x\.com)/(?P<tw>[A-Za-z0-9_]{1,15})(?=[/?#)\]>\"'\s,;]|$)"
    r"|linkedin\.com/in/(?P<li>[\w%-]{3,100})"
    r"|(?:t\.me|telegram\.me|instagram\.com|facebook\.com|keybase\.io)/(?P<other>[A-Za-z0-9_.]{3,50})"
    r"(?=/?(?:[?#)\]>\"'\s,;]|$))"
    r"|bsky\.app/profile/(?P<bsky>[\w.-]{3,100})"
    r"|(?:medium\.com|mastodon\.social|mastodon\.online|fosstodon\.org|hachyderm\.io|mstdn\.social|threads\.net)"
    r"/@(?P<at>[\w.-]{1,50}))",
    re.MULTILINE,
)
_URL_LEAD = re.compile(r"(?i)(?:https?://)?(?:www\.|mobile\.)?")
_SITE_PAGES = frozenset(
    {
        "about",
        "features",
        "orgs",
        "organizations",
        "settings",
        "login",
        "logout",
        "join",
        "signup",
        "pricing",
        "marketplace",
        "sponsors",
        "topics",
        "explore",
        "notifications",
        "apps",
        "enterprise",
        "security",
        "site",
        "contact",
        "collections",
        "trending",
        "events",
        "issues",
        "pulls",
        "new",
        "search",
        "readme",
        "team",
        "teams",
        "codespaces",
        "copilot",
        "mobile",
        "home",
        "nonprofit",
        "education",
        "customer-stories",
        "discussions",
        "dashboard",
        "users",
        "help",
        "blog",
        "status",
        "privacy",
        "terms",
        "api",
        "docs",
        "downloads",
        "releases",
        "intent",
        "share",
        "hashtag",
        "i",
        "messages",
        "compose",
        "profile",
        "groups",
        "pages",
        "watch",
        "jobs",
        "company",
        "school",
        "feed",
        "legal",
        "policies",
        "tos",
        "p",
        "reel",
        "stories",
        "joinchat",
        "s",
        "addstickers",
        "c",
        "iv",
        "proxy",
        "socks",
        "web",
        "z",
        "a",
        "k",
        "github",
        "gitlab",
        "gitlab-org",  # the site's own organisation (gitlab.com/gitlab-org), as its pages
        "edu",
        "twitter",
        "x",
        "facebook",
        "instagram",
        "login.php",
        "sharer",
        "dialog",
        "plugins",
        "tr",
        "ads",
        "business",
        "gaming",
    }
)


# Public credits: the places a published project names its contributors by their profile, in the
# files it ships (changelogs' contributor lists, READMEs' team lists, package metadata): a list
# entry that is a link to the profile (``- [Jane Roe](https://github.com/jroe)``, with an avatar
# or a label before it: ``- <img …/> [Jane Roe](…``, ``* Lead: [@jroe](…``), an npm person string
# (``"Jane Roe (https://github.com/jroe)"``, ``"Jane Roe <j@x.org> (…)"``), an rst link
# (``\`@jroe <https://github.com/jroe>\`_``), a source header's credit (``//! author : Jane Roe :
# https://github.com/jroe``, moment's locales). Matched on the line before the URL.
_CREDIT = re.compile(
    r"(?:^|\n)(?:[ \t]*\d+(?:→|\t))?[ \t]*[-*+][ \t]+(?:<img[^<>\n]{0,300}>[ \t]*|!\[[^\]\n]{0,40}\]\([^()\n]{0,300}\)[ \t]*)?"
    r"[^\[\]\n]{0,40}\[@?[^\[\]\n]{1,80}\]\($"
    r"|[\"'][^\"'\n()<>]{1,80}?[ \t]*(?:<[^<>\n]{1,100}>[ \t]*)?\($"
    r"|`@?[\w.-]{1,40}[ \t]+<$"
    r"|(?:^|\n)(?:[ \t]*\d+(?:→|\t))?[ \t]*//!?[^\n]{1,120}?[ \t]:[ \t]*$"
    r"|(?:^|\n)(?:[ \t]*\d+(?:→|\t))?[ \t]*//![^\n]{1,120}?:[ \t]*$"
    # a link's target defined apart, as the rst link above: ``.. _Jane Roe: https://github.com/jroe``
    # (rst) and ``[jroe]: https://github.com/jroe`` (a Markdown reference)
    r"|(?:^|\n)(?:[ \t]*\d+(?:→|\t))?[ \t]*(?:\.\.[ \t]+_[^\n]{1,80}?|\[[^\[\]\n]{1,80}\]):[ \t]*$"
)
# A Sponsors page as package metadata's funding link (``"funding": "https://github.com/sponsors/x"``,
# ``"url": …`` under it) or a link's target (``[Sponsor the project](…)``); not in a sentence.
_FUNDING = re.compile(
    r"(?i)(?:\b(?:url|funding|sponsor|custom)[\"']?[ \t]*[:=][ \t]*\[?[ \t]*[\"']?|\]\(|project-url:[^,\n]{1,40},[ \t]*)$"
)
_LINE_BACK = 500
# A contributor card: the profile's avatar on its line or the line before (``image: …/u/1839645``
# then ``link: https://github.com/jroe`` in a docs site's team list). The avatar is a trigger of
# ``_HandleProfiles`` too, so that line is scanned with (merged into) the link's.
_AVATAR = "avatars.githubusercontent.com/"
_LISTED = frozenset({"contributors", "maintainers", "authors"})
_PERSON_STRING = re.compile(r"[^\"'\n()<>]{1,80}?[ \t]*(?:<[^<>\n]{1,100}>[ \t]*)?\($")
_SCHEME_BEFORE = re.compile(r"(?i)(?:https?://)?(?:www\.|mobile\.)?$")


def public_credit(view: str, start: int) -> bool:
    """The profile URL starting at ``start`` (its host, after any scheme) is a public credit
    (``_CREDIT``) or a contributor card (``_AVATAR``), or a GitHub Sponsors page (public by its
    purpose) given as a funding link."""
    back = _SCHEME_BEFORE.search(view, max(0, start - 16), start)
    lead = back.start() if back else start
    nl = view.rfind("\n", max(0, lead - _LINE_BACK), lead)
    a = nl if nl >= 0 else max(0, lead - _LINE_BACK)
    if _CREDIT.search(view, a, lead) is not None or view.find(_AVATAR, max(0, lead - 200), lead) >= 0:
        return True
    return (
        view[start : start + 20].lower() == "github.com/sponsors/"
        and _FUNDING.search(view, a, lead) is not None
    )


def credited(view: str, start: int, end: int) -> bool:
    """``view[start:end]`` (a name or an address) is on a line that credits a profile
    (``public_credit``): ``- [@jroe](https://github.com/jroe) (Jane Roe)``, ``"Jane Roe
    (https://github.com/jroe)"``. A person carried from an ``Author:`` line keeps that place's
    exception there, as on a copyright line (docs/design/personal-data.md, "Public credits"), and
    so does one carried into the public index's metadata of a package (``checks.index_metadata``)."""
    if index_metadata(view, start):
        return True
    a = view.rfind("\n", max(0, start - _LINE_BACK), start) + 1
    b = view.find("\n", end, end + _LINE_BACK)
    b = b if b >= 0 else min(len(view), end + _LINE_BACK)
    line = view[a:b]
    if "/" not in line:
        return False
    for m in _PROFILE.finditer(view, a, b):
        lead = _URL_LEAD.match(m.group())
        if public_credit(view, m.start() + (lead.end() if lead else 0)):
            return True
    return False


def profile_handles(text: str, prose: bool = False, listed: bool = False) -> list[Span]:
    """The site and handle of each profile URL (``github.com/jdoe``): a handle found here is carried
    to its other copies as that URL, never as a bare word, since an organisation's or project's
    account ("pydata", "pyca") is also a word in every import line and package name. Outside
    ``prose`` (the user's and the assistant's own words), a public credit is no one's private data
    (``public_credit``; ARCHITECTURE.md, "Detection: personal data"), nor is an npm person string
    under a package's list of people (``listed``: ``"contributors": ["Jane Roe (https://…)"]``
    parsed, the string alone)."""
    out = []
    for m in _PROFILE.finditer(text):
        g = m.lastgroup
        if g is None or g == "site":
            continue
        value = m.group(g)
        if value.lower() in _SITE_PAGES or value.lower().endswith((".php", ".html", ".js", ".png")):
            continue
        lead = _URL_LEAD.match(m.group())  # (it matches "" too)
        start = m.start() + (lead.end() if lead else 0)
        if on_copyright_line(text, start):
            continue  # a rights holder's profile, as their name there (ARCHITECTURE.md)
        if not prose and (
            public_credit(text, start) or (listed and _PERSON_STRING.match(text, 0, m.start()))
        ):
            continue
        out.append(Span(start, m.end(g), "pii.handle", "handles:profile-url", 0.85))
    return out


class _HandleProfiles(Detector):
    name = "handles"
    context_free = False  # a public credit is one outside prose only
    trigger = Trigger(
        literals=(
            "github.com/",
            "gitlab.com/",
            "codeberg.org/",
            "twitter.com/",
            "x.com/",
            "linkedin.com/in/",
            "t.me/",
            "telegram.me/",
            "instagram.com/",
            "facebook.com/",
            "keybase.io/",
            "bsky.app/profile/",
            "/@",
            _AVATAR,
        ),
        lines=True,
    )

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        listed = (leaf.key or "").lower() in _LISTED
        return profile_handles(escaped_view(text), leaf.prose, listed)
