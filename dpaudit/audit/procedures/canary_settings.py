"""The settings of a canary audit: a suite row's ``options = { … }`` table, checked.

``kind = "canary"`` (:mod:`dpaudit.audit.procedures.canary`) reads its plan from the row's
``options`` (the Python API's ``options={…}``); every key is optional:

==================  =========================================================================
key                 meaning
==================  =========================================================================
``canaries``        m, canaries per run (each included by a fair coin; default 1000, ≥ 2)
``runs``            R, the most runs (trainings) the audit may use (default 1: one run)
``looks``           after how many runs it looks, a list ending at R (default 1, 2, 4, …, R);
                    it stops at the first look that certifies a violation
``statistics``      the statistics tried (default ``["one-run-fdp", "one-run-eps-delta"]``;
                    ``"gdp-threshold"`` only where the scores are independent given the bits)
``two_sided``       guess at both ends of the scores (default true) or "in" guesses only
anything else       an option of the mechanism's canary runs
                    (:attr:`~dpaudit.mechanisms.canaries.source.CanaryRuns.canary_options`:
                    ``canary = "gradient" | "input"``, ``view = "all" | "final"`` for an Opacus
                    training); checked against the mechanism while the suite is planned
==================  =========================================================================

:func:`canary_settings` raises ``ValueError`` naming the key (plan_suite turns it into a
SuiteError naming the file and the audit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dpaudit.mechanisms.canaries.design import DEFAULT_STATISTICS, CanaryPlan, Statistic

#: m when the options do not say
DEFAULT_CANARIES = 1000
#: the plan's own keys (the rest go to the mechanism's canary runs)
PLAN_KEYS = ("canaries", "runs", "looks", "statistics", "two_sided")


@dataclass(frozen=True)
class CanarySettings:
    """A canary audit's settings (module docstring): the plan's values and the source's
    options as sorted (key, value) pairs."""

    canaries: int = DEFAULT_CANARIES
    runs: int = 1
    looks: tuple | None = None
    statistics: tuple = tuple(s.value for s in DEFAULT_STATISTICS)
    two_sided: bool = True
    source_options: tuple = field(default=())

    def plan(self, delta: float, *, confidence: float, seed: int,
             independent_scores: bool) -> CanaryPlan:
        """The :class:`~dpaudit.mechanisms.canaries.design.CanaryPlan` at ``delta``, the
        test's confidence and seed (raises ValueError naming the key)."""
        return CanaryPlan(canaries=self.canaries, delta=delta, runs=self.runs,
                          looks=self.looks, statistics=self.statistics,
                          two_sided=self.two_sided, confidence=confidence,
                          independent_scores=independent_scores, seed=seed)


def _statistics(value) -> tuple:
    names = [s.value for s in Statistic]
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not value:
        raise ValueError(f"options: statistics must be a non-empty list of "
                         f"{', '.join(map(repr, names))}, got {value!r}")
    for name in value:
        if name not in names:
            from dpaudit.util.hints import did_you_mean

            raise ValueError(f"options: statistics: unknown statistic {name!r}"
                             f"{did_you_mean(name, names)} (known: {', '.join(names)})")
    if len(set(value)) != len(value):
        raise ValueError(f"options: statistics lists one twice: {list(value)!r}")
    return tuple(value)


def canary_settings(options: dict) -> CanarySettings:
    """The settings of ``options`` (module docstring), the plan's values checked (the
    source's options are checked against the mechanism by the procedure).

    Raises:
      ValueError: a value that is not what its key says (the message names the key).
    """
    values: dict[str, Any] = {}
    if "canaries" in options:
        values["canaries"] = _count("canaries", options["canaries"], 2)
    if "runs" in options:
        values["runs"] = _count("runs", options["runs"], 1)
    if "looks" in options:
        looks = options["looks"]
        if isinstance(looks, (str, bytes)) or not isinstance(looks, (list, tuple)):
            raise ValueError(f"options: looks must be a list of run counts, got {looks!r}")
        values["looks"] = tuple(_count("looks", x, 1) for x in looks)
    if "statistics" in options:
        values["statistics"] = _statistics(options["statistics"])
    if "two_sided" in options:
        if not isinstance(options["two_sided"], bool):
            raise ValueError(f"options: two_sided must be true or false, got "
                             f"{options['two_sided']!r}")
        values["two_sided"] = options["two_sided"]
    source = tuple(sorted((k, v) for k, v in options.items() if k not in PLAN_KEYS))
    settings = CanarySettings(**values, source_options=source)
    try:  # the plan's own checks (looks ending at runs, …), at any δ
        settings.plan(0.0, confidence=0.95, seed=0, independent_scores=True)
    except ValueError as exc:
        raise ValueError(f"options: {exc}") from None
    return settings


def _count(name: str, value, minimum: int) -> int:
    from dpaudit.util import validation

    try:
        return validation.positive_int(name, value, minimum)
    except ValueError as exc:
        raise ValueError(f"options: {exc}") from None


__all__ = ["DEFAULT_CANARIES", "PLAN_KEYS", "CanarySettings", "canary_settings"]
