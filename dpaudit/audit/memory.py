"""The memory guard: a task's peak memory, estimated before anything large is allocated.

An audit's memory does not grow with its samples (the certification split is counted in
chunks, the selection split is capped), but it grows with two things a user sets:

* the **width** of one output (values per output row): the selection split holds
  ``n_sel`` rows per side, and the certification split draws ``CHUNK_ROWS`` rows at a time;
* the **enumerated output space** of a mechanism whose exact law holds one array entry per
  outcome (:meth:`dpaudit.mechanisms.base.Mechanism.output_space`: k-ary randomised response,
  geometric, exponential, noisy max, sparse vector).

:func:`estimate_task_memory` draws **one** output (from a generator of its own, so no number
changes) and returns

    peak ≈ BASELINE_BYTES + VALUE_BYTES · width · (2·n_sel + min(CHUNK_ROWS, samples − n_sel))
           + outcomes · bytes_per_outcome

with ``n_sel`` = :func:`dpaudit.distinguish.lower_bound.selection_size`.  The two terms are
added although they peak at different moments (sampling, then ``exact_epsilon``), so the
estimate errs high.  Where the constants come from (``getrusage`` peak resident set size of
fresh processes on the CI machine, Python 3, numpy, scipy, scikit-learn):

* :data:`BASELINE_BYTES` = 200 MiB: an audit process with dpaudit, numpy and scipy imported
  peaked at 167–177 MiB before its task; ``dpaudit run`` of randomized-response k = 2 at
  207 MiB in all.
* :data:`VALUE_BYTES` = 24 (3 float64 per value held): black-box audits of a Gaussian vector
  sampler grew by 222 MiB (width 500, 20 000 samples: 24 000 rows held, 2.4 copies of
  them) and 1427 MiB (width 500, 200 000 samples: 145 536 rows, 2.6 copies) with the ``auto``
  distinguisher (the learned statistics copy the selection split); 175 MiB with
  ``statistics``.
* bytes per outcome: :data:`dpaudit.mechanisms.output_space.BYTES_PER_OUTCOME` (112, from
  randomized-response, geometric and exponential), or the mechanism's own.

**Planning** builds each audit point's worst-case pairs in the main process, before any task
exists.  A mechanism whose pairs grow with a parameter states their size
(:meth:`dpaudit.mechanisms.base.Mechanism.pairs_size`: noisy max's ``num_queries``, the
Gaussian-mixing ``dim``), and :func:`check_pairs_memory` refuses the point before
``worst_case_pairs()`` runs when BASELINE_BYTES + values · :data:`PAIR_VALUE_BYTES` exceeds the
limit.  :data:`PAIR_VALUE_BYTES` = 56: building the pairs as Python lists peaked at 16–18 B
per value for noisy max at Δ = 1 (shared small ints, 2·10⁶ queries), 50 B at Δ = 0.3
(distinct floats) and 46–48 B for the Gaussian-mixing matrices (``dim`` = 300); the pairs
are then copied once more for the records, so the estimate errs high.

A task whose estimate exceeds its limit is refused by :func:`check_task_memory` with a
:class:`MemoryLimitError` — the task's records become ``error`` records; the other tasks
run.  The dense exact ε of a sweep's figure (no sampling) is checked on the output space
alone (:func:`check_output_space`): a refused value is missing from the figure, with the
error in its job's errors.  The limit (:data:`dpaudit.util.sizes.DEFAULT_MEMORY_LIMIT` = 4 GiB) is per task, never divided by the
number of workers, so that whether an audit runs cannot depend on how many workers there are.
It is 1/6 of the 24 GiB CI machine: its 2 workers at the limit, plus the main process, fit in
less than half of it.  Users raise it with ``dpaudit run --memory-limit 16GB``, a ``[suite]
memory_limit`` key or ``memory_limit=`` in the Python API; sizes are parsed by
:func:`dpaudit.util.sizes.parse_memory_size`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpaudit.distinguish.lower_bound import selection_size
from dpaudit.distinguish.sampling import CHUNK_ROWS, draw
from dpaudit.mechanisms.output_space import OutputSpace
from dpaudit.util.sizes import MIB, format_bytes

#: what a process holds before its task: interpreter, numpy, scipy, dpaudit (measured)
BASELINE_BYTES = 200 * MIB
#: bytes per output value held in the selection split or a certification chunk (measured)
VALUE_BYTES = 24
#: bytes per scalar of a mechanism's worst-case pairs while planning builds them (measured)
PAIR_VALUE_BYTES = 56


class MemoryLimitError(RuntimeError):
    """A task whose estimated peak memory exceeds its limit; the message says by how much,
    why, and how to raise the limit."""


@dataclass(frozen=True)
class MemoryEstimate:
    """A task's estimated peak memory and its parts (bytes)."""

    mechanism: str
    width: int  # values per output
    rows: int  # output rows held at once: both selection splits and one certification chunk
    samples_bytes: float
    space: OutputSpace | None
    total: float

    def reason(self) -> str:
        """What dominates the estimate, for the refusal message."""
        if self.space is not None and self.space.bytes >= self.samples_bytes:
            return f"{self.mechanism} enumerates {self.space.description}"
        return (f"{self.rows} outputs of {self.width} values each held at once: the selection "
                f"split and one certification chunk")


