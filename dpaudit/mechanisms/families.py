"""The one table of mechanism families.

A *family* is a package under :mod:`dpaudit.mechanisms` (or, for a plug-in, any importable
package) that groups mechanisms sharing a paper, a neighbouring relation and a derivation.  The
table below is the single place that names them: the registry
(:mod:`dpaudit.mechanisms.registry`) imports each ``package`` and reads its ``MECHANISMS``
tuple, ``dpaudit prove`` runs each ``proof`` derivation (``dpaudit.proofs.FAMILIES`` is
derived from this table), and every mechanism's ``family`` attribute is spelled exactly as
``name`` here.

A package outside dpaudit adds a family without editing this file through the entry-point
group :data:`ENTRY_POINT_GROUP`: the entry point names a :class:`Family` object, e.g. in the
plug-in's ``pyproject.toml``::

    [project.entry-points."dpaudit.families"]
    my_family = "my_package.dpaudit_family:FAMILY"

This module imports nothing from dpaudit, so both the registry and ``dpaudit.proofs`` can read
it without an import cycle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: the ``importlib.metadata`` entry-point group through which plug-ins register families
ENTRY_POINT_GROUP = "dpaudit.families"

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Family:
    """One mechanism family.

    Attributes:
      name: the family's one spelling (a lower-case Python identifier); every mechanism of
        the family sets ``family = name``.
      package: the importable package whose ``MECHANISMS`` attribute is the tuple of the
        family's mechanism classes (each a :class:`dpaudit.mechanisms.base.Mechanism`).
      proof: the derivation module (``derive() -> dpaudit.proofs.framework.Derivation``) that writes
        the certificate ``proofs/certificates/<name>.json`` the family's formulas are read
        from, or ``None`` when the family reads another family's certificate.
      description: one line for ``dpaudit list`` and the README.
    """

    name: str
    package: str
    proof: str | None = None
    description: str = ""

    def __post_init__(self):
        if not _NAME.match(self.name):
            raise ValueError(f"family name {self.name!r} must be a lower-case identifier "
                             f"(letters, digits, underscores)")
        if not self.package or not all(p.isidentifier() for p in self.package.split(".")):
            raise ValueError(f"family {self.name!r}: package {self.package!r} is not a dotted "
                             f"module path")


#: dpaudit's own families, in the order ``dpaudit list`` shows them
BUILTIN_FAMILIES: tuple[Family, ...] = (
    Family("classic", "dpaudit.mechanisms.classic", "dpaudit.proofs.classic",
           "Laplace, Gaussian, randomised response, geometric, exponential"),
    Family("noisy_max", "dpaudit.mechanisms.noisy_max", "dpaudit.proofs.noisy_max",
           "report noisy max (argmax; the value-releasing known-bad variants)"),
    Family("sparse_vector", "dpaudit.mechanisms.sparse_vector", "dpaudit.proofs.sparse_vector",
           "the sparse vector technique and Lyu et al.'s broken variants"),
    Family("known_bad", "dpaudit.mechanisms.known_bad", None,
           "classic bugs with their literature ε (formulas from the classic certificate)"),
    Family("sgld", "dpaudit.mechanisms.sgld", "dpaudit.proofs.sgld",
           "SGLD, posterior sampling, Propose-Test-Sample"),
    Family("policy_evaluation", "dpaudit.mechanisms.policy_evaluation",
           "dpaudit.proofs.policy_evaluation", "DP-LSW and DP-LSL policy evaluation"),
    Family("gaussian_mixing", "dpaudit.mechanisms.gaussian_mixing",
           "dpaudit.proofs.gaussian_mixing",
           "GaussMix, ModifiedGaussMix, linear mixing and their baselines"),
    Family("synthetic_control", "dpaudit.mechanisms.synthetic_control",
           "dpaudit.proofs.synthetic_control", "DPSC_out and DPSC_obj synthetic control"),
    Family("external", "dpaudit.mechanisms.external", None,
           "adapters for diffprivlib, OpenDP and PyDP (optional extras; claims from the "
           "libraries)"),
    Family("dpsgd", "dpaudit.mechanisms.dpsgd", "dpaudit.proofs.dpsgd",
           "ABLQ / DP-SGD batch sampling: Poisson, shuffle, balls-and-bins, deterministic"),
)


def proof_modules() -> dict[str, str]:
    """Family name → derivation module, for the built-in families that have one."""
    return {f.name: f.proof for f in BUILTIN_FAMILIES if f.proof is not None}
