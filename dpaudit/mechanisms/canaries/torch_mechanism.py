"""A user's Opacus training as something a suite, the API and the pytest fixture can audit.

:class:`OpacusTrainingMechanism` is the hand-over of :mod:`.torch_common` — ``build(dataset)``,
``train(model, optimizer, loader)`` and the training data — written as a
:class:`~dpaudit.mechanisms.base.Mechanism` subclass, so that every route names it the way it
names any user code (``mechanism = "my_training.py:DigitsTraining"`` with ``kind = "canary"``,
``audit_mechanism(DigitsTraining, kind="canary")``).  A subclass implements three methods::

    class DigitsTraining(OpacusTrainingMechanism):
        def dataset(self):            # the training data (a map-style torch Dataset)
            ...
        def build(self, dataset):     # model, optimizer, DataLoader over `dataset`, make_private
            ...
            return model, optimizer, loader, privacy_engine
        def train(self, model, optimizer, loader):   # the training loop
            ...

and may declare parameters (:class:`~dpaudit.mechanisms.parameters.Parameter`: a noise
multiplier, a batch size …) that a suite's ``params`` and ``sweep`` set, read in those methods
through ``self.params``.

**What it is audited by.**  Only canaries (:class:`~.source.CanaryRuns`): one training costs
seconds to minutes, so the pair audit's 10⁴–10⁶ runs per side are out of reach; ``sample`` and
``worst_case_pairs`` raise a one-line error saying so.  Its options: ``canary = "gradient"``
(white-box Dirac gradient canaries, :mod:`.torch_gradient`; default) or ``"input"``
(black-box mislabelled examples, :mod:`.torch_input`), and ``view = "all"`` (every iterate;
default) or ``"final"`` (gradient canaries only: the trained weights).

**Its claim** is what the training's own accountant reports after the run:
``privacy_engine.get_epsilon(δ)`` of the engine ``build`` returned
(:class:`~dpaudit.claims.get_epsilon.GetEpsilonClaim`) — unless the audit states one for it
(a suite row's ``claim = { … }``, the API's ``claim=``: :mod:`dpaudit.mechanisms.stated_claim`).  Before any training runs nothing is known, so
:meth:`claim` is a :class:`GetEpsilonClaim` whose every ε is a one-line error saying that.
"""

from __future__ import annotations

import abc

from dpaudit.claims.get_epsilon import GetEpsilonClaim, GetEpsilonError
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.canaries.certify import CanaryError
from dpaudit.mechanisms.canaries.source import CanaryRuns, CanarySource, canary_only_reason
from dpaudit.mechanisms.canaries.torch_common import OpacusTraining

CANARIES = ("gradient", "input")


class OpacusTrainingMechanism(CanaryRuns, Mechanism):
    """A user's Opacus training (module docstring)."""

    name = "opacus-training"
    family = "canaries"
    canary_options = {"canary": CANARIES, "view": ("all", "final")}
    canary_only = True

    @abc.abstractmethod
    def dataset(self):
        """The training data: a map-style ``torch.utils.data.Dataset``."""

    @abc.abstractmethod
    def build(self, dataset) -> tuple:
        """``(model, optimizer, data_loader, privacy_engine)`` for ``dataset``, after
        ``PrivacyEngine.make_private`` on a loader over ``dataset``."""

    @abc.abstractmethod
    def train(self, model, optimizer, data_loader) -> None:
        """The training loop."""

    def training(self) -> OpacusTraining:
        """The hand-over (:class:`~.torch_common.OpacusTraining`) of this training."""
        return OpacusTraining(self.build, self.train, self.dataset())

    def canary_source(self, plan, options: dict) -> CanarySource:
        from dpaudit.mechanisms.canaries.torch_gradient import GradientCanaryRun
        from dpaudit.mechanisms.canaries.torch_input import InputCanaryRun

        canary, view = options.get("canary", "gradient"), options.get("view", "all")
        if canary == "input" and view != "all":
            raise CanaryError("view = \"final\" is for gradient canaries; input canaries "
                              "always read the trained model alone")
        run = (GradientCanaryRun(plan, self.training(), view) if canary == "gradient"
               else InputCanaryRun(plan, self.training()))
        label = type(self).__qualname__

        def accountant():
            engine = run.engine
            accounting = getattr(getattr(engine, "accountant", None), "mechanism", None)
            what = accounting() if callable(accounting) else type(engine).__name__
            return GetEpsilonClaim(engine.get_epsilon,
                                   source=f"{label}'s privacy engine ({what} accountant)")

        seen = ("every iterate" if view == "all" else "the trained weights")
        return CanarySource(run, accountant,
                            f"white-box Dirac gradient canaries, {seen}" if canary == "gradient"
                            else "black-box mislabelled input canaries, the trained model")

    # -- the pair audit's contract: out of reach for a training ------------------------------
    def claim(self) -> GetEpsilonClaim:
        """The claim before any training ran: its accountant has no history yet."""
        name = type(self).__qualname__

        def before_training(delta):
            raise GetEpsilonError(f"known only after a training; {canary_only_reason(name)}")

        return GetEpsilonClaim(before_training, source=f"{name}'s privacy engine")

    def worst_case_pairs(self):
        raise ValueError(canary_only_reason(type(self).__qualname__))

    def sample(self, dataset, n, rng):
        raise ValueError(canary_only_reason(type(self).__qualname__))


__all__ = ["CANARIES", "OpacusTrainingMechanism"]
