"""One run per output directory: ``dpaudit run --out DIR`` holds an exclusive lock on DIR.

Two runs writing into one directory would interleave their reports and truncate each other's
journal, and both would exit 0.  So a run takes an exclusive :func:`fcntl.flock` on
``DIR/.dpaudit-lock`` before it writes anything there, and holds it until it has written its
last report; a second run into DIR while the first holds it is refused with one line naming
the holder's pid, before it touches a file.  The operating system releases the lock when the
holder ends, however it ends (SIGKILL included), so a stale lock cannot block a later run.  The
lock file stays in DIR (removing it would let a third run lock a new file while a second still
holds the old one); it holds the pid of the run that last held it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

#: the lock file's name inside the output directory
LOCK_NAME = ".dpaudit-lock"


class OutputBusy(RuntimeError):
    """Another run holds the output directory's lock; the message names it and what to do."""


def check_not_redirected(directory: Path) -> None:
    """Refuse a relative output directory that symbolic links lead out of the current
    directory: a ``reports/ci`` link committed to a repository sent every report of a CI run
    elsewhere (issue 39, item 14).  An absolute ``--out`` is taken as given.

    Raises:
      OutputRedirected: naming the link's target."""
    if directory.is_absolute():
        return
    here = Path.cwd().resolve()
    target = (here / directory).resolve()
    try:
        target.relative_to(here)
    except ValueError:
        raise OutputRedirected(
            f"--out {directory} leads to {target}, outside the current directory {here} "
            f"(a symbolic link or ..): give that path itself if it is meant") from None


class OutputRedirected(OSError):
    """A relative output directory that leads outside the current directory."""


class OutputLock:
    """The held lock of one output directory; release it with :meth:`release` or ``with``."""

    def __init__(self, path: Path, fd: int):
        self.path = path
        self._fd = fd

    @classmethod
    def acquire(cls, directory: str | Path) -> "OutputLock":
        """Lock ``directory`` (created if missing) for this run.

        Raises:
          OutputBusy: another process holds the lock.
          OSError: the directory or the lock file cannot be created (e.g. DIR is a file).
        """
        directory = Path(directory)
        check_not_redirected(directory)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / LOCK_NAME
        # O_NOFOLLOW: a planted symbolic link is an error, never a file written elsewhere
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise OutputBusy(f"another dpaudit run (pid {holder}) is writing to {directory}: "
                             f"wait for it to finish, or give this run another --out") from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        return cls(path, fd)

    def release(self) -> None:
        """Unlock (idempotent)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def remove_if_alone(self) -> None:
        """Remove the lock file, and its directory if that is then empty (a directory this run
        created and wrote nothing else into); call after :meth:`release`."""
        try:
            if os.listdir(self.path.parent) == [self.path.name]:
                self.path.unlink()
                self.path.parent.rmdir()
        except OSError:  # another run came in, or the directory is not ours to clean
            pass

    def __enter__(self) -> "OutputLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


__all__ = ["LOCK_NAME", "OutputBusy", "OutputLock"]
