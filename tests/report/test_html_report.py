"""The HTML report (dpaudit.report.html): rendered from the typed run report of a real (tiny)
run; escaped, self-contained, counting what the summary counts; and, in a real headless
Chromium, free of console errors and network requests, with sorting and filtering that work."""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import textwrap
from html.parser import HTMLParser

import pytest
from markupsafe import escape

from dpaudit.results.records import exit_status
from dpaudit.api import run_suites
from dpaudit.report.html import render_html, write_html
from dpaudit.report.json_report import build_report
from dpaudit.report.mathml import claim_math, expression_mathml
from dpaudit.report.results_file import read_report
from tests.support import REPO

ROOT = REPO
EXAMPLE = ROOT / "reports" / "example"
HOSTILE = "<script>alert('pwned')</script>"
MATHTEXT = "laplace-$\\\\frac$"  # not valid matplotlib mathtext: titles must not parse it
SUITE = f"""
[suite]
name = "tiny & <b>bold</b>"
samples = 1000
seed = 7

[[audit]]
name = "{MATHTEXT}"
mechanism = "laplace"
params = {{ epsilon = 1.0 }}

[[audit]]
name = "{HOSTILE}"
mechanism = "laplace-scale-epsilon"
params = {{ epsilon = 0.5 }}
expect = "violation"

[[audit]]
name = "bad-pair"
mechanism = "laplace"
[[audit.pairs]]
name = "too-far"
d0 = [0.0]
d1 = [5.0]
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("html")
    suite, broken = folder / "tiny.toml", folder / "broken.toml"
    suite.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    broken.write_text("[suite\nname = <oops>\n", encoding="utf-8")
    run = run_suites([str(suite), str(broken)], workers=1)
    return build_report(run, command="dpaudit run tiny.toml --out out",
                        exit_status=exit_status(run))


@pytest.fixture(scope="module")
def page(report) -> str:
    return render_html(report, figures=False)


class Rows(HTMLParser):
    """The body rows of the certificate tables: (classes, data-verdict, cell texts)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.rows, self._in_table, self._in_body, self._cell = [], False, False, None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and "certs" in (attrs.get("class") or "").split():
            self._in_table = True
        elif tag == "tbody" and self._in_table:
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.rows.append({"class": (attrs.get("class") or "").split(),
                              "verdict": attrs.get("data-verdict"), "cells": []})
        elif tag == "td" and self._in_body:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1]["cells"].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._in_table = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def external_urls(text: str) -> list[str]:
    """Every src/href/url()/@import that names another address (scheme or //host); an
    embedded PNG (``src="data:image/png;base64,…"``, what the figures are) is not one."""
    text = re.sub(r'src="data:image/png;base64,[A-Za-z0-9+/=]*"', "", text)
    found = re.findall(r"""(?:src|href|action|poster|data)\s*=\s*["']?\s*([a-z][a-z0-9+.-]*:|//)""",
                       text, flags=re.I)
    found += re.findall(r"url\(\s*['\"]?\s*([a-z][a-z0-9+.-]*:|//)", text, flags=re.I)
    found += re.findall(r"@import", text)
    return found


def test_hostile_names_are_escaped(page):
    assert HOSTILE not in page and "<b>bold</b>" not in page
    assert "&lt;script&gt;alert(" in page and "tiny &amp; &lt;b&gt;bold&lt;/b&gt;" in page
    assert page.count("<script") == 1  # the report's own sorting/filtering script


def test_self_contained_with_no_external_address(page):
    assert external_urls(page) == []
    assert "http://" not in page and "https://" not in page
    assert "default-src 'none'" in page  # and the page forbids fetching anything


