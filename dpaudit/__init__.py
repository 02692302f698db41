"""dpaudit — audit differential-privacy mechanisms.

The public API, one name per concept (keywords ``epsilon``, ``delta``, ``samples``,
``confidence``, ``seed``, ``workers`` everywhere):

* **Mechanisms** — :class:`Mechanism` (the abstract contract: ``sample``, ``claim``,
  ``worst_case_pairs``), :class:`Parameter` (declared parameters), :class:`NeighbourPair`,
  :class:`NeighbourRelation`, the capability mixins (:class:`LogDensity`,
  :class:`GreyBoxQuery`, :class:`CalibratedNoise`, …) and :func:`register`.
* **Claims** — :class:`PureDP`, :class:`ApproxDP`, :class:`ZCDP`, :class:`RDP`, :class:`GDP`,
  :class:`TCDP`, :class:`AllOf` (each with ``epsilon(delta)``).
* **Auditing** — :func:`audit_mechanism` and :func:`audit_sampler` (one audit, a typed
  :class:`AuditResult` with a ``verdict``), :func:`check_mechanism` (``dpaudit check``'s four
  steps), :func:`run_suites` (TOML suite files), and the estimators themselves,
  :func:`estimate_epsilon_lower_bound` and :func:`estimate_privacy_curve_lower_bound`;
  :func:`per_call_sampler` turns a function releasing one output per call into a sampler;
  :func:`replay_mechanism` is the grey-box replay (the code run on D and D′ with its
  randomness held fixed).
* **Data** — :class:`CategoricalRecords` (a dataset space of categorical records),
  :func:`with_dataset_space` (a sampler's space, searched in every route),
  :class:`KeyedOutputs` (releases whose keys depend on the data, as rows).

Modules, from the faces down: the CLI (:mod:`dpaudit.cli`), the Python API
(:mod:`dpaudit.api`) and the pytest plugin; where tasks run (:mod:`dpaudit.backends`); the
audit (:mod:`dpaudit.audit`: plan → execute → run) and ``dpaudit check``
(:mod:`dpaudit.check`); suites (:mod:`dpaudit.suite`) and results (:mod:`dpaudit.results`,
rendered by :mod:`dpaudit.report`); evidence (:mod:`dpaudit.distinguish`,
:mod:`dpaudit.stats`, :mod:`dpaudit.exact`); claims (:mod:`dpaudit.claims`); mechanisms
(:mod:`dpaudit.mechanisms`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dpaudit.util import source_tree

# run from a source checkout (not installed), dpaudit.proofs is the checkout's proofs/ folder
source_tree.map_source_proofs()

from dpaudit.version import __version__

if TYPE_CHECKING:
    from dpaudit.api import (AuditResult, audit_mechanism, audit_sampler, audit_spec,
                             run_audit, run_suites)
    from dpaudit.spec.audit import AuditSpec
    from dpaudit.check.runner import check_mechanism
    from dpaudit.claims import GDP, RDP, TCDP, ZCDP, AllOf, ApproxDP, Claim, PureDP
    from dpaudit.distinguish.lower_bound import (PrivacyCurveLowerBound,
                                                estimate_epsilon_lower_bound,
                                                estimate_privacy_curve_lower_bound)
    from dpaudit.distinguish.result import CertifiedEvent, EpsilonLowerBound
    from dpaudit.mechanisms.base import Mechanism, Parameter
    from dpaudit.mechanisms.capabilities import (CalibratedNoise, ClosedFormSeries,
                                                 DeterministicQuery, ExactRenyi, GreyBoxQuery,
                                                 LogDensity, SearchableDatasets)
    from dpaudit.spec.coverage import SearchBudget
    from dpaudit.mechanisms.float_safe import gaussian_on_grid, laplace_on_grid
    from dpaudit.mechanisms.per_call import per_call_sampler
    from dpaudit.mechanisms.registry import register
    from dpaudit.mechanisms.keyed_outputs import KeyedOutputs
    from dpaudit.mechanisms.sampler import with_dataset_space
    from dpaudit.neighbours import NeighbourPair, NeighbourRelation
    from dpaudit.neighbours.categorical import CategoricalRecords
    from dpaudit.replay.run import replay_mechanism
    from dpaudit.results.recorded_warnings import DpauditWarning

# The public names are imported on first use (PEP 562), so that ``import dpaudit`` -- paid by
# every CLI call and, through the pytest plugin, by every pytest run -- does not import numpy's
# heavy neighbours (scipy, statsmodels, sympy, ...): name -> the module that defines it.
_LAZY = {
    "AuditResult": "dpaudit.api", "audit_mechanism": "dpaudit.api",
    "audit_sampler": "dpaudit.api", "run_suites": "dpaudit.api",
    "audit_spec": "dpaudit.api", "run_audit": "dpaudit.api", "AuditSpec": "dpaudit.spec.audit",
    "check_mechanism": "dpaudit.check.runner",
    **dict.fromkeys(("Claim", "PureDP", "ApproxDP", "ZCDP", "RDP", "GDP", "TCDP", "AllOf"),
                    "dpaudit.claims"),
    **dict.fromkeys(("PrivacyCurveLowerBound", "estimate_epsilon_lower_bound",
                     "estimate_privacy_curve_lower_bound"), "dpaudit.distinguish.lower_bound"),
    "CertifiedEvent": "dpaudit.distinguish.result",
    "EpsilonLowerBound": "dpaudit.distinguish.result",
    "Mechanism": "dpaudit.mechanisms.base", "Parameter": "dpaudit.mechanisms.base",
    **dict.fromkeys(("CalibratedNoise", "ClosedFormSeries", "DeterministicQuery", "ExactRenyi",
                     "GreyBoxQuery", "LogDensity", "SearchableDatasets"),
                    "dpaudit.mechanisms.capabilities"),
    "register": "dpaudit.mechanisms.registry",
    "DpauditWarning": "dpaudit.results.recorded_warnings",
    "SearchBudget": "dpaudit.spec.coverage",
    "laplace_on_grid": "dpaudit.mechanisms.float_safe",
    "gaussian_on_grid": "dpaudit.mechanisms.float_safe",
    "per_call_sampler": "dpaudit.mechanisms.per_call",
    "NeighbourPair": "dpaudit.neighbours", "NeighbourRelation": "dpaudit.neighbours",
    "CategoricalRecords": "dpaudit.neighbours.categorical",
    "KeyedOutputs": "dpaudit.mechanisms.keyed_outputs",
    "with_dataset_space": "dpaudit.mechanisms.sampler",
    "replay_mechanism": "dpaudit.replay.run",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups do not come back here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Mechanism", "Parameter", "NeighbourPair", "NeighbourRelation", "register",
    "LogDensity", "DeterministicQuery", "GreyBoxQuery", "SearchableDatasets", "ExactRenyi",
    "ClosedFormSeries", "CalibratedNoise",
    "Claim", "PureDP", "ApproxDP", "ZCDP", "RDP", "GDP", "TCDP", "AllOf",
    "audit_mechanism", "audit_sampler", "AuditResult", "check_mechanism", "run_suites",
    "audit_spec", "run_audit", "AuditSpec",
    "estimate_epsilon_lower_bound", "estimate_privacy_curve_lower_bound",
    "PrivacyCurveLowerBound", "EpsilonLowerBound", "CertifiedEvent", "DpauditWarning",
    "SearchBudget", "laplace_on_grid", "gaussian_on_grid", "per_call_sampler", "__version__",
    "CategoricalRecords", "KeyedOutputs", "with_dataset_space", "replay_mechanism",
]
