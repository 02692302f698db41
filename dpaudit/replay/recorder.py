"""Recording a run's randomness, and replaying it on a neighbouring dataset.

A grey-box replay runs the user's code on D and then on D′ with the randomness held fixed
(Cebere et al., "Privacy in theory, bugs in practice", PETS 2026: record the random calls of
a run on D, replay them on D′).  Here the recorded unit is one *call* of a numpy sampling
function — ``rng.laplace(0, b, size=n)``, ``np.random.normal(...)``, ``rng.choice(k, p=p)`` —
with the state of its bit generator just before the call.  Replaying call i on D′ restores
that state first, so the call draws from the same raw bits: for numpy's samplers (inverse
transform, ziggurat, rejection from the same stream) the noise of D and D′ is then coupled,
and ``output(D′) − output(D)`` is what the data alone moved.  A call of D′'s run that is not
the call D's run made at the same index (another function, another generator) ends the
coupling: the runs have *diverged* (data-dependent control flow), and the calls after it draw
from wherever their generator stands.

What is seen (:class:`Session`, the context of one run):

* the sampler's ``rng`` — a :class:`RecordingGenerator`, a real :class:`numpy.random.Generator`
  (a subclass) whose sampling methods record their calls;
* the legacy global state: every function of ``numpy.random`` that draws from it
  (``np.random.laplace``, ``rand``, ``randint`` …, :data:`LEGACY_FUNCTIONS`) is replaced by a
  recording one while the run lasts;
* generators the code makes itself with ``np.random.default_rng(...)``: recording ones too,
  the j-th generator of D′'s run replaying the j-th of D's;
* Python's :mod:`random` module: seeded alike before each run (so its draws are coupled when
  the control flow is) and checked afterwards, but not recorded call by call.

Each run starts from the same seeded states (the legacy state and :mod:`random` are restored
to the caller's afterwards).  Not seen: generators built directly (``np.random.Generator(
PCG64())``, ``np.random.RandomState()``), a sampling function imported by name before the run
(``from numpy.random import laplace``), randomness from C extensions, ``secrets``,
``os.urandom``, torch and other libraries, and other threads or processes — the replay
detects that some randomness escaped it when two runs on the *same* dataset differ
(:mod:`dpaudit.replay.compare`).
"""

from __future__ import annotations

import contextlib
import inspect
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: the sampling methods of numpy.random.Generator a RecordingGenerator records
GENERATOR_METHODS = (
    "beta", "binomial", "bytes", "chisquare", "choice", "dirichlet", "exponential", "f",
    "gamma", "geometric", "gumbel", "hypergeometric", "integers", "laplace", "logistic",
    "lognormal", "logseries", "multinomial", "multivariate_hypergeometric",
    "multivariate_normal", "negative_binomial", "noncentral_chisquare", "noncentral_f",
    "normal", "pareto", "permutation", "permuted", "poisson", "power", "random", "rayleigh",
    "shuffle", "standard_cauchy", "standard_exponential", "standard_gamma", "standard_normal",
    "standard_t", "triangular", "uniform", "vonmises", "wald", "weibull", "zipf")
#: the functions of numpy.random that draw from the legacy global state
LEGACY_FUNCTIONS = (
    "beta", "binomial", "bytes", "chisquare", "choice", "dirichlet", "exponential", "f",
    "gamma", "geometric", "gumbel", "hypergeometric", "laplace", "logistic", "lognormal",
    "logseries", "multinomial", "multivariate_normal", "negative_binomial",
    "noncentral_chisquare", "noncentral_f", "normal", "pareto", "permutation", "poisson",
    "power", "rand", "randint", "randn", "random", "random_integers", "random_sample",
    "rayleigh", "shuffle", "standard_cauchy", "standard_exponential", "standard_gamma",
    "standard_normal", "standard_t", "triangular", "uniform", "vonmises", "wald", "weibull",
    "zipf")
#: arguments that only move a law (its location): their change moves the output by as much
ARGUMENT_ROLES = {"loc": "location", "scale": "scale", "p": "probabilities",
                  "sigma": "scale", "cov": "scale", "lam": "rate"}
#: how many array entries of an argument a Draw keeps
KEPT_ENTRIES = 64


@dataclass(frozen=True)
class Draw:
    """One recorded call.

    Attributes:
      source: which generator: ``"rng"`` (the sampler's), ``"np.random"`` (the legacy global
        state) or ``"default_rng#j"`` (the j-th generator the code made).
      method: the sampling function's name.
      arguments: name → value (numbers and small arrays as tuples of floats, anything else as
        its ``repr``), for comparing the calls of two runs.
      variates: how many values the call returned.
      state: the bit generator's state before the call (not compared, restored on replay).
    """

    source: str
    method: str
    arguments: dict
    variates: int
    state: Any = field(compare=False, repr=False)

    @property
    def site(self) -> tuple[str, str]:
        return self.source, self.method


def _value(v):
    """An argument as a comparable value: a float, a tuple of floats, or a repr."""
    if v is None or isinstance(v, (bool, str)):
        return v
    try:
        arr = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        return repr(v)[:200]
    if arr.ndim == 0:
        return float(arr)
    flat = arr.ravel()
    return tuple(float(x) for x in flat[:KEPT_ENTRIES]) + (("…", flat.size),) \
        if flat.size > KEPT_ENTRIES else tuple(float(x) for x in flat)


