"""The pair search as every route runs it (issue 23): the suite keys that switch it, the
candidates it screens, its family accounting and the per-process reuse of a point's search."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from dpaudit.api import audit_mechanism
from dpaudit.audit.pair_search import candidate_pairs
from dpaudit.neighbours.spaces import BoundedRecords
from dpaudit.spec.coverage import SearchBudget, search_budget
from dpaudit.suite.spec import SuiteError, parse_suite

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
from privstats.bounded_sum import BoundedSum, BoundedSumBuggy  # noqa: E402


def _audit(**keys) -> dict:
    return {"audit": [{"name": "a", "mechanism": "laplace", **keys}]}


@pytest.mark.parametrize("value, fragment", [
    ("yes", "key 'search'"), ({"keep": 0}, "keep"), ({"candidate": 3}, "unknown key"),
    ({"screen_samples": 10}, "screen_samples")])
def test_bad_search_values_are_suite_errors(value, fragment):
    with pytest.raises(SuiteError) as info:
        parse_suite(_audit(search=value), "s.toml")
    assert fragment in str(info.value)


def test_search_and_representation_keys_parse():
    audit = parse_suite(_audit(search={"candidates": 4, "keep": 1}, representation=True),
                        "s.toml").audits[0]
    assert audit.search == SearchBudget(candidates=4, keep=1) and audit.representation is True
    off = parse_suite(_audit(search=False), "s.toml").audits[0]
    assert off.search is None and off.representation is None
    assert search_budget(True) == SearchBudget() and search_budget(None) is None
    with pytest.raises(SuiteError, match="'representation'"):
        parse_suite(_audit(representation="no"), "s.toml")


def test_the_extreme_pairs_are_a_neutral_base_and_one_extreme_record():
    found, _ = candidate_pairs(BoundedSumBuggy(), np.random.default_rng(0), 0)
    extreme = [pair for source, pair in found if source == "extreme"]
    assert len(extreme) == 2
    # records of [-10, 10]: a base of centre records (0) and one record at either end
    assert sorted(sorted(max(p.d0, p.d1, key=len)) for p in extreme) == [
        [-10.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 10.0]]
    assert all(min(p.d0, p.d1, key=len) == [0.0, 0.0, 0.0] for p in extreme)


def test_the_search_finds_the_clipping_bug_the_named_pair_misses():
    result = audit_mechanism(BoundedSumBuggy, samples=20_000, seed=1)
    (point,) = result.points
    named, *searched = point.tests
    assert named.search is None and named.certificates[0].verdict == "consistent"
    assert len(searched) == 2 and all(t.search.rank == k + 1 for k, t in enumerate(searched))
    assert result.verdict == "violation"
    # the family counts the named pair and its two searched ones, before anything is drawn
    assert result.suite.family_size == 3
    off = audit_mechanism(BoundedSumBuggy, samples=20_000, seed=1, search=False)
    assert off.verdict == "consistent" and "search = false" in off.points[0].coverage.note


@pytest.mark.slow
def test_a_search_is_reused_only_for_the_same_mechanism():
    """Two instances of one class under one name and seed (the Python API's suite of one)
    must not share a search: their state differs."""
    scores = [next(t.search.named_pairs_score
                   for t in audit_mechanism(BoundedSum(epsilon=e), samples=20_000,
                                            name="same").points[0].tests if t.search)
              for e in (1.0, 2.0)]
    assert scores[1] > 1.5 * scores[0]


@pytest.mark.slow
def test_dpaudit_check_takes_the_same_switches(tmp_path, capsys):
    """The CLI's check route has the suite's and the API's switches: --no-search (the
    worst-case pairs only, which misses the clipping bug) and --representation."""
    from dpaudit.cli.commands import main

    spec = f"{Path(__file__).resolve().parents[1] / 'data' / 'privstats' / 'bounded_sum.py'}"
    assert main(["check", f"{spec}:BoundedSumBuggy", "--samples", "20000", "--no-search"]) == 0
    out = capsys.readouterr().out
    assert "only the named pairs were audited (search = false)" in out
    assert main(["check", f"{spec}:BoundedSumBuggy", "--samples", "20000"]) == 1
    naive = f"{spec}:BoundedSumNaiveFloat"
    assert main(["check", naive, "--samples", "20000"]) == 1
    assert "the float64 outputs leak" in capsys.readouterr().out
    assert main(["check", naive, "--samples", "20000", "--representation", "off"]) == 0


# -- adversarial proposals (issue 36, item 1) ------------------------------------------------

def test_proposals_come_first_and_those_the_mechanism_refuses_are_counted():
    mech = BoundedSum()  # refuses non-finite records
    found, rejected = candidate_pairs(mech, np.random.default_rng(0), 4)
    sources = [source for source, _ in found]
    first_other = sources.index("corner")
    assert set(sources[:first_other]) == {"proposal"} and "proposal" not in sources[first_other:]
    names = {p.name for source, p in found if source == "proposal"}
    assert {"searched-single-record", "searched-huge-value", "searched-add-duplicate"} <= names
    assert "searched-nan-record" not in names and rejected >= 2  # NaN and ∞ refused
    huge = next(p for _, p in found if p.name == "searched-huge-value")
    assert "outside the space's declared domain" in huge.description
    off, _ = candidate_pairs(mech, np.random.default_rng(0), 4, proposals=False)
    assert "proposal" not in {s for s, _ in off}
    # corners, extremes and random pairs keep their names and draws with or without proposals
    assert [p for s, p in off] == [p for s, p in found if s != "proposal"]


class _TupleProposals(BoundedRecords):
    """A space whose proposals are plain (name, d0, d1) tuples, as analytics38's keyed rows
    return them: the same hook."""

    def proposals(self):
        return [("one-far-record", [0.0], [0.0, 10.0])]


class _TupleSum(BoundedSum):
    def dataset_space(self):
        return _TupleProposals(-10.0, 10.0, n_max=6, min_size=1)


def test_plain_tuple_proposals_are_the_same_hook():
    found, _ = candidate_pairs(_TupleSum(), np.random.default_rng(0), 2)
    source, pair = found[0]
    assert source == "proposal" and pair.name == "searched-one-far-record"
    assert (pair.d0, pair.d1) == ([0.0], [0.0, 10.0])
    name, d0, d1 = BoundedRecords(0.0, 1.0).proposals()[0]  # a Proposal unpacks as the tuple
    assert isinstance(name, str) and d0 != d1


def test_the_proposals_switch_parses_and_round_trips():
    audit = parse_suite(_audit(search={"proposals": False}), "s.toml").audits[0]
    assert audit.search == SearchBudget(proposals=False)
    assert audit.search.to_dict()["proposals"] is False and "proposals" not in \
        SearchBudget().to_dict()
    with pytest.raises(SuiteError, match="proposals"):
        parse_suite(_audit(search={"proposals": "no"}), "s.toml")


@pytest.mark.slow  # an audit of 20 000 samples per side
def test_a_kept_proposal_is_named_with_its_datasets_in_every_report():
    from dpaudit.report.explain import explain_point

    result = audit_mechanism(BoundedSumBuggy, samples=20_000, seed=1)
    kept = [t for t in result.points[0].tests
            if t.search is not None and t.search.source == "proposal"]
    assert kept, [t.search for t in result.points[0].tests if t.search]
    test = kept[0]
    extra = test.search.extra
    assert extra["proposal"] == test.pair_name.removeprefix("searched-")
    assert extra["why"] == test.pair.description and extra["proposals"] > 10
    text = explain_point(result.points[0])
    assert f"a proposal candidate {extra['proposal']!r}: {extra['why']}" in text
    assert f"d0 = " in text and test.pair_name in text
