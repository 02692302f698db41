"""A mechanism declared on a function: ``@dpaudit.mechanism(...)``, no subclassing.

The light way to audit code you wrote.  Decorate the sampler — ``fn(dataset, n, rng,
**params)`` returning ``n`` outputs, its keyword arguments with defaults being its parameters
— and state what a proof states: the claim, the neighbouring relation, the domain of a record
and the dataset sizes::

    import numpy as np
    import dpaudit

    @dpaudit.mechanism(claim="pure-dp", relation="add-remove", records=(0.0, 1.0),
                       sizes=(10, 14), query=lambda d, clip: float(np.clip(d, 0, clip).mean()),
                       sensitivity=lambda clip, n_min: clip / n_min)
    def clipped_mean(dataset, n, rng, epsilon=1.0, clip=1.0, n_min=10):
        mean = float(np.clip(dataset, 0.0, clip).mean())
        return dpaudit.laplace_on_grid(mean, (clip / n_min + 2.0**-32) / epsilon, n, rng)

The result is a :class:`~dpaudit.mechanisms.base.Mechanism` class named after the function
(``clipped_mean(epsilon=0.5)`` is an instance), so every route takes it as it takes a class
— ``mechanism = "my_mechanism.py:clipped_mean"`` in a suite, ``dpaudit check
my_mechanism.py:clipped_mean``, ``audit_mechanism(clipped_mean, params=…)``, the pytest
fixture's ``dpaudit_audit.mechanism(clipped_mean, …)`` — and gets what the class would:

* its **parameters**, declared from the function's keyword arguments (their defaults; a
  keyword without a default must be given), reported like a class's;
* its **claim**, a claim table whose numbers the parameters complete
  (:func:`dpaudit.claims.tables.claim_from_table`: ``"pure-dp"`` takes ``epsilon`` from the
  parameters, ``{"notion": "approx-dp", "delta": 1e-6}`` its ε), a
  :class:`~dpaudit.claims.base.Claim`, or a function of the parameters returning either;
* its **relation** (add/remove or replace one record) and a **dataset space**
  (:class:`~dpaudit.mechanisms.capabilities.SearchableDatasets`) built from ``records`` and
  ``sizes``: the pair search of every route and ``dpaudit check``'s grey-box search look
  through it, and ``validate_dataset`` refuses a dataset outside it with one line;
* **named pairs** — ``pairs`` (the ones a proof names), or, when none are given, the
  *extreme pair* of the domain: the smallest dataset of ``lo`` records against the same with
  one ``hi`` record added (add/remove) or its first record set to ``hi`` (replace);
* the **float audit**: the function is the code you ship, so the black-box audit reads its
  outputs' float64 representation (``representation = false`` turns it off);
* with ``query`` and ``sensitivity`` (functions of the dataset and of the parameters they
  name), the grey-box sensitivity check
  (:class:`~dpaudit.mechanisms.capabilities.GreyBoxQuery`).

A record domain is ``(lo, hi)`` — real records in [lo, hi], or integer records when both
ends are ints — a :class:`range` of integers, or categories: a list of the categories a record
takes (``["a", "b", "c"]``; any other list or tuple than two numbers) or a dict field → list
for records with several fields, searched as
:class:`~dpaudit.neighbours.categorical.CategoricalRecords` (a record whose category the other
dataset lacks is tried first); ``records`` and ``sizes`` may also be
functions of the parameters they name (``sizes=lambda n_min: (n_min, n_min + 4)``).  What only a class can say (a log-density
for white-box audits, exact curves, a noise law for the calibration check) stays with
subclassing :class:`~dpaudit.mechanisms.base.Mechanism`.  Every mistake in the declaration is
a ``ValueError`` naming the function and the key, raised when the module is imported.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Callable

import numpy as np

from dpaudit.claims.base import Claim
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.callbacks import checked_outputs
from dpaudit.mechanisms.capabilities import GreyBoxQuery, SearchableDatasets
from dpaudit.mechanisms.parameters import Parameter
from dpaudit.mechanisms.record_domains import Categories, record_domain
from dpaudit.mechanisms.sampler import sampler_signature
from dpaudit.neighbours.pairs import NeighbourPair
from dpaudit.neighbours.relations import NeighbourRelation, add_remove_one, replace_one

#: relation name → (the space's ``neighbouring``, the relation's name, statement, predicate)
RELATIONS = {
    "add-remove": ("add-remove", "add-remove-one", "add or remove one record", add_remove_one),
    "replace": ("replace", "replace-one", "replace one record", replace_one),
}
NORMS = ("l1", "l2", "linf")


class DeclarationError(ValueError):
    """A declaration dpaudit cannot build a mechanism from; the message names the key."""


def mechanism(fn: Callable | None = None, *, claim, relation: str = "add-remove",
              records=None, sizes: tuple[int, int] = (1, 6), pairs=None, query=None,
              sensitivity=None, norm: str = "l1", name: str | None = None):
    """Declare the sampler ``fn`` a mechanism (see the module docstring); a decorator.

    Args:
      fn: ``fn(dataset, n, rng, **params)`` returning ``n`` outputs.
      claim: a claim table (``"pure-dp"`` is ``{"notion": "pure-dp"}``), a
        :class:`~dpaudit.claims.base.Claim`, or a function of (some of) the parameters
        returning one; numbers the table leaves out come from the parameters.
      relation: ``"add-remove"`` or ``"replace"`` (one record).
      records: the domain of one record: ``(lo, hi)``, a ``range``, the list of its
        categories or a dict field → categories, or a function of the parameters returning
        one; None: no dataset space (the audits look at the named pairs only, and say so).
      sizes: the smallest and largest dataset, ``(min, max)``, or a function of the
        parameters returning them.
      pairs: the neighbouring pairs a proof names, ``[(d0, d1), …]`` or
        :class:`~dpaudit.neighbours.pairs.NeighbourPair`\\ s; None: the domain's extreme pair.
      query, sensitivity: the deterministic value the noise is added to, ``query(dataset,
        **params it names)``, and its claimed sensitivity Δ (a number or a function of the
        parameters it names), in the norm ``norm`` — together, the grey-box check.
      name: the mechanism's name in reports (default: the function's, ``-`` for ``_``).

    Returns:
      A :class:`~dpaudit.mechanisms.base.Mechanism` subclass named after the function; its
      attribute ``function`` is ``fn`` itself.

    Raises:
      DeclarationError: a key that cannot be used, naming it.
    """
    spec = dict(claim=claim, relation=relation, records=records, sizes=sizes, pairs=pairs,
                query=query, sensitivity=sensitivity, norm=norm, name=name)
    if fn is None:
        return lambda f: declare(f, **spec)
    return declare(fn, **spec)


def declare(fn, *, claim, relation="add-remove", records=None, sizes=(1, 6), pairs=None,
            query=None, sensitivity=None, norm="l1", name=None) -> type:
    """The class :func:`mechanism` makes of ``fn`` (the same arguments)."""
    label = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
    where = f"@dpaudit.mechanism on {label}"
    try:
        signature = sampler_signature(fn, label)
    except ValueError as exc:
        raise DeclarationError(f"{where}: {exc}") from None
    if relation not in RELATIONS:
        raise DeclarationError(f"{where}: relation must be one of {', '.join(RELATIONS)}, "
                               f"got {relation!r}")
    if norm not in NORMS:
        raise DeclarationError(f"{where}: norm must be one of {', '.join(NORMS)}, got {norm!r}")
    if (query is None) != (sensitivity is None):
        raise DeclarationError(f"{where}: query and sensitivity go together (the grey-box "
                               f"check compares how far the query moves with Δ)")
    claim = _claim_spec(claim, where)
    if not callable(records):  # a function of the parameters is checked when it is built
        _domain(records, where)
    if not callable(sizes):
        _sizes(sizes, relation, where)
    namespace: dict[str, Any] = {
        "__module__": getattr(fn, "__module__", __name__),
        "__qualname__": getattr(fn, "__qualname__", label),
        "__doc__": fn.__doc__ or f"{label}, declared with @dpaudit.mechanism.",
        "name": name or getattr(fn, "__name__", "declared").replace("_", "-"),
        "family": "declared",
        "audit_representation": True,  # the function is the code that ships
        "function": staticmethod(fn),
        "declaration": {"claim": claim, "relation": relation, "records": records,
                        "sizes": sizes, "pairs": pairs, "query": query,
                        "sensitivity": sensitivity, "where": where},
    }
    for key, default in signature.keywords.items():
        if default is inspect.Parameter.empty:
            default = None  # required: checked in derive()
        namespace[f"_param_{key}"] = Parameter(default, None, f"{key} (keyword of {label})",
                                               name=key)
    namespace.update(_METHODS)
    bases: list[type] = []
    if query is not None:
        namespace.update(_GREY_BOX, sensitivity_norm=norm)
        bases.append(GreyBoxQuery)
    if records is not None:
        namespace.update(_SEARCHABLE)
        bases.append(SearchableDatasets)
    cls = type(getattr(fn, "__name__", "declared"), (*bases, Mechanism), namespace)
    cls._required = tuple(k for k, d in signature.keywords.items()
                          if d is inspect.Parameter.empty)
    if not cls._required:  # built at its defaults, its named pairs checked: once, here
        try:
            probe = cls()
            for pair in probe.worst_case_pairs():
                ok, why = probe.check_pair(pair.d0, pair.d1)
                if not ok:
                    raise ValueError(f"pair {pair.name!r} is not a pair of neighbours: {why}")
        except (TypeError, ValueError) as exc:
            raise DeclarationError(f"{where}: at its defaults: {exc}") from None
    return cls


# -- the declaration's parts ---------------------------------------------------------------------

def _claim_spec(claim, where: str):
    from dpaudit.claims.tables import ClaimTableError, check_claim_table

    if isinstance(claim, str):
        claim = {"notion": claim}
    if isinstance(claim, dict):
        try:
            check_claim_table(claim)
        except ClaimTableError as exc:
            raise DeclarationError(f"{where}: claim: {exc}") from None
    elif not (isinstance(claim, Claim) or callable(claim)):
        raise DeclarationError(f"{where}: claim must be a claim table such as \"pure-dp\" or "
                               f"{{'notion': 'approx-dp', 'delta': 1e-6}}, a Claim, or a "
                               f"function of the parameters; got {type(claim).__name__}")
    return claim


def _domain(records, where: str):
    """The record domain :func:`~dpaudit.mechanisms.record_domains.record_domain` reads, its
    mistakes named as the declaration's."""
    try:
        return record_domain(records)
    except ValueError as exc:
        raise DeclarationError(f"{where}: records: {exc}") from None


