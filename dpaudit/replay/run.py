"""Grey-box replay of a mechanism or sampler over many neighbouring pairs.

:func:`replay_mechanism` replays (:func:`~dpaudit.replay.compare.replay_pair`) every pair it
is given — a mechanism's ``worst_case_pairs()`` or a sampler's pairs — and, when the code has
a dataset space, the space's adversarial proposals
(:meth:`~dpaudit.neighbours.spaces.DatasetSpace.proposals`) and ``random_pairs`` random pairs
of it; a pair the mechanism's relation (or its dataset check) refuses is skipped and named.
The declared sensitivity Δ and its norm come from the mechanism when it declares them
(``sensitivity()`` and ``sensitivity_norm`` of a grey-box query), or from the arguments; no
``query()`` is needed: the replay compares the *releases* with the noise held fixed.

It is what ``dpaudit check``'s grey-box step runs, and every route can call it:
``dpaudit.replay_mechanism(mech)`` in a script or a pytest test.  Reproducible: pair i is
replayed from ``SeedSequence([seed, i])``-derived generators; the random pairs come from
``SeedSequence([seed, 0x2E9])``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.capabilities import GreyBoxQuery, SearchableDatasets
from dpaudit.mechanisms.sampler import sampler_space
from dpaudit.neighbours.pairs import NeighbourPair
from dpaudit.neighbours.proposals import proposals_of
from dpaudit.replay.compare import DEFAULT_ROWS, NORMS, replay_pair
from dpaudit.replay.findings import ReplayReport, findings

#: random pairs of the dataset space replayed besides the named pairs and the proposals
DEFAULT_RANDOM_PAIRS = 24
#: wall seconds after which no further pair is started (the pairs are replayed in order:
#: the named ones first); slow code (a training run per output) is replayed on fewer pairs
DEFAULT_BUDGET_SECONDS = 30.0
#: the replay every audit runs (:func:`audit_replay`: ``dpaudit run``, the pytest plugin, the
#: API and ``dpaudit check``): the named pairs, every proposal, and this many random pairs —
#: the proposals are where implementations break, and the replay is one run per side per pair
AUDIT_RANDOM_PAIRS = 4
#: its time budget, seconds (slow code is replayed on the named pairs and the first proposals)
AUDIT_BUDGET_SECONDS = 10.0


@dataclass(frozen=True)
class _Target:
    sample: object
    check_pair: object
    pairs: list
    space: object
    sensitivity: float | None
    norm: str


def _target(code, pairs, sensitivity, norm) -> _Target:
    """The sampler, relation, named pairs, space and Δ of a mechanism or a sampler."""
    if isinstance(code, Mechanism):
        mech = code
        named = list(mech.worst_case_pairs()) if pairs is None else _pairs(pairs)
        space = mech.dataset_space() if isinstance(mech, SearchableDatasets) else None
        declared = None
        if isinstance(mech, GreyBoxQuery):
            declared = float(mech.sensitivity())
            norm = norm or mech.sensitivity_norm or "l2"
        return _Target(mech.sample, mech.check_pair, named, space,
                       sensitivity if sensitivity is not None else declared, norm or "l2")
    if not callable(code):
        raise ValueError(f"replay: expected a mechanism or a sampler (dataset, n, rng), got "
                         f"{type(code).__name__}")
    space = sampler_space(code)
    relation = space.relation() if space is not None else None

    def check(d0, d1):
        return (True, "") if relation is None else relation(d0, d1)
    if pairs is None:
        raise ValueError("replay: a sampler needs pairs=[(d0, d1), ...]")
    return _Target(code, check, _pairs(pairs), space, sensitivity, norm or "l2")


def _pairs(pairs) -> list[NeighbourPair]:
    out = []
    for i, p in enumerate(pairs):
        if isinstance(p, NeighbourPair):
            out.append(p)
        elif isinstance(p, dict):
            out.append(NeighbourPair(p.get("name", f"pair-{i}"), p["d0"], p["d1"]))
        else:
            d0, d1 = p
            out.append(NeighbourPair(f"pair-{i}", d0, d1))
    return out


def _refusal(check_pair, pair) -> str | None:
    try:
        ok, why = check_pair(pair.d0, pair.d1)
    except Exception as exc:  # noqa: BLE001 - a dataset the mechanism refuses
        return f"{type(exc).__name__}: {exc}"
    return None if ok else why or "not neighbouring"


def replay_pairs_of(target: _Target, seed: int, random_pairs: int) -> list[NeighbourPair]:
    """The named pairs, then the space's proposals and random pairs (when it has a space)."""
    pairs = list(target.pairs)
    if target.space is not None:
        pairs += [NeighbourPair(f"proposal-{p.name}", p.d0, p.d1, p.why)
                  for p in proposals_of(target.space)]
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x2E9]))
        pairs += [NeighbourPair(f"random-{i}", *target.space.random_pair(rng))
                  for i in range(int(random_pairs))]
    return pairs


