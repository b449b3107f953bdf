"""Cloud account ids: the 12 digits of an AWS account inside an ARN
(``arn:aws:iam::123456789012:role/x``), an ECR registry host (``123456789012.dkr.ecr...``), and
under an account key (``"Account": "123456789012"`` from ``aws sts get-caller-identity``,
``account_id = ...``, ``AWS_ACCOUNT_ID=``).

An account id is not a credential, but it names the user's (or their employer's) AWS account:
the id goes and the ARN keeps its shape (``arn:aws:iam::<AWS_ACCOUNT_ID_…>:role/x``). The ids
AWS's own documentation uses (``123456789012``, ``111122223333``, ...) are examples and stay.
"""

from __future__ import annotations

import re

from tracepub.detect.base import Detector, Trigger
from tracepub.detect.text import escaped_view
from tracepub.model import Leaf, Span

_ACCOUNT = re.compile(
    r"\barn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(?P<arn>[0-9]{12}):"
    r"|(?<![\w.-])(?P<ecr>[0-9]{12})\.dkr\.ecr\."
    r"""|(?i:\b(?:aws_?)?account(?:_?id)?|\baccountid|\bowner_?id)["']?[ \t]*[:=][ \t]*["']?(?P<key>[0-9]{12})(?![0-9])"""
)
# The example ids of AWS's documentation and SDK test suites.
EXAMPLES = frozenset(
    {
        "123456789012",
        "111122223333",
        "444455556666",
        "777788889999",
        "555555555555",
        "999999999999",
        "012345678901",
        "000000000000",
        "111111111111",
        "222222222222",
        "333333333333",
        "123456789101",
        "210987654321",
        "098765432109",
        "112233445566",
    }
)


_COUNTING = "0123456789012345678901"


def example_account(value: str) -> bool:
    """An id of AWS's documentation (``EXAMPLES``) or one shaped like them: a counting run of eight
    digits (``012345678910``, ``123456789102``) or at most three distinct digits in runs
    (``111122223333``, ``444444444444``)."""
    if value in EXAMPLES or len(set(value)) <= 2:
        return True
    if any(
        value[i : i + 8] in _COUNTING or value[i : i + 8] in _COUNTING[::-1] for i in range(len(value) - 7)
    ):
        return True
    return len(set(value)) <= 3 and all(value[i] == value[i + 1] for i in range(0, len(value), 2))


class AwsAccounts(Detector):
    name = "accounts"
    context_free = True
    trigger = Trigger(shapes=("000000000000",), lines=True)  # every match holds its twelve digits

    def scan(self, text: str, leaf: Leaf) -> list[Span]:
        text = escaped_view(text)
        out = []
        for m in _ACCOUNT.finditer(text):
            g = m.lastgroup or "arn"
            if not example_account(m.group(g)):
                out.append(Span(m.start(g), m.end(g), "pii.aws_account_id", "accounts:aws", 0.85))
        return out
