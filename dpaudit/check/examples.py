"""Deliberately broken copies of the Laplace mechanism, for tests and demos of ``dpaudit check``.

Each is the correct :class:`~dpaudit.mechanisms.classic.LaplaceMechanism` (a bounded sum plus
Lap(Δ/ε) noise, claiming ε-DP) with one realistic bug, and says which check step must catch it:

* :class:`WrongSensitivitySum` — records are clipped to [0, 2Δ] but the noise is calibrated
  to Δ: the grey-box sensitivity search (step 2) finds ‖Δq‖/Δ = 2.  Its worst-case pairs are
  the correct mechanism's, which move the sum by only Δ, so the black-box step alone misses it.
* :class:`HalfScaleLaplace` — the sampler draws Lap(b/2) while the claim says b = Δ/ε: the
  calibration step (3) finds b outside its interval (the black-box step sees ε ≈ 2ε too).
* :class:`FirstRecordLeak` — the query adds 10× the first record's value (a record it should
  not read twice): step 2 finds the pair (insert a record of value Δ in front) with ratio 11.

Run one with ``dpaudit check dpaudit.check.examples:HalfScaleLaplace``.  They are not in the
registry (``dpaudit list``) and never run in the audit suites.
"""

from __future__ import annotations

import numpy as np

from dpaudit import validation
from dpaudit.exact import laplace_epsilon
from dpaudit.mechanisms.base import Parameter
from dpaudit.mechanisms.classic import LaplaceMechanism
from dpaudit.mechanisms.classic.common import bounded_records
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


__all__ = ["WrongSensitivitySum", "HalfScaleLaplace", "FirstRecordLeak"]
