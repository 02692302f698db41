"""Evidence of the grey-box replay: what the code did on D and on D′ with its randomness held
fixed (:mod:`dpaudit.replay`; Cebere et al., "Privacy in Theory, Bugs in Practice", PETS 2026,
record-and-replay).

:class:`ReplayEvidence` is computed, not sampled (``certified`` False, no share of the suite's
Bonferroni family, no power): the replay ran the code on each pair with the same random draws,
and a *violation* finding — the release moves by more than the declared sensitivity Δ with the
noise held fixed, or is NaN/±∞ on one dataset only — is a fact about the code on those
datasets, not an estimate.  It bounds no ε: :attr:`bound` is 0, and the evidence rejects the
claim through :meth:`rejects` (with the finding as :meth:`rejection_reason`) when it holds a
violation and its audit's ``replay`` gate is ``"fail"``; under ``"warn"`` the finding is a
warning on its test instead (the gate is read where the evidence is made and recorded in it).
A replay that could not run (code that raises on every pair, no pair to replay, an error of
the replay itself) is ``status = "not-run"`` with the reason: said, never a violation, never a
crash.
"""

from __future__ import annotations

from dataclasses import dataclass
from dpaudit.evidence.base import Evidence
from dpaudit.util.shared_json import SharedValues

#: the replay's outcomes
VIOLATION, CONSISTENT, NOT_RUN = "violation", "consistent", "not-run"
#: how a replay violation gates its audit (the ``replay`` key of every route)
FAIL, WARN = "fail", "warn"


@dataclass(frozen=True)
class ReplayEvidence(Evidence):
    """The replay of one audit point's pairs (see the module docstring).

    Attributes:
      status: ``violation``, ``consistent`` or ``not-run``.
      gate: ``fail`` or ``warn`` (the audit's ``replay`` key).
      pairs: pairs replayed; skipped: pairs the mechanism's relation refused.
      violations: each violation finding in words, with its pair and datasets.
      warnings: each warning finding in words (control flow, data-dependent scale, …).
      note: why the replay did not run (``not-run``), or that its time budget ran out.
    """

    kind = "replay"
    certified = False
    has_power = False  # the replay is not a statistical test: no power is defined

    status: str
    gate: str
    pairs: int
    skipped: int = 0
    violations: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    note: str = ""

    @property
    def bound(self) -> float:
        """0: the replay bounds no ε (it rejects a claim through :meth:`rejects`)."""
        return 0.0

    @property
    def role(self) -> str:
        return "replay"

    def rejects(self, claimed: float) -> bool:
        """A violation finding rejects any claim when the gate is ``fail``."""
        return self.status == VIOLATION and self.gate == FAIL

    def rejection_reason(self, claimed: float) -> str | None:
        if not self.rejects(claimed):
            return None
        return f"grey-box replay: {self.violations[0]}"

    def describe(self) -> str:
        if self.status == NOT_RUN:
            return f"grey-box replay not run: {self.note}"
        head = f"grey-box replay of {self.pairs} pair(s) with the randomness held fixed: "
        if self.status == VIOLATION:
            gated = "" if self.gate == FAIL else ' (replay = "warn": not a failure)'
            return head + "; ".join(self.violations) + gated
        return head + "no violation" + (f", {len(self.warnings)} warning(s)"
                                        if self.warnings else "")

    def to_json(self, shared: SharedValues | None = None) -> dict:
        return {"kind": self.kind, "status": self.status, "gate": self.gate,
                "pairs": self.pairs, "skipped": self.skipped,
                "violations": list(self.violations), "warnings": list(self.warnings),
                "note": self.note}

    @classmethod
    def from_json(cls, data: dict, shared: SharedValues | None = None) -> "ReplayEvidence":
        if data.get("status") not in (VIOLATION, CONSISTENT, NOT_RUN):
            raise ValueError(f"replay evidence: unknown status {data.get('status')!r}")
        return cls(status=data["status"], gate=str(data["gate"]), pairs=int(data["pairs"]),
                   skipped=int(data.get("skipped", 0)),
                   violations=tuple(data.get("violations") or ()),
                   warnings=tuple(data.get("warnings") or ()), note=str(data.get("note", "")))


__all__ = ["CONSISTENT", "FAIL", "NOT_RUN", "VIOLATION", "WARN", "ReplayEvidence"]
