"""The pytest plugin (issue 13, item 4): suite files collected as tests, and the
``dpaudit_audit`` fixture; exercised with pytest's own ``pytester``."""

from __future__ import annotations

import pytest

# pytester's in-process runs drop the modules they imported when they end, and numpy's and
# scipy's compiled modules cannot be imported twice in one process: what the inner runs use is
# imported here, once, for all of them (run alone, this file would otherwise fail)
import dpaudit.api  # noqa: E402,F401
import dpaudit.audit.run  # noqa: E402,F401
import dpaudit.distinguish.lower_bound  # noqa: E402,F401
import dpaudit.report  # noqa: E402,F401
import dpaudit.suite  # noqa: E402,F401
import numpy.fft  # noqa: E402,F401
import scipy.stats  # noqa: E402,F401
import statsmodels.stats.proportion  # noqa: E402,F401

pytest_plugins = ["pytester"]

SUITE = """
[suite]
samples = 5000
confidence = 0.95
[[audit]]
name = "laplace-ok"
mechanism = "laplace"
params = { epsilon = 1.0 }
white_box = false
[[audit]]
name = "scale-bug"
mechanism = "laplace-scale-epsilon"
white_box = false
[[audit]]
name = "swept"
mechanism = "laplace"
white_box = false
sweep = { epsilon = [0.5, 1.0] }
"""


@pytest.fixture
def suite_dir(pytester):
    pytester.makefile(".toml", classic=SUITE)
    pytester.makefile(".toml", other="[tool]\nx = 1\n")  # no [[audit]]: not collected
    return pytester


@pytest.mark.slow
def test_suites_are_collected_only_when_asked(suite_dir):
    assert suite_dir.runpytest("--collect-only", "-q").ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result = suite_dir.runpytest("--dpaudit-suites", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["classic.toml::laplace-ok", "classic.toml::scale-bug",
                                 "classic.toml::swept[[]epsilon=0.5[]]",
                                 "classic.toml::swept[[]epsilon=1[]]", "4 tests collected*"])
    suite_dir.makeini("[pytest]\ndpaudit_suites = true\n")
    suite_dir.runpytest("--collect-only", "-q").stdout.fnmatch_lines(["4 tests collected*"])


@pytest.mark.slow
def test_failing_item_shows_the_certificate_and_junitxml_lists_testcases(suite_dir):
    xml = suite_dir.path / "out.xml"
    result = suite_dir.runpytest("--dpaudit-suites", f"--junitxml={xml}")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines([
        "*scale-bug (laplace-scale-epsilon): verdict violation, expected consistent*",
        # the pair with its two datasets, so the failure can be reproduced from the log
        "*pair 'add-max-record' (d0 = [[]*[]], d1 = [[]*[]]) δ=0: VIOLATION: ε_LB = * > "
        "claimed ε = *",
        "*event E = *d0 in E */4000 times*",
        "*confidence * for this certificate (family-wise 0.95)*"])
    text = xml.read_text()
    for name in ("laplace-ok", "scale-bug", "swept[epsilon=0.5]", "swept[epsilon=1]"):
        assert f'name="{name}"' in text


def _properties(xml_path) -> dict:
    import xml.etree.ElementTree as ET

    return {(case.get("name"), p.get("name")): p.get("value")
            for case in ET.parse(xml_path).iter("testcase")
            for p in case.iter("property")}


@pytest.mark.slow
def test_k_and_x_do_not_change_the_family(suite_dir):
    # in pytest's process: three sessions would start three worker processes, and where the
    # file runs is not what this pins (the worker: the tests above and below)
    full_xml, selected_xml = suite_dir.path / "full.xml", suite_dir.path / "k.xml"
    full = suite_dir.runpytest("--dpaudit-suites", "--dpaudit-in-process",
                               f"--junitxml={full_xml}")
    assert full.ret == pytest.ExitCode.TESTS_FAILED
    selected = suite_dir.runpytest("--dpaudit-suites", "--dpaudit-in-process", "-k",
                                   "laplace-ok",
                                   f"--junitxml={selected_xml}")
    selected.assert_outcomes(passed=1)
    chosen = _properties(selected_xml)
    assert chosen and all(name == "laplace-ok" for name, _ in chosen)
    assert chosen == {k: v for k, v in _properties(full_xml).items() if k[0] == "laplace-ok"}
    stop = suite_dir.runpytest("--dpaudit-suites", "--dpaudit-in-process", "-x")
    stop.assert_outcomes(passed=1, failed=1)