def _sizes(sizes, relation: str, where: str) -> tuple[int, int]:
    try:
        low, high = (int(v) for v in sizes)
    except (TypeError, ValueError):
        raise DeclarationError(f"{where}: sizes: (smallest, largest) dataset size, "
                               f"got {sizes!r}") from None
    smallest = 1 if relation == "replace" else 0
    if low < smallest or high < low + (1 if relation == "add-remove" else 0):
        raise DeclarationError(f"{where}: sizes {sizes!r} admit no {relation} neighbours "
                               f"(need {smallest} <= min"
                               f"{' < ' if relation == 'add-remove' else ' <= '}max)")
    return low, high


def _kwargs_for(fn, params) -> dict:
    """The parameters ``fn`` names (all of them when it takes ``**kwargs``)."""
    try:
        accepted = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return dict(params)
    if any(p.kind is p.VAR_KEYWORD for p in accepted.values()):
        return dict(params)
    return {k: v for k, v in params.items() if k in accepted}


# -- the methods every declared class has -----------------------------------------------------

def _derive(self) -> None:
    missing = [k for k in type(self)._required if self.params[k] is None]
    if missing:
        raise TypeError(f"{type(self).__name__} needs the parameter(s) {', '.join(missing)} "
                        f"(no default in {type(self).function.__qualname__})")
    spec, where = self.declaration, self.declaration["where"]

    def value(given):  # a number, or a function of the parameters it names
        return given(**_kwargs_for(given, self.params)) if callable(given) else given

    self.domain = _domain(value(spec["records"]), where)
    self.sizes = _sizes(value(spec["sizes"]), spec["relation"], where)