def replay_mechanism(code, pairs=None, *, sensitivity: float | None = None,
                     norm: str | None = None, seed: int = 0, rows: int = DEFAULT_ROWS,
                     random_pairs: int = DEFAULT_RANDOM_PAIRS,
                     budget_seconds: float | None = DEFAULT_BUDGET_SECONDS) -> ReplayReport:
    """Replay a mechanism (or a sampler ``(dataset, n, rng)``, which needs ``pairs``) on its
    pairs, its space's proposals and random pairs, and report what differs
    (:mod:`dpaudit.replay.findings`).

    Args:
      code: a :class:`~dpaudit.mechanisms.base.Mechanism` instance or a sampler function.
      pairs: neighbouring pairs (``NeighbourPair``, ``(d0, d1)`` or dicts); default: the
        mechanism's ``worst_case_pairs()``.
      sensitivity, norm: the Δ the release may move by, in ``"l1"``, ``"l2"`` or ``"linf"``;
        default: the mechanism's ``sensitivity()`` and ``sensitivity_norm`` when it declares
        them (none for a sampler: the largest shift is then reported as a note).
      seed, rows, random_pairs: the replay's seed, outputs per run, random pairs of the space.
      budget_seconds: no pair is started after this many seconds (None: no limit); the pairs
        left are named in the report's ``out_of_time``, so its results depend on the
        machine's speed only when the budget runs out, and it says so.

    Raises:
      ValueError: a bad argument (a sampler without pairs, an unknown norm, a Δ ≤ 0).
    """
    target = _target(code, pairs, sensitivity, norm)
    if target.norm not in NORMS:
        raise ValueError(f"replay: norm must be one of {sorted(NORMS)}, got {target.norm!r}")
    if target.sensitivity is not None and not target.sensitivity > 0:
        raise ValueError(f"replay: sensitivity must be > 0, got {target.sensitivity!r}")
    replays, skipped, seen, out_of_time = [], [], set(), ""
    start = time.perf_counter()
    for i, pair in enumerate(replay_pairs_of(target, seed, random_pairs)):
        if budget_seconds is not None and replays and \
                time.perf_counter() - start > budget_seconds:
            out_of_time = (f"the replay's budget of {budget_seconds:g} s was spent before "
                           f"pair {pair.name!r} and the pairs after it")
            break
        key = repr((pair.d0, pair.d1))
        if key in seen:
            continue
        seen.add(key)
        why = _refusal(target.check_pair, pair)
        if why is not None:
            skipped.append(f"{pair.name}: {why}")
            continue
        pair_seed = int(np.random.SeedSequence([int(seed), i]).generate_state(1)[0])
        replays.append(replay_pair(target.sample, pair, rows=rows, seed=pair_seed,
                                   norm=target.norm))
    return ReplayReport(tuple(replays), tuple(findings(replays, target.sensitivity,
                                                      target.norm)),
                        target.sensitivity, target.norm, tuple(skipped), out_of_time)


def audit_replay(code, pairs=None, *, seed: int = 0) -> tuple[ReplayReport | None, str]:
    """The replay an audit runs, in every route (the ``replay`` audit procedure,
    :mod:`dpaudit.audit.procedures.replay`, and ``dpaudit check``'s step 2): ``code``'s pairs
    (default its worst-case pairs), its space's proposals and :data:`AUDIT_RANDOM_PAIRS`
    random pairs, within :data:`AUDIT_BUDGET_SECONDS`.  Never raises: returns (the report,
    "") or (None, why the replay could not run)."""
    try:
        return replay_mechanism(code, pairs, seed=seed, random_pairs=AUDIT_RANDOM_PAIRS,
                                budget_seconds=AUDIT_BUDGET_SECONDS), ""
    except Exception as exc:  # noqa: BLE001 - a replay that cannot run is said, not raised
        return None, f"the replay could not run: {type(exc).__name__}: {exc}"


__all__ = ["AUDIT_BUDGET_SECONDS", "AUDIT_RANDOM_PAIRS", "DEFAULT_RANDOM_PAIRS", "audit_replay",
           "replay_mechanism", "replay_pairs_of"]
