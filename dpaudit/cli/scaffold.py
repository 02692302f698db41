"""``dpaudit init DIR``: a starting point for auditing your own mechanism.

Writes three files that pass as written, so a new user begins from something green and
changes it:

* ``DIR/my_mechanism.py`` — ``clipped_mean``, the mean of records clipped to [0, C] of a
  dataset of at least ``n_min`` records, plus Lap((C/n_min + g)/ε) noise on the grid
  g = 2⁻³²: ε-DP under add/remove one record, because adding or removing one record moves the
  clipped mean of datasets of ≥ n_min records by at most C/(n_min + 1) ≤ C/n_min (Dwork & Roth
  2014, Thm 3.6, with that sensitivity).  It is a plain function declared with
  ``@dpaudit.mechanism`` (:mod:`dpaudit.mechanisms.declared`): its claim, relation, record
  domain and sizes (the pair search) and its query with its sensitivity (the grey-box
  check).  With ``--class`` (``style="class"``) it is ``ClippedMean``, the same mechanism as a
  :class:`~dpaudit.mechanisms.base.Mechanism` subclass that also says what only a class can:
  a log-density (white-box audits) and its noise law (the calibration check).
* ``DIR/audits/my_mechanism.toml`` — a suite naming ``../my_mechanism.py:clipped_mean`` (or
  ``:ClippedMean``; paths are relative to the suite file) at two privacy levels.
* ``DIR/tests/test_my_mechanism.py`` — a pytest test using the ``dpaudit_audit`` fixture of the
  plugin installed with dpaudit.
* ``DIR/pytest.ini`` — only when ``DIR`` has no pytest configuration of its own
  (:data:`PYTEST_CONFIGS`): it makes ``DIR`` pytest's rootdir, so pytest reads no settings of a
  project above it.  Without it, ``dpaudit init my-audit`` inside a dpaudit clone (the
  README's walkthrough) ran ``python -m pytest`` under the clone's pyproject.toml, whose
  ``addopts = "-n auto"`` needs pytest-xdist: "error: unrecognized arguments: -n".  It is also
  the project root dpaudit imports a suite's code from (docs/suite-files.md).

Existing files are never overwritten unless ``force`` is given; every file is written to a
temporary name and renamed, so an interrupted ``init`` leaves no half-written file.
"""

from __future__ import annotations

import os
from pathlib import Path

from dpaudit.util.atomic import write_text_atomic

MECHANISM = '''"""My mechanism: a clipped mean with Laplace noise (written by `dpaudit init`).

The function is the mechanism as you ship it; @dpaudit.mechanism states what its proof
states, and every dpaudit route (dpaudit check, dpaudit run, the pytest fixture, the API)
audits it from that: the claim, the neighbours, where to search for pairs (the records and
sizes of a dataset), and how far the clipped mean may move (the grey-box check).
"""

import numpy as np

import dpaudit
from dpaudit import laplace_on_grid

GRID = 2.0 ** -32  # outputs are multiples of GRID: their float64 bits carry only the value


def clipped_mean_query(dataset, clip):
    """The value the noise is added to: the mean of the records clipped to [0, clip]."""
    return float(np.clip(np.asarray(dataset, dtype=float), 0.0, clip).mean())


@dpaudit.mechanism(
    claim="pure-dp",                                  # ε-DP, ε = the parameter epsilon
    relation="add-remove",                            # neighbours: add or remove one record
    records=lambda clip: (0.0, clip),                 # a record is a number in [0, clip],
    sizes=lambda n_min: (n_min, n_min + 4),           # a dataset holds n_min or more of them
    query=clipped_mean_query,                         # grey-box: how far the mean moves,
    sensitivity=lambda clip, n_min: clip / n_min,     # against Δ = clip / n_min
)
def clipped_mean(dataset, n, rng, epsilon=1.0, clip=1.0, n_min=10):
    """n draws of the clipped mean plus Lap((clip / n_min + GRID) / epsilon) noise.

    Released on the grid GRID (laplace_on_grid): a plain `mean + rng.laplace(...)` leaks the
    mean through the low bits of its doubles (Mironov 2012), and dpaudit flags it.  Rounding
    moves the mean by at most GRID / 2, so with b = (clip / n_min + GRID) / epsilon this is
    epsilon-DP (Laplace mechanism, Dwork & Roth 2014, Thm 3.6, on the grid).
    """
    mean = clipped_mean_query(dataset, clip)
    return laplace_on_grid(mean, (clip / n_min + GRID) / epsilon, n, rng, grid=GRID)
'''

