"""The table of audit procedures: a suite's ``kind`` → the :class:`AuditProcedure` that runs it.

Built in: ``pair`` (:class:`~dpaudit.audit.procedures.pair.PairAudit`, the default),
``exact-curve`` (:class:`~dpaudit.audit.procedures.exact_curve.ExactCurveCheck`), ``canary``
(:class:`~dpaudit.audit.procedures.canary.CanaryAudit`) and ``replay``
(:class:`~dpaudit.audit.procedures.replay.ReplayCheck`, which the pair audit also runs).
A plug-in adds a kind without editing dpaudit by declaring an entry point in the
``dpaudit.procedures`` group whose name is the kind and whose value names an :class:`AuditProcedure` subclass (its
``kind`` must equal the name); :func:`register_procedure` does the same from Python.
:func:`procedure` raises ``ValueError`` with "did you mean" for an unknown kind.
"""

from __future__ import annotations

from dpaudit.audit.procedures.base import AuditProcedure
from dpaudit.audit.procedures.canary import CanaryAudit
from dpaudit.audit.procedures.exact_curve import ExactCurveCheck
from dpaudit.audit.procedures.pair import PairAudit
from dpaudit.audit.procedures.replay import ReplayCheck

from dpaudit.spec.kinds import DEFAULT_KIND, ENTRY_POINT_GROUP
from dpaudit.util.plugins import EntryPointRows

_TABLE: dict[str, AuditProcedure] = {p.kind: p for p in (PairAudit(), ExactCurveCheck(),
                                                         CanaryAudit(), ReplayCheck())}


def register_procedure(cls: type[AuditProcedure]) -> type[AuditProcedure]:
    """Add a procedure class to the table (usable as a class decorator).

    Raises:
      ValueError: not an AuditProcedure subclass with a kind, or the kind is taken.
    """
    if not (isinstance(cls, type) and issubclass(cls, AuditProcedure)) or not cls.kind:
        raise ValueError(f"{cls!r} is not an AuditProcedure subclass with a kind")
    held = _TABLE.get(cls.kind)
    if held is not None and type(held) is not cls:
        raise ValueError(f"audit kind {cls.kind!r} is already {type(held).__qualname__}")
    _TABLE[cls.kind] = cls()
    return cls


_PLUGINS = EntryPointRows(ENTRY_POINT_GROUP, "kind", register_procedure)


def kinds() -> list[str]:
    """Every known kind, built-ins first."""
    _PLUGINS.load()
    return list(_TABLE)


def procedure(kind: str) -> AuditProcedure:
    """The procedure of ``kind``.

    Raises:
      ValueError: an unknown kind (the message lists the known ones).
    """
    if kind not in _TABLE:
        _PLUGINS.load()
    try:
        return _TABLE[kind]
    except KeyError:
        from dpaudit.util.hints import did_you_mean

        known = list(_TABLE)
        raise ValueError(f"unknown audit kind {kind!r}{did_you_mean(kind, known)} (known: "
                         f"{', '.join(known)})") from None


__all__ = ["DEFAULT_KIND", "ENTRY_POINT_GROUP", "kinds", "procedure", "register_procedure"]
