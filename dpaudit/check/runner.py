"""``dpaudit check``: four quick checks of one mechanism against its own claim.

1. **claim** — ``claim()`` builds and converts: ε(δ) at δ ∈ {0, 1e-6, 1e-3} is a number ≥ 0
   or ∞ (FAIL if it raises or gives NaN / a negative value).
2. **sensitivity** (grey-box) — the largest ‖query(D) − query(D′)‖/Δ over neighbouring pairs
   found by :func:`dpaudit.check.greybox.search_sensitivity` (FAIL above 1 + 1e-9; SKIP without
   ``query()`` or a sensitivity).
3. **calibration** — the sampler's real noise against the values the claim states
   (:func:`dpaudit.check.calibration.check_calibration`, confidence 0.999; SKIP without
   ``noise()``).
4. **black-box** — :func:`dpaudit.estimate_epsilon_lower_bound` on every worst-case pair,
   Bonferroni over the pairs at family-wise confidence 0.95, at δ = 0 for claims finite there,
   else at the claim's own δ (FAIL if ε_LB > claimed ε(δ)).

Each step's verdict is PASS, FAIL, SKIP (with the reason) or ERROR (the step could not run:
the message says why).  :attr:`CheckResult.exit_status` follows ``dpaudit run``: 0 when every
step passed or was skipped, 1 when one FAILed, 2 when one was an ERROR.  Step k draws from
``SeedSequence([seed, k])``, so a result depends on the seed only.
"""

from __future__ import annotations

import inspect
import math
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from dpaudit.check.calibration import DEFAULT_CONFIDENCE, CalibrationError, check_calibration
from dpaudit.check.greybox import (NORM_SYMBOLS, SensitivityError, applicable, format_pair,
                                   search_sensitivity, short)
from dpaudit.claims import ApproxDP, iter_claims
from dpaudit.jsonable import to_jsonable
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.capabilities import CalibratedNoise
from dpaudit.mechanisms.references import CodeReferenceError, load_reference

PASS, FAIL, SKIP, ERROR = "PASS", "FAIL", "SKIP", "ERROR"
STEPS = ("claim", "sensitivity", "calibration", "black-box")
CLAIM_DELTAS = (0.0, 1e-6, 1e-3)
DEFAULT_SAMPLES = 200_000
DEFAULT_CONFIDENCE_BLACKBOX = 0.95
#: grey-box search budget (see :func:`dpaudit.check.greybox.search_sensitivity`)
GREYBOX_DEFAULTS = dict(random_pairs=2000, hypothesis_examples=300, optimiser_starts=16,
                        optimiser_evaluations=300)


class CheckSetupError(ValueError):
    """The mechanism could not be loaded or built (bad spec, import error, bad parameters)."""


@dataclass
class StepResult:
    """One step: its verdict, a one-line summary, detail lines and machine-readable data."""

    step: str
    verdict: str
    summary: str
    lines: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"step": self.step, "verdict": self.verdict, "summary": self.summary,
                "lines": list(self.lines), "data": to_jsonable(self.data),
                "seconds": round(self.seconds, 4)}


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

    @property
    def verdict(self) -> str:
        verdicts = {s.verdict for s in self.steps}
        if ERROR in verdicts:
            return ERROR
        return FAIL if FAIL in verdicts else PASS

    @property
    def exit_status(self) -> int:
        return {PASS: 0, FAIL: 1, ERROR: 2}[self.verdict]

    def step(self, name: str) -> StepResult:
        return next(s for s in self.steps if s.step == name)

    def to_dict(self) -> dict:
        from dpaudit.version import __version__

        return {"dpaudit_version": __version__, "spec": self.spec, "mechanism": self.mechanism,
                "parameters": to_jsonable(self.params), "samples": self.samples,
                "seed": self.seed, "verdict": self.verdict, "exit_status": self.exit_status,
                "seconds": round(self.seconds, 3), "steps": [s.to_dict() for s in self.steps]}


def _g(x: float) -> str:
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.4g}"


# -- loading a mechanism -------------------------------------------------------------------------

