"""MkDocs hook: the site shows files of the repository that live outside ``docs/``.

One source of truth.  A page includes a Markdown file of the repository (the README, a
``reports/*/README.md``, ``benchmarks/RESULTS.md``) with a line of its own::

    <!-- include: reports/dpsgd/README.md -->

(``<!-- include: PATH level=2 -->`` makes the included file's ``#`` title a ``##`` heading, and
its other headings one level deeper), and a fenced block shows a file of the repository (a CI
configuration) with a line of its own inside the fence::

    --8<-- "examples/ci/github-actions.yml"

and a line ``<!-- glossary -->`` shows the glossary of the reports, the terms of
``dpaudit/report/glossary.py`` (``GLOSSARY``) as a Markdown list: summary.md, report.html and
the documentation read the same words from one place.

Links.  Every relative link, in a page or in what it includes, is read relative to the file it
is written in and rewritten for the page that shows it: to a page of the site (a ``docs/``
file, or the page that includes the linked Markdown file), else to a copy of the linked
repository file served under ``repo/`` (suites, modules, figures, the example report; a folder
is its included README.md, or its ``__init__.py``).  A link to a missing file, to another
folder, or to a Markdown file that no page includes is an error, so ``mkdocs build --strict`` fails on it.

The same functions are what the tests read (tests/docs/): :func:`expand` gives the Markdown a
page shows, :func:`included_files` which repository files a page includes.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import posixpath
import re
import sys
from pathlib import Path

INCLUDE = re.compile(r"^<!-- include: (?P<path>\S+)(?: level=(?P<level>[1-6]))? -->\s*$")
HEADING = re.compile(r"^(#{1,6}) ")
GLOSSARY = re.compile(r"^<!-- glossary -->\s*$")
#: an HTML comment (a test directive) on a line of its own in a list item, indented 2 or 3
COMMENT_IN_ITEM = re.compile(r"^ {2,3}<!--.*-->\s*$")
GLOSSARY_MODULE = "dpaudit/report/glossary.py"
SNIPPET = re.compile(r'^(?P<indent>\s*)--8<-- "(?P<path>[^"]+)"\s*$')
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})")
#: an inline link or image: [text](target "title")
LINK = re.compile(r"(?P<head>!?\[(?:[^\[\]]|\[[^\]]*\])*\]\()(?P<target>[^)\s]+)(?P<tail>(?:\s+\"[^\"]*\")?\))")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
REPO = "repo:/"  # a link already resolved to a repository path
STATIC = "repo"  # where the copies of linked repository files are served

log = logging.getLogger("mkdocs.hooks.repository")


class SiteError(ValueError):
    """A page cannot be shown as written: the message names the file and the link."""


def _is_relative(target: str) -> bool:
    return not (target.startswith(("#", "/", REPO)) or re.match(r"^[a-zA-Z][\w+.-]*:", target))


def _rebase(line: str, source: str) -> str:
    """``line`` (outside code) with each relative link made a ``repo:/`` link, read relative
    to ``source`` (a repository path)."""
    def link(match: re.Match) -> str:
        target = match["target"]
        if not _is_relative(target):
            return match[0]
        path, _, fragment = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        if resolved.startswith(".."):
            raise SiteError(f"{source}: link {target!r} leaves the repository")
        return f"{match['head']}{REPO}{resolved}{'#' + fragment if fragment else ''}{match['tail']}"

    spans = [code.span() for code in CODE_SPAN.finditer(line)]

    def outside_code(match: re.Match) -> str:  # `[a](b)` inside a code span stays as it is
        inside = any(start <= match.start() < end for start, end in spans)
        return match[0] if inside else link(match)

    return LINK.sub(outside_code, line)


def glossary(repo: Path) -> str:
    """The terms of :data:`GLOSSARY_MODULE` as a Markdown list (``- **word** — meaning``).

    The module is loaded from its file (it imports nothing of dpaudit), so the site shows the
    glossary of the checkout it is built from, whatever dpaudit the environment has.
    """
    spec = importlib.util.spec_from_file_location("_dpaudit_docs_glossary", repo / GLOSSARY_MODULE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    except OSError as exc:
        raise SiteError(f"cannot show the glossary: {exc.strerror or exc}") from None
    finally:
        del sys.modules[spec.name]
    escape = str.maketrans({"[": r"\[", "]": r"\]", "*": r"\*", "_": r"\_"})
    return "\n".join(f"- **{term.word}** — {term.meaning.translate(escape)}"
                     for term in module.GLOSSARY)


def expand(source: str, repo: Path, _seen: tuple[str, ...] = (), _shift: int = 0) -> str:
    """The Markdown of the repository file ``source`` as the site shows it: includes and
    snippets expanded, every relative link a ``repo:/PATH`` link.

    Args:
      source: a path relative to the repository root, "/"-separated (``docs/ci.md``).
      repo: the repository root.

    Raises:
      SiteError: an included file is missing or includes itself.
    """
    if source in _seen:
        raise SiteError(f"{' -> '.join(_seen + (source,))}: an include cycle")
    try:
        text = (repo / source).read_text(encoding="utf-8")
    except OSError as exc:
        where = f"{_seen[-1]}: " if _seen else ""
        raise SiteError(f"{where}cannot include {source}: {exc.strerror or exc}") from None
    out, fence, pad = [], None, ""
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened["fence"]
            # a fence in a list item indented as CommonMark allows (2 or 3 spaces) is indented
            # to the 4 spaces Python-Markdown needs to keep it inside the item (and so is an
            # HTML comment line before it: COMMENT_IN_ITEM)
            pad = " " * (4 - len(opened["indent"])) if len(opened["indent"]) in (2, 3) else ""
            out.append(pad + line)
            continue
        if fence is not None:
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                fence = None
            elif snippet := SNIPPET.match(line):
                path = snippet["path"]
                try:
                    lines = (repo / path).read_text(encoding="utf-8").splitlines()
                except OSError as exc:
                    raise SiteError(f"{source}: cannot show {path}: "
                                    f"{exc.strerror or exc}") from None
                out.extend(pad + snippet["indent"] + item if item else item for item in lines)
                continue
            out.append(pad + line if line else line)
            continue
        if GLOSSARY.match(line):
            out.append(glossary(repo))
            continue
        if COMMENT_IN_ITEM.match(line):  # as a fence in a list item: kept inside the item
            line = " " * (4 - len(line) + len(line.lstrip(" "))) + line
        if include := INCLUDE.match(line):
            shift = _shift + int(include["level"] or 1) - 1
            out.append(expand(include["path"], repo, _seen + (source,), shift))
            continue
        if _shift and (heading := HEADING.match(line)):
            line = "#" * min(6, len(heading[1]) + _shift) + line[len(heading[1]):]
        out.append(_rebase(line, source))
    return "\n".join(out) + "\n"


def included_files(source: str, repo: Path) -> list[str]:
    """The repository files ``source`` includes (its include lines, recursively, in order)."""
    found = []
    text = (repo / source).read_text(encoding="utf-8")
    fence = None
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened["fence"]
        elif fence is not None:
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                fence = None
        elif include := INCLUDE.match(line):
            found.append(include["path"])
            found.extend(included_files(include["path"], repo))
    return found


class SiteMap:
    """Where each repository path is shown: the pages under ``docs/``, the Markdown files they
    include, and the copies of other linked files (under :data:`STATIC`)."""

    def __init__(self, repo: Path, docs: str, pages: list[str]):
        self.repo, self.docs = repo, docs.rstrip("/")
        self.pages = {f"{self.docs}/{page}": page for page in pages}
        #: included repository Markdown file -> the page (src_uri) that shows it
        self.shown_by: dict[str, str] = {}
        for page in pages:
            for path in included_files(f"{self.docs}/{page}", repo):
                self.shown_by.setdefault(path, page)
        #: repository file -> src_uri of its copy
        self.copies: dict[str, str] = {}

    def target(self, path: str, where: str) -> str:
        """The src_uri that shows the repository path ``path`` (a link written in ``where``)."""
        if path in self.pages:
            return self.pages[path]
        if path in self.shown_by:
            return self.shown_by[path]
        full = self.repo / path
        if full.is_dir():
            readme = posixpath.join(path, "README.md")
            if readme in self.shown_by:
                return self.shown_by[readme]
            if (full / "__init__.py").is_file():  # a package: its docstring says what it holds
                return self.target(posixpath.join(path, "__init__.py"), where)
            raise SiteError(f"{where}: link to the folder {path}/, which has no README.md "
                            f"that a page includes and is no package: link a file instead")
        if not full.is_file():
            raise SiteError(f"{where}: link to {path}, which does not exist")
        if path.endswith(".md"):
            raise SiteError(f"{where}: link to {path}, which no page includes: add a page "
                            f"with '<!-- include: {path} -->'")
        return self.copies.setdefault(path, f"{STATIC}/{path}")

    def resolve(self, markdown: str, page: str) -> str:
        """``markdown`` (from :func:`expand`) with each ``repo:/`` link made relative to the
        page ``page`` (a src_uri)."""
        def link(match: re.Match) -> str:
            path, _, fragment = match["target"][len(REPO):].partition("#")
            uri = self.target(path, f"{self.docs}/{page}")
            relative = posixpath.relpath(uri, posixpath.dirname(page) or ".")
            anchor = f"#{fragment}" if fragment else ""
            return f"{match['head']}{relative}{anchor}{match['tail']}"

        return LINK.sub(lambda m: link(m) if m["target"].startswith(REPO) else m[0], markdown)


# -- the MkDocs events --------------------------------------------------------------------------

_SITE: SiteMap | None = None


def _repo(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_files(files, config):
    """Build the site map, and add a copy of every repository file a page links to."""
    from mkdocs.structure.files import File

    global _SITE
    repo = _repo(config)
    docs = Path(config.docs_dir).resolve().relative_to(repo).as_posix()
    pages = [f.src_uri for f in files.documentation_pages()]
    site = SiteMap(repo, docs, pages)
    for page in pages:  # resolve every link once now, so the copies exist before rendering
        try:
            site.resolve(expand(f"{docs}/{page}", repo), page)
        except SiteError as exc:
            log.warning(str(exc))
    for path, uri in sorted(site.copies.items()):
        files.append(File.generated(config, uri, abs_src_path=os.fspath(repo / path)))
    _SITE = site
    return files


def on_page_markdown(markdown, page, config, files):
    """The page's Markdown with includes expanded and links rewritten (module docstring)."""
    site = _SITE
    source = f"{site.docs}/{page.file.src_uri}"
    try:
        return site.resolve(expand(source, site.repo), page.file.src_uri)
    except SiteError as exc:
        log.warning(str(exc))
        return markdown
