"""The certificate returned by the black-box estimator.

An :class:`EpsilonLowerBound` carries everything needed to re-check its number by hand: the
event that certified it (a statistic of the output and a threshold or category set), which
dataset was in the numerator, the counts on fresh certification samples, the per-bound
significance after the family-wise split, and the method.  ``recheck()`` recomputes ε from
those counts alone.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from dpaudit.stats.epsilon import epsilon_from_counts


@dataclass(frozen=True)
class CertifiedEvent:
    """One candidate event certified on fresh samples.

    ``numerator`` is ``"d0"`` or ``"d1"``: the bound is ln((LCB(P_num) − δ)/UCB(P_den))."""

    event: str
    numerator: str
    k_numerator: int
    n_numerator: int
    k_denominator: int
    n_denominator: int
    p_numerator_lower: float
    p_denominator_upper: float
    epsilon: float
    definition: dict = field(default_factory=dict)


@dataclass(frozen=True)
class EpsilonLowerBound:
    """With probability ≥ ``confidence``, the true ε of the pair at ``delta`` is ≥ ``epsilon``."""

    epsilon: float
    delta: float
    confidence: float
    method: str
    event: str
    numerator: str
    k_numerator: int
    n_numerator: int
    k_denominator: int
    n_denominator: int
    per_bound_significance: float
    family_size: int
    samples: int
    selection_samples: int
    certification_samples: int
    output_kind: str
    seed: int | None
    seconds: float
    candidates: tuple[CertifiedEvent, ...] = field(default_factory=tuple)
    event_definition: dict = field(default_factory=dict)
    #: of ``seconds``, the part spent on the selection split (drawing it, fitting statistics
    #: and classifiers, scoring thresholds); the rest is the streamed certification split
    selection_seconds: float = 0.0

    def recheck(self) -> float:
        """Recompute the certified ε from the stored counts (independent of the estimator)."""
        if self.n_numerator == 0:
            return 0.0
        return float(epsilon_from_counts(self.k_numerator, self.n_numerator,
                                         self.k_denominator, self.n_denominator,
                                         delta=self.delta,
                                         significance=self.per_bound_significance))

    def to_dict(self) -> dict:
        out = asdict(self)
        out["candidates"] = [asdict(c) for c in self.candidates]
        for key in ("epsilon",):
            if math.isinf(out[key]):
                out[key] = "inf"
        return out
