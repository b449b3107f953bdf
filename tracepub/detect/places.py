"""Identity places: where a word is an account or a host name because of where it stands.

A username is often a word (``mark``, ``will``, ``hope``) or two letters (``jo``); matched
everywhere it would eat ``@pytest.mark``, "this will retry" and every "job". What makes it a
username is its place, and traces have a handful of places that hold nothing else:

- a shell prompt (``u@host:~/src$``, ``[u@host src]$``), an ssh public key's comment
  (``ssh-ed25519 AAAA… u@host``), an ssh/scp target (``ssh u@host``);
- ``id`` output (``uid=1000(u) gid=1000(u) groups=1000(u),27(sudo)``), the owner and group
  columns of ``ls -l``, the USER column of ``ps aux`` and of ``who`` / ``w`` / ``last`` (a terminal after it);
- ``uname -a``'s host (``Linux u-laptop 6.8.0-45-generic …``); ``git config --list``'s ``user.name=``
  (the user's own full name, in a session as in the whole dataset: ``identity.name``).

``IdentityPlaces`` finds any account name in them (not only known ones): the owner's (the
values of type ``identity.username`` it is given) as ``identity.username``, anyone else's as
``pii.username``, hosts as ``identity.hostname`` / ``pii.hostname``. System accounts and
generic names (``root``, ``www-data``, ``staff``, ``ubuntu``) are not personal and are kept.

``in_place`` answers the other question: a *known* value (the user's own, or one found
elsewhere in the dataset) occurs at ``[s, e)``: is that an identity place? Besides the ones
above, for a known value: a line or a table cell that holds the value alone (``whoami``
output, ``| JO |``), possibly with a compound suffix (``jo2``, ``jo-MacBook-Air.local``,
``jo_dev``); ``"owner": "jo"``, ``"username": "jo"`` (for a known value only: test fixtures and
package metadata fill these keys with made-up and public names); a path component (``/mnt/backup/jo.backup``, ``…:5432/jo_dev``, ``%2Fjo%2F``,
``~jo``); a code-host handle, where the name may be glued to a word (``github.com:jofork/``,
when "fork" is a word and "jofork" is not); ``u@`` of a user@host; a line's first column where
the rest says it is an account (``who`` / ``last``: a terminal; ``getent passwd``; ``groups``;
``docker images``: ``u/app  tag  id``), ``"nameWithOwner": "u/repo"`` (``full_name``; or the whole
string ``u/repo``), after ``User`` (ssh_config), "Logged in to github.com account", "Logged in as",
"Pulling from", git's "Merge pull request #N from u/…" and "Permission to … denied to u."; a
mention in prose (``ask @u``); and for a first name, a greeting, a reply or a sign-off (``detect.cues``).
"""

from __future__ import annotations

import functools
import re

import ahocorasick_rs

from tracepub.detect.base import Detector, Trigger
from tracepub.model import Leaf, Span

