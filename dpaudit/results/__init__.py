"""The results of a run, as typed values: what every report renders and ``results.json`` holds.

* :mod:`dpaudit.results.records` — the flat certificate record (schema 2's row, the view
  ``dpaudit diff`` compares), the verdict rules, per-point judgement and the exit status;
* :mod:`dpaudit.results.run` — :class:`~dpaudit.results.run.AuditRun`, one run's results;
* :mod:`dpaudit.results.defaults` — the parameters an audit left at their defaults.
"""
