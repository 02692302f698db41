"""Reading the compact records of results.json schema 3 (written by dpaudit before schema 4).

A default run certifies each (audit point, pair) once — one *test* — and reads one certificate
per δ off it; every δ's certificate repeats the test's candidate events, their counts, the
event definitions (fitted projections can hold hundreds of numbers), the pair's datasets and
the claim.  Schema 2 wrote all of it in every record (5.8 MB for the default run).  Schema 3
writes each distinct item once in a top-level table and refers to it by its index:

* ``datasets`` — every distinct dataset of a pair (``pairs[i].d0``/``d1`` are indices here);
  a dataset of more than :data:`MAX_INLINE_DATASET_VALUES` scalars is written as its summary
  ``{"dataset_summary": {"values": n, "shape": [...], "dtype": "float64", "sha256": "…"}}``
  (SHA-256 of its compact sorted-key JSON text; shape null and dtype "object" when ragged),
  so results.json stays small whatever a pair holds (every shipped dataset has ≤ 16 000);
* ``pairs`` — every distinct neighbouring pair (a record's ``pair`` is an index here);
* ``claims`` — every distinct claim (a record's ``claim`` is an index here);
* ``events`` — every distinct event definition (a test event's ``definition`` is an index);
* ``tests`` — every distinct test: the estimator's fields that do not depend on δ
  (``method``, ``confidence``, ``per_bound_significance``, ``family_size``, ``samples``,
  ``selection_samples``, ``certification_samples``, ``output_kind``, ``seed``, ``seconds``,
  ``selection_seconds``) and its certified ``events`` (event text, numerator side, the counts
  k/n of both sides, the Clopper–Pearson bounds, the definition's index).

* ``points`` — one per audit point (an audit, or one swept value of it): the record fields
  every certificate of the point shares (:data:`POINT_FIELDS`: suite, audit, mechanism,
  parameters, the parameters left at their defaults, expectation, note, sweep, confidences,
  the point's verdict and whether it met its expectation).  A certificate's ``point`` is an
  index here.

A record's ``certificate`` (and ``white_box_certificate``) then holds only what depends on δ:
``{"test": i, "delta", "epsilon", "chosen": j, "epsilons": [ε of each test event at δ]}``.
An RDP record's certificate holds ``{"alpha", "divergence", "event", "curve_certificate":
<a dp certificate in the same compact form>}``.  A certificate that does not have the
estimator's shape is written as it is.

:func:`expand_records` expands them back to the schema-2 records they came from, key for key
(``tests/report/test_legacy_results.py`` reads a schema-3 file written by dpaudit 5c4570f);
:mod:`dpaudit.results.legacy` turns those into today's typed records.
"""

from __future__ import annotations



#: the fields of an estimator certificate that depend only on the test, not on δ
TEST_FIELDS = ("method", "confidence", "per_bound_significance", "family_size", "samples",
               "selection_samples", "certification_samples", "output_kind", "seed", "seconds",
               "selection_seconds")
#: the fields of a candidate event that depend only on the test, not on δ
EVENT_FIELDS = ("event", "numerator", "k_numerator", "n_numerator", "k_denominator",
                "n_denominator", "p_numerator_lower", "p_denominator_upper")
#: the fields of the chosen candidate that the certificate repeats at its top level
CHOSEN_FIELDS = ("event", "numerator", "k_numerator", "n_numerator", "k_denominator",
                 "n_denominator")
#: the record fields shared by every certificate of an audit point
POINT_FIELDS = ("suite", "suite_file", "audit", "audit_index", "mechanism", "parameters",
                "defaulted_parameters", "expect", "met_expectation", "audit_verdict", "confidence",
                "per_certificate_confidence", "distinguisher", "note", "sweep", "coverage",
                "power")
#: point fields a record of an older results.json lacks (its point lacks them too)
OPTIONAL_POINT_FIELDS = frozenset(("defaulted_parameters", "coverage", "power"))
#: the δ-dependent floating-point fields of a certificate (absent from older results.json)
FLOATING_FIELDS = ("floating_point", "value_epsilon", "floating_point_finding")


def expand_certificate(cert, tables: dict):
    """The full certificate of a compact one (the inverse of :func:`compact_certificate`)."""
    if not isinstance(cert, dict) or "test" not in cert:
        return cert
    test = tables["tests"][cert["test"]]
    events = test["events"]
    if len(cert["epsilons"]) != len(events) or not 0 <= cert["chosen"] < len(events):
        raise ValueError(f"certificate of test {cert['test']} does not match its "
                         f"{len(events)} events")
    candidates = [{**{k: e[k] for k in EVENT_FIELDS}, "epsilon": eps,
                   "definition": tables["events"][e["definition"]]}
                  for e, eps in zip(events, cert["epsilons"])]
    best = candidates[cert["chosen"]]
    out = {"epsilon": cert["epsilon"], "delta": cert["delta"]}
    for key in ("confidence", "method"):
        out[key] = test[key]
    for key in CHOSEN_FIELDS:
        out[key] = best[key]
    for key in TEST_FIELDS:
        out.setdefault(key, test[key])
    out["candidates"] = candidates
    out["event_definition"] = best["definition"]
    # the estimator's key order (EpsilonLowerBound.to_dict), so expanded == original
    order = ("epsilon", "delta", "confidence", "method", "event", "numerator", "k_numerator",
             "n_numerator", "k_denominator", "n_denominator", "per_bound_significance",
             "family_size", "samples", "selection_samples", "certification_samples",
             "output_kind", "seed", "seconds", "candidates", "event_definition",
             "selection_seconds", *FLOATING_FIELDS)
    for key in FLOATING_FIELDS:
        if key in cert:
            out[key] = cert[key]
    return {k: out[k] for k in order if k in out}


def _expand_any_certificate(cert, tables: dict):
    if isinstance(cert, dict) and "curve_certificate" in cert:
        return {**cert, "curve_certificate": expand_certificate(cert["curve_certificate"],
                                                                tables)}
    return expand_certificate(cert, tables)


def expand_records(tables: dict, points: list[dict], certificates: list[dict],
                   field_order: tuple[str, ...] = ()) -> list[dict]:
    """Schema-2 records from compact certificates, their points and tables, keys in
    ``field_order`` (then any others); raises ValueError, IndexError, KeyError or TypeError on a
    reference that does not resolve."""
    out = []
    for record in certificates:
        row = dict(points[record["point"]])
        row.update((k, v) for k, v in record.items() if k != "point")
        pair = record.get("pair")
        if isinstance(pair, int) and not isinstance(pair, bool):
            entry = dict(tables["pairs"][pair])
            entry["d0"] = tables["datasets"][entry["d0"]]
            entry["d1"] = tables["datasets"][entry["d1"]]
            row["pair"] = entry
        claim = record.get("claim")
        if isinstance(claim, int) and not isinstance(claim, bool):
            row["claim"] = tables["claims"][claim]
        for key in ("certificate", "white_box_certificate"):
            row[key] = _expand_any_certificate(record.get(key), tables)
        if field_order:
            row = {**{k: row[k] for k in field_order if k in row}, **row}
        out.append(row)
    return out


__all__ = ["CHOSEN_FIELDS", "EVENT_FIELDS", "OPTIONAL_POINT_FIELDS", "POINT_FIELDS", "TEST_FIELDS",
           "expand_certificate", "expand_records"]
