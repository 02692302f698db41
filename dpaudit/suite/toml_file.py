"""Reading a suite file's TOML safely: whatever the path names, :class:`SuiteError` or a dict.

A suite path can name anything — a directory, a FIFO (a plain read would block forever), a
device, a huge or binary file, TOML nested thousands of levels deep (the parser recurses).
:func:`read_toml` turns every such case into one :class:`SuiteError` line naming the file, so
one bad path never stops the other suites of a run.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

from dpaudit.suite.fields import SuiteError

#: larger suite files are refused (the shipped ones are under 6 KB)
MAX_SUITE_BYTES = 8 * 1024 * 1024


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_toml(path: str | Path) -> dict:
    """The TOML document of a suite file.

    Args:
      path: the suite file.

    Returns:
      The decoded document (a UTF-8 byte-order mark is accepted and skipped).

    Raises:
      SuiteError: the path is missing, unreadable, not a regular file, larger than
        :data:`MAX_SUITE_BYTES`, not UTF-8, not TOML, or nested deeper than the parser follows.
    """
    name = str(path)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise SuiteError(f"{name}: cannot read the suite file: it is {_kind(info.st_mode)}, "
                             f"not a regular file")
        if info.st_size > MAX_SUITE_BYTES:
            raise SuiteError(f"{name}: the suite file is {info.st_size:,} bytes; a suite file "
                             f"is at most {MAX_SUITE_BYTES:,} bytes")
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise SuiteError(f"{name}: cannot read the suite file: {exc.strerror or exc}") from None
    except ValueError as exc:  # e.g. an embedded NUL in the path
        if isinstance(exc, SuiteError):
            raise
        raise SuiteError(f"{name}: cannot read the suite file: {exc}") from None
    try:
        return tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise SuiteError(f"{name}: not UTF-8 text: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SuiteError(f"{name}: not valid TOML: {exc}") from None
    except RecursionError:
        raise SuiteError(f"{name}: not valid TOML: nested too deeply for the parser") from None


__all__ = ["MAX_SUITE_BYTES", "read_toml"]