def load_mechanism_class(spec: str):
    """``module:Class`` (``module`` dotted and importable from the current directory, or a path
    to a ``.py`` file), or the name of a registered mechanism (``dpaudit list``)."""
    if not isinstance(spec, str) or not spec.strip():
        raise CheckSetupError("expected a mechanism as module:Class (e.g. mymodule:MyMechanism) "
                              "or a registered mechanism name")
    spec = spec.strip()
    if ":" not in spec:
        from dpaudit.mechanisms.registry import get_mechanism_class, mechanism_names

        if spec in mechanism_names():
            return get_mechanism_class(spec)
        raise CheckSetupError(f"{spec!r} is neither module:Class (e.g. mymodule:MyMechanism, "
                              f"path/to/file.py:MyMechanism) nor a registered mechanism name "
                              f"(see `dpaudit list`)")
    try:
        obj = load_reference(spec)
    except CodeReferenceError as exc:
        raise CheckSetupError(str(exc)) from None
    if not inspect.isclass(obj):
        raise CheckSetupError(f"{spec!r} is not a class (got {type(obj).__name__}); point at "
                              f"the mechanism class")
    if not issubclass(obj, Mechanism):
        raise CheckSetupError(f"{spec!r} is not a mechanism: it is not a subclass of "
                              f"dpaudit.mechanisms.base.Mechanism (which needs sample, claim, "
                              f"worst_case_pairs)")
    return obj


def build_mechanism(cls, params: dict):
    """``cls(**params)``, with a clear message for parameters it rejects."""
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        signature = _signature(cls)
        raise CheckSetupError(f"bad parameters {params or '{}'} for {signature}: {exc}") from None
    except Exception as exc:  # noqa: BLE001
        raise CheckSetupError(f"{cls.__name__}(**{params}) raised {type(exc).__name__}: "
                              f"{exc}") from None


