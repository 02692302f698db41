"""Run one documentation source's blocks in order, in a sandbox, as a reader would
(:mod:`tests.docs.blocks` says what is done with each block)."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

from tests.docs.blocks import REPO, SHIPPED, Block, Command, _program, _words, blocks, commands
from tests.docs.blocks import plan_command

TIMEOUT = 600
#: a time in dpaudit's output ("in 1.1 s"), which may differ from the page's
TIME = re.compile(r"\bin \d+(?:\.\d+)? s\b")


def environment() -> dict:
    """This checkout's dpaudit first, the venv's scripts on PATH, a fixed terminal width."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.update(COLUMNS="80", NO_MKDOCS_2_WARNING="1", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_ADDOPTS", None)
    return env


def sandbox(root: Path) -> Path:
    """A directory laid out like a checkout for the commands the pages show: the shipped
    audits/, reports/, benchmarks/ and examples/ (entries linked, so a page can add its own
    files beside them without touching the repository) and ``.venv`` (this interpreter's)."""
    root.mkdir(parents=True, exist_ok=True)
    for name in SHIPPED:
        (root / name).mkdir()
        for entry in (REPO / name).iterdir():
            (root / name / entry.name).symlink_to(entry)
    (root / ".venv").symlink_to(Path(sys.prefix))
    return root


def output_matches(expected: tuple[str, ...], actual: str) -> str | None:
    """None when every shown line (``...`` aside) is a line of ``actual``, in order, and a
    first shown line is the first line; else what is missing."""
    lines = [TIME.sub("in … s", line.rstrip()) for line in actual.splitlines()]
    shown = [TIME.sub("in … s", line) for line in expected if line.strip()]
    if shown and shown[0] != "..." and (not lines or lines[0] != shown[0]):
        return f"the first line is {lines[0] if lines else '(nothing)'!r}, not {shown[0]!r}"
    at = 0
    for line in shown:
        if line == "...":
            continue
        try:
            at = lines.index(line, at) + 1
        except ValueError:
            return f"missing (in this order): {line!r}"
    return None


