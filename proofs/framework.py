"""Derivation and certificate machinery for :mod:`dpaudit.proofs`.

Contract.  A derivation module (one per mechanism family: :mod:`dpaudit.proofs.classic`,
:mod:`dpaudit.proofs.noisy_max`, :mod:`dpaudit.proofs.sparse_vector` …) exposes ``derive() -> Derivation``.  It
declares its symbols with sympy assumptions (``positive=True`` …), states its hypotheses as
sympy relations and parameter boxes, and records every step of its argument as a
:class:`Step` decided by one of the checking methods below.  Every formula a mechanism
evaluates is recorded as an :class:`Entry` naming the sections (groups of steps) it rests on.
:func:`certificate` turns a derivation into the JSON document written to
``proofs/certificates/<family>.json``; it is a pure function of the derivation (sorted keys,
no timings, no floats that depend on the run), so re-running writes identical bytes.

Checking methods — the ``method`` field of a step names the one that decided it:

* ``identity``: lhs − rhs is reduced to 0 by sympy (expand, cancel, expand_log/powsimp,
  simplify — the first that succeeds is recorded).
* ``sign``: sympy's assumption system decides the sign of the expression (symbols carry
  positive/nonnegative assumptions), or of every term of its expansion, or of its
  factorisation.  An optional substitution (e.g. ε = 1 − u with u ≥ 0 for ε ≤ 1) is
  recorded with the step.
* ``orderings``: a case split over every weak ordering (ties included) of a set of points,
  each case parametrised by positive gaps so that |·|, max and Piecewise conditions resolve;
  the sign of each case is then decided as in ``sign``.  The cases are exhaustive by
  construction (orderings incompatible with a stated constraint are skipped).
* ``vertices``: the expression is affine in each box variable (sympy.Poly degree ≤ 1), so
  its minimum over the box is attained at a vertex; every vertex value is decided by ``sign``.
* ``interval``: mpmath interval arithmetic (outward-rounded; erf/erfc enclosed through their
  monotonicity at 40 guard bits) with bisection until every sub-box is certified.
* ``solve``: sympy.solve returns exactly one admissible solution (under the symbols'
  assumptions), which is then compared with the stated formula by ``identity``.
* ``integral`` / ``sum``: sympy.integrate / sympy.summation, then ``identity``.
* ``counterexample``: exact rational evaluation shows a stated inequality false at a point.
* ``deduction``: follows from named earlier steps by a stated rule; passes iff they passed.

Invariant: a derivation never reads certificates (they are its output), and never imports
:mod:`dpaudit.mechanisms` (the mechanisms read the certificates).

This module is the trusted base of every certificate — each one records its SHA-256 — so the
checking methods, the interval arithmetic and the certificate I/O stay together in one file.
The certificate format it writes (:data:`~dpaudit.claims.certificates.FORMAT`, the content and
source hashes) belongs to the reader, :mod:`dpaudit.claims.certificates`, and is imported
from there.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path

import mpmath
import sympy as sp

from dpaudit.claims.certificates import FORMAT, content_sha256, source_sha256

FRAMEWORK_FILE = Path(__file__)


def plain(expr):
    """``expr`` with every symbol replaced by an assumption-free symbol of the same name.

    Certificates store formulas over plain symbols, the ones the mechanism modules use
    (``sp.Symbol("epsilon")``); the assumptions are recorded beside the formula."""
    expr = sp.sympify(expr)
    return expr.xreplace({s: sp.Symbol(s.name) for s in expr.free_symbols
                          if isinstance(s, sp.Symbol)})


def text(expr) -> str:
    return str(plain(expr))


@dataclass
class Step:
    """One checked statement of a derivation."""

    id: str
    statement: str
    method: str
    passed: bool
    detail: str = ""

    def to_dict(self) -> dict:
        return {"id": self.id, "statement": self.statement, "method": self.method,
                "result": "passed" if self.passed else "FAILED", "detail": self.detail}


@dataclass
class Entry:
    """A named formula of the family: ``symbol = expression``."""

    key: str
    symbol: str
    expression: sp.Expr
    description: str
    sections: tuple
    relations: tuple = ()
    notes: tuple = ()


@dataclass
class Derivation:
    """The recorded argument of one family (see the module docstring)."""

    family: str
    source: Path
    title: str
    references: tuple = ()
    steps: list = field(default_factory=list)
    entries: dict = field(default_factory=dict)
    symbols: dict = field(default_factory=dict)
    #: named steps that later sections cite (e.g. a lemma's conclusion)
    facts: dict = field(default_factory=dict)
    _section: str = "main"
    _counter: dict = field(default_factory=dict)

    # -- declarations ---------------------------------------------------------------------
    def symbol(self, name: str, meaning: str, **assumptions) -> sp.Symbol:
        """A symbol with sympy assumptions, recorded with its meaning."""
        self.symbols[name] = {"meaning": meaning,
                              "assumptions": {k: bool(v) for k, v in assumptions.items()}}
        return sp.Symbol(name, **assumptions)

    def section(self, name: str) -> None:
        """Steps recorded from now on belong to section ``name``."""
        self._section = name

    def entry(self, key: str, symbol: str, expression, description: str, *, sections,
              relations=(), notes=()) -> sp.Expr:
        """Record ``symbol = expression`` as the certified formula ``key``."""
        if key in self.entries:
            raise ValueError(f"duplicate entry {key}")
        known = {s.id.rsplit(".", 1)[0] for s in self.steps}
        missing = [s for s in sections if s not in known]
        if missing:
            raise ValueError(f"entry {key}: no steps in sections {missing}")
        self.entries[key] = Entry(key, symbol, sp.sympify(expression), description,
                                  tuple(sections), tuple(relations), tuple(notes))
        return expression

    # -- recording ------------------------------------------------------------------------
    def _record(self, statement: str, method: str, passed: bool, detail: str = "") -> Step:
        n = self._counter.get(self._section, 0) + 1
        self._counter[self._section] = n
        step = Step(f"{self._section}.{n}", statement, method, bool(passed), detail)
        self.steps.append(step)
        return step

    def step(self, step_id: str) -> Step:
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(step_id)

    @property
    def failed(self) -> list:
        return [s for s in self.steps if not s.passed]

    # -- checking methods -----------------------------------------------------------------
    def identity(self, statement: str, lhs, rhs=0, *, detail: str = "") -> Step:
        """lhs = rhs, decided by reducing lhs − rhs to 0."""
        how = _reduce_to_zero(sp.sympify(lhs) - sp.sympify(rhs))
        return self._record(statement, "identity",
                            how is not None, _join(f"sympy {how} gives 0" if how else
                                                   "sympy could not reduce lhs − rhs to 0",
                                                   detail))

    def sign(self, statement: str, expr, relation: str = ">=", *, substitute=None,
             detail: str = "") -> Step:
        """expr ⋈ 0 for ⋈ in {>=, >, <=, <}, decided by sympy's assumptions."""
        expr = sp.sympify(expr)
        note = ""
        if substitute:
            expr = expr.subs(substitute)
            note = "after substituting " + ", ".join(
                f"{text(k)} = {text(v)}" for k, v in substitute.items())
        ok, how = _decide(expr, relation)
        return self._record(statement, "sign", ok,
                            _join(note, f"{how}" if ok else f"undecided: {how}", detail))

    def decompose(self, statement: str, expr, terms, *, substitute=None,
                  detail: str = "") -> Step:
        """expr ≥ 0 because expr = Σ terms (identity) and every term is ≥ 0 (sign, after an
        optional substitution such as ε = 1 − v, v ≥ 0 for ε ≤ 1)."""
        how = _reduce_to_zero(sp.sympify(expr) - sum(terms, sp.Integer(0)))
        signs = [_decide(sp.sympify(term).subs(substitute or {}), ">=") for term in terms]
        ok = how is not None and all(s[0] for s in signs)
        note = ("after substituting " + ", ".join(f"{text(k)} = {text(v)}"
                                                  for k, v in substitute.items())
                if substitute else "")
        msg = (f"= {' + '.join(f'({text(term)})' for term in terms)} "
               f"({'sympy ' + how if how else 'NOT an identity'}); each term ≥ 0 "
               f"{'decided by sympy' if all(s[0] for s in signs) else 'NOT decided'}")
        return self._record(statement, "sum of nonnegative terms", ok, _join(msg, note, detail))

    def orderings(self, statement: str, expr, points, relation: str = ">=", *,
                  constraints=(), detail: str = "") -> Step:
        """expr ⋈ 0 for every weak ordering of ``points`` (symbols), ties included.

        ``constraints`` are pairs (lo, hi) meaning lo ≤ hi (or triples (lo, hi, True) for
        lo < hi); orderings violating them are skipped.  Each kept ordering is parametrised
        as z, z + g₁, z + g₁ + g₂, … with gaps gᵢ > 0 and decided as in :meth:`sign`."""
        expr = sp.sympify(expr)
        points = list(points)
        z = sp.Symbol("z_base", real=True)
        cases = failures = 0
        for blocks in _weak_orderings(points):
            where = {p: i for i, block in enumerate(blocks) for p in block}
            if not all(where[c[0]] < where[c[1]] if len(c) > 2 and c[2]
                       else where[c[0]] <= where[c[1]] for c in constraints):
                continue
            gaps = [sp.Symbol(f"g_{i}", positive=True) for i in range(1, len(blocks))]
            value = {p: z + sum(gaps[:where[p]], sp.Integer(0)) for p in points}
            ok, _ = _decide(expr.xreplace(value), relation)
            cases += 1
            failures += not ok
        return self._record(statement, "orderings", failures == 0 and cases > 0,
                            _join(f"{cases} weak orderings of ({', '.join(map(str, points))})"
                                  + (f", {failures} undecided" if failures else
                                     ", each decided by sympy"), detail))

    def vertices(self, statement: str, expr, box: dict, relation: str = ">=", *,
                 detail: str = "") -> Step:
        """expr ⋈ 0 on a box, expr affine in each box variable: check every vertex."""
        expr = sp.expand(sp.sympify(expr))
        try:
            affine = all(sp.Poly(expr, v).degree() <= 1 for v in box)
        except sp.PolynomialError:  # v inside a non-polynomial function
            affine = False
        bad = []
        for corner in itertools.product(*[(lo, hi) for lo, hi in box.values()]):
            value = expr.subs(dict(zip(box, corner)))
            ok, _ = _decide(value, relation)
            if not ok:
                bad.append(", ".join(f"{k}={text(c)}" for k, c in zip(box, corner)))
        where = "; ".join(f"{text(v)} ∈ [{text(lo)}, {text(hi)}]" for v, (lo, hi) in box.items())
        how = (f"affine in each of ({', '.join(map(str, box))}) (sympy.Poly degree ≤ 1), so the "
               f"minimum over the box is at a vertex; {2 ** len(box)} vertex values decided by "
               f"sympy" if affine else "NOT affine in every box variable")
        if bad:
            how += f"; fails at {bad}"
        return self._record(statement, "vertices", affine and not bad,
                            _join(f"box {where}", how, detail))

    def interval(self, statement: str, expr, box: dict, relation: str = ">", *,
                 max_boxes: int = 20000, prec: int = 80, detail: str = "") -> Step:
        """expr ⋈ 0 on a box (endpoints: exact sympy numbers), by interval bisection."""
        ok, how = interval_certify(sp.sympify(expr), box, relation, max_boxes=max_boxes,
                                   prec=prec)
        where = "; ".join(f"{text(v)} ∈ [{text(lo)}, {text(hi)}]" for v, (lo, hi) in box.items())
        return self._record(statement, "interval", ok,
                            _join(f"mpmath.iv (prec {prec} bits) on box {where}" if box
                                  else f"mpmath.iv (prec {prec} bits)", how, detail))

    def solve(self, statement: str, equations, unknowns, expected, *, detail: str = ""):
        """Solve ``equations`` (an Eq, or a list) for ``unknowns`` (a symbol, or a list); the
        solution must be unique and equal ``expected``.  Returns ``expected``."""
        multi = isinstance(unknowns, (list, tuple))
        eqs = list(equations) if multi else [equations]
        unk = list(unknowns) if multi else [unknowns]
        exp = list(expected) if multi else [expected]
        sols = sp.solve(eqs, unk, dict=True)
        unique = len(sols) == 1 and all(u in sols[0] for u in unk)
        hows = [_reduce_to_zero(sols[0][u] - e) for u, e in zip(unk, exp)] if unique else []
        ok = unique and all(h is not None for h in hows)
        names = ", ".join(map(str, unk))
        if unique:
            msg = (f"sympy.solve for {names}: unique solution "
                   + ", ".join(f"{u} = {text(sols[0][u])}" for u in unk))
            msg += ("; equals the stated formula (sympy " + ", ".join(hows) + ")" if ok
                    else "; DIFFERS from the stated formula")
        else:
            msg = f"sympy.solve for {names} gave {len(sols)} solutions: {sols}"
        self._record(statement, "solve", ok, _join(msg, detail))
        return expected

    def integral(self, statement: str, integrand, limits, expected, *, detail: str = "") -> Step:
        value = sp.integrate(integrand, limits, conds="none")
        how = _reduce_to_zero(value - expected)
        return self._record(statement, "integral", how is not None,
                            _join(f"sympy.integrate gives {text(value)}; = {text(expected)} "
                                  f"({'sympy ' + how if how else 'NOT reduced to 0'})", detail))

    def summation(self, statement: str, term, limits, expected, *, assume=None,
                  detail: str = "") -> Step:
        value = sp.summation(term, limits)
        if assume is not None:
            value = sp.refine(value, assume)
        how = _reduce_to_zero(value - expected)
        return self._record(statement, "sum", how is not None,
                            _join(f"sympy.summation gives {text(value)}"
                                  + (f" under {assume}" if assume is not None else "")
                                  + (f"; = {text(expected)} (sympy {how})" if how else
                                     f"; NOT equal to {text(expected)}"), detail))

    def counterexample(self, statement: str, expr, point: dict, relation: str, *,
                       detail: str = "") -> Step:
        """The inequality ``expr ⋈ 0`` is FALSE at ``point`` (exact rational evaluation):
        the step passes when the stated inequality indeed fails there."""
        value = sp.nsimplify(sp.sympify(expr).subs(point))
        holds = _decide(value, relation)[0]
        at = ", ".join(f"{k} = {text(v)}" for k, v in point.items())
        return self._record(statement, "counterexample", value.is_Rational and not holds,
                            _join(f"exact value at {at}: {value} (the inequality {relation} 0 "
                                  f"{'holds' if holds else 'fails'})", detail))

    def deduce(self, statement: str, from_steps, rule: str) -> Step:
        """A logical consequence of earlier steps (named by id), by ``rule``."""
        used = [self.step(s) if isinstance(s, str) else s for s in from_steps]
        return self._record(statement, "deduction", all(s.passed for s in used),
                            f"{rule}; from {', '.join(s.id for s in used)}")

    def given(self, statement: str, source: str) -> Step:
        """A definition or a published statement taken as the object of study (no check)."""
        return self._record(statement, "given", True, source)


