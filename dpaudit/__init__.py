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
  :func:`estimate_epsilon_lower_bound` and :func:`estimate_privacy_curve_lower_bound`.

Modules: claims (:mod:`dpaudit.claims`), evidence (:mod:`dpaudit.distinguish`,
:mod:`dpaudit.exact`), mechanisms (:mod:`dpaudit.mechanisms`), running
(:mod:`dpaudit.audit`, :mod:`dpaudit.check`), reporting (:mod:`dpaudit.report`).
"""

from dpaudit import source_tree

# run from a source checkout (not installed), dpaudit.proofs is the checkout's proofs/ folder
source_tree.map_source_proofs()

from dpaudit.api import AuditResult, audit_mechanism, audit_sampler, run_suites
from dpaudit.check.runner import check_mechanism
from dpaudit.claims import GDP, RDP, TCDP, ZCDP, AllOf, ApproxDP, Claim, PureDP
from dpaudit.distinguish.lower_bound import (PrivacyCurveLowerBound, estimate_epsilon_lower_bound,
                                            estimate_privacy_curve_lower_bound)
from dpaudit.distinguish.result import CertifiedEvent, EpsilonLowerBound
from dpaudit.mechanisms.base import Mechanism, Parameter
from dpaudit.mechanisms.capabilities import (CalibratedNoise, ClosedFormSeries,
                                             DeterministicQuery, ExactRenyi, GreyBoxQuery,
                                             LogDensity, SearchableDatasets)
from dpaudit.mechanisms.registry import register
from dpaudit.neighbours import NeighbourPair, NeighbourRelation
from dpaudit.version import __version__

__all__ = [
    "Mechanism", "Parameter", "NeighbourPair", "NeighbourRelation", "register",
    "LogDensity", "DeterministicQuery", "GreyBoxQuery", "SearchableDatasets", "ExactRenyi",
    "ClosedFormSeries", "CalibratedNoise",
    "Claim", "PureDP", "ApproxDP", "ZCDP", "RDP", "GDP", "TCDP", "AllOf",
    "audit_mechanism", "audit_sampler", "AuditResult", "check_mechanism", "run_suites",
    "estimate_epsilon_lower_bound", "estimate_privacy_curve_lower_bound",
    "PrivacyCurveLowerBound", "EpsilonLowerBound", "CertifiedEvent", "__version__",
]
