"""What a supervised ``dpaudit`` command tells its supervising process about itself
(:mod:`dpaudit.cli.supervisor`): the command, and for ``dpaudit run`` where its reports go and
what ``results.json`` there was before the run wrote anything, so that a run ended by user code
can be told apart from an earlier run's reports.  Nothing is sent outside a supervised child.
"""

from __future__ import annotations

import os

from dpaudit.util import supervise as supervision


def announce(args) -> None:
    """Child side, once the command line is parsed: tell the supervising parent (if this
    process is a supervised child) the command and, for ``run``, where its reports go and
    what ``results.json`` was before the run wrote anything."""
    reporter = supervision.reporter()
    if reporter is None:
        return
    fields = {"command": args.command}
    if args.command == "run":
        out = os.path.abspath(args.out)
        fields.update(out=args.out, out_path=out, workers=args.workers,
                      results_before=results_signature(os.path.join(out, "results.json")))
    elif args.command == "check":
        fields.update(json_out=args.json_out)
    reporter.note(**fields)


def results_signature(path: str):
    """(inode, mtime in ns, size) of ``path``, or None when it does not exist: reports are
    replaced by a rename, so a new one has a new signature."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_mtime_ns, st.st_size]


__all__ = ["announce", "results_signature"]
