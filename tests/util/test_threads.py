"""dpaudit.util.threads: certified numbers are computed with one BLAS/OpenMP thread on every route,
so that no number depends on the machine's threads (issue 27, item 10)."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from dpaudit.api import audit_sampler
from dpaudit.util.threads import one_numerical_thread


def blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info()]


SEEN: list[list[int]] = []


def recording_sampler(dataset, n, rng):
    """A Laplace count that records the BLAS thread counts it runs under."""
    SEEN.append(blas_threads())
    return float(dataset[0]) + rng.laplace(0.0, 1.0, size=n)


def test_the_context_limits_every_loaded_pool_and_restores_it():
    np.ones(2) @ np.ones(2)  # BLAS is loaded
    before = blas_threads()
    assert before, "no BLAS/OpenMP pool is loaded: the test would prove nothing"
    with one_numerical_thread():
        assert set(blas_threads()) == {1}
    assert blas_threads() == before


@pytest.mark.skipif(max(blas_threads() or [1]) < 2,
                    reason="this machine's BLAS runs one thread anyway")
def test_an_in_process_audit_samples_on_one_thread_whatever_the_machine_has():
    before = blas_threads()
    SEEN.clear()
    result = audit_sampler(recording_sampler, claim={"notion": "pure-dp", "epsilon": 1.0},
                           pairs=[([0.0], [1.0])], samples=2000, seed=1, workers=1,
                           representation=False)
    assert result.verdict == "consistent"
    assert SEEN and all(set(threads) == {1} for threads in SEEN)
    assert blas_threads() == before  # the caller's threads are its own again
