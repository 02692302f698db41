"""Which evidence classes a result tree may hold: the table that reads evidence back from JSON.

Every :class:`~dpaudit.evidence.base.Evidence` writes ``{"kind": …}``; :func:`evidence_from_json`
finds the class of that kind here — the built-in kinds, then plug-ins that declare a
``dpaudit.evidence`` entry point naming their class (``kind = "package.module:Class"``; the
class's own ``kind`` must equal the entry point's name) — and calls its ``from_json``.  A kind
that is neither is a ``ValueError`` naming it, never a silent drop.

:func:`legacy_evidence` turns the untyped certificate dicts of results.json schema 2 and 3 (and
of journals written before schema 4) into the same types.
"""

from __future__ import annotations

from dpaudit.distinguish.result import WHITE_BOX, EpsilonLowerBound, RenyiLowerBound
from dpaudit.evidence.base import Evidence
from dpaudit.evidence.exact_curve import ExactCurveEvidence
from dpaudit.evidence.replay import ReplayEvidence
from dpaudit.util.shared_json import SharedValues
from dpaudit.util.plugins import EntryPointRows

#: the entry-point group of plug-in evidence classes
ENTRY_POINT_GROUP = "dpaudit.evidence"

_KINDS: dict[str, type[Evidence]] = {cls.kind: cls for cls in (
    EpsilonLowerBound, RenyiLowerBound, ExactCurveEvidence, ReplayEvidence)}
#: built-in kinds whose modules import the statistics' scipy: loaded when a file holds one
#: (so that reading no canary evidence — and the CLI's start — costs none of it)
_LAZY_KINDS = {"canary": ("dpaudit.mechanisms.canaries.evidence", "CanaryEvidence")}


def _load_lazy(kind: str) -> None:
    if kind in _LAZY_KINDS and kind not in _KINDS:
        import importlib

        module, name = _LAZY_KINDS[kind]
        register_evidence(getattr(importlib.import_module(module), name))


def register_evidence(cls: type[Evidence]) -> type[Evidence]:
    """Add an evidence class to the table (usable as a class decorator).

    Raises:
      ValueError: ``cls`` is not an Evidence subclass, has no ``kind``, or its kind is taken by
        another class.
    """
    if not (isinstance(cls, type) and issubclass(cls, Evidence)) or not cls.kind:
        raise ValueError(f"{cls!r} is not an Evidence subclass with a kind")
    held = _KINDS.get(cls.kind)
    if held is not None and held is not cls:
        raise ValueError(f"evidence kind {cls.kind!r} is already {held.__qualname__}")
    _KINDS[cls.kind] = cls
    return cls


_PLUGINS = EntryPointRows(ENTRY_POINT_GROUP, "kind", register_evidence)


def evidence_class(kind: str) -> type[Evidence]:
    """The class of ``kind``.

    Raises:
      ValueError: no class has that kind.
    """
    _load_lazy(kind)
    if kind not in _KINDS:
        _PLUGINS.load()
    try:
        return _KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown evidence kind {kind!r} (known: "
                         f"{', '.join(sorted({*_KINDS, *_LAZY_KINDS}))}); is the plug-in that wrote it "
                         f"installed?") from None


def evidence_kinds() -> dict[str, type[Evidence]]:
    """Every known kind → its class (plug-ins included)."""
    for kind in _LAZY_KINDS:
        _load_lazy(kind)
    _PLUGINS.load()
    return dict(_KINDS)


def evidence_from_json(data: dict, shared: SharedValues | None = None) -> Evidence:
    """The evidence a ``{"kind": …}`` document describes."""
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise ValueError(f"an evidence document needs a \"kind\", got {data!r:.80}")
    return evidence_class(data["kind"]).from_json(data, shared)


def legacy_evidence(notion: str, certificate: dict | None, white_box_certificate: dict | None,
                    white_box_bound: float | None = None) -> tuple[Evidence, ...]:
    """The typed evidence of a certificate stored untyped (results.json schema 2 and 3):
    ``certificate`` is the black-box ``EpsilonLowerBound.to_dict()`` (a ``dp`` certificate) or
    ``{"alpha", "divergence", "event", "curve_certificate"}`` (an ``rdp`` one);
    ``white_box_certificate`` the white-box one (``dp`` only; an ``rdp`` certificate stored
    just the white-box bound, ``white_box_bound``)."""
    out: list[Evidence] = []
    if notion == "rdp":
        if certificate is not None:
            basis = certificate.get("curve_certificate")
            out.append(RenyiLowerBound(
                alpha=float(certificate["alpha"]), divergence=float(certificate["divergence"]),
                event=certificate["event"],
                basis=None if basis is None else EpsilonLowerBound.from_json(basis)))
        if white_box_bound is not None:
            out.append(RenyiLowerBound(alpha=float(certificate["alpha"]) if certificate
                                       else float("nan"),
                                       divergence=float(white_box_bound), event="",
                                       distinguisher=WHITE_BOX))
        return tuple(out)
    for data, white in ((certificate, False), (white_box_certificate, True)):
        if data is not None:
            evidence = EpsilonLowerBound.from_json(data)
            if white and evidence.distinguisher != WHITE_BOX:
                import dataclasses

                evidence = dataclasses.replace(evidence, distinguisher=WHITE_BOX)
            out.append(evidence)
    return tuple(out)


__all__ = ["ENTRY_POINT_GROUP", "evidence_class", "evidence_from_json", "evidence_kinds",
           "legacy_evidence", "register_evidence"]
