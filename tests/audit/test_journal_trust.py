"""Journal trust (issue 39, item 14): an entry edited with its SHA-256 recomputed was trusted
(ε_LB 42 against a claim of 0.1 came back consistent); two run_suites(journal=J) calls shared
J unlocked."""

from __future__ import annotations

import hashlib
import json
import textwrap

import pytest

from dpaudit.api import run_suites
from dpaudit.audit.journal import ResumeError, RunFingerprint, RunJournal, read_journal
from dpaudit.audit.journal_trust import authenticate, key_path
from dpaudit.results.options import RunOptions

SUITE = textwrap.dedent("""\
    [suite]
    samples = 2000
    [[audit]]
    name = "lap"
    mechanism = "laplace"
    search = false
    white_box = false
    """)


@pytest.fixture(autouse=True)
def own_key(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def test_an_entry_with_its_sha256_recomputed_is_not_trusted(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = RunJournal.start(path, RunFingerprint.of([], RunOptions()))
    journal._write({"test": "k", "result": {"x": 1}, "sha256": "0"})
    journal.close()
    lines = path.read_text().splitlines()
    forged = {"test": "k", "result": {"x": 42}}
    text = json.dumps(["k", forged["result"]], sort_keys=True, separators=(",", ":"))
    forged["sha256"] = hashlib.sha256(text.encode()).hexdigest()  # what a forger computes
    path.write_text(lines[0] + "\n" + json.dumps(forged) + "\n")
    _, finished, _ = read_journal(path)
    assert finished == {}  # damaged: run again, never trusted
    assert authenticate(text) != forged["sha256"]
    assert key_path().stat().st_mode & 0o077 == 0  # the key is the user's alone


def test_a_journal_is_held_by_one_run_at_a_time(tmp_path):
    path = tmp_path / "j.jsonl"
    first = RunJournal.start(path, RunFingerprint.of([], RunOptions()))
    with pytest.raises(ResumeError, match="another run is using the journal"):
        RunJournal.start(path, RunFingerprint.of([], RunOptions()))
    with pytest.raises(ResumeError, match="another run is using the journal"):
        RunJournal.resume(path, RunFingerprint.of([], RunOptions()))
    first.remove()
    assert not path.exists() and not (tmp_path / "j.jsonl.lock").exists()


def test_a_run_resumes_its_own_entries(tmp_path):
    (tmp_path / "s.toml").write_text(SUITE)
    journal = tmp_path / "j.jsonl"
    full = run_suites([tmp_path / "s.toml"], journal=journal)
    _, finished, _ = read_journal(journal)
    assert len(finished) == len(full.records) == 1  # authenticated under this user's key
    again = run_suites([tmp_path / "s.toml"], journal=journal, resume=True)
    assert [r.epsilon_lower_bound for r in again.records] == \
        [r.epsilon_lower_bound for r in full.records]
