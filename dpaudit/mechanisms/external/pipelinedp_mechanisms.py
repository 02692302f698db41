"""Adapters for PipelineDP (``pip install 'dpaudit[pipelinedp]'``, pipeline-dp 0.3.1).

Each adapter runs PipelineDP as a data team does: a ``NaiveBudgetAccountant`` with the total
(ε, δ), a ``DPEngine`` on the ``LocalBackend``, ``DataExtractors`` reading
``[user, key, value]`` rows, and ``engine.aggregate(rows, AggregateParams(...),
public_partitions=...)`` — COUNT, SUM, MEAN or VARIANCE, Laplace or Gaussian noise, public or
private partitions — or ``engine.select_partitions`` (private partition selection alone),
then ``accountant.compute_budgets()`` and the result read in full.  Nothing is re-implemented:
contribution bounding (PipelineDP samples each user's rows down to ``max_partitions``
partitions and ``max_per_partition`` rows per partition), clamping to
``[min_value, max_value]``, partition selection (truncated geometric by default, PyDP's
C++), and the noise (PyDP's ``LaplaceMechanism`` / ``GaussianMechanism``) are PipelineDP's.

**Claim**: what the accountant allocates — the sum over its ``mechanism_specs`` of (ε, δ)
after ``compute_budgets()`` (PipelineDP composes naively): pure ε-DP when no mechanism spends δ
(Laplace on public partitions), (ε, δ)-DP otherwise; the version is recorded with it.
**Relation**: add/remove one privacy unit with any number of rows (PipelineDP's unit of
privacy is the ``privacy_id``; the engine bounds contributions itself).

**Batched calls** (:mod:`dpaudit.mechanisms.batched`): one ``aggregate`` runs ``copies``
disjoint copies of the table.  The copies are independent and each has the law of the table
alone because (a) contribution bounding groups by privacy id (copies share none) and samples
each user's rows independently; (b) the noise of each partition is a fresh PyDP draw whose
scale depends on (ε, δ, the bounds) only — never on the number of partitions or rows, as
PipelineDP's budget is split between *mechanisms* (metrics), not partitions; (c) partition
selection decides each partition from its own privacy-id count; (d) public partitions are
the copies' keys, each copy's ``keys`` ones.  ``check_independence`` tests it in
tests/mechanisms/test_pipelinedp_adapter.py.  PipelineDP draws from PyDP's secure generator
and numpy's global one: ``seedable = False`` (the record warns the run is not reproducible).
"""

from __future__ import annotations

from typing import ClassVar

from dpaudit.util import validation
from dpaudit.claims import ApproxDP, PureDP
from dpaudit.mechanisms.base import Parameter
from dpaudit.mechanisms.parameters import choice_parameter
from dpaudit.mechanisms.external.keyed import KeyedAdapter

NOISES = ("laplace", "gaussian")