def _sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
    dataset = self.validate_dataset(dataset)
    return checked_outputs(type(self).function(dataset, n, rng, **self.params), n,
                           f"{self.name} (declared with @dpaudit.mechanism)")


def _claim(self) -> Claim:
    from dpaudit.claims.tables import claim_from_table

    spec = self.declaration["claim"]
    if callable(spec) and not isinstance(spec, Claim):
        spec = spec(**_kwargs_for(spec, self.params))
        if isinstance(spec, str):
            spec = {"notion": spec}
    return claim_from_table(spec, dict(self.params))


def _relation(self) -> NeighbourRelation:
    _, name, statement, predicate = RELATIONS[self.declaration["relation"]]
    low, high = self.sizes
    return NeighbourRelation(name, f"{statement} (sizes {low}..{high})", predicate)


def _validate_dataset(self, dataset):
    domain = self.domain
    if domain is None:
        return dataset
    if isinstance(domain, Categories):
        return _validate_categorical(self, dataset, domain)
    lo, hi, integer = domain
    try:
        values = np.asarray(dataset, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"{self.name}: a dataset is a list of numbers in [{lo:g}, {hi:g}], "
                         f"got {dataset!r}") from None
    low, high = self.sizes
    if not low <= values.size <= high:
        raise ValueError(f"{self.name}: the dataset has {values.size} records; the declared "
                         f"sizes are {low}..{high}")
    outside = values[~((values >= lo) & (values <= hi))]
    if outside.size:
        raise ValueError(f"{self.name}: record {float(outside[0]):g} is outside the "
                         f"declared domain [{lo:g}, {hi:g}]")
    if integer and np.any(values != np.floor(values)):
        raise ValueError(f"{self.name}: the declared records are integers, got "
                         f"{float(values[values != np.floor(values)][0]):g}")
    return [int(v) for v in values] if integer else values.tolist()


