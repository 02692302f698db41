"""Atomic file writes: a report file is either its old content or its complete new content.

:func:`write_text_atomic` writes to a temporary file in the destination's directory, flushes
and fsyncs it, then renames it over the destination (:func:`os.replace`, atomic on POSIX and
Windows within one file system).  An interrupted run (Ctrl-C, a killed process, a full disk)
never leaves a half-written results.json, summary.md, report.html or junit.xml; at worst it
leaves the previous file and no temporary (the temporary is removed on any exception).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomic(path: str | Path, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (creating its parent directories); returns the path.

    Raises:
      OSError: the directory cannot be created or written (nothing is left behind).
    """
    return write_bytes_atomic(path, text.encode(encoding))


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically, as :func:`write_text_atomic`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name[:100]}.", suffix=".tmp",
                                     dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # as open() would create it, not mkstemp's 0600
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


__all__ = ["write_bytes_atomic", "write_text_atomic"]
