"""What replays of many pairs found, as findings with a severity, and one report.

Each :class:`~dpaudit.replay.compare.PairReplay` is a fact about one coupled run of the code
on D and D′.  :func:`findings` turns the facts of every pair into findings of a few kinds
(:class:`Kind`), each with the pair that shows it best (its datasets included) and how many
pairs show it:

============================  =========  ===============================================
kind                          severity   when
============================  =========  ===============================================
``shift-exceeds-sensitivity``  violation  the runs made the same random calls, with equal
                                          arguments but for locations, and the release moved
                                          by more than the declared Δ (1e-9 relative and
                                          absolute tolerance, plus 4 ulps of the outputs):
                                          the noise is calibrated to a Δ the code does not
                                          respect
``nonfinite-release``          violation  every row is NaN or ±∞ on one side and none on the
                                          other (NaN slipping through clipping); warning
                                          when only some rows differ
``control-flow``               warning    the runs made different random calls, or drew a
                                          different number of values: data-dependent control
                                          flow (one noise draw per key found in the data …)
``data-dependent-scale``       warning    a noise scale (``scale``, ``sigma``, ``cov``) differs
                                          between the runs: noise calibrated from the data
``raises``                     warning    the code raises on one dataset of a pair it takes
``unseen-randomness``          warning    two runs on the same dataset differ: the code draws
                                          randomness the replay cannot hold fixed, so its
                                          other findings on that pair are not reliable
``data-dependent-argument``    note       other arguments differ (probabilities of an
                                          exponential mechanism: expected)
``largest-shift``              note       the largest shift that measures the query, when no
                                          sensitivity is declared to compare it with
============================  =========  ===============================================

A violation is as certain as the replay's coupling (no sampling error: the code did this on
these datasets); warnings are what a reviewer must look at, not proofs of a leak.
:class:`ReplayReport` holds the findings and says them in one line each.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

from dpaudit.replay.compare import PairReplay

#: relative and absolute tolerance of the shift against Δ
TOLERANCE = 1e-9


class Kind(enum.Enum):
    SHIFT = "shift-exceeds-sensitivity"
    NONFINITE = "nonfinite-release"
    CONTROL_FLOW = "control-flow"
    SCALE = "data-dependent-scale"
    RAISES = "raises"
    UNSEEN = "unseen-randomness"
    ARGUMENT = "data-dependent-argument"
    LARGEST_SHIFT = "largest-shift"


class Severity(enum.Enum):
    VIOLATION = "violation"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Finding:
    """One kind of difference the replays showed: its severity, the pair that shows it best
    (``example``), how many of the replayed pairs show it, and one line of text."""

    kind: Kind
    severity: Severity
    text: str
    example: PairReplay
    pairs: int = 1

    def describe(self) -> str:
        p = self.example.pair
        more = f"; {self.pairs} pair(s) show it" if self.pairs > 1 else ""
        return f"{self.text} (pair {p.name!r}: D = {shown(p.d0)}, D′ = {shown(p.d1)}{more})"

    def to_dict(self) -> dict:
        return {"kind": self.kind.value, "severity": self.severity.value, "text": self.text,
                "pairs": self.pairs, "example": self.example.to_dict(),
                "describe": self.describe()}


@dataclass(frozen=True)
class ReplayReport:
    """Every pair replayed and what they found.

    Attributes:
      replays: one per pair, in the order replayed.
      findings: the findings, violations first.
      sensitivity, norm: the declared Δ and its norm (None: none declared).
      skipped: pairs not replayed (not neighbours under the mechanism's relation), with why.
      out_of_time: "" or what was left unreplayed when the time budget ran out.
    """

    replays: tuple[PairReplay, ...]
    findings: tuple[Finding, ...]
    sensitivity: float | None
    norm: str
    skipped: tuple[str, ...] = field(default_factory=tuple)
    out_of_time: str = ""

    @property
    def verdict(self) -> str:
        """``"violation"`` when a finding is one, else ``"consistent"``."""
        return "violation" if any(f.severity is Severity.VIOLATION for f in self.findings) \
            else "consistent"

    def of(self, severity: Severity) -> list[Finding]:
        return [f for f in self.findings if f.severity is severity]

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "sensitivity": self.sensitivity, "norm": self.norm,
                "pairs": len(self.replays), "skipped": list(self.skipped),
                "out_of_time": self.out_of_time,
                "findings": [f.to_dict() for f in self.findings]}


def _ratio(shift: float, sensitivity: float) -> float:
    return shift / sensitivity if sensitivity > 0 else math.inf


def findings(replays, sensitivity: float | None, norm: str) -> list[Finding]:
    """The findings of ``replays`` (see the module docstring), violations first."""
    replays = list(replays)
    found: list[Finding] = []

    def add(kind, severity, show, text_of, key=None):
        hits = [r for r in replays if show(r)]
        if hits:
            best = max(hits, key=key) if key else hits[0]
            found.append(Finding(kind, severity, text_of(best), best, len(hits)))

    sym = {"l1": "₁", "l2": "₂", "linf": "∞"}[norm]
    if sensitivity is not None:
        limit = sensitivity * (1 + TOLERANCE) + TOLERANCE
        add(Kind.SHIFT, Severity.VIOLATION,
            lambda r: r.shift_is_query and r.shift is not None
            and r.shift > limit + r.rounding,
            lambda r: (f"with the noise held fixed the release moves by ‖Δ‖{sym} = "
                       f"{r.shift:.6g} > Δ = {sensitivity:g} (ratio "
                       f"{_ratio(r.shift, sensitivity):.4g}): the noise is calibrated to a "
                       f"sensitivity the code does not respect"),
            key=lambda r: r.shift)
    else:
        add(Kind.LARGEST_SHIFT, Severity.NOTE,
            lambda r: r.shift_is_query and r.shift is not None and r.shift > 0,
            lambda r: (f"with the noise held fixed the release moves by at most ‖Δ‖{sym} = "
                       f"{r.shift:.6g} (no sensitivity declared to compare it with)"),
            key=lambda r: r.shift)
    add(Kind.NONFINITE, Severity.VIOLATION,
        lambda r: sorted(r.nonfinite) == [0, r.rows] and r.rows > 0 and not r.unseen,
        lambda r: (f"the release is NaN or ±∞ on {'D′' if r.nonfinite[1] else 'D'} in every "
                   f"run and finite on the other: a non-finite value passes through (a NaN "
                   f"or ∞ record that clipping does not catch, a sum that overflows), and "
                   f"the output tells the datasets apart"))
    add(Kind.NONFINITE, Severity.WARNING,
        lambda r: r.nonfinite[0] != r.nonfinite[1] and sorted(r.nonfinite) != [0, r.rows],
        lambda r: (f"NaN or ±∞ releases in {r.nonfinite[0]} of {r.rows} runs on D and "
                   f"{r.nonfinite[1]} on D′ with the same randomness"))
    add(Kind.CONTROL_FLOW, Severity.WARNING,
        lambda r: not r.error and (r.diverged_at is not None or r.variates[0] != r.variates[1]),
        lambda r: (f"data-dependent control flow: {r.calls[0]} random call(s) drawing "
                   f"{r.variates[0]} value(s) on D, {r.calls[1]} drawing {r.variates[1]} on D′"
                   + (f"; first different call: {_site(r.sites[0])} on D, "
                      f"{_site(r.sites[1])} on D′ (call {r.diverged_at + 1})"
                      if r.diverged_at is not None else "")
                   + " — e.g. noise drawn once per key found in the data"),
        key=lambda r: abs(r.variates[0] - r.variates[1]))
    add(Kind.SCALE, Severity.WARNING,
        lambda r: any(c.role == "scale" for c in r.changes),
        lambda r: ("the noise scale depends on the data: "
                   + "; ".join(c.describe() for c in r.changes if c.role == "scale")[:300]),
        key=lambda r: max(_relative(c) for c in r.changes if c.role == "scale"))

    add(Kind.RAISES, Severity.WARNING, lambda r: bool(r.error),
        lambda r: f"the code raises {r.error} (an exception is an observable output)")
    add(Kind.UNSEEN, Severity.WARNING, lambda r: bool(r.unseen),
        lambda r: (f"two runs on the same dataset differ ({r.unseen}): the code draws "
                   f"randomness the replay cannot hold fixed (its own generator, another "
                   f"library, secrets/os.urandom), so its findings on this pair are not "
                   f"reliable"))
    add(Kind.ARGUMENT, Severity.NOTE,
        lambda r: any(c.role not in ("scale", "location") for c in r.changes),
        lambda r: ("arguments depend on the data (expected for an exponential-mechanism "
                   "choice): " + "; ".join(c.describe() for c in r.changes
                                            if c.role not in ("scale", "location"))[:300]))
    order = {Severity.VIOLATION: 0, Severity.WARNING: 1, Severity.NOTE: 2}
    return sorted(found, key=lambda f: order[f.severity])


def _relative(change) -> float:
    """How much a numeric argument changed, relative to its size (0 for other values)."""
    a, b = change.d0, change.d1
    if isinstance(a, float) and isinstance(b, float) and math.isfinite(a) and math.isfinite(b):
        return abs(a - b) / max(abs(a), abs(b), 1e-300)
    return 0.0


def shown(dataset, limit: int = 8) -> str:
    """A dataset on one line: its first ``limit`` records, then how many there are."""
    if isinstance(dataset, (list, tuple)) and len(dataset) > limit:
        return "[" + ", ".join(repr(r) for r in dataset[:limit]) + f", … ({len(dataset)} records)]"
    text = repr(dataset)
    return text if len(text) <= 200 else text[:197] + "..."


def _site(site) -> str:
    if site is None:
        return "none (the run had ended)"
    source, method = site
    return method if source == "rng" else f"{source}.{method}"


__all__ = ["Finding", "Kind", "ReplayReport", "Severity", "TOLERANCE", "findings", "shown"]
