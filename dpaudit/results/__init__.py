"""The results of a run, as typed values: what every report renders and ``results.json`` holds.

* :mod:`dpaudit.results.hierarchy` — the tree: audit point → test → certificate, and its JSON
  form (results.json schema 4 and the run journal);
* :mod:`dpaudit.results.certificate` — one certificate against its typed evidence, and the
  verdict rules;
* :mod:`dpaudit.results.provenance` — the typed leaves that say where a number came from
  (the pair, the coverage, a searched pair's provenance, the budget spent);
* :mod:`dpaudit.results.evidence_kinds` — which evidence classes a tree may hold (plug-ins
  included);
* :mod:`dpaudit.results.records` — the flat certificate record (the view ``dpaudit diff``
  compares), audit outcomes and the exit status; :mod:`dpaudit.results.legacy` reads the
  records of results.json schema 2 and 3;
* :mod:`dpaudit.results.run` — :class:`~dpaudit.results.run.AuditRun`, one run's results;
* :mod:`dpaudit.results.options` — :class:`~dpaudit.results.options.RunOptions`;
* :mod:`dpaudit.results.defaults` — the parameters an audit left at their defaults.
"""
