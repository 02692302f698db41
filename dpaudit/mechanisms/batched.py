"""A sampler from a library call that releases K independent outputs at once.

Analytics libraries release one noisy value **per partition** (PipelineDP, Tumult) or **per
group** (SmartNoise's ``GROUP BY``), and one call costs 0.1–250 ms whatever the number of
partitions.  Replicating the dataset over K disjoint partitions — copy j of every row gets
privacy id (j, user) and key (j, key) — makes one call return K outputs, one per copy; an
audit that needs 10⁵ outputs per side then makes 10⁵ / K calls instead of 10⁵.
:func:`batched_sampler` turns such a call into dpaudit's ``sampler(dataset, n, rng)``::

    from dpaudit import batched_sampler

    @batched_sampler(copies=500)
    def noisy_counts(dataset, k, rng, epsilon=1.0):     # one library call -> k outputs
        rows = replicate_rows(dataset, k)               # k disjoint copies
        released = library_aggregate(rows, epsilon)     # {(copy, key): value}
        return collect(released, k, keys=range(3))      # array (k, 3)

**The condition.**  The k outputs of one call must be independent and each distributed as
one call on the dataset alone: P[(Y₁, …, Y_k) ∈ ·] = ⊗ⱼ P_D.  For disjoint copies this holds
when (a) the library's noise, sampling and selection act per partition (or per privacy unit)
with fresh randomness, (b) nothing is shared across partitions — no budget split by the number
of partitions, no cross-partition bound that binds (each copy's users are distinct, so a
per-user bound never spans copies), no data-dependent parameter read from the whole table
(a quantile, a count of partitions), and (c) the output of a partition depends on its own rows
only.  Then the n outputs of ⌈n/K⌉ calls are n independent draws of the mechanism on D, and
every certificate dpaudit computes from them is valid as it would be for n single calls.

**Checked where it can be.**  (a)–(c) are read from the library's code and stated in each
adapter's docstring; :func:`check_independence` tests what samples can show: outputs of
different copies of one call are uncorrelated (Spearman's ρ over disjoint random pairs of
copies, each call its own pairs) and copies in the first and second halves of a call have one
law (a two-sample Kolmogorov–Smirnov test), at a stated false-alarm rate α (Bonferroni over
the tests, so P[a correct batched sampler fails] ≤ α).  A pass does not prove independence
(no test can); a failure shows a dependence the audit must not ignore.

Contract of ``fn(dataset, k, rng, **params)`` (or ``fn(dataset, k, **params)`` for a library
that draws from its own generator): returns ``k`` outputs (shape ``(k,)`` or ``(k, w)``).  The
sampler calls it with ``k = min(copies, outputs still needed)``; its signature shows ``fn``'s
keyword parameters, like :func:`~dpaudit.mechanisms.per_call.per_call_sampler`.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass

import numpy as np

#: the default false-alarm rate of :func:`check_independence`
INDEPENDENCE_ALPHA = 0.01


def _takes_rng(fn) -> bool:
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return True
    if len(params) < 2:
        raise ValueError(f"batched_sampler: {getattr(fn, '__name__', fn)!r} must take "
                         f"(dataset, k, rng, **params) or (dataset, k, **params)")
    return len(params) >= 3 and (params[2].name == "rng"
                                 or params[2].default is inspect.Parameter.empty)


def draw_batched(fn, dataset, n: int, rng, copies: int, takes_rng: bool = True,
                 **params) -> np.ndarray:
    """``n`` outputs of ``fn`` in calls of at most ``copies`` outputs each (stacked rows).

    Raises:
      ValueError: a call returned a number of rows other than the ``k`` asked for, or rows
        of another width than the first call's (the message names ``fn``)."""
    name = getattr(fn, "__name__", type(fn).__name__)
    parts, left = [], int(n)
    while left > 0:
        k = min(int(copies), left)
        out = np.asarray(fn(dataset, k, rng, **params) if takes_rng else
                         fn(dataset, k, **params))
        if out.ndim == 0 or out.shape[0] != k:
            raise ValueError(f"batched_sampler({name}): a call asked for {k} outputs returned "
                             f"shape {out.shape}")
        if parts and out.shape[1:] != parts[0].shape[1:]:
            raise ValueError(f"batched_sampler({name}): calls returned rows of widths "
                             f"{parts[0].shape[1:]} and {out.shape[1:]}")
        parts.append(out)
        left -= k
    if not parts:
        return np.zeros(0)
    return np.concatenate(parts, axis=0)


