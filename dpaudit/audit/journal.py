"""The run journal: what lets an interrupted run be resumed with the same numbers.

While a run goes, every finished test (one :class:`~dpaudit.audit.procedures.base.Task`'s
:class:`~dpaudit.results.hierarchy.TestResult`: its certificates and its figure data) is
appended to the journal as one JSON line, flushed and ``fsync``\\ ed, after a header line
holding the run's :class:`RunFingerprint`.  The journal therefore survives anything that stops
the run, SIGKILL and a power cut included (a last line cut short is ignored).

Resuming reads the journal back, refuses it when the fingerprint differs (another suite file,
other options, another dpaudit, or other code behind a ``file.py:Class`` / ``module:Class``
the suites name: numbers would mix), and runs only the tests it does not hold.  It trusts no
entry as written: an entry whose digest does not match its content is damaged (it and the
lines after it run again), and one whose result does not fit its planned task (seed, samples,
pair, the δ and α of each certificate: :meth:`dpaudit.audit.procedures.base.Task.matches`) runs again.
Every test's seed is a function of its suite seed and its name alone
(:func:`dpaudit.audit.plan.task_seed`) and the Bonferroni family of a suite is fixed by its
plan, so a resumed run writes exactly the records an uninterrupted run writes (timings aside).

Contract of the file (``.dpaudit-journal.jsonl`` in the output directory,
:data:`JOURNAL_NAME`): line 1 ``{"dpaudit_journal": 5, "fingerprint": {...}}``; every other
line ``{"test": KEY, "result": TestResult.to_json(), "sha256": entry_digest(KEY, result)}``
with ``KEY`` = :func:`test_key` of the task.  The run that completes removes the journal.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from dpaudit.audit.journal_trust import JournalBusy, authenticate, lock_journal
from dpaudit.audit.procedures.base import Task
from dpaudit.util.jsonable import loads_json
from dpaudit.results.hierarchy import TestResult
from dpaudit.results.options import RunOptions

#: the journal's file name inside a run's output directory
JOURNAL_NAME = ".dpaudit-journal.jsonl"
#: 5: an entry holds the test's result as results.json's tree holds it, with typed evidence
#: (:meth:`~dpaudit.results.hierarchy.TestResult.to_json`, its bulky values inline), and its
#: digest (:func:`entry_digest`, an HMAC since format 5); the fingerprint holds the suites'
#: code.  A journal of an earlier format is refused as another run's
JOURNAL_FORMAT = 5


class ResumeError(ValueError):
    """A journal that cannot be resumed: unreadable, or made by a different run (the message
    says what differs)."""


def test_key(task: Task) -> str:
    """The journal key of a task: suite file, audit, sweep point and test, by position and by
    name (:attr:`~dpaudit.audit.procedures.base.Task.label`: the pair's name, ``search#k`` for
    the searched test of rank k; positions alone would survive an edit the fingerprint catches
    anyway)."""
    sweep = "" if task.sweep_index is None else f"@{task.sweep_index}"
    return (f"{task.suite_file}::{task.audit_index}:{task.audit}{sweep}::"
            f"{task.pair_index}:{task.label}")


test_key.__test__ = False  # not a pytest test, despite its name


def file_digest(path: str) -> str:
    """SHA-256 of a regular file's bytes; ``"not a regular file"`` (a FIFO would block, a
    directory has no bytes) or ``"unreadable"`` otherwise — such a suite is an error of the
    run anyway (:mod:`dpaudit.suite.toml_file`)."""
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return "not a regular file"
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except OSError:
        return "unreadable"


def code_digests(suites) -> tuple[tuple[str, str], ...]:
    """(file, SHA-256) of every code file the audits of ``suites`` name, sorted: the file of a
    ``file.py:Attr`` reference (relative to its suite), the module file of a
    ``package.module:Attr`` one (found without importing it again), and the project modules
    and plug-in code behind them (:func:`imported_code_digests`); dpaudit's own code is
    covered by the version."""
    from dpaudit.mechanisms.references import (is_file_reference, is_reference, locate_module,
                                               split_reference)

    found: dict[str, str] = {}
    for suite in suites:
        for audit in suite.audits:
            target = audit.target
            reference = getattr(target, "reference", None)
            if not is_reference(reference) or getattr(target, "obj", None) is not None:
                continue
            try:
                left, _ = split_reference(reference)
                if is_file_reference(left):
                    path = Path(left)
                    if not path.is_absolute():
                        path = Path(target.base_dir or Path.cwd()) / path
                    origin = str(path.resolve())
                else:
                    origin = locate_module(left, target.base_dir or None) or f"module {left}"
            except (ValueError, ImportError, OSError):
                origin = f"reference {reference}"  # the run itself reports why it fails
            found[origin] = file_digest(origin) if Path(origin).is_file() else "not a file"
    found.update(imported_code_digests(suites))
    return tuple(sorted(found.items()))


def imported_code_digests(suites) -> dict[str, str]:
    """(file, SHA-256) of the code behind the suites beyond the files they name (issue 39,
    item 8: a module imported by a named file changed between the interrupt and ``--resume``
    and 10 of 16 points mixed two versions): every module loaded in this process, outside
    dpaudit, whose file lies in the project of a suite that names code
    (:func:`~dpaudit.mechanisms.reference_policy.in_project`: not an installed package), and
    the module of every registered mechanism that is not dpaudit's own (a plug-in family:
    its version string alone does not change with its code).  Called after the suites are
    loaded, so the modules their code imports are loaded too."""
    import sys

    from dpaudit.mechanisms.reference_policy import in_project, trusted_root
    from dpaudit.mechanisms.references import is_reference
    from dpaudit.mechanisms.registry import get_mechanism_class

    roots, files = set(), set()
    for suite in suites:
        for audit in suite.audits:
            target = audit.target
            reference = getattr(target, "reference", None) or audit.mechanism
            if is_reference(reference):
                roots.add(trusted_root(getattr(target, "base_dir", "") or Path(suite.path).parent))
                continue
            try:
                cls = get_mechanism_class(reference)
            except (KeyError, ValueError):
                continue
            if not cls.__module__.startswith("dpaudit."):
                module = sys.modules.get(cls.__module__)
                if getattr(module, "__file__", None):
                    files.add(str(Path(module.__file__).resolve()))
    for name, module in list(sys.modules.items()):
        origin = getattr(module, "__file__", None)
        if not origin or name.split(".")[0] == "dpaudit" or not roots:
            continue
        path = Path(origin)
        if any(in_project(path, root) for root in roots):
            files.add(str(path.resolve()))
    return {f: file_digest(f) for f in sorted(files)}


@dataclass(frozen=True)
class RunFingerprint:
    """What determines a run's numbers: the suite files (path and SHA-256 of their bytes),
    the options that change samples, seeds or the selection, and the dpaudit version.  Workers
    and the backend are not part of it: no number depends on them."""

    dpaudit_version: str
    suites: tuple[tuple[str, str], ...]  # (path, sha256)
    samples: int | None
    profile: str
    seed: int | None
    only: tuple[str, ...]
    #: (file, sha256) of every code file the suites name (``my_mech.py:Class``,
    #: ``package.module:Class``, ``sampler = "file.py:fn"``): known once the suites are
    #: loaded (:func:`code_digests`), so :meth:`RunJournal.check_code` compares it then
    code: tuple[tuple[str, str], ...] = ()
    #: (--fixed-n, --power, --require-power): a sequential test stops where these say
    stopping: tuple = (False, None, False)

    @classmethod
    def of(cls, paths, options: RunOptions) -> "RunFingerprint":
        """The fingerprint of a run of the suite files ``paths`` with ``options``."""
        from dpaudit.version import __version__

        return cls(__version__, tuple((str(p), file_digest(p)) for p in paths),
                   options.samples, options.profile, options.seed, tuple(options.only),
                   stopping=(options.fixed_n, options.power, options.require_power))

    def to_json(self) -> dict:
        return {"dpaudit_version": self.dpaudit_version,
                "suites": [list(s) for s in self.suites], "samples": self.samples,
                "profile": self.profile, "seed": self.seed, "only": list(self.only),
                "code": [list(c) for c in self.code], "stopping": list(self.stopping)}

    @classmethod
    def from_json(cls, data: dict) -> "RunFingerprint":
        return cls(str(data["dpaudit_version"]),
                   tuple((str(p), str(h)) for p, h in data["suites"]), data["samples"],
                   str(data["profile"]), data["seed"], tuple(data["only"]),
                   tuple((str(p), str(h)) for p, h in data.get("code", ())),
                   tuple(data.get("stopping", (False, None, False))))

    def code_differences(self, earlier: "RunFingerprint") -> list[str]:
        """What differs in the suites' code from ``earlier`` (the interrupted run)."""
        before, now = dict(earlier.code), dict(self.code)
        return ([f"{p} is new code the suites name" for p in now if p not in before]
                + [f"{p} is no longer named by the suites" for p in before if p not in now]
                + [f"{p} changed" for p in now if p in before and now[p] != before[p]])

    def differences(self, earlier: "RunFingerprint") -> list[str]:
        """What differs from ``earlier`` (the interrupted run), one phrase each."""
        out = []
        if self.dpaudit_version != earlier.dpaudit_version:
            out.append(f"dpaudit {earlier.dpaudit_version} → {self.dpaudit_version}")
        before, now = dict(earlier.suites), dict(self.suites)
        out += [f"{p} was not in the interrupted run" for p in now if p not in before]
        out += [f"{p} is missing" for p in before if p not in now]
        out += [f"{p} changed" for p in now if p in before and now[p] != before[p]]
        for name, flag in (("samples", "--samples"), ("profile", "--profile"),
                           ("seed", "--seed"), ("only", "--only")):
            if getattr(self, name) != getattr(earlier, name):
                out.append(f"{flag} {getattr(earlier, name)!r} → {getattr(self, name)!r}")
        for flag, before, now in zip(("--fixed-n", "--power", "--require-power"),
                                     earlier.stopping, self.stopping):
            if before != now:
                out.append(f"{flag} {before!r} → {now!r}")
        return out


