"""What a canary audit fixes before anything runs: the plan, and each run's inclusion bits.

A :class:`CanaryPlan` is the audit's design, fixed before any score exists: m canaries per run,
up to R runs looked at after the runs of ``looks``, the statistics tried (:class:`Statistic`),
the guess counts each tries (:func:`dpaudit.stats.one_run.guess_grid`), δ and the test's
confidence.  Its **family** is everything it may report: every (statistic, look) pair is one
member and gets an equal share of the test's α (Bonferroni; a look pools the canaries of all
runs so far, so the union bound over looks is what makes stopping after any look valid — the
spending is fixed in advance, whatever the scores), and inside a member every guess count
gets an equal share again.  A suite counts the whole canary test as one member of its own
family, at the confidence it hands down.

Inclusion bits (:func:`inclusion_bits`) come from the plan's seed and the run's index alone —
a ``numpy.random.SeedSequence`` child per run — so they are independent of everything the
training does and the same on every backend and worker count.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dpaudit.util import validation

if TYPE_CHECKING:
    from dpaudit.stats.one_run import Guesses

#: spawn key of the inclusion bits (distinct from other streams of the same seed)
_BITS_KEY = 0xCA4A


class Statistic(enum.Enum):
    """The statistics a canary audit can certify with."""

    #: Steinke, Nasr & Jagielski 2023: binomial tail with the δ term (any claim)
    EPSILON_DELTA = "one-run-eps-delta"
    #: Mahloujifar, Melis & Chaudhuri 2024: the claim's trade-off curve
    FDP = "one-run-fdp"
    #: Nasr et al. 2023: thresholds on independent in/out scores, per direction
    THRESHOLD = "gdp-threshold"


DEFAULT_STATISTICS = (Statistic.FDP, Statistic.EPSILON_DELTA)


def _looks(runs: int, looks) -> tuple[int, ...]:
    if looks is None:  # doubling: 1, 2, 4, …, R
        out, r = [], 1
        while r < runs:
            out.append(r)
            r *= 2
        return tuple(out + [runs])
    out = tuple(sorted({int(x) for x in looks}))
    if not out or out[0] < 1 or out[-1] != runs:
        raise ValueError(f"looks must be run counts from 1 up to runs = {runs}, ending at it, "
                         f"got {list(looks)!r}")
    return out


@dataclass(frozen=True)
class CanaryPlan:
    """A canary audit's design (module docstring).

    Attributes:
      canaries: m, canaries per run (each included with probability ½).
      delta: the δ at which the claim's ε is compared.
      runs: R, the most runs (trainings) the audit may use; 1 is the one-run audit.
      looks: after how many runs the audit looks (a run count list ending at R; default
        doubling).  It stops at the first look that certifies a violation.
      statistics: the statistics tried (:class:`Statistic`).
      two_sided: guesses at both ends of the scores (k₊ = k₋) or "in" guesses only.
      confidence: the test's confidence (its share of a suite's family).
      independent_scores: the canaries' scores are independent given their bits (Dirac
        canaries of a simulated Gaussian mechanism): required by :attr:`Statistic.THRESHOLD`.
      seed: the inclusion bits' seed.
    """

    canaries: int
    delta: float
    runs: int = 1
    looks: tuple | None = None
    statistics: tuple = DEFAULT_STATISTICS
    two_sided: bool = True
    confidence: float = 0.95
    independent_scores: bool = False
    seed: int = 0

    def __post_init__(self):
        m = int(validation.number("canaries", self.canaries, minimum=2, integer=True))
        runs = int(validation.number("runs", self.runs, minimum=1, integer=True))
        object.__setattr__(self, "canaries", m)
        object.__setattr__(self, "runs", runs)
        object.__setattr__(self, "delta", validation.delta("delta", self.delta))
        validation.confidence("confidence", self.confidence)
        object.__setattr__(self, "looks", _looks(runs, self.looks))
        stats = tuple(Statistic(s) if not isinstance(s, Statistic) else s
                      for s in self.statistics)
        if not stats:
            raise ValueError("a canary audit needs at least one statistic")
        if Statistic.THRESHOLD in stats and not self.independent_scores:
            raise ValueError("the gdp-threshold statistic needs independent canary scores "
                             "(simulated Dirac canaries); one real training's canaries share "
                             "a model: use one-run-fdp or one-run-eps-delta")
        object.__setattr__(self, "statistics", stats)

    @property
    def family_size(self) -> int:
        """(statistic, look) pairs sharing the test's α."""
        return len(self.statistics) * len(self.looks)

    def member_significance(self) -> float:
        """α of one (statistic, look) member."""
        return (1.0 - self.confidence) / self.family_size

    def grid_for(self, pooled: int) -> tuple[Guesses, ...]:
        """The guess counts at a look that pools ``pooled`` canaries (the run grid scaled)."""
        from dpaudit.stats.one_run import guess_grid  # scipy: when a plan is certified

        return guess_grid(pooled, two_sided=self.two_sided)

    def to_json(self) -> dict:
        return {"canaries": self.canaries, "delta": self.delta, "runs": self.runs,
                "looks": list(self.looks), "statistics": [s.value for s in self.statistics],
                "two_sided": self.two_sided, "confidence": self.confidence,
                "independent_scores": self.independent_scores, "seed": self.seed}


def inclusion_bits(plan: CanaryPlan, run: int) -> np.ndarray:
    """The m inclusion bits of run ``run`` (0-based): independent fair coins from the plan's
    seed and the run index only."""
    seq = np.random.SeedSequence(int(plan.seed), spawn_key=(_BITS_KEY, int(run)))
    return np.random.default_rng(seq).random(plan.canaries) < 0.5


def run_seed(plan: CanaryPlan, run: int) -> int:
    """A 63-bit seed for the training randomness of run ``run`` (noise, batches), independent
    of its bits."""
    words = np.random.SeedSequence(int(plan.seed), spawn_key=(_BITS_KEY + 1, int(run))) \
        .generate_state(2, np.uint32)
    return (int(words[0]) << 31) ^ int(words[1])


__all__ = ["CanaryPlan", "DEFAULT_STATISTICS", "Statistic", "inclusion_bits", "run_seed"]