def test_one_row_per_certificate_and_the_overview_counts_match_the_summary(report, page):
    summary = report.summary
    rows = Rows(page).rows
    assert len(rows) == summary.certificates == len(report.run.records)
    for verdict in ("violation", "consistent", "error"):
        marked = [r for r in rows if f"verdict-{verdict}" in r["class"]]
        assert len(marked) == summary.verdicts[verdict] == \
            sum(1 for r in rows if r["verdict"] == verdict)
    assert summary.verdicts["violation"] >= 1 and summary.verdicts["error"] >= 1
    violation = next(r for r in rows if "verdict-violation" in r["class"])
    # ✓/✗ first; the hostile audit expects its violation: a known bug, not red
    assert violation["cells"][0] == "✓" and violation["cells"][1] == HOSTILE
    assert "expected-violation" in violation["class"]
    assert "unexpected-violation" not in violation["class"]
    assert "detected as expected" in violation["cells"][-2]
    cards = dict((what, n) for n, what in re.findall(
        r'<div class="n">([^<]+)</div><div class="what">([^<]+)', page))
    assert cards["expectations met (audit points)"] == \
        f"{summary.audits_met} / {summary.audits}"
    assert cards["known bugs detected (audit points expecting a violation)"] == "1"
    assert cards["unexpected violations (audit points expected consistent)"] == "0"
    family = sum(s.tests_run for s in report.run.suites if not s.error)
    pairs = len({(r.audit, r.pair_name) for r in report.run.records})
    counts = (f"3 audit points · {pairs} pairs · {family} tests · {summary.certificates} "
              "certificates")
    assert f'<p class="counts"><b>{counts}</b>' in page
    assert f"over {family} tests" in page and f"over {family} certificates" not in page
    # the headline comes first; the glossary defines the words
    assert page.index('class="headline fail"') < page.index('id="overview"')
    assert re.search(r'<span class="status">FAIL</span> 2/3 expectations met — 1 known bug '
                     r'detected, 0 unexpected violations, 2 errors \(suite file ', page)
    assert '<section id="glossary">' in page
    for word in ("audit point", "pair", "test", "certificate"):
        assert f"<dt>{word}</dt>" in page


def test_errors_unmet_expectations_and_certificate_details(report, page):
    errored = [r for r in report.run.records if r.error]
    assert errored and all(str(escape(r.error)) in page for r in errored)
    assert re.search(r'<ul class="errors">.*?<li>[^<]*too-far[^<]*</li>', page, flags=re.S)
    assert "Unmet expectations" in page  # bad-pair errored where it expected consistent
    (suite_error,) = [s.error for s in report.run.suites if s.error]
    assert re.search(r'<ul class="errors">\s*<li>' + re.escape(str(escape(suite_error))),
                     page)
    assert "Not run: " + str(escape(suite_error)) in page
    violation = next(r for r in report.run.records if r.verdict == "violation")
    best = violation.black_box.chosen  # the certifying event, with its bounds
    for number in (best.k_numerator, best.n_denominator):
        assert f"{number}" in page
    assert f"{best.p_numerator_lower:.6g}" in page
    assert f"{best.p_denominator_upper:.6g}" in page
    assert "<math display=\"block\">" in page and "<mi>&#949;</mi>" in page  # b = Δ/ε


def test_claim_math_is_mathml_and_parsing_is_restricted():
    (label, text, math), = claim_math({"expression": "(Eq(beta, epsilon/(2*Delta)),)"})
    assert label == "calibration" and math[0].startswith('<math display="block">')
    assert "<mi>&#946;</mi>" in math[0] and "<mfrac>" in math[0]  # β the symbol, a fraction
    assert expression_mathml("Eq(sigma, sqrt(2*log(1.25/delta))*Delta/epsilon)")
    assert "&pi;" in expression_mathml("Eq(c, pi*x)")[0]  # the constant π
    for hostile in ("__import__('os').system('true')", "x.__class__", "(1).real",
                    "9**9**9**9", "open('f')", "Eq(b, eval(1))", "lambda: 1", "test()",
                    "Eq(b, sympify(x))"):
        assert expression_mathml(hostile) is None, hostile
    assert claim_math({"expression": "<callable>"}) == []


@pytest.mark.parametrize("text, shown", [
    ("factorial(factorial(20))", "<mo>!</mo>"), ("9**999999999", "999999999"),
    ("(Eq(x, gamma(gamma(30))),)", "&#x393;"), ("binomial(10**30, 10**29)", "<mn>10</mn>")])
def test_claim_math_computes_nothing(text, shown):
    """Issue 39, item 11: a results.json whose claim text was ``factorial(factorial(20))`` made
    ``dpaudit report`` hang, since the whitelisted name was evaluated; now an expression whose
    evaluation could cost anything is printed as written."""
    import time

    start = time.perf_counter()
    math = expression_mathml(text)
    assert time.perf_counter() - start < 5.0
    assert math and shown in math[0]


def test_claim_math_keeps_sympys_rendering_of_ordinary_claims():
    assert expression_mathml("x*(alpha/2 - 1/2)")[0].count("<mfrac>") == 2  # 1/2 is a Rational
    assert "<mn>0.5</mn>" in expression_mathml("x + 0.5")[0]


def test_write_html_is_atomic_and_readable(report, tmp_path):
    out = tmp_path / "out" / "report.html"
    assert write_html(report, out, figures=False) == out
    assert [p.name for p in out.parent.iterdir()] == ["report.html"]
    mode = stat.S_IMODE(out.stat().st_mode)
    assert mode & stat.S_IRUSR and mode != 0o600
    before = out.read_text(encoding="utf-8")
    with pytest.raises(AttributeError):
        write_html(object(), out)  # rendering fails: the old file stays whole, no temp left
    assert out.read_text(encoding="utf-8") == before
    assert [p.name for p in out.parent.iterdir()] == ["report.html"]


