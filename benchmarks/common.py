"""Shared helpers for the benchmark scripts: machine facts and appending to RESULTS.md."""

from __future__ import annotations

import datetime as _dt
import os
import platform
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).with_name("RESULTS.md")


def machine_line() -> str:
    return (f"{_dt.date.today().isoformat()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, numpy {np.__version__}")


def markdown_table(header: list[str], rows: list[list]) -> str:
    def fmt(v):
        if isinstance(v, float):
            if v == float("inf"):
                return "∞"
            return f"{v:.4g}"
        return str(v)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def worst_pair(name: str, params: dict, delta: float):
    """(mechanism, its claimed ε at ``delta``, its worst-case pair with the largest exact ε,
    that exact ε) of the registered mechanism ``name`` built with ``params``."""
    from dpaudit.mechanisms.registry import create_mechanism

    mech = create_mechanism(name, **params)
    pair = max(mech.worst_case_pairs(),
               key=lambda p: mech.exact_epsilon(p.d0, p.d1, delta) or 0.0)
    return mech, mech.claim().epsilon(delta), pair, mech.exact_epsilon(pair.d0, pair.d1, delta)


def record(title: str, body: str, *, write: bool = True) -> None:
    """Print a result section and (unless ``write`` is False) write it to RESULTS.md.

    A section is everything from its ``## title`` line to the next ``## `` line.  A re-run
    replaces the section of the same title in place (the file keeps one, current, figure per
    benchmark); a new title is appended."""
    text = f"## {title}\n\n_{machine_line()}_\n\n{body.strip()}\n"
    print("\n" + text)
    if not write:
        return
    lines = RESULTS.read_text(encoding="utf-8").splitlines(keepends=True) \
        if RESULTS.exists() else []
    heading = f"## {title}\n"
    if heading in lines:
        start = lines.index(heading)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        lines[start:end] = [text + ("\n" if end < len(lines) else "")]
    else:
        if lines and lines[-1].strip():
            lines.append("\n")
        lines.append(text)
    RESULTS.write_text("".join(lines), encoding="utf-8")
