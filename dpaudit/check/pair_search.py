"""Pair search for the black-box step: do not audit only the pairs the mechanism names.

A bug moves the worst case: a noise scale that depends on the dataset size, a clipping bound
that does not match Δ.  :func:`search_pairs` proposes candidate neighbouring pairs beyond
``worst_case_pairs()`` and screens them:

* **candidates** — from the mechanism's ``dataset_space()`` (when it declares
  :class:`~dpaudit.mechanisms.capabilities.SearchableDatasets`): the two corners of its
  parametrisation (all-0 / all-1 vectors: for add/remove spaces the smallest and the largest
  sizes) and :data:`RANDOM_CANDIDATES` random pairs (of random sizes); for spaces of query
  answers (:class:`~dpaudit.neighbours.spaces.QueryAnswers`) also the StatDP input patterns
  of Ding et al. (CCS 2018) — one above, one below, one above rest below, one below rest
  above, half half, all above, all below, x-shape — scaled to the space's bound.  Every
  candidate is checked with the mechanism's ``check_pair``;
* **screening** — each candidate, and each worst-case pair, is sampled ``screen`` times per
  side (``SeedSequence([seed, 5, i])``, never reused) and scored by a cheap plug-in: the
  largest ε that one-sided Clopper–Pearson bounds at significance :data:`SCREEN_SIGNIFICANCE`
  give over the events {s ≥ t}, {s ≤ t} at 99 pooled quantiles of the output (vectors:
  projected on the difference of the two sample means), both directions;
* **selection** — at most :data:`KEEP` candidates whose score exceeds the best worst-case
  pair's are kept.

Statistics: the screening samples only *choose* pairs and never enter a certificate.  The
black-box step then certifies the worst-case pairs and the kept ones on fresh samples,
Bonferroni over exactly those certified pairs — so the family counts every pair that can
produce the reported number, and the screened-out ones need no share of the error budget
(selection on independent data, as in the estimator's own selection/certification split).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpaudit.mechanisms.capabilities import SearchableDatasets
from dpaudit.neighbours.pairs import NeighbourPair
from dpaudit.neighbours.spaces import QueryAnswers
from dpaudit.stats.epsilon import epsilon_from_counts

RANDOM_CANDIDATES = 16
KEEP = 2
SCREEN_SAMPLES = 20_000
SCREEN_SIGNIFICANCE = 0.01


@dataclass(frozen=True)
class ScreenedPair:
    """One screened pair: where it came from and its plug-in score."""

    pair: NeighbourPair
    source: str
    score: float


@dataclass(frozen=True)
class PairSearch:
    """What :func:`search_pairs` tried and kept."""

    screened: tuple[ScreenedPair, ...]
    worst_case_score: float
    kept: tuple[ScreenedPair, ...]
    screen_samples: int
    rejected: int = 0

    def to_dict(self) -> dict:
        return {"screen_samples": self.screen_samples, "candidates": len(self.screened),
                "rejected": self.rejected, "worst_case_score": self.worst_case_score,
                "kept": [{"pair": s.pair.name, "source": s.source, "score": s.score,
                          "d0": s.pair.d0, "d1": s.pair.d1} for s in self.kept],
                "sources": sorted({s.source for s in self.screened})}


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


def candidate_pairs(mech, rng: np.random.Generator) -> tuple[list[tuple[str, NeighbourPair]], int]:
    """(source, pair) candidates from the dataset space, and how many the relation rejected."""
    if not isinstance(mech, SearchableDatasets):
        return [], 0
    space = mech.dataset_space()
    raw = [("corner", *space.from_vector(np.zeros(space.dimension))),
           ("corner", *space.from_vector(np.ones(space.dimension)))]
    raw += [("random", *space.random_pair(rng)) for _ in range(RANDOM_CANDIDATES)]
    if isinstance(space, QueryAnswers):
        raw += [(f"statdp {name}", d0, d1) for name, d0, d1 in statdp_patterns(space)]
    out, seen, rejected = [], set(), 0
    for i, (source, d0, d1) in enumerate(raw):
        key = repr((d0, d1))
        if key in seen:
            continue
        seen.add(key)
        if not mech.check_pair(d0, d1)[0]:
            rejected += 1
            continue
        name = source.split(" ", 1)[1] if source.startswith("statdp") else f"{source}-{i}"
        out.append((source.split(" ")[0], NeighbourPair(f"searched-{name}", d0, d1)))
    return out, rejected


def plug_in_score(x0: np.ndarray, x1: np.ndarray) -> float:
    """The screening score of two samples (see the module docstring)."""
    a = np.nan_to_num(np.asarray(x0, dtype=float).reshape(len(x0), -1), posinf=1e12,
                      neginf=-1e12)
    b = np.nan_to_num(np.asarray(x1, dtype=float).reshape(len(x1), -1), posinf=1e12,
                      neginf=-1e12)
    if a.shape[1] > 1:
        w = a.mean(axis=0) - b.mean(axis=0)
        a, b = a @ w, b @ w
    else:
        a, b = a[:, 0], b[:, 0]
    ts = np.unique(np.quantile(np.concatenate([a, b]), np.linspace(0.01, 0.99, 99)))
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


def screen(mech, pair: NeighbourPair, samples: int, seed: int, index: int) -> float:
    """The plug-in score of one pair on ``samples`` fresh draws per side."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 5, index]))
    return plug_in_score(mech.sample(pair.d0, samples, rng), mech.sample(pair.d1, samples, rng))


def search_pairs(mech, worst_case: list[NeighbourPair], *, samples: int, seed: int) -> PairSearch:
    """Screen the candidates against the worst-case pairs and keep the stronger ones."""
    n = int(min(SCREEN_SAMPLES, max(2_000, samples // 10)))
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 5]))
    candidates, rejected = candidate_pairs(mech, rng)
    base = max((screen(mech, p, n, seed, 1 + j) for j, p in enumerate(worst_case)),
               default=-math.inf)  # no named pairs: keep the strongest candidates
    screened = tuple(ScreenedPair(p, source, screen(mech, p, n, seed, 1000 + i))
                     for i, (source, p) in enumerate(candidates))
    stronger = sorted((s for s in screened if s.score > base), key=lambda s: -s.score)
    return PairSearch(screened=screened, worst_case_score=base, kept=tuple(stronger[:KEEP]),
                      screen_samples=n, rejected=rejected)


__all__ = ["KEEP", "PairSearch", "RANDOM_CANDIDATES", "SCREEN_SAMPLES", "ScreenedPair",
           "candidate_pairs", "plug_in_score", "search_pairs", "statdp_patterns"]
