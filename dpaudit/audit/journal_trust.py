"""Who may continue a run journal: its entries are authenticated, and one run holds it.

**Authenticated entries.**  A journal is a file in the output directory, which anyone who can
write there (or commit to a repository that CI resumes in) can edit.  An entry digested with a
plain SHA-256 is trusted once its digest is recomputed: an edited ε_LB of 42 against a claim
of 0.1 came back "consistent" (issue 39, item 14).  So an entry's digest is an HMAC-SHA256
under a key that is not in the output directory: :func:`journal_key` reads it from
``$XDG_STATE_HOME/dpaudit/journal.key`` (default ``~/.local/state/dpaudit/journal.key``),
creating it (32 random bytes, mode 0600) on first use.  A journal written by another user or
machine, or edited, has entries that do not authenticate; they are damaged and run again —
never trusted.  Where no key can be stored, the key lives in this process only, so nothing it
journals is trusted by a later process (a resume runs every test again).

**One run per journal.**  :func:`lock_journal` takes an exclusive :func:`fcntl.flock` on
``JOURNAL.lock`` beside the journal before it is read or written, held until the journal is
closed: two ``run_suites(journal=J)`` calls no longer append to one file.  The system releases
it however the holder ends.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import os
import secrets
from pathlib import Path

#: the key's size in bytes
KEY_BYTES = 32

_PROCESS_KEY = secrets.token_bytes(KEY_BYTES)


class JournalBusy(RuntimeError):
    """Another run holds the journal."""


def key_path() -> Path:
    """Where the journal key is kept (see the module docstring)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "dpaudit" / "journal.key"


def journal_key() -> bytes:
    """This user's journal key, created on first use; a key of this process alone when none
    can be read or stored."""
    path = key_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(KEY_BYTES))
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            key = handle.read()
        return key if len(key) == KEY_BYTES else _PROCESS_KEY
    except OSError:
        return _PROCESS_KEY


def authenticate(text: str) -> str:
    """HMAC-SHA256 of ``text`` under :func:`journal_key`, in hex."""
    return hmac.new(journal_key(), text.encode("utf-8"), hashlib.sha256).hexdigest()


def lock_journal(journal: str | Path) -> int:
    """Lock ``JOURNAL.lock`` for this run; the returned descriptor holds the lock until it is
    closed.

    Raises:
      JournalBusy: another run holds it.
      OSError: the lock file cannot be created."""
    path = Path(str(journal) + ".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise JournalBusy(f"another run is using the journal {journal}: wait for it to "
                          f"finish, or give this run another journal") from None
    return fd


__all__ = ["KEY_BYTES", "JournalBusy", "authenticate", "journal_key", "key_path",
           "lock_journal"]
