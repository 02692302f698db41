"""Evidence: the typed findings every kind of audit ends in, and the vocabulary results are
judged in.

* :mod:`~dpaudit.evidence.base` — the :class:`~dpaudit.evidence.base.Evidence` contract: a
  bound the verdict compares with the claim, its power, one description, its JSON form;
* :mod:`~dpaudit.evidence.exact_curve` — evidence computed, not sampled: a pair's exact or
  bracketed curve at one δ or α;
* :mod:`~dpaudit.evidence.vocabulary` — :class:`~dpaudit.evidence.vocabulary.Verdict`,
  :class:`~dpaudit.evidence.vocabulary.Expectation`,
  :class:`~dpaudit.evidence.vocabulary.CertificateNotion`.

The two-sample estimator's certificates (:mod:`dpaudit.distinguish.result`) are evidence of this
contract; so is every new kind's.  This package imports only the statistics and utilities below
it, so every layer above may hold evidence.
"""
