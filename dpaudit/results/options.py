"""How a run was asked to run: :class:`RunOptions`, built once by each face (the CLI, the Python
API, the pytest plugin) and passed down unchanged.

The options that can change a number — ``samples``, ``profile``, ``seed``, ``only``,
``fixed_n``, ``power`` (a sequential test stops at its power target) — are the
run's fingerprint for ``--resume`` (:mod:`dpaudit.audit.journal`) and are written into
results.json's ``options``; ``memory_limit`` decides only whether a task runs, never what it
finds.  Where a run executes (workers, a Dask cluster) is not an option of the run but its
backend (:mod:`dpaudit.backends`): no number depends on it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from dpaudit.util import validation
from dpaudit.util.time_limit import check_time_limit
from dpaudit.util.sizes import parse_memory_size
from dpaudit.stats.sequential import StoppingRule

#: the sample-size profiles: a suite's samples are multiplied by the profile's scale
#: (never below :data:`dpaudit.util.validation.MIN_SAMPLES`; see :func:`dpaudit.audit.plan.resolve_samples`)
PROFILES = {"quick": 0.1, "default": 1.0, "deep": 10.0}


@dataclass(frozen=True)
class RunOptions:
    """What a face asks of a run.  Valid by construction: every value is checked here, once.

    Attributes:
      samples: per-side samples replacing every audit's own (``--samples``), or None.
      profile: a key of :data:`PROFILES` scaling every audit's samples.
      seed: replaces every suite's seed (``--seed``), or None.
      only: ``--only`` glob patterns (:mod:`dpaudit.audit.select`); empty: every audit.
      memory_limit: bytes, replacing every suite's ``memory_limit`` (``--memory-limit``), or
        None; a size such as ``"16GB"`` is parsed (:func:`dpaudit.util.sizes.parse_memory_size`).
      time_limit: seconds, replacing every suite's ``time_limit`` (``--time-limit``), or None:
        a test still running then ends as an ``error`` (:mod:`dpaudit.util.time_limit`).
      fixed_n: every test draws its whole budget in one look (``--fixed-n``), replacing the
        suites' ``sequential`` (:mod:`dpaudit.stats.sequential`).
      power: the power target replacing every suite's ``power`` (``--power``), or None.
      require_power: make every underpowered certificate fail (``--require-power``).

    Raises:
      ValueError: a value that is not what the attribute says (the message names it).
    """

    samples: int | None = None
    profile: str = "default"
    seed: int | None = None
    only: tuple[str, ...] = ()
    memory_limit: int | None = None
    time_limit: float | None = None
    fixed_n: bool = False
    power: float | None = None
    require_power: bool = False

    def __post_init__(self):
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r}; choose one of "
                             f"{', '.join(PROFILES)}")
        if self.samples is not None:
            object.__setattr__(self, "samples", validation.samples("samples", self.samples))
        if self.seed is not None:
            object.__setattr__(self, "seed", validation.seed("seed", self.seed))
        if isinstance(self.only, str) or not all(isinstance(p, str) for p in self.only):
            raise ValueError(f"only: expected a sequence of glob patterns, got {self.only!r}")
        object.__setattr__(self, "only", tuple(self.only))
        if self.memory_limit is not None:
            try:
                object.__setattr__(self, "memory_limit", parse_memory_size(self.memory_limit))
            except ValueError as exc:
                raise ValueError(f"memory_limit: {exc}") from None
        if self.time_limit is not None:
            object.__setattr__(self, "time_limit", check_time_limit(self.time_limit))
        for name in ("fixed_n", "require_power"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}: expected true or false, got {getattr(self, name)!r}")
        if self.power is not None:
            StoppingRule(power=self.power)  # raises ValueError naming power
            object.__setattr__(self, "power", float(self.power))

    def stopping(self, rule: StoppingRule) -> StoppingRule:
        """``rule`` (a suite's or an audit's) with this run's overrides."""
        changes = {}
        if self.fixed_n:
            changes["sequential"] = False
        if self.power is not None:
            changes["power"] = self.power
        if self.require_power:
            changes["require_power"] = True
        return dataclasses.replace(rule, **changes) if changes else rule

    @property
    def scale(self) -> float:
        """The profile's factor on every audit's samples."""
        return PROFILES[self.profile]


__all__ = ["PROFILES", "RunOptions"]
