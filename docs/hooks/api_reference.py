"""The API reference, docs/api/*.md, written from the docstrings as plain Markdown.

One source, read the same everywhere: the pages are Markdown files in the repository, so the
repository view (GitHub, GitLab, an editor) shows the classes, their signatures and their
docstrings' contracts exactly as the site does; nothing needs building to read them.
:data:`PAGES` says what each page documents (modules, with their ``__all__``, and single
objects, under headings); :func:`render_pages` loads the package with griffe (statically,
nothing imported) and writes, for each object,

* an anchor ``<a id="dotted.path"></a>`` and a heading with its name;
* its signature as a Python block (a class: its constructor; a dataclass: its fields);
* its docstring, Google sections (Args, Returns, Raises, Attributes, notes) as Markdown lists,
  Sphinx roles (``:class:`~dpaudit.claims.PureDP```) as links to the entry that documents the
  object (on any page) or as its name in code, reST literals (````x````) as code, literal
  blocks (``::``) as fenced code and simple tables (``=====  =====``) as Markdown tables;
* for a class, its public methods and properties (its own, not inherited) one level below,
  and its class attributes with their ``#:`` comments.

Run ``python docs/hooks/api_reference.py`` after changing a documented docstring;
``tests/docs/test_api_reference.py`` fails, naming this command, when a page is stale.
"""

from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
API = REPO / "docs" / "api"
HEADER = ("<!-- generated from the docstrings by docs/hooks/api_reference.py: do not edit. "
          "Regenerate with `python docs/hooks/api_reference.py`; "
          "tests/docs/test_api_reference.py fails when this page is stale. -->")
ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|obj|exc):`(?P<tilde>~?)(?P<target>[^`]+)`")
ROLE_KIND = re.compile(r"(?:class|func|meth|mod|attr|data|obj|exc):`")
LITERAL = re.compile(r"``(?P<code>[^`]+?)``")
TABLE_RULE = re.compile(r"^=+(?: +=+)+$")
SIGNATURE_WIDTH = 92


@dataclass(frozen=True)
class Text:
    """Markdown written as it is."""
    markdown: str


@dataclass(frozen=True)
class Module:
    """A module: its docstring, then its members (``__all__``, else its public names) or the
    ``members`` listed; ``members=()`` for the docstring alone."""
    path: str
    members: tuple[str, ...] | None = None
    heading: int = 2
    title: bool = False  # a heading with the module's name above its docstring


@dataclass(frozen=True)
class Object:
    """One object (a class, function or attribute) under a heading of ``heading`` level."""
    path: str
    heading: int = 3


@dataclass(frozen=True)
class Page:
    title: str
    parts: tuple = field(default_factory=tuple)


