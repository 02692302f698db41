"""Helpers shared by the tests that watch processes (/proc) and compare runs."""

from __future__ import annotations

import os
from pathlib import Path


def children() -> dict[int, int]:
    """pid -> parent pid of every process (Linux /proc)."""
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    table[int(name)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    return table


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, their children, …)."""
    table, found, frontier = children(), set(), [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in table.items():
            if ppid == parent and child not in found:
                found.add(child)
                frontier.append(child)
    return found


def alive(pids) -> set[int]:
    """The pids of ``pids`` that are running (not gone, not zombies)."""
    out = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] != "Z":
                    out.add(pid)
        except OSError:
            pass
    return out


def without_timings(value):
    """``value`` with every key that contains "seconds" dropped, at any depth: what two runs
    with the same seeds must agree on."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


#: the repository root (where pyproject.toml, audits/, README.md and examples/ are)
REPO = Path(__file__).resolve().parents[1]
#: committed data files the tests read (old results.json documents)
TEST_DATA = REPO / "tests" / "data"


from dataclasses import dataclass as _dataclass  # noqa: E402

from dpaudit.evidence.base import Evidence  # noqa: E402


@_dataclass(frozen=True)
class FakeEvidence(Evidence):
    """Evidence with a given bound, role and power, for tests of what reads evidence
    (verdicts, power, renderers) without running an estimator."""

    kind = "test-fake"

    value: float
    who: str = "black-box"
    detectable: float | None = None

    @property
    def bound(self) -> float:
        return self.value

    @property
    def role(self) -> str:
        return self.who

    def detectable_epsilon(self, claimed):
        return self.detectable

    def describe(self) -> str:
        return f"fake evidence {self.value}"

    def to_json(self, shared=None) -> dict:
        from dpaudit.util.jsonable import to_jsonable

        return {"kind": self.kind, "value": to_jsonable(self.value), "who": self.who,
                "detectable": to_jsonable(self.detectable)}

    @classmethod
    def from_json(cls, data, shared=None):
        detectable = data["detectable"]
        return cls(float(data["value"]), data["who"],
                   None if detectable is None else float(detectable))


def evidence(black: float | None, white: float | None = None,
             detectable: float | None = None) -> tuple:
    """(black-box, white-box) fake evidence of the given bounds (None: absent)."""
    out = []
    if black is not None:
        out.append(FakeEvidence(black, "black-box", detectable))
    if white is not None:
        out.append(FakeEvidence(white, "white-box", detectable))
    return tuple(out)
