"""Canary audits: m canaries inserted into one training (or a few), scored, certified.

Torch-free core: :mod:`.design` (the plan, the inclusion bits), :mod:`.certify` (the
procedure: run, score, certify at planned looks, stop), :mod:`.evidence` (what it returns),
:mod:`.simulated` (the Gaussian and ``dpsgd`` oracles, exact claims).  PyTorch/Opacus
harnesses, imported only when used: :mod:`.torch_gradient` (white-box Dirac gradient
canaries in the user's own Opacus training), :mod:`.torch_input` (black-box input-space
canaries scored by the final model's loss).  The statistics live in :mod:`dpaudit.stats`
(:mod:`~dpaudit.stats.one_run`, :mod:`~dpaudit.stats.one_run_fdp`,
:mod:`~dpaudit.stats.threshold_tradeoff`), the claims' trade-off curves in
:mod:`dpaudit.claims.tradeoff`.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dpaudit.mechanisms.canaries.certify import CanaryError, run_canary_audit
    from dpaudit.mechanisms.canaries.design import CanaryPlan, Statistic, inclusion_bits
    from dpaudit.mechanisms.canaries.evidence import CanaryEvidence, StatisticResult

# imported on first use (PEP 562): the canary procedure's settings read the plan's vocabulary
# (design.py) without the statistics' scipy, and ``import dpaudit.api`` stays light
_LAZY = {"CanaryError": "certify", "run_canary_audit": "certify", "CanaryPlan": "design",
         "Statistic": "design", "inclusion_bits": "design", "CanaryEvidence": "evidence",
         "StatisticResult": "evidence"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = ["CanaryError", "CanaryEvidence", "CanaryPlan", "Statistic", "StatisticResult",
           "inclusion_bits", "run_canary_audit"]
