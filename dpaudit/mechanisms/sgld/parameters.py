"""Parameter declarations shared by the SGLD family's mechanisms (:mod:`.mechanisms`,
:mod:`.propose_test_sample`): numbers checked by :func:`dpaudit.util.validation.number`, with the
family's error messages."""

from __future__ import annotations

from dpaudit.util import validation
from dpaudit.mechanisms.parameters import Parameter


def parameter_number(name, value, *, positive=True, integer=False, minimum=None) -> float:
    """A validated numeric parameter (:func:`dpaudit.util.validation.number`): > 0 when
    ``positive`` (and ``minimum`` is None or ≤ 0), else ≥ ``minimum``; ``ValueError`` naming
    ``name`` otherwise."""
    lower, strict = ((0.0, True) if positive and (minimum is None or minimum <= 0)
                     else (minimum, False))
    return validation.number(name, value, minimum=lower, strict_minimum=strict, integer=integer)


def positive_parameter(default, doc: str) -> Parameter:
    """A declared parameter > 0 (:func:`parameter_number`)."""
    return Parameter(default, parameter_number, doc)


def count_parameter(default: int, doc: str, minimum: int) -> Parameter:
    """A declared whole-number parameter ≥ ``minimum`` (:func:`parameter_number`)."""
    def check(name, value):
        return int(parameter_number(name, value, positive=minimum > 0, integer=True,
                                    minimum=minimum))
    return Parameter(default, check, doc)