PAGES: dict[str, Page] = {
    "dpaudit.md": Page("`dpaudit`", (
        Text("The names `import dpaudit` gives, one per concept; each is documented where it "
             "is defined (the module is imported on first use, so `import dpaudit` stays "
             "cheap). The pages that follow document the modules behind them: "
             "[`dpaudit.api`](api.md) (the Python API), [`dpaudit.claims`](claims.md), "
             "[`dpaudit.distinguish`](distinguish.md) (the certified lower bound) and "
             "[`dpaudit.stats`](stats.md)."),
        Module("dpaudit", members=()),
        Text("## Mechanisms"),
        Module("dpaudit.mechanisms.declared", heading=3, members=("mechanism",)),
        Module("dpaudit.mechanisms.base", heading=3, members=("Mechanism",)),
        Object("dpaudit.mechanisms.parameters.Parameter"),
        Object("dpaudit.neighbours.pairs.NeighbourPair"),
        Object("dpaudit.neighbours.relations.NeighbourRelation"),
        Object("dpaudit.mechanisms.registry.register"),
        Text("### Capabilities"),
        Module("dpaudit.mechanisms.capabilities", heading=4, members=(
            "LogDensity", "DeterministicQuery", "GreyBoxQuery", "SearchableDatasets",
            "ExactRenyi", "BracketedEpsilon", "ClosedFormSeries", "CalibratedNoise")),
        Text("### Floating-point-safe noise"),
        Module("dpaudit.mechanisms.float_safe", heading=4,
               members=("laplace_on_grid", "gaussian_on_grid")),
        Text("### Library code that releases one output per call"),
        Module("dpaudit.mechanisms.per_call", heading=4, members=("per_call_sampler",)),
        Object("dpaudit.mechanisms.batched.batched_sampler", heading=4),
        Text("### Data"),
        Object("dpaudit.neighbours.categorical.CategoricalRecords", heading=4),
        Object("dpaudit.mechanisms.sampler.with_dataset_space", heading=4),
        Object("dpaudit.mechanisms.keyed_outputs.KeyedOutputs", heading=4),
        Text("### Grey-box replay"),
        Object("dpaudit.replay.run.replay_mechanism", heading=4),
        Text("## Auditing\n\n`audit_mechanism`, `audit_sampler`, `AuditResult` and "
             "`run_suites` are documented in [`dpaudit.api`](api.md); the estimators "
             "`estimate_epsilon_lower_bound`, `estimate_privacy_curve_lower_bound` and their "
             "results in [`dpaudit.distinguish`](distinguish.md); the claims in "
             "[`dpaudit.claims`](claims.md)."),
        Object("dpaudit.check.runner.check_mechanism"),
        Object("dpaudit.spec.coverage.SearchBudget"),
        Object("dpaudit.results.recorded_warnings.DpauditWarning"),
    )),
    "api.md": Page("`dpaudit.api`", (Module("dpaudit.api"),)),
    "claims.md": Page("`dpaudit.claims`", (Module("dpaudit.claims"),)),
    "distinguish.md": Page("`dpaudit.distinguish`", (
        Module("dpaudit.distinguish", members=()),
        Module("dpaudit.distinguish.lower_bound", title=True),
        Module("dpaudit.distinguish.result", title=True),
        Module("dpaudit.distinguish.distinguisher", title=True),
    )),
    "stats.md": Page("`dpaudit.stats`", (Module("dpaudit.stats"),)),
}


def load_package():
    """dpaudit as griffe reads it from the source (nothing imported), Google docstrings."""
    import griffe

    return griffe.load("dpaudit", search_paths=[str(REPO)], docstring_parser="google",
                       resolve_aliases=True, resolve_external=False)


def _final(obj):
    """The object an alias points to (itself when it is none)."""
    seen = 0
    while getattr(obj, "is_alias", False) and seen < 10:
        obj, seen = obj.final_target, seen + 1
    return obj


def _public_members(module) -> list[str]:
    exports = module.exports
    if exports is not None:
        return [str(name) for name in exports]
    return [name for name, member in module.members.items()
            if not name.startswith("_") and not member.is_alias and not member.is_module]


