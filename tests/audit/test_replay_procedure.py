"""The grey-box replay as part of THE audit (dpaudit/audit/procedures/replay.py): every pair
point of every route runs it after its pair tests, gated by the audit's ``replay`` key; its
evidence reads back from results; a replay that cannot run is said, never an error."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import (Mechanism, NeighbourPair, NeighbourRelation, PureDP, SearchableDatasets,
                     audit_mechanism, laplace_on_grid)
from dpaudit.audit.procedures.replay_measure import replay_evidence, replay_warnings
from dpaudit.evidence.replay import ReplayEvidence
from dpaudit.neighbours import add_remove_one
from dpaudit.neighbours.spaces import BoundedRecords
from dpaudit.results.evidence_kinds import evidence_from_json


class ClipMean(SearchableDatasets, Mechanism):
    """The mean of records clipped to [0, 1], Laplace noise of scale 1/(2ε) on dpaudit's grid:
    correct for finite records, but np.clip lets a NaN record through (the release is NaN on
    the dataset that holds it, and the space's proposals include such a record)."""

    name = "clip-mean"
    family = "tests"

    def __init__(self, epsilon=1.0):
        super().__init__(epsilon=epsilon)
        self.epsilon = float(epsilon)

    def claim(self):
        return PureDP(epsilon=self.epsilon)

    def relation(self):
        return NeighbourRelation("add-remove-one", "add or remove one record", add_remove_one)

    def validate_dataset(self, dataset):
        d = np.asarray(dataset, dtype=float)
        if d.size < 2:
            raise ValueError("need at least 2 records")
        return d

    def sample(self, dataset, n, rng):
        d = self.validate_dataset(dataset)
        return laplace_on_grid(float(np.clip(d, 0, 1).mean()), (0.5 + 2.0 ** -32) / self.epsilon,
                               n, rng)

    def dataset_space(self):
        return BoundedRecords(0.0, 1.0, n_max=4, min_size=2)

    def worst_case_pairs(self):
        return [NeighbourPair("naive", [0.2, 0.4, 0.6], [0.2, 0.4, 0.6, 0.8])]


def _audit(replay: str):
    return audit_mechanism(ClipMean, samples=2000, search=False, white_box=False,
                           sequential=False, replay=replay)


@pytest.fixture(scope="module")
def failed():
    return _audit("fail")


def test_a_nan_slipping_through_clipping_fails_the_audit_by_default(failed):
    assert failed.verdict == "violation" and not failed.met_expectation
    point = failed.points[0]
    [named] = point.tests  # the replay runs inside the first named test: no test is added
    assert named.procedure == "pair" and named.family_members == 1
    cert = named.certificates[0]
    black, evidence = cert.evidence
    assert black.bound <= cert.claimed_epsilon  # the black-box test alone passes it
    assert isinstance(evidence, ReplayEvidence) and evidence.status == "violation"
    assert cert.verdict == "violation" and cert.bound == black.bound
    # the terminal and every report say why: the finding, its pair and its datasets
    assert "NaN" in cert.rejection_reason and "D′ = " in cert.rejection_reason
    assert "nan" in cert.rejection_reason.lower().split("d =")[1]
    # the evidence reads back from results.json
    assert evidence_from_json(evidence.to_json()) == evidence


def test_the_replay_changes_no_certified_number(failed):
    off = _audit("off")
    [named] = off.points[0].tests
    def numbers(evidence):  # every certified number (not the timings)
        return [(e.bound, e.to_json()["epsilons"], e.to_json()["chosen"]) for e in evidence]
    assert numbers(named.certificates[0].evidence) == \
        numbers(failed.points[0].tests[0].certificates[0].evidence[:1])
    assert off.verdict == "consistent"


def test_warn_makes_the_finding_a_warning_and_kind_replay_runs_it_alone():
    warned = _audit("warn")
    assert warned.verdict == "consistent" and warned.met_expectation
    [named] = warned.points[0].tests
    assert any('replay = "warn": not a failure' in w and "NaN" in w for w in named.warnings)
    alone = audit_mechanism(ClipMean, kind="replay")
    [replay] = alone.points[0].tests
    assert replay.procedure == "replay" and replay.family_members == 0 and replay.samples == 0
    assert alone.verdict == "violation" and replay.pair.name == "replay"
    assert replay.certificates[0].underpowered is None


def test_a_replay_that_cannot_run_is_said_not_an_error():
    refused = [NeighbourPair("far", [0.1, 0.2], [0.9, 0.9, 0.9, 0.9])]  # not neighbours
    evidence, pair = replay_evidence(ClipMean(), refused, seed=0, gate="fail")
    # the space's proposals are replayed even when the named pair is refused
    assert evidence.pairs > 0 and pair is not None

    class NoSpace(ClipMean):
        def dataset_space(self):
            raise NotImplementedError

    class Flat(Mechanism):  # no space: only the named pairs, which the relation refuses
        name = "flat"

        def __init__(self):
            super().__init__()

        def claim(self):
            return PureDP(epsilon=1.0)

        def relation(self):
            return NeighbourRelation("add-remove-one", "add or remove one record",
                                     add_remove_one)

        def sample(self, dataset, n, rng):
            return rng.laplace(size=n)

        def worst_case_pairs(self):
            return refused

    evidence, pair = replay_evidence(Flat(), None, seed=0, gate="fail")
    assert evidence.status == "not-run" and pair is None and not evidence.rejects(1.0)
    assert "no pair to replay" in evidence.note and evidence.skipped == 1
    assert any("no pair to replay" in w for w in replay_warnings(evidence))
    assert evidence.describe().startswith("grey-box replay not run")


def test_replay_evidence_json_is_checked():
    with pytest.raises(ValueError, match="unknown status"):
        ReplayEvidence.from_json({"kind": "replay", "status": "maybe", "gate": "fail",
                                  "pairs": 1})


@pytest.mark.slow  # dpaudit run in-process: ~3 s quiet, 7 s at load 15
def test_dpaudit_run_says_why_on_the_progress_line_and_in_the_summary(tmp_path, capsys,
                                                                       monkeypatch):
    from dpaudit.cli.commands import main

    import inspect

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "mechs.py").write_text(
        "import numpy as np\nfrom dpaudit import (Mechanism, NeighbourPair, NeighbourRelation, "
        "PureDP, SearchableDatasets, laplace_on_grid)\nfrom dpaudit.neighbours import "
        "add_remove_one\nfrom dpaudit.neighbours.spaces import BoundedRecords\n\n\n"
        + inspect.getsource(ClipMean))
    (tmp_path / "s.toml").write_text(
        '[suite]\nname = "s"\n\n[[audit]]\nname = "clip"\nmechanism = "mechs.py:ClipMean"\n'
        'samples = 2000\nsearch = false\nwhite_box = false\nsequential = false\n')
    monkeypatch.chdir(tmp_path)
    status = main(["run", "s.toml", "--out", "out", "--workers", "1"])
    out = capsys.readouterr()
    text = out.out + out.err
    assert status == 1, text
    progress = next(line for line in text.splitlines() if line.startswith("[1/1]"))
    unmet = next(line for line in text.splitlines() if "unmet:" in line)
    for line in (progress, unmet):
        assert "grey-box replay" in line and "NaN" in line and "proposal-nan-record" in line
