"""A claim's sympy expressions as presentation MathML (browsers render it natively: no script,
no font download).

A record's ``claim`` holds its expressions as sympy strings (``str(expr)``): ``expression``
(the calibration, e.g. ``(Eq(b, Delta/epsilon),)``), and for RDP and privacy-profile claims
``curve`` / ``profile``.  :func:`claim_math` parses each back with sympy and prints it with
:func:`sympy.printing.mathml.mathml` (``printer="presentation"``).  Parsing is restricted to
what ``str()`` of a sympy expression produces — names, numbers, operators, parentheses and
commas; no attribute access, no dunder names, no power towers of literals — because the
expression is evaluated as Python (as sympy's own parser does), and results.json may come
from anywhere.  A bare name is a symbol (``beta`` is the symbol β, not the beta function)
except sympy's constants (``pi``, ``E``, ``oo``, ``I``); a name followed by ``(`` must be
one of :data:`FUNCTIONS`.  Anything else (or a parse failure) gives None and the report shows
the text only.
"""

from __future__ import annotations

import functools
import re

_ALLOWED = re.compile(r"^[A-Za-z0-9_\s+\-*/().,]*$")
_ATTRIBUTE = re.compile(r"[A-Za-z_)\]]\s*\.")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOWER = re.compile(r"\*\*[\s(]*\d+[\s)]*\*\*|\d{31}")  # 9**9**9, huge literals
#: the sympy functions an expression may call (what claims and conversions use)
FUNCTIONS = frozenset({
    "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not", "Piecewise", "Min", "Max", "Abs",
    "sign", "exp", "log", "sqrt", "root", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "tanh", "erf", "erfc", "erfinv", "erfcinv", "gamma", "loggamma", "beta",
    "binomial", "factorial", "floor", "ceiling", "LambertW", "Sum", "Product", "Integral",
    "Rational", "Integer", "Float", "Symbol", "Pow", "Mul", "Add", "Heaviside"})
_CONSTANTS = ("pi", "E", "oo", "I", "zoo", "nan")
#: claim keys holding sympy strings, in display order, with their labels
CLAIM_EXPRESSIONS = (("expression", "calibration"), ("curve", "RDP curve ε(α)"),
                     ("profile", "privacy profile δ(ε)"))


@functools.lru_cache(maxsize=512)
def expression_mathml(text: str) -> tuple[str, ...] | None:
    """Presentation MathML (one ``<math display="block">`` element per member of a tuple, else
    one) of a sympy expression string, or None when it is not a plain sympy expression."""
    if not text or len(text) > 2000 or not _ALLOWED.match(text) or "__" in text \
            or _ATTRIBUTE.search(text) or _TOWER.search(text):
        return None
    import sympy
    from sympy.printing.mathml import mathml

    names: dict[str, object] = {}
    for match in _NAME.finditer(text):
        name = match.group(0)
        called = text[match.end():].lstrip().startswith("(")
        if called:
            if name not in FUNCTIONS:
                return None
            names[name] = getattr(sympy, name)
        elif name in _CONSTANTS:
            names[name] = getattr(sympy, name)
        else:
            names[name] = sympy.Symbol(name)
    try:
        expr = eval(text, {"__builtins__": {}}, names)  # noqa: S307 - restricted above
    except Exception:  # noqa: BLE001 - any failure means "show the text only"
        return None
    members = expr if isinstance(expr, (tuple, list)) else (expr,)
    try:
        return tuple(f'<math display="block">{mathml(m, printer="presentation")}</math>'
                     for m in members)
    except Exception:  # noqa: BLE001
        return None


def claim_math(claim: dict | None) -> list[tuple[str, str, tuple[str, ...] | None]]:
    """(label, sympy text, MathML elements or None) for each expression of a record's
    ``claim`` dict, in :data:`CLAIM_EXPRESSIONS` order."""
    out = []
    for key, label in CLAIM_EXPRESSIONS:
        text = (claim or {}).get(key)
        if isinstance(text, str) and text and text != "<callable>":
            out.append((label, text, expression_mathml(text)))
    return out


__all__ = ["CLAIM_EXPRESSIONS", "FUNCTIONS", "claim_math", "expression_mathml"]
