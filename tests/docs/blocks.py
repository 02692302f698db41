"""The code blocks the documentation shows, and what the tests do with each.

The documentation is README.md, every page under docs/ (but the API reference, docs/api/,
whose blocks are signatures and docstring fragments generated from the code:
tests/docs/test_api_reference.py) and the repository Markdown files the pages include (``<!-- include: PATH -->``: reports/*/README.md, benchmarks/RESULTS.md; see
docs/hooks/repository.py).  Each of those *sources* is read on its own, and its fenced blocks
form one session, run in order in a sandbox directory of its own (:mod:`tests.docs.session`).

What a block is, by its fence language and by a ``<!-- test: ... -->`` comment on the line
above the fence (invisible in the rendered page):

* ``<!-- test: file PATH -->`` — a file the reader writes: it is written to PATH in the
  sandbox (a ``.py`` file is compiled, a ``.toml`` file is parsed as a suite);
* ``<!-- test: refused PATH -->`` — a suite file shown for the error it gets: it is written to
  PATH and must *not* parse (the commands after it show the message);
* ``<!-- test: covered TEST -->`` — run by another test, named by its path, which reads the
  block from this source (the walkthrough between ``<!-- walkthrough:start/end -->`` is
  covered by tests/end_to_end/test_walkthrough.py);
* ``<!-- test: scheduler ADDRESS -->`` — the block names a Dask scheduler at ADDRESS: the test
  starts a local one and puts its address there;
* ``<!-- test: tree -->`` — a ``text`` block drawing the source tree: every module and
  folder it names exists;
* ``python`` — run as a script in the sandbox; ``toml`` — parsed as a suite file; ``yaml`` —
  parsed; ``sh`` — every command run, each must exit 0; ``console`` — every ``$ command`` run,
  and the lines shown after it must appear in its output, in order (``...`` marks lines left
  out; a time such as ``in 1.1 s`` may differ).

A few commands cost more than the test suite's budget, or must not run inside it: creating a
virtual environment or installing packages (their extras are checked against pyproject.toml),
running a shipped suite in full (the arguments are parsed by dpaudit's own parser and the
suites named exist; tests/suite/test_spec.py parses every shipped suite), ``pytest`` over
shipped suites or the repository's own test suite (pytest parses the options, with dpaudit's
plugin loaded, and collects an empty folder), the benchmark scripts (they exist and
compile), ``git`` and ``mkdocs serve``.  :func:`plan` says which, command by command, and
:func:`tests.docs.test_blocks.test_every_block_is_accounted_for` lists them.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from tests.support import REPO

DOCS = REPO / "docs"
_hooks = importlib.util.spec_from_file_location("docs_hooks_repository",
                                                DOCS / "hooks" / "repository.py")
hooks = importlib.util.module_from_spec(_hooks)
_hooks.loader.exec_module(hooks)

DIRECTIVE = re.compile(r"^\s*<!-- test: (?P<kind>[a-z]+)(?: (?P<arg>.+?))? -->\s*$")
WALKTHROUGH = "<!-- walkthrough:start -->"
#: the shipped directories a command may read (commands naming them are not run in full)
SHIPPED = ("audits", "reports", "benchmarks", "examples")
LANGS = {"python", "toml", "yaml", "sh", "console", "text"}


@dataclass(frozen=True)
class Block:
    """One fenced block of a source."""

    source: str          # repository path, "/"-separated
    line: int            # 1-based line of the opening fence
    lang: str
    text: str            # the content, dedented, snippets expanded
    directive: tuple[str, str] | None = None
    shows: tuple[str, ...] = ()  # the repository files its snippets show

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"


@dataclass(frozen=True)
class Command:
    """One command of an ``sh`` or ``console`` block, and what the test does with it."""

    text: str
    action: str          # "run", "check" or "covered"
    reason: str = ""
    expected: tuple[str, ...] = field(default=())  # console output shown after it


def sources() -> list[str]:
    """README.md, every docs page, and what they include (each once, in a stable order)."""
    pages = ["README.md"] + sorted(p.relative_to(REPO).as_posix() for p in DOCS.rglob("*.md")
                                   if not {"hooks", "api"} & set(p.relative_to(DOCS).parts))
    found = []
    for page in pages:
        for path in [page, *hooks.included_files(page, REPO)]:
            if path not in found:
                found.append(path)
    return found


def blocks(source: str) -> list[Block]:
    """The fenced blocks of one source, in order."""
    lines = (REPO / source).read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        opened = hooks.FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        indent, fence = len(opened["indent"]), opened["fence"]
        lang = lines[i][opened.end():].strip()
        previous = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        directive = None
        if m := DIRECTIVE.match(previous):
            directive = (m["kind"], m["arg"] or "")
        elif previous.strip() == WALKTHROUGH:
            directive = ("covered", "tests/end_to_end/test_walkthrough.py")
        body, j = [], i + 1
        while j < len(lines) and lines[j].strip() != fence:
            body.append(lines[j])
            j += 1
        content, shows = [], []
        for line in body:
            line = line[indent:] if line[:indent].strip() == "" else line
            if snippet := hooks.SNIPPET.match(line):
                shows.append(snippet["path"])
                content.extend((REPO / snippet["path"]).read_text(encoding="utf-8").splitlines())
            else:
                content.append(line)
        out.append(Block(source, i + 1, lang, "\n".join(content) + "\n", directive,
                         tuple(shows)))
        i = j + 1
    return out


# -- commands ---------------------------------------------------------------------------------

#: the README's second command, which .ci/run runs as its last line
CI_RUN = REPO / ".ci" / "run"


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return command.split()


def _program(words: list[str]) -> str:
    name = Path(words[0]).name if words else ""
    if name in ("python", "python3") and words[1:3] == ["-m", "pytest"]:
        return "pytest"
    if name in ("python", "python3") and len(words) > 1 and words[1].startswith("benchmarks/"):
        return "benchmark"
    if name in ("python", "python3") and words[1:3] == ["-m", "venv"]:
        return "venv"
    if name in ("python", "python3") and words[1:3] == ["-m", "pip"]:
        return "pip"
    return name


def _names_shipped(words: list[str]) -> bool:
    """True when an argument is a shipped file or folder (not one the page wrote)."""
    return any(w.split("/")[0] in SHIPPED and (REPO / w).exists()
               for w in words[1:] if not w.startswith("-"))


def plan_command(command: str) -> tuple[str, str]:
    """("run" | "check", why) for one command line (see the module docstring)."""
    if CI_RUN.is_file() and command == CI_RUN.read_text(encoding="utf-8").splitlines()[-1]:
        return "covered", ".ci/run runs it"
    segments = [s for s in re.split(r"\s*(?:&&|;)\s*", command) if s.strip()]
    reasons = []
    for segment in segments:
        words = _words(segment)
        program = _program(words)
        if program in ("venv", "pip", "apt-get") or "install" in words[:3]:
            reasons.append("installs: extras checked against pyproject.toml")
        elif program == "dpaudit" and words[1:2] == ["run"] and _names_shipped(words) \
                and "--only" not in words:
            reasons.append("a shipped suite in full: arguments parsed by dpaudit's parser")
        elif program == "pytest" and "--dpaudit-suites" in words and _names_shipped(words):
            reasons.append("shipped suites as pytest items: pytest parses the options "
                           "(--collect-only, no suite)")
        elif program == "pytest" and not any(w.startswith("tests/test_") for w in words):
            reasons.append("the repository's own test suite: pytest parses the options "
                           "(--collect-only, no test)")
        elif program in ("benchmark", "git", "mkdocs"):
            reasons.append(f"{program}: checked, not run")
    return ("check", "; ".join(dict.fromkeys(reasons))) if reasons else ("run", "")


def commands(block: Block) -> list[Command]:
    """The commands of an ``sh`` or ``console`` block."""
    out: list[Command] = []
    if block.lang == "sh":
        for line in block.text.splitlines():
            if line.strip() and not line.strip().startswith("#"):
                out.append(Command(line.strip(), *plan_command(line.strip())))
    elif block.lang == "console":
        current, expected = None, []
        for line in block.text.splitlines():
            if line.startswith("$ "):
                if current is not None:
                    out.append(Command(current, *plan_command(current), tuple(expected)))
                current, expected = line[2:].strip(), []
            elif current is not None:
                expected.append(line.rstrip())
        if current is not None:
            out.append(Command(current, *plan_command(current), tuple(expected)))
    return out


def describe(block: Block) -> str:
    """One line: what the tests do with ``block`` (the inventory test prints these)."""
    if block.directive:
        kind, arg = block.directive
        return f"{kind} {arg}".strip()
    if block.lang in ("sh", "console"):
        return "; ".join(f"{c.action}{' (' + c.reason + ')' if c.reason else ''}: {c.text}"
                         for c in commands(block))
    return {"python": "run", "toml": "parsed as a suite", "yaml": "parsed"}.get(block.lang, "?")


def is_slow(source: str) -> bool:
    """True when the source's session starts processes (python, sh and console runs, and the
    suite files it parses: each in a fresh ``python -c``, :meth:`Session.suite`)."""
    for block in blocks(source):
        kind, arg = block.directive or (None, "")
        if kind in ("scheduler",) or (kind is None and block.lang in ("python", "toml")):
            return True
        if kind in ("file", "refused") and arg.endswith(".toml"):
            return True
        if kind is None and any(c.action == "run" or "pytest" in c.reason
                                for c in commands(block)):
            return True
    return False
