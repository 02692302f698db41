""""Did you mean …?" hints for names a user types: mechanism names, suite keys, parameter
names, distinguishers, claim notions, ``--only`` patterns, attributes of a file reference.

:func:`did_you_mean` is the one spelling every message uses: ``" (did you mean 'laplace'?)"``
with the closest known names (:func:`difflib.get_close_matches`, cutoff 0.6), or ``""`` when
none is close — so a message reads the same with or without a hint.
"""

from __future__ import annotations

import difflib
from typing import Iterable


def close_names(name, choices: Iterable, n: int = 1) -> list[str]:
    """The up to ``n`` names of ``choices`` closest to ``name`` (none when ``name`` is not a
    string or nothing is close)."""
    if not isinstance(name, str):
        return []
    return difflib.get_close_matches(name, [str(c) for c in choices], n=n)


def did_you_mean(name, choices: Iterable, n: int = 1) -> str:
    """``" (did you mean 'a' or 'b'?)"`` for the closest of ``choices``, or ``""``."""
    close = close_names(name, choices, n)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


__all__ = ["close_names", "did_you_mean"]
