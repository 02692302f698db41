"""``dpaudit init DIR``: a starting point for auditing your own mechanism.

Writes three files that pass as written, so a new user begins from something green and
changes it:

* ``DIR/my_mechanism.py`` — ``ClippedMean``, the mean of records clipped to [0, C] of a
  dataset of at least ``n_min`` records, plus Lap(C/(n_min·ε)) noise: ε-DP under add/remove
  one record, because adding or removing one record moves the clipped mean of datasets of
  ≥ n_min records by at most C/(n_min + 1) ≤ C/n_min (Dwork & Roth 2014, Thm 3.6, with that
  sensitivity).  It declares its parameters, its relation, a log-density (white-box audits),
  its query and sensitivity with a dataset space (``dpaudit check``'s grey-box search) and
  its noise law (the calibration check).
* ``DIR/audits/my_mechanism.toml`` — a suite naming ``../my_mechanism.py:ClippedMean`` (paths
  are relative to the suite file) at two privacy levels.
* ``DIR/tests/test_my_mechanism.py`` — a pytest test using the ``dpaudit_audit`` fixture of the
  plugin installed with dpaudit.

Existing files are never overwritten unless ``force`` is given; every file is written to a
temporary name and renamed, so an interrupted ``init`` leaves no half-written file.
"""

from __future__ import annotations

import os
from pathlib import Path

from dpaudit.util.atomic import write_text_atomic

MECHANISM = '''"""My mechanism: a clipped mean with Laplace noise (written by `dpaudit init`)."""

import math

import numpy as np

from dpaudit import (CalibratedNoise, GreyBoxQuery, LogDensity, Mechanism, NeighbourPair,
                     NeighbourRelation, Parameter, PureDP, SearchableDatasets, laplace_on_grid)
from dpaudit.util import validation
from dpaudit.mechanisms.noise import Noise
from dpaudit.neighbours import add_remove_one
from dpaudit.neighbours.spaces import BoundedRecords


class ClippedMean(LogDensity, GreyBoxQuery, SearchableDatasets, CalibratedNoise, Mechanism):
    """Mean of the records clipped to [0, C], plus Laplace noise, released on a grid.

    Datasets have at least n_min records; neighbours add or remove one record, which moves
    the clipped mean by at most C / (n_min + 1) <= C / n_min.  The output is
    round(mean / g) * g + g * round(Y / g) with Y ~ Lap(b) and g = GRID: a multiple of g
    whatever the data, so its float64 bits carry nothing but its value (a plain
    ``mean + rng.laplace(...)`` leaks the mean through its low bits, Mironov 2012, and
    dpaudit flags it).  Rounding moves the mean by at most g / 2, so with
    b = (C / n_min + g) / epsilon the mechanism is epsilon-DP (Laplace mechanism, Dwork &
    Roth 2014, Thm 3.6, on the grid).
    """

    name = "my-clipped-mean"
    family = "mine"
    sensitivity_norm = "l1"

    epsilon = Parameter(1.0, validation.positive, "privacy parameter epsilon > 0")
    clip = Parameter(1.0, validation.positive, "records are clipped to [0, clip]")
    n_min = Parameter(10, validation.positive_int, "smallest dataset size")

    GRID = 2.0 ** -32  # outputs are multiples of GRID

    def derive(self):
        self.scale = (self.clip / self.n_min + self.GRID) / self.epsilon

    def relation(self):
        return NeighbourRelation("add-remove-one", "add or remove one record (sizes >= n_min)",
                                 add_remove_one)

    def validate_dataset(self, dataset):
        records = np.asarray(dataset, dtype=float).ravel()
        validation.finite_entries("dataset", records)
        if records.size < self.n_min:
            raise ValueError(f"the dataset has {records.size} records; at least n_min = "
                             f"{self.n_min} are needed")
        return records

    def query(self, dataset):
        return float(np.clip(self.validate_dataset(dataset), 0.0, self.clip).mean())

    def sensitivity(self):
        return self.clip / self.n_min

    def dataset_space(self):
        return BoundedRecords(0.0, self.clip, n_max=self.n_min + 4, min_size=self.n_min)

    def claim(self):
        return PureDP(epsilon=self.epsilon)

    def noise(self):
        return Noise("laplace", {"b": (self.clip / self.n_min + self.GRID) / self.claim().eps},
                     source="b = (clip / n_min + GRID) / epsilon from the claimed epsilon")

    def worst_case_pairs(self):
        base = [0.0] * self.n_min
        return [NeighbourPair("add-max-record", base, base + [self.clip],
                              "adding a record at the clip bound to n_min zeros moves the "
                              "mean by the most: clip / (n_min + 1)")]

    def sample(self, dataset, n, rng):
        return laplace_on_grid(self.query(dataset), self.scale, n, rng, grid=self.GRID)

    def log_density(self, dataset, outputs):
        y = np.asarray(outputs, dtype=float)
        return -np.abs(y - self.query(dataset)) / self.scale - math.log(2 * self.scale)
'''

SUITE = '''# Audits of my mechanism (written by `dpaudit init`).  Run with
#   dpaudit run audits/ --out reports
# or as tests with
#   python -m pytest --dpaudit-suites audits/
# A suite that names code (mechanism = "file.py:Class") runs that code, as conftest.py does.

[suite]
name = "my-mechanism"
confidence = 0.95
samples = 200000
seed = 1

[[audit]]
name = "clipped-mean-eps1"
mechanism = "../my_mechanism.py:ClippedMean"
params = { epsilon = 1.0, clip = 1.0, n_min = 10 }
expect = "consistent"

[[audit]]
name = "clipped-mean-eps0.5"
mechanism = "../my_mechanism.py:ClippedMean"
params = { epsilon = 0.5, clip = 2.0, n_min = 20 }
expect = "consistent"
'''

TEST = '''"""Audit my mechanism in pytest (written by `dpaudit init`)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from my_mechanism import ClippedMean  # noqa: E402


def test_clipped_mean_meets_its_claim(dpaudit_audit):
    result = dpaudit_audit.mechanism(ClippedMean, params={"epsilon": 1.0}, samples=100_000,
                                     seed=7)
    assert result.verdict == "consistent"
'''

#: relative path -> content of every file ``init`` writes
FILES = {
    "my_mechanism.py": MECHANISM,
    "audits/my_mechanism.toml": SUITE,
    "tests/test_my_mechanism.py": TEST,
}


class ScaffoldError(ValueError):
    """``init`` cannot write: the message names the file and what to do."""


def write_scaffold(directory: str | os.PathLike, *, force: bool = False) -> list[Path]:
    """Write :data:`FILES` under ``directory`` (created if missing); returns the paths.

    Raises:
      ScaffoldError: a file exists and ``force`` is false (nothing is written then), or the
        directory is not writable.
    """
    root = Path(directory)
    targets = [root / rel for rel in FILES]
    existing = [str(p) for p in targets if p.exists()]
    if existing and not force:
        raise ScaffoldError(f"{', '.join(existing)} already exist(s); use --force to overwrite "
                            f"or choose another directory")
    written = []
    try:
        for path, content in zip(targets, FILES.values()):
            written.append(write_text_atomic(path, content))
    except OSError as exc:
        raise ScaffoldError(f"cannot write under {root}: {exc.strerror or exc}") from None
    return written


__all__ = ["FILES", "ScaffoldError", "write_scaffold"]