def test_without_matplotlib_the_page_says_figures_need_the_report_extra(report, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    text = render_html(report)
    assert "<svg" not in text and "dpaudit[report]" in text
    assert len(Rows(text).rows) == report.summary.certificates


def test_figures_that_cannot_be_drawn_at_all_cost_only_the_figures(report, monkeypatch):
    """E.g. a matplotlib left half-imported by a signal: the page without figures, saying
    why."""
    import dpaudit.report.html as html

    def broken(*args, **kwargs):
        raise AttributeError("module 'matplotlib' has no attribute 'get_data_path'")

    monkeypatch.setattr(html, "_attach_figures", broken)
    text = render_html(report)
    assert "The figures could not be drawn: AttributeError: module &#39;matplotlib&#39;" in text
    assert "<svg" not in text and len(Rows(text).rows) == report.summary.certificates


def test_committed_example_is_rendered_from_its_results_json():
    from dpaudit.report.results_file import read_document

    document = read_document(EXAMPLE / "results.json")
    text = (EXAMPLE / "report.html").read_text(encoding="utf-8")
    rows = Rows(text).rows
    assert len(rows) == document["summary"]["certificates"] == len(document["audits"])
    assert all(r["cells"][1].startswith(a["audit"]) for r, a in zip(rows, document["audits"]))
    assert all(r["cells"][0] == ("✓" if a["met_expectation"] else "✗")
               for r, a in zip(rows, document["audits"]))
    assert sum("verdict-violation" in r["class"] for r in rows) == \
        document["summary"]["verdicts"]["violation"]
    assert document["created"] in text and external_urls(text) == []


def _pairs_with_power(report) -> int:
    """Pairs with a power figure: one per pair with a consistent ε(δ) certificate whose
    detectable ε is finite (not one per certificate)."""
    from dpaudit.report.power_figure import has_power

    return sum(1 for p in report.run.points for t in p.tests
               if any(has_power(c) for c in t.certificates))


@pytest.mark.slow
def test_figures_are_inline_svg_with_document_unique_ids(report):
    text = render_html(report)
    assert _pairs_with_power(report) >= 2
    assert text.count("<svg") == len(report.run.curves) + _pairs_with_power(report)
    assert text.count('<figure class="power">') == _pairs_with_power(report)
    assert "<?xml" not in text and "<!DOCTYPE svg" not in text and "<metadata" not in text
    assert external_urls(text) == []
    ids = re.findall(r'\sid="([^"]+)"', text)
    assert len(ids) == len(set(ids))
    for ref in set(re.findall(r'href="#([^"]+)"', text)):
        assert ref in ids, ref
    assert HOSTILE not in text  # figure captions are escaped too


@pytest.mark.slow
def test_a_figure_that_fails_to_draw_costs_only_that_figure(report):
    import dataclasses

    from dpaudit.results.privacy_curve import PrivacyCurveFigure

    record = report.run.records[0]
    # a certified row that is not a CertifiedBound: what no reader lets through, so drawing fails
    broken = PrivacyCurveFigure(suite=record.suite, suite_file=record.suite_file,
                                audit=record.audit, pair="p", mechanism="laplace", sweep=None,
                                certified=[["not a number"]])
    run = dataclasses.replace(report.run, curves=[broken])
    text = render_html(dataclasses.replace(report, run=run))
    assert "The figure could not be drawn: " in text
    assert len(Rows(text).rows) == report.summary.certificates
    assert text.count("<svg") == _pairs_with_power(report)


@pytest.mark.slow
@pytest.mark.parametrize("folder", [EXAMPLE, EXAMPLE.parent / "sgld",
                                    EXAMPLE.parent / "gaussian_mixing" / "audit"],
                         ids=lambda p: p.relative_to(EXAMPLE.parent).as_posix())
def test_committed_reports_render_the_same_from_results_json(folder):
    """Each committed report.html is render_html(read_report(results.json)), figures aside
    (so a template change that is not re-rendered into them fails here)."""
    text = render_html(read_report(folder / "results.json"), figures=False)
    committed = (folder / "report.html").read_text(encoding="utf-8")

    def normal(page: str) -> str:  # the figures aside (matplotlib's output varies by version)
        page = re.sub(r"<figure[^>]*>.*?</figure>", "", page, flags=re.S)
        page = re.sub(r'<h3>Figures</h3>\s*<div class="figs">\s*</div>', "", page)
        return " ".join(page.split())

    assert normal(text) == normal(committed)
    assert committed.count("<svg") > 0 and text.count("<svg") == 0


# -- a real browser ---------------------------------------------------------------------------

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


@pytest.mark.slow
def test_report_in_headless_chromium(report, tmp_path):
    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium binary: install it with `apt-get install -y chromium` "
                    "(Debian/Ubuntu) to run the browser test")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright missing: pip install -e '.[test]'")
    path = write_html(report, tmp_path / "report.html")
    url = path.resolve().as_uri()
    problems, requests = [], []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
                    if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(url)
            page.wait_for_load_state("load")
            assert problems == []
            assert requests == [url]

            # the verdict first, at the top of the page
            headline = page.locator("#headline")
            assert headline.is_visible() and headline.bounding_box()["y"] < 200
            assert headline.inner_text().startswith("FAIL ")

            table = page.locator("table.certs").first
            violation = table.locator("tbody tr.verdict-violation").first
            assert violation.is_visible()
            assert "expected-violation" in violation.get_attribute("class")
            # a known bug detected is not painted as a failure; ✓/✗ is the first column,
            # on screen without scrolling sideways
            background = violation.evaluate("r => getComputedStyle(r).backgroundColor")
            assert background not in ("rgb(253, 236, 234)",), background  # --bad-bg
            assert violation.locator(".badge.expected").inner_text() == "detected as expected"
            mark = violation.locator("td").first
            assert mark.inner_text() == "✓"
            box = mark.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 1300

            def column(index: int) -> list[str]:
                return table.locator(f"tbody tr td:nth-child({index})").all_inner_texts()

            def numbers(index: int) -> list[float]:
                return [float(c.replace("∞", "inf")) for c in column(index) if c != "—"]

            before, header = column(2), table.locator("thead th").nth(6)
            header.locator("button").click()  # ε_LB ascending, unknown (—) last
            assert numbers(7) == sorted(numbers(7)) and column(7)[-1] == "—"
            assert header.get_attribute("aria-sort") == "ascending"
            header.locator("button").click()  # descending, unknown still last
            assert numbers(7) == sorted(numbers(7), reverse=True) and column(7)[-1] == "—"
            assert header.get_attribute("aria-sort") == "descending"
            assert column(2) != before  # the rows moved, not only the numbers

            page.locator("select[data-verdict-for]").first.select_option("violation")
            consistent = table.locator("tbody tr.verdict-consistent")
            assert consistent.count() >= 1
            assert all(not consistent.nth(i).is_visible() for i in range(consistent.count()))
            assert violation.is_visible()
            page.locator("select[data-verdict-for]").first.select_option("unexpected-violation")
            assert not violation.is_visible()
            page.locator("select[data-verdict-for]").first.select_option("expected-violation")
            assert violation.is_visible()
            page.locator("input[data-filter-for]").first.fill("no-such-audit")
            assert not violation.is_visible()
            assert "0 of" in page.locator("[data-count-for]").first.inner_text()
            page.locator("input[data-filter-for]").first.fill("")
            page.locator("select[data-verdict-for]").first.select_option("")

            violation.locator("a").click()  # the row's link opens its audit's <details>
            # the page's hashchange handler opens it: wait for it (bounded), a loaded machine
            # may run the handler after the click returns (seen once in a full run under load)
            page.locator("details.audit[open] .cert .badge.expected").first.wait_for(
                state="visible", timeout=10_000)
            assert page.locator("details.audit[open] math").first.is_visible()
            page.locator("details.audit").evaluate_all("ds => ds.forEach(d => d.open = true)")
            assert page.locator("figure.power svg").first.is_visible()
            assert page.locator("#glossary dt").count() >= 4
            assert problems == [] and requests == [url]
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            browser.close()


def test_summary_md_uses_the_same_vocabulary(report):
    from dpaudit.report.markdown import render_markdown

    text = render_markdown(report)
    family = sum(s.tests_run for s in report.run.suites if not s.error)
    assert f"over {family} tests" in text
    assert f"over {family} certificates" not in text


def test_rendered_from_results_json_is_the_same_page(report, page, tmp_path):
    from dpaudit.report.results_file import write_results

    path = write_results(report, tmp_path / "results.json")  # schema 3, compact
    assert render_html(read_report(path), figures=False) == page


def test_a_fixed_family_size_is_not_called_the_number_of_tests(report):
    import dataclasses

    suites = [s if s.error else dataclasses.replace(s, family_size=s.tests + 10)
              for s in report.run.suites]
    text = render_html(dataclasses.replace(report, run=dataclasses.replace(report.run,
                                                                         suites=suites)),
                       figures=False)
    ran = next(s for s in suites if not s.error)
    assert (f"over a family of {ran.family_size} tests fixed by the suite file, "
            f"{ran.tests} run here") in text
