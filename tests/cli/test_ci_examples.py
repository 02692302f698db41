"""The CI examples in examples/ci/ parse, call only dpaudit subcommands and flags that exist
(walking ``dpaudit.cli.build_parser()``), and keep as artefacts and post only files that
``dpaudit run`` writes into its ``--out`` directory."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path, PurePosixPath

import yaml

from dpaudit.cli.commands import build_parser
from tests.support import REPO

CI = REPO / "examples" / "ci"
GITHUB = CI / "github-actions.yml"
GITLAB = CI / "gitlab-ci.yml"
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


def dpaudit_commands() -> list[list[str]]:
    """The argument lists of every ``dpaudit …`` command line in the scripts."""
    commands = []
    for script in shell_scripts():
        for line in script.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and PurePosixPath(words[0]).name == "dpaudit":
                commands.append(words[1:])
    return commands


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


def run_out_dirs() -> set[str]:
    outs = set()
    for args in dpaudit_commands():
        if args[0] == "run":
            outs.add(args[args.index("--out") + 1].rstrip("/"))
    return outs


def test_both_files_parse_and_run_the_suites():
    assert github()["jobs"] and gitlab_jobs()
    on = github().get("on", github().get(True))  # YAML 1.1 reads the key `on` as True
    assert "pull_request" in on
    runs = [a for a in dpaudit_commands() if a[0] == "run"]
    assert len(runs) == 2  # one per CI system
    for args in runs:
        assert args[1] == "audits/" and "--baseline" in args and "--out" in args


def test_workflow_subcommands_and_flags_exist():
    assert unknown_flags() == set()


def artefact_paths() -> list[str]:
    paths = []
    for step in github_steps():
        if str(step.get("uses", "")).startswith("actions/upload-artifact"):
            paths.extend(p.strip() for p in step["with"]["path"].splitlines() if p.strip())
    for job in gitlab_jobs().values():
        paths.extend(job["artifacts"]["paths"])
        paths.append(job["artifacts"]["reports"]["junit"])
    return paths


def test_artefacts_are_files_dpaudit_run_writes():
    (out,) = run_out_dirs()
    paths = artefact_paths()
    assert {"report.html", "junit.xml"} <= {PurePosixPath(p).name for p in paths}
    for path in paths:
        assert str(PurePosixPath(path).parent) == out, path
        assert PurePosixPath(path).name in RUN_WRITES, path
    assert all(j["artifacts"]["when"] == "always" for j in gitlab_jobs().values())
    upload = [s for s in github_steps() if "upload-artifact" in str(s.get("uses"))]
    assert upload and all(s.get("if") == "always()" for s in upload)


def test_the_posted_summary_is_the_runs():
    (out,) = run_out_dirs()
    summary = f"{out}/summary.md"
    comment = [s["run"] for s in github_steps() if "gh pr comment" in s.get("run", "")]
    assert len(comment) == 1 and f"--body-file {summary}" in comment[0]
    assert any(summary in s.get("run", "") and "GITHUB_STEP_SUMMARY" in s.get("run", "")
               for s in github_steps())
    note = "\n".join(s for j in gitlab_jobs().values() for s in j.get("after_script", []))
    assert f"body@{summary}" in note and "merge_requests/$CI_MERGE_REQUEST_IID/notes" in note
    assert "DPAUDIT_GITLAB_TOKEN" in note and "DPAUDIT_GITLAB_TOKEN" in GITLAB.read_text()