# -- deciding identities and signs ------------------------------------------------------------

def _join(*parts) -> str:
    return "; ".join(p for p in parts if p)


def _reduce_to_zero(expr):
    """Name of the first sympy transformation that reduces expr to 0, else None."""
    expr = sp.sympify(expr)
    if expr == 0:
        return "evaluation"
    attempts = (("expand", sp.expand),
                ("cancel", lambda e: sp.cancel(sp.expand(e))),
                ("expand_log+powsimp", lambda e: sp.expand(sp.powsimp(
                    sp.expand_log(e, force=True), force=True))),
                ("simplify", sp.simplify))
    for name, fn in attempts:
        try:
            if fn(expr) == 0:
                return name
        except Exception:  # pragma: no cover - a transformation that does not apply
            continue
    return None


_RELATIONS = {">=": (1, False), ">": (1, True), "<=": (-1, False), "<": (-1, True)}


def _decide(expr, relation: str):
    """(True, how) if sympy proves expr ⋈ 0 from the symbols' assumptions, else (False, why).

    ``relation`` is one of >=, >, <=, < or == (the latter: expr reduces to 0)."""
    if relation == "==":
        how = _reduce_to_zero(expr)
        return (True, f"sympy {how} gives 0") if how else (False, f"{text(expr)} ≠ 0")
    sgn, strict = _RELATIONS[relation]
    e = sp.sympify(sgn * expr)

    def known(x):
        return x.is_positive if strict else x.is_nonnegative

    if known(e):
        return True, f"sympy assumptions decide {relation} 0"
    if known(e) is False and not e.free_symbols:
        return False, f"value {e} is not {relation} 0"
    expanded = sp.expand(e)
    if known(expanded):
        return True, f"expanded form decided {relation} 0"
    if isinstance(expanded, sp.Add):
        terms = expanded.args
        if all(t.is_nonnegative for t in terms) and (not strict or
                                                     any(t.is_positive for t in terms)):
            return True, f"expanded: a sum of {len(terms)} terms each decided ≥ 0"
    for name, fn in (("factor", sp.factor), ("simplify", sp.simplify)):
        try:
            if known(fn(e)):
                return True, f"{name}ed form decided {relation} 0"
        except Exception:  # pragma: no cover
            continue
    return False, f"could not decide the sign of {text(expr)}"


