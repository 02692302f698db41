"""Adapters for the DP libraries people ship: IBM diffprivlib, OpenDP, Google's PyDP, Meta's
Opacus, and the analytics libraries PipelineDP, SmartNoise SQL and Tumult Core.

Modules: :mod:`~.common` (the adapter base, lazy library import), :mod:`~.diffprivlib_mechanisms`,
:mod:`~.diffprivlib_tools`, :mod:`~.opendp_mechanisms`, :mod:`~.pydp_mechanisms`,
:mod:`~.opacus_mechanisms` (DP-SGD trained by Opacus), :mod:`~.opacus_mean` (Opacus's mean
reduction under add/remove), :mod:`~.keyed` (keyed tables and batched calls, the base of
:mod:`~.pipelinedp_mechanisms` and :mod:`~.smartnoise_mechanisms`) and
:mod:`~.tumult_core_mechanisms` and :mod:`~.tumult_analytics_mechanisms` (Tumult
Analytics sessions on Spark).  Each library is an optional extra
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
                                         pipelinedp_mechanisms, pydp_mechanisms,
                                         smartnoise_mechanisms, tumult_analytics_mechanisms,
                                         tumult_core_mechanisms)

MECHANISMS = (diffprivlib_mechanisms.MECHANISMS + diffprivlib_tools.MECHANISMS
              + opendp_mechanisms.MECHANISMS
              + pydp_mechanisms.MECHANISMS
              + opacus_mechanisms.MECHANISMS
              + opacus_mean.MECHANISMS
              + pipelinedp_mechanisms.MECHANISMS
              + smartnoise_mechanisms.MECHANISMS
              + tumult_core_mechanisms.MECHANISMS
              + tumult_analytics_mechanisms.MECHANISMS)

__all__ = ["MECHANISMS"]