def _signature(cls) -> str:
    """``Name(a, b=1.0, …)`` without annotations."""
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return cls.__name__
    parts = [p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
             for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return f"{cls.__name__}({', '.join(parts)})"


def load_mechanism(spec: str, params: dict | None = None):
    return build_mechanism(load_mechanism_class(spec), dict(params or {}))


# -- the four steps ----------------------------------------------------------------------------

def _timed(step: str, fn: Callable[[], StepResult]) -> StepResult:
    t0 = time.perf_counter()
    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001 - a step that cannot run is an ERROR, not a crash
        where = traceback.extract_tb(exc.__traceback__)[-1]
        result = StepResult(step, ERROR, f"{type(exc).__name__}: {exc}",
                            [f"raised at {where.filename}:{where.lineno} ({where.name})"],
                            {"error": f"{type(exc).__name__}: {exc}"})
    result.seconds = time.perf_counter() - t0
    return result


def step_claim(mech) -> tuple[StepResult, Any]:
    try:
        claim = mech.claim()
        values = {d: float(claim.epsilon(d)) for d in CLAIM_DELTAS}
    except Exception as exc:  # noqa: BLE001 - the brief: a claim that raises FAILs
        return StepResult("claim", FAIL, f"claim() or its conversion raised "
                          f"{type(exc).__name__}: {exc}", data={"error": str(exc)}), None
    text = claim.describe()
    shown = ", ".join(f"ε({d:g}) = {_g(v)}" for d, v in values.items())
    data = {"claim": text, "epsilon": {f"{d:g}": v for d, v in values.items()}}
    bad = {d: v for d, v in values.items() if math.isnan(v) or v < 0}
    if bad:
        return StepResult("claim", FAIL, f"{text}: ε(δ) is NaN or negative at δ = "
                          f"{', '.join(f'{d:g}' for d in bad)} ({shown})", data=data), claim
    if all(math.isinf(v) for v in values.values()):
        return StepResult("claim", PASS, f"{text}: {shown} (claims nothing at these δ)",
                          data=data), claim
    return StepResult("claim", PASS, f"{text}: {shown}", data=data), claim


def step_sensitivity(mech, seed: int, budget: dict) -> StepResult:
    reason = applicable(mech)
    if reason:
        return StepResult("sensitivity", SKIP, reason)
    try:
        res = search_sensitivity(mech, seed=seed, **budget)
    except SensitivityError as exc:
        return StepResult("sensitivity", ERROR, str(exc), data={"error": str(exc)})
    sym = NORM_SYMBOLS[res.norm]
    head = (f"max ‖q(D) − q(D′)‖{sym} / Δ = {_g(res.ratio)} (Δ = {res.sensitivity:g}, "
            f"{res.pairs} pairs)")
    counts = "; ".join(
        f"{s.source}: {s.pairs}" + (f", max {_g(s.best_ratio)}" if s.pairs else "")
        + (f" ({s.note})" if s.note and not s.pairs else "") for s in res.sources)
    lines = [f"{'violating ' if res.violated else 'largest '}pair ({res.source}): "
             f"{format_pair(res.d0, res.d1)}, ‖Δq‖{sym} = {res.distance:.6g}",
             f"searched {counts}"]
    if res.space:
        lines.append(f"dataset space: {res.space}")
    if res.rejected_example:
        lines.append(f"pairs rejected by the neighbouring relation: {res.rejected_example}")
    if res.violated:
        return StepResult("sensitivity", FAIL, f"{head} > 1: the query moves by more than the "
                          f"claimed sensitivity", lines, res.to_dict())
    return StepResult("sensitivity", PASS, f"{head} ≤ 1", lines, res.to_dict())


def step_calibration(mech, samples: int, seed: int, confidence: float) -> StepResult:
    if not isinstance(mech, CalibratedNoise):
        return StepResult("calibration", SKIP, "the mechanism declares no noise() law "
                          "(see dpaudit.mechanisms.capabilities.CalibratedNoise)")
    noise = mech.noise()
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 3]))
    try:
        cal = check_calibration(mech, noise, samples=samples, rng=rng, confidence=confidence)
    except CalibrationError as exc:
        return StepResult("calibration", ERROR, str(exc), data={"error": str(exc)})
    if len(cal.intervals) == 1:
        iv = cal.intervals[0]
        where = "inside" if iv.inside else "OUTSIDE"
        head = (f"{cal.law}: claimed {iv.name} = {iv.claimed:.6g} is {where} the "
                f"{cal.confidence:g} interval [{iv.lower:.6g}, {iv.upper:.6g}] "
                f"(estimate {iv.estimate:.6g}, N = {cal.samples})")
        lines = [iv.statistic]
    else:
        bad = [iv for iv in cal.intervals if not iv.inside]
        worst = cal.worst()
        params = ", ".join(f"{k} = {v:.6g}" for k, v in noise.parameters.items())
        head = (f"{cal.law} ({params}): {len(cal.intervals) - len(bad)}/{len(cal.intervals)} "
                f"predicted probabilities inside their {cal.confidence:g} intervals "
                f"(N = {cal.samples})")
        lines = [f"{'worst' if not bad else 'outside'}: {iv.name} = {iv.claimed:.5g} vs "
                 f"[{iv.lower:.5g}, {iv.upper:.5g}] (observed {iv.estimate:.5g})"
                 for iv in (bad[:5] if bad else [worst])]
    lines.append(f"method: {cal.method}; probe dataset {short(cal.probe)}")
    return StepResult("calibration", PASS if cal.passed else FAIL, head, lines, cal.to_dict())


def audit_delta(claim) -> float:
    """δ = 0 when the claim is finite there, else the claim's own δ (the smallest δ stated by
    an approximate-DP part), else 1e-6."""
    if math.isfinite(claim.epsilon(0.0)):
        return 0.0
    stated = [float(c.delta) for c in iter_claims(claim)
              if isinstance(c, ApproxDP) and 0.0 < c.delta < 1.0]
    return min(stated) if stated else 1e-6


