"""The one-run f-DP test of Mahloujifar, Melis & Chaudhuri (dpaudit.stats.one_run_fdp)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.claims.conversions import dp_to_gdp_mu
from dpaudit.claims.tradeoff import (ApproxDPFamily, GaussianFamily, GaussianTradeOff,
                                     ProfileTradeOff, ScaledProfileFamily)
from dpaudit.mechanisms.canaries.evidence import FamilyFigure
from dpaudit.stats.one_run import count_correct, guess_grid, steinke_epsilon, steinke_p_value
from dpaudit.stats.one_run_fdp import SEARCH_CAP, capped, fdp_bound, fdp_rejects


def test_perfect_privacy_is_never_rejected_by_chance_counts():
    assert not fdp_rejects(GaussianTradeOff(0.0), 1000, 100, 50, 0.05)


def test_rejection_is_monotone_in_the_curve_and_the_counts():
    weak, strong = GaussianTradeOff(2.0), GaussianTradeOff(0.5)
    assert fdp_rejects(strong, 1000, 100, 95, 0.05)
    # a weaker curve (larger μ) is harder to reject; fewer correct guesses reject less
    assert not fdp_rejects(weak, 1000, 100, 80, 0.05)
    for v in range(50, 101, 5):
        if fdp_rejects(weak, 1000, 100, v, 0.05):
            assert fdp_rejects(strong, 1000, 100, v, 0.05)
            assert fdp_rejects(weak, 1000, 100, min(v + 1, 100), 0.05)


def test_bound_is_the_edge_of_rejection():
    family = GaussianFamily(1e-5, 4.0)
    t = fdp_bound(family, 1000, 100, 92, significance=0.01)
    assert t > 0
    assert fdp_rejects(family.curve(t), 1000, 100, 92, 0.01)
    assert not fdp_rejects(family.curve(t + 1e-3), 1000, 100, 92, 0.01)


def test_fdp_is_tighter_than_eps_delta_on_gaussian_scores():
    """The paper's claim, on the idealised Gaussian experiment: at the same counts the f-DP
    test against the GDP family certifies more than the (ε, δ) test — a figure that is an
    ε(δ) only because the curve here is Gaussian (see the randomized-response test below)."""
    delta = 1e-5
    mu = dp_to_gdp_mu(4.0, delta)
    family = GaussianFamily(delta, 4.0)
    rng = np.random.default_rng(0)
    bits = rng.random(1000) < 0.5
    scores = rng.standard_normal(1000) + mu * bits
    g = guess_grid(1000)[3]
    v = count_correct(scores, bits, g)
    f = fdp_bound(family, 1000, g.total, v, significance=0.05)
    e = steinke_epsilon(1000, g.total, v, significance=0.05, delta=delta)
    assert f > e > 0


def test_bad_counts_are_one_line():
    with pytest.raises(ValueError, match="correct <= guesses"):
        fdp_rejects(GaussianTradeOff(1.0), 10, 20, 5, 0.05)


def test_rejection_is_monotone_in_the_curve_for_random_pairs():
    """g ≤ f pointwise and g rejected ⇒ f rejected (the property that makes the rejected t
    an interval and a family's numbers hold jointly): random profile curves and GDP curves,
    random counts."""
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(600):
        eps = np.sort(rng.uniform(0, 3, 3))
        dl = np.sort(rng.uniform(0, 0.05, 3))[::-1]
        strong = ProfileTradeOff(tuple(eps), tuple(dl))
        weak = ProfileTradeOff(tuple(eps * rng.uniform(1, 2)), tuple(dl))  # ≤ strong
        m = int(rng.integers(100, 2000))
        r = int(rng.integers(10, m // 2))
        v = int(rng.integers(r // 2, r + 1))
        s = float(rng.uniform(1e-4, 0.1))
        if fdp_rejects(weak, m, r, v, s):
            checked += 1
            assert fdp_rejects(strong, m, r, v, s)
        mu = float(rng.uniform(0.1, 3))
        if fdp_rejects(GaussianTradeOff(mu * 1.5), m, r, v, s):
            assert fdp_rejects(GaussianTradeOff(mu), m, r, v, s)
    assert checked > 20


def test_a_family_whose_every_member_is_rejected_gives_infinity():
    """A scaled profile never drops below 1 − δ(0) − α: perfect guesses reject every member;
    the bound says ∞ (never a search cap)."""
    family = ScaledProfileFamily((0.0, 1.0), (0.01, 1e-6), 1.0)
    assert fdp_bound(family, 1000, 500, 500, significance=0.05) == math.inf
    assert fdp_bound(family, 1000, 500, 500, significance=0.05, at_least=math.inf) == math.inf


def test_the_eps_delta_family_gives_an_epsilon_bound_for_any_mechanism():
    """The f-DP test against f_{ε,δ}: a rejected ε is one the mechanism's ε(δ) exceeds
    (every (ε, δ)-DP mechanism is f_{ε,δ}-DP); on Gaussian counts it is below the GDP
    family's figure (which assumes the shape) and positive."""
    delta = 1e-5
    mu = dp_to_gdp_mu(4.0, delta)
    rng = np.random.default_rng(0)
    bits = rng.random(1000) < 0.5
    scores = rng.standard_normal(1000) + mu * bits
    g = guess_grid(1000)[3]
    v = count_correct(scores, bits, g)
    sound = fdp_bound(ApproxDPFamily(delta), 1000, g.total, v, significance=0.05)
    shaped = fdp_bound(GaussianFamily(delta, 4.0), 1000, g.total, v, significance=0.05)
    assert 0 < sound < shaped < 4.0
    assert fdp_rejects(ApproxDPFamily(delta).curve(sound), 1000, g.total, v, 0.05)


@pytest.mark.parametrize("family", [ApproxDPFamily(1e-5), GaussianFamily(1e-5, 1.0)],
                         ids=["eps-delta", "gdp"])
def test_the_bound_is_monotone_in_the_correct_guesses(family):
    """More correct guesses of the same count never certify less (so the guess-count search
    and the exact false-certification sums below read one threshold on v)."""
    for m, r in ((1000, 100), (200, 200)):
        bounds = [fdp_bound(family, m, r, v, significance=0.05) for v in range(r // 2, r + 1,
                                                                                r // 10)]
        assert bounds == sorted(bounds) and bounds[0] == 0 and bounds[-1] > 1


def test_a_search_stopped_at_the_cap_is_all_rejected_up_to_it():
    """A family whose members up to ε(δ) = 512 are all rejected while its limit curve is not
    (a claim point at ε = 10⁻⁴, δ = 10⁻³: it barely scales): the search returns exactly the cap
    (a lower bound, every member up to it rejected) and the figure says so in words — before,
    "512" was reported as if it were a certified ε."""
    family = ScaledProfileFamily((1e-4,), (1e-3,), 1.0)
    assert family.weakest() is None
    t = fdp_bound(family, 200, 50, 50, significance=0.05)
    assert t == SEARCH_CAP and capped(t)
    assert fdp_rejects(family.curve(SEARCH_CAP), 200, 50, 50, 0.05)
    text = FamilyFigure.of(family, t).describe()
    assert text == ("every curve of the claim-profile family up to ε(δ) = 512 rejected (the "
                    "search stops there)")
    from dpaudit.stats.threshold_tradeoff import rule_bound

    assert rule_bound(family, 0.079, 0.5) == SEARCH_CAP
    assert not capped(math.inf) and not capped(3.0)


# randomized response with flip p, guessed on its output: every guess is right with
# probability 1 − p independently, so the correct count is exactly Binomial(r, 1 − p), and the
# mechanism's ε(δ) is ln((1 − p − δ)/p) — a curve that is not Gaussian
RR_CASES = [(1000, 100, 0.12, 1e-5, 0.05), (1000, 200, 0.2, 1e-3, 0.1)]


def _false_certification(rejects, r, p):
    """The exact probability that ``rejects(v)`` holds for V ~ Binomial(r, 1 − p)."""
    from scipy import stats

    pmf = stats.binom.pmf(np.arange(r + 1), r, 1 - p)
    return float(sum(pmf[v] for v in range(r + 1) if rejects(v)))


@pytest.mark.parametrize("m, r, p, delta, level", RR_CASES)
def test_exact_false_certification_on_randomized_response(m, r, p, delta, level):
    """What is proved, checked exactly: each one-run test has level ≤ its significance under
    any mechanism satisfying the null — Steinke et al.'s against (ε, δ)-DP, Mahloujifar et
    al.'s against f_{ε,δ} (every (ε, δ)-DP mechanism is f_{ε,δ}-DP) — so P[ε_LB > true ε(δ)]
    ≤ the significance.  The GDP family's ε(δ) (the number ε_LB used to be) is no bound on
    this curve: it 'certifies' above the truth far more often than the level."""
    truth = math.log((1 - p - delta) / p)
    steinke = _false_certification(
        lambda v: steinke_p_value(m, r, v, truth, delta) <= level, r, p)
    sound = _false_certification(
        lambda v: fdp_rejects(ApproxDPFamily(delta).curve(truth), m, r, v, level), r, p)
    shaped = _false_certification(
        lambda v: fdp_rejects(GaussianFamily(delta, 1.0).curve(truth), m, r, v, level), r, p)
    assert 0 < steinke <= level and 0 < sound <= level
    assert shaped > 3 * level


def test_neither_one_run_bound_dominates_the_other():
    """No theorem orders the two sound bounds at the same counts (Mahloujifar et al. show the
    f-DP test tighter in experiments, not for f_{ε,δ} at every count): at δ = 0 and few
    guesses Steinke et al.'s binomial tail is exact for randomized response and the recursion
    slightly looser; at δ = 10⁻³ the (ε, δ) test's additive δ-term (2mδ·α) costs far more
    than the curve's.  The evidence reports each at its own share and ε_LB as the larger."""
    steinke = steinke_epsilon(200, 20, 15, significance=0.05, delta=0.0)
    fdp = fdp_bound(ApproxDPFamily(0.0), 200, 20, 15, significance=0.05)
    assert 0 < fdp < steinke
    steinke = steinke_epsilon(1000, 100, 100, significance=0.05, delta=1e-3)
    fdp = fdp_bound(ApproxDPFamily(1e-3), 1000, 100, 100, significance=0.05)
    assert fdp > 3 * steinke > 0
