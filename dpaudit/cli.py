"""The ``dpaudit`` command.

``dpaudit run SUITE_OR_DIR... --out DIR`` runs audit suites and writes ``DIR/results.json``
(the source of truth, schema in :mod:`dpaudit.report.json_report`) and ``DIR/summary.md``.
Exit status: 0 when every audit met its expectation, 1 when one did not (an unexpected
violation, or a known bug that was not detected), 2 on any error (bad usage, a malformed suite,
an audit that raised).

``dpaudit list [--json]`` shows every registered mechanism: family, neighbouring relation,
claim, whether it is a known-bad variant and the literature's true ε.

User errors are reported as one message, never as a traceback.
"""

from __future__ import annotations

import argparse
import inspect
import json
import shlex
import sys
from pathlib import Path

from dpaudit import __version__


def _int_at_least(minimum: int, what: str):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{what} must be >= {minimum}, got {value}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    from dpaudit.audit.runner import PROFILES
    from dpaudit.audit.spec import MIN_SAMPLES

    parser = argparse.ArgumentParser(
        prog="dpaudit",
        description="Audit differential-privacy mechanisms: symbolic claims vs certified "
                    "empirical lower bounds on ε.")
    parser.add_argument("--version", action="version", version=f"dpaudit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="run audit suites (TOML files or directories of them)",
                         description="Run audit suites and write results.json and summary.md. "
                                     "Exit 0: all expectations met; 1: some not met; "
                                     "2: an error.")
    run.add_argument("suites", nargs="+", metavar="SUITE_OR_DIR",
                     help="a suite .toml file, or a directory whose *.toml files are run")
    run.add_argument("--out", required=True, metavar="DIR",
                     help="directory for results.json and summary.md (created if missing)")
    run.add_argument("--samples", type=_int_at_least(MIN_SAMPLES, "--samples"), metavar="N",
                     help="samples per side for every audit (overrides the suite files)")
    run.add_argument("--seed", type=_int_at_least(0, "--seed"), metavar="S",
                     help="seed for every suite (overrides the suite files)")
    run.add_argument("--profile", choices=sorted(PROFILES), default="default",
                     help="scale samples: quick ×0.1, default ×1, deep ×10")
    run.add_argument("--workers", type=_int_at_least(1, "--workers"), metavar="W",
                     help="worker processes (default: the number of CPU cores; 1 runs "
                          "in-process)")

    lst = sub.add_parser("list", help="list the registered mechanisms",
                         description="List every registered mechanism with its claim.")
    lst.add_argument("--json", action="store_true", help="print JSON instead of text")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (the console script passes it to ``sys.exit``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or bad usage (2)
        return int(exc.code) if isinstance(exc.code, int) else 2
    if args.command == "run":
        return _cmd_run(args, argv)
    if args.command == "list":
        return _cmd_list(args)
    parser.print_help(sys.stderr)
    return 2


# -- dpaudit run ------------------------------------------------------------------------------

def expand_suite_paths(items: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Files as given, directories expanded to their ``*.toml`` (sorted); plus (path, problem)
    for directories without suites."""
    paths, problems = [], []
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(str(f) for f in p.glob("*.toml") if f.is_file())
            if not found:
                problems.append((item, f"{item}: directory contains no *.toml suite files"))
            paths.extend(found)
        else:
            paths.append(item)  # a missing file is reported by load_suite as a SuiteError
    return paths, problems


def _cmd_run(args, argv: list[str]) -> int:
    from dpaudit.audit.runner import default_workers, exit_status, print_progress, run_suites
    from dpaudit.report.json_report import build_report, write_json
    from dpaudit.report.markdown import write_markdown

    command = "dpaudit " + " ".join(shlex.quote(a) for a in argv)
    paths, problems = expand_suite_paths(args.suites)
    for _, problem in problems:
        print(f"dpaudit: error: {problem}", file=sys.stderr)
    workers = args.workers or default_workers()

    def on_suite_error(exc):
        print(f"dpaudit: error: {exc}", file=sys.stderr, flush=True)

    try:
        run = run_suites(paths, samples=args.samples, profile=args.profile, seed=args.seed,
                         workers=workers, progress=print_progress,
                         on_suite_error=on_suite_error)
    except KeyboardInterrupt:
        print("dpaudit: interrupted", file=sys.stderr)
        return 130
    for path, problem in problems:
        run.suites.append({"file": path, "name": None, "confidence": None,
                           "family_size": 0, "per_certificate_confidence": None, "seed": None,
                           "audits": 0, "error": problem})
    status = exit_status(run)
    report = build_report(run, command=command, exit_status=status)
    out = Path(args.out)
    try:
        json_path = write_json(report, out / "results.json")
        md_path = write_markdown(report, out / "summary.md")
    except OSError as exc:
        print(f"dpaudit: error: cannot write reports to {out}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    s = report["summary"]
    print(f"{s['audits_met']}/{s['audits']} audits met their expectation "
          f"({s['certificates']} certificates: {s['verdicts']['violation']} violation, "
          f"{s['verdicts']['consistent']} consistent, {s['verdicts']['error']} error; "
          f"{s['suite_errors']} malformed suite(s)) in {run.seconds:.1f} s")
    for o in s["unmet_expectations"]:
        print(f"  unmet: {o['suite']}/{o['audit']}: expected {o['expect']}, got {o['verdict']}")
    print(f"wrote {json_path} and {md_path}; exit status {status}")
    return status


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
            entry = {"name": name, "family": getattr(cls, "family", ""),
                     "parameters": None,
                     "neighbouring": getattr(cls, "neighbouring", ""), "claim": None,
                     "known_bad": bool(getattr(cls, "known_bad", False)),
                     "true_epsilon": None, "literature": getattr(cls, "literature", ""),
                     "doc": ((cls.__doc__ or "").strip().splitlines() or [""])[0],
                     "needs_parameters": True, "signature": signature,
                     "error": f"{type(exc).__name__}: {exc}"}
        out.append(entry)
    return out


def _cmd_list(args) -> int:
    from dpaudit.report.json_report import to_jsonable

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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