def _validate_categorical(self, dataset, domain: Categories) -> list:
    """A categorical dataset: a list of declared records, its size within the sizes."""
    if isinstance(dataset, (str, bytes, Mapping)) or not hasattr(dataset, "__iter__"):
        raise ValueError(f"{self.name}: a dataset is a list of records of the declared "
                         f"{domain.describe()}, got {dataset!r}")
    records = list(dataset)
    low, high = self.sizes
    if not low <= len(records) <= high:
        raise ValueError(f"{self.name}: the dataset has {len(records)} records; the declared "
                         f"sizes are {low}..{high}")
    for record in records:
        problem = domain.problem(record)
        if problem is not None:
            raise ValueError(f"{self.name}: {problem}")
    return records


def _worst_case_pairs(self) -> list[NeighbourPair]:
    given = self.declaration["pairs"]
    if given is not None:
        out = []
        for i, pair in enumerate(given):
            if isinstance(pair, NeighbourPair):
                out.append(pair)
            else:
                d0, d1 = pair
                out.append(NeighbourPair(f"pair-{i}", list(d0), list(d1), "named in the "
                                         "declaration"))
        if not out:
            raise ValueError(f"{self.name}: pairs is empty; leave it out for the extreme pair")
        return out
    if self.domain is None:
        raise ValueError(f"{self.name}: declare records (the domain) or pairs: without "
                         f"either there is no pair to audit")
    low, _ = self.sizes
    if isinstance(self.domain, Categories):
        first, last = self.domain.first(), self.domain.last()
        base = [first] * low
        if self.declaration["relation"] == "add-remove":
            return [NeighbourPair("extreme", base, base + [last],
                                  f"{low} record(s) {first!r} vs the same plus {last!r}")]
        return [NeighbourPair("extreme", base, [last] + base[1:],
                              f"{low} record(s) {first!r} vs the first one {last!r}")]
    lo, hi, integer = self.domain
    cast = int if integer else float
    if self.declaration["relation"] == "add-remove":
        base = [cast(lo)] * low
        return [NeighbourPair("extreme", base, base + [cast(hi)],
                              f"{low} record(s) at {lo} vs the same plus one at {hi}")]
    base = [cast(lo)] * low
    return [NeighbourPair("extreme", base, [cast(hi)] + base[1:],
                          f"{low} record(s) at {lo} vs the first one at {hi}")]


def _dataset_space(self):
    from dpaudit.neighbours.spaces import BoundedRecords

    low, high = self.sizes
    neighbouring = RELATIONS[self.declaration["relation"]][0]
    if isinstance(self.domain, Categories):
        from dpaudit.neighbours.categorical import CategoricalRecords

        return CategoricalRecords(self.domain.categories, n_max=high, min_size=low,
                                  neighbouring=neighbouring)
    lo, hi, integer = self.domain
    return BoundedRecords(lo, hi, n_max=high, neighbouring=neighbouring, integer=integer,
                          min_size=low)


def _query(self, dataset):
    fn = self.declaration["query"]
    return fn(self.validate_dataset(dataset), **_kwargs_for(fn, self.params))


def _sensitivity(self) -> float:
    given = self.declaration["sensitivity"]
    value = given(**_kwargs_for(given, self.params)) if callable(given) else given
    return float(value)


_METHODS = {"derive": _derive, "sample": _sample, "claim": _claim, "relation": _relation,
            "validate_dataset": _validate_dataset, "worst_case_pairs": _worst_case_pairs}
_SEARCHABLE = {"dataset_space": _dataset_space}
_GREY_BOX = {"query": _query, "sensitivity": _sensitivity}


__all__ = ["DeclarationError", "RELATIONS", "declare", "mechanism"]
