"""A mechanism declared on a function (dpaudit/mechanisms/declared.py): what the declaration
builds (parameters, claim, relation, dataset space, named pairs, grey-box query), that every
route audits it as a class (the API, a suite file, dpaudit check) with the pair search and the
float audit, and that every mistake in a declaration is one line naming the key."""

from __future__ import annotations

import cloudpickle
import numpy as np
import pytest

import dpaudit
from dpaudit.api import audit_mechanism, run_suites
from dpaudit.claims import ApproxDP, PureDP
from dpaudit.mechanisms.capabilities import GreyBoxQuery, SearchableDatasets
from dpaudit.mechanisms.declared import DeclarationError

GRID = 2.0 ** -32


def clipped_mean_body(dataset, n, rng, epsilon=1.0, clip=1.0, n_min=10):
    mean = float(np.clip(dataset, 0.0, clip).mean())
    return dpaudit.laplace_on_grid(mean, (clip / n_min + GRID) / epsilon, n, rng)


def clip_query(dataset, clip):
    return float(np.clip(dataset, 0.0, clip).mean())


clipped_mean = dpaudit.mechanism(claim="pure-dp", relation="add-remove", records=(0.0, 1.0),
                                 sizes=(10, 14), query=clip_query, name="clipped-mean",
                                 sensitivity=lambda clip, n_min: clip / n_min)(clipped_mean_body)


@dpaudit.mechanism(claim="pure-dp", records=(-5.0, 5.0), sizes=(1, 6))
def forgot_lower_clip(dataset, n, rng, epsilon=1.0, clip=1.0):
    """A clipped sum that forgot the lower clip: a record at -5 moves it by 5Δ."""
    total = float(np.minimum(np.asarray(dataset, float), clip).sum())
    return dpaudit.laplace_on_grid(total, (clip + GRID) / epsilon, n, rng)


