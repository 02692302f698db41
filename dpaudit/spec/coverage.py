"""What an audit looks at beyond the pairs it names: the pair search and the representation.

Every route — ``dpaudit run``, the pytest plugin, :func:`dpaudit.audit_mechanism` /
:func:`dpaudit.audit_sampler` and ``dpaudit check`` — audits the same three things:

* the **named pairs** (the suite's explicit pairs, or the mechanism's ``worst_case_pairs()``);
* a **pair search** wherever the mechanism has a dataset space
  (:class:`~dpaudit.mechanisms.capabilities.SearchableDatasets`): candidate pairs drawn from
  it are screened on separate samples and the ``keep`` best are certified as further tests
  of the point, each a member of the suite's Bonferroni family
  (:mod:`dpaudit.audit.pair_search`).  :class:`SearchBudget` is its size;
* the **float64 representation** of the outputs (:mod:`dpaudit.distinguish.floating`) for
  code that *is* the implementation — a user's mechanism class, a file, module or sampler
  reference, a library adapter — and not for dpaudit's own paper families, whose samplers
  stand for the real-valued mechanism of the paper (:func:`representation_default`).

Both are per-audit switches (TOML keys ``search`` and ``representation``, keyword arguments of
the API) with the defaults here.
"""

from __future__ import annotations

from dataclasses import dataclass

#: random candidate pairs drawn from the dataset space (its corners and, for query-answer
#: spaces, the StatDP patterns are added to them)
DEFAULT_CANDIDATES = 16
#: searched pairs certified per audit point (each one test of the family)
DEFAULT_KEEP = 2
#: per-side screening samples: min(SCREEN_CAP, max(SCREEN_FLOOR, samples // 10))
SCREEN_CAP, SCREEN_FLOOR = 20_000, 2_000


