"""Name → mechanism class.  ``dpaudit list`` and audit suites refer to mechanisms by name."""

from __future__ import annotations

from dpaudit.mechanisms.base import Mechanism

_REGISTRY: dict[str, type[Mechanism]] = {}


def register(cls: type[Mechanism]) -> type[Mechanism]:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"two mechanisms are named {cls.name!r}")
    _REGISTRY[cls.name] = cls
    return cls


def _load_builtin() -> None:
    # importing the family modules registers their mechanisms
    from dpaudit.mechanisms import (  # noqa: F401
        classic, gaussian_mixing, gaussian_mixing_baselines, gaussian_mixing_regression,
        known_bad, noisy_max, policy_evaluation, propose_test_sample, sgld, svt,
        synthetic_control, synthetic_control_obj)


def mechanism_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def get_mechanism_class(name: str) -> type[Mechanism]:
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown mechanism {name!r}; available: {', '.join(sorted(_REGISTRY))}") from None


def create_mechanism(name: str, **params) -> Mechanism:
    """Instantiate a registered mechanism, with a clear error for unknown or bad parameters."""
    cls = get_mechanism_class(name)
    try:
        return cls(**params)
    except TypeError as exc:
        raise ValueError(f"mechanism {name!r}: bad parameters {params}: {exc}") from None
