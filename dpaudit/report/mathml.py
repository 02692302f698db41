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
the text only.  Nothing is evaluated: every number literal becomes a sympy number (so ``9**10**9``
is never a Python int power) and the expression is built and printed under
``sympy.evaluate(False)`` (so ``factorial(factorial(20))`` stays a formula instead of a
computation that never ends; issue 39, item 11).
"""

from __future__ import annotations

import functools
import re

_ALLOWED = re.compile(r"^[A-Za-z0-9_\s+\-*/().,]*$")
_ATTRIBUTE = re.compile(r"[A-Za-z_)\]]\s*\.")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
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
    names["_number"] = _sympy_number
    code = _NUMBER.sub(lambda m: f"_number({m.group(0)!r})", text)
    try:
        with sympy.evaluate(False):  # build the tree without computing anything
            expr = eval(code, {"__builtins__": {}}, names)  # noqa: S307 - restricted above
        cheap = _cheap(expr)
        if cheap:  # then as sympy would build it (the usual, simplified rendering)
            expr = eval(code, {"__builtins__": {}}, names)  # noqa: S307
    except Exception:  # noqa: BLE001 - any failure means "show the text only"
        return None
    members = expr if isinstance(expr, (tuple, list)) else (expr,)
    try:
        with sympy.evaluate(cheap):  # an expensive tree is printed as written, not computed
            return tuple(f'<math display="block">{mathml(m, printer="presentation")}</math>'
                         for m in members)
    except Exception:  # noqa: BLE001
        return None


#: functions sympy evaluates cheaply (or leaves alone) at any number
_CHEAP_FUNCTIONS = frozenset({"exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                              "cosh", "tanh", "erf", "erfc", "Abs", "sign", "Heaviside", "Min",
                              "Max", "Eq", "Ne", "Lt", "Le", "Gt", "Ge"})
#: the largest integer a power of numbers may have in its exponent
_MAX_NUMERIC_EXPONENT = 1000


def _cheap(expr) -> bool:
    """Whether building ``expr`` (an unevaluated tree) with evaluation costs next to nothing:
    no function outside :data:`_CHEAP_FUNCTIONS` applied to numbers alone (``factorial(20)``
    is computed, ``factorial(factorial(20))`` never ends), and every power of numbers has an
    exponent of integers ≤ 1000 with no power in it but a reciprocal."""
    import sympy

    members = expr if isinstance(expr, (tuple, list)) else (expr,)
    for member in members:
        for node in sympy.preorder_traversal(member):
            if node.is_Atom or getattr(node, "free_symbols", True):
                continue
            if isinstance(node, sympy.Pow) and not _small_exponent(node.exp):
                return False
            if isinstance(node, sympy.Function) and type(node).__name__ not in _CHEAP_FUNCTIONS:
                return False
    return True


def _small_exponent(exponent) -> bool:
    import sympy

    for node in sympy.preorder_traversal(exponent):
        if isinstance(node, sympy.Pow) and node.exp != -1:
            return False
        if node.is_Atom and node.is_number and abs(node) > _MAX_NUMERIC_EXPONENT:
            return False
        if isinstance(node, sympy.Function):
            return False
    return True


def _sympy_number(literal: str):
    """A number literal of the text as a sympy Integer or Float (never a Python number, whose
    arithmetic Python would carry out before sympy sees it)."""
    import sympy

    return sympy.Float(float(literal)) if any(c in literal for c in ".eE") else \
        sympy.Integer(literal)


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
