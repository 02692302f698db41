"""``import dpaudit``, ``dpaudit --help`` and the pytest plugin stay cheap: which modules they
import, pinned (issue item 5: under 0.5 s; the timings are in benchmarks/import_time.py, this
test measures no time).

Every CLI call imports the package, and every pytest run of a user loads
:mod:`dpaudit.pytest_plugin` (an entry point), so none of them may import scipy, statsmodels,
pandas, sympy, scikit-learn, matplotlib, jinja2 or dask: those are imported where they are
used (function-level imports, PEP 562 ``__getattr__`` in the package ``__init__``).  Each case
runs in a fresh interpreter, with this checkout first on ``sys.path``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dpaudit

ROOT = Path(dpaudit.__file__).resolve().parents[1]
HEAVY = ("scipy", "statsmodels", "pandas", "sympy", "sklearn", "matplotlib", "jinja2", "dask",
         "distributed")

#: prints the imported top-level packages after running the statement
_PROBE = """
import json, sys
{statement}
import dpaudit
print(json.dumps({{"file": dpaudit.__file__,
                  "top": sorted({{m.split(".")[0] for m in list(sys.modules)}})}}))
"""

_CLI = """
import contextlib, io, runpy, sys
sys.argv = ["dpaudit", *{argv!r}]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        runpy.run_module("dpaudit.cli", run_name="__main__")
    except SystemExit as exc:
        assert exc.code in (0, None), exc.code
"""


def imported_after(statement: str) -> set[str]:
    """The top-level packages in ``sys.modules`` of a fresh interpreter after ``statement``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(statement=statement)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(report["file"]).resolve() == Path(dpaudit.__file__).resolve()
    return set(report["top"])


@pytest.mark.slow
@pytest.mark.parametrize("statement", [
    "import dpaudit",
    "import dpaudit.pytest_plugin",
    _CLI.format(argv=["--help"]),
    _CLI.format(argv=["run", "--help"]),
    _CLI.format(argv=["--version"]),
], ids=["import dpaudit", "pytest plugin", "dpaudit --help", "dpaudit run --help",
        "dpaudit --version"])
def test_no_heavy_dependency_imported(statement):
    heavy = sorted(imported_after(statement) & set(HEAVY))
    assert heavy == [], (f"{heavy} imported: import them where they are used "
                         f"(python -X importtime shows the chain)")


@pytest.mark.parametrize("statement", ["import dpaudit", "import dpaudit.pytest_plugin"])
def test_package_import_is_numpy_free(statement):
    """The package ``__init__`` and the pytest plugin import no numpy either (~0.15 s)."""
    assert "numpy" not in imported_after(statement)


def test_lazy_public_names_are_the_defining_modules_objects():
    """The names of ``__all__`` resolve on first use to the objects of the modules that define
    them; ``dir()`` lists them; an unknown name is still an AttributeError."""
    import importlib

    for name in dpaudit.__all__:
        value = getattr(dpaudit, name)
        if name != "__version__":
            assert value is getattr(importlib.import_module(dpaudit._LAZY[name]), name)
    assert set(dpaudit.__all__) <= set(dir(dpaudit))
    assert set(dpaudit._LAZY) | {"__version__"} == set(dpaudit.__all__)
    namespace: dict = {}
    exec("from dpaudit import *", namespace)
    assert set(dpaudit.__all__) <= set(namespace)
    with pytest.raises(AttributeError, match="no_such_name"):
        dpaudit.no_such_name  # noqa: B018
    from dpaudit.backends import LocalBackend, default_workers
    from dpaudit.backends.local import LocalBackend as defined, default_workers as workers
    from dpaudit.mechanisms import Mechanism, get_mechanism_class
    from dpaudit.mechanisms.registry import get_mechanism_class as registry_get
    assert (LocalBackend, default_workers) == (defined, workers)
    assert Mechanism is dpaudit.Mechanism and get_mechanism_class is registry_get


@pytest.mark.slow
def test_the_api_and_a_numeric_claim_import_no_sympy():
    """``import dpaudit.api`` and building, printing and evaluating a numeric claim import no
    sympy (issue 33: the symbolic machinery loads when a claim carries an expression — a
    mechanism's derivation, a composed claim, a curve written as a formula) — nor does
    declaring a mechanism with ``@dpaudit.mechanism`` and asking it for its claim, pairs and
    outputs (a user module that declares one is imported by every route)."""
    statement = ("import dpaudit.api\n"
                 "from dpaudit.claims import GDP, RDP, ZCDP, ApproxDP, PureDP\n"
                 "for c in (PureDP(1.0), ZCDP(0.5), GDP(1.0), ApproxDP(1.0, 1e-5),\n"
                 "          RDP(lambda a: 0.5 * a)):\n"
                 "    c.describe(); c.epsilon(1e-5); c.to_dict()\n"
                 "import numpy as np, dpaudit\n"
                 "@dpaudit.mechanism(claim='pure-dp', records=(0.0, 1.0), sizes=(2, 5))\n"
                 "def noisy_sum(dataset, n, rng, epsilon=1.0):\n"
                 "    return dpaudit.laplace_on_grid(float(sum(dataset)), 2 / epsilon, n, rng)\n"
                 "m = noisy_sum(epsilon=0.5); m.claim().epsilon(1e-5); m.claim().describe()\n"
                 "(pair,) = m.worst_case_pairs(); m.sample(pair.d1, 10, np.random.default_rng(0))")
    assert "sympy" not in imported_after(statement)
