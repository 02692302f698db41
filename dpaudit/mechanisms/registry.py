"""Name → mechanism class: how ``dpaudit list``, suites and ``dpaudit check`` find mechanisms.

The registry is filled from three sources, in this order:

1. the built-in families of :data:`dpaudit.mechanisms.families.BUILTIN_FAMILIES`: each
   family package's ``MECHANISMS`` tuple;
2. plug-in families: every entry point of the group ``dpaudit.families``
   (:data:`~dpaudit.mechanisms.families.ENTRY_POINT_GROUP`) that loads to a
   :class:`~dpaudit.mechanisms.families.Family`;
3. classes registered at run time with :func:`register` (a user's own mechanism in a script
   or a test).

Invariants: every name maps to exactly one class (two classes with one name is an error, never
a silent override); a class registered through a family has ``family`` equal to that family's
name.  Family packages do not import this module, so loading the registry cannot form an
import cycle.
"""

from __future__ import annotations

import importlib
import threading
from importlib import metadata

from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.families import BUILTIN_FAMILIES, ENTRY_POINT_GROUP, Family


class RegistryError(ValueError):
    """A family or mechanism that cannot be registered; the message names it and why."""


_REGISTRY: dict[str, type[Mechanism]] = {}
_FAMILIES: dict[str, Family] = {}
_LOADED = False
_LOCK = threading.RLock()


def _require_mechanism_class(cls, source: str) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Mechanism)):
        raise RegistryError(f"{source}: {cls!r} is not a subclass of "
                            f"dpaudit.mechanisms.Mechanism")


def _add(cls, source: str) -> None:
    _require_mechanism_class(cls, source)
    name = cls.name
    if not isinstance(name, str) or not name.strip():
        raise RegistryError(f"{source}: {cls.__qualname__} has no mechanism name "
                            f"(set the class attribute name = \"...\")")
    existing = _REGISTRY.get(name)
    if existing is not None and existing is not cls:
        raise RegistryError(f"{source}: two mechanisms are named {name!r} "
                            f"({existing.__module__}.{existing.__qualname__} and "
                            f"{cls.__module__}.{cls.__qualname__})")
    _REGISTRY[name] = cls


def _add_family(family: Family, source: str) -> None:
    if family.name in _FAMILIES and _FAMILIES[family.name] != family:
        raise RegistryError(f"{source}: a family named {family.name!r} is already registered "
                            f"(package {_FAMILIES[family.name].package})")
    try:
        package = importlib.import_module(family.package)
    except ImportError as exc:
        raise RegistryError(f"{source}: family {family.name!r}: cannot import "
                            f"{family.package}: {exc}") from exc
    members = vars(package).get("MECHANISMS")
    if not isinstance(members, (tuple, list)) or not members:
        raise RegistryError(f"{source}: family {family.name!r}: {family.package} must define "
                            f"MECHANISMS, a non-empty tuple of Mechanism classes")
    for cls in members:
        _require_mechanism_class(cls, f"{source}: family {family.name!r}")
        if cls.family != family.name:
            raise RegistryError(f"{source}: {cls.__qualname__!r} is listed "
                                f"in family {family.name!r} but declares family = "
                                f"{cls.family!r}")
        _add(cls, f"{source}: family {family.name!r}")
    _FAMILIES[family.name] = family


def _plugin_families() -> list[tuple[str, Family]]:
    found = []
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        source = f"entry point {entry.name!r} ({entry.value}) of group {ENTRY_POINT_GROUP!r}"
        try:
            family = entry.load()
        except Exception as exc:
            raise RegistryError(f"{source}: cannot load: {type(exc).__name__}: {exc}") from exc
        if not isinstance(family, Family):
            raise RegistryError(f"{source}: expected a dpaudit.mechanisms.families.Family, "
                                f"got {type(family).__name__}")
        found.append((source, family))
    return found


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    with _LOCK:
        if _LOADED:
            return
        for family in BUILTIN_FAMILIES:
            _add_family(family, "built-in families table")
        for source, family in _plugin_families():
            _add_family(family, source)
        _LOADED = True


def register(cls: type[Mechanism]) -> type[Mechanism]:
    """Make ``cls`` available under ``cls.name`` (usable as a class decorator).

    Raises:
      RegistryError: ``cls`` is not a :class:`Mechanism` subclass, has no name, or another
        class already has its name.
    """
    _load()
    with _LOCK:
        _add(cls, "register()")
    return cls


def unregister(name: str) -> None:
    """Remove a mechanism added with :func:`register` (e.g. at the end of a test).

    Raises:
      RegistryError: ``name`` belongs to a registered family (families are not unloaded).
    """
    _load()
    with _LOCK:
        cls = _REGISTRY.get(name)
        if cls is None:
            return
        if any(cls in getattr(importlib.import_module(f.package), "MECHANISMS", ())
               for f in _FAMILIES.values()):
            raise RegistryError(f"unregister(): {name!r} belongs to family {cls.family!r}; "
                                f"only mechanisms added with register() can be removed")
        del _REGISTRY[name]


def families() -> list[Family]:
    """Every registered family: the built-in ones, then plug-ins."""
    _load()
    return list(_FAMILIES.values())


def mechanism_names() -> list[str]:
    _load()
    return sorted(_REGISTRY)


def get_mechanism_class(name: str) -> type[Mechanism]:
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        from dpaudit.util.hints import did_you_mean

        raise KeyError(f"unknown mechanism {name!r}{did_you_mean(name, _REGISTRY, n=3)}; "
                       f"available: {', '.join(sorted(_REGISTRY))}") from None


def create_mechanism(name: str, **params) -> Mechanism:
    """Instantiate a registered mechanism, with a clear error for unknown or bad parameters."""
    cls = get_mechanism_class(name)
    try:
        return cls(**params)
    except TypeError as exc:
        raise ValueError(f"mechanism {name!r}: bad parameters {params}: {exc}") from None
