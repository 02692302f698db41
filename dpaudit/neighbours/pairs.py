"""A neighbouring pair of datasets, as mechanisms propose them and reports print them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


def plain(value):
    """``value`` with numpy arrays turned into (nested) lists, for JSON and printing."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring datasets and why they were chosen.

    Attributes:
      name: a short identifier (unique among a mechanism's pairs).
      d0, d1: the two datasets, in the form the mechanism's ``sample`` accepts.
      description: why this pair is hard (the proof step or counterexample it comes from).
    """

    name: str
    d0: Any
    d1: Any
    description: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "d0": plain(self.d0), "d1": plain(self.d1),
                "description": self.description}
