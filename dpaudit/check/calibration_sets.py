"""Calibration on several datasets: the noise law must hold on every dataset, not one probe.

A noise scale that depends on the data — C/(len(D)·ε) instead of C/(n_min·ε), a clipping
bound read from the data — is right on some datasets and wrong on others.  One probe (the
worst-case pair's d0, often the smallest dataset) can sit exactly where it happens to be
right.  So when the mechanism declares
:class:`~dpaudit.mechanisms.capabilities.SearchableDatasets`, :func:`calibration_datasets`
adds datasets from its ``dataset_space()``: from :data:`SEARCH_PAIRS` random pairs plus the
two corners of the space's parametrisation (all-0 and all-1 vectors, which give the smallest
and the largest sizes of :class:`~dpaudit.neighbours.spaces.BoundedRecords`), the smallest
and the largest dataset (by number of records) and :data:`RANDOM_DATASETS` others at random.

:func:`check_calibration_on` runs :func:`dpaudit.check.calibration.check_calibration` on each
dataset — unless the mechanism declares ``noise_depends_on_dataset`` (its stated values are
then those of the probe only, e.g. DP-LSW's data-dependent σ_X) — the probe with ``samples`` draws, each further dataset with ``samples // 2`` — at
confidence 1 − (1 − confidence)/k for k datasets, so the intervals of *all* datasets (a law's
own intervals are already Bonferroni-split within a dataset) hold jointly at ``confidence``:
a correct mechanism fails the step with probability ≤ 1 − confidence.  A dataset on which the
law cannot be checked (e.g. equal utilities for the exponential mechanism) is skipped and
named in ``details["skipped"]``; the probe never is.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from dpaudit.check.calibration import (DEFAULT_CONFIDENCE, Calibration, CalibrationError,
                                       check_calibration, default_probe)
from dpaudit.mechanisms.capabilities import CalibratedNoise, SearchableDatasets
from dpaudit.neighbours.pairs import plain

#: random pairs drawn from the dataset space to choose calibration datasets from
SEARCH_PAIRS = 200
#: datasets picked at random among them, besides the smallest and the largest
RANDOM_DATASETS = 2


def _size(dataset) -> int:
    try:
        return len(dataset)
    except TypeError:
        return 1


def calibration_datasets(mechanism, probe, rng: np.random.Generator) -> list[tuple[str, Any]]:
    """(label, dataset): the probe, then — for a mechanism with a dataset space whose noise
    values are data-independent (``noise_depends_on_dataset`` False) — the smallest
    and largest datasets found and :data:`RANDOM_DATASETS` random ones (distinct, in that
    order)."""
    chosen = [("probe", probe)]
    if not isinstance(mechanism, SearchableDatasets) or (
            isinstance(mechanism, CalibratedNoise) and mechanism.noise_depends_on_dataset):
        return chosen
    space = mechanism.dataset_space()
    found = []
    for corner in (np.zeros(space.dimension), np.ones(space.dimension)):
        found.extend(space.from_vector(corner))
    for _ in range(SEARCH_PAIRS):
        found.extend(space.random_pair(rng))
    seen = {repr(probe)}
    unique = []
    for d in found:
        if repr(d) not in seen:
            seen.add(repr(d))
            unique.append(d)
    if not unique:
        return chosen
    sizes = [_size(d) for d in unique]
    picks = [("smallest", int(np.argmin(sizes))), ("largest", int(np.argmax(sizes)))]
    rest = [i for i in range(len(unique)) if i not in {j for _, j in picks}]
    for i in rng.permutation(len(rest))[:RANDOM_DATASETS]:
        picks.append(("random", rest[int(i)]))
    taken = set()
    for label, i in picks:
        if i not in taken:
            taken.add(i)
            chosen.append((f"{label}, {sizes[i]} record(s)", unique[i]))
    return chosen


def check_calibration_on(mechanism, noise, *, samples: int, rng: np.random.Generator,
                         confidence: float = DEFAULT_CONFIDENCE) -> Calibration:
    """The calibration check on every dataset of :func:`calibration_datasets`, Bonferroni over
    the datasets (see the module docstring)."""
    probe = default_probe(mechanism, noise)
    datasets = calibration_datasets(mechanism, probe, rng)
    each = 1.0 - (1.0 - confidence) / len(datasets)
    results, skipped = [], []
    for k, (label, dataset) in enumerate(datasets):
        n = int(samples) if k == 0 else max(int(samples) // 2, 1000)
        try:
            cal = check_calibration(mechanism, noise, samples=n, rng=rng, confidence=each,
                                    probe=dataset)
        except (CalibrationError, ValueError) as exc:
            if k == 0:
                raise
            skipped.append(f"{label}: {exc}")
            continue
        results.append((label, cal))
    if len(results) == 1 and not skipped:
        return results[0][1]
    intervals = tuple(dataclasses.replace(iv, dataset=label)
                      for label, cal in results for iv in cal.intervals)
    first = results[0][1]
    return Calibration(
        law=first.law, passed=all(iv.inside for iv in intervals), intervals=intervals,
        samples=sum(cal.samples for _, cal in results), confidence=confidence, probe=probe,
        method=f"{first.method}; on {len(results)} datasets (the probe and datasets from "
               f"dataset_space()), each at confidence {each:.6g} (Bonferroni over datasets)",
        details={**first.details, "datasets": [{"label": label, "samples": cal.samples,
                                                "passed": cal.passed,
                                                "dataset": plain(cal.probe)}
                                               for label, cal in results],
                 "skipped": skipped})


__all__ = ["RANDOM_DATASETS", "SEARCH_PAIRS", "calibration_datasets", "check_calibration_on"]
