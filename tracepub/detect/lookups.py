"""What a command looked up, in its output: the command is the evidence the output has no words for.

A hosts-file line without the file's ``localhost`` line (``pii.machines.HostsFile``' evidence) is an
address and names to anyone; after ``getent hosts db-02``, ``grep build /etc/hosts`` or ``host
db-02`` the same line names machines (a docs example, "add this line to your hosts file", keeps its
private address). A line holding two capitalised words is a name to no one in particular; after
``git config user.name``, ``git log --format=%an`` or macOS's ``id -F`` it is a person's (the owner's, most often: their
git identity, found even when the machine running tracepub does not know it). A CODEOWNERS file's
``@u`` are people's handles (``@org/team`` is a team), a kubeconfig's ``users`` are accounts, and the
``login`` fields of a GitHub API read are handles (in a test fixture read by ``cat`` they stay).

Like ``secrets.bare`` these detectors are stateful and read the same keys: the last command or
path seen in a file (under ``command``, ``cmd``, ``file_path``, ...) says what an output (under
``content``, ``stdout``, ``output``, ...) is; the engine calls them on every string under a key,
outside its caches, and resets them with each file (``start_unit``).
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.pii.machines import HAS_ADDRESS, hosts_lines
from tracepub.detect.pii.name_shape import looks_like_name
from tracepub.detect.secrets.bare import COMMAND_KEYS, OUTPUT_KEYS
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

# On raw lines (folded: lower case, digits 0): a command key, then a command naming one of ``words``.
_COMMAND_LINE = r'"(?:' + "|".join(COMMAND_KEYS) + r')\\*"(?:\s|\\+[nrt])*:[^\n]{{0,400}}?(?:{words})'


class _Lookup(Detector):
    """A stateful detector armed by a command (``reads``) for the next output."""

    context_free = False
    stateful = True
    reads: re.Pattern

    def __init__(self) -> None:
        self._armed = False

    def start_unit(self) -> None:
        self._armed = False

    def scan(self, text: str, leaf: Leaf | None) -> list[Span]:
        key = ((leaf.key if leaf is not None else None) or "").lower()
        if key in COMMAND_KEYS:
            self._armed = self.reads.search(text) is not None
            return []
        if not self._armed or key not in OUTPUT_KEYS:
            return []
        return self.output(escaped_view(text))

    def output(self, view: str) -> list[Span]:
        raise NotImplementedError


class HostsLookup(_Lookup):
    """The lines of a hosts lookup's output: each machine address and the names given it."""

    name = "machines"
    # the hosts file (``cat``, the Read tool), getent's hosts databases, host's answers
    reads = re.compile(
        r"/etc/hosts(?![\w.-])|\bgetent[ \t]+(?:-[\w-]+[ \t]+)*a?hosts(?:v[46])?\b|(?<![\w./-])host[ \t]+(?!-)[\w.-]"
    )
    trigger = Trigger(
        keys=(*COMMAND_KEYS, *OUTPUT_KEYS),
        line_patterns=(
            _COMMAND_LINE.format(words=r"/etc/hosts|getent|host[ \t]"),
            r"(?:\\n|\\t|[\s\"])0{1,3}\.0{1,3}\.0{1,3}\.0{1,3}(?:[ \t]|\\t)+[a-z0-9]",  # a hosts line
            r" has (?:ipv6 )?address 0",
        ),
    )

    def output(self, view: str) -> list[Span]:
        return hosts_lines(view) + hosts_lines(view, HAS_ADDRESS, "machines:lookup")


# ``git config [--global] [--get] user.name`` (reading it: no value after the name), and git's
# author and committer names (``git log --format=%an``, ``git show -s --format='%cn'``).
_READS_NAME = re.compile(
    r"\bgit[ \t]+config\b[^\n|;&]*?[ \t]user\.name[ \t]*(?:$|[|;&)\n])|\bgit[ \t]+(?:log|show)\b[^\n|;&]*%[ac][nN]"
    r"|\bid[ \t]+-F\b|\bdscl\b[^\n|;&]*\bRealName\b"  # macOS: the account's full name
)
_NAME_LINE = re.compile(r"^[ \t]*(?P<n>[^\n]{3,80}?)[ \t]*$", re.M)


class NameLookup(_Lookup):
    """The names a command that prints people's names printed, each alone on its line."""

    name = "names"
    reads = _READS_NAME
    trigger = Trigger(
        keys=(*COMMAND_KEYS, *OUTPUT_KEYS),
        line_patterns=(
            _COMMAND_LINE.format(words=r"user\.name|%a|%c|id -f|realname"),
            # an output that starts with two words (a name's shape, folded)
            r'"(?:'
            + "|".join(OUTPUT_KEYS)
            + r')\\*"(?:\s|\\+[nrt])*:(?:\s|\\+[nrt])*\\*"[ \t]*[a-z][\w\'’.-]* [a-z]',
        ),
    )

    MAX = 20_000  # a log of names, not a file

    def output(self, view: str) -> list[Span]:
        if len(view) > self.MAX:
            return []
        return [
            Span(m.start("n"), m.end("n"), "pii.person", "names:lookup", 0.85)
            for m in _NAME_LINE.finditer(view)
            if looks_like_name(m.group("n"), 2)
        ]


