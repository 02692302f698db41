"""Neighbouring relations, neighbouring pairs and worst-case pair constructions."""

from dpaudit.neighbours.pairs import NeighbourPair
from dpaudit.neighbours.relations import (NeighbourRelation, add_remove_one, any_single_record,
                                          linf, linf_within, replace_one)

__all__ = ["NeighbourPair", "NeighbourRelation", "add_remove_one", "any_single_record", "linf",
           "linf_within", "replace_one"]