class Session:
    """The sandbox of one source and the blocks it has run."""

    def __init__(self, source: str, root: Path):
        self.source, self.root, self.env = source, sandbox(root), environment()

    # -- blocks --------------------------------------------------------------------------------

    def run(self) -> None:
        for block in blocks(self.source):
            self.block(block)

    def block(self, block: Block) -> None:
        kind, arg = block.directive or (None, "")
        if kind == "covered":
            return  # tests/docs/test_blocks.py checks that the named test reads this source
        if kind == "file":
            return self.write(block, arg)
        if kind == "refused":
            return self.write(block, arg, refused=True)
        if kind == "tree":
            return self.tree(block)
        if kind == "scheduler":
            return self.python(block, scheduler=arg)
        if kind is not None:
            raise AssertionError(f"{block.where}: unknown directive {kind!r}")
        if block.lang == "python":
            return self.python(block)
        if block.lang == "toml":
            return self.suite(block, self.root / f".docs-block-{block.line}.toml")
        if block.lang == "yaml":
            yaml.safe_load(block.text)
            return None
        if block.lang in ("sh", "console"):
            for command in commands(block):
                self.command(block, command)
            return None
        raise AssertionError(f"{block.where}: a {block.lang or 'plain'} block with no "
                             f"<!-- test: ... --> saying what tests it")

    def write(self, block: Block, relative: str, refused: bool = False) -> None:
        path = (self.root / relative).resolve()
        assert path.is_relative_to(self.root.resolve()), f"{block.where}: {relative} escapes"
        assert not refused or path.suffix == ".toml", f"{block.where}: refused: a suite file"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.text, encoding="utf-8")
        if path.suffix == ".py":
            compile(block.text, str(path), "exec")
        elif path.suffix == ".toml":
            self.suite(block, path, refused=refused)

    def suite(self, block: Block, path: Path, refused: bool = False) -> None:
        if not path.exists():
            path.write_text(block.text, encoding="utf-8")
        done = self.sh(f"{sys.executable} -c 'import sys; from dpaudit.suite.spec import "
                       f"load_suite; load_suite(sys.argv[1])' {path}")
        if refused:
            assert done.returncode != 0 and "SpecError" in done.stdout, (
                f"{block.where}: the suite is shown as refused, but it parses:\n{done.stdout}")
        else:
            assert done.returncode == 0, f"{block.where}: the suite does not parse:\n{done.stdout}"

    def python(self, block: Block, scheduler: str = "") -> None:
        script = self.root / f".docs-block-{block.line}.py"
        with self.cluster(scheduler) as address:
            script.write_text(block.text.replace(scheduler, address) if scheduler
                              else block.text, encoding="utf-8")
            done = self.sh(f"{sys.executable} {script.name}")
        assert done.returncode == 0, f"{block.where}: exit {done.returncode}\n{done.stdout[-4000:]}"

    @contextlib.contextmanager
    def cluster(self, address: str):
        if not address:
            yield ""
            return
        from distributed import LocalCluster

        with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster:
            yield cluster.scheduler_address

    def tree(self, block: Block) -> None:
        """Every ``name.py`` and ``name/`` the drawing names exists in the repository (a
        ``file.py:Attr`` is a placeholder, not a name)."""
        def exists(name: str, folder: bool) -> bool:
            found = [REPO / name, *(p for top in ("dpaudit", "proofs", "tests", "docs")
                                    for p in (REPO / top).glob(f"**/{name}"))]
            return any(p.is_dir() if folder else p.is_file() for p in found)

        missing = [name for name in sorted(set(re.findall(r"\b([a-z_]+\.py)\b(?!:)", block.text)))
                   if not exists(name, folder=False)]
        missing += [name + "/" for name in sorted(set(re.findall(r"(?<![\w.])([a-z_]+)/",
                                                                 block.text)))
                    if not exists(name, folder=True)]
        assert not missing, f"{block.where}: the tree names what does not exist: {missing}"

    # -- commands ------------------------------------------------------------------------------

    def sh(self, command: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", command], cwd=self.root, env=self.env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)

    def command(self, block: Block, command: Command) -> None:
        if command.action == "covered":
            return
        if command.action == "run":
            done = self.sh(command.text)
            if block.lang == "console":
                problem = output_matches(command.expected, done.stdout)
                assert problem is None, (f"{block.where}: $ {command.text}\n{problem}\n"
                                         f"--- its output ---\n{done.stdout[-6000:]}")
            else:
                assert done.returncode == 0, (f"{block.where}: {command.text}: exit "
                                              f"{done.returncode}\n{done.stdout[-4000:]}")
            return
        for segment in re.split(r"\s*(?:&&|;)\s*", command.text):
            if segment.strip():
                self.segment(block, segment.strip())

    def segment(self, block: Block, segment: str) -> None:
        """One part of a command that is not run in full: check what can be checked."""
        words = _words(segment)
        program = _program(words)
        where = f"{block.where}: {segment}"
        if plan_command(segment)[0] == "run":
            done = self.sh(segment)
            assert done.returncode == 0, f"{where}: exit {done.returncode}\n{done.stdout[-4000:]}"
        elif program == "pip" or "install" in words[:3]:
            extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
                "optional-dependencies"]
            for word in words:
                if m := re.fullmatch(r"\.\[([\w,-]+)\]", word):
                    unknown = set(m[1].split(",")) - set(extras)
                    assert not unknown, f"{where}: no extra {sorted(unknown)} in pyproject.toml"
        elif program == "dpaudit":
            from dpaudit.cli.commands import build_parser

            try:
                args = build_parser().parse_args(words[1:])
            except SystemExit:
                raise AssertionError(f"{where}: dpaudit's parser refuses it") from None
            for path in getattr(args, "suites", None) or []:  # the shipped suites parse:
                assert (self.root / path).exists(), f"{where}: {path} does not exist"
                # tests/suite/test_spec.py loads every one
        elif program == "pytest":  # pytest's own parser reads the options, on no tests
            empty = self.root / ".docs-empty"
            empty.mkdir(exist_ok=True)
            argv = []
            for word in words:
                if not word.startswith("-") and "/" in word and word.split("/")[0] in SHIPPED:
                    assert (self.root / word).exists(), f"{where}: {word} does not exist"
                    word = empty.name
                argv.append(word)
            done = self.sh(shlex.join(argv + ["--collect-only", "-q", "-p", "no:cacheprovider",
                                              empty.name]))
            assert done.returncode in (0, 5), f"{where}: pytest refuses it\n{done.stdout[-3000:]}"
        elif program == "benchmark":
            script = REPO / words[1]
            assert script.is_file(), f"{where}: no {words[1]}"
            compile(script.read_text(encoding="utf-8"), str(script), "exec")
