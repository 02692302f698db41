"""``dpaudit list``: every registered mechanism with its family, neighbouring relation, claim,
whether it is a known-bad variant and the literature's true ε (:func:`describe_mechanisms`)."""

from __future__ import annotations

import inspect
import json


def describe_mechanisms() -> list[dict]:
    """``describe()`` of every registered mechanism built with its default parameters."""
    from dpaudit.mechanisms.registry import get_mechanism_class, mechanism_names

    out = []
    for name in mechanism_names():
        cls = get_mechanism_class(name)
        try:
            entry = cls().describe()
            entry["needs_parameters"] = False
        except Exception as exc:
            try:
                signature = f"{name}{inspect.signature(cls)}"
            except (TypeError, ValueError):
                signature = name
            entry = {"name": name, "family": cls.family, "parameters": None,
                     "neighbouring": cls.neighbouring, "claim": None,
                     "known_bad": bool(cls.known_bad),
                     "true_epsilon": None, "literature": cls.literature,
                     "doc": ((cls.__doc__ or "").strip().splitlines() or [""])[0],
                     "needs_parameters": True, "signature": signature,
                     "error": f"{type(exc).__name__}: {exc}"}
        out.append(entry)
    return out


def cmd_list(args) -> int:
    """``dpaudit list [--json]``: every registered mechanism, as text or JSON; exit 0."""
    from dpaudit.report.json_report import to_jsonable

    entries = describe_mechanisms()
    if args.json:
        print(json.dumps(to_jsonable(entries), indent=2, ensure_ascii=False))
        return 0
    for e in entries:
        flag = "  [KNOWN BAD]" if e.get("known_bad") else ""
        print(f"{e['name']}  (family {e.get('family') or '?'}){flag}")
        if e.get("doc"):
            print(f"    {e['doc']}")
        if e.get("claim"):
            params = ", ".join(f"{k}={v}" for k, v in (e.get("parameters") or {}).items())
            print(f"    claim: {e['claim'].get('text')}   (default parameters: {params or '—'})")
        else:
            print(f"    needs parameters: {e.get('signature')}")
        if e.get("neighbouring"):
            print(f"    neighbouring: {e['neighbouring']}")
        if e.get("known_bad"):
            true_eps = e.get("true_epsilon")
            true_text = "∞" if true_eps in ("inf", float("inf")) else true_eps
            lit = f" ({e['literature']})" if e.get("literature") else ""
            print(f"    true ε (literature): {true_text}{lit}")
    return 0


__all__ = ["cmd_list", "describe_mechanisms"]
