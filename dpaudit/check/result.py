"""What ``dpaudit check`` found: one :class:`StepResult` per step, one :class:`CheckResult`.

A step's verdict is one of :data:`VERDICTS`, the words ``dpaudit run`` uses for its
certificates (:data:`dpaudit.results.records.VERDICTS`) plus ``skipped``:

* ``consistent`` — the step found no evidence against what the mechanism states (its claim,
  sensitivity, noise law or ε) at this budget — not a proof;
* ``violation`` — it found evidence that the implementation contradicts a statement (a claim
  that does not convert, a pair moving the query by more than Δ, noise outside its interval,
  a certified ε_LB above the claim);
* ``skipped`` — the mechanism lacks what the step needs (the reason is given);
* ``error`` — the step could not run (the message says why).

A step may also carry *warnings*: statements that do not change its verdict but limit what it
means (e.g. the black-box step's power is far above the claim).  The whole check is
``error`` if a step errored, else ``violation`` if one found one, else ``error`` if every step
that tests the implementation (sensitivity, calibration, black-box) was skipped — only the
claim was looked at, which is never a pass (:attr:`CheckResult.vacuous`) — else
``consistent``;
:attr:`CheckResult.exit_status` follows ``dpaudit run``: 0, 1, 2 respectively.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dpaudit.util.jsonable import to_jsonable

CONSISTENT, VIOLATION, SKIPPED, ERROR = "consistent", "violation", "skipped", "error"
VERDICTS = (CONSISTENT, VIOLATION, SKIPPED, ERROR)
STEPS = ("claim", "sensitivity", "calibration", "exact", "canary", "black-box")


@dataclass
class StepResult:
    """One step: its verdict, a one-line summary, detail lines, warnings and machine-readable
    data."""

    step: str
    verdict: str
    summary: str
    lines: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"step": self.step, "verdict": self.verdict, "summary": self.summary,
                "lines": list(self.lines), "warnings": list(self.warnings),
                "data": to_jsonable(self.data), "seconds": round(self.seconds, 4)}


@dataclass
class CheckResult:
    """Everything one ``dpaudit check`` found."""

    spec: str
    mechanism: str
    params: dict
    samples: int
    seed: int
    steps: list[StepResult] = field(default_factory=list)
    seconds: float = 0.0
    #: the parameters ``--params`` left at the mechanism's defaults, name → value
    defaulted_parameters: dict = field(default_factory=dict)

    @property
    def vacuous(self) -> bool:
        """Every step that samples or queries the implementation was skipped (the claim and
        the exact-curve steps read the claim and the mechanism's own curves, not the code
        that runs)."""
        tested = [s for s in self.steps if s.step not in ("claim", "exact")]
        return bool(tested) and all(s.verdict == SKIPPED for s in tested)

    @property
    def verdict(self) -> str:
        verdicts = {s.verdict for s in self.steps}
        if ERROR in verdicts:
            return ERROR
        if VIOLATION in verdicts:
            return VIOLATION
        return ERROR if self.vacuous else CONSISTENT

    @property
    def exit_status(self) -> int:
        return {CONSISTENT: 0, VIOLATION: 1, ERROR: 2}[self.verdict]

    @property
    def warnings(self) -> list[str]:
        return [f"{s.step}: {w}" for s in self.steps for w in s.warnings]

    def step(self, name: str) -> StepResult:
        return next(s for s in self.steps if s.step == name)

    def to_dict(self) -> dict:
        from dpaudit.version import __version__

        return {"dpaudit_version": __version__, "spec": self.spec, "mechanism": self.mechanism,
                "parameters": to_jsonable(self.params),
                "defaulted_parameters": to_jsonable(self.defaulted_parameters),
                "samples": self.samples,
                "seed": self.seed, "verdict": self.verdict, "exit_status": self.exit_status,
                "vacuous": self.vacuous,
                "warnings": self.warnings,
                "seconds": round(self.seconds, 3), "steps": [s.to_dict() for s in self.steps]}


def format_step(index: int, step: StepResult) -> str:
    """The printed block of one step: a verdict line, then indented details and warnings."""
    head = f"[{index}/{len(STEPS)}] {step.step:<12} {step.verdict:<10} {step.summary}"
    return "\n".join([head] + [f"      {line}" for line in step.lines]
                     + [f"      WARN: {w}" for w in step.warnings])


__all__ = ["CheckResult", "StepResult", "format_step", "STEPS", "VERDICTS", "CONSISTENT",
           "VIOLATION", "SKIPPED", "ERROR"]
