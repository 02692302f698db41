"""Placeholder replaced by the real estimator in this same change."""

def estimate_epsilon_lower_bound(sampler, d0, d1, *, delta=0.0, samples, confidence=0.95,
                                 seed=None, **options):
    raise NotImplementedError
