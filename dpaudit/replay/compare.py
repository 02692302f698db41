"""One grey-box replay of a neighbouring pair: run on D, replay on D′, say what differs.

:func:`replay_pair` calls ``sample(D, rows, rng)`` in a recording :class:`Session`, calls it
again on D in a replay of that recording (the *self-replay*: any difference there is
randomness the replay cannot hold fixed), then on D′ in a replay, and compares:

* **the calls** — the sequence of (generator, function) of the two runs: where they first
  differ (``diverged_at``: data-dependent control flow, e.g. one noise draw per key found in
  the data) and how many values each run drew;
* **the arguments** of the calls both runs made at the same index: a changed ``scale`` is a
  noise scale that depends on the data, a changed ``loc`` a location (the output moves with
  it), changed probabilities an exponential-mechanism-like choice (:class:`ArgumentChange`);
* **the outputs** — with the noise coupled, ``output(D′) − output(D)`` row by row: its largest
  norm is the released values' *shift* (``ℓ₁``, ``ℓ₂`` or ``ℓ∞``).  It measures how far the
  data moved the value the noise is added to (``shift_is_query``) when the runs made the same
  calls with the same arguments but their locations *and* every row moved by the same vector
  (up to float rounding): the release is then that value plus noise that does not depend on
  the data.  A release that is not additive — an argmax, a threshold test, a suppressed key —
  moves differently from row to row, and its shift is not compared with a sensitivity.  And
  the rows whose output is NaN or ±∞ on one side only.

Nothing here is statistical: a replay shows what one coupled run of the code does, with the
randomness it can see (:mod:`dpaudit.replay.recorder`).  :mod:`dpaudit.replay.findings` turns
these facts into findings.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from dpaudit.neighbours.pairs import NeighbourPair
from dpaudit.replay.recorder import ARGUMENT_ROLES, Draw, Session

NORMS = {"l1": lambda d: float(np.sum(np.abs(d))),
         "l2": lambda d: float(np.sqrt(np.sum(np.square(d)))),
         "linf": lambda d: float(np.max(np.abs(d))) if d.size else 0.0}
#: rows each run draws
DEFAULT_ROWS = 16


@dataclass(frozen=True)
class ArgumentChange:
    """An argument of the call both runs made at ``index`` that differs between them."""

    index: int
    source: str
    method: str
    argument: str
    role: str  # "location", "scale", "probabilities", "rate" or "other"
    d0: object
    d1: object

    def describe(self) -> str:
        def shown(v):
            if isinstance(v, tuple):
                return "[" + ", ".join(f"{x:.6g}" if isinstance(x, float) else str(x)
                                       for x in v[:4]) + (", …]" if len(v) > 4 else "]")
            if isinstance(v, float):  # enough digits to show the two values differ
                return next(text for digits in (6, 10, 17)
                            if (text := f"{v:.{digits}g}") != f"{other(v):.{digits}g}"
                            or digits == 17)
            return repr(v)

        def other(v):
            o = self.d1 if v is self.d0 else self.d0
            return o if isinstance(o, float) else math.nan
        where = "" if self.source == "rng" else f"{self.source}."
        return (f"call {self.index + 1} {where}{self.method}: {self.argument} "
                f"{shown(self.d0)} on D, {shown(self.d1)} on D′")


@dataclass(frozen=True)
class PairReplay:
    """What a replay of one pair showed (see the module docstring).

    Attributes:
      pair: the pair (D = d0, D′ = d1); rows: outputs drawn per run.
      calls, variates: random calls and values drawn on D and on D′.
      diverged_at: the first call of D′'s run that is not D's call at that index (None: the
        same calls); sites: the (generator, function) of the first differing calls.
      changes: the arguments that differ in the calls both made.
      shift: the largest ‖output(D′) − output(D)‖ over the rows whose outputs are finite on
        both sides (None when the outputs cannot be compared: shapes differ, not numbers).
      shift_is_query: the runs made the same calls with arguments equal but for locations,
        and every row moved alike: the shift is what the data moved the noised value by.
      rounding: the float64 rounding the shift may carry: 4 ulps of the largest finite
        output (``q + z`` and ``q′ + z`` are each rounded once).
      nonfinite: rows whose output holds NaN or ±∞, on D and on D′.
      unseen: why the replay cannot hold the randomness fixed (the self-replay of D differs),
        or "".
      python_random: the code drew from Python's :mod:`random` (seeded alike, not recorded).
      error: the exception one side raised ("" when none), naming the side.
    """

    pair: NeighbourPair
    rows: int
    norm: str
    calls: tuple[int, int] = (0, 0)
    variates: tuple[int, int] = (0, 0)
    diverged_at: int | None = None
    sites: tuple = ()
    changes: tuple[ArgumentChange, ...] = ()
    shift: float | None = None
    shift_is_query: bool = False
    rounding: float = 0.0
    nonfinite: tuple[int, int] = (0, 0)
    unseen: str = ""
    python_random: bool = False
    error: str = ""

    def to_dict(self) -> dict:
        return {"pair": self.pair.to_dict(), "rows": self.rows, "norm": self.norm,
                "calls": list(self.calls), "variates": list(self.variates),
                "diverged_at": self.diverged_at,
                "sites": [None if s is None else list(s) for s in self.sites],
                "changes": [c.describe() for c in self.changes],
                "shift": None if self.shift is None else
                (self.shift if math.isfinite(self.shift) else "inf"),
                "shift_is_query": self.shift_is_query, "nonfinite": list(self.nonfinite),
                "unseen": self.unseen, "python_random": self.python_random,
                "error": self.error}


def _run(sample, dataset, rows: int, session: Session) -> np.ndarray:
    """The code's outputs on ``dataset`` in ``session`` (its numpy and Python warnings are
    silenced: a replay of a NaN record is expected to warn)."""
    rng = session.generator()
    with session.active(), np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = sample(dataset, rows, rng)
    return np.asarray(out)


def _numeric(out: np.ndarray) -> np.ndarray | None:
    if out.dtype.kind not in "biuf" or out.ndim == 0:
        return None
    return out.astype(float).reshape(out.shape[0], -1)


def _changes(log0: list[Draw], log1: list[Draw], upto: int) -> list[ArgumentChange]:
    out = []
    for i in range(upto):
        a, b = log0[i], log1[i]
        for name in sorted(set(a.arguments) | set(b.arguments)):
            v0, v1 = a.arguments.get(name), b.arguments.get(name)
            if v0 != v1 and not (v0 is None and v1 is None):
                out.append(ArgumentChange(i, a.source, a.method, name,
                                          ARGUMENT_ROLES.get(name, "other"), v0, v1))
    return out


def _differing(out0: np.ndarray, out1: np.ndarray) -> str:
    a, b = _numeric(out0), _numeric(out1)
    if a is None or b is None or a.shape != b.shape:
        return "" if np.array_equal(out0, out1) else "outputs differ"
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    return "" if same.all() else f"{int((~same.all(axis=1)).sum())} of {a.shape[0]} rows differ"


def replay_pair(sample, pair: NeighbourPair, *, rows: int = DEFAULT_ROWS, seed: int = 0,
                norm: str = "l2") -> PairReplay:
    """Record ``sample`` on ``pair.d0``, replay it on d0 and on ``pair.d1``, and compare
    (see the module docstring).  ``sample(dataset, n, rng)`` is the mechanism's sampler."""
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {sorted(NORMS)}, got {norm!r}")
    base = dict(pair=pair, rows=rows, norm=norm)
    record = Session(seed)
    try:
        out0 = _run(sample, pair.d0, rows, record)
    except Exception as exc:  # noqa: BLE001 - the code's own failure is a fact to report
        return PairReplay(**base, error=f"on D: {type(exc).__name__}: {exc}")
    again = Session(seed, record.log)
    try:
        out_again = _run(sample, pair.d0, rows, again)
        unseen = _differing(out0, out_again)
    except Exception as exc:  # noqa: BLE001
        unseen = f"a second run on D raised {type(exc).__name__}: {exc}"
    if not unseen and again.diverged_at is not None:
        unseen = "a second run on D made other random calls"
    replay = Session(seed, record.log)
    try:
        out1 = _run(sample, pair.d1, rows, replay)
    except Exception as exc:  # noqa: BLE001
        return PairReplay(**base, calls=(len(record.log), len(replay.log)), unseen=unseen,
                          error=f"on D′: {type(exc).__name__}: {exc}")
    log0, log1 = record.log, replay.log
    diverged = replay.diverged_at
    if diverged is None and len(log1) < len(log0):
        diverged = len(log1)  # D′'s run stopped short of D's calls
    upto = min(len(log0), len(log1)) if diverged is None else diverged
    changes = _changes(log0, log1, upto)
    sites = ((log0[diverged].site if diverged < len(log0) else None,
              log1[diverged].site if diverged < len(log1) else None)
             if diverged is not None else ())
    a, b = _numeric(out0), _numeric(out1)
    shift, nonfinite, rounding, additive = None, (0, 0), 0.0, False
    if a is not None and b is not None:
        nonfinite = (int((~np.isfinite(a)).any(axis=1).sum()),
                     int((~np.isfinite(b)).any(axis=1).sum()))
        if a.shape == b.shape:
            finite = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
            measure = NORMS[norm]
            shift = max((measure(b[i] - a[i]) for i in np.flatnonzero(finite)), default=None)
            if finite.any():
                top = float(max(np.abs(a[finite]).max(), np.abs(b[finite]).max()))
                rounding = 4.0 * float(np.spacing(top)) * math.sqrt(a.shape[1])
                moves = b[finite] - a[finite]
                additive = bool(finite.all() and np.all(np.abs(moves - moves[0])
                                                        <= 2 * rounding + 1e-12))
    only_locations = all(c.role == "location" for c in changes)
    return PairReplay(**base, calls=(len(log0), len(log1)),
                      variates=(sum(d.variates for d in log0), sum(d.variates for d in log1)),
                      diverged_at=diverged, sites=sites, changes=tuple(changes), shift=shift,
                      rounding=rounding,
                      shift_is_query=(diverged is None and len(log0) == len(log1)
                                      and only_locations and additive and not unseen),
                      nonfinite=nonfinite, unseen=unseen,
                      python_random=record.python_random or replay.python_random)


__all__ = ["ArgumentChange", "DEFAULT_ROWS", "NORMS", "PairReplay", "replay_pair"]
