"""Drawing mechanism outputs in reproducible chunks.

Every chunk of outputs comes from its own generator,
``default_rng(SeedSequence(entropy, spawn_key=(phase, side, index)))``, with a fixed chunk
size.  A chunk's outputs therefore depend only on (seed, phase, side, index) — not on how many
workers draw them or in which order — which is what makes results reproducible across
execution backends.  ``phase`` 0 is the selection split, 1 the certification split; ``side``
0 is d0, 1 is d1.

:func:`draw` also checks what a black-box sampler returns, so that a wrong shape, a NaN or a
non-numeric output produces a clear error here rather than a traceback deep inside numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: rows per chunk (fixed: part of the definition of a seed's sample stream)
CHUNK_ROWS = 1 << 16

SELECTION, CERTIFICATION = 0, 1


class SamplerError(ValueError):
    """The sampler returned something that is not n numeric outputs."""


@dataclass(frozen=True)
class Stream:
    """The chunked sample stream of one (phase, side)."""

    entropy: int
    phase: int
    side: int
    total: int
    chunk_rows: int = CHUNK_ROWS

    def chunks(self):
        """Yield (index, rows) for every chunk of this stream."""
        n_chunks = -(-self.total // self.chunk_rows)
        for index in range(n_chunks):
            rows = min(self.chunk_rows, self.total - index * self.chunk_rows)
            yield index, rows

    def rng(self, index: int) -> np.random.Generator:
        seq = np.random.SeedSequence(self.entropy, spawn_key=(self.phase, self.side, index))
        return np.random.default_rng(seq)


def draw(sampler, dataset, n: int, rng: np.random.Generator, *, side: str = "d0") -> np.ndarray:
    """Call ``sampler(dataset, n, rng)`` and return a validated float/int array of n outputs."""
    out = sampler(dataset, n, rng)
    try:
        arr = np.asarray(out)
    except Exception as exc:  # ragged lists and the like
        raise SamplerError(f"sampler output on {side} is not an array: {exc}") from None
    if arr.ndim == 0 or arr.shape[0] != n or arr.ndim > 2:
        raise SamplerError(
            f"sampler returned shape {arr.shape} on {side} for n={n}; expected ({n},) or ({n}, k)")
    if arr.dtype == bool:
        arr = arr.astype(np.int8)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise SamplerError(
            f"sampler returned dtype {arr.dtype} on {side}; outputs must be ints or floats "
            "(encode categories as integers)")
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise SamplerError(f"sampler returned zero-width outputs {arr.shape} on {side}")
    if np.issubdtype(arr.dtype, np.floating) and np.isnan(arr).any():
        raise SamplerError(
            f"sampler returned NaN on {side}; encode special outputs (e.g. 'no answer') as a "
            "finite value or ±inf")
    return arr


def draw_stream(sampler, dataset, stream: Stream, *, side: str) -> np.ndarray:
    """Draw a whole stream into memory (used for the selection split only)."""
    parts = [draw(sampler, dataset, rows, stream.rng(i), side=side) for i, rows in stream.chunks()]
    width = {p.shape[1:] for p in parts}
    if len(width) > 1:
        raise SamplerError(f"sampler returned outputs of varying shapes {sorted(width)} on {side}")
    return np.concatenate(parts, axis=0)


#: rows of each of the two same-seed draws of :func:`ignores_rng`
RNG_CHECK_ROWS = 32
#: the warning an audit of a sampler that ignores its rng carries
IGNORES_RNG = ("the sampler ignores the rng: two draws of 32 outputs with the same seed "
               "differ (it draws from its own generator); the certified bound is still valid, "
               "but this run is not reproducible from its seed")


def ignores_rng(sampler, dataset, entropy: int) -> bool:
    """Whether two draws of ``RNG_CHECK_ROWS`` outputs with generators built from the same seed
    differ, i.e. the sampler draws from a generator of its own (e.g. a library's secure RNG).

    A sampler that honours ``rng`` always passes; one that ignores it is caught unless its two
    draws coincide by chance (possible only for outputs with very few values)."""
    def once():
        seq = np.random.SeedSequence(entropy, spawn_key=(2, 0, 0))  # phase 2: this check only
        return np.asarray(sampler(dataset, RNG_CHECK_ROWS, np.random.default_rng(seq)))
    a, b = once(), once()
    if a.shape != b.shape:
        return True
    return not _equal(a, b)


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except TypeError:
        return bool(np.array_equal(a, b))


#: rows of each of the three different-seed draws of :func:`repeated_draws`
REPEAT_CHECK_ROWS = 256
REPEATS_ACROSS_SEEDS = (
    "the sampler returns the same {rows} outputs for three different seeds: it re-seeds a "
    "generator of its own (or caches its draws) instead of drawing from the rng it is given, so "
    "its chunks are copies of one another, not independent samples, and no bound can be "
    "certified; draw every random number from the `rng` argument")
REPEATS_WITHIN_CALL = (
    "the sampler returns one value repeated {rows} times per call (a different one for each "
    "seed): its n outputs are not n independent draws, so no bound can be certified; return n "
    "independent outputs drawn from the `rng` argument")


def repeated_draws(sampler, dataset, entropy: int, *, side: str = "d0") -> str | None:
    """Why the sampler's outputs are not independent draws, or None when nothing shows it.

    Three draws of :data:`REPEAT_CHECK_ROWS` outputs with generators from three different seeds
    (phase 2, this check only) are compared.  The sampler repeats its draws when

    * the three arrays are identical and not constant (it re-seeds a generator of its own on
      every call, so every chunk is the same chunk), or
    * each array is constant and they are not all equal (it draws one value per call).

    For a sampler that draws n i.i.d. outputs from ``rng`` the first has probability
    Σ_{x non-constant} P(x)³ ≤ 7.7·10⁻⁷ (the worst case is a two-valued output whose rarer value
    has probability ≈ 1/256), the second at most 3·4⁻²⁵⁶; a deterministic (constant) mechanism
    triggers neither.

    Raises:
      SamplerError: a draw is not a valid array of outputs (:func:`draw`)."""
    draws = []
    for j in range(3):
        seq = np.random.SeedSequence(entropy, spawn_key=(2, 1, j))
        draws.append(draw(sampler, dataset, REPEAT_CHECK_ROWS, np.random.default_rng(seq),
                          side=side))
    if any(d.shape != draws[0].shape for d in draws):
        return None

    def constant(a):
        return _equal(a, np.broadcast_to(a[:1], a.shape))

    if _equal(draws[0], draws[1]) and _equal(draws[0], draws[2]):
        return None if constant(draws[0]) else REPEATS_ACROSS_SEEDS.format(rows=REPEAT_CHECK_ROWS)
    if all(constant(d) for d in draws):
        return REPEATS_WITHIN_CALL.format(rows=REPEAT_CHECK_ROWS)
    return None
