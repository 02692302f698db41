"""The bad-input matrix (issue 17): one row per kind of bad suite file or bad audit, each run
next to a good suite through ``dpaudit run``.  For every row the promise is the same:

* the problem is stated in one line that names it (on stderr, or as the audit's ``error`` in
  results.json), never as a traceback;
* the exit status is 2 (an error), or 0 where the input is fine after all (a BOM);
* the good suite still runs and its audit is still consistent, and results.json is whole.

Every row runs at 2000 samples, in well under a second.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

import pytest

from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_document

GOOD = ('[suite]\nname = "good"\nsamples = 2000\n[[audit]]\nname = "laplace"\nmechanism = "laplace"\n'
        'search = false\n')  # one record: the rows below are about the bad input


def bad_suite(body: str, name: str = "bad") -> str:
    return f'[suite]\nname = "{name}"\nsamples = 2000\n' + body


def sampler_audit(function: str) -> str:
    return bad_suite(f'[[audit]]\nname = "user"\nsampler = "user.py:{function}"\n'
                     'claim = { notion = "pure-dp", epsilon = 1.0 }\n'
                     '[[audit.pairs]]\nd0 = [0.0]\nd1 = [1.0]\n')


USER_CODE = '''
import numpy as np
def nan(d, n, rng):
    out = float(d[0]) + rng.laplace(size=n)
    out[0] = np.nan
    return out
def short(d, n, rng):
    return rng.laplace(size=n - 1)
def strings(d, n, rng):
    return np.array(["x"] * n)
def raises(d, n, rng):
    raise RuntimeError("the library refused: budget exhausted")
def reseeds(d, n, rng):
    return float(d[0]) + np.random.default_rng(7).laplace(size=n)
def two_args(d, n):
    return np.zeros(n)
'''


@dataclass(frozen=True)
class Row:
    """A bad input: the suite file's bytes (or a special kind of file), the exit status, and a
    fragment of the one-line message; ``where`` says where the message appears."""

    name: str
    content: bytes | str | None
    fragment: str
    status: int = 2
    where: str = "stderr"  # or "record": the audit's error in results.json
    kind: str = "file"  # or "fifo", "directory"


ROWS = [
    Row("not TOML", "[[audit]\nname = 'x'\n", "bad.toml"),
    Row("binary garbage", b"\x00\xff\xfe\x89PNG\r\n\x1a\n" * 20, "bad.toml"),
    Row("not UTF-8", b'[suite]\nname = "caf\xe9"\n', "UTF-8"),
    Row("nested 5000 deep", "a = " + "[" * 5000 + "]" * 5000 + "\n", "nested"),
    Row("a FIFO named .toml", None, "not a regular file", kind="fifo"),
    Row("a directory named .toml", None, "directory", kind="directory"),
    Row("a UTF-8 byte order mark", "\ufeff" + GOOD.replace('"good"', '"bom"'), "", status=0),
    Row("unknown key", bad_suite('[[audit]]\nname = "a"\nmechanism = "laplace"\nparms = {}\n'),
        "did you mean 'params'"),
    Row("unknown mechanism", bad_suite('[[audit]]\nname = "a"\nmechanism = "laplase"\n'),
        "laplace"),
    Row("absurd samples", bad_suite(
        '[[audit]]\nname = "a"\nmechanism = "laplace"\nsamples = 9223372036854775807\n'),
        "samples"),
    Row("too few samples", bad_suite(
        '[[audit]]\nname = "a"\nmechanism = "laplace"\nsamples = 10\n'), "samples"),
    Row("confidence above 1", bad_suite('[[audit]]\nname = "a"\nmechanism = "laplace"\n')
        .replace("samples = 2000", "samples = 2000\nconfidence = 1.5"), "confidence"),
    Row("negative delta", bad_suite(
        '[[audit]]\nname = "a"\nmechanism = "laplace"\ndelta = -0.1\n'), "delta"),
    Row("bad parameter value", bad_suite(
        '[[audit]]\nname = "a"\nmechanism = "laplace"\nparams = { epsilon = -1.0 }\n'),
        "epsilon"),
    Row("duplicate audit names", bad_suite(
        '[[audit]]\nname = "a"\nmechanism = "laplace"\n[[audit]]\nname = "a"\n'
        'mechanism = "laplace"\n'), "expected a name unique within the file"),
    Row("same suite name as the good one", GOOD, "already used by"),
    Row("missing sampler file", sampler_audit("nan").replace("user.py", "missing.py"),
        "missing.py"),
    Row("sampler with two arguments", sampler_audit("two_args"),
        "must accept (dataset, n, rng)"),
    # δ left out is the claim's δ (issue 36, item 5); δ = 0 stated for an (ε, δ) claim is vacuous
    Row("vacuous audit: Gaussian at δ = 0", bad_suite(
        '[[audit]]\nname = "a"\nmechanism = "gaussian"\ndelta = 0.0\n'
        'params = { epsilon = 1.0, delta = 1e-5 }\n'), "vacuous", where="record"),
    Row("series quantity typo", bad_suite(
        '[[audit]]\nname = "a"\nmechanism = "laplace"\n'
        '[[series]]\nname = "s"\nmechanism = "sgld"\nquantity = "separatoin"\n'
        'sweep = { steps = [0, 10] }\n'), "separatoin"),
    Row("sampler returns NaN", sampler_audit("nan"), "NaN", where="record"),
    Row("sampler returns n - 1 outputs", sampler_audit("short"), "shape", where="record"),
    Row("sampler returns strings", sampler_audit("strings"), "dtype", where="record"),
    Row("sampler raises", sampler_audit("raises"), "budget exhausted", where="record"),
    Row("sampler re-seeds itself", sampler_audit("reseeds"), "re-seeds a generator",
        where="record"),
]


#: the rows the fast loop (``-m "not slow"``) keeps: one of each kind (a file that is not a
#: suite, a suite error, a file that parses, an audit's error in its record); every row also runs
#: the good suite, ~0.25 s on a quiet 2-core machine, so the others are ``slow``
FAST_ROWS = {"not TOML", "unknown key", "a UTF-8 byte order mark", "sampler returns NaN"}


@pytest.mark.parametrize("row", [pytest.param(row, id=row.name, marks=[] if row.name in FAST_ROWS
                                              else [pytest.mark.slow]) for row in ROWS])
def test_a_bad_input_is_one_clear_line_and_the_good_suite_still_runs(row: Row, tmp_path,
                                                                      capsys):
    (tmp_path / "user.py").write_text(USER_CODE, encoding="utf-8")
    good = tmp_path / "good.toml"
    good.write_text(GOOD, encoding="utf-8")
    bad = tmp_path / "bad.toml"
    if row.kind == "fifo":
        os.mkfifo(bad)
    elif row.kind == "directory":
        bad.mkdir()
    elif isinstance(row.content, bytes):
        bad.write_bytes(row.content)
    else:
        bad.write_text(row.content, encoding="utf-8")
    out = tmp_path / "out"

    status = main(["run", str(good), str(bad), "--out", str(out), "--workers", "1", "-q"])
    err = capsys.readouterr().err

    assert status == row.status, err
    assert "Traceback" not in err
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))  # whole JSON
    records = read_document(out / "results.json")["audits"]
    assert [r["verdict"] for r in records if r["suite"] == "good"] == ["consistent"]
    if row.where == "record":
        errors = [r["error"] for r in records if r["suite"] == "bad"]
        assert errors and all(row.fragment in e for e in errors), errors
        assert all("\n" not in e for e in errors)
    elif row.status == 2:
        lines = [line for line in err.splitlines() if line.startswith("dpaudit: error:")]
        assert any(row.fragment in line for line in lines), err
    else:
        assert "error" not in err
    if row.status == 2:
        assert document["summary"]["exit_status"] == 2


# -- JSON that dpaudit reads back ----------------------------------------------------------------

#: nesting dpaudit never writes (it writes fewer than 10 levels; MAX_JSON_DEPTH is 100): deep
#: enough that the JSON parser itself runs out of recursion, and shallow enough that it parses
#: and only a later walk over the value would
DEEP = 100_000
DEEP_RESULTS = [
    pytest.param("[" * DEEP + "]" * DEEP, id="arrays 100000 deep"),
    pytest.param('{"schema": 3, "suites": ' + "[" * DEEP + "]" * DEEP + "}",
                 id="suites 100000 deep"),
    pytest.param('{"schema": 3, "suites": ' + '{"a": ' * 500 + "0" + "}" * 500 + "}",
                 id="objects 500 deep (parses)"),
]


@pytest.fixture(scope="module")
def good_results(tmp_path_factory):
    """results.json of the good suite."""
    base = tmp_path_factory.mktemp("good")
    (base / "good.toml").write_text(GOOD, encoding="utf-8")
    assert main(["run", str(base / "good.toml"), "--out", str(base / "out"), "--workers", "1",
                 "-q"]) == 0
    return base / "out" / "results.json"


@pytest.mark.parametrize("command", ["report", "diff old", "diff new", "run --baseline"])
@pytest.mark.parametrize("content", DEEP_RESULTS)
def test_a_deeply_nested_results_file_is_one_line_never_a_recursion_error(
        command, content, good_results, tmp_path, capsys):
    bad = tmp_path / "results.json"
    bad.write_text(content, encoding="utf-8")
    good = tmp_path / "good.toml"
    good.write_text(GOOD, encoding="utf-8")
    argv = {"report": ["report", str(bad), "--out", str(tmp_path / "report")],
            "diff old": ["diff", str(bad), str(good_results)],
            "diff new": ["diff", str(good_results), str(bad)],
            "run --baseline": ["run", str(good), "--out", str(tmp_path / "out"),
                               "--baseline", str(bad), "--workers", "1", "-q"]}[command]

    status = main(argv)
    err = capsys.readouterr().err

    assert status == 2, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert f"error: {'--baseline: ' if 'baseline' in command else ''}{bad}: nested deeper than " \
           "100 levels" in err, err
    assert not (tmp_path / "report").exists() and not (tmp_path / "out").exists()
    assert main(["report", str(good_results), "--out", str(tmp_path / "again")]) == 0


# -- claims beyond what e^ε holds in a float (issue 27, item 1) ---------------------------

HUGE_CLAIMS = '''[suite]
name = "huge"
samples = 2000
[[audit]]
name = "laplace-800"
mechanism = "laplace"
params = { epsilon = 800.0 }
[[audit]]
name = "laplace-1e6"
mechanism = "laplace"
params = { epsilon = 1e6 }
[[audit]]
name = "gaussian-inf-at-0"
mechanism = "gaussian"
params = { epsilon = 1.0, delta = 1e-5 }
delta = [0.0, 1e-5]
'''.replace("[[audit]]", "[[audit]]\nsearch = false")  # one pair each: about the claims


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_claims_beyond_float_exp_and_infinite_claims_are_audited(workers, tmp_path, capsys):
    """ε = 800 and 10⁶ (e^ε overflows a float) and ε(0) = ∞ next to a finite ε(1e-5): every
    certificate is consistent, its detectable ε is ∞ where no sample size could exceed the
    claim and finite above the claim otherwise; exit 0 and a whole results.json."""
    (tmp_path / "huge.toml").write_text(HUGE_CLAIMS, encoding="utf-8")
    out = tmp_path / "out"
    status = main(["run", str(tmp_path / "huge.toml"), "--out", str(out), "--workers", workers,
                   "-q"])
    err = capsys.readouterr().err
    assert status == 0, err
    assert "Traceback" not in err
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert document["summary"]["exit_status"] == 0
    records = read_document(out / "results.json")["audits"]
    got = {(r["audit"], r["delta"]): r for r in records}
    assert sorted(got) == [("gaussian-inf-at-0", 0.0), ("gaussian-inf-at-0", 1e-5),
                           ("laplace-1e6", 0.0), ("laplace-800", 0.0)]
    assert all(r["verdict"] == "consistent" and r["error"] is None for r in records)
    for key in [("laplace-800", 0.0), ("laplace-1e6", 0.0), ("gaussian-inf-at-0", 0.0)]:
        assert float(got[key]["detectable_epsilon"]) == math.inf
    assert float(got[("laplace-800", 0.0)]["claimed_epsilon"]) == 800.0
    assert float(got[("gaussian-inf-at-0", 0.0)]["claimed_epsilon"]) == math.inf
    finite = got[("gaussian-inf-at-0", 1e-5)]
    assert 1.0 < float(finite["detectable_epsilon"]) < math.inf


@pytest.mark.parametrize("epsilon", [709.0, 710.0, 800.0, 1e6])
def test_the_python_api_audits_claims_beyond_float_exp(epsilon):
    import numpy as np

    from dpaudit.api import audit_mechanism, audit_sampler

    def sampler(d, n, rng):
        return float(d[0]) + rng.laplace(size=n)

    for result in (
            audit_sampler(sampler, claim={"notion": "pure-dp", "epsilon": epsilon},
                          pairs=[([0.0], [1.0])], samples=2000),
            audit_mechanism("laplace", params={"epsilon": epsilon}, samples=2000)):
        assert result.verdict == "consistent"
        assert all(r.verdict == "consistent" and r.detectable_epsilon == math.inf
                   and not np.isnan(r.epsilon_lower_bound) for r in result.records)
