"""Evidence: what an audit procedure found about a claim at one δ (or one Rényi order), typed.

Every kind of audit — the two-sample pair audit (black- and white-box), the exact-curve check,
the canary audit, … — ends in evidence of one of these types, and every renderer, the verdict
and the power read it through this contract only (no string keys):

* :attr:`Evidence.bound` — the number a verdict compares with the claimed ε: for sampled
  evidence a lower bound on the true ε(δ) (or on D_α) that holds with the test's confidence;
  for computed evidence (an exact or numerically bracketed curve) the lower end of the value's
  bracket, which holds without sampling error.  The certificate is a **violation** iff some
  piece of its evidence :meth:`Evidence.rejects` the claim: by default, its bound exceeds the
  claimed ε.
* :meth:`Evidence.rejects` / :meth:`Evidence.rejection_reason` — a kind that tests the claim's
  whole privacy curve (the canary audit's trade-off tests) may reject a claim whose ε at this
  δ its bound does not exceed; it then says why, in words, and every report prints the reason
  beside the bound.
* :attr:`Evidence.certified` — True for a bound that holds with a stated confidence (it spends
  a share of the suite's Bonferroni family), False for a computed one.
* :attr:`Evidence.role` — a short name of what produced it, shown beside the number
  (``black-box``, ``white-box``, ``exact-curve``, ``canary``).
* :attr:`Evidence.value_bound`, :attr:`Evidence.floating_point`,
  :attr:`Evidence.floating_point_finding` — the split between a leak of the real-valued
  mechanism and one of its float64 representation (default: no representation was read).
* :meth:`Evidence.detectable_epsilon` — the power: the smallest true ε that the same test
  would certify above ``claimed`` with probability ≥ 1/2; None where no power is defined
  (computed evidence, Rényi bounds).
* :meth:`Evidence.interval` — a two-sided interval for what it measured, or None.
* :meth:`Evidence.describe` — the one line every report prints about it (explain, junit,
  summary.md, report.html).
* :meth:`Evidence.figure` — a figure of what it found, drawn by the evidence itself (a
  matplotlib figure that report.html inlines beside the certificate), or None (the default:
  the report's curve and power figures say it all).
* :meth:`Evidence.to_json` / :meth:`Evidence.from_json` — its JSON form, ``{"kind": …, …}``,
  with bulky parts written once through a :class:`~dpaudit.util.shared_json.SharedValues`
  table when one is given; ``from_json(to_json(e)) == e``.

Evidence is immutable (frozen dataclasses).  A new kind is a subclass with its own ``kind``,
registered where results are read (:mod:`dpaudit.results.evidence_kinds`, or the
``dpaudit.evidence`` entry-point group for plug-ins).
"""

from __future__ import annotations

import abc
from typing import ClassVar

from dpaudit.util.shared_json import SharedValues


class Evidence(abc.ABC):
    """The contract in the module docstring."""

    #: the kind's name, written as ``"kind"`` in its JSON form
    kind: ClassVar[str] = ""
    #: whether :attr:`bound` holds with a stated confidence (sampled) rather than exactly
    certified: ClassVar[bool] = True
    #: whether a power is defined for it (a certificate whose evidence has none — the grey-box
    #: replay's — is never judged underpowered)
    has_power: ClassVar[bool] = True

    @property
    @abc.abstractmethod
    def bound(self) -> float:
        """The number the verdict compares with the claimed ε (see the module docstring)."""

    @property
    def role(self) -> str:
        """What produced the evidence, in a word or two (default: its kind)."""
        return self.kind

    @property
    def value_bound(self) -> float:
        """The bound of what reads only the output *values* (not their float64
        representation); equal to :attr:`bound` when no representation was read."""
        return self.bound

    @property
    def floating_point(self) -> bool:
        """Whether the certifying event reads the outputs' float64 representation."""
        return False

    @property
    def floating_point_finding(self) -> str | None:
        """The certifying representation event in words, when :attr:`floating_point`."""
        return None

    def rejects(self, claimed: float) -> bool:
        """Whether this evidence rejects a claim whose ε here is ``claimed`` (default: its
        bound exceeds it)."""
        return self.bound > claimed

    def rejection_reason(self, claimed: float) -> str | None:
        """Why :meth:`rejects` holds although the bound does not exceed ``claimed``, in
        words; None otherwise (the default: never)."""
        return None

    def detectable_epsilon(self, claimed: float | None) -> float | None:
        """The smallest true ε this test certifies above ``claimed`` with probability ≥ 1/2;
        None where no power is defined (or without a claim)."""
        return None

    def power_curve(self, claimed: float | None, true_epsilons):
        """The probability of certifying a violation of ``claimed`` at each true ε (a numpy
        array), or None where no power is defined."""
        return None

    def interval(self) -> tuple[float, float] | None:
        """A two-sided interval [lower, upper] for the quantity the evidence measured (for
        sampled evidence: the certifying event's value, from the same counts at the same
        significance; for computed evidence: its bracket), used to tell sampling noise from
        a real change between two runs (:mod:`dpaudit.report.tightness`); None where none is
        known."""
        return None

    @abc.abstractmethod
    def describe(self) -> str:
        """The one line every report prints about this evidence."""

    def figure(self):
        """A :class:`matplotlib.figure.Figure` of what the evidence found, which report.html
        inlines (captioned with :meth:`describe`), or None (the default).  Called only when
        matplotlib is installed; a figure that fails to draw costs that figure only."""
        return None

    @abc.abstractmethod
    def to_json(self, shared: SharedValues | None = None) -> dict:
        """The JSON form, ``{"kind": self.kind, …}``; bulky parts through ``shared``."""

    @classmethod
    @abc.abstractmethod
    def from_json(cls, data: dict, shared: SharedValues | None = None) -> "Evidence":
        """The inverse of :meth:`to_json`.

        Raises:
          KeyError, TypeError, ValueError: a malformed document.
        """


def largest_bound(evidence) -> float | None:
    """The largest :attr:`Evidence.bound` of ``evidence`` (an iterable), None when empty."""
    values = [e.bound for e in evidence]
    return max(values) if values else None


def smallest_detectable(evidence, claimed: float | None) -> float | None:
    """The power of a certificate whose verdict is a violation when *any* of its evidence
    certifies one: the smallest :meth:`Evidence.detectable_epsilon` (None when none has
    one)."""
    values = [v for v in (e.detectable_epsilon(claimed) for e in evidence) if v is not None]
    return min(values) if values else None


__all__ = ["Evidence", "largest_bound", "smallest_detectable"]
