"""Memory sizes as users write them: ``"16GB"``, ``"512 MiB"``, ``2e9``; and as messages print them.

The limit on one task's estimated peak memory (:mod:`dpaudit.audit.memory`) is written in a
suite (``[suite] memory_limit``), on the command line (``--memory-limit``) and in the Python
API (``memory_limit=``); all three are read by :func:`parse_memory_size`, so one rule and one
message cover them.  The default, :data:`DEFAULT_MEMORY_LIMIT` = 4 GiB, is 1/6 of the 24 GiB
CI machine (see :mod:`dpaudit.audit.memory`).
"""

from __future__ import annotations

import math
import re

MIB, GIB = 1 << 20, 1 << 30
#: the default limit on one task's estimated peak memory (see the module docstring)
DEFAULT_MEMORY_LIMIT = 4 * GIB
#: the smallest limit accepted: an audit process alone takes ~200 MiB
MIN_MEMORY_LIMIT = 256 * MIB
#: how a limit is written, for messages
SIZE_FORMAT = ('a memory size of at least 256 MiB, such as "16GB", "512 MiB", "4GiB" or a '
               'number of bytes (2e9)')

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


def parse_memory_size(value) -> int:
    """Bytes from ``"16GB"`` (powers of 1000: kB MB GB TB), ``"512 MiB"`` (powers of 1024:
    KiB MiB GiB TiB), ``"2e9"`` or a number (bytes); units are case-insensitive.

    Raises:
      ValueError: anything else, or a size below :data:`MIN_MEMORY_LIMIT` (the message
        says what is expected and what was given).
    """
    bad = ValueError(f"expected {SIZE_FORMAT}, got {value!r}")
    if isinstance(value, bool):
        raise bad
    if isinstance(value, (int, float)):
        number, unit = float(value), 1
    elif isinstance(value, str):
        match = _SIZE.match(value)
        if not match or match.group(2).lower() not in _UNITS:
            raise bad
        number, unit = float(match.group(1)), _UNITS[match.group(2).lower()]
    else:
        raise bad
    size = number * unit
    if not math.isfinite(size) or size < MIN_MEMORY_LIMIT or size >= 2.0 ** 63:
        raise bad
    return int(size)


def format_bytes(n: float) -> str:
    """``"9.3 GiB"``, ``"512.0 MiB"``: a size for messages."""
    return f"{n / GIB:.1f} GiB" if n >= GIB else f"{n / MIB:.1f} MiB"


__all__ = ["DEFAULT_MEMORY_LIMIT", "GIB", "MIB", "MIN_MEMORY_LIMIT", "SIZE_FORMAT", "format_bytes",
           "parse_memory_size"]
