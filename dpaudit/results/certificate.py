"""One certificate: a claim at one δ (or one Rényi order α) against typed evidence, judged.

A :class:`Certificate` holds the claimed ε there and the evidence of every method that bounds
the same quantity — the pair audit's black-box then white-box two-sample certificates, the
exact-curve check's bracket, a canary audit's bounds — each an
:class:`~dpaudit.evidence.base.Evidence`, and the pair's exact value where it is known (reported,
never a gate).  Its judgement is computed once, from those numbers (:func:`judge_certificate`):

* ``verdict``: ``violation`` iff some evidence rejects the claim
  (:meth:`~dpaudit.evidence.base.Evidence.rejects`: by default its bound exceeds the claimed
  ε c; a canary audit's test of the claim's whole trade-off curve, with its
  :meth:`~dpaudit.evidence.base.Evidence.rejection_reason` when the bound does not), else
  ``consistent``; ``error`` when the test that should have produced it failed.
* ``tightness`` = b/c when 0 < c < ∞.
* ``exact_verdict``: ``violation`` iff the exact ε e satisfies e > c(1 + :data:`EXACT_SLACK`) +
  10⁻¹² (None without an exact value): the claim is false for this pair even where no sample
  size in reach can certify it.
* ``black_box_share`` = black-box bound / white-box bound when the white-box one is positive
  and finite: what a user without the density keeps of the Neyman–Pearson test's certificate.
* ``detectable_epsilon``: the power, the smallest of the evidence's
  :meth:`~dpaudit.evidence.base.Evidence.detectable_epsilon` (the verdict is a violation when
  any of them certifies one), for ε(δ) certificates.

The flat columns of the records view — ``epsilon_lower_bound`` (the first, primary evidence's
bound) and ``white_box_epsilon_lower_bound`` (the white-box evidence's) — are properties read
off the evidence.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from dpaudit.evidence.base import Evidence, largest_bound, smallest_detectable
from dpaudit.evidence.vocabulary import CertificateNotion, Verdict
from dpaudit.util.jsonable import to_jsonable
from dpaudit.util.shared_json import SharedValues

#: relative slack before an exact ε counts as above the claim (the exact profiles' stated
#: numerical tolerances are far below it)
EXACT_SLACK = 1e-6


@dataclass(frozen=True)
class CertificateJudgement:
    """The verdict of one certificate and the numbers derived with it (module docstring)."""

    verdict: Verdict
    tightness: float | None
    exact_verdict: Verdict | None
    black_box_share: float | None


def _white_box(evidence) -> Evidence | None:
    return next((e for e in evidence if e.role == "white-box"), None)


def _primary(evidence) -> Evidence | None:
    return next((e for e in evidence if e.role != "white-box"), None)


def judge_certificate(evidence: tuple[Evidence, ...], exact_epsilon: float | None,
                      claimed_epsilon: float) -> CertificateJudgement:
    """Judge one certificate (the rules of the module docstring).

    Raises:
      ValueError: no evidence.
    """
    bound = largest_bound(evidence)
    if bound is None:
        raise ValueError("a measured certificate needs at least one piece of evidence")
    claimed = claimed_epsilon
    tightness = bound / claimed if math.isfinite(claimed) and claimed > 0 else None
    exact_verdict = (None if exact_epsilon is None else
                     Verdict.VIOLATION if exact_epsilon > claimed * (1 + EXACT_SLACK) + 1e-12
                     else Verdict.CONSISTENT)
    black, white = _primary(evidence), _white_box(evidence)
    share = (black.bound / white.bound if black is not None and white is not None
             and white.bound and math.isfinite(white.bound) and white.bound > 0 else None)
    return CertificateJudgement(
        verdict=(Verdict.VIOLATION if bound > claimed
                 or any(e.rejects(claimed) for e in evidence) else Verdict.CONSISTENT),
        tightness=tightness, exact_verdict=exact_verdict, black_box_share=share)


class EvidenceReadings:
    """The numbers every renderer reads off a certificate's evidence — for a
    :class:`Certificate` and for its flat record (:class:`dpaudit.results.records.
    CertificateRecord`) alike.  Needs ``evidence``, ``verdict``, ``notion`` and
    ``claimed_epsilon`` attributes."""

    @property
    def black_box(self) -> Evidence | None:
        """The primary evidence (the pair audit's black-box certificate)."""
        return _primary(self.evidence)

    @property
    def white_box(self) -> Evidence | None:
        """The white-box (likelihood-ratio) evidence, None without one."""
        return _white_box(self.evidence)

    @property
    def power_applies(self) -> bool:
        """Whether a power is defined for this certificate: some of its evidence has one (or
        it has none yet, an error's).  A certificate of the grey-box replay alone has no power
        and is never underpowered."""
        return not self.evidence or any(e.has_power for e in self.evidence)

    @property
    def epsilon_lower_bound(self) -> float | None:
        """The primary evidence's bound (None when there is none, as on most errors)."""
        primary = self.black_box
        return None if primary is None else primary.bound

    @property
    def white_box_epsilon_lower_bound(self) -> float | None:
        white = self.white_box
        return None if white is None else white.bound

    @property
    def bound(self) -> float | None:
        """The bound the verdict compares with the claim: the largest of the evidence's."""
        return largest_bound(self.evidence)

    @property
    def rejection_reason(self) -> str | None:
        """Why a violation's claim is rejected although no bound exceeds it (the first
        evidence's :meth:`~dpaudit.evidence.base.Evidence.rejection_reason`); else None."""
        if self.verdict != Verdict.VIOLATION or self.claimed_epsilon is None:
            return None
        return next((r for r in (e.rejection_reason(self.claimed_epsilon)
                                 for e in self.evidence) if r), None)

    @property
    def value_epsilon_lower_bound(self) -> float | None:
        """The bound of what reads only the output *values*: the largest
        :attr:`~dpaudit.evidence.base.Evidence.value_bound` (valid at the certificate's
        confidence: those events are members of the same simultaneous family)."""
        values = [e.value_bound for e in self.evidence]
        return max(values) if values and self.epsilon_lower_bound is not None else None

    @property
    def floating_point(self) -> bool:
        """Whether this is a *floating-point* violation: a violation that only an event on the
        outputs' float64 representation certifies — the value-level bound is within the
        claim.  The doubles leak, not the real-valued mechanism; it fails a run like any
        violation."""
        value = self.value_epsilon_lower_bound
        return (self.verdict == Verdict.VIOLATION and self.notion == CertificateNotion.DP
                and any(e.floating_point for e in self.evidence)
                and value is not None and self.claimed_epsilon is not None
                and value <= self.claimed_epsilon
                # another finding (the grey-box replay's) rejects the claim on its own
                and not any(not e.floating_point and e.rejects(self.claimed_epsilon)
                            for e in self.evidence))

    @property
    def floating_point_finding(self) -> str | None:
        """The certifying representation event in words, for a floating-point violation."""
        if not self.floating_point:
            return None
        for e in self.evidence:
            if e.floating_point:
                return e.floating_point_finding or getattr(e, "event", None)
        return None



@dataclass(frozen=True)
class Certificate(EvidenceReadings):
    """One δ or one α of a test, judged (see the module docstring).

    Attributes:
      notion: ``dp`` (ε at ``delta``) or ``rdp`` (Rényi ε at ``alpha``).
      delta, alpha: where the certificate is read (the other is None).
      claimed_epsilon: the claim's ε(δ), or its Rényi ε(α); None when the mechanism could not
        be built.
      evidence: what bounds the quantity, primary first (the pair audit: black-box, then
        white-box); on an error, what was measured before it (kept, never judged).
      exact_epsilon: the pair's exact ε(δ) (or D_α) where a closed form is known.
      verdict, exact_verdict, black_box_share, tightness, detectable_epsilon: the judgement.
      underpowered: a consistent ε(δ) certificate whose detectable ε exceeds the point's power
        target × its claim (:meth:`dpaudit.stats.sequential.StoppingRule.is_underpowered`);
        None where that does not apply.
    """

    notion: CertificateNotion
    delta: float | None
    alpha: float | None
    claimed_epsilon: float | None
    evidence: tuple[Evidence, ...]
    exact_epsilon: float | None
    verdict: Verdict
    exact_verdict: Verdict | None = None
    black_box_share: float | None = None
    tightness: float | None = None
    detectable_epsilon: float | None = None
    underpowered: bool | None = None

    @classmethod
    def measured(cls, *, notion: str, delta: float | None, alpha: float | None,
                 claimed_epsilon: float, evidence: tuple[Evidence, ...],
                 exact_epsilon: float | None = None) -> "Certificate":
        """The certificate of measured evidence, judged.

        Raises:
          ValueError: an unknown notion, or no evidence.
        """
        notion = CertificateNotion(notion)
        evidence = tuple(evidence)
        judged = judge_certificate(evidence, exact_epsilon, claimed_epsilon)
        detectable = (smallest_detectable(evidence, claimed_epsilon)
                      if notion is CertificateNotion.DP else None)
        return cls(notion=notion, delta=delta, alpha=alpha, claimed_epsilon=claimed_epsilon,
                   evidence=evidence, exact_epsilon=exact_epsilon, verdict=judged.verdict,
                   exact_verdict=judged.exact_verdict, black_box_share=judged.black_box_share,
                   tightness=judged.tightness, detectable_epsilon=detectable)

    @classmethod
    def failed(cls, *, notion: str, delta: float | None, alpha: float | None,
               claimed_epsilon: float | None = None, evidence: tuple[Evidence, ...] = (),
               exact_epsilon: float | None = None) -> "Certificate":
        """The certificate of a test that raised: verdict ``error``, no derived values; what
        was measured before the failure is kept as evidence, never judged."""
        return cls(notion=CertificateNotion(notion), delta=delta, alpha=alpha,
                   claimed_epsilon=claimed_epsilon, evidence=tuple(evidence),
                   exact_epsilon=exact_epsilon, verdict=Verdict.ERROR)

    def as_error(self) -> "Certificate":
        """This certificate turned into an error (a vacuous point): no derived values."""
        return dataclasses.replace(self, verdict=Verdict.ERROR, tightness=None,
                                   exact_verdict=None, black_box_share=None,
                                   detectable_epsilon=None)

    # -- JSON ---------------------------------------------------------------------------------

    def to_json(self, shared: SharedValues | None = None) -> dict:
        """The certificate as plain JSON (∞ as ``"inf"``); :meth:`from_json` inverts it.

        What the verdict rules derive from the stored numbers alone — ``exact_verdict``,
        ``tightness``, ``black_box_share`` (:func:`judge_certificate`) — is not written: it is
        derived again, by the same rule, when read."""
        out = {"notion": self.notion, "delta": self.delta, "alpha": self.alpha,
               "claimed_epsilon": self.claimed_epsilon, "verdict": self.verdict,
               "exact_epsilon": self.exact_epsilon,
               "detectable_epsilon": self.detectable_epsilon,
               "underpowered": self.underpowered}
        out = to_jsonable({k: (str(v) if isinstance(v, (Verdict, CertificateNotion)) else v)
                           for k, v in out.items()})
        out["evidence"] = [e.to_json(shared) for e in self.evidence]
        return out

    @classmethod
    def from_json(cls, data: dict, shared: SharedValues | None = None) -> "Certificate":
        """The inverse of :meth:`to_json`.

        Raises:
          KeyError, TypeError, ValueError: a malformed document.
        """
        from dpaudit.results.evidence_kinds import evidence_from_json

        def number(name):
            value = data.get(name)
            return None if value is None else float(value)

        evidence = tuple(evidence_from_json(e, shared) for e in data["evidence"])
        verdict, claimed = Verdict(data["verdict"]), number("claimed_epsilon")
        exact = number("exact_epsilon")
        derived = {}
        if verdict != Verdict.ERROR:  # an error has no derived values
            judged = judge_certificate(evidence, exact, claimed)
            derived = dict(exact_verdict=judged.exact_verdict, tightness=judged.tightness,
                           black_box_share=judged.black_box_share)
        return cls(notion=CertificateNotion(data["notion"]), delta=number("delta"),
                   alpha=number("alpha"), claimed_epsilon=claimed, evidence=evidence,
                   exact_epsilon=exact, verdict=verdict,
                   detectable_epsilon=number("detectable_epsilon"),
                   underpowered=data.get("underpowered"), **derived)


__all__ = ["EXACT_SLACK", "Certificate", "CertificateJudgement", "EvidenceReadings",
           "judge_certificate"]
