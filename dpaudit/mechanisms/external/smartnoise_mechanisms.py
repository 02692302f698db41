"""Adapters for SmartNoise SQL (``pip install 'dpaudit[smartnoise]'``, smartnoise-sql 1.0.10).

SmartNoise SQL needs ``opendp>=0.14.1,<0.15`` while dpaudit's OpenDP adapter pins 0.16.0, so
the two never share an environment: the ``smartnoise`` extra is installed on its own
(``pip install -e '.[smartnoise]'`` in a fresh environment), and the tests build that
environment themselves (tests/isolated.py, cached).

Each adapter runs SmartNoise as a data team does: a pandas table ``T`` with columns ``user``
(the private id), ``key`` and ``value`` (bounded by ``lower`` and ``upper`` in the metadata),
``snsql.from_df(df, metadata=..., privacy=Privacy(epsilon, delta))`` and
``reader.execute("SELECT key, COUNT(*) | SUM(value) | AVG(value) AS v FROM S.T GROUP BY
key")``.  The metadata sets ``max_ids`` (SmartNoise keeps at most that many rows per user,
by reservoir sampling, and scales the noise by it) and ``censor_dims`` (a group is released
only when its noisy count of users exceeds SmartNoise's threshold τ = max_ids·(1 −
ln(2δ/max_ids)/ε)).  Noise, clamping, sampling, censoring and the integer conversion of
counts are SmartNoise's (OpenDP 0.14 underneath).

**Claim**: ``reader.get_privacy_cost(query)`` — SmartNoise's odometer over the query's
mechanisms (AVG spends a SUM and a COUNT, censoring a key count), recorded with the
version.  **Relation**: add/remove one user with any number of rows (``row_privacy =
false``: the private id is the unit).

**Batched calls**: one ``execute`` computes the ``GROUP BY`` of ``copies`` disjoint copies of
the table (one group per copy and key).  The copies are independent with the law of the table
alone: the reservoir sampling is per user (copies share no user), each group's noise is a
fresh OpenDP draw whose scale depends on (ε, δ, bounds, ``max_ids``) only — never on the
number of groups — and censoring compares each group's own noisy count with a fixed τ.
A group SmartNoise does not release (censored) is −∞; an AVG over a noisy count of 0 (NaN or
±∞ in SmartNoise's output) is +∞, an atom of its own.  SmartNoise draws from OpenDP's secure
generator: ``seedable = False``.
"""

from __future__ import annotations

import math
from typing import ClassVar

from dpaudit.util import validation
from dpaudit.claims import ApproxDP, PureDP
from dpaudit.mechanisms.base import Parameter
from dpaudit.mechanisms.external.keyed import KeyedAdapter


def _flag(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


class SmartNoiseMechanism(KeyedAdapter):
    """One SmartNoise SQL ``GROUP BY key`` aggregate (see the module docstring)."""

    library = "snsql"
    #: the SQL aggregate
    aggregate: ClassVar[str] = "COUNT(*)"
    #: 1000: an execute costs ≈ 65 ms of parsing, rewriting and noise-scale search plus ≈ 0.6
    #: ms per copy of a small table (2 cores, benchmarks/RESULTS.md), so 1000 copies spend
    #: ~10 % of a call on the fixed part where 200 spent ~35 %
    copies = Parameter(1000, validation.positive_int,
                       "disjoint copies of the table per execute (groups per call / keys)")

    epsilon = Parameter(1.0, validation.positive, "Privacy(epsilon=...)")
    delta = Parameter(1e-6, validation.delta, "Privacy(delta=...)")
    max_ids = Parameter(1, validation.positive_int, "max_ids: rows kept per user")
    censor_dims = Parameter(True, _flag, "censor_dims: drop groups below the threshold "
                            "(SmartNoise's default: true)")
    lower = Parameter(0.0, validation.number, "the value column's lower bound")
    upper = Parameter(1.0, validation.number, "the value column's upper bound")

    @property
    def wraps(self) -> str:  # type: ignore[override]
        censored = "censored" if self.params["censor_dims"] else "uncensored"
        return f"snsql PrivateReader.execute(SELECT key, {self.aggregate} ... GROUP BY key), {censored}"

    def value_bounds(self):
        return float(self.params["lower"]), float(self.params["upper"])

    def contribution_bounds(self):
        m = int(self.params["max_ids"])
        return m, m  # max_ids bounds a user's rows, across and within groups

    def selection_crowd(self) -> int:
        """Censored: the users one key needs so that one more puts its expected noisy count
        at SmartNoise's threshold τ = max_ids·(1 − ln(2δ/max_ids)/ε) (its own formula)."""
        if not self.params["censor_dims"]:
            return 0
        m, eps, delta = (int(self.params["max_ids"]), float(self.params["epsilon"]),
                         float(self.params["delta"]))
        tau = m * (1 - math.log(2 * delta / m) / eps)
        return max(1, math.ceil(tau / m) - 1)

    def check_parameters(self) -> None:
        if not self.params["lower"] < self.params["upper"]:
            raise ValueError(f"{self.name}: lower must be < upper")
        try:
            self.claim()
        except Exception as exc:
            raise ValueError(f"SmartNoise rejects the parameters: "
                             f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                             ) from None

    @property
    def sql(self) -> str:
        return f"SELECT key, {self.aggregate} AS v FROM S.T GROUP BY key"

    def metadata(self) -> dict:
        p = self.params
        return {"Db": {"S": {"T": {
            "max_ids": int(p["max_ids"]), "row_privacy": False,
            "censor_dims": bool(p["censor_dims"]),
            "user": {"type": "int", "private_id": True}, "key": {"type": "int"},
            "value": {"type": "float", "lower": float(p["lower"]), "upper": float(p["upper"])},
        }}}}

    def reader(self, rows):
        import pandas as pd

        snsql = self.lib
        df = pd.DataFrame(list(rows), columns=["user", "key", "value"]).astype(
            {"user": "int64", "key": "int64", "value": "float64"})
        return snsql.from_df(df, metadata=self.metadata(),
                             privacy=snsql.Privacy(epsilon=float(self.params["epsilon"]),
                                                   delta=float(self.params["delta"])))

    def claim(self):
        eps, delta = self.reader([(0, 0, 0.0)]).get_privacy_cost(self.sql)
        eps, delta = float(eps), float(delta)
        return ApproxDP(epsilon=eps, delta=delta) if delta > 0 else PureDP(epsilon=eps)

    def call(self, rows, k):
        result = self.reader(rows).execute(self.sql)
        out = {}
        for key, value in result[1:]:
            value = float(value) if value is not None else math.nan
            out[int(key)] = value if math.isfinite(value) else math.inf
        return out


class SmartNoiseCount(SmartNoiseMechanism):
    """SmartNoise SQL ``COUNT(*) GROUP BY key`` (an integer: SmartNoise converts the noisy
    count to int and clamps negative counts to 0)."""

    name = "smartnoise-count"
    aggregate = "COUNT(*)"


class SmartNoiseSum(SmartNoiseMechanism):
    """SmartNoise SQL ``SUM(value) GROUP BY key`` of values clamped to [lower, upper]."""

    name = "smartnoise-sum"
    aggregate = "SUM(value)"


class SmartNoiseAvg(SmartNoiseMechanism):
    """SmartNoise SQL ``AVG(value) GROUP BY key`` (its noisy SUM over its noisy COUNT)."""

    name = "smartnoise-avg"
    aggregate = "AVG(value)"
    worst_case_proposal = "extreme-value-small-partition"


MECHANISMS = (SmartNoiseCount, SmartNoiseSum, SmartNoiseAvg)
