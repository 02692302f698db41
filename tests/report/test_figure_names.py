"""Figure file names: today's readable slug where it is unambiguous, a hash of the exact
names where slugs collide (:func:`dpaudit.report.figures.figure_names`)."""

from __future__ import annotations

import pytest

from dpaudit.report.figures import FigurePathError, figure_names, figures_dir


def test_unambiguous_names_keep_their_readable_slug():
    assert figure_names([("classic__lap__add-max-record", ("curve", "classic", "lap", "p")),
                         ("sgld__figure-1__series", ("series", "sgld", "figure-1"))]) == [
        "classic__lap__add-max-record.png", "sgld__figure-1__series.png"]


@pytest.mark.parametrize("a, b", [(("s", "lap 1", "p"), ("s", "lap/1", "p")),
                                  (("s", "ε=1", "p"), ("s", "δ=1", "p")),
                                  (("s", "Lap", "p"), ("s", "lap", "p")),
                                  (("a__b", "c", "p"), ("a", "b__c", "p"))])
def test_colliding_slugs_get_distinct_names_that_do_not_depend_on_order(a, b):
    from dpaudit.report.figures import _slug

    keys = [("__".join(_slug(x) for x in a), ("curve", *a)),
            ("__".join(_slug(x) for x in b), ("curve", *b))]
    names = figure_names(keys)
    assert len({n.casefold() for n in names}) == 2
    assert figure_names(keys[::-1]) == names[::-1]


def test_identical_names_are_told_apart_by_their_order():
    key = ("s__a__p", ("curve", "s", "a", "p"))
    names = figure_names([key, key, key])
    assert len(set(names)) == 3 and names[1] == names[0][:-4] + "-2.png"


def test_a_figures_link_outside_the_output_is_refused_and_inside_it_allowed(tmp_path):
    out, outside = tmp_path / "out", tmp_path / "outside"
    (out / "mine").mkdir(parents=True)
    outside.mkdir()
    (out / "figures").symlink_to(out / "mine", target_is_directory=True)
    assert figures_dir(out) == out / "figures"
    (out / "figures").unlink()
    (out / "figures").symlink_to(outside, target_is_directory=True)
    with pytest.raises(FigurePathError, match="symbolic link.*outside"):
        figures_dir(out)
    (out / "figures").unlink()
    (out / "figures").symlink_to(tmp_path / "missing")  # dangling, still outside
    with pytest.raises(FigurePathError):
        figures_dir(out)
