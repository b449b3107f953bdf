"""How a found value is replaced, per type: the user's choice among Presidio's operators.

The default is the typed, keyed placeholder (``<EMAIL_3f2a…>``): consistent across the dataset
and irreversible. A project may prefer, for some kinds of personal data, Presidio's ``mask``
(``************e123``: keeps the last characters), ``hash`` (its salted SHA-256, salted with
the dataset's placeholder key: consistent and not confirmable by hashing guesses) or ``redact``
(the value removed). Secrets and the user's identity are always placeholders: a mask leaves a
piece of a secret behind, and the publish re-scan looks for identity placeholders. Configured in
``tracepub.toml``::

    [replace]
    "pii.phone" = "mask"
    "pii" = "hash"          # a prefix: every pii.* type without a more specific entry
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

OPERATORS = ("placeholder", "mask", "hash", "redact")
# Never anything but a placeholder (see above).
FIXED = ("secret.", "identity.", "custom.")
MASK_KEEP = 4  # mask all but this many characters at the end


def check(policy: Mapping[str, str]) -> dict[str, str]:
    """The policy, validated; ValueError names the bad entry."""
    out = {}
    for type_, op in policy.items():
        if op not in OPERATORS:
            raise ValueError(f"replace: {type_} = {op!r}: choose one of {', '.join(OPERATORS)}")
        if op != "placeholder" and (type_ + ".").startswith(FIXED):
            raise ValueError(f"replace: {type_} = {op!r}: secrets and identity are always placeholders")
        out[type_] = op
    return dict(sorted(out.items()))


def operator_for(policy: Mapping[str, str], type_: str) -> str:
    """The entry for the type itself, else for its longest dotted prefix, else placeholder."""
    if not policy or type_.startswith(FIXED):
        return "placeholder"
    parts = type_.split(".")
    for n in range(len(parts), 0, -1):
        op = policy.get(".".join(parts[:n]))
        if op is not None:
            return op
    return "placeholder"


@functools.lru_cache(maxsize=4)
def _operators() -> dict:
    from presidio_anonymizer.operators import Hash, Mask, Redact

    return {"mask": Mask(), "hash": Hash(), "redact": Redact()}


def apply(op: str, value: str, key: bytes) -> str:
    """``value`` replaced by Presidio's operator ``op`` (not ``placeholder``)."""
    operator = _operators()[op]
    if op == "mask":
        n = max(0, len(value) - MASK_KEEP)
        return operator.operate(value, {"masking_char": "*", "chars_to_mask": n, "from_end": False})
    if op == "hash":
        return operator.operate(value, {"hash_type": "sha256", "salt": key})
    return operator.operate(value, {})
