"""What a DP-SGD accountant is asked: the pipeline's parameters, as one frozen value.

A training run of DP-SGD is described to an accountant by

* the noise multiplier σ — the Gaussian noise's standard deviation over the clipping norm C
  (noise N(0, σ²C²) added to the sum of the clipped per-example gradients, each of norm ≤ C:
  the convention of every library here, dp_accounting's ``GaussianDpEvent`` docstring);
* the sampling rate q — the probability that a record joins a step (Poisson sampling), or the
  batch fraction b/n (sampling without replacement); 1 for full-batch steps;
* the number of steps T;
* the sampler (:class:`Sampler`) and the neighbouring relation (:class:`Relation`).

:meth:`AccountingParameters.from_spec` reads the plain table a suite's
``claim = { accountant = "opacus:gdp", noise_multiplier = 1.0, sample_rate = 0.1, steps = 10 }``
or the API's ``claim=`` passes; it also accepts ``batch_size`` with ``dataset_size`` for q and
``epochs`` for T (T = E·⌈n/b⌉, or E·⌈1/q⌉ without n), as training scripts state them.
Every bad value is one ``AccountantError`` naming it.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from dpaudit.util import validation


class AccountantError(ValueError):
    """An accountant cannot answer: its library is missing, or it rejects the parameters."""


class Relation(enum.Enum):
    """The neighbouring relation the ε is stated for."""

    #: one record added or removed (Opacus's, and dp_accounting's ADD_OR_REMOVE_ONE)
    ADD_REMOVE = "add-remove"
    #: one record replaced by another (dp_accounting's REPLACE_ONE): ‖ψ(x) − ψ(x′)‖ ≤ 2C
    REPLACE_ONE = "replace-one"


class Sampler(enum.Enum):
    """How a step's batch is drawn."""

    #: every record joins every step independently with probability q
    POISSON = "poisson"
    #: every step uses every record (q = 1): the Gaussian mechanism composed T times
    FULL_BATCH = "full-batch"
    #: a uniformly random subset of b = q·n records per step (dp_accounting's
    #: SampledWithoutReplacementDpEvent; needs ``dataset_size``)
    WITHOUT_REPLACEMENT = "without-replacement"


#: the keys :meth:`AccountingParameters.from_spec` reads (besides ``accountant``)
SPEC_KEYS = ("noise_multiplier", "sample_rate", "batch_size", "dataset_size", "steps",
             "epochs", "relation", "sampler")


def _enum(kind, name: str, value):
    if isinstance(value, kind):
        return value
    names = [m.value for m in kind]
    if value not in names:
        raise AccountantError(f"{name} must be one of {', '.join(names)}, got {value!r}")
    return kind(value)


