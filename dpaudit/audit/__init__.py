"""The audit runner: suite files (:mod:`~dpaudit.audit.spec`) → tasks → certified bounds →
verdicts (:mod:`~dpaudit.audit.runner`)."""

from dpaudit.audit.runner import (PROFILES, AuditRun, Task, execute, exit_status, judge,
                                  plan_suite, run_suites, run_task, task_seed)
from dpaudit.audit.spec import AuditSpec, PairSpec, Suite, SuiteError, load_suite, parse_suite

__all__ = ["PROFILES", "AuditRun", "AuditSpec", "PairSpec", "Suite", "SuiteError", "Task",
           "execute", "exit_status", "judge", "load_suite", "parse_suite", "plan_suite",
           "run_suites", "run_task", "task_seed"]