def _flag(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def _optional_count(name: str, value):
    return None if value is None else validation.positive_int(name, value)


class PipelineDPMechanism(KeyedAdapter):
    """A PipelineDP aggregation on a keyed table (see the module docstring)."""

    library = "pipeline_dp"
    accepts_empty = False  # DPEngine.aggregate: "col must be non-empty"
    #: the ``pipeline_dp.Metrics`` member aggregated
    metric: ClassVar[str] = "COUNT"

    epsilon = Parameter(1.0, validation.positive, "the accountant's total ε")
    delta = Parameter(1e-6, validation.delta,
                      "the accountant's total δ (used by Gaussian noise and private "
                      "partition selection)")
    noise = choice_parameter("laplace", NOISES, "laplace or gaussian")
    public = Parameter(True, _flag, "public partitions (keys 0..keys−1) or private selection")
    max_partitions = Parameter(1, validation.positive_int,
                               "max_partitions_contributed (L0 bound)")
    max_per_partition = Parameter(1, validation.positive_int,
                                  "max_contributions_per_partition (Linf bound)")
    min_value = Parameter(0.0, validation.number, "min_value (clamping)")
    max_value = Parameter(1.0, validation.number, "max_value (clamping)")

    @property
    def wraps(self) -> str:  # type: ignore[override]
        kind = "public" if self.params["public"] else "private"
        return (f"pipeline_dp.DPEngine.aggregate(Metrics.{self.metric}, "
                f"NoiseKind.{self.params['noise'].upper()}, {kind} partitions)")

    def check_parameters(self) -> None:
        if not self.params["min_value"] < self.params["max_value"]:
            raise ValueError(f"{self.name}: min_value must be < max_value")
        try:
            self._accountant_after_one_call()
        except Exception as exc:  # the library rejects the parameters
            raise ValueError(f"PipelineDP rejects the parameters: "
                             f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                             ) from None

    # -- one library call -------------------------------------------------------------------
    def _engine(self):
        pdp = self.lib
        acc = pdp.NaiveBudgetAccountant(total_epsilon=float(self.params["epsilon"]),
                                        total_delta=float(self.params["delta"]))
        return pdp, acc, pdp.DPEngine(acc, pdp.LocalBackend())

    def _extractors(self, pdp):
        return pdp.DataExtractors(privacy_id_extractor=lambda r: r[0],
                                  partition_extractor=lambda r: r[1],
                                  value_extractor=lambda r: r[2])

    def aggregate_params(self, pdp):
        p = self.params
        return pdp.AggregateParams(
            metrics=[getattr(pdp.Metrics, self.metric)],
            noise_kind=getattr(pdp.NoiseKind, p["noise"].upper()),
            max_partitions_contributed=int(p["max_partitions"]),
            max_contributions_per_partition=int(p["max_per_partition"]),
            min_value=float(p["min_value"]), max_value=float(p["max_value"]))

    def run(self, rows: list, k: int):
        """(accountant, {replicated key: value}) of one ``aggregate`` on ``rows``."""
        pdp, acc, engine = self._engine()
        public = (list(range(k * int(self.params["keys"]))) if self.params["public"]
                  else None)
        result = engine.aggregate(rows, self.aggregate_params(pdp), self._extractors(pdp),
                                  public_partitions=public)
        acc.compute_budgets()
        field = self.metric.lower()
        return acc, {key: getattr(metrics, field) for key, metrics in result}

    def call(self, rows, k):
        return self.run(rows, k)[1]

    def _accountant_after_one_call(self):
        return self.run([(0, 0, float(self.params["min_value"]))], 1)[0]

    def selection_crowd(self) -> int:
        """Private partitions: the n at which PipelineDP's truncated-geometric selection (PyDP's
        ``probability_of_keep``, at the ε and δ its accountant gives selection) first keeps a
        partition with probability ≥ ½, minus one — so the added user decides it."""
        if self.params["public"]:
            return 0
        from pydp.algorithms import partition_selection

        spec = next(s for s in self._accountant_after_one_call().mechanism_specs
                    if s.mechanism_type.name == "TRUNCATED_GEOMETRIC")
        strategy = partition_selection.create_truncated_geometric_partition_strategy(
            float(spec.eps), float(spec.delta), int(self.params["max_partitions"]))
        n = 1
        while strategy.probability_of_keep(n + 1) < 0.5 and n < 10_000:
            n += 1
        return n

    def claim(self):
        specs = self._accountant_after_one_call().mechanism_specs
        eps = sum(float(s.eps) for s in specs)
        delta = sum(float(s.delta or 0.0) for s in specs)
        return ApproxDP(epsilon=eps, delta=delta) if delta > 0 else PureDP(epsilon=eps)


class PipelineDPCount(PipelineDPMechanism):
    """PipelineDP COUNT per partition: rows per key after contribution bounding, plus noise."""

    name = "pipelinedp-count"
    metric = "COUNT"


class PipelineDPSum(PipelineDPMechanism):
    """PipelineDP SUM per partition of values clamped to [min_value, max_value], plus noise."""

    name = "pipelinedp-sum"
    metric = "SUM"
    worst_case_proposal = "user-many-rows-one-partition"


class PipelineDPMean(PipelineDPMechanism):
    """PipelineDP MEAN per partition (noisy normalised sum over noisy count, PipelineDP's)."""

    name = "pipelinedp-mean"
    metric = "MEAN"
    worst_case_proposal = "extreme-value-small-partition"


class PipelineDPVariance(PipelineDPMechanism):
    """PipelineDP VARIANCE per partition (noisy count, mean and mean of squares)."""

    name = "pipelinedp-variance"
    metric = "VARIANCE"
    worst_case_proposal = "extreme-value-small-partition"


class PipelineDPSelectPartitions(PipelineDPMechanism):
    """PipelineDP ``select_partitions``: 1 for a key it releases, −∞ for one it does not."""

    name = "pipelinedp-select-partitions"
    metric = "SELECT"
    worst_case_proposal = "key-only-in-one-dataset"
    public = Parameter(False, _flag, "always private: selection is what is audited")
    delta = Parameter(1e-3, validation.delta, "the accountant's total δ")
    pre_threshold = Parameter(None, _optional_count,
                              "PipelineDP's pre_threshold (None: none)")

    @property
    def wraps(self) -> str:  # type: ignore[override]
        return "pipeline_dp.DPEngine.select_partitions (truncated geometric)"

    def check_parameters(self) -> None:
        if self.params["public"]:
            raise ValueError(f"{self.name}: partition selection has no public partitions")
        super().check_parameters()

    def run(self, rows, k):
        pdp, acc, engine = self._engine()
        params = pdp.SelectPartitionsParams(
            max_partitions_contributed=int(self.params["max_partitions"]),
            pre_threshold=self.params["pre_threshold"])
        result = engine.select_partitions(rows, params, self._extractors(pdp))
        acc.compute_budgets()
        return acc, {key: 1.0 for key in result}


MECHANISMS = (PipelineDPCount, PipelineDPSum, PipelineDPMean, PipelineDPVariance,
              PipelineDPSelectPartitions)
