"""The command line's value readers: argparse ``type=`` functions that turn an option's text
into its value or raise :class:`argparse.ArgumentTypeError` naming the option and the fix
(argparse then prints ``dpaudit run: error: argument --seed: …`` and exits 2), and the
stopping options ``run`` and ``check`` share.  The rules are the suite's and the API's
(:mod:`dpaudit.util.validation`, :mod:`dpaudit.util.sizes`, :mod:`dpaudit.util.time_limit`).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path


def int_at_least(minimum: int, what: str, maximum: int | None = None):
    """An integer option in [minimum, maximum] (``--samples``, ``--seed``, ``--workers``)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{what} must be >= {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{what} must be <= {maximum:.0e}, got {value}")
        return value
    return parse


def power_target(text: str) -> float:
    """``--power``: a number > 1, a multiple of the claim."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 1.0):
        raise argparse.ArgumentTypeError(f"--power: expected a number > 1 (a multiple of the "
                                         f"claim), got {text!r}")
    return value


def add_stopping_arguments(parser) -> None:
    """``--fixed-n``, ``--power X`` and ``--require-power`` (:mod:`dpaudit.stats.sequential`)."""
    parser.add_argument("--fixed-n", action="store_true",
                        help="draw every test's whole sample budget in one look (the fixed-n "
                             "numbers) instead of stopping once its verdict is decided "
                             "(overrides the suites' `sequential`)")
    parser.add_argument("--power", type=power_target, metavar="X",
                        help="power target: a consistent certificate must be able to detect "
                             "X × its claim, else it is reported underpowered (default 1.1; "
                             "overrides the suites' `power`)")
    parser.add_argument("--require-power", action="store_true",
                        help="fail an audit whose certificate is underpowered (overrides the "
                             "suites' `require_power`)")


def seconds(text: str) -> float:
    """``--time-limit``: a number of seconds > 0."""
    from dpaudit.util.time_limit import check_time_limit
    try:
        return check_time_limit(float(text), "--time-limit")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--time-limit: ")) from None


def memory_size(text: str) -> int:
    """``--memory-limit``: a size such as ``16GB`` (:func:`dpaudit.util.sizes.parse_memory_size`)."""
    from dpaudit.util.sizes import parse_memory_size
    try:
        return parse_memory_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None  # argparse names the option


def output_directory(text: str) -> str:
    """``--out``: a directory path that is not empty (``--out ""`` would write into the
    current directory) and is not an existing file."""
    if not text.strip():
        raise argparse.ArgumentTypeError("--out must name a directory, got an empty string")
    if Path(text).exists() and not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"--out {text!r} is an existing file, not a directory")
    return text


__all__ = ["add_stopping_arguments", "int_at_least", "memory_size", "output_directory",
           "power_target", "seconds"]
