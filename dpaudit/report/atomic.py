"""Atomic text output: a report file is either its old content or its complete new content.

:func:`write_text_atomic` writes to a temporary file in the destination's directory (same file
system) and then :func:`os.replace`\\ s it over the destination, so an interrupted run never
leaves a half-written results.json, summary.md, junit.xml or diff.md behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically, creating its parent directories.

    Raises:
      OSError: the directory cannot be created or written (the destination is untouched and
        no temporary file is left behind).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


__all__ = ["write_text_atomic"]