# System accounts and generic names: kept in every place (not a person).
SYSTEM_ACCOUNTS = frozenset(
    {
        "root", "daemon", "bin", "sys", "sync", "games", "man", "lp", "mail", "news", "uucp", "proxy", "backup",
        "list", "irc", "gnats", "nobody", "nogroup", "systemd", "messagebus", "syslog", "sshd", "ntp", "chrony",
        "dbus", "polkitd", "avahi", "colord", "gdm", "rtkit", "uuidd", "tss", "kernoops", "whoopsie", "cups",
        "www-data", "www", "postgres", "mysql", "redis", "nginx", "apache", "docker", "wheel", "staff", "admin",
        "adm", "sudo", "users", "user", "everyone", "plugdev", "lpadmin", "sambashare", "dialout", "cdrom",
        "audio", "video", "input", "render", "kvm", "libvirt", "lxd", "netdev", "ubuntu", "debian", "ec2-user",
        "centos", "fedora", "vagrant", "runner", "jenkins", "gitlab-runner", "circleci", "travis", "codespace",
        "vscode", "node", "app", "git", "guest", "default", "administrator", "system", "local", "service",
        "network", "test", "tester", "dev", "developer", "ops", "deploy", "build", "ci", "home", "shared",
        "public", "name", "username", "me", "you", "your", "yourname", "your-username", "your_username",
        "youruser", "unknown", "none", "null", "true", "false", "string", "example", "owner", "someone",
        "anonymous", "linuxbrew", "postfix", "dovecot", "bind", "named", "squid", "memcache", "mongodb",
        "elasticsearch", "rabbitmq", "zookeeper", "kafka", "hadoop", "hdfs", "yarn", "spark", "grafana",
        "prometheus", "consul", "vault", "nomad", "jupyter", "jovyan", "coder", "gitpod", "gradle", "maven",
        "admins", "developers",
    }
)  # fmt: skip
# Hostnames that name an OS image or a role, not a person's machine.
GENERIC_HOSTS = frozenset(
    {
        "localhost", "localhost.localdomain", "ubuntu", "debian", "fedora", "centos", "alpine", "archlinux",
        "arch", "kali", "raspberrypi", "pop-os", "linux", "linuxkit", "docker-desktop", "workstation",
        "desktop", "laptop", "macbook", "macbook-pro", "macbook-air", "imac", "mac-mini", "mac", "devbox",
        "dev", "server", "host", "box", "runner", "codespaces", "sandbox", "container", "vm", "default",
        "github.com", "gitlab.com", "bitbucket.org", "example.com", "hostname", "host.docker.internal",
        "mycomputer", "myhost", "machine",
    }
)  # fmt: skip