MECHANISM_CLASS = '''"""My mechanism: a clipped mean with Laplace noise (written by `dpaudit init`)."""

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
mechanism = "../my_mechanism.py:{name}"
params = { epsilon = 1.0, clip = 1.0, n_min = 10 }
expect = "consistent"

[[audit]]
name = "clipped-mean-eps0.5"
mechanism = "../my_mechanism.py:{name}"
params = { epsilon = 0.5, clip = 2.0, n_min = 20 }
expect = "consistent"
'''

TEST = '''"""Audit my mechanism in pytest (written by `dpaudit init`)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from my_mechanism import {name}  # noqa: E402


def test_clipped_mean_meets_its_claim(dpaudit_audit):
    result = dpaudit_audit.mechanism({name}, params={"epsilon": 1.0}, samples=100_000,
                                     seed=7)
    assert result.verdict == "consistent"
'''

PYTEST_INI = """# written by `dpaudit init`: this folder is pytest's rootdir, so pytest reads no settings
# of a project above it (and dpaudit imports the suites' code from here)
[pytest]
testpaths = tests
"""

#: the files that hold a pytest configuration: with one in DIR, init writes no pytest.ini
PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")

#: the mechanism each style writes: (its file's text, the name the suite and the test use)
STYLES = {"function": (MECHANISM, "clipped_mean"), "class": (MECHANISM_CLASS, "ClippedMean")}


def scaffold_files(style: str = "function") -> dict[str, str]:
    """relative path -> content of every file ``init`` writes in ``style``."""
    text, name = STYLES[style]
    return {"my_mechanism.py": text,
            "audits/my_mechanism.toml": SUITE.replace("{name}", name),
            "tests/test_my_mechanism.py": TEST.replace("{name}", name),
            "pytest.ini": PYTEST_INI}


#: relative path -> content of every file ``init`` writes (the default style)
FILES = scaffold_files()


class ScaffoldError(ValueError):
    """``init`` cannot write: the message names the file and what to do."""


def write_scaffold(directory: str | os.PathLike, *, force: bool = False,
                   style: str = "function") -> list[Path]:
    """Write :func:`scaffold_files` of ``style`` under ``directory`` (created if missing;
    ``pytest.ini`` only where no file of :data:`PYTEST_CONFIGS` is); returns the paths.

    Raises:
      ScaffoldError: a file exists and ``force`` is false (nothing is written then), or the
        directory is not writable.
    """
    root = Path(directory)
    files = scaffold_files(style)
    if any((root / name).exists() for name in PYTEST_CONFIGS):  # the project's own settings
        del files["pytest.ini"]
    targets = [root / rel for rel in files]
    existing = [str(p) for p in targets if p.exists()]
    if existing and not force:
        raise ScaffoldError(f"{', '.join(existing)} already exist(s); use --force to overwrite "
                            f"or choose another directory")
    written = []
    try:
        for path, content in zip(targets, files.values()):
            written.append(write_text_atomic(path, content))
    except OSError as exc:
        raise ScaffoldError(f"cannot write under {root}: {exc.strerror or exc}") from None
    return written


def cmd_init(args) -> int:
    """``dpaudit init [DIR] [--class] [--force]``: write the files, say what to run next,
    and note a folder named dpaudit that would hide the package there
    (:mod:`dpaudit.util.shadowing`).  Exit 0, or 2 when a file exists or cannot be written."""
    import sys

    from dpaudit.util.shadowing import folder_that_would_shadow, shadowing_message

    style = "class" if getattr(args, "as_class", False) else "function"
    try:
        written = write_scaffold(args.directory, force=args.force, style=style)
    except ScaffoldError as exc:
        print(f"dpaudit init: error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    shadow = folder_that_would_shadow(args.directory)
    if shadow is not None:
        print(f"dpaudit init: note: {shadowing_message(shadow)}", file=sys.stderr)
    print(f"next: cd {args.directory} && dpaudit check my_mechanism.py:{STYLES[style][1]} && "
          f"dpaudit run audits/ --out reports && python -m pytest -q")
    return 0


__all__ = ["FILES", "MECHANISM", "MECHANISM_CLASS", "PYTEST_CONFIGS", "PYTEST_INI", "STYLES",
           "ScaffoldError", "cmd_init",
           "scaffold_files", "write_scaffold"]
