"""The audit, by stage: plan (:mod:`~dpaudit.audit.plan`: suites → tasks, seeds, families) →
execute one task (:mod:`~dpaudit.audit.execute`: task → :class:`~dpaudit.results.hierarchy.
TestResult`) → run (:mod:`~dpaudit.audit.run`: every task on a backend, judged audit points),
with the journal (:mod:`~dpaudit.audit.journal`), ``--only`` (:mod:`~dpaudit.audit.select`),
sweeps and series (:mod:`~dpaudit.audit.sweeps`), the memory guard
(:mod:`~dpaudit.audit.memory`) and progress (:mod:`~dpaudit.audit.progress`).

The audit does not know where tasks run: a face (the CLI, :mod:`dpaudit.api`, the pytest
plugin) hands :func:`~dpaudit.audit.run.run_audits` its options and a backend
(:mod:`dpaudit.backends`).  Import the stage you need from its module.
"""