_NAME = r"[A-Za-z_][A-Za-z0-9_.-]{0,31}"
_HOST = r"[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63})*"
_BOL = r"^[ \t]*"  # a line's start, with re.M (JSON escapes in the view leave spaces after the line break)
_Q = r"\\*\"[ \t]{0,8}"  # a quote, escaped or not (the view leaves spaces after an escaped one)
# One regex per place, each with the text one of which it needs (a cheap test before it runs); the
# groups are ``u`` (an account), ``g`` (its group, if named the same) and ``h`` (a host).
_AT = ("@",)
# An algorithm's name on an ssh command line (``-o KexAlgorithms=curve25519-sha256@libssh.org``, RFC 4251
# section 6) is shaped as u@host; its domain is the implementation's, no one's machine.
_NOT_SSH_EXTENSION = r"(?!(?:openssh\.(?:com|org)|libssh\.org|ssh\.com)(?![\w.-]))"
_GIT_NAME = r"(?<![\w.])user\.name=(?P<n>[A-Z][^\W\d_]*(?:[ \t][A-Z][\w'’.-]*){1,3})[ \t]*(?=$|\\n|\")"
_PLACES: list[tuple[re.Pattern, tuple[str, ...]]] = [
    # bash/zsh prompts: u@host:~/src$ | u@host ~/src % | [u@host src]$
    (re.compile(rf"(?<![\w.@%+-])(?P<u>{_NAME})@(?P<h>{_HOST}):[ \t]?[~/][^\s]*?[ \t]?[$#%>](?=\s|$)"), _AT),
    (re.compile(rf"(?<![\w.@%+-])(?P<u>{_NAME})@(?P<h>{_HOST})[ \t]+[~/][^\s]*[ \t]+[$#%>](?=\s|$)"), _AT),
    (re.compile(rf"\[(?P<u>{_NAME})@(?P<h>{_HOST})(?:[ \t][^\]\n]{{0,80}})?\][$#]"), _AT),
    # an ssh public key's comment
    (
        re.compile(
            rf"(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d{{3}}|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)"
            rf"@openssh\.com)[ \t]+AAAA[A-Za-z0-9+/]+={{0,3}}[ \t]+(?P<u>{_NAME})@(?P<h>{_HOST})"
        ),
        _AT,
    ),
    # an ssh/scp/rsync target on a command line
    (
        re.compile(
            rf"(?<![\w-])(?:ssh|scp|sftp|rsync|mosh|ssh-copy-id)[ \t][^\n|;&]{{0,200}}?(?<![\w.+-])"
            rf"(?P<u>{_NAME})@{_NOT_SSH_EXTENSION}(?P<h>{_HOST})(?=[\s:]|$)"
        ),
        _AT,
    ),
    (re.compile(rf"\buid=\d+\((?P<u>{_NAME})\)(?:[ \t]+gid=\d+\((?P<g>{_NAME})\))?"), ("uid=",)),  # id
    # ls -l: permissions, links, owner, group, size
    (
        re.compile(
            rf"{_BOL}[-dlcbpsD][r-][w-][xsS-][r-][w-][xsS-][r-][w-][xtT-][.@+]?[ \t]+\d+[ \t]+"
            rf"(?P<u>{_NAME})[ \t]+(?P<g>{_NAME})[ \t]+\d",
            re.M,
        ),
        ("rw-", "rwx", "r-x", "r--", "rws", "r-s"),
    ),
    (  # ps aux: USER PID %CPU %MEM VSZ RSS
        re.compile(
            rf"{_BOL}(?P<u>{_NAME}\+?)[ \t]+\d+[ \t]+\d+\.\d[ \t]+\d+\.\d[ \t]+\d+[ \t]+\d+[ \t]", re.M
        ),
        (".",),
    ),
    (  # who / w / last: USER, a terminal, maybe where from, then when
        re.compile(
            rf"{_BOL}(?P<u>{_NAME})[ \t]+(?:tty\w*|pts/\d+|console)[ \t]+(?:[^\s]+[ \t]+)?"
            r"(?:\d{4}-\d\d-\d\d|\d{1,2}:\d\d|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug"
            r"|Sep|Oct|Nov|Dec)\b)",
            re.M,
        ),
        ("pts/", " tty", "\ttty", " console "),
    ),
    (  # uname -a
        re.compile(rf"{_BOL}(?:Linux|Darwin|FreeBSD)[ \t]+(?P<h>{_HOST})[ \t]+\d+\.\d+", re.M),
        ("Linux", "Darwin", "FreeBSD"),
    ),
    # getent passwd / finger: an account and its full name (``p``: a person's, the owner's if the account is)
    (
        re.compile(
            rf"{_BOL}(?P<u>{_NAME}):[x*!]?:\d+:\d+:(?P<p>[A-Z][^\W\d_]+(?:[ \t][A-Z][\w'’.-]*){{1,3}})?[,:]",
            re.M,
        ),
        (":x:", ":*:", ":!:"),
    ),
    (
        re.compile(
            rf"Login:[ \t]+(?P<u>{_NAME})[ \t]+Name:[ \t]+(?P<p>[A-Z][^\W\d_]+(?:[ \t][A-Z][\w'’.-]*){{1,3}})"
        ),
        ("Login:",),
    ),
    # the accounts a system log names: sudo's, sshd's
    (re.compile(rf"(?<![\w.-])(?P<u>{_NAME})[ \t]+:[ \t]+TTY="), (" : TTY=",)),
    (
        re.compile(
            r"\b(?:(?:Accepted|Failed)[ \t]+(?:password|publickey)[ \t]+for"
            rf"(?:[ \t]+invalid[ \t]+user)?|session[ \t]+(?:opened|closed)[ \t]+for[ \t]+user|Invalid[ \t]+user)"
            rf"[ \t]+(?P<u>{_NAME})(?=[ \t(]|$)",
            re.M,
        ),
        ("password for ", "publickey for ", "for user ", "nvalid user "),
    ),
    # commands that name an account: chown, -u of sudo/crontab/ps/pkill..., su -, the user commands' last word
    (
        re.compile(
            rf"(?<![\w-])(?:chown[ \t]+(?:-[\w-]+[ \t]+)*(?P<u>{_NAME})(?::(?P<g>{_NAME}))?(?=[ \t])"
            rf"|(?:sudo|crontab|ps|pgrep|pkill|killall|top|htop)[ \t]+(?:-[\w-]+[ \t]+)*-u[ \t]+(?P<u2>{_NAME})(?=[ \t]|$)"
            rf"|su[ \t]+(?:-|-l|--login)[ \t]+(?P<u3>{_NAME})(?=[ \t]|$)"
            r"|(?:^|[;&|(][ \t]*|\bsudo[ \t]+(?:-[\w-]+[ \t]+)*)(?:useradd|adduser|userdel|deluser|usermod|chage|passwd)"
            rf"\b[^\n;&|]*?[ \t](?P<u4>{_NAME})[ \t]*(?=$|[;&|)]))",
            re.M,
        ),
        ("chown", " -u ", "su -", "useradd", "adduser", "userdel", "deluser", "usermod", "chage", "passwd "),
    ),
    # gh pr list: a fork's head ref (owner:branch), then the state
    (
        re.compile(rf"(?<![\w.-])(?P<u>{_NAME}):[\w./-]+[ \t]+(?:OPEN|MERGED|CLOSED|DRAFT)\b"),
        ("OPEN", "MERGED", "CLOSED", "DRAFT"),
    ),
    # git config --list: the user's own full name (``n``: a session's git config is its owner's)
    (re.compile(_GIT_NAME, re.M), ("user.name=",)),
]
# Where one of the places above can be: the detector's trigger (folded text: lower case, digits 0;
# escape-safe: no anchors, and what follows a quote may be a backslash or a space).
_TRIGGER_FOLDED = (
    r"@[a-z0-9][a-z0-9.-]*(?::[ \t]?[~/]|[ \t]+[~/]|[ \t][^\]]{0,80}\][$#]|\][$#])",
    # the key type first: a run of letters is not searched from each of its "aaaa"s (quadratic)
    r"(?:ssh-(?:rsa|dss|ed0+)|ecdsa-sha0-nistp0+|sk-[a-z0-9-]+@openssh\.com)[ \t]+aaaa[a-z0-9+/]+=*[ \t]+"
    r"[a-z_][a-z0-9_.-]*@",
    r"(?:ssh|scp|sftp|rsync|mosh)[ \t][^|;&]{0,200}?@",
    r"uid=0+\(",
    # one digit first, not a run: the same lines, without retrying each digit run from every digit
    r"0[ \t]+0+\.0[ \t]+0+\.0[ \t]+0+[ \t]+0+[ \t]",
)
_TRIGGER_LITERALS = (
    *("rw-", "rwx", "r-x", "r--", "rws", "r-s"),
    *("linux ", "linux\t", "darwin ", "darwin\t", "freebsd ", "freebsd\t"),
    *("pts/", " tty", "\ttty", " console "),
    *(
        ":x:0",
        ":*:0",
        ":!:0",
        "login:",
        " : tty=",
        "password for ",
        "publickey for ",
        " for user ",
        "invalid user ",
    ),
    *("chown ", " -u ", "su -", "\topen", "\tmerged", "\tclosed", "\tdraft"),  # (gh prints tabs to a pipe)
    *("useradd", "adduser", "userdel", "deluser", "usermod", "chage ", "passwd "),
    "user.name=",
)