@pytest.mark.slow
def test_error_records_and_malformed_suites_are_errors(pytester):
    pytester.makefile(".toml", broken='[[audit]]\nname = "x"\nmechanism = "nope"\n')
    pytester.makepyfile(samplers="def two(d, n, rng):\n    return [0.0]\n")
    pytester.makefile(".toml", rows='[suite]\nsamples = 5000\n[[audit]]\nname = "rows"\n'
                                    'sampler = "samplers.py:two"\n'
                                    'claim = { notion = "pure-dp", epsilon = 1.0 }\n'
                                    '[[audit.pairs]]\nd0 = [0]\nd1 = [1]\n')
    result = pytester.runpytest("--dpaudit-suites", "broken.toml", "rows.toml")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*broken.toml: audit #0 'x': key 'mechanism'*",
                                 "*must return n outputs*"])


@pytest.mark.slow
def test_fixture_fails_on_a_known_bad_mechanism_and_passes_on_laplace(pytester):
    pytester.makepyfile("""
        def test_good(dpaudit_audit):
            result = dpaudit_audit.mechanism("laplace", samples=5000, white_box=False)
            assert result.verdict == "consistent"

        def test_bad(dpaudit_audit):
            dpaudit_audit.mechanism("laplace-scale-epsilon", samples=20000, white_box=False)

        def test_sampler(dpaudit_audit):
            import numpy as np
            from dpaudit import laplace_on_grid
            dpaudit_audit.sampler(lambda d, n, rng: laplace_on_grid(np.sum(d), 1.0, n, rng),
                                  epsilon=1.0, pairs=[([0], [1])], samples=5000)

        def test_leaky_sampler(dpaudit_audit):
            import numpy as np
            dpaudit_audit.sampler(lambda d, n, rng: np.sum(d) + rng.laplace(0, 1, size=n),
                                  epsilon=1.0, pairs=[([0], [1])], samples=20000)
    """)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*test_bad*", "dpaudit: violation",
                                 "*VIOLATION: ε_LB = * > claimed ε = *", "*event E = *"])
    # the float-leaky sampler fails as a floating-point violation, saying what to do
    result.stdout.fnmatch_lines(["*test_leaky_sampler*",
                                 # the unnamed pair is named by its datasets too
                                 "*pair 'pair-0' (d0 = [[]0[]], d1 = [[]1[]]) δ=0: "
                                 "FLOATING-POINT VIOLATION: ε_LB = * > claimed ε = 1*",
                                 "*value-level ε_LB = *", "*laplace_on_grid*"])