@dataclass(frozen=True)
class SearchBudget:
    """How much a pair search may try.

    Attributes:
      candidates: random candidate pairs drawn from the dataset space (≥ 0; the space's two
        corners and the StatDP patterns of a query-answer space come on top).
      keep: how many of the screened candidates, best first, are certified (≥ 1); each is a
        test of the suite's family whether or not it beats the named pairs, so the family's
        size is known before anything is drawn.
      screen_samples: per-side samples of each candidate's screening, or None for
        ``min(20000, max(2000, samples // 10))``.
      proposals: screen the dataset space's adversarial proposals first
        (:meth:`~dpaudit.neighbours.spaces.DatasetSpace.proposals`); False leaves the
        corners, extremes and random pairs only (for comparisons).
    """

    candidates: int = DEFAULT_CANDIDATES
    keep: int = DEFAULT_KEEP
    screen_samples: int | None = None
    proposals: bool = True

    def __post_init__(self):
        for name, low in (("candidates", 0), ("keep", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"search {name}: expected an integer ≥ {low}, got {value!r}")
        value = self.screen_samples
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 100):
            raise ValueError(f"search screen_samples: expected an integer ≥ 100, got "
                             f"{value!r}")
        if not isinstance(self.proposals, bool):
            raise ValueError(f"search proposals: expected true or false, got "
                             f"{self.proposals!r}")

    def screen_size(self, samples: int) -> int:
        """Per-side screening samples for an audit of ``samples`` per side."""
        if self.screen_samples is not None:
            return self.screen_samples
        return int(min(SCREEN_CAP, max(SCREEN_FLOOR, samples // 10)))

    def to_dict(self) -> dict:
        out = {"candidates": self.candidates, "keep": self.keep,
               "screen_samples": self.screen_samples}
        if not self.proposals:  # the default is left out: older files read the same
            out["proposals"] = False
        return out


def search_budget(value) -> SearchBudget | None:
    """A search setting as the API and the TOML take it: ``True`` (the default budget),
    ``False`` / ``None`` (no search), a :class:`SearchBudget`, or a table with any of
    ``candidates``, ``keep``, ``screen_samples``, ``proposals``.

    Raises:
      ValueError: anything else (naming the unknown key or the bad value).
    """
    if value is True:
        return SearchBudget()
    if value is False or value is None:
        return None
    if isinstance(value, SearchBudget):
        return value
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"candidates", "keep", "screen_samples", "proposals"})
        if unknown:
            raise ValueError(f"search: unknown key(s) {', '.join(map(repr, unknown))} "
                             f"(expected candidates, keep, screen_samples, proposals)")
        return SearchBudget(**value)
    raise ValueError(f"search: expected true, false or a table such as "
                     f"{{ candidates = 16, keep = 2 }}, got {value!r}")


def representation_default(mechanism) -> bool:
    """Whether an audit reads the float64 representation when it does not say: yes for code
    that is the implementation — a class defined outside dpaudit (a user's), or one that
    declares ``audit_representation = True`` (library adapters, plain samplers, the
    floating-point zoo) — and no for dpaudit's own paper families."""
    module = type(mechanism).__module__ or ""
    return bool(getattr(mechanism, "audit_representation", False)) or not (
        module == "dpaudit" or module.startswith("dpaudit."))


#: what a point without a pair search says, in every route
NAMED_PAIRS_ONLY = ("only the named pairs were audited ({why}): a bug that moves the worst case "
                    "elsewhere would pass unseen")


def no_search_reason(searchable: bool, budget: SearchBudget | None) -> str | None:
    """Why a point has no pair search (None when it has one)."""
    if budget is None:
        return NAMED_PAIRS_ONLY.format(why="search = false")
    if not searchable:
        return NAMED_PAIRS_ONLY.format(why="no dataset space to search: see "
                                           "SearchableDatasets")
    return None


#: what to do about a floating-point violation (every renderer says it)
FLOAT_FIXES = ("the float64 outputs leak, not the real-valued mechanism: release values on a "
               "grid (dpaudit.laplace_on_grid / gaussian_on_grid, Mironov's snapping, the "
               "discretised samplers of OpenDP or Google's library), or set "
               "representation = false to audit the real-valued mechanism")

#: how a *floating-point* violation — certified only by an event on the outputs' float64
#: representation, the value-level bound within the claim — gates an audit (the
#: ``floating_point`` key of every route): it fails the audit like any violation (``fail``,
#: the default), or is reported as a warning beside a passing value-level verdict (``warn``:
#: for code that is not the production sampler).  A value-level violation fails either way.
FAIL, WARN = "fail", "warn"
FLOATING_POINT_GATES = (FAIL, WARN)


#: how a finding of the grey-box replay (:mod:`dpaudit.replay`: the release moves by more than
#: the declared sensitivity with the noise held fixed, or is NaN/±∞ on one dataset only) gates
#: an audit — the ``replay`` key of every route: it fails the audit (``fail``, the default: the
#: code did this on these datasets, no sampling error), is a warning on the audit's replay test
#: (``warn``), or the replay is not run (``off``).
OFF = "off"
REPLAY_GATES = (FAIL, WARN, OFF)


def floating_point_warning(finding: str | None, value_bound: float | None,
                           claimed: float | None) -> str:
    """The warning a gated (``warn``) floating-point violation leaves on its test."""
    value = "?" if value_bound is None else f"{value_bound:.4g}"
    claim = "?" if claimed is None else f"{claimed:.4g}"
    return (f"floating-point finding (floating_point = \"warn\": not a failure): the float64 "
            f"outputs leak — {finding or 'a representation event'}; the value-level "
            f"ε_LB {value} is within the claim {claim}")


__all__ = ["DEFAULT_CANDIDATES", "FAIL", "FLOATING_POINT_GATES", "OFF", "REPLAY_GATES", "FLOAT_FIXES", "WARN",
           "floating_point_warning", "DEFAULT_KEEP", "NAMED_PAIRS_ONLY", "SearchBudget",
           "no_search_reason", "representation_default", "search_budget"]