_NEEDED = sorted({w for _, needs in _PLACES for w in needs})  # every place's words (case as written)
_NEEDS = ahocorasick_rs.AhoCorasick(_NEEDED, implementation=ahocorasick_rs.Implementation.DFA)


@functools.lru_cache(maxsize=65536)  # (asked for each line of ``ls -l`` or ``ps`` output)
def account(name: str) -> bool:
    """An account name that can be a person's: not a system or generic account, not a number."""
    low = name.lower().rstrip("+")
    return (
        len(low) >= 2
        and not low.startswith("_")
        and low not in SYSTEM_ACCOUNTS
        and not low.isdigit()
        and not low.startswith("systemd-")
        and any(c.isalpha() for c in low)
    )


def host_name(host: str) -> bool:
    low = host.lower().rstrip(".")
    return len(low) >= 2 and low not in GENERIC_HOSTS and not low.replace(".", "").isdigit()


@functools.lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


class IdentityPlaces(Detector):
    """Account and host names in the places that hold nothing else (the module's docstring)."""

    name = "identity-places"
    context_free = True
    trigger = Trigger(literals=_TRIGGER_LITERALS, folded=_TRIGGER_FOLDED, lines=True)
    CONFIDENCE = 0.9

    def __init__(self, identity: dict[str, str] | None = None):
        identity = identity or {}
        self._owners = frozenset(v.lower() for v, t in identity.items() if t == "identity.username")
        self._hosts = frozenset(v.lower() for v, t in identity.items() if t == "identity.hostname")

    def user_type(self, name: str) -> str:
        return "identity.username" if name.lower() in self._owners else "pii.username"

    def host_type(self, host: str) -> str:
        low = host.lower()
        if low in self._hosts or any(_inside(low, o) for o in self._owners):
            return "identity.hostname"
        return "pii.hostname"

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        return self._find(text, _PLACES, 0)

    def scan_windows(self, text: str, windows: list[tuple[int, int]], leaf: Leaf) -> list[Span]:
        """``scan`` of each line the engine gives, the places whose words the string lacks left out
        (one pass finds which of all the places' words it holds)."""
        held = {_NEEDED[k] for k, _, _ in _NEEDS.find_matches_as_indexes(text, overlapping=True)}
        places = [p for p in _PLACES if not held.isdisjoint(p[1])]
        return [s for a, b in windows for s in self._find(text[a:b], places, a)]

    def _find(self, text: str, places: list[tuple[re.Pattern, tuple[str, ...]]], at: int) -> list[Span]:
        """The places' names in ``text``, as spans ``at`` characters on."""
        out: list[Span] = []
        for rx, needs in places:
            if not any(w in text for w in needs):
                continue
            for m in rx.finditer(text):
                groups = m.groupdict()
                user = groups.get("u")
                user_ok = user is not None and account(user)
                if user is not None and user_ok:
                    a, b = m.span("u")
                    if user.endswith("+"):  # ps cuts long names: the part shown is the name's start
                        b -= 1
                    out.append(Span(a + at, b + at, self.user_type(user), self.name, self.CONFIDENCE))
                alt = next((g for g in ("u2", "u3", "u4") if groups.get(g)), None) if user is None else None
                if alt is not None:
                    user = groups[alt]
                    user_ok = account(user)
                    if user_ok:
                        a, b = m.span(alt)
                        out.append(Span(a + at, b + at, self.user_type(user), self.name, self.CONFIDENCE))
                person = groups.get("p")  # the account's full name: a person's, the owner's if the account is
                if person is not None and user_ok and person.lower() not in _STAND_INS:
                    a, b = m.span("p")
                    kind = (
                        "identity.name" if self.user_type(user or "") == "identity.username" else "pii.person"
                    )
                    out.append(Span(a + at, b + at, kind, self.name, self.CONFIDENCE))
                group = groups.get("g")  # a personal group: named as its user
                if user is not None and user_ok and group is not None and group.lower() == user.lower():
                    a, b = m.span("g")
                    out.append(Span(a + at, b + at, self.user_type(group), self.name, self.CONFIDENCE))
                if groups.get("n") is not None and groups["n"].lower() not in _STAND_INS:
                    a, b = m.span("n")
                    out.append(Span(a + at, b + at, "identity.name", self.name, self.CONFIDENCE))
                host = groups.get("h")
                if host is not None and host_name(host) and ("u" not in groups or user_ok or "." not in host):
                    a, b = m.span("h")
                    out.append(Span(a + at, b + at, self.host_type(host), self.name, self.CONFIDENCE))
        if "uid=" in text:
            # ``groups=1000(u),27(sudo)``: the entries named after an account ``uid=`` gave
            names = {text[s.start - at : s.end - at].lower(): s.type for s in out}
            for m in _GROUP_ENTRY.finditer(text):
                t = names.get(m.group(1).lower())
                if t is not None:
                    out.append(Span(m.start(1) + at, m.end(1) + at, t, self.name, self.CONFIDENCE))
        return out


