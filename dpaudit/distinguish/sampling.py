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
from math import lgamma

import numpy as np

from dpaudit.distinguish.near_repeats import near_repeats
from dpaudit.util.read_only import DatasetWriteError, read_only_copy
from dpaudit.util.user_code import user_code

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
    """Call ``sampler(dataset, n, rng)`` and return a validated float/int array of n outputs.
    The sampler receives a read-only copy of ``dataset`` (:mod:`dpaudit.util.read_only`)."""
    who = f"sampler {getattr(sampler, '__name__', None) or type(sampler).__name__}"
    try:
        with user_code(who):
            out = sampler(read_only_copy(dataset), n, rng)
    except ValueError as exc:
        if "read-only" not in str(exc) or isinstance(exc, DatasetWriteError):
            raise
        raise DatasetWriteError(f"{who} wrote to its dataset on {side} ({exc}); datasets are "
                                f"read-only, so that every draw and the report see the pair "
                                f"as given: work on a copy (np.array(dataset))") from None
    if out is None:
        raise SamplerError(f"{who} returned None on {side} for n={n}; it must return n "
                           f"outputs, an array of shape ({n},) or ({n}, k)")
    try:
        arr = np.asarray(out)
    except Exception as exc:  # ragged lists and the like
        raise SamplerError(f"{who} output on {side} is not an array: {exc}") from None
    if arr.ndim == 0 or arr.shape[0] != n or arr.ndim > 2:
        raise SamplerError(
            f"{who} returned shape {arr.shape} on {side} for n={n}; expected ({n},) or ({n}, k)")
    if arr.dtype == bool:
        arr = arr.astype(np.int8)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise SamplerError(
            f"{who} returned dtype {arr.dtype} on {side}; outputs must be ints or floats "
            "(encode categories as integers)")
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise SamplerError(f"{who} returned zero-width outputs {arr.shape} on {side}")
    if np.issubdtype(arr.dtype, np.floating) and np.isnan(arr).any():
        raise SamplerError(
            f"{who} returned NaN on {side}; encode special outputs (e.g. 'no answer') as a "
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
               "differ (it draws from its own generator); the certificate is valid only if "
               "that generator gives independent draws, which dpaudit checks within the calls "
               "it compares (repeats within a call or across two calls are an error) but "
               "cannot check across processes, so its certification split is counted in this "
               "process; this run is not reproducible from its seed")

def ignores_rng(sampler, dataset, entropy: int) -> bool:
    """Whether two draws of ``RNG_CHECK_ROWS`` outputs with generators built from the same seed
    differ, i.e. the sampler draws from a generator of its own (e.g. a library's secure RNG).

    A sampler that honours ``rng`` always passes; one that ignores it is caught unless its two
    draws coincide by chance (possible only for outputs with very few values)."""
    def once():
        seq = np.random.SeedSequence(entropy, spawn_key=(2, 0, 0))  # phase 2: this check only
        with user_code(getattr(sampler, "__name__", None) or type(sampler).__name__):
            return np.asarray(sampler(read_only_copy(dataset), RNG_CHECK_ROWS,
                                      np.random.default_rng(seq)))
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


#: rows of each of the two calls :func:`repeats_between_calls` compares, at least
TWO_CALL_MIN_ROWS = 2048
#: the false-alarm probability each test of :func:`repeats_between_calls` is held to
TWO_CALL_FALSE_ALARM = 1e-9
REPEATS_WITHIN_CALLS = (
    "the sampler repeats its draws within a call: two calls of {rows} outputs under different "
    "seeds share no value, yet {classes} distinct values occur more than once within a call "
    "({duplicates} repeated rows); for independent draws that has probability ≤ {bound:.1e} "
    "(a periodic or copied draw, e.g. each value repeated k times), so its n outputs are not n "
    "independent draws and no bound can be certified; return n independent outputs drawn from "
    "the `rng` argument")
REPEATS_ACROSS_CALLS = (
    "the sampler returns the same {rows} outputs for two different seeds (probability ≤ "
    "{bound:.1e} for independent draws): at this size it re-seeds a generator of its own or "
    "caches its draws instead of drawing from the rng it is given, so its chunks are copies of "
    "one another (and of the selection split), not independent samples, and no bound can be "
    "certified; draw every random number from the `rng` argument")


def _row_classes(x: np.ndarray):
    """(class index of every row, multiplicities) of the rows of ``x``; rows are compared
    bit for bit (so −0.0 and 0.0 differ; NaN never reaches here, see :func:`draw`)."""
    x = np.ascontiguousarray(x.reshape(x.shape[0], -1))
    rows = x.view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))).ravel()
    _, inverse, counts = np.unique(rows, return_inverse=True, return_counts=True)
    return inverse.ravel(), counts


