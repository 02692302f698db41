"""The ``dpaudit`` command.

``dpaudit run SUITE_OR_DIR... --out DIR [--baseline OLD]`` runs audit suites and writes
``DIR/results.json`` (the source of truth, schema in :mod:`dpaudit.results.records`),
``DIR/summary.md`` and ``DIR/junit.xml`` (:mod:`dpaudit.cli.run`), on local processes, a Dask
cluster or a Dask LocalCluster (``--workers W`` | ``--scheduler ADDRESS`` | ``--cluster
local:N``), with the same numbers.  Exit status: 0 when every audit met its expectation, 1
when one did not (an unexpected violation, or a known bug that was not detected) or, with
``--baseline``, on a regression against it, 2 on any error (bad usage, a malformed suite, an
audit that raised, an unreadable baseline).  ``--update-baseline`` creates a missing baseline
and replaces it after a run that exits 0 (:mod:`dpaudit.cli.baseline`).

``dpaudit diff OLD NEW`` and ``dpaudit report RESULTS`` render finished runs without
re-running them (:mod:`dpaudit.cli.reports`).

Progress on stderr (:mod:`dpaudit.audit.progress`); ``--only`` (:mod:`dpaudit.audit.select`).

``dpaudit list [--json]`` shows every registered mechanism: family, neighbouring relation,
claim, whether it is a known-bad variant and the literature's true ε.

``dpaudit check module:Class [--params k=v ...] [--samples N] [--seed S] [--json FILE]`` runs
four quick checks of one mechanism (claim, grey-box sensitivity, noise calibration, black-box;
see :mod:`dpaudit.check.runner`); each step is consistent, violation, skipped or error, the
words ``run`` uses.  Exit status: 0 when every step was consistent or skipped, 1 on a
violation, 2 on an error (bad spec, import error, bad parameters, a step that could not run).

``dpaudit accountants [--accountant NAME ...] --noise-multiplier S --sample-rate Q --steps T
[--delta D ...] [--calibrate EPS] [--grid]`` checks privacy accountants and noise calibration
against the bracketed exact curve of a DP-SGD run (:mod:`dpaudit.cli.accountants`).

``dpaudit init [DIR] [--class] [--force]`` writes a mechanism skeleton, a suite naming it and a pytest test,
which pass as written (:mod:`dpaudit.cli.scaffold`).

``dpaudit prove [FAMILY ...] [--check] [-v]`` re-runs the sympy derivations in ``proofs/`` and
writes ``proofs/certificates/FAMILY.json`` (see :mod:`dpaudit.proofs`); with ``--check`` (what CI runs)
it writes nothing and fails when a committed certificate differs from what the derivation
produces now.  Exit status: 0 all steps passed (and, with --check, every certificate is up to
date); 1 a step failed or a certificate is stale; 2 bad usage.

User errors are reported as one message, never as a traceback.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from pathlib import Path

from dpaudit.cli.announce import announce
from dpaudit.cli.arguments import (add_stopping_arguments, int_at_least, memory_size,
                                   output_directory, seconds)
from dpaudit.cli.run import expand_suite_paths
from dpaudit.version import __version__


def build_parser() -> argparse.ArgumentParser:
    from dpaudit.results.options import PROFILES
    from dpaudit.backends.choose import add_backend_arguments
    from dpaudit.util.validation import MAX_SAMPLES, MIN_SAMPLES  # suite/__init__ imports sympy
    from dpaudit.cli.reports import add_report_parsers
    from dpaudit.cli.accountants import add_accountants_parser

    parser = argparse.ArgumentParser(
        prog="dpaudit",
        description="Audit differential-privacy mechanisms: symbolic claims vs certified "
                    "empirical lower bounds on ε.")
    parser.add_argument("--version", action="version", version=f"dpaudit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="run audit suites (TOML files or directories of them)",
                         description="Run audit suites and write results.json, summary.md "
                                     "and junit.xml. Exit 0: all expectations met; 1: some "
                                     "not met (or, with --baseline, a regression); 2: an "
                                     "error.")
    run.add_argument("suites", nargs="+", metavar="SUITE_OR_DIR",
                     help="a suite .toml file, or a directory whose *.toml files are run")
    run.add_argument("--out", required=True, metavar="DIR", type=output_directory,
                     help="directory for results.json, summary.md, junit.xml and figures/ "
                          "(created if missing)")
    run.add_argument("--baseline", metavar="OLD",
                     help="a previous results.json (or its directory): also write DIR/diff.md "
                          "and exit 1 on a regression against it (see `dpaudit diff`); a "
                          "directory or a path without .json stands for its results.json")
    run.add_argument("--update-baseline", action="store_true",
                     help="with --baseline: when this run meets every expectation (exit 0), "
                          "write its results.json to the baseline path; a missing baseline is "
                          "then created instead of being an error (the first run of a project)")
    run.add_argument("--samples", type=int_at_least(MIN_SAMPLES, "--samples", MAX_SAMPLES), metavar="N",
                     help="samples per side for every audit (overrides the suite files)")
    run.add_argument("--seed", type=int_at_least(0, "--seed"), metavar="S",
                     help="seed for every suite (overrides the suite files)")
    run.add_argument("--profile", choices=sorted(PROFILES), default="default",
                     help="scale samples: quick ×0.1, default ×1, deep ×10")
    add_backend_arguments(run, int_at_least(1, "--workers"))
    run.add_argument("--oversubscribe", action="store_true",
                     help="allow --workers or --cluster local:N above the number of cores (by "
                          "default they are capped there: more processes only compete for the "
                          "cores and memory)")
    run.add_argument("--memory-limit", type=memory_size, metavar="SIZE",
                     help="refuse (as an error) an audit whose estimated peak memory exceeds "
                          "SIZE, e.g. 16GB or 512MiB (default 4GiB; overrides [suite] "
                          "memory_limit)")
    run.add_argument("--time-limit", type=seconds, metavar="SECONDS",
                     help="end a test still running after SECONDS as an error (default "
                          "1800; overrides [suite] time_limit)")
    run.add_argument("--only", action="append", default=[], metavar="PATTERN",
                     help="run only audits matching this glob on SUITE/AUDIT or AUDIT, e.g. "
                          "'classic/laplace-*' (repeatable); numbers equal the full run's")
    add_stopping_arguments(run)
    run.add_argument("--resume", action="store_true",
                     help="continue the run in DIR that was interrupted (Ctrl-C, SIGTERM, a "
                          "kill): run only the tests it did not finish, with the numbers an "
                          "uninterrupted run gives (the suites and options must be the same)")
    run.add_argument("-q", "--quiet", action="store_true",
                     help="no progress on stderr (the final summary is still printed)")

    lst = sub.add_parser("list", help="list the registered mechanisms",
                         description="List every registered mechanism with its claim.")
    lst.add_argument("--json", action="store_true", help="print JSON instead of text")

    chk = sub.add_parser(
        "check", help="check one mechanism: claim, sensitivity, calibration, exact curve, "
                      "canaries, black-box",
        description="Check a mechanism you wrote against its own claim: (1) the claim converts "
                    "to (ε, δ); (2) grey-box: no neighbouring pair moves query() by more than "
                    "sensitivity(), and a replay of the code on neighbouring datasets with its "
                    "randomness held fixed (release shift, NaN/∞, data-dependent control flow "
                    "and noise scales); (3) the sampler's noise has the parameter the claim "
                    "states; (4) the claim against its worst-case pairs' exact curves, where it "
                    "knows them; (5) one run of canaries, where it has canary runs; (6) a "
                    "black-box audit of its worst-case pairs and of the pairs a search of its "
                    "dataset space finds (its adversarial proposals first, then random pairs; "
                    "--no-search turns it off). Exit 0: every step passed or was skipped; 1: a "
                    "step failed; 2: an error.")
    chk.add_argument("mechanism", metavar="MODULE:CLASS",
                     help="the mechanism class, e.g. mypkg.mech:MyMechanism or "
                          "path/to/file.py:MyMechanism (imported with the project root on "
                          "the path: the nearest folder with pyproject.toml, setup.cfg, "
                          "setup.py, pytest.ini, tox.ini or .git, else the current "
                          "directory), a registered name from `dpaudit list`, or a sampler "
                          "function file.py:fn (dataset, n, rng, **params) with --epsilon or "
                          "--claim and --pair")
    chk.add_argument("--params", nargs="+", action="extend", default=[], metavar="K=V",
                     help="constructor arguments, e.g. --params epsilon=0.5 k=4 (values are "
                          "parsed as JSON: numbers, true/false, null, \"text\"; anything else "
                          "is a string)")
    chk.add_argument("--epsilon", type=float, metavar="E",
                     help="a sampler function's claim: epsilon-DP, or (epsilon, delta)-DP "
                          "with --delta (as audit_sampler(epsilon=...))")
    chk.add_argument("--delta", type=float, metavar="D",
                     help="with --epsilon: the claim's delta (default 0: pure DP)")
    chk.add_argument("--claim", metavar="JSON",
                     help="a sampler function's claim as a suite's claim table in JSON, e.g. "
                          "'{\"notion\": \"zcdp\", \"rho\": 0.5}'; a key left out is read "
                          "from --params")
    chk.add_argument("--pair", nargs=2, action="append", default=[], metavar=("D0", "D1"),
                     help="a sampler function's neighbouring datasets (JSON, e.g. --pair "
                          "'[0, 0]' '[0, 1]'); repeatable, named pair-0, pair-1, ... as a "
                          "suite's [[audit.pairs]]")
    chk.add_argument("--samples", type=int_at_least(MIN_SAMPLES, "--samples", MAX_SAMPLES), metavar="N",
                     default=200_000,
                     help="samples per side for the black-box audit and for the calibration "
                          "(default 200000)")
    chk.add_argument("--seed", type=int_at_least(0, "--seed"), metavar="S", default=0,
                     help="seed (default 0); results depend on it only")
    chk.add_argument("--json", metavar="FILE", dest="json_out",
                     help="also write the step results as JSON to FILE")
    add_stopping_arguments(chk)
    chk.add_argument("--no-search", dest="search", action="store_false",
                     help="black-box step: audit the worst-case pairs only, no pair search of "
                          "the dataset space (a suite's search = false)")
    chk.add_argument("--representation", choices=("on", "off"), default=None,
                     help="black-box step: read the outputs' float64 representation (default: "
                          "on for your code and library adapters, off for dpaudit's own "
                          "families; a suite's representation = true/false)")
    chk.add_argument("--floating-point", choices=("fail", "warn"), default="fail",
                     dest="floating_point",
                     help="black-box step: a finding on the float64 representation alone "
                          "fails the step (default) or is a warning beside the value-level "
                          "verdict (a suite's floating_point = \"warn\")")
    chk.add_argument("--replay", choices=("fail", "warn", "off"), default="fail",
                     help="step 2: a finding of the grey-box replay (the code run on D and D' "
                          "with its randomness held fixed: a release moving by more than the "
                          "declared sensitivity, NaN/inf on one side only) fails the check "
                          "(default), is a warning, or the replay is not run (a suite's "
                          "replay = \"warn\" / \"off\")")
    _add_prove_parser(sub)
    _add_init_parser(sub)
    add_report_parsers(sub)
    add_accountants_parser(sub)
    return parser


def _add_prove_parser(sub) -> None:
    # the families table, not dpaudit.proofs: `dpaudit --help` must not import the claims
    from dpaudit.mechanisms.families import proof_modules

    families = proof_modules()

    prove = sub.add_parser(
        "prove", help="re-run the symbolic derivations in proofs/ and write their certificates",
        description="Re-run the sympy derivations of the mechanisms' claims (proofs/FAMILY.py) "
                    "and write proofs/certificates/FAMILY.json. Exit 0: every step passed (and "
                    "with --check every certificate is up to date); 1: a step failed or a "
                    "certificate is stale; 2: bad usage.")
    prove.add_argument("families", nargs="*", metavar="FAMILY",
                       help=f"proof families to run (default: all of {', '.join(families)})")
    prove.add_argument("--check", action="store_true",
                       help="write nothing; exit 1 if a committed certificate differs from the "
                            "derivation's output (stale), naming what differs")
    prove.add_argument("-v", "--verbose", action="store_true", help="print every checked step")
    prove.add_argument("--certificates", metavar="DIR",
                       help="certificate directory (default: the installed proofs/certificates)")


def _add_init_parser(sub) -> None:
    init = sub.add_parser(
        "init", help="write a mechanism skeleton, a suite and a pytest test to start from",
        description="Write DIR/my_mechanism.py (a clipped mean with Laplace noise, a function "
                    "declared with @dpaudit.mechanism), DIR/audits/my_mechanism.toml and "
                    "DIR/tests/test_my_mechanism.py; they pass as written. Exit 0, or 2 when a "
                    "file exists (use --force).")
    init.add_argument("directory", nargs="?", default=".", metavar="DIR",
                      help="where to write (default: the current directory)")
    init.add_argument("--force", action="store_true", help="overwrite existing files")
    init.add_argument("--class", dest="as_class", action="store_true",
                      help="write the mechanism as a Mechanism subclass (ClippedMean), with a "
                           "log-density and a noise law: what only a class can say")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (the console script passes it to ``sys.exit``).
    Output to a closed pipe is dropped, never an error (:mod:`dpaudit.util.pipes`)."""
    from dpaudit.util.pipes import pipe_safe_output

    with pipe_safe_output():
        return _main(list(sys.argv[1:] if argv is None else argv))