def step_black_box(mech, claim, samples: int, seed: int, confidence: float) -> StepResult:
    from dpaudit.distinguish.lower_bound import estimate_epsilon_lower_bound

    if claim is None:
        return StepResult("black-box", SKIP, "no usable claim (step 1 failed)")
    pairs = list(mech.worst_case_pairs())
    if not pairs:
        return StepResult("black-box", SKIP, "worst_case_pairs() is empty")
    for p in pairs:
        ok, why = mech.check_pair(p.d0, p.d1)
        if not ok:
            return StepResult("black-box", ERROR, f"worst-case pair {p.name!r} is not "
                              f"neighbouring: {why}")
    delta = audit_delta(claim)
    claimed = float(claim.epsilon(delta))
    per_pair = 1.0 - (1.0 - confidence) / len(pairs)
    sampler = mech.sampler()
    rows, best = [], None
    for j, p in enumerate(pairs):
        state = int(np.random.SeedSequence([int(seed), 4, j]).generate_state(1)[0])
        lb = estimate_epsilon_lower_bound(sampler, p.d0, p.d1, delta=delta, samples=samples,
                                          confidence=per_pair, seed=state)
        rows.append({"pair": p.name, "d0": p.d0, "d1": p.d1, "epsilon_lower_bound": lb.epsilon,
                     "event": lb.event, "numerator": lb.numerator,
                     "counts": [lb.k_numerator, lb.n_numerator, lb.k_denominator,
                                lb.n_denominator]})
        if best is None or lb.epsilon > best[1].epsilon:
            best = (p, lb)
    p, lb = best
    violated = lb.epsilon > claimed
    head = (f"certified ε_LB = {_g(lb.epsilon)} {'>' if violated else '≤'} claimed "
            f"ε({delta:g}) = {_g(claimed)} (pair {p.name!r}; {len(pairs)} pair(s), "
            f"{samples} samples per side, confidence {confidence:g} over the pairs)")
    lines = [f"{r['pair']}: ε_LB = {_g(r['epsilon_lower_bound'])} via {r['event']} "
             f"({r['numerator']} counts {r['counts'][0]}/{r['counts'][1]} vs "
             f"{r['counts'][2]}/{r['counts'][3]})" for r in rows]
    data = {"delta": delta, "claimed_epsilon": claimed, "epsilon_lower_bound": lb.epsilon,
            "pair": p.name, "confidence": confidence, "per_pair_confidence": per_pair,
            "samples": samples, "pairs": rows}
    if violated:
        return StepResult("black-box", FAIL, head + ": the mechanism leaks more than claimed",
                          lines, data)
    return StepResult("black-box", PASS, head, lines, data)


def check_mechanism(mech, *, spec: str = "", samples: int = DEFAULT_SAMPLES, seed: int = 0,
                    calibration_confidence: float = DEFAULT_CONFIDENCE,
                    blackbox_confidence: float = DEFAULT_CONFIDENCE_BLACKBOX,
                    greybox: dict | None = None,
                    on_step: Callable[[int, StepResult], None] | None = None) -> CheckResult:
    """Run the four steps on a built mechanism (see the module docstring)."""
    budget = {**GREYBOX_DEFAULTS, **(greybox or {})}
    result = CheckResult(spec=spec or type(mech).__name__,
                         mechanism=str(mech.name), params=dict(mech.params),
                         samples=int(samples),
                         seed=int(seed))
    t0 = time.perf_counter()
    holder = {}

    def claim_step():
        step, holder["claim"] = step_claim(mech)
        return step

    runs = [
        ("claim", claim_step),
        ("sensitivity", lambda: step_sensitivity(mech, seed, budget)),
        ("calibration", lambda: step_calibration(mech, samples, seed, calibration_confidence)),
        ("black-box", lambda: step_black_box(mech, holder.get("claim"), samples, seed,
                                             blackbox_confidence)),
    ]
    for i, (name, fn) in enumerate(runs, start=1):
        step = _timed(name, fn)
        result.steps.append(step)
        if on_step is not None:
            on_step(i, step)
    result.seconds = time.perf_counter() - t0
    return result


def format_step(index: int, step: StepResult) -> str:
    """The printed block of one step: a verdict line, then indented details."""
    head = f"[{index}/{len(STEPS)}] {step.step:<12} {step.verdict:<5} {step.summary}"
    return "\n".join([head] + [f"      {line}" for line in step.lines])


__all__ = ["CheckResult", "CheckSetupError", "StepResult", "check_mechanism", "load_mechanism",
           "load_mechanism_class", "build_mechanism", "format_step", "audit_delta", "STEPS",
           "PASS", "FAIL", "SKIP", "ERROR", "DEFAULT_SAMPLES", "GREYBOX_DEFAULTS"]