def _arguments(fn, args, kwargs) -> dict:
    """name → comparable value of a call's arguments (positional ones named from ``fn``'s
    signature where it has one)."""
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs).arguments
    except (TypeError, ValueError):
        bound = {**{f"arg{i}": a for i, a in enumerate(args)}, **kwargs}
    return {k: _value(v) for k, v in bound.items() if k not in ("self", "out")}


def _variates(out) -> int:
    try:
        return int(np.size(out))
    except Exception:  # noqa: BLE001 - an exotic return value counts as one
        return 1


class Session:
    """One recorded run (``script=None``) or one replay of a recorded run (``script`` = that
    run's :attr:`log`).  Use :meth:`generator` for the sampler's ``rng`` and run the code
    inside :meth:`active`.

    Attributes:
      log: the calls this run made, in order.
      diverged_at: the index of the first call that differs from the script (None: every
        call matched the script, or nothing is replayed).
      python_random: the code drew from Python's :mod:`random` module.
    """

    def __init__(self, seed: int, script: list[Draw] | None = None):
        self.seed = int(seed)
        self.script = script
        self.log: list[Draw] = []
        self.diverged_at: int | None = None
        self.python_random = False
        self._depth = 0
        self._made = 0

    # -- generators ---------------------------------------------------------------------
    def _bits(self, *key: int) -> np.random.PCG64:
        return np.random.PCG64(np.random.SeedSequence([self.seed, 0x3E91A7, *key]))

    def generator(self, source: str = "rng") -> "RecordingGenerator":
        """A recording generator seeded from the session's seed (the same on every run)."""
        return RecordingGenerator(self._bits(0), self, source)

    def call(self, source: str, get_state, set_state, method: str, fn, args, kwargs):
        """Run one sampling call, recording it (and, on replay, restoring the recorded state
        when the call is the one the script made at this index)."""
        if self._depth:  # a sampler calling another inside numpy: not a call of the user's
            return fn(*args, **kwargs)
        i = len(self.log)
        if self.script is not None and self.diverged_at is None:
            expected = self.script[i] if i < len(self.script) else None
            if expected is not None and expected.site == (source, method):
                set_state(expected.state)
            else:
                self.diverged_at = i
        state = get_state()
        self._depth += 1
        try:
            out = fn(*args, **kwargs)
        finally:
            self._depth -= 1
        self.log.append(Draw(source, method, _arguments(fn, args, kwargs), _variates(out),
                             state))
        return out

    # -- the patched numpy.random ---------------------------------------------------------
    @contextlib.contextmanager
    def active(self):
        """While the block runs: numpy's legacy functions and ``default_rng`` record into this
        session, and the legacy state and Python's :mod:`random` start from the session's
        seed; both are restored to the caller's afterwards."""
        legacy = np.random.mtrand._rand
        saved_legacy, saved_python = legacy.get_state(), random.getstate()
        saved_functions = {name: getattr(np.random, name) for name in LEGACY_FUNCTIONS
                           if hasattr(np.random, name)}
        saved_default_rng = np.random.default_rng
        legacy.seed(np.random.SeedSequence([self.seed, 0x3E91A7, 1]).generate_state(1)[0])
        random.seed(self.seed * 1_000_003 + 17)
        start_python = random.getstate()
        session = self

        def recording(name, fn):
            def function(*args, **kwargs):
                return session.call("np.random", legacy.get_state,
                                    lambda s: legacy.set_state(s), name, fn, args, kwargs)
            function.__name__ = name
            function.__wrapped__ = fn
            return function

        def default_rng(seed=None):
            session._made += 1
            return RecordingGenerator(session._bits(1, session._made), session,
                                      f"default_rng#{session._made}")

        try:
            for name, fn in saved_functions.items():
                setattr(np.random, name, recording(name, fn))
            np.random.default_rng = default_rng
            yield self
        finally:
            for name, fn in saved_functions.items():
                setattr(np.random, name, fn)
            np.random.default_rng = saved_default_rng
            self.python_random = random.getstate() != start_python
            legacy.set_state(saved_legacy)
            random.setstate(saved_python)


class RecordingGenerator(np.random.Generator):
    """A :class:`numpy.random.Generator` whose sampling methods (:data:`GENERATOR_METHODS`)
    record their calls into a :class:`Session` (and replay them)."""

    def __init__(self, bit_generator, session: Session, source: str):
        super().__init__(bit_generator)
        self._session, self._source = session, source

    def _get_state(self):
        return self.bit_generator.state

    def _set_state(self, state):
        self.bit_generator.state = state


def _recording_method(name: str):
    original = getattr(np.random.Generator, name)

    def method(self, *args, **kwargs):
        return self._session.call(self._source, self._get_state, self._set_state, name,
                                  _Bound(original, self), args, kwargs)

    method.__name__ = name
    method.__doc__ = original.__doc__
    return method


class _Bound:
    """``original`` bound to a generator, with the signature of the unbound method minus
    ``self`` where it has one (so that :func:`_arguments` names the positional arguments)."""

    def __init__(self, original, generator):
        self._original, self._generator = original, generator
        try:
            params = list(inspect.signature(original).parameters.values())[1:]
            self.__signature__ = inspect.Signature(params)
        except (TypeError, ValueError):
            pass

    def __call__(self, *args, **kwargs):
        return self._original(self._generator, *args, **kwargs)


for _name in GENERATOR_METHODS:
    if hasattr(np.random.Generator, _name):
        setattr(RecordingGenerator, _name, _recording_method(_name))


__all__ = ["ARGUMENT_ROLES", "Draw", "GENERATOR_METHODS", "KEPT_ENTRIES", "LEGACY_FUNCTIONS",
           "RecordingGenerator", "Session"]