_STAND_INS = frozenset(("your name", "john doe", "jane doe", "full name", "first last"))
_GROUP_ENTRY = re.compile(r"(?:groups=|,)\d+\(([^)\s,]+)\)")


def _inside(text: str, word: str) -> bool:
    """``word`` in ``text`` between non-letters (``jo`` in ``jo-laptop``, not in ``joplin``)."""
    i = text.find(word)
    while i >= 0:
        j = i + len(word)
        if (i == 0 or not text[i - 1].isalpha()) and (j == len(text) or not text[j].isalpha()):
            return True
        i = text.find(word, i + 1)
    return False


# -- known values: is this occurrence in an identity place? ------------------------------------------
# What a compound adds after a name: digits (jo2) or a separator and more (jo_dev, jo.backup, jo-laptop).
_SUFFIX = re.compile(r"\d+(?![A-Za-z])|[-_.][A-Za-z0-9][\w.-]*")
# Characters that end a path component.
_COMPONENT_END = frozenset("/\\ \t\r\n\"'?#&:;,)(<>|=@%`")
# A source file's extension: ``/glyph.h`` is a file named after a word, not a compound of a name.
_CODE_EXT = re.compile(
    r"\.(?:c|h|cc|cpp|hpp|py|pyi|pyx|js|mjs|cjs|ts|tsx|jsx|rs|go|java|kt|rb|php|cs|swift|m|mm|scala|"
    r"sh|pl|lua|r|md|rst|txt|html?|css|scss|json|ya?ml|toml|xml|ini|cfg|in|svg|png|jpe?g|gif)$",
    re.I,
)
_HANDLE_LEFT = re.compile(r"(?:(?:github|gitlab|bitbucket|codeberg)\.(?:com|org)[/:]|@[\w.-]+:)$", re.I)
_KEY_LEFT = re.compile(
    r"(?:owner|user|username|user_name|login|logname|(?P<repo>namewithowner|full_name))"
    r"\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?[ \t]*$",
    re.I,
)
_SLUG_REST = re.compile(r"/[A-Za-z0-9][\w.-]{0,99}")
# Before a known name, with a blank for an operator: ssh_config's ``User u``, ``gh auth status``'s
# "Logged in to github.com account u", a registry path's namespace (``Pulling from u/app``).
_WORD_LEFT = re.compile(  # (and git's: a merge of a fork's branch, a push the server refused)
    r"(?m)(?:^[ \t]*User|(?i:logged in (?:to [\w.-]+ (?:account|as)|as))|Pulling from"
    r"|Merge pull request #\d+ from|Permission to [\w./-]+ denied to)[ \t]+$"
)
# System groups, as ``groups`` lists them after the account (``found.scan_forms`` looks for them too).
SYSTEM_GROUPS = (
    "adm", "cdrom", "sudo", "dip", "plugdev", "lpadmin", "sambashare", "docker", "wheel", "staff", "admin",
    "users", "audio", "video", "netdev", "lxd", "kvm", "dialout", "everyone", "input", "render", "systemd-journal",
)  # fmt: skip
# After a known name at a line's start: who / last (a terminal), getent passwd, groups, docker images.
_LINE_AFTER = re.compile(
    r"[ \t]+(?:tty\w*|pts/\d+|console|:\d+)(?![\w/])|:[x*!]?:\d+:\d+:"
    rf"|(?:[ \t]+(?:{'|'.join(SYSTEM_GROUPS)})){{2,}}[ \t]*$"
    r"|/[a-z0-9][a-z0-9._-]*(?::[\w.-]+|[ \t]{2,}[\w.-]+[ \t]{2,}[0-9a-f]{12}\b)",
    re.M,
)
_USER_AT = re.compile(rf"@{_HOST}")
_PCT_SEP = ("%2F", "%2f", "%5C", "%5c")
# A home folder's name: /home/u, /Users/u, C:\Users\u, -home-u- (harness folder names), %2Fhome%2Fu.
_HOME_LEFT = re.compile(
    r"(?:/home/|/Users/|\\Users\\{1,2}|-home-|-Users-|%2F(?:home|Users)%2F|%5CUsers%5C)$", re.I
)