def estimate_task_memory(mechanism, d0, d1, *, samples: int, seed: int = 0,
                         name: str | None = None) -> MemoryEstimate:
    """The estimated peak memory of auditing ``mechanism`` on the validated pair (d0, d1)
    with ``samples`` per side (the formula and its constants: module docstring).  Draws one
    output from d0 with a generator of its own; allocates nothing else."""
    probe = draw(mechanism.sampler(), d0, 1,
                 np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(3,))))
    width = int(np.prod(probe.shape[1:])) if probe.ndim > 1 else 1
    n_sel = selection_size(int(samples), width)
    rows = 2 * n_sel + min(CHUNK_ROWS, int(samples) - n_sel)
    samples_bytes = float(VALUE_BYTES) * width * rows
    space = mechanism.output_space(d0, d1)
    total = BASELINE_BYTES + samples_bytes + (0.0 if space is None else space.bytes)
    return MemoryEstimate(name or getattr(mechanism, "name", type(mechanism).__name__), width,
                          rows, samples_bytes, space, total)


def check_task_memory(estimate: MemoryEstimate, limit: int) -> None:
    """Raise :class:`MemoryLimitError` when ``estimate.total`` exceeds ``limit`` bytes."""
    if estimate.total > limit:
        raise MemoryLimitError(
            f"estimated peak memory {format_bytes(estimate.total)} exceeds the memory limit "
            f"{format_bytes(limit)} ({estimate.reason()}); raise it with --memory-limit or "
            f"[suite] memory_limit (memory_limit= in the Python API)")


def check_output_space(mechanism, d0, d1, limit: int) -> None:
    """For work that evaluates the exact law without sampling (the dense exact ε of a
    sweep's figure): raise :class:`MemoryLimitError` when BASELINE_BYTES plus the
    mechanism's enumerated output space exceeds ``limit`` bytes."""
    space = mechanism.output_space(d0, d1)
    if space is not None:
        check_task_memory(MemoryEstimate(getattr(mechanism, "name", type(mechanism).__name__),
                                         1, 0, 0.0, space, BASELINE_BYTES + space.bytes), limit)


def check_pairs_memory(mechanism, limit: int) -> None:
    """Before ``mechanism.worst_case_pairs()``: raise :class:`MemoryLimitError` when
    BASELINE_BYTES + :data:`PAIR_VALUE_BYTES` × the values its pairs hold
    (:meth:`~dpaudit.mechanisms.base.Mechanism.pairs_size`) exceeds ``limit`` bytes.  A
    mechanism that states no size (``None``, or no ``pairs_size``) is not checked."""
    hook = getattr(mechanism, "pairs_size", None)
    size = hook() if callable(hook) else None
    if size is None:
        return
    values, what = size
    total = BASELINE_BYTES + float(PAIR_VALUE_BYTES) * int(values)
    if total > limit:
        name = getattr(mechanism, "name", type(mechanism).__name__)
        raise MemoryLimitError(
            f"estimated peak memory {format_bytes(total)} exceeds the memory limit "
            f"{format_bytes(limit)} ({name}'s worst-case pairs hold {int(values)} values: "
            f"{what}); raise it with --memory-limit or [suite] memory_limit (memory_limit= in "
            f"the Python API)")


def dataset_values(dataset, cap: float = math.inf) -> int:
    """Scalars in a dataset (an array, or nested lists, tuples and dicts of them), counted
    without copying it; the count stops once above ``cap``."""
    stack, n = [dataset], 0
    while stack and n <= cap:
        item = stack.pop()
        if isinstance(item, np.ndarray):
            n += int(item.size)
        elif isinstance(item, (list, tuple)):
            if item and not isinstance(item[0], (list, tuple, dict, np.ndarray)) \
                    and not isinstance(item[-1], (list, tuple, dict, np.ndarray)):
                n += len(item)  # a flat row (the common case): no walk item by item
            else:
                stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        else:
            n += 1
    return n


def check_explicit_pairs_memory(pairs, limit: int) -> None:
    """Before an audit's explicit pairs are used: raise :class:`MemoryLimitError` when
    BASELINE_BYTES + :data:`PAIR_VALUE_BYTES` × the values of their datasets exceeds ``limit``
    — a result holds each dataset once more (its record, its summary's JSON text), which is
    where a 10⁸-value dataset given to the Python API took 10.4 GB and ended in a bare
    MemoryError (issue 39, item 6; measured 56 B per value at 10⁷: 1.33 GiB peak).  The count
    stops at the limit, so refusing is fast."""
    cap = max(0.0, (limit - BASELINE_BYTES) / PAIR_VALUE_BYTES)
    values = 0
    for pair in pairs:
        for side in ("d0", "d1"):
            values += dataset_values(getattr(pair, side), cap - values)
            if values > cap:
                raise MemoryLimitError(
                    f"estimated peak memory above "
                    f"{format_bytes(BASELINE_BYTES + PAIR_VALUE_BYTES * values)} exceeds the memory limit {format_bytes(limit)} (the explicit pair "
                    f"{getattr(pair, 'name', '?')!r} holds more than {values} values, "
                    f"{PAIR_VALUE_BYTES} B each in the results); raise it with --memory-limit "
                    f"or [suite] memory_limit (memory_limit= in the Python API)")


__all__ = ["BASELINE_BYTES", "PAIR_VALUE_BYTES", "check_pairs_memory",
           "check_explicit_pairs_memory", "dataset_values", "VALUE_BYTES", "MemoryEstimate", "MemoryLimitError",
           "check_output_space", "check_task_memory", "estimate_task_memory"]
