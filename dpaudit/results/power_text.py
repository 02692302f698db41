"""The words every renderer uses for a test's looks and a certificate's power (issue 24), so
that the CLI, summary.md, report.html, junit.xml, pytest and ``dpaudit check`` say the same
thing.

* :func:`stop_text` — how a test spent its budget: ``"stopped at the power target after
  31,264 of 1,000,000 samples per side (3 looks)"``;
* :func:`underpowered_text` — why a consistent certificate is *underpowered*: its test could
  only detect ε ≥ d, above the target ``power`` × claim, so a leak up to d passes at least half
  the time.
"""

from __future__ import annotations

import math

from dpaudit.util.numbers import format_number as fmt

#: a stop reason → the words after "stopped"
_REASONS = {"violation": "at a certified violation", "power": "at the power target",
            "budget": "at the budget", "fixed": "at the budget (fixed n)"}


def stop_text(sequential: dict | None) -> str | None:
    """How a test spent its budget, in words; None without a ``sequential`` record."""
    if not sequential:
        return None
    reason = _REASONS.get(sequential.get("stopped"), str(sequential.get("stopped")))
    rounds = int(sequential.get("rounds", 1))
    looks = "1 look" if rounds == 1 else f"{rounds} looks"
    return (f"stopped {reason} after {int(sequential['samples']):,} of "
            f"{int(sequential['budget']):,} samples per side ({looks})")


def underpowered_text(claimed: float | None, detectable: float | None,
                      power: float | None) -> str:
    """Why a certificate is underpowered, in one sentence."""
    target = None if power is None or claimed is None else power * claimed
    if detectable is None or not math.isfinite(detectable):
        could = ("no event of this test could certify a violation at these samples (its "
                 "detectable ε is ∞)")
    else:
        could = (f"this test could only detect ε ≥ {fmt(detectable)}, so a leak up to that "
                 f"size passes at least half the time")
    aim = "" if target is None else f"; the power target is {fmt(target)} (= {power:g} × claim)"
    return f"underpowered: {could}{aim}"


__all__ = ["stop_text", "underpowered_text"]
