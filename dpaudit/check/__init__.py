"""``dpaudit check``: quick checks of one mechanism — claim, grey-box sensitivity, noise
calibration, black-box audit — for the mechanism a user just wrote.

* :mod:`dpaudit.check.greybox` — search neighbouring pairs for ‖query(D) − query(D′)‖ > Δ;
* :mod:`dpaudit.check.calibration` — confidence intervals for the noise parameters the sampler
  really uses, against the values the claim states;
* :mod:`dpaudit.check.calibration_sets` — the calibration check on the probe and further
  datasets of the mechanism's dataset space (Bonferroni over datasets);
* :mod:`dpaudit.check.blackbox` — the black-box step (the audit every route runs: named pairs,
  the pair search of :mod:`dpaudit.audit.pair_search`, the float64 representation), its power
  and its low-power warning;
* :mod:`dpaudit.check.canary_step` — the canary step (one run of canaries, where the
  mechanism has canary runs);
* :mod:`dpaudit.check.result` — step and check results, the verdict words (those of
  ``dpaudit run``, plus ``skipped``);
* :mod:`dpaudit.check.runner` — loading a mechanism, the six steps in order;
* :mod:`dpaudit.check.examples` — deliberately broken mechanisms (tests and demos).
"""

from dpaudit.check.calibration import Calibration, check_calibration
from dpaudit.check.greybox import SensitivityResult, search_sensitivity
from dpaudit.check.runner import (CheckResult, CheckSetupError, StepResult, check_mechanism,
                                  load_mechanism)

__all__ = ["Calibration", "CheckResult", "CheckSetupError", "SensitivityResult", "StepResult",
           "check_calibration", "check_mechanism", "load_mechanism", "search_sensitivity"]
