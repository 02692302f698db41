"""A test's rounds: certify, look, stop when the verdict is decided (issue 24).

:func:`certify_in_rounds` runs a test's black-box curve (and its white-box one) at each look
of its :class:`~dpaudit.stats.sequential.Schedule` — a complete fixed-n certificate per look,
at that look's share of the test's significance (:mod:`dpaudit.stats.sequential`, whose
theorem makes the certificate of the look it stops at valid at the test's confidence) — and
after each look applies the **stopping rules**, in this order:

1. ``"violation"``: some certificate of the look certifies a violation (the larger of the
   black- and white-box bounds above the claim, as the verdict reads it,
   :func:`~dpaudit.results.certificate.judge_certificate`);
2. ``"budget"``: the look was the last (``samples``, now the budget, is spent);
3. ``"power"`` (audit points expecting ``consistent`` only: a known bug is looked for until
   it is found or the budget is spent): every ε(δ) certificate with a finite claim is *powered* — its detectable ε
   (:func:`~dpaudit.evidence.base.smallest_detectable`, the smallest true ε the same
   look certifies half the time) is ≤ ``power`` × its claim.  A test with no such
   certificate (Rényi only, every claim infinite) or no power target stops only on 1 and 2.

A fixed-n test has one look and stops with ``"fixed"``.  Between looks,
:func:`predicted_size` proposes the next look's size from the detectable ε of this one (it may
shorten the schedule's step, never lengthen it; no bound depends on it).  What a test did is
its :class:`Rounds`, whose :meth:`Rounds.to_json` is the test's ``sequential`` record.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpaudit.evidence.base import largest_bound, smallest_detectable
from dpaudit.stats.sequential import StoppingRule

#: why a test stopped
STOP_REASONS = ("violation", "power", "budget", "fixed")


@dataclass(frozen=True)
class Rounds:
    """The curves of the look a test stopped at, and how it got there.

    Attributes:
      black, white: the black-box (and white-box, or None) curves of the last look run.
      stopped: one of :data:`STOP_REASONS`.
      looks: the sizes of the looks run (outputs per side); rounds: how many ran.
      drawn: outputs per side drawn by the black-box curves of every round run.
      budget: the test's budget (``samples``).
    """

    black: object
    white: object
    stopped: str
    looks: tuple[int, ...]
    rounds: int
    drawn: int
    budget: int

    @property
    def samples(self) -> int:
        """Outputs per side of the reported look."""
        return self.looks[-1]

    def to_json(self) -> dict:
        return {"stopped": self.stopped, "rounds": self.rounds, "looks": list(self.looks),
                "samples": self.samples, "drawn": self.drawn, "budget": self.budget}


def detectables(black, white, claims) -> list[tuple[float, float | None]]:
    """(claimed ε, detectable ε) of every ε(δ) certificate of a look with a finite claim
    (:func:`~dpaudit.evidence.base.smallest_detectable`: the smaller of the black- and
    white-box tests')."""
    out = []
    for i, claim in enumerate(claims):
        if claim is None or not math.isfinite(claim):
            continue
        out.append((claim, smallest_detectable(
            [black.points[i]] + ([] if white is None else [white.points[i]]), claim)))
    return out


def stop_reason(black, white, claims, renyi_claims, rule: StoppingRule, *, last: bool,
                powers=None, stop_on_power: bool = True) -> str | None:
    """The rule that stops a test after a look (module docstring), None to go on.

    Args:
      black, white: the look's curves (``white`` may be None).
      claims: the claimed ε at each δ of ``black.points``; renyi_claims: at each α of
        ``black.renyi`` (None where the claim gives none).
      rule: the test's stopping rule.
      last: whether the look was the budget.
      powers: :func:`detectables` of the look, when already computed.
      stop_on_power: whether reaching the power target stops the test (False for an audit
        point that expects a violation: a known bug is looked for until it is found or the
        budget is spent — its leak may be smaller than the power target).
    """
    for i, claim in enumerate(claims):
        bound = largest_bound([black.points[i]] + ([] if white is None
                                                   else [white.points[i]]))
        if claim is not None and bound > claim:
            return "violation"
    for i, claim in enumerate(renyi_claims):
        bound = largest_bound([black.renyi[i]] + ([] if white is None else [white.renyi[i]]))
        if claim is not None and bound > claim:
            return "violation"
    if last:
        return "fixed" if not rule.sequential else "budget"
    if rule.power is None or not stop_on_power:
        return None
    powers = detectables(black, white, claims) if powers is None else powers
    if powers and all(rule.is_underpowered("consistent", "dp", c, d) is False
                      for c, d in powers):
        return "power"
    return None


def predicted_size(size: int, powers, rule: StoppingRule) -> int | None:
    """The outputs per side a look needs for every ε(δ) certificate to reach the power
    target, extrapolated from a look of ``size`` whose :func:`detectables` are ``powers``;
    None when that cannot be predicted (no target, no finite claim, a detectable ε of ∞).

    The excess of the detectable ε over the claim shrinks like n^(−1/2) (the width of the
    Clopper–Pearson bounds), so a certificate with detectable d at n needs
    n · ((d − c)/(power·c − c))²; the largest over the certificates, padded by 60 % (the
    next look selects new events, which detect less than this look's best about half the
    time).  Only a size: no bound depends on it."""
    if rule.power is None or not powers:
        return None
    needed = size
    for claim, detectable in powers:
        if detectable is None or not math.isfinite(detectable) or claim <= 0:
            return None
        excess, allowed = detectable - claim, (rule.power - 1.0) * claim
        if excess > allowed:
            needed = max(needed, size * (excess / allowed) ** 2)
    return math.ceil(1.6 * needed)


def certify_in_rounds(estimate, *, samples: int, seed: int, confidence: float,
                      white_box: bool, claims, renyi_claims, rule: StoppingRule,
                      stop_on_power: bool = True) -> Rounds:
    """Run a test's looks until a stopping rule fires (the schedule and the validity of the
    certificate it stops at: :mod:`dpaudit.stats.sequential`).

    Args:
      estimate: ``estimate(samples=…, seed=…, confidence=…, white=bool)`` → the privacy
        curve lower bound of one side (black-box, or white-box when ``white``), a fixed-n
        certificate (:func:`~dpaudit.distinguish.lower_bound.estimate_privacy_curve_lower_bound`
        with the test's other arguments bound).
      samples: the budget (outputs per side); seed: the test's seed (white-box: seed + 1).
      confidence: the test's confidence 1 − α; each look runs at 1 − α_r.
      white_box: also certify the white-box curve at every look.
      claims, renyi_claims, rule, stop_on_power: as for :func:`stop_reason`.
    """
    schedule = rule.schedule
    alpha = 1.0 - confidence
    size, spent, drawn, looks = schedule.first_look(samples), 0.0, 0, []
    while True:
        r = len(looks)
        looks.append(size)
        level_alpha = schedule.spend(alpha, size, samples, spent)
        level = confidence if size >= samples and r == 0 else 1.0 - level_alpha  # fixed n: bit for bit
        black = estimate(samples=size, seed=schedule.seed(seed, r, size, samples),
                         confidence=level, white=False)
        white = (estimate(samples=size, seed=schedule.seed(seed + 1, r, size, samples),
                          confidence=level, white=True) if white_box else None)
        spent += level_alpha
        drawn += size
        powers = detectables(black, white, claims) if rule.power is not None else []
        reason = stop_reason(black, white, claims, renyi_claims, rule, last=size >= samples,
                             powers=powers, stop_on_power=stop_on_power)
        if reason is not None:
            return Rounds(black=black, white=white, stopped=reason, looks=tuple(looks),
                          rounds=len(looks), drawn=drawn, budget=int(samples))
        size = schedule.next_look(size, samples, predicted_size(size, powers, rule))


__all__ = ["Rounds", "STOP_REASONS", "certify_in_rounds", "detectables", "predicted_size",
           "stop_reason"]