class Reference:
    """Renders the pages: which paths are documented where, and the Markdown of each."""

    def __init__(self, package):
        self.package = package
        self.anchors: dict[str, tuple[str, str]] = {}  # path -> (page, anchor)
        for page, spec in PAGES.items():
            for path, _ in self._entries(spec):
                obj = self._get(path)
                if obj is None:  # made on first use (PEP 562): no object to link into
                    self.anchors.setdefault(path, (page, path))
                    continue
                self.anchors.setdefault(path, (page, path))
                self.anchors.setdefault(_final(obj).path, (page, path))
                if _final(obj).is_class:
                    for name, member in _final(obj).members.items():
                        if not name.startswith("_") and not member.is_alias:
                            self.anchors.setdefault(member.path, (page, member.path))

    def _get(self, path: str):
        """The object at ``path``; None for a name its module exports but makes on first use
        (a PEP 562 ``__getattr__``: nothing to read statically)."""
        parts = path.split(".")
        if len(parts) == 1:
            return self.package
        try:
            return self.package[".".join(parts[1:])]
        except KeyError:
            module = self.package[".".join(parts[1:-1])] if len(parts) > 2 else self.package
            if parts[-1] in (_public_members(module) or ()) and "__getattr__" in module.members:
                return None
            raise

    def _entries(self, spec: Page):
        for part in spec.parts:
            if isinstance(part, Object):
                yield part.path, part.heading
            elif isinstance(part, Module):
                module = self._get(part.path)
                names = part.members if part.members is not None else _public_members(module)
                for name in names:
                    yield f"{part.path}.{name}", part.heading + (1 if part.title else 0)

    # -- text ---------------------------------------------------------------------------------
    def link(self, target: str, scope, page: str, short: bool) -> str:
        title = target.rsplit(".", 1)[-1] if short else target.lstrip(".")
        path = self._resolve(scope, target)
        found = self.anchors.get(path)
        if found is None:
            return f"`{title}`"
        where, anchor = found
        return f"[`{title}`]({'' if where == page else where}#{anchor})"

    def _resolve(self, scope, target: str) -> str:
        target = target.strip().lstrip(".").removesuffix("()")
        if target == "dpaudit" or target.startswith("dpaudit."):
            try:
                return _final(self._get(target)).path
            except (KeyError, ValueError, AttributeError):
                return target
        head, _, rest = target.partition(".")
        while scope is not None:
            member = scope.members.get(head) if hasattr(scope, "members") else None
            if member is not None:
                base = member.target_path if member.is_alias else member.path
                full = f"{base}.{rest}" if rest else base
                try:
                    return _final(self._get(full)).path
                except (KeyError, ValueError, AttributeError):
                    return full
            scope = scope.parent
        return target

    def prose(self, text: str, scope, page: str) -> str:
        """A docstring's text as Markdown (roles, literals, literal blocks, simple tables)."""
        def inline(line: str) -> str:
            line = ROLE.sub(lambda m: self.link(m["target"], scope, page, bool(m["tilde"])),
                            line)
            return LITERAL.sub(lambda m: f"`{m['code']}`", line).replace("\\ ", "")

        # a literal or a role broken across lines is one span: joined before lines are read
        text = re.sub(r"``[^`]+?``|:[a-z]+:`[^`]+`",
                      lambda m: re.sub(r"\s*\n\s*", " ", m[0]), text)
        return "\n".join(_blocks(text.splitlines(), inline))

    # -- objects ------------------------------------------------------------------------------
    def render_page(self, name: str) -> str:
        spec = PAGES[name]
        out = [HEADER, "", f"# {spec.title}", ""]
        for part in spec.parts:
            if isinstance(part, Text):
                out += [part.markdown, ""]
            elif isinstance(part, Object):
                out += self.render_object(part.path, part.heading, name)
            else:
                module = self._get(part.path)
                if part.title:
                    out += [f'<a id="{part.path}"></a>', "",
                            f"{'#' * part.heading} `{part.path}`", ""]
                if module.docstring is not None:
                    out += [self.prose(module.docstring.value, module, name), ""]
                names = part.members if part.members is not None else _public_members(module)
                level = part.heading + (1 if part.title else 0)
                for member in names:
                    out += self.render_object(f"{part.path}.{member}", level, name)
        return "\n".join(_squeeze(out)).rstrip() + "\n"

    def render_object(self, path: str, level: int, page: str) -> list[str]:
        name = path.rsplit(".", 1)[-1]
        out = [f'<a id="{path}"></a>', "", f"{'#' * min(level, 6)} `{name}`", ""]
        if self._get(path) is None:  # made on first use: what the module's __getattr__ says
            module = self._get(path.rsplit(".", 1)[0])
            return out + self.docstring(module.members["__getattr__"], page)
        obj = _final(self._get(path))
        signature = _signature(obj, name)
        if signature:
            out += ["```python", signature, "```", ""]
        if obj.is_class and obj.bases:
            bases = ", ".join(self.link(str(b), obj.parent, page, True) for b in obj.bases)
            out += [f"Bases: {bases}", ""]
        out += self.docstring(obj, page)
        if obj.is_class:
            out += self.class_members(obj, level + 1, page)
        return out

    def docstring(self, obj, page: str) -> list[str]:
        if obj.docstring is None:
            return []
        out = []
        for section in obj.docstring.parse("google", warn_unknown_params=False,
                                           warn_missing_types=False, warnings=False):
            kind = section.kind.value
            if kind == "text":
                out += [self.prose(section.value, obj, page), ""]
            elif kind in ("parameters", "attributes", "other parameters"):
                title = {"parameters": "Args", "attributes": "Attributes",
                         "other parameters": "Other args"}[kind]
                out += [f"**{title}:**", ""]
                out += [_item(f"`{p.name}`", self.prose(p.description, obj, page))
                        for p in section.value]
                out.append("")
            elif kind in ("returns", "yields", "receives"):
                out += [f"**{kind.capitalize()}:**", ""]
                for r in section.value:
                    text = r.description
                    if r.name and ROLE_KIND.match(text):  # "An :class:`X`." read as "An: …"
                        text = f"{r.name} :{text}"
                    elif r.name:
                        text = f"{r.name}: {text}"
                    out.append(_item("", self.prose(text, obj, page)))
                out.append("")
            elif kind in ("raises", "warns"):
                out += [f"**{kind.capitalize()}:**", ""]
                out += [_item(f"`{e.annotation}`", self.prose(e.description, obj, page))
                        for e in section.value]
                out.append("")
            elif kind == "admonition":
                body = self.prose(section.value.description, obj, page)
                out += [f"> **{section.title or section.value.kind}:** " +
                        body.replace("\n", "\n> "), ""]
            elif kind == "examples":
                for sub_kind, text in section.value:
                    lang = "python" if sub_kind.value == "examples" else ""
                    out += ([f"```{lang}", text, "```", ""] if lang else
                            [self.prose(text, obj, page), ""])
            else:  # deprecated and the rarer sections: their text as written
                out += [str(getattr(section, "value", "")), ""]
        return out

    def class_members(self, cls, level: int, page: str) -> list[str]:
        attributes, methods = [], []
        for name, member in cls.members.items():
            if name.startswith("_") or member.is_alias:
                continue
            if member.is_function or "property" in member.labels:
                methods.append(member)
            elif member.is_attribute and "class-attribute" in member.labels \
                    and "dataclass" not in cls.labels:
                attributes.append(member)
        out = []
        if attributes:
            out += ["Class attributes:", ""]
            for a in attributes:
                value = f" = {a.value}" if a.value is not None else ""
                note = _comment(a) or (self.prose(a.docstring.value, cls, page)
                                       if a.docstring else "")
                declared = (f'<a id="{a.path}"></a>`{a.name}'
                            f"{': ' + str(a.annotation) if a.annotation else ''}{value}`")
                out.append(_item(declared, self.prose(note, cls, page) if note else ""))
            out.append("")
        for m in methods:
            out += [f'<a id="{m.path}"></a>', "", f"{'#' * min(level, 6)} `{cls.name}.{m.name}`",
                    ""]
            if m.is_function:
                out += ["```python", _function_signature(m, m.name, drop_self=True), "```", ""]
            elif m.annotation is not None:
                out += [f"Property: `{m.annotation}`", ""]
            out += self.docstring(m, page)
        return out


