"""The words every renderer uses for a test's looks and a certificate's power (issue 24), so
that the CLI, summary.md, report.html, junit.xml, pytest and ``dpaudit check`` say the same
thing.

* :func:`stop_text` — how a test spent its budget: ``"stopped at the power target after
  31,264 of 1,000,000 samples per side (3 looks)"``; :func:`looks_text` the same in a
  progress line's few words, ``"[31,264/1,000,000 samples: power target]"``, for a test that
  stopped before its budget;
* :func:`underpowered_text` — why a consistent certificate is *underpowered*: its test could
  only detect ε ≥ d, above the target ``power`` × claim, so a leak up to d passes at least half
  the time.
"""

from __future__ import annotations

import math

from dpaudit.results.provenance import BudgetUse
from dpaudit.util.numbers import format_number as fmt

#: a stop reason → (the words after "stopped", the few words of a progress line)
_REASONS = {"violation": ("at a certified violation", "violation"),
            "power": ("at the power target", "power target"),
            "budget": ("at the budget", "budget"),
            "fixed": ("at the budget (fixed n)", "fixed n")}


def _reason(stopped: str, short: bool) -> str:
    words = _REASONS.get(stopped)
    return str(stopped) if words is None else words[1 if short else 0]


def stop_text(sequential: BudgetUse | None) -> str | None:
    """How a test spent its budget, in words; None without one."""
    if sequential is None:
        return None
    looks = "1 look" if sequential.rounds == 1 else f"{sequential.rounds} looks"
    return (f"stopped {_reason(sequential.stopped, False)} after {sequential.samples:,} of "
            f"{sequential.budget:,} samples per side ({looks})")


def looks_text(sequential: BudgetUse | None) -> str:
    """`` [31,264/1,000,000 samples: power target]`` for a test that stopped before its budget;
    "" for a fixed-n test, one that spent its budget, or none."""
    if sequential is None or sequential.stopped in ("fixed", "budget"):
        return ""
    return (f" [{sequential.samples:,}/{sequential.budget:,} samples: "
            f"{_reason(sequential.stopped, True)}]")


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


__all__ = ["looks_text", "stop_text", "underpowered_text"]
