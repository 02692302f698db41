"""Deliberately broken copies of the Laplace mechanism, for tests and demos of ``dpaudit check``.

Each is the correct :class:`~dpaudit.mechanisms.classic.LaplaceMechanism` (a bounded sum plus
Lap(Δ/ε) noise, claiming ε-DP) with one realistic bug, and says which check step must catch it:

* :class:`WrongSensitivitySum` — records are clipped to [0, 2Δ] but the noise is calibrated
  to Δ: the grey-box sensitivity search (step 2) finds ‖Δq‖/Δ = 2.  Its worst-case pairs are
  the correct mechanism's, which move the sum by only Δ; the black-box step's pair search
  (:mod:`dpaudit.audit.pair_search`) finds a pair that moves it by more and certifies that.
* :class:`HalfScaleLaplace` — the sampler draws Lap(b/2) while the claim says b = Δ/ε: the
  calibration step (3) finds b outside its interval (the black-box step sees ε ≈ 2ε too).
* :class:`FirstRecordLeak` — the query adds 10× the first record's value (a record it should
  not read twice): step 2 finds the pair (insert a record of value Δ in front) with ratio 11.

And a clipped *mean* (issue 13, "No false assurance"):

* :class:`ClippedMean` — mean of records clipped to [0, C] over datasets of at least
  ``n_min`` records, add/remove-one neighbours, plus Lap(C/(n_min·ε)): ε-DP (the mean moves by
  at most C/(n + 1) ≤ C/n_min = Δ).
* :class:`LeakySizeClippedMean` — the classic bug: noise scale C/(len(D)·ε).  On a dataset of
  exactly n_min records (the worst-case pair's d0, the old calibration probe) the scale is
  right; on larger ones it is too small, and between sizes n and n + 1 the two scales differ,
  so the privacy loss grows without bound in the tails (true ε = ∞; at n = 50 the excess is
  ≈ 1/50 per noise scale into the tail, which 200 000 samples per side cannot certify on the
  worst-case pair).  The calibration step must catch it on datasets of other sizes.

Run one with ``dpaudit check dpaudit.check.examples:HalfScaleLaplace``.  They are not in the
registry (``dpaudit list``) and never run in the audit suites.
"""

from __future__ import annotations

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import PureDP
from dpaudit.exact import laplace_epsilon
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Noise, Parameter
from dpaudit.mechanisms.capabilities import CalibratedNoise, GreyBoxQuery, SearchableDatasets
from dpaudit.mechanisms.classic import LaplaceMechanism
from dpaudit.mechanisms.classic.common import bounded_records
from dpaudit.neighbours import NeighbourRelation, add_remove_one
from dpaudit.neighbours.spaces import BoundedRecords


class WrongSensitivitySum(LaplaceMechanism):
    """BROKEN (sensitivity): records are clipped to [0, clip] (default 2Δ) while the noise is
    Lap(Δ/ε) — the true sensitivity of the sum is clip, not Δ."""

    name = "broken-wrong-sensitivity"
    family = "broken-example"

    clip = Parameter(None, doc="clipping bound of the records (default 2Δ)")

    def derive(self) -> None:
        super().derive()
        self.resolve_parameter("clip", validation.positive(
            "clip", 2.0 * self._sensitivity if self.clip is None else self.clip))

    def validate_dataset(self, dataset) -> np.ndarray:
        return bounded_records(dataset, 0.0, self.clip)  # BUG: should be [0, Δ]

    def dataset_space(self) -> BoundedRecords:
        return BoundedRecords(0.0, self.clip, n_max=6, neighbouring="add-remove")


class HalfScaleLaplace(LaplaceMechanism):
    """BROKEN (calibration): samples Σ D + Lap(b/2) while the claim states b = Δ/ε, so its
    real ε is 2ε."""

    name = "broken-half-scale"
    family = "broken-example"

    def sample(self, dataset, n, rng) -> np.ndarray:
        n = validation.draw_request(n, rng)
        return rng.laplace(self.query(dataset), self.scale / 2, size=n)  # BUG: b/2

    def log_density(self, dataset, outputs) -> np.ndarray:
        b = self.scale / 2
        return -np.abs(np.asarray(outputs, dtype=float) - self.query(dataset)) / b \
            - np.log(2 * b)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return laplace_epsilon(delta, self._shift(d0, d1), self.scale / 2)


