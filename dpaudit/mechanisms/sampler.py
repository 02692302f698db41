"""A plain sampler function, audited as a mechanism against a stated claim.

A *sampler* is a function ``sampler(dataset, n, rng, **params) -> n outputs``: the first three
arguments are positional — the dataset, how many independent outputs to draw, and the
:class:`numpy.random.Generator` to draw them from — and any further ones are the sampler's
**parameters**, taken as keyword arguments::

    def noisy_sum(dataset, n, rng, epsilon=1.0):
        return laplace_on_grid(float(np.clip(dataset, 0, 1).sum()), 1 / epsilon, n, rng)

An audit's ``params`` (a suite's ``params = { epsilon = 0.5 }`` or its ``sweep``, the API's
``params={...}``, ``dpaudit check --params epsilon=0.5``) are passed as keyword arguments;
those it leaves out take the function's defaults (and are reported as defaulted, as a
mechanism's are).  The signature is read once (:func:`sampler_signature`): a name the sampler
does not take, or a parameter without a default that the audit does not give, is an error
naming it (with "did you mean"), before anything is sampled.

Contract:

* :func:`sampler_signature` — the keyword parameters of a sampler; ``ValueError`` unless it
  can be called as ``sampler(dataset, n, rng)``;
* :func:`bind_sampler_params` — an audit's params checked against that signature, with the
  defaults filled in (:class:`SamplerParameterError` otherwise);
* :class:`SamplerMechanism` — the sampler with its parameters bound and its claim, as a
  :class:`~dpaudit.mechanisms.base.Mechanism` (its outputs checked by
  :func:`dpaudit.mechanisms.callbacks.checked_outputs`);
* :func:`with_dataset_space` — a decorator giving a sampler the dataset space its pairs are
  searched in (``@with_dataset_space(CategoricalRecords(["a", "b", "c"]))``): a
  :class:`SamplerMechanism` of such a sampler is then a
  :class:`~dpaudit.mechanisms.capabilities.SearchableDatasets` whose relation is the space's,
  so every route — suites, ``dpaudit check``, the API and the pytest fixture — audits the
  space's adversarial proposals and a pair search beside the given pairs, and checks that the
  given pairs are neighbours.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit.util.user_code import user_code

from dpaudit.util.hints import did_you_mean
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.callbacks import checked_outputs, checked_space
from dpaudit.mechanisms.capabilities import SearchableDatasets
from dpaudit.neighbours.relations import NeighbourRelation

#: the three positional arguments every sampler takes
POSITIONAL = ("dataset", "n", "rng")
_EMPTY = inspect.Parameter.empty


class SamplerParameterError(ValueError):
    """An audit's params that the sampler does not take, or a required one left out."""


@dataclass(frozen=True)
class SamplerSignature:
    """What a sampler accepts beyond ``(dataset, n, rng)``.

    Attributes:
      keywords: name → default (``inspect.Parameter.empty`` when it has none) of every
        keyword parameter, in order.
      any_keyword: the sampler takes ``**kwargs`` (any name is passed on).
      known: False when the signature could not be read (some builtins): params are then
        passed unchecked.
    """

    keywords: dict = field(default_factory=dict)
    any_keyword: bool = False
    known: bool = True

    def text(self) -> str:
        """``"epsilon=1.0, k"`` — the parameters as a signature would show them."""
        parts = [name if d is _EMPTY else f"{name}={d!r}" for name, d in self.keywords.items()]
        return ", ".join(parts + (["**kwargs"] if self.any_keyword else []))


def sampler_signature(fn, label: str) -> SamplerSignature:
    """The keyword parameters of ``fn``, which must be callable as ``fn(dataset, n, rng)``.

    Raises:
      ValueError: ``fn`` is not a function (a class, a non-callable), or cannot take three
        positional arguments, or has a further positional-only parameter without a default.
    """
    if not callable(fn) or isinstance(fn, type):
        raise ValueError(f"sampler {label} is not a function (got {type(fn).__name__})")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature (some builtins): checked when called
        return SamplerSignature(known=False)
    bad = (f"sampler {label} must accept (dataset, n, rng) positionally, then its parameters "
           f"as keyword arguments, e.g. def sampler(dataset, n, rng, epsilon=1.0); its "
           f"signature is {signature}")
    try:  # partial: a keyword parameter without a default is the audit's to give
        signature.bind_partial(None, 1, None)
    except TypeError:
        raise ValueError(bad) from None
    keywords, any_keyword, positional = {}, False, 0
    for p in signature.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            positional = len(POSITIONAL)
        elif p.kind is p.VAR_KEYWORD:
            any_keyword = True
        elif positional < len(POSITIONAL) and p.kind in (p.POSITIONAL_ONLY,
                                                         p.POSITIONAL_OR_KEYWORD):
            positional += 1
        elif p.kind is p.POSITIONAL_ONLY:
            if p.default is _EMPTY:
                raise ValueError(bad)
        else:
            keywords[p.name] = p.default
    return SamplerSignature(keywords, any_keyword)


