"""Adapters for Tumult Analytics sessions (``pip install 'dpaudit[tumult]'``: tmlt.analytics
0.21.0, which pins ``tmlt.core<0.20``, on Spark — pyspark from PyPI and a Java 17 runtime).

Each adapter runs Tumult Analytics as a data team does: a Spark DataFrame ``T`` with columns
``user`` (long), ``key`` (long) and ``value`` (double);
``Session.from_dataframe(privacy_budget, "T", df, protected_change)`` and
``session.evaluate(QueryBuilder("T").groupby(KeySet.from_dict({"key": keys})).count() |
.sum("value", low, high) | .average("value", low, high), budget)`` — the whole budget on the
one query — read in full with ``toPandas()``.  The budget is ``PureDPBudget(ε)``,
``RhoZCDPBudget(ρ)`` or ``ApproxDPBudget(ε, δ)``; the protected change ``AddRowsWithID("user")``
with the constraints ``MaxGroupsPerID("key", max_partitions)`` and
``MaxRowsPerGroupPerID("key", max_per_partition)`` (``protected_change = "id"``, Tumult
truncates each user's contribution itself) or ``AddOneRow()`` (``"row"``).  Clamping,
truncation, the noise (the mechanism Tumult picks, or ``mechanism = "laplace"`` /
``"gaussian"``) and the post-processing (the average is Tumult's noisy sum over its noisy
count) are Tumult's.

**Claim**: the session's own budget, read back from ``session.privacy_budget`` (recorded with
the version): pure ε-DP, ρ-zCDP or (ε, δ)-DP.  The audit checks that the released answer
spent exactly that: after ``evaluate`` the session's ``remaining_privacy_budget`` is zero.
**Relation**: ``"id"`` — add or remove every row of one user
(:func:`~dpaudit.neighbours.keyed_rows.add_remove_user`); ``"row"`` — add or remove one row
(the same with the added user holding exactly one row, Tumult's ``AddOneRow``).

**Batched calls** (:mod:`dpaudit.mechanisms.batched`): one ``evaluate`` runs the group-by of
``copies`` disjoint copies of the table over the public KeySet of every copy's keys, so one
Spark job gives ``copies`` outputs.  They are independent, each with the law of the table
alone, because (a) truncation is per privacy id (copies share no user) and per (id, key);
(b) each group's noise is a fresh draw from Tumult's generator whose scale is the query's
sensitivity over the budget — L1 = max_partitions·max_per_partition (pure DP), L2 =
√max_partitions·max_per_partition (zCDP) for ``"id"``, 1 for ``"row"`` — never a function of
the number of groups (a public KeySet's groups are disjoint, parallel composition); (c) a
group's answer reads its own rows only.  ``check_independence`` tests it in
tests/mechanisms/test_isolated_tumult_analytics.py.  Tumult draws from its own generator:
``seedable = False``.

**Whole jobs only**: a Spark job costs about the same for 32 outputs as for 2000, and an audit
asks for many small batches (its sampler checks, the selection split).  So every call
computes all ``copies`` groups and the outputs a request does not use are kept, per process
and dataset, for the next request on that dataset (:meth:`TumultSession.sample`): each output
is served once, in order, so the requests still receive independent draws of M(D), and a
forked worker never serves its parent's leftovers (they are keyed by process id).

**Spark**: one ``SparkSession`` per process (``local[1]``, ``spark.sql.shuffle.partitions =
1``, no UI), made on the first call and reused for the whole audit; its Python workers are
this interpreter (``PYSPARK_PYTHON``).  Starting it costs ~5–10 s; one ``evaluate`` ~1–3 s.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
from collections import OrderedDict
from typing import ClassVar

import numpy as np

from dpaudit.util import validation
from dpaudit.claims import ApproxDP, PureDP, ZCDP
from dpaudit.mechanisms.base import NeighbourPair, Parameter
from dpaudit.mechanisms.parameters import choice_parameter
from dpaudit.mechanisms.external.keyed import KeyedAdapter
from dpaudit.neighbours.keyed_rows import add_remove_user
from dpaudit.neighbours.relations import NeighbourRelation

BUDGETS = ("pure", "zcdp", "approx")
CHANGES = ("id", "row")
NOISES = ("default", "laplace", "gaussian")

#: the SparkSession of this process (one per audit; see the module docstring)
_SPARK: dict = {}


def spark_session():
    """This process's SparkSession: ``local[1]``, one shuffle partition, no UI, its
    warehouse under the temporary directory; its Python workers are this interpreter.  Made
    once per process (a forked worker makes its own)."""
    session = _SPARK.get(os.getpid())
    if session is not None:
        return session
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[1]").appName("dpaudit")
               .config("spark.sql.shuffle.partitions", "1")
               .config("spark.default.parallelism", "1")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               # not ./spark-warehouse in the user's working directory
               .config("spark.sql.warehouse.dir",
                       os.path.join(tempfile.gettempdir(), "dpaudit-spark-warehouse"))
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    _SPARK[os.getpid()] = session
    return session


def _number(value) -> float:
    """A budget entry (Tumult's ``ExactNumber`` or a float), rounded up to a float."""
    return (float(value.to_float(round_up=True)) if hasattr(value, "to_float")
            else float(value))


def add_remove_row(d0, d1) -> tuple[bool, str]:
    """Tumult's ``AddOneRow``: D′ = D ∪ {one row} (either way round)."""
    ok, why = add_remove_user(d0, d1)
    if ok and abs(len(d0) - len(d1)) != 1:
        return False, (f"add/remove-one-row: the datasets differ by {abs(len(d0) - len(d1))} "
                       f"rows, not one")
    return ok, why


class TumultSession(KeyedAdapter):
    """A Tumult Analytics session answering one group-by (see the module docstring)."""

    library = "tmlt.analytics"
    #: the QueryBuilder aggregation (``count``, ``sum``, ``average``)
    aggregation: ClassVar[str] = "count"
    copies = Parameter(500, validation.positive_int,
                       "disjoint copies of the table per evaluate (groups per Spark job / keys)")

    budget = choice_parameter("pure", BUDGETS, "PureDPBudget, RhoZCDPBudget or ApproxDPBudget")
    epsilon = Parameter(1.0, validation.positive, "ε of a pure or approx budget")
    rho = Parameter(0.5, validation.positive, "ρ of a zCDP budget")
    delta = Parameter(1e-6, validation.delta, "δ of an approx budget")
    protected_change = choice_parameter("id", CHANGES,
                                        "AddRowsWithID('user') (id) or AddOneRow() (row)")
    mechanism = choice_parameter("default", NOISES, "the aggregation's mechanism")
    max_partitions = Parameter(1, validation.positive_int, "MaxGroupsPerID('key', ·)")
    max_per_partition = Parameter(1, validation.positive_int, "MaxRowsPerGroupPerID('key', ·)")
    low = Parameter(0.0, validation.number, "the clamping bound low (sum, average)")
    high = Parameter(1.0, validation.number, "the clamping bound high (sum, average)")

    @property
    def wraps(self) -> str:  # type: ignore[override]
        change = "AddRowsWithID" if self.params["protected_change"] == "id" else "AddOneRow"
        return (f"tmlt.analytics Session.evaluate(groupby(KeySet).{self.aggregation}, "
                f"mechanism={self.params['mechanism']}), {self.params['budget']} budget, "
                f"{change}")

    def value_bounds(self):
        return float(self.params["low"]), float(self.params["high"])

    def contribution_bounds(self):
        if self.params["protected_change"] == "row":
            return 1, 1
        return int(self.params["max_partitions"]), int(self.params["max_per_partition"])

    def relation(self):
        if self.params["protected_change"] == "row":
            return NeighbourRelation("add-remove-row", "add or remove one row (Tumult "
                                     "AddOneRow)", add_remove_row)
        return super().relation()

    def check_pair(self, d0, d1):
        ok, why = super().check_pair(d0, d1)
        if ok and self.params["protected_change"] == "row":
            return add_remove_row(d0, d1)
        return ok, why

    def worst_case_pairs(self):
        """The adapter's named proposal; under ``"row"`` one that adds a single row
        (``extreme-value-small-partition``) where the named one adds a user with many."""
        pairs = super().worst_case_pairs()
        if all(self.check_pair(p.d0, p.d1)[0] for p in pairs):
            return pairs
        for name, d0, d1 in self.dataset_space().proposals():
            if name == "extreme-value-small-partition":
                return [NeighbourPair(name, d0, d1, f"the dataset space's proposal {name} "
                                      f"(one row added)")]
        raise ValueError(f"{self.name}: no one-row proposal")  # pragma: no cover

    def check_parameters(self) -> None:
        if not self.params["low"] < self.params["high"]:
            raise ValueError(f"{self.name}: low must be < high")
        try:
            self._budget()
            self.grouped_query(1)
        except Exception as exc:
            raise ValueError(f"Tumult Analytics rejects the parameters: "
                             f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                             ) from None

    # -- the library's objects --------------------------------------------------------------
    def _budget(self):
        ta, p = self.lib, self.params
        if p["budget"] == "pure":
            return ta.PureDPBudget(float(p["epsilon"]))
        if p["budget"] == "zcdp":
            return ta.RhoZCDPBudget(float(p["rho"]))
        return ta.ApproxDPBudget(float(p["epsilon"]), float(p["delta"]))

    def _protected_change(self):
        ta = self.lib
        return (ta.AddRowsWithID("user") if self.params["protected_change"] == "id"
                else ta.AddOneRow())

    def grouped_query(self, groups: int):
        """The QueryBuilder aggregation over the public KeySet ``key ∈ 0..groups−1``."""
        ta, p = self.lib, self.params
        builder = ta.QueryBuilder("T")
        if p["protected_change"] == "id":
            builder = (builder.enforce(ta.MaxGroupsPerID("key", int(p["max_partitions"])))
                       .enforce(ta.MaxRowsPerGroupPerID("key", int(p["max_per_partition"]))))
        grouped = builder.groupby(ta.KeySet.from_dict({"key": list(range(groups))}))
        if self.aggregation == "count":
            return grouped.count(name="v", mechanism=p["mechanism"])
        return getattr(grouped, self.aggregation)("value", float(p["low"]), float(p["high"]),
                                                  name="v", mechanism=p["mechanism"])

    def session(self, rows):
        """A Session on the table ``rows`` with the whole budget."""
        spark = spark_session()
        df = spark.createDataFrame([(int(u), int(k), float(v)) for u, k, v in rows],
                                   schema="user long, key long, value double")
        return self.lib.Session.from_dataframe(privacy_budget=self._budget(), source_id="T",
                                               dataframe=df,
                                               protected_change=self._protected_change())

    # -- claim and one call -----------------------------------------------------------------
    def claim(self):
        value = self._budget().value  # Tumult's own PrivacyBudget, as the session gets it
        if self.params["budget"] == "pure":
            return PureDP(epsilon=_number(value))
        if self.params["budget"] == "zcdp":
            return ZCDP(rho=_number(value))
        eps, delta = value
        return ApproxDP(epsilon=_number(eps), delta=_number(delta))

    #: datasets whose unused outputs are kept (least recently used dropped first)
    KEPT_DATASETS: ClassVar[int] = 8

    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` outputs on ``dataset``: first the outputs kept from earlier whole jobs on it,
        then whole jobs of ``copies`` outputs; what is left over is kept (module docstring)."""
        rows = self.validate_dataset(dataset)
        n = validation.draw_request(n, rng)
        kept = self.__dict__.setdefault("_kept", OrderedDict())
        key = (os.getpid(), tuple(tuple(r) for r in rows))
        parts = [kept.pop(key)] if key in kept else []
        have = sum(len(p) for p in parts)
        while have < n:
            parts.append(self.draw_copies(rows, int(self.params["copies"])))
            have += len(parts[-1])
        stock = (np.concatenate(parts, axis=0) if parts
                 else np.zeros((0, int(self.params["keys"]) * self.width)))
        if have > n:
            kept[key] = stock[n:]
            while len(kept) > self.KEPT_DATASETS:
                kept.popitem(last=False)
        return stock[:n].reshape(n, -1)

    def call(self, rows, k):
        session = self.session(rows)
        groups = k * int(self.params["keys"])
        answer = session.evaluate(self.grouped_query(groups), session.remaining_privacy_budget)
        left = session.remaining_privacy_budget.value
        if any(_number(x) != 0 for x in (left if isinstance(left, tuple) else (left,))):
            raise RuntimeError(f"Tumult left {left} of the budget unspent: the claim would not "
                               f"be the query's")
        out = {}
        for key, value in answer.toPandas().itertuples(index=False):
            value = float(value) if value is not None else math.nan
            out[int(key)] = value if math.isfinite(value) else math.inf
        return out


class TumultCount(TumultSession):
    """Tumult Analytics ``groupby(KeySet).count()``: rows per key after truncation, plus noise
    (two-sided geometric under a pure budget, discrete Gaussian under zCDP by default)."""

    name = "tumult-analytics-count"
    aggregation = "count"


class TumultSum(TumultSession):
    """Tumult Analytics ``groupby(KeySet).sum("value", low, high)`` of clamped values."""

    name = "tumult-analytics-sum"
    aggregation = "sum"


class TumultAverage(TumultSession):
    """Tumult Analytics ``groupby(KeySet).average("value", low, high)`` (Tumult's noisy sum
    over its noisy count)."""

    name = "tumult-analytics-average"
    aggregation = "average"
    worst_case_proposal = "extreme-value-small-partition"


MECHANISMS = (TumultCount, TumultSum, TumultAverage)
