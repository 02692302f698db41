"""Declared, typed mechanism parameters: each declared once, validated once.

A mechanism class lists its parameters as class attributes::

    class LaplaceMechanism(Mechanism):
        epsilon = Parameter(1.0, validation.positive, "privacy parameter ε > 0")
        sensitivity = Parameter(1.0, validation.positive, "sensitivity Δ of the sum")

:class:`~dpaudit.mechanisms.base.Mechanism`'s constructor then accepts exactly those keyword
arguments (an unknown one is a :class:`TypeError` listing the accepted names), passes each
value through its ``check`` — a :mod:`dpaudit.util.validation` function ``check(name, value)``
returning the normalised value, so messages keep the ``"<name> must be …, got …"`` format —
and stores it.  Reading ``mech.epsilon`` returns the validated value; assigning it raises.
``mech.params`` is a read-only view of every declared value, in declaration order.  Checks
that involve several parameters, and derived quantities (a noise scale …), belong in the
mechanism's ``derive()`` hook, which runs after every parameter is set.

Contract: a parameter's keyword (its ``name``, the key in ``params``) is the attribute it is
assigned to unless ``name=`` says otherwise (``_sensitivity = Parameter(…, name="sensitivity")``
when a capability method already owns the public attribute); a subclass may redeclare a
parameter (e.g. a different default), which replaces the inherited declaration in place.
``params`` lists parameters base-class first, in declaration order, unless the class sets
``parameter_order`` (a tuple of names that come first, in that order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from dpaudit.util import validation
from dpaudit.util.hints import did_you_mean


@dataclass(frozen=True)
class Parameter:
    """One declared mechanism parameter (a data descriptor).

    Attributes:
      default: the value used when the keyword is not given (passed through ``check`` too).
      check: ``check(name, value) -> value`` raising ``ValueError`` for a bad value, e.g.
        :func:`dpaudit.util.validation.positive`; ``None`` accepts any value unchanged.
      doc: one line for ``dpaudit list`` and the README.
      name: the keyword argument and ``params`` key; by default the attribute name.
      attribute: the class attribute the parameter is read from (set when the class is made).
    """

    default: Any = None
    check: Callable[[str, Any], Any] | None = None
    doc: str = ""
    name: str = ""
    attribute: str = ""

    def __set_name__(self, owner, attribute: str) -> None:
        object.__setattr__(self, "attribute", attribute)
        if not self.name:
            object.__setattr__(self, "name", attribute)

    def validate(self, value) -> Any:
        """The value as the mechanism stores it, or ``ValueError`` naming the parameter."""
        return value if self.check is None else self.check(self.name, value)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        try:
            return obj._parameter_values[self.name]
        except (AttributeError, KeyError):
            raise AttributeError(f"parameter {self.name!r} is not set yet") from None

    def __set__(self, obj, value) -> None:
        raise AttributeError(f"parameter {self.name!r} is read-only; build a new mechanism "
                             f"with {self.name}=… instead")


def _class_attribute(cls, attribute: str):
    """The value ``attribute`` has on ``cls`` (the first class of the MRO that sets it)."""
    return next((vars(k)[attribute] for k in cls.__mro__ if attribute in vars(k)), None)


def declared_parameters(cls) -> dict[str, Parameter]:
    """Keyword → :class:`Parameter` of ``cls`` and its bases (base classes' first, in order)."""
    out: dict[str, Parameter] = {}
    for klass in reversed(cls.__mro__):
        for value in vars(klass).values():
            if isinstance(value, Parameter):
                out[value.name] = value  # a redeclaration replaces the inherited one in place
    # a subclass may hide a parameter by assigning a non-Parameter to its attribute
    out = {n: p for n, p in out.items() if isinstance(_class_attribute(cls, p.attribute), Parameter)}
    # ``parameter_order`` (a class attribute, optional) lists names that come first, in order
    order = next((vars(k)["parameter_order"] for k in cls.__mro__
                  if "parameter_order" in vars(k)), ())
    first = {n: out[n] for n in order if n in out}
    return {**first, **{n: p for n, p in out.items() if n not in first}}


def bind_parameters(cls, given: dict) -> dict:
    """Validate ``given`` keyword arguments against ``cls``'s declared parameters.

    Returns:
      Name → validated value for every declared parameter (defaults filled in).

    Raises:
      TypeError: a keyword that is not a declared parameter (the message lists them).
      ValueError: a value its parameter's check refuses.
    """
    params = declared_parameters(cls)
    unknown = sorted(set(given) - set(params))
    if unknown:
        accepted = ", ".join(params) or "none"
        shown = ", ".join(repr(u) for u in unknown)
        hint = did_you_mean(unknown[0], params)
        raise TypeError(f"{cls.__name__} got an unexpected keyword argument {shown}{hint}; "
                        f"accepted parameters: {accepted}")
    return {name: p.validate(given.get(name, p.default)) for name, p in params.items()}


def choice_parameter(default, choices, doc: str, *, name: str = "") -> Parameter:
    """A declared parameter that must be one of ``choices`` (:func:`dpaudit.util.validation.choice`)."""
    choices = tuple(choices)
    return Parameter(default, lambda n, v: validation.choice(n, v, choices), doc, name=name)


__all__ = ["Parameter", "bind_parameters", "choice_parameter", "declared_parameters"]