def bind_sampler_params(signature: SamplerSignature, params: dict, label: str) -> dict:
    """``params`` with the sampler's defaults for those it leaves out, in signature order.

    Raises:
      SamplerParameterError: a name the sampler does not take (with the closest names), or a
        parameter without a default that ``params`` does not give.
    """
    params = dict(params or {})
    if not signature.known:
        return params
    unknown = [k for k in params if k not in signature.keywords and not signature.any_keyword]
    if unknown:
        if not signature.keywords:
            raise SamplerParameterError(
                f"sampler {label} takes no parameters, got {', '.join(map(repr, unknown))}: "
                f"declare them as keyword arguments, e.g. def sampler(dataset, n, rng, "
                f"{unknown[0]}=...)")
        hints = []
        for name in unknown:
            hints.append(f"{name!r}{did_you_mean(name, signature.keywords)}")
        raise SamplerParameterError(f"sampler {label} has no parameter {', '.join(hints)}; "
                                    f"it takes {signature.text()}")
    missing = [k for k, d in signature.keywords.items() if d is _EMPTY and k not in params]
    if missing:
        raise SamplerParameterError(f"sampler {label} needs the parameter(s) "
                                    f"{', '.join(missing)} (no default): give them in params")
    defaults = {k: d for k, d in signature.keywords.items() if d is not _EMPTY}
    return {**defaults, **params}


#: the attribute :func:`with_dataset_space` sets on a sampler
SPACE_ATTRIBUTE = "dataset_space"


def with_dataset_space(space):
    """Decorator: search the pairs of ``sampler`` in ``space`` (a
    :class:`~dpaudit.neighbours.spaces.DatasetSpace`), as a mechanism's ``dataset_space()``.

    Raises:
      dpaudit.mechanisms.callbacks.CallbackError: ``space`` is not a dataset space.
    """
    checked_space(space, "with_dataset_space(space)")

    def attach(sampler):
        setattr(sampler, SPACE_ATTRIBUTE, space)
        return sampler

    return attach


def sampler_space(sampler):
    """The dataset space a sampler was given with :func:`with_dataset_space`, or None."""
    space = getattr(sampler, SPACE_ATTRIBUTE, None)
    return None if space is None or callable(space) else \
        checked_space(space, f"{getattr(sampler, '__name__', 'sampler')}.{SPACE_ATTRIBUTE}")


class SamplerMechanism(Mechanism):
    """A plain sampler with its parameters bound and a stated claim, audited on the pairs it
    is given (it has no worst-case pairs of its own).

    Args:
      sampler: ``sampler(dataset, n, rng, **params)`` returning ``n`` outputs (an array whose
        first axis has length ``n``).
      claim: the :class:`dpaudit.claims.notions.Claim` the sampler is audited against.
      label: the name shown in records (e.g. ``"samplers.py:noisy_count"``).
      params: the sampler's keyword arguments, defaults included (``params`` of the records;
        :meth:`defaulted_parameters` names those the audit left out).
      pairs: neighbouring pairs its :meth:`worst_case_pairs` returns (``dpaudit check``);
        None: the audit gives explicit pairs.
    """

    family = "user-sampler"
    audit_representation = True  # the sampler is the code the user ships
    neighbouring = "as given by the explicit pairs"

    def __new__(cls, sampler=None, *args, **kwargs):
        """A :class:`SearchableSampler` when ``sampler`` carries a dataset space."""
        if cls is SamplerMechanism and sampler is not None and sampler_space(sampler) is not None:
            cls = SearchableSampler
        return super().__new__(cls)

    def __init__(self, sampler, claim, label: str = "sampler", params: dict | None = None,
                 pairs: list | None = None):
        super().__init__(**dict(params or {}))
        self._sampler, self._claim, self.name = sampler, claim, label
        self._kwargs = dict(params or {})
        self._pairs = None if pairs is None else list(pairs)

    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        with user_code(f"sampler {self.name}"):
            out = self._sampler(dataset, n, rng, **self._kwargs)
        return checked_outputs(out, n, f"sampler {self.name}")

    def claim(self):
        return self._claim

    def worst_case_pairs(self):
        if self._pairs:
            return list(self._pairs)
        raise ValueError(f"sampler {self.name} has no worst-case pairs; give explicit pairs")


class SearchableSampler(SearchableDatasets, SamplerMechanism):
    """A sampler given a dataset space (:func:`with_dataset_space`): its pairs are searched
    there, and the given pairs must be neighbours under the space's relation."""

    @property
    def neighbouring(self) -> str:
        return self.relation().statement

    def dataset_space(self):
        return sampler_space(self._sampler)

    def relation(self):
        space = sampler_space(self._sampler)
        return NeighbourRelation(space.name, space.describe(), space.relation())


__all__ = ["POSITIONAL", "SPACE_ATTRIBUTE", "SamplerMechanism", "SearchableSampler",
           "sampler_space", "with_dataset_space", "SamplerParameterError", "SamplerSignature",
           "bind_sampler_params", "sampler_signature"]