def _weak_orderings(items):
    """Every ordered partition of ``items`` into nonempty blocks (a weak ordering)."""
    items = list(items)
    if not items:
        yield []
        return
    for r in range(1, len(items) + 1):
        for first in itertools.combinations(items, r):
            rest = [x for x in items if x not in first]
            for tail in _weak_orderings(rest):
                yield [list(first)] + tail


# -- interval arithmetic ----------------------------------------------------------------------
iv = mpmath.iv


def _iv_of_number(x):
    x = sp.nsimplify(x) if isinstance(x, sp.Float) else x
    if x.is_Integer:
        return iv.mpf(int(x))
    if x.is_Rational:
        return iv.mpf(int(x.p)) / iv.mpf(int(x.q))
    if x is sp.pi:
        return iv.pi
    if x is sp.E:
        return iv.e
    if x is sp.oo:
        return iv.mpf("inf")
    raise ValueError(f"no interval for the constant {x}")


def _monotone(fn, increasing: bool):
    """Interval extension of a monotone real function through its endpoint values, computed
    with 40 guard bits and widened outward by a relative 2^-(prec) margin."""
    def ext(x):
        prec = iv.prec
        with mpmath.mp.workprec(prec + 40):
            lo, hi = mpmath.mpf(x.a), mpmath.mpf(x.b)
            v1, v2 = fn(lo), fn(hi)
            if not increasing:
                v1, v2 = v2, v1
            pad = mpmath.mpf(2) ** (-prec)
            a = v1 - abs(v1) * pad - mpmath.mpf(2) ** (-2 * prec)
            b = v2 + abs(v2) * pad + mpmath.mpf(2) ** (-2 * prec)
        return iv.mpf([a, b])
    return ext


