"""Grey-box replay: run the code on D and on D′ with the randomness recorded and replayed,
and report what differs (:mod:`dpaudit.replay.recorder`: what is recorded and what is not
seen; :mod:`dpaudit.replay.compare`: one pair; :mod:`dpaudit.replay.findings`: what the
differences mean; :mod:`dpaudit.replay.run`: a mechanism or sampler over many pairs)."""

from dpaudit.replay.findings import Finding, Kind, ReplayReport, Severity
from dpaudit.replay.run import replay_mechanism

__all__ = ["Finding", "Kind", "ReplayReport", "Severity", "replay_mechanism"]
