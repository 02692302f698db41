"""What a mechanism enumerates: the size of the output space its exact law holds in memory.

Some mechanisms compute their exact law (``exact_epsilon``, ``log_density``, the figure's dense
exact curve) from arrays with one entry per outcome of a finite output space whose size is a
user parameter — k-ary randomised response holds k log-probabilities, the geometric mechanism
Δ + 1 grouped masses, the sparse-vector patterns 2^m of them.  Such a mechanism says so by
returning an :class:`OutputSpace` from :meth:`dpaudit.mechanisms.base.Mechanism.output_space`,
and the audit estimates its memory from it *before* allocating anything
(:mod:`dpaudit.audit.memory`).

:data:`BYTES_PER_OUTCOME` is the measured peak cost of one outcome of a float64 log-probability
array sent through :func:`dpaudit.exact.discrete_epsilon` (the inputs, the sort order, the
sorted copies and the cumulative log-sums of both directions): the growth of the peak resident
set size (``getrusage``) of a fresh process computing one ``exact_epsilon`` was 100.5 MiB for
randomized-response at k = 10⁶ (105 B/outcome), 106.7 MiB for geometric at Δ = 10⁶
(112 B/outcome) and 91.5 MiB for exponential over 10⁶ candidates (96 B/outcome); a whole
``dpaudit run`` of randomized-response at k = 10⁷ peaked at 1.10 GiB, 0.89 GiB above an
audit with k = 2 (96 B/outcome).  A mechanism whose outcomes cost more (Python objects, a
grid per outcome) states its own measured ``bytes_per_outcome``.
"""

from __future__ import annotations

from dataclasses import dataclass

#: measured peak bytes per outcome of a float64 exact law (see the module docstring)
BYTES_PER_OUTCOME = 112


@dataclass(frozen=True)
class OutputSpace:
    """The output space a mechanism's exact law enumerates for one pair.

    Attributes:
      outcomes: the number of outcomes (entries of the largest per-outcome arrays), ≥ 0.
      description: what they are, for messages, e.g. ``"k = 100000000 outputs"``.
      bytes_per_outcome: measured peak bytes per outcome (default :data:`BYTES_PER_OUTCOME`).
    """

    outcomes: int
    description: str
    bytes_per_outcome: float = BYTES_PER_OUTCOME

    def __post_init__(self):
        if int(self.outcomes) != self.outcomes or self.outcomes < 0:
            raise ValueError(f"outcomes must be a non-negative integer, got {self.outcomes!r}")
        if not self.bytes_per_outcome > 0:
            raise ValueError(f"bytes_per_outcome must be > 0, got {self.bytes_per_outcome!r}")

    @property
    def bytes(self) -> float:
        """The estimated peak bytes of the enumeration: outcomes × bytes per outcome."""
        return float(self.outcomes) * float(self.bytes_per_outcome)


__all__ = ["BYTES_PER_OUTCOME", "OutputSpace"]