class RunJournal:
    """An open journal: the tests it holds (``finished``) and :meth:`add` for new ones.

    Use :meth:`start` for a new run, :meth:`resume` to continue an interrupted one."""

    def __init__(self, path: Path, handle, finished: dict[str, TestResult],
                 fingerprint: RunFingerprint, lock: int | None = None):
        self.path = path
        self._handle = handle
        self._lock = lock  # the descriptor holding JOURNAL.lock (journal_trust.lock_journal)
        self.finished = finished
        self.fingerprint = fingerprint

    @classmethod
    def start(cls, path: str | Path, fingerprint: RunFingerprint) -> "RunJournal":
        """A new, empty journal at ``path`` (an earlier one there is replaced).

        Raises:
          OSError: the journal cannot be written."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = _locked(path)
        if path.is_symlink():
            path.unlink()  # never write through a planted link
        handle = open(path, "w", encoding="utf-8")
        journal = cls(path, handle, {}, fingerprint, lock)
        journal._write({"dpaudit_journal": JOURNAL_FORMAT,
                        "fingerprint": fingerprint.to_json()})
        return journal

    @classmethod
    def resume(cls, path: str | Path, fingerprint: RunFingerprint) -> "RunJournal":
        """The journal at ``path``, opened to append, with the tests it holds.

        Raises:
          ResumeError: no journal there, an unreadable one, or one whose fingerprint differs
            from ``fingerprint`` (the message lists the differences).
          OSError: the journal cannot be appended to."""
        path = Path(path)
        lock = _locked(path)
        try:
            earlier, finished, valid_bytes = read_journal(path)
            changed = fingerprint.differences(earlier)
            if changed:
                raise ResumeError(f"cannot resume the run journalled in {path}: "
                                  f"{'; '.join(changed)} since it was interrupted; run "
                                  f"without --resume to start again")
            handle = open(path, "r+", encoding="utf-8")
        except BaseException:
            os.close(lock)
            raise
        handle.seek(valid_bytes)
        handle.truncate()  # drop a last line that a kill cut short
        return cls(path, handle, finished, earlier, lock)

    def check_code(self, code: tuple[tuple[str, str], ...]) -> None:
        """Refuse to continue when the code the suites name (:func:`code_digests`) is not the
        code of the interrupted run: its numbers would mix two samplers.

        Raises:
          ResumeError: the code differs (the message lists how)."""
        changed = RunFingerprint("", (), None, "", None, (), code).code_differences(
            self.fingerprint)
        if changed:
            raise ResumeError(f"cannot resume the run journalled in {self.path}: "
                              f"{'; '.join(changed)} since it was interrupted; run without "
                              f"--resume to start again")

    def add(self, task: Task, result: TestResult) -> None:
        """Journal a finished test (flushed and synced before returning)."""
        key = test_key(task)
        self.finished[key] = result
        payload = result.to_json()
        self._write({"test": key, "result": payload, "sha256": entry_digest(key, payload)})

    def _write(self, entry: dict) -> None:
        self._handle.write(json.dumps(entry, ensure_ascii=False, default=_plain) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.close()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def remove(self) -> None:
        """Delete the journal (the run it belongs to is complete) and its lock file, then
        close it (the lock is held until both are gone)."""
        self.path.unlink(missing_ok=True)
        Path(str(self.path) + ".lock").unlink(missing_ok=True)
        self.close()


def _locked(path: Path) -> int:
    """:func:`~dpaudit.audit.journal_trust.lock_journal`, its refusal a ResumeError."""
    try:
        return lock_journal(path)
    except JournalBusy as exc:
        raise ResumeError(str(exc)) from None


def _plain(value):
    from dpaudit.util.jsonable import to_jsonable

    return to_jsonable(value)


def entry_digest(key: str, payload: dict) -> str:
    """HMAC-SHA256, under this user's journal key (:mod:`dpaudit.audit.journal_trust`), of a
    journal entry's test key and result as canonical JSON: an entry whose line was edited,
    damaged, or written elsewhere no longer matches it, even with its digest recomputed."""
    text = json.dumps([key, payload], sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, default=_plain)
    return authenticate(text)


def read_journal(path: str | Path) -> tuple[RunFingerprint, dict[str, TestResult], int]:
    """(fingerprint, finished tests by key, bytes of whole valid lines) of a journal.

    Raises:
      ResumeError: no journal, or its header is not a dpaudit journal's."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ResumeError(f"nothing to resume: {path} does not exist (the last run there "
                          f"completed, or never started)") from None
    except OSError as exc:
        raise ResumeError(f"cannot read {path}: {exc.strerror or exc}") from None
    lines = data.split(b"\n")
    try:
        header = loads_json(lines[0])
        fingerprint = RunFingerprint.from_json(header["fingerprint"])
        if header.get("dpaudit_journal") != JOURNAL_FORMAT:
            raise ValueError(f"journal format {header.get('dpaudit_journal')!r}")
    except (ValueError, KeyError, TypeError) as exc:
        raise ResumeError(f"{path} is not a dpaudit run journal ({exc})") from None
    finished: dict[str, TestResult] = {}
    valid = len(lines[0]) + 1
    for line in lines[1:-1]:  # the part after the last newline is never a whole entry
        try:
            entry = loads_json(line)  # JsonNestingError is a ValueError: damaged
            if entry["sha256"] != entry_digest(entry["test"], entry["result"]):
                raise ValueError("the entry does not match its digest")
            finished[str(entry["test"])] = TestResult.from_json(entry["result"])
        except (ValueError, KeyError, TypeError):
            break  # a damaged line: it and what follows are run again
        valid += len(line) + 1
    return fingerprint, finished, valid


__all__ = ["JOURNAL_NAME", "ResumeError", "RunFingerprint", "RunJournal",
           "file_digest", "read_journal", "test_key"]
