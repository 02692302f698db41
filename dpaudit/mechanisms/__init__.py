"""Mechanism families (one module each) and the registry that names them."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dpaudit.mechanisms.base import Mechanism, NeighbourPair
    from dpaudit.mechanisms.registry import create_mechanism, get_mechanism_class, mechanism_names

_LAZY = {"Mechanism": "base", "NeighbourPair": "base", "create_mechanism": "registry",
         "get_mechanism_class": "registry", "mechanism_names": "registry"}


def __getattr__(name: str):
    """The names above on first use (PEP 562): ``dpaudit.mechanisms.families``, which ``proofs``
    and so ``dpaudit --help`` import, must not import the claims (sympy, scipy)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"dpaudit.mechanisms.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Mechanism", "NeighbourPair", "create_mechanism", "get_mechanism_class",
           "mechanism_names"]