class FirstRecordLeak(LaplaceMechanism):
    """BROKEN (query): releases Σ D + 10·D[0] + Lap(Δ/ε) — the first record is read again, so
    inserting a record in front moves the answer by up to 11Δ."""

    name = "broken-first-record"
    family = "broken-example"

    def query(self, dataset) -> float:
        d = self.validate_dataset(dataset)
        return float(d.sum() + (10.0 * d[0] if d.size else 0.0))  # BUG: reads d[0] again

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return laplace_epsilon(delta, self._shift(d0, d1), self.scale)


class ClippedMean(GreyBoxQuery, SearchableDatasets, CalibratedNoise, Mechanism):
    """mean(clip(D, 0, C)) + Lap(C/(n_min·ε)) on datasets of ≥ n_min records: ε-DP under
    add/remove-one neighbours (|Δ mean| ≤ C/(n + 1) ≤ C/n_min = Δ, and b = Δ/ε)."""

    name = "clipped-mean"
    family = "broken-example"

    def __init__(self, epsilon=1.0, clip=1.0, n_min=50, n_max=None):
        n_min = int(n_min)
        n_max = int(n_max) if n_max is not None else 2 * n_min
        if n_min < 1 or n_max <= n_min:
            raise ValueError(f"need 1 <= n_min < n_max, got n_min={n_min}, n_max={n_max}")
        super().__init__(epsilon=validation.positive("epsilon", epsilon),
                         clip=validation.positive("clip", clip), n_min=n_min, n_max=n_max)
        self.epsilon, self.clip, self.n_min, self.n_max = float(epsilon), float(clip), n_min, n_max

    def validate_dataset(self, dataset) -> np.ndarray:
        d = validation.finite_entries("dataset", np.asarray(dataset, dtype=float).ravel())
        if d.size < self.n_min:
            raise ValueError(f"datasets need at least n_min = {self.n_min} records, got {d.size}")
        return d

    def query(self, dataset) -> float:
        return float(np.clip(self.validate_dataset(dataset), 0.0, self.clip).mean())

    def sensitivity(self) -> float:
        return self.clip / self.n_min

    def scale(self, dataset) -> float:
        """The Laplace scale the sampler uses on ``dataset``."""
        return self.sensitivity() / self.epsilon

    def claim(self) -> PureDP:
        return PureDP(self.epsilon)

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation("add-remove-one", f"add/remove one record; at least "
                                 f"{self.n_min} records", add_remove_one)

    def dataset_space(self) -> BoundedRecords:
        return BoundedRecords(-self.clip, 2.0 * self.clip, n_max=self.n_max,
                              min_size=self.n_min, neighbouring="add-remove")

    def noise(self) -> Noise:
        return Noise("laplace", {"b": self.clip / (self.n_min * self.epsilon)})

    def worst_case_pairs(self) -> list[NeighbourPair]:
        base = [0.0] * self.n_min
        return [NeighbourPair("add-C", base, base + [self.clip])]

    def sample(self, dataset, n, rng) -> np.ndarray:
        n = validation.draw_request(n, rng)
        return rng.laplace(self.query(dataset), self.scale(dataset), size=n)


class LeakySizeClippedMean(ClippedMean):
    """BROKEN (calibration): the noise scale is C/(len(D)·ε) — right at n_min records only,
    too small on larger datasets, and different between neighbours of different sizes, so the
    dataset size leaks (true ε = ∞)."""

    name = "broken-leaky-size-mean"

    def scale(self, dataset) -> float:
        return self.clip / (len(self.validate_dataset(dataset)) * self.epsilon)  # BUG


__all__ = ["ClippedMean", "FirstRecordLeak", "HalfScaleLaplace", "LeakySizeClippedMean",
           "WrongSensitivitySum"]
