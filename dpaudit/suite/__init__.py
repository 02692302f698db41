"""Suite files: TOML → :class:`~dpaudit.suite.spec.Suite`, the first stage of a run.

* :mod:`dpaudit.suite.spec` — a suite file parsed and validated into frozen
  :class:`~dpaudit.suite.spec.Suite` / :class:`~dpaudit.suite.spec.AuditSpec` values;
* :mod:`dpaudit.suite.fields` — :class:`SuiteError` (the readers of an audit's values are the
  spec's: :mod:`dpaudit.spec.fields`, :mod:`dpaudit.spec.audit`);
* :mod:`dpaudit.suite.target_keys` and :mod:`dpaudit.suite.targets` — what an audit audits
  (a registered mechanism, user code, a plain sampler) as a picklable
  :class:`~dpaudit.suite.targets.Target`;
* :mod:`dpaudit.suite.requires` — the optional libraries a suite needs;
* :mod:`dpaudit.suite.toml_file` — reading a suite's TOML safely, whatever the path names.

Nothing here samples or certifies: a suite is data.
"""

from dpaudit.suite.fields import SuiteError
from dpaudit.suite.spec import AuditSpec, PairSpec, Suite, load_suite, parse_suite

__all__ = ["AuditSpec", "PairSpec", "Suite", "SuiteError", "load_suite", "parse_suite"]
