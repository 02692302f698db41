"""The CI examples in examples/ci/, for a user's project.

Read as files: both parse, call only dpaudit subcommands and flags that exist (walking
``dpaudit.cli.build_parser()``), install dpaudit from ``$DPAUDIT_SPEC`` (a pinned git commit
or wheel, never this repository) with a pip cache keyed on a file every repository has, run
pytest and ``dpaudit run`` with the baseline, keep the reports and the baseline as
artefacts and post summary.md.

Run (``slow``): the workflows' shell steps, as the CI systems run them, in a throwaway project
made by ``dpaudit init``, with ``python``, ``pip`` and ``dpaudit`` those of a fresh virtual
environment (tests/installed.py) and ``DPAUDIT_SPEC`` pointing at the wheel built from this
checkout; ``gh`` and ``curl`` are stubs that keep what they were asked to post; the scaffold's
sample sizes are cut (tests/end_to_end/test_wheel.py runs it as written).  The GitLab
job runs first in a project holding nothing but the scaffold (no pyproject.toml, no
requirements.txt): its first run has no baseline and creates one.  Then the mechanism is broken
and the project gets a pyproject.toml, and the GitHub workflow's run is red: pytest fails
with the certificate, ``dpaudit run`` still runs, reports the unmet expectation and the
regression against that baseline and leaves it as it was, and the summary is posted anyway.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pytest
import yaml

from dpaudit.cli.commands import build_parser
from dpaudit.report.results_file import read_document
from tests.support import REPO

CI = REPO / "examples" / "ci"
GITHUB = CI / "github-actions.yml"
GITLAB = CI / "gitlab-ci.yml"
#: where each file is to be copied in the user's repository (examples/ci/README.md)
GITHUB_TARGET = ".github/workflows/dpaudit.yml"
GITLAB_TARGET = ".gitlab-ci.yml"
BASH = shutil.which("bash") or "/bin/bash"
#: what `dpaudit run --out DIR` writes into DIR (diff.md only with --baseline)
RUN_WRITES = {"results.json", "summary.md", "report.html", "junit.xml", "diff.md"}


def github() -> dict:
    return yaml.safe_load(GITHUB.read_text(encoding="utf-8"))


def gitlab() -> dict:
    return yaml.safe_load(GITLAB.read_text(encoding="utf-8"))


def github_steps() -> list[dict]:
    return [step for job in github()["jobs"].values() for step in job["steps"]]


def gitlab_jobs() -> dict:
    return {name: job for name, job in gitlab().items()
            if isinstance(job, dict) and "script" in job}


def shell_scripts() -> list[str]:
    """Every shell script of both files: GitHub ``run:`` steps, GitLab script lists."""
    scripts = [step["run"] for step in github_steps() if "run" in step]
    for job in gitlab_jobs().values():
        for key in ("before_script", "script", "after_script"):
            scripts.extend(job.get(key, []))
    return scripts


def command_lines(program: str) -> list[list[str]]:
    """The argument lists (after the program) of every ``program …`` line in the scripts;
    ``python -m program`` counts."""
    commands = []
    for script in shell_scripts():
        for line in script.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words[:2] == ["python", "-m"]:
                words = words[2:]
            if words and PurePosixPath(words[0]).name == program:
                commands.append(words[1:])
    return commands


def dpaudit_commands() -> list[list[str]]:
    return command_lines("dpaudit")


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def unknown_flags() -> set[tuple[str, str]]:
    """(subcommand, flag) of every flag a workflow uses that the parser does not know."""
    commands = subparsers(build_parser())
    missing = set()
    for args in dpaudit_commands():
        assert args and args[0] in commands, f"dpaudit {' '.join(args)}: unknown subcommand"
        known = {o for a in commands[args[0]]._actions for o in a.option_strings}
        missing |= {(args[0], a.split("=", 1)[0]) for a in args[1:]
                    if a.startswith("-") and a.split("=", 1)[0] not in known}
    return missing


def option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def run_out_dirs() -> set[str]:
    return {option(args, "--out").rstrip("/") for args in dpaudit_commands() if args[0] == "run"}


def baselines() -> set[str]:
    return {option(args, "--baseline") for args in dpaudit_commands() if args[0] == "run"}


def pytest_junit() -> set[str]:
    return {a.split("=", 1)[1] for args in command_lines("pytest") for a in args
            if a.startswith("--junitxml=")}


def spec_defaults() -> set[str]:
    return {github()["env"]["DPAUDIT_SPEC"], gitlab()["variables"]["DPAUDIT_SPEC"]}


# -- the files as read ------------------------------------------------------------------------

def test_both_files_parse_and_run_pytest_and_the_suites_with_the_baseline():
    assert github()["jobs"] and gitlab_jobs()
    on = github().get("on", github().get(True))  # YAML 1.1 reads the key `on` as True
    assert "pull_request" in on
    runs = [a for a in dpaudit_commands() if a[0] == "run"]
    assert len(runs) == 2  # one per CI system
    for args in runs:
        assert args[1] == "audits/" and "--out" in args and "--update-baseline" in args
    assert baselines() == {"reports/baseline/results.json"}
    assert len(command_lines("pytest")) == 2 and len(pytest_junit()) == 1


def test_workflow_subcommands_and_flags_exist():
    assert unknown_flags() == set()


def test_dpaudit_is_installed_from_the_pinned_spec_never_from_this_repository():
    installs = [args for args in command_lines("pip") if args[:1] == ["install"]]
    dpaudit_installs = [args for args in installs if "$DPAUDIT_SPEC" in args]
    assert len(dpaudit_installs) == 2 and all("pytest" in args for args in dpaudit_installs)
    assert not any(a.startswith((".[", "dpaudit")) for args in installs for a in args)
    (default,) = spec_defaults()  # the same pin in both files
    requirement, _, url = default.partition(" @ ")
    assert requirement == "dpaudit[report]"  # report.html's figures need matplotlib
    assert url.startswith("git+https://") and url.rsplit("@", 1)[1]  # pinned to a commit


def test_the_pip_cache_is_keyed_on_a_file_every_repository_has():
    (setup,) = [s for s in github_steps() if str(s.get("uses")).startswith("actions/setup-python")]
    assert setup["with"]["cache"] == "pip"
    assert setup["with"]["cache-dependency-path"] == GITHUB_TARGET  # the workflow itself
    (job,) = gitlab_jobs().values()
    assert job["cache"]["key"]["files"] == [GITLAB_TARGET]


def artefact_paths() -> dict[str, list[str]]:
    paths = {"github": [], "gitlab": []}
    for step in github_steps():
        if str(step.get("uses", "")).startswith("actions/upload-artifact"):
            paths["github"].extend(p.strip() for p in step["with"]["path"].splitlines()
                                   if p.strip())
    for job in gitlab_jobs().values():
        paths["gitlab"].extend(job["artifacts"]["paths"])
    return paths


def test_the_reports_and_the_baseline_are_kept_as_artefacts_whatever_the_outcome():
    (out,) = run_out_dirs()
    (baseline,) = baselines()
    (junit,) = pytest_junit()
    for paths in artefact_paths().values():
        assert set(paths) == {f"{out}/", junit, baseline}
    (job,) = gitlab_jobs().values()
    assert job["artifacts"]["when"] == "always"
    assert job["artifacts"]["reports"]["junit"] == [f"{out}/junit.xml", junit]
    upload = [s for s in github_steps() if "upload-artifact" in str(s.get("uses"))]
    assert upload and all(s.get("if") == "always()" for s in upload)


def test_the_posted_summary_is_the_runs():
    (out,) = run_out_dirs()
    summary = f"{out}/summary.md"
    comment = [s for s in github_steps() if "gh pr comment" in s.get("run", "")]
    # comment.md: diff.md and summary.md cut to fit the platform's limit (issue 39, item 10)
    assert len(comment) == 1 and f"{out}/results.json --format comment" in comment[0]["run"]
    assert f"--body-file - < {out}/comment.md" in comment[0]["run"]
    assert comment[0]["continue-on-error"] is True
    assert any(summary in s.get("run", "") and "GITHUB_STEP_SUMMARY" in s.get("run", "")
               for s in github_steps())
    note = "\n".join(s for j in gitlab_jobs().values() for s in j.get("after_script", []))
    assert summary in note and "body@-" in note and f"< {out}/comment.md" in note
    assert "--format comment --comment-limit 1000000" in note
    assert "merge_requests/$CI_MERGE_REQUEST_IID/notes" in note
    assert "DPAUDIT_GITLAB_TOKEN" in note and "DPAUDIT_GITLAB_TOKEN" in GITLAB.read_text()


def test_no_expression_is_pasted_into_a_shell_script():
    # ${{ … }} in a run: script is a script injection; step env: is the place for them
    assert not any("${{" in script for script in shell_scripts())


# -- the files as run -------------------------------------------------------------------------

#: the values the run gives the GitHub expressions of the workflow's step ``env:``
GITHUB_EXPRESSIONS = {"github.token": "token-of-the-run", "github.repository": "me/my-project",
                      "github.event.pull_request.number": "7"}

#: the GitHub step conditions the workflow uses, for a pull_request run: condition ->
#: (step outcomes so far, project) -> whether the step runs
GITHUB_CONDITIONS = {
    None: lambda outcomes, project: all(o == "success" for o in outcomes.values()),
    "always()": lambda outcomes, project: True,
    "success() || steps.pytest.outcome == 'failure'":
        lambda outcomes, project: all(o == "success" or step == "pytest"
                                      for step, o in outcomes.items()),
    "always() && github.event_name == 'pull_request' && hashFiles('reports/ci/summary.md') "
    "!= ''": lambda outcomes, project: (project / "reports/ci/summary.md").is_file(),
}

#: ``gh`` and ``curl`` for the run: record the arguments, and standard input as the body
STUB = """#!/usr/bin/env bash
printf '%s\\n' "$@" > "$STUBS/$(basename "$0").args"
cat > "$STUBS/$(basename "$0").body"
"""


@dataclass
class CIRun:
    """One CI job run in ``project``: each step's (name, exit status), stubs' records."""

    project: Path
    stubs: Path
    statuses: list[tuple[str, int]] = field(default_factory=list)
    output: str = ""

    def posted(self, program: str) -> tuple[list[str], str]:
        args = (self.stubs / f"{program}.args").read_text(encoding="utf-8").splitlines()
        return args, (self.stubs / f"{program}.body").read_text(encoding="utf-8")


def stubs_dir(base: Path) -> Path:
    stubs = base / "stubs"
    stubs.mkdir(parents=True)
    for program in ("gh", "curl"):
        (stubs / program).write_text(STUB, encoding="utf-8")
        (stubs / program).chmod(0o755)
    return stubs


def bash(script: str, *, cwd: Path, env: dict[str, str], timeout: float = 300
         ) -> subprocess.CompletedProcess:
    """``script`` as both CI systems run it: bash with errexit and pipefail."""
    return subprocess.run([BASH, "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def job_environment(venv, stubs: Path, variables: dict[str, str]) -> dict[str, str]:
    """The venv's environment (its bin first on PATH: the CI image's python), the stubs before
    it, ``variables`` and ``DPAUDIT_SPEC`` pointing at the wheel."""
    env = dict(venv.env)
    env["PATH"] = os.pathsep.join([str(stubs), env["PATH"]])
    env.update(variables, CI="true", STUBS=str(stubs), DPAUDIT_SPEC=venv.spec)
    return env


def run_github(venv, project: Path, stubs: Path) -> CIRun:
    """The GitHub workflow's job as a pull_request run: ``run:`` steps in bash; ``uses:``
    steps checked (the cache's key file exists) or skipped (checkout, upload)."""
    workflow = github()
    summary = project.parent / "github-step-summary.md"
    summary.touch()
    ci = CIRun(project, stubs)
    outcomes: dict[str, str] = {}
    for number, step in enumerate(s for job in workflow["jobs"].values() for s in job["steps"]):
        name = step.get("id") or step.get("name") or step.get("uses")
        assert step.get("if") in GITHUB_CONDITIONS, f"unknown condition {step.get('if')!r}"
        if not GITHUB_CONDITIONS[step.get("if")](outcomes, project):
            continue
        if "uses" in step:
            for key_file in str(step.get("with", {}).get("cache-dependency-path", "")).split():
                assert (project / key_file).is_file(), key_file
            continue
        variables = dict(workflow.get("env", {}), GITHUB_STEP_SUMMARY=str(summary),
                         GITHUB_ACTIONS="true", GITHUB_EVENT_NAME="pull_request")
        for key, value in step.get("env", {}).items():
            expression = str(value).removeprefix("${{").removesuffix("}}").strip()
            variables[key] = GITHUB_EXPRESSIONS[expression]
        result = bash(step["run"], cwd=project,
                      env=job_environment(venv, stubs, variables))
        ci.output += f"--- step {number}: {name} (exit {result.returncode})\n" \
                     f"{result.stdout}{result.stderr}"
        ci.statuses.append((name, result.returncode))
        outcomes[name] = "success" if result.returncode == 0 or step.get(
            "continue-on-error") else "failure"
    return ci


def run_gitlab(venv, project: Path, stubs: Path) -> CIRun:
    """The GitLab job as a merge request pipeline: ``script`` in one shell, then
    ``after_script`` in another, whatever the script's status."""
    config = gitlab()
    (name, job), = gitlab_jobs().items()
    assert {"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'} in job["rules"]
    ci_variables = {"CI_PROJECT_DIR": str(project), "CI_PIPELINE_SOURCE": "merge_request_event",
                    "CI_API_V4_URL": "https://gitlab.example/api/v4", "CI_PROJECT_ID": "42",
                    "CI_MERGE_REQUEST_IID": "3", "DPAUDIT_GITLAB_TOKEN": "token-of-the-run",
                    "GITLAB_CI": "true"}
    variables = dict(ci_variables)
    for key, value in {**config.get("variables", {}), **job.get("variables", {})}.items():
        variables[key] = value.replace("$CI_PROJECT_DIR", str(project))
    env = job_environment(venv, stubs, variables)
    ci = CIRun(project, stubs)
    for part in ("script", "after_script"):
        result = bash("\n".join(job[part]), cwd=project, env=env)
        ci.output += f"--- {name} {part} (exit {result.returncode})\n" \
                     f"{result.stdout}{result.stderr}"
        ci.statuses.append((part, result.returncode))
    return ci


#: the scaffold's sample sizes cut to a quarter and a half: the workflows are under test here
SMALLER = {"audits/my_mechanism.toml": ("samples = 200000", "samples = 50000"),
           "tests/test_my_mechanism.py": ("samples=100_000", "samples=50_000")}

#: the bug the second run brings: the noise scale divided by 3 (ε-DP becomes 3ε-DP)
BUG = ("self.scale = (self.clip / self.n_min + self.GRID) / self.epsilon",
       "self.scale = (self.clip / self.n_min + self.GRID) / self.epsilon / 3")

#: a repository with only a pyproject.toml: the project, installable, nothing to install
PYPROJECT = """[project]
name = "my-audited-project"
version = "0.1.0"

[tool.setuptools]
py-modules = ["my_mechanism"]
"""


@pytest.mark.slow
def test_the_workflows_run_in_a_new_project_first_green_then_red(dpaudit_venv, tmp_path):
    project = tmp_path / "my-project"
    project.mkdir()
    dpaudit_venv.run(["dpaudit", "init", "."], cwd=project)
    for name, (before, after) in SMALLER.items():  # tests/end_to_end/test_wheel.py runs them
        path = project / name                          # as written
        assert before in path.read_text(encoding="utf-8"), name
        path.write_text(path.read_text(encoding="utf-8").replace(before, after), encoding="utf-8")
    (project / PurePosixPath(GITLAB_TARGET)).write_bytes(GITLAB.read_bytes())
    baseline = project / "reports/baseline/results.json"

    # GitLab, the first run of a project with nothing but the scaffold: green, no baseline yet
    lab = run_gitlab(dpaudit_venv, project, stubs_dir(tmp_path / "gitlab"))

    assert lab.statuses == [("script", 0), ("after_script", 0)], lab.output
    assert "1 passed" in lab.output and "PASS — 2/2 expectations met" in lab.output
    assert baseline.read_bytes() == (project / "reports/ci/results.json").read_bytes()
    args, body = lab.posted("curl")
    assert args[-1] == "https://gitlab.example/api/v4/projects/42/merge_requests/3/notes"
    assert "PRIVATE-TOKEN: token-of-the-run" in args and "body@-" in args
    assert body.startswith("# No baseline") and "was written there as the baseline" in body
    assert (project / "reports/ci/summary.md").read_text(encoding="utf-8") in body
    kept = artefact_paths()["gitlab"]
    assert all((project / p).exists() for p in kept), kept
    assert {p.name for p in (project / "reports/ci").iterdir()} >= RUN_WRITES
    assert (project / "reports/pytest/junit.xml").is_file()

    # GitHub, a pull request that breaks the mechanism, in a project that now has a
    # pyproject.toml (installed by the workflow) and the committed baseline
    accepted = baseline.read_bytes()
    source = project / "my_mechanism.py"
    assert BUG[0] in source.read_text(encoding="utf-8")
    source.write_text(source.read_text(encoding="utf-8").replace(*BUG), encoding="utf-8")
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (project / PurePosixPath(GITHUB_TARGET)).parent.mkdir(parents=True)
    (project / PurePosixPath(GITHUB_TARGET)).write_bytes(GITHUB.read_bytes())
    try:
        hub = run_github(dpaudit_venv, project, stubs_dir(tmp_path / "github"))
    finally:
        dpaudit_venv.run(["python", "-m", "pip", "uninstall", "-y", "my-audited-project"],
                         cwd=tmp_path, check=False)

    statuses = dict(hub.statuses)
    assert statuses.pop("pytest") == 1 and statuses.pop("dpaudit run, against the baseline") == 1
    assert set(statuses.values()) == {0}, hub.output  # install, job page, comment
    assert "Successfully installed my-audited-project" in hub.output  # the pyproject.toml's
    assert "1 failed" in hub.output and "violation" in hub.output
    results = read_document(project / "reports/ci/results.json")
    assert results["summary"]["exit_status"] == 1
    assert {o["audit"] for o in results["summary"]["unmet_expectations"]} == {
        "clipped-mean-eps1", "clipped-mean-eps0.5"}
    assert "baseline: 0 regression(s)" not in hub.output and "regression: " in hub.output
    assert baseline.read_bytes() == accepted  # a red run is never the baseline
    args, body = hub.posted("gh")
    assert args == ["pr", "comment", "7", "--body-file", "-"]
    diff = (project / "reports/ci/diff.md").read_text(encoding="utf-8")
    assert body.startswith(diff) and body.endswith(
        (project / "reports/ci/summary.md").read_text(encoding="utf-8"))
    page = (tmp_path / "github-step-summary.md").read_text(encoding="utf-8")
    assert diff in page
    assert all((project / p).exists() for p in artefact_paths()["github"])


def test_the_install_step_refuses_the_placeholder_spec(tmp_path):
    github_install = next(s["run"] for s in github_steps() if "$DPAUDIT_SPEC" in s.get("run", ""))
    gitlab_script = "\n".join(next(iter(gitlab_jobs().values()))["script"])
    for system, spec, script in [("github", github()["env"]["DPAUDIT_SPEC"], github_install),
                                 ("gitlab", gitlab()["variables"]["DPAUDIT_SPEC"], gitlab_script)]:
        env = dict(os.environ, DPAUDIT_SPEC=spec, PATH=str(stubs_dir(tmp_path / system)))
        result = bash(script, cwd=tmp_path, env=env, timeout=60)  # no python on PATH either
        assert result.returncode == 1 and "set DPAUDIT_SPEC" in result.stdout, result
        assert "python" not in result.stderr  # refused before pip was called
