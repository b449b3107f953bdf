"""A secret handed to code as a call's argument.

Two places of ``entropy.ContextEntropy`` read a call: a pair of arguments, the secret's name then its
value (``setenv("GH_TOKEN", "...")``, ``Add("AccountKey", "...")``: ``call_opens`` tells the name is a
call's first argument), and a method named for the secret given its value alone, its one argument
(``setter_value``):
a setter (``Stripe.setApiKey("...")``, ``$client->setApiKey('...')``, ``set_password("...")``,
``.withToken("...")``, ``useApiKey(...)``) or a builder's method that is the secret's name itself
(``.apiKey("...")``, ``.password("...")``). A method whose name says it does something else with
the secret (``hash_password("...")``, ``verify_token("...")``, ``getToken("name")``) is not one.
"""

from __future__ import annotations

import re

from tracepub.detect.secrets.names import words

_BLANKS = " \t"
# The call's one argument, a literal on its line (with more, the first is often what the secret is
# for: ``keyring.set_password("service", "user", "pw")``, ``auth_password("user", "pw")``).
_LITERAL_ARGUMENT = re.compile(r"""\([ \t]{0,8}(?P<q>["'`])(?P<v>[^"'`\n\\]{4,1024})(?P=q)[ \t]{0,8}\)""")
_SETTER_VERBS = frozenset(("set", "with", "use"))
# Words a builder method that is the secret's name starts with (``apiKey``, ``accessToken``, ``password``).
_SECRET_FIRST = frozenset(
    ("api", "access", "secret", "token", "password", "passwd", "passphrase", "auth", "private", "client")
)


def call_opens(text: str, a: int) -> bool:
    """The quoted name at ``a`` is a call's first argument: ``Add("AccountKey", ...`` (the
    quote before it, blanks, then an opening parenthesis)."""
    i = a - 2
    while i >= 0 and text[i] in _BLANKS:
        i -= 1
    return i >= 0 and text[i] == "("


def setter_value(text: str, a: int, b: int) -> tuple[int, int] | None:
    """Where the literal given to the method named ``text[a:b]`` is (``(`` at ``b``), if the method
    sets the secret its name names (the module's docstring)."""
    m = _LITERAL_ARGUMENT.match(text, b)
    if m is None:
        return None
    method = re.split(r"->|\.|::", text[a:b])[-1]
    ws = words(method)
    if len(ws) < 2 and (not ws or ws[0] not in _SECRET_FIRST):
        return None
    # a method (``x.apiKey(``, ``$x->password(``): the name alone, called as a function, is anything
    builder = ws[0] in _SECRET_FIRST and (method != text[a:b] or a > 0 and text[a - 1] in ".>")
    if ws[0] not in _SETTER_VERBS and not builder:
        return None
    return m.start("v"), m.end("v")