_IV_FUNCS = {sp.exp: lambda x: iv.exp(x), sp.log: lambda x: iv.log(x),
             sp.erfc: _monotone(mpmath.erfc, False), sp.erf: _monotone(mpmath.erf, True)}


def _compile_iv(expr):
    """A function env -> mpmath interval enclosing expr over the intervals in env."""
    if expr.is_Symbol:
        name = expr
        return lambda env: env[name]
    if expr.is_Number or expr in (sp.pi, sp.E):
        c = _iv_of_number(expr)
        return lambda env: c
    args = [_compile_iv(a) for a in expr.args]
    if isinstance(expr, sp.Add):
        def add(env):
            total = args[0](env)
            for a in args[1:]:
                total = total + a(env)
            return total
        return add
    if isinstance(expr, sp.Mul):
        def mul(env):
            total = args[0](env)
            for a in args[1:]:
                total = total * a(env)
            return total
        return mul
    if isinstance(expr, sp.Pow):
        base, ex = args
        e = expr.exp
        if e.is_Integer:
            n = int(e)
            return lambda env: base(env) ** n
        if e == sp.Rational(1, 2):
            return lambda env: iv.sqrt(base(env))
        if e == sp.Rational(-1, 2):
            return lambda env: 1 / iv.sqrt(base(env))
        return lambda env: iv.exp(ex(env) * iv.log(base(env)))
    if isinstance(expr, sp.Abs):
        (inner,) = args

        def absolute(env):
            x = inner(env)
            lo, hi = mpmath.mpf(x.a), mpmath.mpf(x.b)
            if lo >= 0:
                return x
            if hi <= 0:
                return -x
            return iv.mpf([0, max(-lo, hi)])
        return absolute
    for fn, ext in _IV_FUNCS.items():
        if isinstance(expr, fn):
            (inner,) = args
            return lambda env, ext=ext, inner=inner: ext(inner(env))
    raise ValueError(f"no interval extension for {expr.func.__name__}")


