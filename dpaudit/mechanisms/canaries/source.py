"""What a mechanism hands a canary audit: the capability, and the source of scores it builds.

A mechanism that can be audited with canaries in one run (``kind = "canary"``,
:mod:`dpaudit.audit.procedures.canary`) declares the :class:`CanaryRuns` capability, as every
capability of :mod:`dpaudit.mechanisms.capabilities` is declared — by inheriting the mixin, so
that the procedure asks ``isinstance(mechanism, CanaryRuns)`` and never branches on names:

* ``canary_source(plan, options)`` — the :class:`CanarySource` of a planned audit: ``run(index,
  bits) -> scores`` (the training of run ``index`` with canary i included iff ``bits[i]``, one
  score per canary, higher = "looks included"), the claim that training reports when it is
  not the mechanism's own (a user's accountant, known only after a run), and a description;
* ``canary_options`` — the options of a suite row's ``options = { … }`` this mechanism's runs
  take besides the plan's (name → the values allowed; e.g. ``view``, ``canary``), so that a
  misspelt or misplaced option refuses the suite file before anything runs;
* ``canary_only`` — the mechanism is a training that nothing but a canary audit can run (the
  pair audit's 10⁴–10⁶ runs per side, ``dpaudit check``'s sampling steps): every other route
  refuses it with :func:`canary_only_reason`;
* ``independent_canary_scores`` — whether the canaries' scores are independent given their
  bits (simulated Dirac canaries, each with its own noise), which the ``gdp-threshold``
  statistic requires (:class:`~dpaudit.mechanisms.canaries.design.CanaryPlan`).

The built-in sources: the ``dpsgd`` family's one-run mode
(:class:`~dpaudit.mechanisms.canaries.simulated.DPSGDCanaryRun`, the ABLQ mechanisms) and a
user's Opacus training (:class:`~dpaudit.mechanisms.canaries.torch_mechanism.
OpacusTrainingMechanism`: white-box gradient or black-box input canaries).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

from dpaudit.claims.base import Claim


@dataclass(frozen=True)
class CanarySource:
    """A planned canary audit's source of scores (module docstring).

    Attributes:
      run: ``run(index, bits) -> scores`` (one float per canary).
      claim: the claim the training reports, or a function returning it that is called after
        the first run (an accountant knows its history only then); None: the mechanism's own
        :meth:`~dpaudit.mechanisms.base.Mechanism.claim`.
      description: what the canaries are and what is observed, in a few words.
    """

    run: Callable[[int, Any], Any]
    claim: Claim | Callable[[], Claim] | None = None
    description: str = ""


class CanaryRuns(abc.ABC):
    """A mechanism a canary audit can run (module docstring)."""

    #: option name → the values it may take (a tuple), beyond the plan's own options
    canary_options: ClassVar[dict[str, tuple]] = {}
    #: the canaries' scores are independent given their bits (needed by gdp-threshold)
    independent_canary_scores: ClassVar[bool] = False
    #: nothing but a canary audit can run it (a training: no sampler for the pair audit)
    canary_only: ClassVar[bool] = False

    @abc.abstractmethod
    def canary_source(self, plan, options: dict) -> CanarySource:
        """The source of scores for ``plan``
        (:class:`~dpaudit.mechanisms.canaries.design.CanaryPlan`) with ``options`` (only keys
        of :attr:`canary_options`, checked by the procedure)."""


def canary_only_reason(name: str) -> str:
    """The one line that refuses a :attr:`CanaryRuns.canary_only` mechanism named ``name``
    on a route that must sample it."""
    return (f"{name} is a training, audited by canaries in one run only: give its audit "
            f"kind = \"canary\" (a suite row, audit_mechanism(…, kind=\"canary\"), the pytest "
            f"fixture; docs/canaries.md); the pair audit and dpaudit check's sampling steps "
            f"would need 10⁴–10⁶ trainings per side")


def check_canary_options(cls: type, options: dict) -> None:
    """Raise ``ValueError`` naming the key when ``options`` holds a key ``cls`` (a
    :class:`CanaryRuns` class) does not take, or a value it does not allow."""
    from dpaudit.util.hints import did_you_mean

    allowed = getattr(cls, "canary_options", {})
    for key, value in options.items():
        if key not in allowed:
            known = sorted(allowed)
            raise ValueError(f"options: {key!r} is not an option of {cls.__name__}'s canary "
                             f"runs{did_you_mean(key, known)} (it takes "
                             f"{', '.join(known) if known else 'none'})")
        if value not in allowed[key]:
            raise ValueError(f"options: {key} must be one of "
                             f"{', '.join(map(repr, allowed[key]))}, got {value!r}")


__all__ = ["CanaryRuns", "CanarySource", "canary_only_reason", "check_canary_options"]
