"""``dpaudit check MODULE:CLASS``: one mechanism against its own claim, from the command line.

:func:`parse_params` reads ``--params K=V …`` (each value JSON when it is JSON, else a string);
:func:`cmd_check` loads the mechanism and runs :func:`dpaudit.check.runner.check_mechanism`'s
six steps, printing one line per step, and writes ``--json``.

``dpaudit check file.py:fn`` checks a plain sampler function ``fn(dataset, n, rng,
**params)`` (:mod:`dpaudit.mechanisms.sampler`) the way a suite's ``sampler =`` audit does:
its claim from ``--epsilon E [--delta D]`` (:func:`parse_claim`, as ``audit_sampler(epsilon=)``)
or ``--claim JSON`` (a suite's claim table, keys left out read from ``--params``), its
neighbouring datasets from ``--pair D0 D1`` (:func:`parse_pairs`, as ``[[audit.pairs]]``).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from dpaudit.stats.sequential import DEFAULT_POWER, StoppingRule


def parse_params(items: list[str]) -> dict:
    """``["k=v", …]`` → dict; each value parsed as JSON when it is valid JSON, else a string.

    Raises:
      ValueError: not ``K=V``, a key given twice, or a value nested deeper than
        :data:`dpaudit.util.jsonable.MAX_JSON_DEPTH`.
    """
    from dpaudit.util.jsonable import MAX_JSON_DEPTH, JsonNestingError, loads_json

    out = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ValueError(f"--params expects K=V with K a parameter name, got {item!r}")
        if key in out:
            raise ValueError(f"--params gives {key!r} twice")
        try:
            out[key] = loads_json(text)
        except JsonNestingError:  # a value, not a stack overflow
            raise ValueError(f"--params {key}: a value nested deeper than {MAX_JSON_DEPTH} "
                             f"levels") from None
        except ValueError:
            out[key] = text
    return out


def parse_claim(args):
    """The sampler claim of ``--epsilon``/``--delta`` or ``--claim JSON`` (a claim table), or
    None when none is given.

    Raises:
      ValueError: both forms, ``--delta`` without ``--epsilon``, JSON that is not a table.
    """
    from dpaudit.util.jsonable import loads_json

    epsilon, delta, table = (getattr(args, k, None) for k in ("epsilon", "delta", "claim"))
    if table is not None and (epsilon is not None or delta is not None):
        raise ValueError("give the claim either with --epsilon [--delta] or with --claim, "
                         "not both")
    if delta is not None and epsilon is None:
        raise ValueError("--delta goes with --epsilon (the claim (epsilon, delta)-DP)")
    if table is not None:
        try:
            value = loads_json(table)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise ValueError(f"--claim expects a JSON table such as '{{\"notion\": "
                             f"\"pure-dp\", \"epsilon\": 1.0}}', got {table!r}")
        return value
    if epsilon is None:
        return None
    if delta:
        return {"notion": "approx-dp", "epsilon": epsilon, "delta": delta}
    return {"notion": "pure-dp", "epsilon": epsilon}


def parse_pairs(items) -> list:
    """``--pair D0 D1`` values (JSON datasets) → NeighbourPairs named ``pair-<i>``.

    Raises:
      ValueError: a dataset that is not JSON.
    """
    from dpaudit.util.jsonable import loads_json
    from dpaudit.neighbours import NeighbourPair

    pairs = []
    for i, (d0, d1) in enumerate(items or []):
        sides = []
        for side, text in (("D0", d0), ("D1", d1)):
            try:
                sides.append(loads_json(text))
            except ValueError:
                raise ValueError(f"--pair #{i}: {side} must be a JSON dataset such as "
                                 f"'[0, 1, 1]', got {text!r}") from None
        pairs.append(NeighbourPair(f"pair-{i}", *sides, "given with --pair"))
    return pairs


def cmd_check(args, argv: list[str]) -> int:
    """Run ``dpaudit check`` for parsed ``args``: load the mechanism, run the six steps
    (:func:`dpaudit.check.runner.check_mechanism`) printing each, write ``--json``; returns the
    exit status (0 consistent or skipped, 1 a violation, 2 an error)."""
    from dpaudit.results.defaults import format_values
    from dpaudit.check.runner import (CheckSetupError, check_mechanism, format_step,
                                      load_check_target)
    from dpaudit.util.jsonable import to_jsonable

    try:
        params = parse_params(args.params)
        mech = load_check_target(args.mechanism, params, claim=parse_claim(args),
                                 pairs=parse_pairs(args.pair))
    except (CheckSetupError, ValueError) as exc:
        print(f"dpaudit check: error: {exc}", file=sys.stderr)
        return 2
    shown = ", ".join(f"{k}={v!r}" for k, v in (mech.params or params).items())
    print(f"dpaudit check {args.mechanism}: {mech.name}"
          f"({shown}); {args.samples} samples, seed {args.seed}", flush=True)
    defaulted = format_values(to_jsonable(mech.defaulted_parameters(params)))
    if defaulted:
        print(f"parameters left at their defaults (not in --params): {defaulted}", flush=True)

    def on_step(index, step):
        print(format_step(index, step), flush=True)

    try:
        representation = (None if args.representation is None
                           else args.representation == "on")
        result = check_mechanism(mech, spec=args.mechanism, samples=args.samples,
                                 seed=args.seed, on_step=on_step, given=params,
                                 search=args.search, representation=representation,
                                 floating_point=args.floating_point, replay=args.replay,
                                 stopping=StoppingRule(not args.fixed_n,
                                                       args.power or DEFAULT_POWER,
                                                       args.require_power))
    except KeyboardInterrupt:
        print("dpaudit: interrupted", file=sys.stderr)
        return 130
    failed = [s.step for s in result.steps if s.verdict == "violation"]
    errored = [s.step for s in result.steps if s.verdict == "error"]
    counts = {v: sum(s.verdict == v for s in result.steps) for v in ("consistent", "violation",
                                                                      "skipped", "error")}
    what = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    why = ("" if not (failed or errored) else
           " — " + "; ".join(x for x in (f"violation: {', '.join(failed)}" if failed else "",
                                        f"error: {', '.join(errored)}" if errored else "") if x))
    if result.vacuous and result.verdict == "error" and not errored:
        why += (" — nothing tested the implementation: every step but the claim was skipped "
                "(give the mechanism worst_case_pairs(), a query() or a sensitivity)")
    warned = f"; {len(result.warnings)} warning(s)" if result.warnings else ""
    print(f"result: {result.verdict} ({what}){why}{warned} in {result.seconds:.1f} s; "
          f"exit status {result.exit_status}")
    if args.json_out:
        doc = result.to_dict()
        doc["command"] = "dpaudit " + " ".join(shlex.quote(a) for a in argv)
        try:
            Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json_out).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
                                           encoding="utf-8")
        except OSError as exc:
            print(f"dpaudit check: error: cannot write {args.json_out}: "
                  f"{exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"wrote {args.json_out}")
    return result.exit_status


__all__ = ["cmd_check", "parse_claim", "parse_pairs", "parse_params"]
