"""False-positive filters shared by the secret detectors (after detect-secrets' heuristics).

A value that is a template (``${VAR}``, ``<token>``, ``{{ secret }}``), an obvious placeholder
(``YOUR_API_KEY``, ``xxxx``, ``****``) or a reference to another variable is not a secret, and
redacting it makes the trace less useful without protecting anything.
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(
    r"""^(?:
        \$\{?[A-Za-z_][\w.]*\}? |            # $VAR, ${VAR}
        \$\([^)]*\) |                        # $(cmd)
        <[^<>]{1,80}> |                      # <token>
        \{\{[^{}]*\}\} | \{[A-Za-z_][\w.]*\} |  # {{ x }}, {x}
        %\(?[A-Za-z_]\w*\)?s? | %[A-Z_]+% |  # %(x)s, %VAR%
        (?i:your|my|the|some|example|sample|dummy|fake|test|placeholder|insert|replace|enter|put)[\w-]*(?:key|token|secret|password|here|value|id)[\w-]* |
        (?i:x{4,}|\*{3,}|\.{3,}|\#{4,}|-{4,}|0{6,}|changeme|password|secret|redacted|none|null|undefined|true|false|todo|tbd)
    )$""",
    re.VERBOSE,
)


def is_placeholder(value: str) -> bool:
    v = value.strip().strip("'\"`")
    return not v or bool(_PLACEHOLDER.match(v)) or v.startswith("<") and v.endswith(">")
