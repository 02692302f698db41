"""The certified lower bound on ε: distinguishers, events, counting and the certificate.

* :mod:`~dpaudit.distinguish.lower_bound` — the estimator, select → count → certify
  (``estimate_epsilon_lower_bound``, ``estimate_privacy_curve_lower_bound``);
* :mod:`~dpaudit.distinguish.result` — the certificate it returns (``EpsilonLowerBound``);
* :mod:`~dpaudit.distinguish.distinguisher` — the ``Distinguisher`` contract and its name table.

Nothing is imported here: ``import dpaudit.distinguish`` stays free.
"""