@pytest.mark.slow  # ~1 s: an in-process pytest session that runs two audit points
def test_suites_import_the_project_like_pytest_and_list_every_bad_audit(pytester):
    """Issue 26, item 4: a suite's file reference imports a package at the project root (no
    earlier ``module:Class`` reference needed), a sampler takes the audit's params, and a file
    with several bad audits is one error listing each."""
    import uuid

    pkg = f"privstats_{uuid.uuid4().hex[:8]}"  # no other test can have imported it
    pytester.makefile(".toml", pyproject="[project]\nname = 'mine'\n")
    pytester.mkpydir(pkg)
    (pytester.path / pkg / "sums.py").write_text(
        "import numpy as np\nfrom dpaudit import laplace_on_grid\n"
        "def noisy_sum(dataset, n, rng, epsilon=1.0):\n"
        "    return laplace_on_grid(float(np.sum(dataset)), 1 / epsilon, n, rng)\n")
    (pytester.path / "targets").mkdir()
    (pytester.path / "targets" / "mine.py").write_text(f"from {pkg}.sums import noisy_sum\n")
    (pytester.path / "audits").mkdir()
    (pytester.path / "audits" / "good.toml").write_text(
        '[suite]\nsamples = 1000\n[[audit]]\nname = "sum"\n'
        'sampler = "../targets/mine.py:noisy_sum"\nclaim = { notion = "pure-dp" }\n'
        'sweep = { epsilon = [0.5, 1.0] }\n[[audit.pairs]]\nd0 = [0]\nd1 = [1]\n')
    (pytester.path / "audits" / "bad.toml").write_text(
        '[[audit]]\nname = "a"\nmechanism = "laplac"\n'
        '[[audit]]\nname = "b"\nmechanism = "laplace"\ndistinguisher = "logistc"\n')
    result = pytester.runpytest("--dpaudit-suites", "audits/", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*bad.toml: 2 problems*",
                                 "*- audit #0 'a': key 'mechanism'*did you mean 'laplace'*",
                                 "*- audit #1 'b': key 'distinguisher'*did you mean "
                                 "'logistic'*"])


@pytest.mark.slow  # ~4 s: a pytest subprocess, and its worker process started twice
def test_a_suite_whose_sampler_ends_its_process_errors_and_the_next_file_runs(pytester):
    """Issue 39, item 2: ``os._exit(0)`` in a sampler of a collected suite file ended pytest
    itself with exit status 0, no report and no junit.xml.  The files run in the session's
    worker process: its end is an error of every item of that file, the next file runs in a
    fresh worker, and pytest reports as usual.  (A pytest subprocess: a regression must not
    end the pytest running this test.)"""
    pytester.makefile(".toml", pyproject="[project]\nname = 'mine'\n")
    pytester.makepyfile(enders="import os\ndef os_exit(d, n, rng):\n    os._exit(0)\n")
    pytester.makefile(".toml", a_ender='[suite]\nsamples = 2000\n[[audit]]\nname = "ender"\n'
                                       'sampler = "enders.py:os_exit"\n'
                                       'claim = { notion = "pure-dp", epsilon = 1.0 }\n'
                                       'search = false\n[[audit.pairs]]\nd0 = [0]\nd1 = [1]\n')
    pytester.makefile(".toml", z_ok='[suite]\nsamples = 2000\n[[audit]]\nname = "ok"\n'
                                    'mechanism = "laplace"\nsearch = false\n'
                                    'white_box = false\n')
    xml = pytester.path / "out.xml"
    result = pytester.runpytest_subprocess("--dpaudit-suites", "a_ender.toml", "z_ok.toml",
                                           f"--junitxml={xml}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        # the status the worker's end is seen with: 0 from os._exit(0), or 255 when the
        # worker's interpreter died while its exit was being handled (seen once in .ci/run)
        "*a_ender.toml: user code ended the worker process that ran this suite file (exit "
        "code *) before its run finished*--dpaudit-workers 2*"])
    text = xml.read_text()
    assert 'name="ender"' in text and 'name="ok"' in text


@pytest.mark.slow
def test_the_fixture_runs_a_canary_audit(pytester):
    """kind= and options= go through the fixture to the API: a one-run canary audit."""
    pytester.makepyfile('''
def test_one_run(dpaudit_audit):
    result = dpaudit_audit.mechanism(
        "dpsgd-deterministic", params={"n": 1000, "batch_size": 10, "noise_multiplier": 0.8},
        delta=1e-3, kind="canary", options={"canaries": 2000}, expect="violation")
    assert result.points[0].procedure == "canary"


def test_unmet(dpaudit_audit):
    dpaudit_audit.mechanism(
        "dpsgd-deterministic", params={"n": 1000, "batch_size": 10, "noise_multiplier": 0.8},
        delta=1e-3, kind="canary", options={"canaries": 2000})
''')
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*dpaudit: violation*", "*canary audit, 2000 canaries*"])
