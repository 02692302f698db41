"""dpaudit — audit differential-privacy mechanisms.

Claims (sympy, :mod:`dpaudit.claims`), evidence (certified lower bounds on ε,
:mod:`dpaudit.distinguish`; exact privacy curves, :mod:`dpaudit.exact`), mechanisms
(:mod:`dpaudit.mechanisms`), and the audit runner (:mod:`dpaudit.audit`).
"""

from dpaudit.distinguish.lower_bound import (PrivacyCurveLowerBound, estimate_epsilon_lower_bound,
                                            estimate_privacy_curve_lower_bound)
from dpaudit.distinguish.result import CertifiedEvent, EpsilonLowerBound

__version__ = "0.1.0"

__all__ = ["estimate_epsilon_lower_bound", "estimate_privacy_curve_lower_bound",
           "PrivacyCurveLowerBound", "EpsilonLowerBound", "CertifiedEvent", "__version__"]
