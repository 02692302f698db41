"""Pair search: do not audit only the pairs the mechanism names.

A bug moves the worst case: a noise scale that depends on the dataset size, a clipping bound
that does not match Δ.  :func:`search_pairs` proposes candidate neighbouring pairs beyond
``worst_case_pairs()`` and screens them:

* **candidates** — from the mechanism's ``dataset_space()`` (when it declares
  :class:`~dpaudit.mechanisms.capabilities.SearchableDatasets`): first the space's
  *adversarial proposals* (:meth:`~dpaudit.neighbours.spaces.DatasetSpace.proposals`,
  :mod:`dpaudit.neighbours.proposals`: an unseen category, the empty and single-record
  datasets, duplicates, the domain's ends and just beyond, huge values, NaN and ∞, sums whose
  rounding depends on order, the largest datasets), each named, then the two corners of its
  parametrisation (all-0 / all-1 vectors: for add/remove spaces the smallest and the largest
  sizes), the two *extreme* pairs — every coordinate at the centre of the space but the last
  at either end (for a space of records: a neutral base dataset and one extreme
  added or replacing record, the pair that exposes clipping bugs) — and ``candidates``
  random pairs (:class:`~dpaudit.spec.coverage.SearchBudget`) (of random sizes); for spaces of query
  answers (:class:`~dpaudit.neighbours.spaces.QueryAnswers`) also the StatDP input patterns
  of Ding et al. (CCS 2018) — one above, one below, one above rest below, one below rest
  above, half half, all above, all below, x-shape — scaled to the space's bound.  Every
  candidate is checked with the mechanism's ``check_pair``: a pair it rejects, or whose
  datasets its ``validate_dataset`` refuses (a proposal outside its domain), is counted as
  rejected and never sampled;
* **screening** — each candidate, and each named pair, is sampled ``screen_samples`` times
  per side (``SeedSequence([seed, 5, i])``, never reused) and scored by a cheap plug-in: the
  largest ε that one-sided Clopper–Pearson bounds at significance :data:`SCREEN_SIGNIFICANCE`
  give over the events {s ≥ t}, {s ≤ t} at the pooled quantiles :data:`SCREEN_QUANTILES`
  of the output (the tails included, where a rare release such as a key present in one
  dataset only shows up), both directions; a vector output is scored on its projection on the
  difference of the two sample means and on each of its first :data:`SCREEN_COORDINATES`
  coordinates, the best of them.  A candidate whose sampling raises scores −∞ (it is never
  kept);
* **ranking** — the candidates best score first (ties: in the order above, so a proposal
  before a random pair); the first ``keep`` are the searched pairs of the audit point, and a
  kept proposal is named in the test's provenance (:meth:`PairSearch.summary`) with its
  datasets and why it was tried.

Statistics: the screening samples only *choose* pairs and never enter a certificate.  The
audit certifies the named pairs and the ``keep`` searched ones on fresh samples, each a test
of the suite's Bonferroni family (:mod:`dpaudit.audit.plan` counts ``keep`` tests per point
that has a search, whether or not a searched pair beats the named ones, so the family's size
is fixed before anything is drawn); the screened-out candidates need no share of the error
budget (selection on independent data, as in the estimator's own selection/certification
split).  Screening depends on the point's search seed only, so every test of a point that
certifies a searched pair finds the same ranking, in any process
(:func:`searched_pair` keeps the last few searches of a process).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpaudit.spec.coverage import SearchBudget
from dpaudit.mechanisms.capabilities import SearchableDatasets
from dpaudit.neighbours.pairs import NeighbourPair
from dpaudit.neighbours.proposals import proposals_of
from dpaudit.neighbours.spaces import QueryAnswers
from dpaudit.stats.epsilon import epsilon_from_counts

SCREEN_SIGNIFICANCE = 0.01
#: the pooled quantiles whose thresholds screening scores: 99 between 1 % and 99 %, and the
#: tails (a rare event, e.g. a key released in 0.5 % of the draws on one side only)
SCREEN_QUANTILES = np.unique(np.concatenate([[0.001, 0.002, 0.005], np.linspace(0.01, 0.99, 99),
                                             [0.995, 0.998, 0.999]]))
#: a vector output is also scored coordinate by coordinate, on at most this many
SCREEN_COORDINATES = 32
#: searches a process keeps (every searched test of a point screens the same candidates)
_RECENT: dict[tuple, "PairSearch"] = {}
_RECENT_SIZE = 8


@dataclass(frozen=True)
class ScreenedPair:
    """One screened pair: where it came from and its plug-in score."""

    pair: NeighbourPair
    source: str
    score: float


@dataclass(frozen=True)
class PairSearch:
    """What :func:`search_pairs` tried and kept.

    Attributes:
      screened: every candidate with its score, in the order drawn.
      worst_case_score: the best score of the named pairs (−∞ without named pairs).
      kept: the ``keep`` best candidates, best first (fewer when fewer were drawn).
      screen_samples: per-side samples of each screening; rejected: candidates the
        mechanism's relation or dataset check refused; unusable: candidates whose sampling
        raised or returned NaN (never kept).
    """

    screened: tuple[ScreenedPair, ...]
    worst_case_score: float
    kept: tuple[ScreenedPair, ...]
    screen_samples: int
    rejected: int = 0
    unusable: int = 0

    def summary(self, slot: int) -> dict:
        """The provenance of the searched pair at rank ``slot`` (a test's ``search``): its
        rank, source and score beside the named pairs'; for a proposal its ``proposal`` name
        and ``why``; and what was screened (``candidates``, ``proposals`` among them,
        ``rejected``, ``screen_samples``, ``sources``).  The pair's datasets are the test's
        ``pair``."""
        chosen = self.kept[slot]
        out = {"rank": slot + 1, "source": chosen.source, "score": chosen.score,
               "named_pairs_score": self.worst_case_score,
               "stronger_than_named": chosen.score > self.worst_case_score,
               "candidates": len(self.screened), "rejected": self.rejected,
               "unusable": self.unusable,
               "proposals": sum(1 for s in self.screened if s.source == PROPOSAL),
               "screen_samples": self.screen_samples,
               "sources": sorted({s.source for s in self.screened})}
        if chosen.source == PROPOSAL:
            out["proposal"] = chosen.pair.name.removeprefix("searched-")
            out["why"] = chosen.pair.description
        return out


def statdp_patterns(space: QueryAnswers) -> list[tuple[str, list, list]]:
    """The StatDP input patterns for ``space.m_max`` answers at the centre of the box, each
    answer moved by ±bound (clipped into the box)."""
    m, b = space.m_max, space.bound
    c = 0.5 * (space.lo + space.hi)
    up, down, base = c + b, c - b, [c] * m
    half = max(m // 2, 1)
    patterns = [("one-above", base, [up] + [c] * (m - 1)),
                ("one-below", base, [down] + [c] * (m - 1)),
                ("one-above-rest-below", base, [up] + [down] * (m - 1)),
                ("one-below-rest-above", base, [down] + [up] * (m - 1)),
                ("half-half", base, [up] * half + [down] * (m - half)),
                ("all-above", base, [up] * m),
                ("all-below", base, [down] * m),
                ("x-shape", [up] * half + [c] * (m - half), [c] * half + [up] * (m - half))]
    return [(name, np.clip(d0, space.lo, space.hi).tolist(),
             np.clip(d1, space.lo, space.hi).tolist()) for name, d0, d1 in patterns]


#: the source of a space's named adversarial pairs (:meth:`DatasetSpace.proposals`)
PROPOSAL = "proposal"


def _refusal(mech, d0, d1) -> str | None:
    """Why the mechanism refuses the pair (its relation, or its dataset check raising), None
    when it takes it."""
    try:
        ok, why = mech.check_pair(d0, d1)
    except Exception as exc:  # noqa: BLE001 - a dataset the mechanism does not take
        return f"{type(exc).__name__}: {exc}"
    return None if ok else (why or "not neighbouring")


def candidate_pairs(mech, rng: np.random.Generator, how_many: int = SearchBudget().candidates,
                    proposals: bool = True) -> tuple[list[tuple[str, NeighbourPair]], int]:
    """(source, pair) candidates from the dataset space — its adversarial proposals first
    (source ``"proposal"``, each named ``searched-<proposal>`` with its reason as the pair's
    description), then the corners and extremes, ``how_many`` random ones and the StatDP
    patterns — and how many the mechanism refused (its relation, or its dataset check
    raising: a proposal outside the mechanism's domain)."""
    if not isinstance(mech, SearchableDatasets):
        return [], 0
    space = mech.dataset_space()
    centre = np.full(space.dimension, 0.5)
    raw = [(PROPOSAL, p.name, p.d0, p.d1,
            p.why if p.inside else f"{p.why} (outside the space's declared domain; the "
                                   f"mechanism takes it)")
           for p in (proposals_of(space) if proposals else ())]
    raw += [("corner", None, *space.from_vector(np.zeros(space.dimension)), ""),
            ("corner", None, *space.from_vector(np.ones(space.dimension)), ""),
            ("extreme", None, *space.from_vector(np.concatenate([centre[:-1], [0.0]])), ""),
            ("extreme", None, *space.from_vector(np.concatenate([centre[:-1], [1.0]])), "")]
    raw += [("random", None, *space.random_pair(rng), "") for _ in range(how_many)]
    if isinstance(space, QueryAnswers):
        raw += [("statdp", name, d0, d1, "") for name, d0, d1 in statdp_patterns(space)]
    out, seen, rejected = [], set(), 0
    n_proposals = sum(1 for r in raw if r[0] == PROPOSAL)
    for i, (source, name, d0, d1, why) in enumerate(raw):
        key = repr((d0, d1))
        if key in seen:
            continue
        seen.add(key)
        if _refusal(mech, d0, d1) is not None:
            rejected += 1
            continue
        # the corners, extremes and random pairs keep the numbers they had before proposals
        label = name if name is not None else f"{source}-{i - n_proposals}"
        out.append((source, NeighbourPair(f"searched-{label}", d0, d1, why)))
    return out, rejected


def _scalar_score(a: np.ndarray, b: np.ndarray) -> float:
    """The best ε of one-sided Clopper–Pearson bounds over {s ≥ t}, {s ≤ t} at the pooled
    quantiles, both directions."""
    ts = np.unique(np.quantile(np.concatenate([a, b]), SCREEN_QUANTILES))
    a, b = np.sort(a), np.sort(b)
    n0, n1 = len(a), len(b)
    ge0 = n0 - np.searchsorted(a, ts, side="left")
    ge1 = n1 - np.searchsorted(b, ts, side="left")
    le0 = np.searchsorted(a, ts, side="right")
    le1 = np.searchsorted(b, ts, side="right")
    best = 0.0
    for k_a, k_b in ((ge0, ge1), (le0, le1)):
        for num, n_num, den, n_den in ((k_a, n0, k_b, n1), (k_b, n1, k_a, n0)):
            eps = epsilon_from_counts(num, n_num, den, n_den, significance=SCREEN_SIGNIFICANCE)
            best = max(best, float(np.max(eps)))
    return best


def plug_in_score(x0: np.ndarray, x1: np.ndarray) -> float:
    """The screening score of two samples (see the module docstring)."""
    a = np.nan_to_num(np.asarray(x0, dtype=float).reshape(len(x0), -1), nan=-1e12,
                      posinf=1e12, neginf=-1e12)
    b = np.nan_to_num(np.asarray(x1, dtype=float).reshape(len(x1), -1), nan=-1e12,
                      posinf=1e12, neginf=-1e12)
    if a.shape[1] == 1:
        return _scalar_score(a[:, 0], b[:, 0])
    w = a.mean(axis=0) - b.mean(axis=0)
    best = _scalar_score(a @ w, b @ w)
    for j in range(min(a.shape[1], SCREEN_COORDINATES)):
        best = max(best, _scalar_score(a[:, j], b[:, j]))
    return best


def screen(mech, pair: NeighbourPair, samples: int, seed: int, index: int) -> float:
    """The plug-in score of one pair on ``samples`` fresh draws per side.

    Raises:
      ValueError: the outputs of a side hold NaN (the audit cannot certify such a pair: its
        sampler check refuses NaN outputs; the grey-box replay reports it,
        :mod:`dpaudit.replay`)."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 5, index]))
    x0, x1 = mech.sample(pair.d0, samples, rng), mech.sample(pair.d1, samples, rng)
    for side, x in (("d0", x0), ("d1", x1)):
        x = np.asarray(x)
        if x.dtype.kind == "f" and np.isnan(x).any():
            raise ValueError(f"the outputs on {side} hold NaN")
    return plug_in_score(x0, x1)


def _safe_score(mech, pair: NeighbourPair, samples: int, seed: int, index: int) -> float:
    """A pair's screening score; −∞ when the pair cannot be sampled (a named pair's own test
    reports why; a candidate that makes the mechanism raise is not kept)."""
    try:
        return screen(mech, pair, samples, seed, index)
    except Exception:  # noqa: BLE001 - see the docstring
        return -math.inf


def _screen_index(candidates: list[tuple[str, NeighbourPair]], i: int) -> int:
    """The screening stream of candidate ``i``: 3000 + j for the j-th proposal, 1000 + k for
    the k-th other candidate (the streams they had before proposals existed)."""
    source = candidates[i][0]
    before = sum(1 for s, _ in candidates[:i] if (s == PROPOSAL) == (source == PROPOSAL))
    return (3000 if source == PROPOSAL else 1000) + before


def search_pairs(mech, named: list[NeighbourPair], *, samples: int, seed: int,
                 budget: SearchBudget = SearchBudget()) -> PairSearch:
    """Screen the candidates of ``mech``'s dataset space beside the ``named`` pairs and keep
    the ``budget.keep`` best (see the module docstring).  ``samples`` is the audit's per-side
    size (it sets the screening size unless the budget fixes it)."""
    n = budget.screen_size(samples)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 5]))
    candidates, rejected = candidate_pairs(mech, rng, budget.candidates, budget.proposals)
    base = max((_safe_score(mech, p, n, seed, 1 + j) for j, p in enumerate(named)),
               default=-math.inf)
    screened = tuple(ScreenedPair(p, source, _safe_score(mech, p, n, seed,
                                                         _screen_index(candidates, i)))
                     for i, (source, p) in enumerate(candidates))
    ranked = sorted(range(len(screened)), key=lambda i: (-screened[i].score, i))
    kept = [screened[i] for i in ranked if screened[i].score > -math.inf][:budget.keep]
    return PairSearch(screened=screened, worst_case_score=base, kept=tuple(kept),
                      screen_samples=n, rejected=rejected,
                      unusable=sum(1 for c in screened if c.score == -math.inf))


def searched_pair(mech, named: list[NeighbourPair], slot: int, *, samples: int, seed: int,
                  budget: SearchBudget, key: tuple) -> tuple[NeighbourPair, dict]:
    """The searched pair at rank ``slot`` (0-based) of the point's search and its provenance
    (:meth:`PairSearch.summary`).  ``key`` names the point and its search seed: the search runs
    once per process for the tests of a point that land there.

    Raises:
      ValueError: the dataset space gave fewer than ``slot + 1`` neighbouring candidates.
    """
    search = _RECENT.get(key)
    if search is None:
        search = search_pairs(mech, named, samples=samples, seed=seed, budget=budget)
        if len(_RECENT) >= _RECENT_SIZE:
            _RECENT.pop(next(iter(_RECENT)))
        _RECENT[key] = search
    if slot >= len(search.kept):
        raise ValueError(f"the pair search found {len(search.kept)} neighbouring candidate "
                         f"pair(s) in the dataset space ({search.rejected} rejected by the "
                         f"relation), fewer than search.keep = {budget.keep}")
    return search.kept[slot].pair, search.summary(slot)


__all__ = ["PROPOSAL", "PairSearch", "SCREEN_COORDINATES", "SCREEN_QUANTILES", "ScreenedPair",
           "candidate_pairs", "plug_in_score", "search_pairs", "searched_pair",
           "statdp_patterns"]
