"""Seeds of tasks: a function of the suite seed and the task's names, never of the execution.

Task (audit a, test t, swept value v) of a suite with seed s draws from
``SeedSequence([s, w_1, …, w_8]).generate_state(1)[0]`` where w are the eight 32-bit words of
SHA-256 of ``"a/t"`` (``"a/t@parameter=repr(v)"`` for a point of a swept audit): adding,
removing or reordering audits, the number of workers and the completion order cannot change a
number (:mod:`dpaudit.audit.plan`).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np


def task_key(audit: str, pair: str, sweep: tuple[str, Any] | None = None) -> str:
    """The name of a task the seed is derived from: ``"audit/pair"``, with
    ``"@parameter=repr(value)"`` appended for a point of a swept audit."""
    key = f"{audit}/{pair}"
    if sweep is not None:
        key += f"@{sweep[0]}={sweep[1]!r}"
    return key


def task_seed(suite_seed: int, key: str) -> int:
    """The seed of one task: a function of the suite seed and the task's name
    (:func:`task_key`) only, so that neither the workers, nor the order of the audits, nor the
    other audits of the file can change it."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 32, 4)]
    state = np.random.SeedSequence([int(suite_seed), *words])
    return int(state.generate_state(1)[0])



__all__ = ["task_key", "task_seed"]
