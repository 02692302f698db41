"""``dpaudit check``: six quick checks of one mechanism against its own claim.

1. **claim** — ``claim()`` builds and converts: ε(δ) at δ ∈ {0, 1e-6, 1e-3} is a number ≥ 0
   or ∞ (violation if it raises or gives NaN / a negative value).
2. **sensitivity** (grey-box, :mod:`dpaudit.check.greybox_step`) — the largest
   ‖query(D) − query(D′)‖/Δ over neighbouring pairs found by
   :func:`dpaudit.check.greybox.search_sensitivity` (violation above 1 + 1e-9; only with
   ``query()`` and a sensitivity), and the replay of the code on D and D′ with its randomness
   held fixed (:mod:`dpaudit.replay`, every mechanism and sampler: a violation when the
   release moves by more than Δ or is NaN/∞ on one side only; warnings for data-dependent
   control flow and noise scales).
3. **calibration** — the sampler's real noise against the values the claim states, on the
   probe and on further datasets of the mechanism's dataset space
   (:mod:`dpaudit.check.calibration_sets`, confidence 0.999 over all datasets; skipped
   without ``noise()``).
4. **exact** — where the mechanism knows its worst-case pairs' exact or bracketed curves, the
   claim against them at the black-box step's δ, with no sampling (the exact-curve check,
   :mod:`dpaudit.check.exact_step`; skipped without a curve).
5. **canary** — where the mechanism has canary runs (the ``dpsgd`` family), the claim against
   one run of 1000 canaries at the black-box step's δ (the canary audit,
   :mod:`dpaudit.check.canary_step`; skipped without canary runs).
6. **black-box** — the audit ``dpaudit run`` runs on a suite of one ``[[audit]]``
   (:mod:`dpaudit.check.blackbox`, :mod:`dpaudit.audit.single`): every worst-case pair, the
   pairs a search of the dataset space finds (:mod:`dpaudit.audit.pair_search`), the white-box
   test and, for code that is the implementation, the float64 representation; Bonferroni over
   every test at family-wise confidence 0.95, at δ = 0 for claims finite there, else at the
   claim's own δ (violation if a certified bound > claimed ε(δ), a floating-point one when only
   a representation event shows it); reports the power (could detect ε ≥ …) and warns when it
   is low.

Each step's verdict is ``consistent``, ``violation``, ``skipped`` (with the reason) or
``error`` (the step could not run: the message says why) — the words of ``dpaudit run`` (see
:mod:`dpaudit.check.result`).  :attr:`CheckResult.exit_status` follows ``dpaudit run``: 0
when every step was consistent or skipped, 1 on a violation, 2 on an error.  Step k draws
from ``SeedSequence([seed, k])``, so a result depends on the seed only.
"""

from __future__ import annotations

import inspect
import math
import time
import traceback
from typing import Any, Callable

import numpy as np

from dpaudit.util import validation
from dpaudit.util.hints import did_you_mean
from dpaudit.util.threads import one_numerical_thread
from dpaudit.check.blackbox import audit_delta, step_black_box
from dpaudit.check.calibration import DEFAULT_CONFIDENCE, CalibrationError
from dpaudit.check.calibration_sets import check_calibration_on
from dpaudit.check.canary_step import step_canary
from dpaudit.check.exact_step import step_exact_curve
from dpaudit.check.greybox import short
from dpaudit.check.greybox_step import step_greybox
from dpaudit.check.result import (CONSISTENT, ERROR, SKIPPED, STEPS, VIOLATION, CheckResult,
                                  StepResult, format_step)
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.canaries.source import canary_only_reason
from dpaudit.mechanisms.capabilities import CalibratedNoise
from dpaudit.mechanisms.references import CodeReferenceError, load_reference
from dpaudit.mechanisms.sampler import SamplerMechanism, bind_sampler_params, sampler_signature
from dpaudit.suite.targets import claim_from_dict
from dpaudit.util.numbers import format_number as fmt