# -- helpers -------------------------------------------------------------------------------------

def _item(head: str, text: str) -> str:
    text = text.strip()
    lines = text.splitlines() or [""]
    first = f"- {head} — {lines[0]}" if head and lines[0] else f"- {head or lines[0]}"
    return "\n".join([first] + [f"  {line}" if line else "" for line in lines[1:]])


def _comment(attribute) -> str:
    """The ``#:`` comment lines just above an attribute's definition."""
    try:
        lines = Path(attribute.filepath).read_text(encoding="utf-8").splitlines()
    except (OSError, TypeError):
        return ""
    found, index = [], (attribute.lineno or 1) - 2
    while index >= 0 and lines[index].strip().startswith("#:"):
        found.insert(0, lines[index].strip()[2:].strip())
        index -= 1
    return " ".join(found)


def _parameter(p) -> str:
    prefix = {"variadic positional": "*", "variadic keyword": "**"}.get(p.kind.value, "")
    text = prefix + p.name
    if p.annotation is not None:
        text += f": {p.annotation}"
    if p.default is not None and not prefix:
        text += f" = {p.default}" if p.annotation is not None else f"={p.default}"
    return text


def _function_signature(fn, name: str, drop_self: bool = False, returns: bool = True) -> str:
    params = list(fn.parameters)
    if drop_self and params and params[0].name in ("self", "cls"):
        params = params[1:]
    parts, star_done = [], False
    for i, p in enumerate(params):
        kind = p.kind.value
        if kind == "keyword-only" and not star_done:
            parts.append("*")
            star_done = True
        if kind == "variadic positional":
            star_done = True
        parts.append(_parameter(p))
        if kind == "positional-only" and (i + 1 == len(params)
                                          or params[i + 1].kind.value != "positional-only"):
            parts.append("/")
    returns = f" -> {fn.returns}" if fn.returns is not None and returns else ""
    one_line = f"{name}({', '.join(parts)}){returns}"
    if len(one_line) <= SIGNATURE_WIDTH:
        return one_line
    return f"{name}(\n" + "".join(f"    {p},\n" for p in parts) + f"){returns}"