@dpaudit.mechanism(claim="pure-dp", records=(0.0, 1.0), sizes=(1, 4))
def plain_numpy_sum(dataset, n, rng, epsilon=1.0):
    """Correct on paper, but value + Laplace noise in doubles: the low bits leak."""
    return float(np.clip(dataset, 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0 / epsilon, n)


def test_the_declaration_builds_a_mechanism_class():
    assert isinstance(clipped_mean, type) and issubclass(clipped_mean, dpaudit.Mechanism)
    assert issubclass(clipped_mean, SearchableDatasets) and issubclass(clipped_mean,
                                                                       GreyBoxQuery)
    assert clipped_mean.function is clipped_mean_body
    mech = clipped_mean(epsilon=0.5)
    assert dict(mech.params) == {"epsilon": 0.5, "clip": 1.0, "n_min": 10}
    assert mech.name == "clipped-mean" and mech.audit_representation
    assert mech.claim().epsilon(0.0) == 0.5 and isinstance(mech.claim(), PureDP)
    assert mech.relation().name == "add-remove-one"
    (pair,) = mech.worst_case_pairs()
    assert pair.d0 == [0.0] * 10 and pair.d1 == [0.0] * 10 + [1.0]
    assert mech.check_pair(pair.d0, pair.d1)[0]
    assert mech.dataset_space().describe() == ("real records in [0, 1], sizes 10..14, "
                                               "add/remove-one neighbours")
    assert mech.query([1.0] * 10) == 1.0 and mech.sensitivity() == 0.1
    # the same draws as the function it declares, and the same after pickling
    out = mech.sample(pair.d1, 5, np.random.default_rng(3))
    assert np.array_equal(out, clipped_mean_body(pair.d1, 5, np.random.default_rng(3),
                                                 epsilon=0.5))
    again = cloudpickle.loads(cloudpickle.dumps(mech))
    assert np.array_equal(again.sample(pair.d1, 5, np.random.default_rng(3)), out)


def test_claims_relations_domains_and_pairs_as_declared():
    @dpaudit.mechanism(claim={"notion": "approx-dp", "delta": 1e-6}, relation="replace",
                       records=range(0, 10), sizes=(2, 3), pairs=[([1, 2], [1, 9])])
    def noisy_count(dataset, n, rng, epsilon=1.0, threshold=3):
        return dpaudit.laplace_on_grid(float(sum(v > threshold for v in dataset)),
                                       (1 + GRID) / epsilon, n, rng)

    mech = noisy_count(epsilon=2.0)
    assert isinstance(mech.claim(), ApproxDP) and mech.claim().epsilon(1e-6) == 2.0
    assert [(p.d0, p.d1) for p in mech.worst_case_pairs()] == [([1, 2], [1, 9])]
    space = mech.dataset_space()
    assert space.integer and space.neighbouring == "replace"
    assert mech.relation().name == "replace-one"

    @dpaudit.mechanism(claim=lambda epsilon: PureDP(epsilon=2 * epsilon), records=(0, 1))
    def doubled(dataset, n, rng, epsilon=1.0):
        return np.zeros(n)

    assert doubled(epsilon=0.25).claim().epsilon(0.0) == 0.5
    assert doubled().worst_case_pairs()[0].d1 == [0, 1]  # integer ends: integer records


def test_the_domain_and_the_sizes_may_follow_the_parameters():
    @dpaudit.mechanism(claim="pure-dp", records=lambda clip: (0.0, clip),
                       sizes=lambda n_min: (n_min, n_min + 4))
    def mean(dataset, n, rng, epsilon=1.0, clip=1.0, n_min=10):
        return np.zeros(n)

    mech = mean(clip=2.0, n_min=20)
    assert mech.dataset_space().describe() == ("real records in [0, 2], sizes 20..24, "
                                               "add/remove-one neighbours")
    assert mech.worst_case_pairs()[0].d1 == [0.0] * 20 + [2.0]
    with pytest.raises(DeclarationError, match="sizes .* admit no add-remove neighbours"):
        mean(n_min=-3)


def test_a_dataset_outside_the_declaration_is_refused_in_one_line():
    mech = clipped_mean()
    with pytest.raises(ValueError, match=r"record 2 is outside the declared domain \[0, 1\]"):
        mech.sample([0.5] * 9 + [2.0], 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="the dataset has 3 records; the declared sizes"):
        mech.sample([0.5] * 3, 3, np.random.default_rng(0))


RELEASES = dpaudit.KeyedOutputs(keys=["a", "b", "c"])


@dpaudit.mechanism(claim="pure-dp", records=["a", "b", "c"], sizes=(0, 5))
def group_by(dataset, n, rng, epsilon=1.0, tau=3.0):
    """Noisy counts of the categories present, released above τ: a category only one dataset
    has is released on that side alone (pure ε-DP is false, ε = ∞ at δ = 0)."""
    releases = [{} for _ in range(n)]
    for key in sorted(set(dataset)):
        noisy = dpaudit.laplace_on_grid(float(dataset.count(key)), (1 + GRID) / epsilon, n, rng)
        for i in np.flatnonzero(noisy > tau):
            releases[i][key] = noisy[i]
    return RELEASES(releases)


def test_categorical_records_are_declared_as_their_categories():
    mech = group_by()
    space = mech.dataset_space()
    assert type(space).__name__ == "CategoricalRecords" and space.categories == ("a", "b", "c")
    (pair,) = mech.worst_case_pairs()  # the first category, then the last one added
    assert (pair.d0, pair.d1) == ([], ["c"])
    assert mech.validate_dataset(("a", "c")) == ["a", "c"]
    with pytest.raises(ValueError, match=r"record 'd' is not one of the declared categories"):
        mech.sample(["a", "d"], 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"record True is not one of the declared"):
        dpaudit.mechanism(claim="pure-dp", records=[0, 1, 2])(
            lambda dataset, n, rng: np.zeros(n))().validate_dataset([True])
    # records that are dicts, one category per field
    fields = dpaudit.mechanism(claim="pure-dp", records={"k": ["x", "y"], "v": [0, 1]})(
        lambda dataset, n, rng: np.zeros(n))()
    assert fields.worst_case_pairs()[0].d1 == [{"k": "x", "v": 0}, {"k": "y", "v": 1}]
    with pytest.raises(ValueError, match=r"field 'v' is not one of the declared categories"):
        fields.validate_dataset([{"k": "x", "v": 2}])


@pytest.mark.slow
def test_a_declared_group_by_fails_on_the_category_the_search_adds():
    # the naive pair adds a record of a category already present, as the engineer named
    result = audit_mechanism(group_by, params={"epsilon": 1.0}, samples=20_000, seed=1,
                             pairs=[(["a", "a", "b"], ["a", "a", "b", "b"])])
    assert result.verdict == "violation", result.summary()
    worst = max(result.records, key=lambda r: r.epsilon_lower_bound)
    assert worst.pair_name.startswith("searched-") and worst.epsilon_lower_bound > 1.0


@pytest.mark.parametrize("kwargs, message", [
    ({"claim": "pure-dp", "relation": "swap"}, "relation must be one of add-remove, replace"),
    ({"claim": "pure-dp", "records": "ab"}, "records: the domain of one record"),
    ({"claim": "pure-dp", "records": ["a"]}, "records: categories: need at least 2"),
    ({"claim": "pure-dp", "records": ["a", "b", "a"]}, "records: .*duplicate categories"),
    ({"claim": "pure-dp", "records": {"colour": "red"}}, "records: field 'colour': a list"),
    ({"claim": "pure-dp", "records": (1.0, 0.0)}, "need finite lo < hi"),
    ({"claim": "pure-dp", "records": (0, 1), "sizes": (3, 3)}, "admit no add-remove"),
    ({"claim": {"notion": "pure-dp", "epsilom": 1}}, "did you mean 'epsilon'"),
    ({"claim": 3}, "claim must be a claim table"),
    ({"claim": "pure-dp", "records": (0, 1), "query": clip_query}, "go together"),
    ({"claim": "pure-dp", "records": (0, 1), "pairs": [([0], [0, 1, 1])]},
     "at its defaults: pair 'pair-0' is not a pair of neighbours"),
    ({"claim": "pure-dp"}, "declare records .* or pairs"),
])
def test_a_mistake_in_a_declaration_names_the_key(kwargs, message):
    def fn(dataset, n, rng, epsilon=1.0):
        return np.zeros(n)

    with pytest.raises(DeclarationError, match=message) as caught:
        dpaudit.mechanism(**kwargs)(fn)
    assert "@dpaudit.mechanism on " in str(caught.value) and "\n" not in str(caught.value)


def test_a_function_that_is_not_a_sampler_is_refused():
    with pytest.raises(DeclarationError, match=r"must accept \(dataset, n, rng\)"):
        dpaudit.mechanism(claim="pure-dp", records=(0, 1))(lambda dataset: 0.0)


def test_a_parameter_without_a_default_must_be_given():
    @dpaudit.mechanism(claim="pure-dp", records=(0.0, 1.0))
    def needs_epsilon(dataset, n, rng, epsilon):
        return np.zeros(n)

    with pytest.raises(TypeError, match="needs the parameter"):
        needs_epsilon()
    assert needs_epsilon(epsilon=1.0).claim().epsilon(0.0) == 1.0


@pytest.mark.slow
def test_every_route_audits_it_with_the_search_and_the_float_audit(tmp_path):
    # the API: a correct declaration passes, and its search looks beyond the extreme pair
    ok = audit_mechanism(clipped_mean, params={"epsilon": 1.0}, samples=20_000, seed=1)
    assert ok.verdict == "consistent"
    assert any(r.pair_name.startswith("searched-") for r in ok.records)
    # the bug lives away from the extreme pair (a record at -5): the search certifies it
    bug = audit_mechanism(forgot_lower_clip, params={"epsilon": 0.5}, samples=20_000, seed=1)
    assert bug.verdict == "violation"
    assert all(r.pair_name.startswith("searched-") for r in bug.records
               if r.verdict == "violation")
    # plain numpy noise: a floating-point violation, as for any code that ships
    floats = audit_mechanism(plain_numpy_sum, params={"epsilon": 1.0}, samples=20_000, seed=1)
    assert floats.verdict == "violation" and "float64" in floats.explain()
    # a suite file names it as it names a class
    source = tmp_path / "declared.py"
    source.write_text(
        "import numpy as np\nimport dpaudit\n\n"
        "@dpaudit.mechanism(claim='pure-dp', records=(0.0, 1.0), sizes=(2, 5))\n"
        "def noisy_sum(dataset, n, rng, epsilon=1.0):\n"
        "    return dpaudit.laplace_on_grid(float(np.clip(dataset, 0, 1).sum()),\n"
        "                                   (1 + 2.0**-32) / epsilon / 3, n, rng)\n")
    (tmp_path / "pyproject.toml").write_text("")  # the project root: the suite's code is in it
    (tmp_path / "audits").mkdir()
    (tmp_path / "audits" / "s.toml").write_text(
        "[suite]\nsamples = 20000\n\n[[audit]]\nname = 'too-little-noise'\n"
        "mechanism = '../declared.py:noisy_sum'\nparams = { epsilon = 0.5 }\n"
        "expect = 'violation'\n")
    run = run_suites([str(tmp_path / "audits" / "s.toml")])
    assert not any(s.error for s in run.suites), [s.error for s in run.suites]
    (point,) = run.points
    assert point.verdict == "violation" and point.met_expectation


@pytest.mark.slow
def test_the_spec_the_check_and_the_fixture_take_it_as_a_class(dpaudit_audit):
    """The routes main's AuditSpec reads (audit_spec/run_audit, the pytest fixture) and
    dpaudit check's six steps audit a declared mechanism with its search (fast: 5000 samples;
    the suite route and the float audit are pinned by the slow test above)."""
    from dataclasses import replace

    from dpaudit.api import audit_spec, run_audit
    from dpaudit.check.runner import check_mechanism

    spec = audit_spec(clipped_mean, params={"epsilon": 1.0}, samples=5000)
    assert {"candidates": 16, "keep": 2}.items() <= spec.keys()["search"].items()  # its search
    ok = run_audit(spec, seed=1)
    assert ok.verdict == "consistent"
    assert any(r.pair_name.startswith("searched-") for r in ok.records)
    bug = run_audit(replace(audit_spec(forgot_lower_clip, params={"epsilon": 0.5},
                                       samples=5000), expect="violation"), seed=1)
    assert bug.verdict == "violation" and bug.met_expectation
    # the fixture: a met expectation passes, an unmet one fails the test with the certificate
    dpaudit_audit.mechanism(clipped_mean, params={"epsilon": 1.0}, samples=5000, seed=1)
    with pytest.raises(pytest.fail.Exception, match="violation"):
        dpaudit_audit.mechanism(forgot_lower_clip, params={"epsilon": 0.5}, samples=5000,
                                seed=1)
    # dpaudit check: the declared query is checked against its sensitivity, the steps only a
    # class can feed (noise law, exact curves, canary runs) are skipped with their reason,
    # and the black-box step certifies the bug on a pair its search found
    small = {"random_pairs": 100, "hypothesis_examples": 0, "optimiser_starts": 1,
             "optimiser_evaluations": 30}
    steps = {s.step: s for s in check_mechanism(clipped_mean(epsilon=1.0), samples=5000,
                                                seed=1, greybox=small).steps}
    assert list(steps) == ["claim", "sensitivity", "calibration", "exact", "canary",
                           "black-box"]
    assert steps["sensitivity"].verdict == "consistent"
    assert [steps[s].verdict for s in ("calibration", "exact", "canary")] == ["skipped"] * 3
    assert steps["black-box"].verdict == "consistent"
    found = check_mechanism(forgot_lower_clip(epsilon=0.5), samples=5000, seed=1).steps[-1]
    assert found.verdict == "violation" and found.data["pair"].startswith("searched-")
