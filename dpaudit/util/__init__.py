"""Utilities with no audit knowledge, the bottom of the package: atomic file writes
(:mod:`~dpaudit.util.atomic`), closed pipes (:mod:`~dpaudit.util.pipes`), fork-server process
pools (:mod:`~dpaudit.util.processes`), a supervised child process (:mod:`~dpaudit.util.supervise`), signals that stop a run (:mod:`~dpaudit.util.stopping`),
one numerical thread (:mod:`~dpaudit.util.threads`), plain JSON values
(:mod:`~dpaudit.util.jsonable`), the one number formatter (:mod:`~dpaudit.util.numbers`), memory
sizes (:mod:`~dpaudit.util.sizes`), validators of user numbers (:mod:`~dpaudit.util.validation`),
"did you mean" hints (:mod:`~dpaudit.util.hints`) and ``dpaudit.proofs`` in an uninstalled
checkout (:mod:`~dpaudit.util.source_tree`).

Nothing here imports any other part of dpaudit (``tests/test_architecture.py`` pins it), so
every layer may use it.
"""
