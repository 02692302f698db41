"""Worker pools: safe after OpenMP ran in the parent, one thread per worker."""

import numpy as np
import pytest

from dpaudit.util.processes import process_pool

sklearn = pytest.importorskip("sklearn")


def _fit_boosting(seed: int) -> float:
    from sklearn.ensemble import HistGradientBoostingClassifier
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(4000, 3))
    y = (x[:, 0] + 0.3 * rng.normal(size=4000) > 0).astype(int)
    return float(HistGradientBoostingClassifier(max_iter=20).fit(x, y).score(x, y))


def _openmp_threads() -> list[int]:
    from threadpoolctl import threadpool_info
    import sklearn.ensemble  # noqa: F401  (loads scikit-learn's OpenMP runtime)
    return [info["num_threads"] for info in threadpool_info()]


def _results(pool, calls, timeout=120):
    """Results of ``calls`` on ``pool``; a hung worker fails the test instead of hanging it."""
    try:
        return [f.result(timeout=timeout) for f in [pool.submit(*c) for c in calls]]
    finally:
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            p.kill()


@pytest.mark.slow
def test_workers_run_openmp_code_after_the_parent_did():
    """With a plain fork, a child of a process whose OpenMP pool had started waited forever
    on the parent's threads; workers come from a clean fork server instead."""
    assert _fit_boosting(0) > 0.8  # starts OpenMP threads in this (the parent) process
    scores = _results(process_pool(2), [(_fit_boosting, 1), (_fit_boosting, 2)])
    assert all(s > 0.8 for s in scores)


@pytest.mark.slow
def test_each_worker_uses_one_thread():
    (threads,) = _results(process_pool(1), [(_openmp_threads,)])
    assert threads and set(threads) == {1}
