"""Mechanism families (one module each) and the registry that names them."""

from dpaudit.mechanisms.base import Mechanism, NeighbourPair
from dpaudit.mechanisms.registry import create_mechanism, get_mechanism_class, mechanism_names

__all__ = ["Mechanism", "NeighbourPair", "create_mechanism", "get_mechanism_class",
           "mechanism_names"]