def repeats_between_calls(x: np.ndarray, r: np.ndarray, seed: int = 0) -> str | None:
    """Why two calls of the sampler on the same dataset, ``x`` and ``r`` (the same number S of
    rows, drawn with generators from different seeds), show repeated draws, or None.

    Three tests, each held to a false-alarm probability of 10⁻⁹ for i.i.d. draws of any law
    (so ≤ 3·10⁻⁹ together): the two below, on exact repeats, and the sorted-neighbour test of
    :func:`dpaudit.distinguish.near_repeats.near_repeats` on near-copies and partial repeats
    (its tie-break keys come from ``seed``, phase 2, apart from every sample stream).

    The test is conditional on the pooled multiset of the 2S rows and needs no assumption on
    the sampler's law (discrete, continuous, or float64 grid of either).  If the sampler draws
    2S i.i.d. rows, the rows are exchangeable, so given the pooled multiset the split into
    ``x`` and ``r`` is a uniformly random split into two halves of S.  Two events are flagged:

    * **Within-call repeats.**  Every value that occurs more than once lies entirely in one
      call (no value is shared by the calls), and there are many such values.  Take the
      repeated values in increasing multiplicity while their rows total ≤ S/2, s of them.
      Placing their rows first (sampling without replacement), each side keeps ≥ S/2 of its S
      free slots, so the chance p that a row goes to ``x`` stays in [1/3, 2/3], and a value of
      multiplicity k ≥ 2 lands wholly on one side with probability ≤ p^k + (1 − p)^k ≤ 5/9,
      whatever happened before.  So P(flag | multiset) ≤ (5/9)^s, and the test flags only
      when (5/9)^s ≤ :data:`TWO_CALL_FALSE_ALARM` (s ≥ 36).  A sampler that returns each of
      S/k independent values k times (np.repeat or np.tile) gives s ≈ S/(2k) and no shared
      value when its law is continuous: S = 2048 catches k ≤ 28.
    * **Across-call repeats.**  ``x`` equals ``r`` row for row.  With pooled multiplicities
      2k_j, the number of arrangements with x = r over all arrangements is
      ∏C(2k_j, k_j) / (C(2S, S)·multinomial(S; k)) ≤ 2√S / multinomial(S; k), since
      C(2k, k) ≤ 4^k and C(2S, S) ≥ 4^S/(2√S).  The test flags when that bound is ≤
      :data:`TWO_CALL_FALSE_ALARM` (e.g. ≥ 15 distinct rows among S; never for a constant
      output, whose bound is 2√S).

    Each flag therefore has probability ≤ 10⁻⁹ for a sampler that draws i.i.d. outputs,
    whatever its law; with the near-copy test, all three together ≤ 3·10⁻⁹.  Not covered: repeats of a law with few values
    (copies of a coin flip share values across calls and are indistinguishable from fresh
    flips here), and repeats between calls this check does not compare (other processes, or
    sizes above S; see :data:`IGNORES_RNG`).  In an audit S is the size of the selection
    split's first chunk, at least :data:`TWO_CALL_MIN_ROWS` (:func:`two_call_sample`), so a
    sampler that re-seeds only for n above that size (and below its certification chunks)
    is not caught."""
    rows = x.shape[0]
    if r.shape != x.shape or rows < 2:
        return None
    classes, counts = _row_classes(np.concatenate([x, r], axis=0))
    if _equal(x, r):
        half = counts // 2
        log_bound = (np.log(2.0) + 0.5 * np.log(rows)
                     - (lgamma(rows + 1) - sum(lgamma(int(k) + 1) for k in half)))
        if log_bound <= np.log(TWO_CALL_FALSE_ALARM):
            return REPEATS_ACROSS_CALLS.format(rows=rows, bound=float(np.exp(log_bound)))
        return None
    in_x = np.bincount(classes[:rows], minlength=counts.size)
    repeated = counts >= 2
    shared = repeated & (in_x > 0) & (in_x < counts)
    if not shared.any():
        multiplicities = np.sort(counts[repeated])
        s = int(np.searchsorted(np.cumsum(multiplicities), rows / 2, side="right"))
        bound = (5.0 / 9.0) ** s
        if bound <= TWO_CALL_FALSE_ALARM:
            return REPEATS_WITHIN_CALLS.format(rows=rows, classes=int(repeated.sum()),
                                               duplicates=int((counts[repeated] - 1).sum()),
                                               bound=bound)
    keys = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2, 3, 0)))
    return near_repeats(x, r, keys)


def two_call_sample(sampler, dataset, first: np.ndarray, entropy: int, *,
                    side: str = "d0") -> tuple[np.ndarray, np.ndarray]:
    """The two calls :func:`repeats_between_calls` compares: ``first`` (the selection split's
    first chunk, already drawn) and one more call of as many rows from a generator of its own
    (phase 2, this check only); when ``first`` has fewer than :data:`TWO_CALL_MIN_ROWS` rows,
    two calls of that many rows, both phase 2.  No stream of the audit is drawn again, so the
    certificate of a sampler that honours its rng does not change."""
    def call(j, rows):
        seq = np.random.SeedSequence(entropy, spawn_key=(2, 2, j))
        return draw(sampler, dataset, rows, np.random.default_rng(seq), side=side)
    if first.shape[0] >= TWO_CALL_MIN_ROWS:
        return first, call(0, first.shape[0])
    return call(1, TWO_CALL_MIN_ROWS), call(2, TWO_CALL_MIN_ROWS)
