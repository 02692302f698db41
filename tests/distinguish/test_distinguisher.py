"""The distinguishers (:mod:`dpaudit.distinguish.distinguisher`): an abstract class, one
concrete class per name, and the table behind ``distinguisher=``."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.distinguish import lower_bound
from dpaudit.distinguish.distinguisher import (DISTINGUISHER_CLASSES, DISTINGUISHERS,
                                               Distinguisher, FitContext, FittedStatistics,
                                               StatisticsDistinguisher, get_distinguisher)
from dpaudit.distinguish.statistics import Coordinate


def _concrete_subclasses(cls) -> set[type]:
    out = set()
    for sub in cls.__subclasses__():
        if not sub.__abstractmethods__ and sub.__module__ == cls.__module__:
            out.add(sub)
        out |= _concrete_subclasses(sub)
    return out


def test_the_table_is_the_public_names_in_their_order():
    assert DISTINGUISHERS == ("auto", "statistics", "logistic", "boosting", "white-box",
                              "projection")
    assert lower_bound.DISTINGUISHERS is DISTINGUISHERS
    assert tuple(DISTINGUISHER_CLASSES) == DISTINGUISHERS
    for name, cls in DISTINGUISHER_CLASSES.items():
        assert issubclass(cls, Distinguisher) and cls.name == name
        assert isinstance(get_distinguisher(name), cls)
    # one concrete class per name, and every concrete class of the module is in the table
    assert _concrete_subclasses(Distinguisher) == set(DISTINGUISHER_CLASSES.values())
    assert [n for n, c in DISTINGUISHER_CLASSES.items() if c.needs_log_density] == ["white-box"]


def test_distinguisher_is_abstract():
    with pytest.raises(TypeError, match="abstract"):
        Distinguisher()


@pytest.mark.parametrize("name", ["nope", "Auto", None, ["auto"]])
def test_unknown_name_lists_the_known_ones(name):
    message = ("distinguisher must be one of auto, statistics, logistic, boosting, white-box, "
               "projection, got ")
    with pytest.raises(ValueError, match=message):
        get_distinguisher(name)
    with pytest.raises(ValueError, match=message):
        estimate_epsilon_lower_bound(lambda d, n, rng: rng.normal(d, 1.0, n), 0.0, 1.0,
                                     samples=1000, seed=1, distinguisher=name)


def test_white_box_needs_a_log_density_before_sampling():
    calls = []

    def sampler(d, n, rng):
        calls.append(n)
        return rng.normal(d, 1.0, n)

    with pytest.raises(ValueError, match="white-box distinguisher needs log_density"):
        estimate_epsilon_lower_bound(sampler, 0.0, 1.0, samples=1000, seed=1,
                                     distinguisher="white-box")
    assert calls == []
    with pytest.raises(ValueError, match="white-box distinguisher needs log_density"):
        get_distinguisher("white-box").fit(np.zeros(10), np.ones(10), FitContext(0.0, 1.0, 1))


def _gauss_log_density(d, x):
    return -0.5 * (np.asarray(x, float) - d) ** 2


#: (name, output width or None for scalars): the log-density here is of scalar outputs, and
#: the projection distinguisher is for vector outputs
FIT_CASES = [pytest.param(name, width, marks=[pytest.mark.slow] if name == "boosting" else [])
             for name in DISTINGUISHERS for width in (None, 3)
             if not (name == "white-box" and width) and not (name == "projection" and not width)]
# (boosting: scikit-learn's gradient boosting, ~1 s a fit on a loaded 2-core machine: slow)


@pytest.mark.parametrize("name, width", FIT_CASES)
def test_every_distinguisher_fits_statistics_of_one_output(name, width):
    rng = np.random.default_rng(3)
    shape = (1000,) if width is None else (1000, width)  # a contract check: small fits
    x0, x1 = rng.normal(0.0, 1.0, shape), rng.normal(1.0, 1.0, shape)
    fitted = get_distinguisher(name).fit(
        x0, x1, FitContext(0.0, 1.0, 5, log_density=_gauss_log_density))
    assert isinstance(fitted, FittedStatistics) and fitted.statistics and fitted.kind
    for stat in fitted.statistics:
        values = stat(x0[:50])
        assert values.shape == (50,)


def test_auto_adds_logistic_regression_for_continuous_vectors_only():
    rng = np.random.default_rng(4)
    vec0, vec1 = rng.normal(0, 1, (4000, 2)), rng.normal(1, 1, (4000, 2))
    context = FitContext(0.0, 1.0, 5)
    auto = get_distinguisher("auto").fit(vec0, vec1, context)
    stats = get_distinguisher("statistics").fit(vec0, vec1, context)
    assert len(auto.statistics) == len(stats.statistics) + 1
    assert auto.statistics[-1].name == "logistic regression score"
    scalar = get_distinguisher("auto").fit(vec0[:, 0], vec1[:, 0], context)
    assert len(scalar.statistics) == len(
        get_distinguisher("statistics").fit(vec0[:, 0], vec1[:, 0], context).statistics)


class _FirstCoordinate(Distinguisher):
    """A user-defined distinguisher: the output itself."""

    name = "first-coordinate"

    def fit(self, x0, x1, context):
        return FittedStatistics((Coordinate(None),), "custom")


def test_a_new_distinguisher_plugs_into_the_selection_step():
    sampler = lambda d, n, rng: rng.laplace(d, 1.0, n)  # noqa: E731
    selection = lower_bound.select(sampler, 0.0, 1.0, _FirstCoordinate(), deltas=[0.0],
                                   samples=5000, confidence=0.95, seed=2)
    assert selection.distinguisher == "first-coordinate" and selection.output_kind == "custom"
    assert all(e.stat_index == 0 for e in selection.events)
    assert isinstance(StatisticsDistinguisher(), Distinguisher)