def interval_certify(expr, box: dict, relation: str = ">", *, max_boxes: int = 20000,
                     prec: int = 80):
    """(ok, how): bisect ``box`` until ``expr ⋈ 0`` is certified on every sub-box.

    Box endpoints are exact sympy numbers; irrational ones are replaced by an enclosing
    interval's outer endpoints (the certified box then contains the stated one)."""
    sgn, strict = _RELATIONS[relation]
    old = iv.prec
    iv.prec = prec
    try:
        f = _compile_iv(sp.sympify(sgn * expr))
        names = list(box)
        start = []
        for lo, hi in box.values():
            a, b = _compile_iv(sp.sympify(lo))({}), _compile_iv(sp.sympify(hi))({})
            start.append((mpmath.mpf(a.a), mpmath.mpf(b.b)))
        stack, certified, evaluations, worst = [start], 0, 0, None
        while stack:
            cell = stack.pop()
            evaluations += 1
            if evaluations > max_boxes:
                return False, f"gave up after {max_boxes} sub-boxes"
            value = f({n: iv.mpf([lo, hi]) for n, (lo, hi) in zip(names, cell)})
            lower, upper = mpmath.mpf(value.a), mpmath.mpf(value.b)
            if lower > 0 or (not strict and lower >= 0):
                certified += 1
                worst = lower if worst is None else min(worst, lower)
                continue
            if upper < 0 or (strict and upper <= 0):
                at = ", ".join(f"{n} ∈ [{mpmath.nstr(lo, 8)}, {mpmath.nstr(hi, 8)}]"
                               for n, (lo, hi) in zip(names, cell))
                return False, f"violated on the whole sub-box {at}"
            if not cell:
                return False, "constant interval straddles 0"
            widths = [hi - lo for lo, hi in cell]
            k = max(range(len(cell)), key=lambda i: widths[i])
            lo, hi = cell[k]
            mid = (lo + hi) / 2
            stack.append(cell[:k] + [(mid, hi)] + cell[k + 1:])
            stack.append(cell[:k] + [(lo, mid)] + cell[k + 1:])
        return True, (f"certified on {certified} sub-box(es); smallest lower bound of "
                      f"{'' if sgn > 0 else '−'}expression {mpmath.nstr(worst, 6)}")
    finally:
        iv.prec = old