def batched_sampler(fn=None, *, copies: int = 256):
    """The sampler ``sampler(dataset, n, rng, **params)`` from a K-outputs-per-call ``fn``.

    Usable as ``@batched_sampler`` or ``@batched_sampler(copies=K)``; ``sampler.batched`` is
    ``fn`` and ``sampler.copies`` is K (see the module docstring for the contract and the
    independence condition).

    Raises:
      ValueError: ``copies`` is not an integer ≥ 1, or ``fn`` cannot take (dataset, k).
    """
    if isinstance(copies, bool) or not isinstance(copies, int) or copies < 1:
        raise ValueError(f"batched_sampler: copies must be an integer ≥ 1, got {copies!r}")
    if fn is None:
        return functools.partial(batched_sampler, copies=copies)
    if not callable(fn) or isinstance(fn, type):
        raise ValueError(f"batched_sampler expects a function fn(dataset, k, rng, **params), "
                         f"got {type(fn).__name__}")
    takes_rng = _takes_rng(fn)
    name = getattr(fn, "__name__", None) or type(fn).__name__

    def sampler(dataset, n, rng, **params):
        return draw_batched(fn, dataset, n, rng, copies, takes_rng, **params)

    skip = 3 if takes_rng else 2
    try:
        rest = [p.replace(kind=p.KEYWORD_ONLY) if p.kind is not p.VAR_KEYWORD else p
                for p in list(inspect.signature(fn).parameters.values())[skip:]
                if p.kind is not p.VAR_POSITIONAL]
    except (TypeError, ValueError):
        rest = [inspect.Parameter("params", inspect.Parameter.VAR_KEYWORD)]
    sampler.__signature__ = inspect.Signature(
        [inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD)
         for a in ("dataset", "n", "rng")] + rest)
    sampler.__name__ = name
    sampler.__qualname__ = getattr(fn, "__qualname__", name)
    sampler.__doc__ = fn.__doc__
    sampler.__module__ = getattr(fn, "__module__", __name__)
    sampler.batched = fn
    sampler.copies = copies
    return sampler


def _varies(x: np.ndarray) -> bool:
    """Whether ``x`` holds two different values (a test needs them)."""
    return x.size > 1 and bool(np.any(x != x[0]))


@dataclass(frozen=True)
class IndependenceCheck:
    """What :func:`check_independence` found.

    Attributes:
      calls, copies: calls made and outputs per call.
      correlation: Spearman's ρ of the paired copies (per output coordinate tested).
      p_correlation, p_halves: p-values of "uncorrelated" and "both halves have one law".
      alpha: the family-wise false-alarm rate; ``passed`` when every p-value ≥ alpha / tests.
    """

    calls: int
    copies: int
    correlation: tuple[float, ...]
    p_correlation: tuple[float, ...]
    p_halves: tuple[float, ...]
    alpha: float

    @property
    def tests(self) -> int:
        return len(self.p_correlation) + len(self.p_halves)

    @property
    def passed(self) -> bool:
        level = self.alpha / max(self.tests, 1)
        return all(p >= level for p in self.p_correlation + self.p_halves)

    def describe(self) -> str:
        worst = min(self.p_correlation + self.p_halves, default=1.0)
        verdict = "no dependence found" if self.passed else "DEPENDENT outputs"
        return (f"{verdict} between the {self.copies} outputs of one call ({self.calls} calls; "
                f"Spearman ρ max |{max(map(abs, self.correlation), default=0.0):.3g}|, smallest "
                f"p = {worst:.3g} against α = {self.alpha:g} over {self.tests} tests)")


def check_independence(fn, dataset, *, copies: int, calls: int, rng: np.random.Generator,
                       alpha: float = INDEPENDENCE_ALPHA, coordinates: int = 4,
                       **params) -> IndependenceCheck:
    """Test the batch condition of ``fn`` (a batched function, or a sampler made by
    :func:`batched_sampler`) on ``dataset`` from ``calls`` calls of ``copies`` outputs.

    Tests, for each of the first ``coordinates`` output coordinates: Spearman's rank
    correlation of (Y_a, Y_b) over disjoint random pairs {a, b} of copies of one call (pairs
    of one call and of different calls are independent under the null, so the test's level
    holds); and a two-sample KS test between the outputs of copies ``< copies/2`` and
    ``≥ copies/2``.  A coordinate constant in the sample is skipped (nothing to test).  Under
    the batch condition P[not passed] ≤ ``alpha`` (Bonferroni).

    Raises:
      ValueError: ``copies`` < 4, ``calls`` < 2, or ``alpha`` outside (0, 1).
    """
    from scipy import stats

    if copies < 4 or calls < 2 or not 0 < alpha < 1:
        raise ValueError(f"check_independence: need copies ≥ 4, calls ≥ 2 and 0 < alpha < 1, "
                         f"got {copies}, {calls}, {alpha}")
    fn = getattr(fn, "batched", fn)
    takes_rng = _takes_rng(fn)
    blocks = [np.asarray(fn(dataset, copies, rng, **params) if takes_rng else
                         fn(dataset, copies, **params), dtype=float).reshape(copies, -1)
              for _ in range(calls)]
    width = min(blocks[0].shape[1], coordinates)
    rho, p_rho, p_ks = [], [], []
    for c in range(width):
        left, right = [], []
        for block in blocks:
            order = rng.permutation(copies)
            half = copies // 2
            left.append(block[order[:half], c])
            right.append(block[order[half:2 * half], c])
        a, b = np.concatenate(left), np.concatenate(right)
        finite = np.isfinite(a) & np.isfinite(b)
        if _varies(a[finite]) and _varies(b[finite]):
            r = stats.spearmanr(a[finite], b[finite])
            rho.append(float(r.statistic))
            p_rho.append(float(r.pvalue))
        first = np.concatenate([block[:copies // 2, c] for block in blocks])
        second = np.concatenate([block[copies // 2:, c] for block in blocks])
        if _varies(np.concatenate([first, second])):
            p_ks.append(float(stats.ks_2samp(first, second).pvalue))
    return IndependenceCheck(calls=calls, copies=copies, correlation=tuple(rho),
                             p_correlation=tuple(p_rho), p_halves=tuple(p_ks), alpha=alpha)


__all__ = ["INDEPENDENCE_ALPHA", "IndependenceCheck", "batched_sampler", "check_independence",
           "draw_batched"]