def _signature(obj, name: str) -> str:
    if obj.is_function:
        return _function_signature(obj, name)
    if obj.is_class:
        init = obj.members.get("__init__")
        if init is not None and not init.is_alias and init.is_function:
            return "class " + _function_signature(init, name, drop_self=True, returns=False)
        return f"class {name}"
    if obj.is_attribute:
        annotation = f": {obj.annotation}" if obj.annotation is not None else ""
        value = str(obj.value) if obj.value is not None else ""
        if len(value) > 200:
            value = value[:200] + " …"
        return f"{name}{annotation}{' = ' + value if value else ''}"
    return ""


def _blocks(lines: list[str], inline) -> list[str]:
    """reST literal blocks (a paragraph ending ``::``) as fenced code (as written), simple
    tables as Markdown tables (``inline`` applied to each cell); ``inline`` applied to every
    other line."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if TABLE_RULE.match(line.strip()) and not line.startswith(" "):
            end = i + 1
            rules = [i]
            while end < len(lines) and len(rules) < 3:
                if TABLE_RULE.match(lines[end].strip()):
                    rules.append(end)
                end += 1
            if len(rules) == 3:
                out += _table(lines[i:rules[2] + 1], inline)
                i = rules[2] + 1
                continue
        if line.rstrip().endswith("::") and (i + 1 >= len(lines) or not lines[i + 1].strip()
                                             or lines[i + 1].startswith(" ")):
            head = line.rstrip()[:-2].rstrip()
            if head:
                out.append(inline(head) + ":")
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            block_start, k = j, j
            while k < len(lines) and (not lines[k].strip() or lines[k].startswith(" ")):
                k += 1
            block = lines[block_start:k]
            while block and not block[-1].strip():
                block.pop()
            if block:
                out += ["", "```python", textwrap.dedent("\n".join(block)), "```", ""]
                i = k
                continue
        out.append(inline(line))
        i += 1
    return out


def _table(lines: list[str], inline) -> list[str]:
    """A reST simple table (rule, header, rule, rows, rule) as a Markdown table; a row whose
    first column is blank continues the row above."""
    rule = lines[0]
    spans, start = [], None
    for pos, char in enumerate(rule + " "):
        if char == "=" and start is None:
            start = pos
        elif char != "=" and start is not None:
            spans.append((start, pos))
            start = None

    def cells(line: str) -> list[str]:
        """The cells of a row; a cell that overruns its column (reST allows none, but the
        eye does) pushes the next boundary to the next space."""
        out, start = [], 0
        for k in range(len(spans)):
            end = len(line) if k + 1 == len(spans) else max(spans[k + 1][0], start)
            while 0 < end < len(line) and line[end - 1] != " ":
                end += 1
            out.append(line[start:end].strip())
            start = end
        return out

    header = cells(lines[1])
    rows: list[list[str]] = []
    for line in lines[3:-1]:
        if not line.strip() or TABLE_RULE.match(line.strip()):
            continue
        row = cells(line)
        if rows and not row[0]:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], row)]
        else:
            rows.append(row)
    escape = (lambda s: inline(s).replace("|", "\\|"))
    return (["", "| " + " | ".join(map(escape, header)) + " |",
             "|" + "---|" * len(header)]
            + ["| " + " | ".join(map(escape, r)) + " |" for r in rows] + [""])


def _squeeze(lines: list[str]) -> list[str]:
    """No two blank lines in a row."""
    out: list[str] = []
    for line in lines:
        for part in line.split("\n"):
            if part.strip() or (out and out[-1].strip()):
                out.append(part.rstrip())
    return out


def render_pages() -> dict[str, str]:
    """docs/api/NAME → its Markdown, for every page of :data:`PAGES`."""
    reference = Reference(load_package())
    return {name: reference.render_page(name) for name in PAGES}


def stale_pages() -> list[str]:
    """The pages whose file differs from what :func:`render_pages` writes."""
    pages = render_pages()
    return [name for name, text in pages.items()
            if not (API / name).is_file() or (API / name).read_text(encoding="utf-8") != text]


def main() -> int:
    for name, text in render_pages().items():
        target = API / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
