"""Issue 36's story: five mechanisms a new user wrote (:mod:`new_user_mechanisms`), each named
with the pair a naive engineer names, through every route — ``dpaudit check``, ``dpaudit run``
(one suite of the five), the pytest fixture and :func:`dpaudit.audit_mechanism` — at
``--seeds`` seeds each, with every default (200 000 samples per side, the default search and
representation).  Prints found/total per mechanism and route ("found": the route's verdict is a
violation; for the two correct mechanisms it is a false alarm, or a finding on input the
engineer did not think of: see RESULTS.md) and records it in RESULTS.md.

Every route runs as the user runs it, in a temporary project holding a copy of the mechanisms:
``dpaudit check`` and ``dpaudit run`` and pytest as subprocesses, the API in this process.

    python benchmarks/new_user_story.py [--seeds 10] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from common import markdown_table, record

HERE = Path(__file__).resolve().parent
NAMES = {"DataBoundMean": "data-bound-mean", "GroupByCount": "group-by-count",
         "ExpMedian": "exp-median", "FixedClipMean": "fixed-clip-mean",
         "PublicHistogram": "public-histogram"}
SUITE = '[suite]\nname = "mine"\n' + "".join(
    f'\n[[audit]]\nname = "{audit}"\nmechanism = "../mechs.py:{cls}"\n'
    for cls, audit in NAMES.items())
TEST = '''
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mechs  # noqa: E402


@pytest.mark.parametrize("seed", range({seeds}))
@pytest.mark.parametrize("name", {names!r})
def test_mech(dpaudit_audit, name, seed):
    dpaudit_audit.mechanism(getattr(mechs, name), seed=seed)
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    found = {r: dict.fromkeys(NAMES, 0) for r in ("check", "run", "pytest", "api")}
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text("", encoding="utf-8")
        shutil.copy(HERE / "new_user_mechanisms.py", root / "mechs.py")
        (root / "audits").mkdir()
        (root / "audits" / "mine.toml").write_text(SUITE, encoding="utf-8")
        (root / "test_mine.py").write_text(TEST.format(seeds=args.seeds, names=list(NAMES)),
                                           encoding="utf-8")
        sys.path.insert(0, str(root))
        import mechs

        from dpaudit import audit_mechanism
        from dpaudit.report.results_file import read_report

        for seed in range(args.seeds):
            for cls in NAMES:
                out = root / f"check-{cls}-{seed}.json"
                subprocess.run([bin_dir / "dpaudit", "check", f"mechs.py:{cls}", "--seed",
                                str(seed), "--json", str(out)], cwd=root, capture_output=True)
                found["check"][cls] += json.loads(out.read_text())["verdict"] == "violation"
                found["api"][cls] += audit_mechanism(getattr(mechs, cls),
                                                     seed=seed).verdict == "violation"
            subprocess.run([bin_dir / "dpaudit", "run", "audits/", "--out", f"run-{seed}",
                            "--seed", str(seed), "--workers", "1", "-q"], cwd=root,
                           capture_output=True)
            run = read_report(root / f"run-{seed}" / "results.json").run
            for point in run.points:
                cls = next(c for c, a in NAMES.items() if a == point.audit)
                found["run"][cls] += point.verdict == "violation"
            print(seed, json.dumps(found), flush=True)
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n",
                        "0", "test_mine.py", "--junitxml", "pytest.xml", "-W", "ignore"],
                       cwd=root, capture_output=True)
        for case in ET.parse(root / "pytest.xml").getroot().iter("testcase"):
            name = case.get("name").split("[", 1)[1].rstrip("]").split("-")[0]
            found["pytest"][name] += case.find("failure") is not None
    rows = [[cls, *[f"{found[r][cls]}/{args.seeds}" for r in found]] for cls in NAMES]
    body = (f"The five mechanisms of `benchmarks/new_user_mechanisms.py`, each named with a "
            f"naive pair, every default, seeds 0–{args.seeds - 1}: found (a violation) per "
            f"route.\n\n" + markdown_table(["mechanism", *found], rows))
    record("The new user's story (issue 36): five mechanisms through every route "
           "(benchmarks/new_user_story.py)", body, write=not args.no_write)


if __name__ == "__main__":
    main()
