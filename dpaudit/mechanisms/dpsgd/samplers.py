"""Batch samplers of DP-SGD: which records enter which of the T = n/b steps of an epoch.

Chua et al. (ICML 2024, Sec. 2) name four; each is a small frozen dataclass with two draws of
one epoch, vectorised over ``size`` independent runs:

* ``epoch_sums(values, steps, size, rng)`` — the batch sums Σ_{x ∈ S_t} ψ(x) of an arbitrary
  dataset (``values``: the n clipped per-record gradients), shape (size, steps): the general
  simulation, whose cost grows with n;
* ``canary_epoch(n, steps, index, size, rng)`` — for a dataset whose records all share one value
  except the record at ``index`` (the gradient-canary datasets of the papers): the number of the
  *other* records in each batch and whether the odd record is in it, both (size, steps) int
  arrays; the batch sums are then v·others + u·member, at a cost free of n.

Invariants (tested): a fixed-size sampler puts exactly b = n/T records in every batch and every
record in exactly one batch per epoch; balls-and-bins puts every record in exactly one batch
per epoch (batch sizes vary); Poisson includes each record in each step independently with
probability q = b/n (= 1/T for an epoch of T = n/b steps).  Epochs are independent (a fresh permutation / assignment / coin per
epoch).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

#: floats per block of the general simulation (bounds its memory)
_BLOCK = 4_000_000


class BatchSampler(abc.ABC):
    """One epoch of a batch sampler (module docstring)."""

    name: ClassVar[str] = "abstract"
    #: every batch holds exactly b records
    fixed_size: ClassVar[bool] = True

    @abc.abstractmethod
    def epoch_sums(self, values: np.ndarray, steps: int, size: int,
                   rng: np.random.Generator) -> np.ndarray:
        """(size, steps) batch sums of one epoch over the records ``values``."""

    @abc.abstractmethod
    def canary_epoch(self, n: int, steps: int, index: int, size: int,
                     rng: np.random.Generator, count_others: bool = True
                     ) -> tuple[np.ndarray | None, np.ndarray]:
        """(others, member), each (size, steps): how many of the n − 1 other records, and
        whether the record ``index``, are in each batch of one epoch; ``others`` is None when
        not ``count_others`` (the other records are 0: their counts are not drawn)."""


def _one_hot(position: np.ndarray, steps: int) -> np.ndarray:
    out = np.zeros((position.size, steps), dtype=np.int64)
    out[np.arange(position.size), position] = 1
    return out


@dataclass(frozen=True)
class Deterministic(BatchSampler):
    """Batch t holds records t·b, …, (t+1)·b − 1 in every epoch (no randomness)."""

    name: ClassVar[str] = "deterministic"

    def epoch_sums(self, values, steps, size, rng):
        sums = values.reshape(steps, -1).sum(axis=1)
        return np.broadcast_to(sums, (size, steps)).copy()

    def canary_epoch(self, n, steps, index, size, rng, count_others=True):
        member = _one_hot(np.full(size, index // (n // steps)), steps)
        return (n // steps) - member, member


@dataclass(frozen=True)
class Shuffle(BatchSampler):
    """A fresh uniformly random permutation per epoch, then consecutive blocks of b."""

    name: ClassVar[str] = "shuffle"

    def epoch_sums(self, values, steps, size, rng):
        n = values.size
        rows = max(1, _BLOCK // n)
        out = np.empty((size, steps))
        for lo in range(0, size, rows):
            hi = min(size, lo + rows)
            perm = rng.permuted(np.broadcast_to(values, (hi - lo, n)), axis=1)
            out[lo:hi] = perm.reshape(hi - lo, steps, -1).sum(axis=2)
        return out

    def canary_epoch(self, n, steps, index, size, rng, count_others=True):
        # the odd record's position is uniform over the n slots, so its batch is uniform
        member = _one_hot(rng.integers(0, steps, size=size), steps)
        return (n // steps) - member, member


@dataclass(frozen=True)
class BallsAndBins(BatchSampler):
    """Every record goes to one uniformly random step of the epoch, independently."""

    name: ClassVar[str] = "balls-and-bins"
    fixed_size: ClassVar[bool] = False

    def epoch_sums(self, values, steps, size, rng):
        n = values.size
        rows = max(1, _BLOCK // n)
        out = np.empty((size, steps))
        for lo in range(0, size, rows):
            hi = min(size, lo + rows)
            step = rng.integers(0, steps, size=(hi - lo, n))
            flat = (np.arange(hi - lo)[:, None] * steps + step).ravel()
            out[lo:hi] = np.bincount(flat, weights=np.tile(values, hi - lo),
                                     minlength=(hi - lo) * steps).reshape(hi - lo, steps)
        return out

    def canary_epoch(self, n, steps, index, size, rng, count_others=True):
        member = _one_hot(rng.integers(0, steps, size=size), steps)
        if not count_others:
            return None, member
        others = rng.multinomial(n - 1, np.full(steps, 1.0 / steps), size=size)
        return others.astype(np.int64), member


@dataclass(frozen=True)
class Poisson(BatchSampler):
    """Each record joins each step independently with probability q = ``rate`` (default
    1/T = b/n, the rate of an epoch of T steps; a run of any T steps at rate b/n sets it)."""

    name: ClassVar[str] = "poisson"
    fixed_size: ClassVar[bool] = False
    rate: float | None = None

    def q(self, steps: int) -> float:
        return 1.0 / steps if self.rate is None else self.rate

    def epoch_sums(self, values, steps, size, rng):
        n = values.size
        rows = max(1, _BLOCK // (n * steps))
        out = np.empty((size, steps))
        for lo in range(0, size, rows):
            hi = min(size, lo + rows)
            member = rng.random((hi - lo, steps, n)) < self.q(steps)
            out[lo:hi] = member @ values
        return out

    def canary_epoch(self, n, steps, index, size, rng, count_others=True):
        q = self.q(steps)
        member = (rng.random((size, steps)) < q).astype(np.int64)
        if not count_others:
            return None, member
        return rng.binomial(n - 1, q, size=(size, steps)), member


#: name → sampler, as the mechanisms' names use them
SAMPLERS: dict[str, BatchSampler] = {s.name: s for s in (Deterministic(), Shuffle(),
                                                          BallsAndBins(), Poisson())}

__all__ = ["BallsAndBins", "BatchSampler", "Deterministic", "Poisson", "SAMPLERS", "Shuffle"]