CLAIM_DELTAS = (0.0, 1e-6, 1e-3)
DEFAULT_SAMPLES = 200_000
DEFAULT_CONFIDENCE_BLACKBOX = 0.95
#: grey-box search budget (see :func:`dpaudit.check.greybox.search_sensitivity`)
GREYBOX_DEFAULTS = dict(random_pairs=2000, hypothesis_examples=300, optimiser_starts=16,
                        optimiser_evaluations=300)


class CheckSetupError(ValueError):
    """The mechanism could not be loaded or built (bad spec, import error, bad parameters)."""


# -- loading a mechanism -------------------------------------------------------------------------

def load_code(spec: str):
    """What ``spec`` names: a :class:`Mechanism` subclass, or a plain sampler function.

    ``spec`` is ``module:Attr`` (``module`` dotted) or ``path/to/file.py:Attr``, imported with
    the project root on the path (:mod:`dpaudit.mechanisms.references`), or the name of a
    registered mechanism (``dpaudit list``).

    Raises:
      CheckSetupError: a malformed spec, code that cannot be imported, an attribute that is
        neither a Mechanism subclass nor a function.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise CheckSetupError("expected a mechanism as module:Class (e.g. mymodule:MyMechanism) "
                              "or a registered mechanism name")
    spec = spec.strip()
    if ":" not in spec:
        from dpaudit.mechanisms.registry import get_mechanism_class, mechanism_names

        names = mechanism_names()
        if spec in names:
            return get_mechanism_class(spec)
        raise CheckSetupError(f"{spec!r} is neither module:Class (e.g. mymodule:MyMechanism, "
                              f"path/to/file.py:MyMechanism) nor a registered mechanism name"
                              f"{did_you_mean(spec, names, n=3)} (see `dpaudit list`)")
    try:
        obj = load_reference(spec)
    except CodeReferenceError as exc:
        raise CheckSetupError(str(exc)) from None
    if inspect.isclass(obj):
        if not issubclass(obj, Mechanism):
            raise CheckSetupError(f"{spec!r} is not a mechanism: it is not a subclass of "
                                  f"dpaudit.mechanisms.base.Mechanism (which needs sample, "
                                  f"claim, worst_case_pairs)")
        return obj
    if callable(obj):
        return obj
    raise CheckSetupError(f"{spec!r} is not a class (got {type(obj).__name__}); point at the "
                          f"mechanism class or at a sampler function (dataset, n, rng)")


def load_mechanism_class(spec: str):
    """``module:Class`` (``module`` dotted and importable from the current directory, or a path
    to a ``.py`` file), or the name of a registered mechanism (``dpaudit list``)."""
    obj = load_code(spec)
    if not inspect.isclass(obj):
        raise CheckSetupError(f"{spec!r} is not a class (got {type(obj).__name__}); point at "
                              f"the mechanism class")
    return obj


def build_sampler(fn, spec: str, params: dict, claim, pairs) -> SamplerMechanism:
    """The plain sampler ``fn`` as the mechanism ``dpaudit check`` checks: its keyword
    parameters bound from ``params``, its ``claim`` (a Claim or a claim table whose left-out
    keys come from the params) and the neighbouring ``pairs`` its black-box step audits.

    Raises:
      CheckSetupError: no claim or no pairs, a function that is not a sampler, params it does
        not take, a claim that cannot be completed.
    """
    if claim is None:
        raise CheckSetupError(f"{spec} is a sampler function, which states no claim: give it "
                              f"with --epsilon E [--delta D] or --claim '{{\"notion\": "
                              f"\"zcdp\", \"rho\": 0.5}}'")
    if not pairs:
        raise CheckSetupError(f"{spec} is a sampler function, which has no worst-case pairs: "
                              f"give neighbouring datasets with --pair D0 D1 (repeatable), "
                              f"e.g. --pair '[0, 0]' '[0, 1]'")
    try:
        values = bind_sampler_params(sampler_signature(fn, spec), params, spec)
        stated = claim_from_dict(claim, values)
    except ValueError as exc:
        raise CheckSetupError(str(exc)) from None
    return SamplerMechanism(fn, stated, spec, values, list(pairs))


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


def load_check_target(spec: str, params: dict | None = None, *, claim=None, pairs=None):
    """The mechanism ``dpaudit check SPEC`` checks: a Mechanism class built with ``params``,
    or a sampler function with its ``claim`` and ``pairs`` (:func:`build_sampler`).

    Raises:
      CheckSetupError: as :func:`load_code`, :func:`build_mechanism` and
        :func:`build_sampler`; a claim or pairs given for a mechanism class (it states its
        own).
    """
    obj = load_code(spec)
    params = dict(params or {})
    if inspect.isclass(obj):
        if claim is not None or pairs:
            raise CheckSetupError(f"{spec} is a mechanism class, which states its own claim "
                                  f"and worst-case pairs: --epsilon, --delta, --claim and "
                                  f"--pair go with a sampler function")
        mech = build_mechanism(obj, params)
        if getattr(mech, "canary_only", False):
            raise CheckSetupError(canary_only_reason(spec))
        return mech
    return build_sampler(obj, spec, params, claim, pairs)


# -- the steps --------------------------------------------------------------------------------

def _timed(step: str, fn: Callable[[], StepResult]) -> StepResult:
    t0 = time.perf_counter()
    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001 - a step that cannot run is an error, not a crash
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
        return StepResult("claim", VIOLATION, f"claim() or its conversion raised "
                          f"{type(exc).__name__}: {exc}", data={"error": str(exc)}), None
    text = claim.describe()
    shown = ", ".join(f"ε({d:g}) = {fmt(v)}" for d, v in values.items())
    data = {"claim": text, "epsilon": {f"{d:g}": v for d, v in values.items()}}
    bad = {d: v for d, v in values.items() if math.isnan(v) or v < 0}
    if bad:
        return StepResult("claim", VIOLATION, f"{text}: ε(δ) is NaN or negative at δ = "
                          f"{', '.join(f'{d:g}' for d in bad)} ({shown})", data=data), claim
    if all(math.isinf(v) for v in values.values()):
        return StepResult("claim", CONSISTENT, f"{text}: {shown} (claims nothing at these δ)",
                          data=data), claim
    return StepResult("claim", CONSISTENT, f"{text}: {shown}", data=data), claim


def step_calibration(mech, samples: int, seed: int, confidence: float) -> StepResult:
    if not isinstance(mech, CalibratedNoise):
        return StepResult("calibration", SKIPPED, "the mechanism declares no noise() law "
                          "(see dpaudit.mechanisms.capabilities.CalibratedNoise)")
    noise = mech.noise()
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 3]))
    try:
        cal = check_calibration_on(mech, noise, samples=samples, rng=rng, confidence=confidence)
    except CalibrationError as exc:
        return StepResult("calibration", ERROR, str(exc), data={"error": str(exc)})
    if "datasets" in cal.details:
        return _calibration_on_datasets(cal, noise)
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
    return StepResult("calibration", CONSISTENT if cal.passed else VIOLATION, head, lines, cal.to_dict())


def _calibration_on_datasets(cal, noise) -> StepResult:
    """The calibration step's text when it ran on several datasets."""
    datasets = cal.details["datasets"]
    bad = [iv for iv in cal.intervals if not iv.inside]
    params = ", ".join(f"{k} = {v:.6g}" for k, v in noise.parameters.items())
    where = (f"OUTSIDE on {len({iv.dataset for iv in bad})} of {len(datasets)} datasets"
             if bad else f"inside on all {len(datasets)} datasets")
    head = (f"{cal.law}: claimed {params} is {where} ({len(cal.intervals) - len(bad)}/"
            f"{len(cal.intervals)} intervals hold; family-wise confidence {cal.confidence:g}, "
            f"N = {cal.samples} in all)")
    shown = bad[:5] if bad else [cal.worst()]
    lines = [f"{'outside' if not iv.inside else 'worst'} on {iv.dataset}: {iv.name} = "
             f"{iv.claimed:.5g} vs [{iv.lower:.5g}, {iv.upper:.5g}] (estimate {iv.estimate:.5g})"
             for iv in shown]
    lines.append("datasets: " + "; ".join(f"{d['label']} ({d['samples']} samples, "
                                            f"{'ok' if d['passed'] else 'outside'})"
                                            for d in datasets))
    lines += [f"skipped {text}" for text in cal.details.get("skipped", [])]
    lines.append(f"method: {cal.method}")
    return StepResult("calibration", CONSISTENT if cal.passed else VIOLATION, head, lines, cal.to_dict())


