"""The one exception the review/approve/publish modules raise for a refused action.

The command line turns it into exit status 1 and one line (its message), which says why and
what to do. Keeping it out of ``tracepub.cli`` lets the modules be used, and tested, without click.
"""

from __future__ import annotations


class Refusal(Exception):
    """A refused or failed action; the message is the one line shown to the user."""
