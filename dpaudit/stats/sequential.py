"""Anytime-valid certification: a test that draws in rounds and may stop after any of them.

A fixed-n test (:mod:`dpaudit.distinguish.lower_bound`) spends its whole budget whatever the
evidence says on the way.  A *sequential* test spends it in rounds (*looks*) and stops as soon
as its verdict is decided; its certified bound stays valid at the data-dependent stopping
time.

**Method: predictable α-spending over looks of growing size.**  Each look r is a complete
fixed-n certificate at n_r outputs per side — its own selection split and its own
certification split, drawn from the streams of its own seed s_r (:meth:`Schedule.seed`; the
look at the budget draws from the test's seed itself) — at significance α_r:

    α_r = α · n_r / (2N)                 for a look below the budget N,
    α_r = α − (α_1 + … + α_{r−1})        for the look at the budget (the last one),      (1)

of the test's family-wise α = 1 − confidence (:meth:`Schedule.spend`).  The sizes grow by at
least 2× and at most 8× (:data:`GROWTH`) per look, from n_1 = max(:data:`FIRST_LOOK`,
⌈N/512⌉): 8× unless the previous look predicts that less reaches the power target, and to N
once that is ≥ N/2 (:meth:`Schedule.next_look`).  Since the looks below N add up to < N,
they spend < α/2 in all and the budget look keeps more than half of α — in practice ≥ 85 %
(looks at N/512, N/64, N/8 spend 7 %).  After each look a stopping rule (:mod:`dpaudit.audit.rounds`: a
violation is certified; the power target is reached; the budget is spent) decides whether to
go on and, through the next size, how far.

**Theorem.**  For any stopping rule and any choice of the next size — functions of everything
observed so far — the certificate of the look the test stops at holds with probability
≥ 1 − α.

*Proof.*  Let F_r be the event that look r runs and one of its one-sided Clopper–Pearson
bounds fails.  Given everything observed before look r (which fixes whether it runs, its size
n_r and its level α_r), look r's samples are fresh — drawn from its own streams — and its
events are fixed by its selection split, independent of its certification split, so
P(F_r | past) ≤ α_r · 1{r runs} (Bonferroni over the look's 2m bounds, as for any fixed-n
certificate).  Hence P(∪_r F_r) ≤ Σ_r E[α_r · 1{r runs}] = E[Σ_{looks run} α_r] ≤ α, since
(1) never spends more than α in all.  Outside ∪_r F_r every certificate of every look run is
correct, in particular the one the test stops at.  ∎

The suite's Bonferroni split over tests is untouched: each test spends its own share α as
above.  Fixed n is the one-look schedule (``fixed = True``): its look is the budget, spends
all of α from the test's seed, and is the fixed-n certificate bit for bit.

Sizes, levels and seeds are functions of (N, seed) and of the looks' results, which depend
only on their seeds; so a sequential test's numbers depend only on its seed, never on workers
or backends.  The cost at the budget is < 2N outputs per side in the worst case and about
1.14 N on the geometric path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: growth of the looks when no size is predicted
GROWTH = 8
#: the smallest first look (outputs per side): below it, selection and certification are
#: too small to certify anything at a suite's per-test significance
FIRST_LOOK = 1000
#: the first look is at least budget / FIRST_FRACTION
FIRST_FRACTION = 512
#: spawn key of the look seeds (distinct from the sample streams' phases)
_ROUND_KEY = 0x5E9


@dataclass(frozen=True)
class Schedule:
    """Where a test may look and what each look spends ((1) of the module docstring).

    Attributes:
      fixed: one look at the budget (the fixed-n test); else growing looks.
      growth: ratio of successive looks when no size is predicted (≥ 2).
      first: the smallest allowed first look (outputs per side).
    """

    fixed: bool = False
    growth: int = GROWTH
    first: int = FIRST_LOOK

    def __post_init__(self):
        if int(self.growth) < 2:
            raise ValueError(f"growth must be >= 2, got {self.growth!r}")
        if int(self.first) < 200:
            raise ValueError(f"first must be >= 200 outputs per side, got {self.first!r}")

    def first_look(self, budget: int) -> int:
        """n_1: the budget when fixed or when the budget is below ``growth`` × the smallest
        first look, else max(``first``, ⌈budget/512⌉)."""
        budget = _budget(budget)
        if self.fixed or budget < self.growth * self.first:
            return budget
        return max(self.first, math.ceil(budget / FIRST_FRACTION))

    def next_look(self, size: int, budget: int, predicted: int | None = None) -> int:
        """The look after one of ``size`` that did not stop: ``growth`` × ``size``, or less
        when ``predicted`` (the size a look needs for the power target) is less, but at least
        2 × ``size`` (a prediction from a small look is noisy: it may shorten a step, never
        lengthen it); the budget once that is ≥ budget/2.

        Raises:
          ValueError: ``size`` is already the budget.
        """
        budget = _budget(budget)
        if size >= budget:
            raise ValueError(f"the look of {size} is the budget: there is no next look")
        wanted = self.growth * size
        if predicted is not None:
            wanted = min(wanted, int(predicted))
        wanted = max(wanted, 2 * size)
        return budget if 2 * wanted >= budget else wanted

    def spend(self, alpha: float, size: int, budget: int, spent: float) -> float:
        """α_r of a look of ``size`` after looks that spent ``spent``: α·size/(2·budget)
        below the budget, everything left (α − spent) at it."""
        if size >= _budget(budget):
            return alpha - spent
        return alpha * size / (2.0 * budget)

    def seed(self, seed: int, look: int, size: int, budget: int) -> int:
        """The seed of look number ``look`` (0-based) of a test whose seed is ``seed``: the
        seed itself for the look at the budget, a 63-bit child of it (SeedSequence spawn key
        (look, size)) for the others."""
        if size >= _budget(budget):
            return int(seed)
        words = np.random.SeedSequence(int(seed), spawn_key=(_ROUND_KEY, look, int(size))) \
            .generate_state(2, np.uint32)
        return (int(words[0]) << 31) ^ int(words[1])


def _budget(budget) -> int:
    budget = int(budget)
    if budget < 1:
        raise ValueError(f"budget must be >= 1, got {budget!r}")
    return budget


__all__ = ["FIRST_FRACTION", "FIRST_LOOK", "GROWTH", "Schedule"]


#: the default power target: a consistent test should be able to detect 1.1 × the claim
DEFAULT_POWER = 1.1


@dataclass(frozen=True)
class StoppingRule:
    """How a test spends its budget and what a consistent verdict must be able to detect.

    Attributes:
      sequential: draw in rounds (:class:`Schedule`) and stop when the verdict is decided;
        False: fixed n, one look at the budget (today's numbers).
      power: the power target as a multiple of the claim: a consistent certificate is
        *powered* when its detectable ε (:mod:`dpaudit.stats.power`) is ≤ ``power`` × its
        claimed ε, else *underpowered*; a sequential test stops once every ε(δ) certificate is
        powered.  None: no target (never underpowered; a sequential test then stops early only
        on a violation).
      require_power: an underpowered certificate fails its audit point's expectation.

    Raises:
      ValueError: ``power`` is not a number > 1 (or None), or a flag is not a bool.
    """

    sequential: bool = True
    power: float | None = DEFAULT_POWER
    require_power: bool = False

    def __post_init__(self):
        for name in ("sequential", "require_power"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if self.power is not None:
            if isinstance(self.power, bool) or not isinstance(self.power, (int, float)) \
                    or not math.isfinite(self.power) or self.power <= 1.0:
                raise ValueError(f"power must be a number > 1 (a multiple of the claim, e.g. "
                                 f"1.1) or false for no target, got {self.power!r}")
            object.__setattr__(self, "power", float(self.power))
        if self.require_power and self.power is None:
            raise ValueError("require_power = true needs a power target (power = 1.1, say)")

    @property
    def schedule(self) -> Schedule:
        return Schedule(fixed=not self.sequential)

    def is_underpowered(self, verdict: str, notion: str, claimed_epsilon, detectable_epsilon
                        ) -> bool | None:
        """Whether a judged certificate is underpowered: a consistent ε(δ) certificate whose
        detectable ε exceeds ``power`` × its claim (∞ and unknown included).  None where the
        notion does not apply (no target, a Rényi certificate, a violation, an error)."""
        if self.power is None or notion != "dp" or verdict != "consistent" \
                or claimed_epsilon is None or not math.isfinite(claimed_epsilon):
            return None
        if detectable_epsilon is None or not math.isfinite(detectable_epsilon):
            return True
        return bool(detectable_epsilon > self.power * claimed_epsilon)

    def to_json(self) -> dict:
        return {"sequential": self.sequential, "power": self.power,
                "require_power": self.require_power}

    @classmethod
    def from_json(cls, data: dict | None) -> "StoppingRule | None":
        return None if data is None else cls(**data)


__all__ += ["DEFAULT_POWER", "StoppingRule"]