def check_mechanism(mech, *, spec: str = "", samples: int = DEFAULT_SAMPLES, seed: int = 0,
                    calibration_confidence: float = DEFAULT_CONFIDENCE,
                    blackbox_confidence: float = DEFAULT_CONFIDENCE_BLACKBOX,
                    greybox: dict | None = None,
                    on_step: Callable[[int, StepResult], None] | None = None,
                    given: dict | None = None, search=True,
                    representation: bool | None = None, stopping=None,
                    floating_point: str = "fail", replay: str = "fail") -> CheckResult:
    """Run the six steps on a built mechanism (see the module docstring).

    ``given``: the keyword arguments ``mech`` was built with, when known (``dpaudit check``'s
    ``--params``); the result then lists the parameters they left at their defaults
    (``defaulted_parameters``; {} without ``given``).  ``search`` and ``representation``: the
    black-box step's pair search and float64 reading, and ``floating_point`` how a
    float64-representation finding gates it, and ``replay`` how a grey-box replay finding
    gates step 2 (``fail``, ``warn``, ``off``), as in :func:`dpaudit.audit_mechanism`;
    ``stopping``: its :class:`~dpaudit.stats.sequential.StoppingRule` (None: the default,
    sequential with a power target of 1.1).

    Raises:
      ValueError: ``samples`` below :data:`dpaudit.util.validation.MIN_SAMPLES` (or not a whole
        number), a negative or non-integer ``seed``, a confidence outside (0, 1), a training
        audited by canaries only (an OpacusTrainingMechanism: nothing here can sample it)."""
    if getattr(mech, "canary_only", False):
        raise ValueError(canary_only_reason(type(mech).__qualname__))
    samples = validation.samples("samples", samples)
    seed = validation.seed("seed", seed)
    validation.confidence("calibration_confidence", calibration_confidence)
    validation.confidence("blackbox_confidence", blackbox_confidence)
    budget = {**GREYBOX_DEFAULTS, **(greybox or {})}
    result = CheckResult(spec=spec or type(mech).__name__,
                         mechanism=str(mech.name), params=dict(mech.params),
                         samples=samples,
                         seed=seed,
                         defaulted_parameters=({} if given is None
                                               else mech.defaulted_parameters(given)))
    t0 = time.perf_counter()
    holder = {}

    def claim_step():
        step, holder["claim"] = step_claim(mech)
        return step

    runs = [
        ("claim", claim_step),
        ("sensitivity", lambda: step_greybox(mech, seed, budget, replay)),
        ("calibration", lambda: step_calibration(mech, samples, seed, calibration_confidence)),
        ("exact", lambda: step_exact_curve(mech, holder.get("claim"))),
        ("canary", lambda: step_canary(mech, holder.get("claim"), seed)),
        ("black-box", lambda: step_black_box(mech, holder.get("claim"), samples, seed,
                                             blackbox_confidence, representation=representation,
                                             search=search, stopping=stopping,
                                             floating_point=floating_point,
                                             replay=replay)),
    ]
    for i, (name, fn) in enumerate(runs, start=1):
        with one_numerical_thread():  # no number depends on the machine's threads
            step = _timed(name, fn)
        result.steps.append(step)
        if on_step is not None:
            on_step(i, step)
    result.seconds = time.perf_counter() - t0
    return result


__all__ = ["CheckResult", "CheckSetupError", "StepResult", "check_mechanism", "load_mechanism",
           "load_mechanism_class", "load_check_target", "load_code", "build_mechanism",
           "build_sampler", "format_step", "audit_delta", "STEPS",
           "CONSISTENT", "VIOLATION", "SKIPPED", "ERROR", "DEFAULT_SAMPLES", "GREYBOX_DEFAULTS"]
