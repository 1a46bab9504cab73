"""What a user may see: the warnings Python shows by default."""

from __future__ import annotations

import warnings


def shown_to_users(caught: list[warnings.WarningMessage]) -> list[str]:
    """Warnings Python prints by default: all but libraries' deprecation notices."""
    hidden = (DeprecationWarning, PendingDeprecationWarning)
    return [str(w.message) for w in caught if not issubclass(w.category, hidden)]
