"""The command line, ``dpaudit``: one module per concern.

* :mod:`dpaudit.cli.supervisor` — the ``dpaudit`` console script (and ``python -m
  dpaudit.cli``): the command runs in a child process it supervises, so that user code that
  ends that process (``os._exit``, a fatal signal) is an error (exit status 2), never the
  command's outcome; :mod:`dpaudit.cli.announce` is what the child tells it;
* :mod:`dpaudit.cli.commands` — the argument parser and the small commands (``list``,
  ``prove``, ``init``); the ``dpaudit`` console script is :func:`main`;
* :mod:`dpaudit.cli.run` — ``dpaudit run``: builds one
  :class:`~dpaudit.results.options.RunOptions` and the backend from the flags, runs, writes
  the reports, holding the output directory's lock (:mod:`dpaudit.cli.out_lock`);
* :mod:`dpaudit.cli.reports` — ``dpaudit report`` and ``dpaudit diff``;
* :mod:`dpaudit.cli.check` — ``dpaudit check``;
* :mod:`dpaudit.cli.scaffold` — ``dpaudit init DIR``.
"""

from dpaudit.cli.commands import main

__all__ = ["main"]