def in_place(text: str, view: str, s: int, e: int, own: bool) -> bool:
    """Whether the known account or host name at ``text[s:e]`` stands in an identity place (``view``: the
    text's escaped view; ``own``: the user's own value, whose compounds also count in source-file names)."""
    n = len(view)
    if s >= 6 and (_HOME_LEFT.search(text, max(0, s - 12), s) or _HOME_LEFT.search(view, max(0, s - 12), s)):
        return True
    before = view[s - 1] if s else "\n"
    pct = s >= 3 and view[s - 3 : s] in _PCT_SEP
    if before.isalnum() and not pct:
        return False
    m = _SUFFIX.match(view, e)
    j = m.end() if m else e
    after = view[j] if j < n else "\n"
    if e < n and view[e].isalpha() and j == e:  # glued to letters: only a handle
        return _glued_handle(view, s, e, n)
    ls = view.rfind("\n", 0, s) + 1
    le = view.find("\n", j)
    le = n if le < 0 else le
    # a line or a table cell holding the value alone (whoami, | JO |)
    left = view[ls:s].rstrip(" \t")
    if (not left or left.endswith("|")) and (not view[j:le].strip() or view[j:le].lstrip().startswith("|")):
        return True
    if before == "/" and view[s - 2 : s] == "</" and after == ">":
        return False  # an HTML closing tag (</li>, </em>), not a path
    # a path component, a handle
    if before in "/\\~" or pct or (before == ":" and _HANDLE_LEFT.search(view, max(0, s - 80), s)):
        if after in _COMPONENT_END or j == n:
            return own or j == e or not _CODE_EXT.search(view, s, j)
    if view.startswith("@", e) and _USER_AT.match(view, e):  # u@host
        return True
    if not left and (_LINE_AFTER.match(view, j) or s == 0 and _SLUG_REST.fullmatch(view, j)):
        return True  # (a whole string "u/repo": a repository's owner, as JSON inside a string holds it)
    if _WORD_LEFT.search(view, max(0, s - 60), s) and (
        after in _COMPONENT_END or j == n or after == "." and view[j + 1 : j + 2] in ("", " ", "\n")
    ):  # (a sentence's end: "denied to u.")
        return True
    # a mention in prose (``ask @u``; not a decorator at a line's start, nor an address)
    if before == "@" and left != "@" and (s < 2 or not view[s - 2].isalnum()) and after in " \t\r\n,.;:!?)":
        return True
    # "owner": "u"
    key = _KEY_LEFT.search(view, max(0, s - 40), s)  # ("nameWithOwner": "u/repo": the repository's owner)
    repo = key is not None and key["repo"] is not None and after == "/"
    return key is not None and (after in "\"'\\ \t\r\n,}" or j == n or repo)


def _glued_handle(view: str, s: int, e: int, n: int) -> bool:
    """``github.com:jofork/``: the name and a word, together no word (``markdown-it``, ``joyent`` kept)."""
    if not _HANDLE_LEFT.search(view, max(0, s - 80), s):
        return False
    j = e
    while j < n and view[j] not in _COMPONENT_END:
        j += 1
    rest = view[e:j].lower()
    word = rest.rstrip("0123456789")
    whole = view[s : e + len(word)].lower()
    return len(word) >= 3 and word.isalpha() and zipf(word) >= 3.0 and zipf(whole) < 1.0
