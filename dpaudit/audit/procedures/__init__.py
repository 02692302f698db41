"""Audit procedures: the kinds of audit a suite can ask for, behind one seam.

* :mod:`~dpaudit.audit.procedures.base` — the contract (:class:`AuditProcedure`,
  :class:`Task`, :class:`PointSetup`, :class:`PointContext`);
* :mod:`~dpaudit.audit.procedures.pair` — the two-sample pair audit (``kind = "pair"``),
  measured by :mod:`~dpaudit.audit.procedures.pair_measure`;
* :mod:`~dpaudit.audit.procedures.exact_curve` — the exact-curve check
  (``kind = "exact-curve"``);
* :mod:`~dpaudit.audit.procedures.canary` — the canary audit (``kind = "canary"``), its
  options read by :mod:`~dpaudit.audit.procedures.canary_settings`;
* :mod:`~dpaudit.audit.procedures.table` — kind → procedure, with plug-ins.
"""