# A CODEOWNERS line: a path pattern, then its owners; a person's handle is ``@u`` (``@org/team`` is a team).
_OWNERS_LINE = re.compile(
    r"^[ \t]*(?:\d{1,6}(?:→|\t)[ \t]*)?[^\s#][^\s]*(?P<owners>(?:[ \t]+@[\w./-]+)+)[ \t]*$", re.M
)
_OWNER = re.compile(r"@(?P<u>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))(?![\w./-])")


class CodeOwners(_Lookup):
    """The people a CODEOWNERS file read names (``cat .github/CODEOWNERS``, the Read tool on it)."""

    name = "identity-places"
    reads = re.compile(r"(?<![\w-])CODEOWNERS\b")
    trigger = Trigger(
        keys=(*COMMAND_KEYS, *OUTPUT_KEYS), line_patterns=(_COMMAND_LINE.format(words="codeowners"),)
    )

    def output(self, view: str) -> list[Span]:
        out = []
        for line in _OWNERS_LINE.finditer(view):
            at = line.start("owners")
            for m in _OWNER.finditer(line.group("owners")):
                out.append(
                    Span(
                        at + m.start("u"), at + m.end("u"), "pii.username", "identity-places:codeowners", 0.85
                    )
                )
        return out


# A kubeconfig's accounts: each ``- name: u`` entry under ``users:`` and each context's ``user: u``.
_KUBE_USERS = re.compile(r"^users:[ \t]*\n(?P<body>(?:(?:[ \t-][^\n]*)?\n?)*)", re.M)
_KUBE_ENTRY = re.compile(r"^- name:[ \t]+(?P<u>[A-Za-z_][\w.-]{0,63})[ \t]*$", re.M)
_KUBE_CONTEXT_USER = re.compile(r"^[ \t]+user:[ \t]+(?P<u>[A-Za-z_][\w.-]{0,63})[ \t]*$", re.M)


class KubeUsers(_Lookup):
    """The accounts a kubeconfig read names (``kubectl config view``, ``cat ~/.kube/config``): people's
    usernames as often as service accounts (system and generic names, ``admin``, stay)."""

    name = "identity-places"
    reads = re.compile(r"\bkubectl[ \t]+config[ \t]+view\b|\.kube/config\b|\bKUBECONFIG\b")
    trigger = Trigger(
        keys=(*COMMAND_KEYS, *OUTPUT_KEYS),
        line_patterns=(_COMMAND_LINE.format(words=r"kubectl[ \t]+config|\.kube/config|kubeconfig"),),
    )

    def output(self, view: str) -> list[Span]:
        from tracepub.detect.places import account

        found = [
            m
            for b in _KUBE_USERS.finditer(view)
            for m in _KUBE_ENTRY.finditer(view, b.start("body"), b.end("body"))
        ]
        found += list(_KUBE_CONTEXT_USER.finditer(view))
        return [
            Span(m.start("u"), m.end("u"), "pii.username", "identity-places:kubeconfig", 0.85)
            for m in found
            if account(m.group("u")) and m.group("u").lower() not in _KUBE_GENERIC
        ]


_KUBE_GENERIC = frozenset(("admin", "kubernetes-admin", "cluster-admin", "default", "user", "kube-admin"))


_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")  # a GitHub login
_LOGIN_FIELD = re.compile(rf'"login"[ \t]*:[ \t]*"(?P<u>{_LOGIN.pattern})"')


class GitHubLogins(_Lookup):
    """After a GitHub API read (``gh api``, ``gh pr view --json author``, ``curl api.github.com``), each
    ``login`` field is a person's handle, as a profile URL's is (``[bot]`` accounts stay). The walker
    gives each field of the parsed output its own key, so this reads the field, not the output."""

    name = "handles"
    reads = re.compile(r"\bgh[ \t]+(?:api|pr|issue|repo|run|release|search)\b|api\.github\.com")
    trigger = Trigger(
        keys=(*COMMAND_KEYS, *OUTPUT_KEYS, "login"),
        line_patterns=(
            _COMMAND_LINE.format(words=r"gh[ \t]|api\.github\.com"),
            r'"login\\*"(?:\s|\\+[nrt])*:',
        ),
    )

    def scan(self, text: str, leaf: Leaf | None) -> list[Span]:
        key = ((leaf.key if leaf is not None else None) or "").lower()
        if key in COMMAND_KEYS:
            self._armed = self.reads.search(text) is not None
        elif key == "login" and self._armed and _LOGIN.fullmatch(text):
            return [Span(0, len(text), "pii.handle", "handles:github-login", 0.85)]
        elif (
            key in OUTPUT_KEYS and self._armed and '"login"' in text
        ):  # JSON inside text (Codex's header first)
            view = escaped_view(text)
            return [
                Span(m.start("u"), m.end("u"), "pii.handle", "handles:github-login", 0.85)
                for m in _LOGIN_FIELD.finditer(view)
            ]
        return []
