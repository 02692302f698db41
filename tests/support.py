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