@dataclass(frozen=True)
class AccountingParameters:
    """σ, q, T, the sampler and the relation of one DP-SGD run (module docstring).

    Invariants (checked on construction): σ > 0; 0 < q ≤ 1, and q = 1 exactly for
    :attr:`Sampler.FULL_BATCH`; T ≥ 1; ``dataset_size`` (when given) ≥ 1 and q·n a whole
    batch size for :attr:`Sampler.WITHOUT_REPLACEMENT`."""

    noise_multiplier: float
    sample_rate: float
    steps: int
    relation: Relation = Relation.ADD_REMOVE
    sampler: Sampler = Sampler.POISSON
    dataset_size: int | None = None

    def __post_init__(self):
        try:
            set_ = object.__setattr__
            set_(self, "noise_multiplier", validation.positive("noise_multiplier",
                                                               self.noise_multiplier))
            set_(self, "sample_rate", validation.number("sample_rate", self.sample_rate,
                                                        minimum=0.0, maximum=1.0,
                                                        strict_minimum=True))
            set_(self, "steps", validation.positive_int("steps", self.steps))
            if self.dataset_size is not None:
                set_(self, "dataset_size", validation.positive_int("dataset_size",
                                                                   self.dataset_size))
        except ValueError as exc:
            raise AccountantError(str(exc)) from None
        set_(self, "relation", _enum(Relation, "relation", self.relation))
        set_(self, "sampler", _enum(Sampler, "sampler", self.sampler))
        if self.sampler is Sampler.FULL_BATCH and self.sample_rate != 1.0:
            raise AccountantError(f"sampler 'full-batch' uses every record at every step: "
                                  f"sample_rate must be 1, got {self.sample_rate:g}")
        if self.sampler is Sampler.WITHOUT_REPLACEMENT:
            if self.dataset_size is None:
                raise AccountantError("sampler 'without-replacement' needs dataset_size (the "
                                      "batch is b = sample_rate·dataset_size records)")
            b = self.sample_rate * self.dataset_size
            if abs(b - round(b)) > 1e-9 * max(1.0, b):
                raise AccountantError(f"sampler 'without-replacement': sample_rate·dataset_size "
                                      f"must be a whole batch size, got {b:g}")

    @property
    def batch_size(self) -> int | None:
        """b = q·n when the dataset size is known."""
        if self.dataset_size is None:
            return None
        return int(round(self.sample_rate * self.dataset_size))

    def describe(self) -> str:
        return (f"σ={self.noise_multiplier:g}, q={self.sample_rate:g}, T={self.steps}, "
                f"{self.sampler.value}, {self.relation.value}")

    def to_dict(self) -> dict:
        out = {"noise_multiplier": self.noise_multiplier, "sample_rate": self.sample_rate,
               "steps": self.steps, "relation": self.relation.value,
               "sampler": self.sampler.value}
        if self.dataset_size is not None:
            out["dataset_size"] = self.dataset_size
        return out

    @classmethod
    def from_spec(cls, spec: dict) -> "AccountingParameters":
        """The parameters of a plain table (module docstring); unknown keys are an error."""
        if not isinstance(spec, dict):
            raise AccountantError(f"an accountant's parameters must be a table, got "
                                  f"{type(spec).__name__}")
        unknown = sorted(set(spec) - set(SPEC_KEYS))
        if unknown:
            raise AccountantError(f"unknown accountant parameter(s) {', '.join(unknown)}; "
                                  f"expected {', '.join(SPEC_KEYS)}")
        if "noise_multiplier" not in spec:
            raise AccountantError("an accountant needs noise_multiplier (σ: noise std over "
                                  "the clipping norm)")
        n = spec.get("dataset_size")
        try:
            n = None if n is None else validation.positive_int("dataset_size", n)
            if "sample_rate" in spec:
                if "batch_size" in spec:
                    raise AccountantError("give sample_rate or batch_size (with "
                                          "dataset_size), not both")
                q = spec["sample_rate"]
            elif "batch_size" in spec:
                if n is None:
                    raise AccountantError("batch_size needs dataset_size (q = b/n)")
                b = validation.positive_int("batch_size", spec["batch_size"])
                if b > n:
                    raise AccountantError(f"batch_size {b} exceeds dataset_size {n}")
                q = b / n
            elif spec.get("sampler") == Sampler.FULL_BATCH.value:
                q = 1.0
            else:
                raise AccountantError("an accountant needs sample_rate (or batch_size with "
                                      "dataset_size)")
            q = validation.number("sample_rate", q, minimum=0.0, maximum=1.0,
                                  strict_minimum=True)
            if "steps" in spec:
                if "epochs" in spec:
                    raise AccountantError("give steps or epochs, not both")
                steps = spec["steps"]
            elif "epochs" in spec:
                epochs = validation.positive_int("epochs", spec["epochs"])
                batch = round(q * n) if n is not None else 0
                per_epoch = math.ceil(n / batch) if batch >= 1 else math.ceil(1.0 / q - 1e-9)
                steps = epochs * per_epoch
            else:
                raise AccountantError("an accountant needs steps (or epochs)")
        except AccountantError:
            raise
        except ValueError as exc:
            raise AccountantError(str(exc)) from None
        return cls(spec["noise_multiplier"], q, steps,
                   relation=spec.get("relation", Relation.ADD_REMOVE.value),
                   sampler=spec.get("sampler", Sampler.POISSON.value), dataset_size=n)


__all__ = ["AccountantError", "AccountingParameters", "Relation", "SPEC_KEYS", "Sampler"]
