"""The noise law a mechanism's sampler draws from, as the calibration check reads it.

:class:`Noise` names one law of :data:`NOISE_LAWS` and the parameter values the mechanism's
*claim* states; :mod:`dpaudit.check.calibration` samples the mechanism and tests those values
against its real output.  A mechanism provides one through the
:class:`~dpaudit.mechanisms.capabilities.CalibratedNoise` capability.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dpaudit.neighbours.pairs import plain


#: noise laws :mod:`dpaudit.check.calibration` can check, and the parameters each names
NOISE_LAWS = {
    "laplace": "M(D) = query(D) + Z, Zᵢ i.i.d. Lap(0, b) per output coordinate; parameter b",
    "gaussian": "M(D) = query(D) + Z, Zᵢ i.i.d. N(0, σ²) per output coordinate; parameter sigma",
    "l2-laplace": "M(D) = query(D) + V, V with density ∝ exp(−‖V‖₂/a) on the whole output "
                  "vector (ℓ₂/high-dimensional Laplace); parameter a (any name)",
    "geometric": "integer M(D) = query(D) + Z, P(Z = z) = (1−α)/(1+α)·α^|z|; parameter alpha",
    "randomized-response": "output = the record with probability p_true, else another of k "
                           "values uniformly; parameter p_true, option k",
    "exponential-mechanism": "output i with probability ∝ exp(β·uᵢ), u = query(D); "
                             "parameter beta",
    "noisy-max-argmax": "argmaxᵢ (qᵢ + Zᵢ), Zᵢ i.i.d. with scale b; parameter b, option "
                        "distribution = 'laplace' | 'exponential'",
    "noisy-max-value": "maxᵢ (qᵢ + Zᵢ), Zᵢ i.i.d. with scale b; parameter b, option "
                       "distribution = 'laplace' | 'exponential'",
    "svt-patterns": "sparse vector ⊤/⊥ patterns (or released values, ⊤ = finite) with "
                    "threshold noise Lap(b_rho) and query noise Lap(b_nu); options threshold, "
                    "c (cutoff, None for none)",
}


@dataclass(frozen=True)
class Noise:
    """The noise law a mechanism's sampler draws from, with the values its claim states.

    ``law`` is a key of :data:`NOISE_LAWS`; ``parameters`` maps each calibrated parameter
    (Laplace scale ``b``, Gaussian ``sigma``, geometric ``alpha``, RR ``p_true``, exponential
    mechanism ``beta`` …) to the value the *claim* states — evaluated from the claim's own
    equation ``name = formula`` (see :meth:`Mechanism.claimed_value`), never read back from
    the attribute the sampler uses, so a sampler that drifts from its claim is caught.
    ``options`` holds fixed facts the law needs (``k``, ``threshold``, ``c``,
    ``distribution``); ``probe`` is the dataset to sample on (``None``: d0 of the first
    worst-case pair); ``source`` says where the values come from."""

    law: str
    parameters: dict
    options: dict = field(default_factory=dict)
    probe: Any = None
    source: str = ""

    def to_dict(self) -> dict:
        return {"law": self.law, "parameters": dict(self.parameters),
                "options": {k: plain(v) for k, v in self.options.items()},
                "probe": plain(self.probe), "source": self.source}


__all__ = ["NOISE_LAWS", "Noise"]