# -- reusable lemmas ----------------------------------------------------------------------------

def laplace_log_ratio_lemma(d: Derivation, b, shift_bound, *, name: str = "b") -> Step:
    """Record: the Laplace(b) log-density ratio at locations q, q′ is at most |q − q′|/b and
    attains it below both locations; so its sup over |q − q′| ≤ ``shift_bound`` is
    shift_bound/b.  Returns the concluding step."""
    y, q, q1 = sp.symbols("y q q'", real=True)
    dens = lambda loc: sp.exp(-sp.Abs(y - loc) / b) / (2 * b)  # noqa: E731
    ratio = (sp.Abs(y - q1) - sp.Abs(y - q)) / b
    used = [
        d.identity(f"ln f_q(y) − ln f_q′(y) = (|y − q′| − |y − q|)/{name} for the Laplace "
                   f"density f_q(y) = exp(−|y − q|/{name})/(2{name})",
                   sp.log(dens(q)) - sp.log(dens(q1)), ratio),
        d.orderings(f"(|y − q′| − |y − q|)/{name} ≤ |q − q′|/{name} (triangle inequality)",
                    sp.Abs(q - q1) / b - ratio, [y, q, q1]),
        d.orderings(f"(|y − q| − |y − q′|)/{name} ≤ |q − q′|/{name} (the other direction)",
                    sp.Abs(q - q1) / b + ratio, [y, q, q1]),
        d.orderings(f"for y ≤ q ≤ q′ the log-ratio equals (q′ − q)/{name} = |q − q′|/{name}: "
                    f"the bound is attained", ratio - sp.Abs(q1 - q) / b, [y, q, q1], "==",
                    constraints=[(y, q), (q, q1)]),
    ]
    return d.deduce(f"sup over y and over |q − q′| ≤ {text(shift_bound)} of |ln f_q(y)/f_q′(y)| "
                    f"is {text(shift_bound)}/{name}", used,
                    "the bound |q − q′|/b increases with |q − q′| and is attained")