def _main(argv: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or bad usage (2)
        return int(exc.code) if isinstance(exc.code, int) else 2
    announce(args)  # to the console script's supervising process, if any
    if args.command == "run":
        from dpaudit.cli.run import cmd_run

        return cmd_run(args, argv)
    if args.command in ("diff", "report"):
        from dpaudit.cli.reports import cmd_diff, cmd_report

        return cmd_diff(args) if args.command == "diff" else cmd_report(args)
    if args.command == "list":
        return _cmd_list(args)
    if args.command == "prove":
        return _cmd_prove(args)
    if args.command == "check":
        from dpaudit.cli.check import cmd_check

        return cmd_check(args, argv)
    if args.command == "init":
        from dpaudit.cli.scaffold import cmd_init

        return cmd_init(args)
    if args.command == "accountants":
        from dpaudit.cli.accountants import cmd_accountants

        return cmd_accountants(args)
    parser.print_help(sys.stderr)
    return 2


# -- dpaudit list -----------------------------------------------------------------------------

def describe_mechanisms() -> list[dict]:
    """``describe()`` of every registered mechanism built with its default parameters."""
    from dpaudit.mechanisms.registry import get_mechanism_class, mechanism_names

    out = []
    for name in mechanism_names():
        cls = get_mechanism_class(name)
        try:
            entry = cls().describe()
            entry["needs_parameters"] = False
        except Exception as exc:
            try:
                signature = f"{name}{inspect.signature(cls)}"
            except (TypeError, ValueError):
                signature = name
            entry = {"name": name, "family": cls.family, "parameters": None,
                     "neighbouring": cls.neighbouring, "claim": None,
                     "known_bad": bool(cls.known_bad),
                     "true_epsilon": None, "literature": cls.literature,
                     "doc": ((cls.__doc__ or "").strip().splitlines() or [""])[0],
                     "needs_parameters": True, "signature": signature,
                     "error": f"{type(exc).__name__}: {exc}"}
        out.append(entry)
    return out


def _cmd_list(args) -> int:
    from dpaudit.util.jsonable import to_jsonable  # as report.json_report does, without the reports

    entries = describe_mechanisms()
    if args.json:
        print(json.dumps(to_jsonable(entries), indent=2, ensure_ascii=False))
        return 0
    for e in entries:
        flag = "  [KNOWN BAD]" if e.get("known_bad") else ""
        print(f"{e['name']}  (family {e.get('family') or '?'}){flag}")
        if e.get("doc"):
            print(f"    {e['doc']}")
        if e.get("claim"):
            params = ", ".join(f"{k}={v}" for k, v in (e.get("parameters") or {}).items())
            print(f"    claim: {e['claim'].get('text')}   (default parameters: {params or '—'})")
        else:
            print(f"    needs parameters: {e.get('signature')}")
        if e.get("neighbouring"):
            print(f"    neighbouring: {e['neighbouring']}")
        if e.get("known_bad"):
            true_eps = e.get("true_epsilon")
            true_text = "∞" if true_eps in ("inf", float("inf")) else true_eps
            lit = f" ({e['literature']})" if e.get("literature") else ""
            print(f"    true ε (literature): {true_text}{lit}")
    return 0


# -- dpaudit prove ----------------------------------------------------------------------------

def _cmd_prove(args) -> int:
    import time

    from dpaudit import proofs

    families = args.families or list(proofs.FAMILIES)
    unknown = [f for f in families if f not in proofs.FAMILIES]
    if unknown:
        print(f"dpaudit prove: error: unknown proof family {', '.join(map(repr, unknown))}; "
              f"known: {', '.join(proofs.FAMILIES)}", file=sys.stderr)
        return 2
    directory = Path(args.certificates) if args.certificates else None
    status = 0
    for family in dict.fromkeys(families):
        start = time.perf_counter()
        try:
            derivation, document = proofs.build(family)
        except Exception as exc:  # a derivation that raises is a failed proof, not a crash
            print(f"{family}: FAILED — the derivation raised {type(exc).__name__}: {exc}")
            status = 1
            continue
        seconds = time.perf_counter() - start
        for step in derivation.steps:
            if args.verbose or not step.passed:
                mark = "ok" if step.passed else "FAILED"
                print(f"  [{mark}] {step.id} ({step.method}) {step.statement} — {step.detail}")
        summary = (f"{family}: {len(derivation.steps) - len(derivation.failed)}/"
                   f"{len(derivation.steps)} steps passed, {len(derivation.entries)} formulas, "
                   f"{seconds:.1f} s")
        if derivation.failed:
            print(f"{summary} — FAILED: {', '.join(s.id for s in derivation.failed)}"
                  + ("" if args.check else "; certificate not written"))
            status = 1
        elif args.check:
            diffs = proofs.stale_differences(family, document, directory)
            if diffs:
                status = 1
                print(f"{summary} — STALE certificate proofs/certificates/{family}.json "
                      f"({len(diffs)} difference(s); run `dpaudit prove {family}`):")
                for line in diffs[:20]:
                    print(f"    {line}")
                if len(diffs) > 20:
                    print(f"    … and {len(diffs) - 20} more")
            else:
                print(f"{summary}; certificate up to date")
        else:
            try:
                path, changed = proofs.write(family, document, directory)
            except OSError as exc:
                print(f"dpaudit prove: error: cannot write the {family} certificate: "
                      f"{exc.strerror or exc}", file=sys.stderr)
                return 2
            print(f"{summary}; {'wrote' if changed else 'unchanged'} {path}")
    return status


__all__ = ["build_parser", "describe_mechanisms", "expand_suite_paths", "main"]
