"""The audit runner, by stage: suite files (:mod:`~dpaudit.audit.spec`) → tasks
(:mod:`~dpaudit.audit.plan`) → certified curves (:mod:`~dpaudit.audit.execute`) → typed records
and verdicts (:mod:`~dpaudit.audit.records`); :mod:`~dpaudit.audit.runner` runs them all,
reporting through :mod:`~dpaudit.audit.progress` and selecting with :mod:`~dpaudit.audit.select`."""

from dpaudit.audit.execute import default_workers, execute, execute_with_jobs, run_task
from dpaudit.audit.plan import Task, plan_jobs, plan_suite, resolve_samples, task_seed
from dpaudit.audit.progress import (RunCounts, RunProgress, format_progress, make_progress,
                                    print_progress)
from dpaudit.audit.records import (EXACT_SLACK, SCHEMA_FILE, SCHEMA_VERSION, VERDICTS,
                                   AuditOutcome, CertificateJudgement, CertificateRecord,
                                   SuiteSummary, SweepPoint, exit_status, judge,
                                   judge_certificate)
from dpaudit.claims import claimed_renyi, has_renyi_claim
from dpaudit.audit.runner import PROFILES, AuditRun, run_suites
from dpaudit.audit.select import AuditFilter, SelectionError
from dpaudit.audit.spec import AuditSpec, PairSpec, Suite, SuiteError, load_suite, parse_suite

__all__ = ["EXACT_SLACK", "PROFILES", "SCHEMA_FILE", "SCHEMA_VERSION", "VERDICTS", "AuditFilter",
           "AuditOutcome", "AuditRun", "AuditSpec", "CertificateJudgement", "CertificateRecord",
           "PairSpec", "RunCounts", "RunProgress", "SelectionError", "Suite", "SuiteError",
           "SuiteSummary", "SweepPoint", "Task", "claimed_renyi", "default_workers", "execute",
           "execute_with_jobs", "exit_status", "format_progress", "has_renyi_claim", "judge",
           "judge_certificate", "load_suite", "make_progress", "parse_suite", "plan_jobs",
           "plan_suite", "print_progress", "resolve_samples", "run_suites", "run_task", "task_seed"]
