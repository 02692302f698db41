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


def record(title: str, body: str, *, write: bool = True) -> None:
    """Print a result section and (unless ``write`` is False) append it to RESULTS.md."""
    text = f"\n## {title}\n\n_{machine_line()}_\n\n{body.strip()}\n"
    print(text)
    if write:
        with RESULTS.open("a", encoding="utf-8") as fh:
            fh.write(text)
