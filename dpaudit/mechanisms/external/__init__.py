"""Adapters for the DP libraries people ship: IBM diffprivlib, OpenDP, Google's PyDP and
Meta's Opacus.

Modules: :mod:`~.common` (the adapter base, lazy library import), :mod:`~.diffprivlib_mechanisms`,
:mod:`~.diffprivlib_tools`, :mod:`~.opendp_mechanisms`, :mod:`~.pydp_mechanisms`,
:mod:`~.opacus_mechanisms` (DP-SGD trained by Opacus), :mod:`~.opacus_mean` (Opacus's mean
reduction under add/remove).  Each library is an optional extra
(``pip install 'dpaudit[diffprivlib]'``, ``[opendp]``, ``[pydp]``, ``[opacus]``); the adapters are always
registered, and building one without its library raises
:class:`~.common.LibraryMissing` with one line naming the extra.  Suites under
``audits/external/`` declare ``requires = [...]`` and are skipped when the library is missing.

``MECHANISMS`` lists the family's registered mechanism classes; the registry
(:mod:`dpaudit.mechanisms.registry`) reads it through the families table
(:mod:`dpaudit.mechanisms.families`).
"""

from dpaudit.mechanisms.external import (diffprivlib_mechanisms, diffprivlib_tools,
                                         opacus_mean, opacus_mechanisms, opendp_mechanisms,
                                         pydp_mechanisms)

MECHANISMS = (diffprivlib_mechanisms.MECHANISMS + diffprivlib_tools.MECHANISMS
              + opendp_mechanisms.MECHANISMS
              + pydp_mechanisms.MECHANISMS
              + opacus_mechanisms.MECHANISMS
              + opacus_mean.MECHANISMS)

__all__ = ["MECHANISMS"]
