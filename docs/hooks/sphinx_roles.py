"""Griffe extension: dpaudit's docstrings cross-reference with Sphinx roles
(``:class:`~dpaudit.claims.PureDP```, ``:func:`select```); the API reference renders each as
a link to the object's entry where the site documents it, and as its name in code otherwise.

A role becomes an *optional* mkdocs-autorefs reference, the kind mkdocstrings itself writes
for annotations: resolved when the identifier has an anchor in the site, plain text (and no
warning, so ``mkdocs build --strict`` passes) when it does not.  A relative name (``select``,
``Claim.epsilon``) is read in the scope of the object whose docstring holds it: its members,
then its parents' (module-level names and imports included), as Python would.
"""

from __future__ import annotations

import html
import re

import griffe

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|obj|exc):`(?P<tilde>~?)(?P<target>[^`]+)`")


def _resolve(obj: griffe.Object, target: str) -> str:
    target = target.lstrip(".")
    if target.startswith("dpaudit.") or target == "dpaudit":
        return target
    head, _, rest = target.partition(".")
    scope = obj
    while scope is not None:
        member = scope.members.get(head) if hasattr(scope, "members") else None
        if member is not None:
            path = member.target_path if member.is_alias else member.path
            return f"{path}.{rest}" if rest else path
        scope = scope.parent
    return f"{obj.module.path}.{target}"


def _replace(obj: griffe.Object, text: str) -> str:
    def role(match: re.Match) -> str:
        target = match["target"].strip()
        title = target.rsplit(".", 1)[-1] if match["tilde"] else target.lstrip(".")
        identifier = html.escape(_resolve(obj, target), quote=True)
        return f'<autoref identifier="{identifier}" optional><code>{html.escape(title)}</code></autoref>'

    return ROLE.sub(role, text)


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every docstring (module docstring)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        """Once the whole package is loaded, so relative names resolve against every member."""
        stack = [pkg]
        while stack:
            obj = stack.pop()
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = _replace(obj, obj.docstring.value)
            stack.extend(member for member in obj.members.values() if not member.is_alias)