# -- certificates -------------------------------------------------------------------------------

def certificate(d: Derivation) -> dict:
    """The JSON document of a derivation (see :mod:`dpaudit.proofs` for the layout)."""
    by_section: dict = {}
    for s in d.steps:
        by_section.setdefault(s.id.rsplit(".", 1)[0], []).append(s.to_dict())
    entries = {}
    for key, e in d.entries.items():
        expr = plain(e.expression)
        inputs = {}
        for s in sorted(expr.free_symbols, key=lambda s: s.name):
            info = d.symbols.get(s.name, {"meaning": "", "assumptions": {}})
            inputs[s.name] = {"meaning": info["meaning"], "assumptions": info["assumptions"]}
        steps = [st for sec in e.sections for st in by_section[sec]]
        entries[key] = {
            "symbol": e.symbol, "description": e.description,
            "srepr": sp.srepr(expr), "latex": sp.latex(expr), "str": str(expr),
            "inputs": inputs,
            "assumptions": {
                "symbols": {n: v["assumptions"] for n, v in inputs.items()},
                "relations": [{"str": text(r), "srepr": sp.srepr(plain(r))}
                              for r in e.relations],
                "notes": list(e.notes)},
            "sections": list(e.sections), "steps": steps,
            "all_steps_passed": all(st["result"] == "passed" for st in steps)}
    doc = {
        "format": FORMAT, "family": d.family, "title": d.title,
        "references": list(d.references),
        "source": {"file": f"proofs/{d.source.name}", "sha256": source_sha256(d.source)},
        "framework": {"file": "proofs/framework.py", "sha256": source_sha256(FRAMEWORK_FILE)},
        "symbols": d.symbols,
        "sections": by_section,
        "entries": entries,
        "summary": {"steps": len(d.steps), "passed": len(d.steps) - len(d.failed),
                    "failed": len(d.failed), "entries": len(entries)},
    }
    doc["content_sha256"] = content_sha256(doc)
    return doc


def dumps(doc: dict) -> str:
    """Deterministic text of a certificate (sorted keys, fixed indentation, final newline)."""
    return json.dumps(doc, sort_keys=True, ensure_ascii=False, indent=1) + "\n"


def differences(committed, fresh, path: str = "") -> list:
    """Human-readable differences between two certificate documents (empty if equal)."""
    if isinstance(committed, dict) and isinstance(fresh, dict):
        out = []
        for k in sorted(set(committed) | set(fresh)):
            p = f"{path}.{k}" if path else str(k)
            if k not in committed:
                out.append(f"{p}: missing from the committed certificate")
            elif k not in fresh:
                out.append(f"{p}: no longer produced by the derivation")
            else:
                out.extend(differences(committed[k], fresh[k], p))
        return out
    if isinstance(committed, list) and isinstance(fresh, list) and len(committed) == len(fresh):
        out = []
        for i, (a, b) in enumerate(zip(committed, fresh)):
            out.extend(differences(a, b, f"{path}[{i}]"))
        return out
    if committed != fresh:
        return [f"{path}: committed {_short(committed)} ≠ derived {_short(fresh)}"]
    return []


def _short(value, limit: int = 120) -> str:
    s = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return s if len(s) <= limit else s[:limit - 1] + "…"
