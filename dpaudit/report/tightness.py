"""A two-sided confidence interval for the ε a certificate measured, from its own counts.

A certificate's number ε_LB is the lower end of an interval; :func:`epsilon_interval` adds the
upper end computed from the same counts, so that two runs' numbers can be compared with what
their own sampling noise explains (:mod:`dpaudit.report.diff`).

**What the interval covers.**  A ``dp`` certificate names its certifying event S (the kept
event with the largest bound) and its counts: k_num of n_num draws of the numerator side and
k_den of n_den of the denominator side fell in S, each bound at the certificate's
``per_bound_significance`` s.  The quantity is the event's privacy loss at δ,

    ε_S(δ) = ln((P_num(S) − δ) / P_den(S)),  clipped below at 0,

which is ≤ the pair's true ε(δ).  With one-sided Clopper–Pearson bounds at s
(:mod:`dpaudit.stats.intervals`):

    lower = ln((LCB(k_num) − δ) / UCB(k_den))   (= the certified ε_LB of that event)
    upper = ln((UCB(k_num) − δ) / LCB(k_den))   (∞ when k_den = 0; 0 when UCB(k_num) ≤ δ)

The certificate's lower bounds over all its kept events hold jointly at its confidence
(Bonferroni over 2m bounds at s each); the matching upper bounds are another 2m bounds at s,
so every kept event's interval — hence the certifying event's, whichever it is — holds
with probability ≥ 1 − 4m·s = 1 − 2(1 − per-certificate confidence), and all intervals of a
suite file jointly with probability ≥ 1 − 2(1 − the suite's confidence).  The selection
split chose the events; its data enters no bound, so the counts are independent of the
choice.

For an ``rdp`` record the quantity is max(D_α(Bern P_num ‖ Bern P_den), the reverse) of the
certifying event; Rényi divergence is jointly quasi-convex (van Erven & Harremoës 2014,
Thm. 13), so its maximum over the box [LCB, UCB]² of the two probabilities is at a corner, and
the upper end is the largest of the four corners' values.  Only the black-box curve
certificate of an rdp record carries its events' counts, so its interval is the black-box
one even where the white-box bound is larger.

**What it does not cover.**  ε_S is a property of the *selected* event: a different seed can
select another event with a different ε_S even when the mechanism is unchanged (for the
shipped mechanisms the selected events sit where ε_S is flat, so this is small; it is why the
diff calls a change significant only when the two intervals do not overlap at all).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpaudit.results.records import CertificateRecord
from dpaudit.stats.epsilon import binary_renyi
from dpaudit.stats.intervals import clopper_pearson_lower, clopper_pearson_upper


@dataclass(frozen=True)
class EpsilonInterval:
    """[lower, upper] for the certifying event's ε (see the module docstring); ``source`` is
    ``"black-box"`` or ``"white-box"``: which certificate of the record attains its bound."""

    lower: float
    upper: float
    source: str

    def overlaps(self, other: "EpsilonInterval") -> bool:
        return self.lower <= other.upper and other.lower <= self.upper


def _counts(cert: dict) -> tuple[int, int, int, int, float] | None:
    try:
        return (int(cert["k_numerator"]), int(cert["n_numerator"]), int(cert["k_denominator"]),
                int(cert["n_denominator"]), float(cert["per_bound_significance"]))
    except (KeyError, TypeError, ValueError):
        return None


def _dp_interval(cert: dict, delta: float) -> tuple[float, float] | None:
    counts = _counts(cert)
    if counts is None:
        return None
    k_num, n_num, k_den, n_den, s = counts
    lo_num = float(clopper_pearson_lower(k_num, n_num, s))
    hi_num = float(clopper_pearson_upper(k_num, n_num, s))
    lo_den = float(clopper_pearson_lower(k_den, n_den, s))
    hi_den = float(clopper_pearson_upper(k_den, n_den, s))
    lower = math.log((lo_num - delta) / hi_den) if lo_num > delta else 0.0
    if hi_num <= delta:
        upper = 0.0
    elif lo_den <= 0.0:
        upper = math.inf
    else:
        upper = math.log((hi_num - delta) / lo_den)
    return max(lower, 0.0), max(upper, 0.0)


def _rdp_interval(cert: dict, alpha: float) -> tuple[float, float] | None:
    curve = cert.get("curve_certificate") or {}
    event = next((c for c in curve.get("candidates") or [] if c.get("event") == cert.get("event")),
                 None)
    if event is None:
        return None
    counts = _counts({**event, "per_bound_significance": curve.get("per_bound_significance")})
    if counts is None:
        return None
    k_num, n_num, k_den, n_den, s = counts
    ps = (float(clopper_pearson_lower(k_num, n_num, s)),
          float(clopper_pearson_upper(k_num, n_num, s)))
    qs = (float(clopper_pearson_lower(k_den, n_den, s)),
          float(clopper_pearson_upper(k_den, n_den, s)))
    upper = max(max(binary_renyi(p, q, alpha), binary_renyi(q, p, alpha))
                for p in ps for q in qs)
    return float(cert.get("divergence") or 0.0), upper


def epsilon_interval(record: CertificateRecord) -> EpsilonInterval | None:
    """The two-sided interval of a record's certifying event (module docstring), or None for
    an errored record or one whose certificate does not carry its counts."""
    if record.verdict == "error" or record.certificate is None:
        return None
    if record.notion == "rdp":
        found = _rdp_interval(record.certificate, float(record.alpha))
        return None if found is None else EpsilonInterval(*found, source="black-box")
    black = record.epsilon_lower_bound
    white = record.white_box_epsilon_lower_bound
    use_white = (record.white_box_certificate is not None and white is not None
                 and black is not None and white > black)
    cert = record.white_box_certificate if use_white else record.certificate
    found = _dp_interval(cert, float(record.delta or 0.0))
    return (None if found is None else
            EpsilonInterval(*found, source="white-box" if use_white else "black-box"))


__all__ = ["EpsilonInterval", "epsilon_interval"]
