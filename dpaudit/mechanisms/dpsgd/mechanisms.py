"""The ABLQ mechanism of DP-SGD with its four batch samplers (Chua et al., ICML 2024, Sec. 2).

A dataset is n raw one-dimensional per-example gradients (:mod:`.datasets`: a list, or the
multiset form ``{"values": [v, u], "counts": [n − 1, 1]}``).  The mechanism clips each gradient
to [−C, C] (DP-SGD's per-example clipping in one dimension), splits the records into
T = n/b batches per epoch with its batch sampler (:mod:`.samplers`), and at every step t of
E epochs releases the noisy batch sum g_t = Σ_{x ∈ S_t} clip(x) + N(0, σ²C²).  The query is the
same at every step (the gradient-canary abstraction: the adversary fixes the gradients, which is
where the analyses are tight); DP-SGD is post-processing of these releases.

The adversary's view (``view``): ``"all"`` — the vector of the E·T noisy sums (every iterate
released); ``"final"`` — only their sum (the last iterate of SGD on a linear loss).

Neighbouring (``relation``, in the accountants' words): ``"add-remove"`` (the default) is
*zero-out* — one record replaced by the zero record ⊥ (gradient 0), n fixed.  For Poisson
sampling this is the add/remove relation of the accountants: the other records' inclusions do
not depend on the differing record, and a record of gradient 0 contributes nothing, so removing
it and zeroing it give the same output law (so it is for full batches, b = n).  For fixed-size
batches (shuffle, deterministic, balls-and-bins) Chua et al. use the same zero-out relation:
add/remove would change n and with it the number or size of the batches.  ``"replace-one"`` —
one record replaced by another, n fixed (dp_accounting's ``REPLACE_ONE``): the clipped sum
moves by up to 2C, twice what zero-out allows.

The claim (``accountant``): what the pipeline reports — by default the Poisson PLD accountant
at q = b/n over E·n/b steps, whatever the sampler (:mod:`.claim`), for the relation.  With
``target_epsilon`` the pipeline trains with a budget instead: σ is what the accountant's
calibration returns for (target_epsilon, target_delta) and the claim is that budget
(:mod:`.run`; ``noise_multiplier`` is then left out and shows the calibrated σ).  Poisson
batches may run any number of ``steps`` (default E·n/b): a Poisson step does not partition the
data, so T and q = b/n are independent.

Pairs (``worst_case_pairs``): the canary — the last record's gradient C against ⊥ (against −C
under replace-one) — with the other records at 0 (Poisson, balls-and-bins, deterministic: their
contributions are then deterministic or absent) or, for shuffle, at −C: Chua et al.'s
adversarial choice, which makes the zeroed record's batch visible too (MoG(2) vs MoG(1), in
units of C).  Under replace-one the Poisson pair is (1−q)N(0, σ²) + qN(±1, σ²) per step, the
pair dp_accounting's REPLACE adjacency analyses.

No dataset space is declared for a pair search: the adversary's best gradients are known from
the papers (the canary construction above, tight in the gradient-canary model), the space is
n-dimensional (n ≈ 10³) and a random search over it would only find weaker pairs.

Exact curves (``exact_epsilon``, :mod:`.curves`): deterministic — the Gaussian shift of norm
√E·Δ/σ (closed form); Poisson — the optimistic end of dp_accounting's PLD bracket at a fine
discretisation (≤ the true ε; the bracket's width is the accuracy), of the add/remove pair or,
for C against −C, of the replace-one pair; shuffle and balls-and-bins
(one epoch) — Chua et al.'s max-statistic curve, a lower bound on the pair's ε (quadrature,
accuracy ~1e-9 in δ); the final view — closed-form Gaussians or a binomial Gaussian mixture.
shuffle and balls-and-bins over E > 1 epochs — the lower end of the E-epoch max-statistic
bracket (:mod:`dpaudit.exact.shuffle_epochs`, rigorous).  ``None`` where none of these
applies.  ``epsilon_bracket`` (the :class:`~dpaudit.mechanisms.capabilities.BracketedEpsilon`
capability) returns the [lower, upper] bracket the exact-curve check compares claims with.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from dpaudit.util import validation
from dpaudit.exact import GaussianMixtureProfile, gaussian_epsilon
from dpaudit.exact.shuffle_epochs import shuffle_epochs_bracket
from dpaudit.exact.subsampled_gaussian import subsampled_gaussian_bracket
from dpaudit.mechanisms.base import Mechanism, NeighbourPair
from dpaudit.evidence.exact_curve import EpsilonBracket
from dpaudit.mechanisms.canaries.source import CanaryRuns, CanarySource
from dpaudit.mechanisms.capabilities import BracketedEpsilon, LogDensity
from dpaudit.mechanisms.dpsgd.datasets import (canary_structure, expand_gradients,
                                               gradient_dataset, one_record_replaced,
                                               replace_one_relation, zero_out_relation)
from dpaudit.mechanisms.dpsgd.claim import ACCOUNTANTS, DETERMINISTIC_MU, accountant_claim
from dpaudit.mechanisms.dpsgd.curves import poisson_pld_lower, shuffle_max_curve
from dpaudit.mechanisms.dpsgd.run import calibrated_run
from dpaudit.mechanisms.dpsgd.samplers import SAMPLERS, Poisson
from dpaudit.mechanisms.parameters import Parameter, choice_parameter
from dpaudit.mechanisms.sgld.parameters import (count_parameter, parameter_number,
                                                positive_parameter)
from dpaudit.neighbours import NeighbourRelation

VIEWS = ("all", "final")
#: the neighbouring relations, in the accountants' words (module docstring)
RELATIONS = ("add-remove", "replace-one")
#: σ when neither noise_multiplier nor target_epsilon is given
DEFAULT_NOISE_MULTIPLIER = 1.0


def _optional(check):
    def optional(name, value):
        return None if value is None else check(name, value)
    return optional


class ABLQ(BracketedEpsilon, LogDensity, CanaryRuns, Mechanism):
    """Adaptive batch linear queries with a batch sampler (module docstring).  The
    registered subclasses fix ``sampler``.  Its one-run canary mode (``kind = "canary"``):
    m Dirac gradient canaries, each on its own coordinate, scored by their log-likelihood
    ratio under the mechanism's own sampler and view
    (:class:`~dpaudit.mechanisms.canaries.simulated.DPSGDCanaryRun`)."""

    family = "dpsgd"
    batch_sampler = "abstract"
    #: every canary has its own coordinate and noise: scores independent given the bits
    independent_canary_scores = True

    n = count_parameter(1000, "dataset size n", 2)
    batch_size = count_parameter(10, "batch size b (divides n; T = n/b steps per epoch)", 1)
    epochs = count_parameter(1, "epochs E", 1)
    noise_multiplier = Parameter(None, _optional(parameter_number), "noise multiplier σ "
                                 "(noise N(0, σ²C²)); default 1, or the calibrated σ with "
                                 "target_epsilon")
    clip_norm = positive_parameter(1.0, "clipping norm C")
    view = choice_parameter("all", VIEWS, "the adversary's view: every noisy sum or their sum")
    accountant = choice_parameter("pld", ACCOUNTANTS, "the claim: Poisson PLD (dp_accounting), "
                                  "a library's accountant ('opacus:gdp', …), "
                                  "Poisson RDP (MTZ 2019) or the deterministic Gaussian")
    relation_name = choice_parameter("add-remove", RELATIONS, "neighbouring relation: "
                                     "add-remove (one record zeroed) or replace-one",
                                     name="relation")
    target_epsilon = Parameter(None, _optional(parameter_number), "train with a budget: σ is "
                               "the accountant's calibration to (target_epsilon, target_delta)")
    target_delta = Parameter(None, _optional(lambda name, value: validation.delta(
        name, value, allow_zero=False)), "the budget's δ (with target_epsilon)")

    def derive(self) -> None:
        if self.n % self.batch_size:
            raise ValueError(f"batch_size must divide n = {self.n}, got {self.batch_size}")
        self.steps_per_epoch = self.n // self.batch_size
        self.q = self.batch_size / self.n
        self.batches = SAMPLERS[self.batch_sampler]
        self.derive_steps(self.epochs * self.steps_per_epoch)
        self.calibration = None
        if self.target_epsilon is None:
            if self.target_delta is not None:
                raise ValueError("target_delta is the budget's δ: give it with target_epsilon")
            if self.noise_multiplier is None:
                self.resolve_parameter("noise_multiplier", DEFAULT_NOISE_MULTIPLIER)
            return
        if self.noise_multiplier is not None:
            raise ValueError("give noise_multiplier or target_epsilon (σ calibrated by the "
                             "accountant), not both")
        if self.target_delta is None:
            raise ValueError("target_epsilon needs target_delta (the budget's δ)")
        self.calibration = calibrated_run(
            self.accountant, q=self.q, steps=self.steps, relation=self.relation_name,
            target_epsilon=self.target_epsilon, target_delta=self.target_delta)
        self.resolve_parameter("noise_multiplier", self.calibration.noise_multiplier)

    def derive_steps(self, whole_epochs: int) -> None:
        """Set T (every sampler here runs whole epochs; Poisson overrides)."""
        self.steps = whole_epochs

    # -- contract -----------------------------------------------------------------------------
    def claim(self):
        if self.calibration is not None:
            return self.calibration
        return accountant_claim(self.accountant, q=self.q, sigma=self.noise_multiplier,
                                steps=self.steps, epochs=self.epochs,
                                relation=self.relation_name)

    def relation(self) -> NeighbourRelation:
        if self.relation_name == "replace-one":
            return replace_one_relation()
        return zero_out_relation()

    def validate_dataset(self, dataset) -> np.ndarray:
        return gradient_dataset(dataset, self.n)

    def clipped(self, dataset) -> np.ndarray:
        """The records clipped to [−C, C], in units of C."""
        return np.clip(self.validate_dataset(dataset), -self.clip_norm,
                       self.clip_norm) / self.clip_norm

    def worst_case_pairs(self) -> list[NeighbourPair]:
        other = -self.clip_norm if self.batch_sampler == "shuffle" else 0.0
        replace = self.relation_name == "replace-one"
        canary = {"values": [other, self.clip_norm], "counts": [self.n - 1, 1]}
        zeroed = {"values": [other, -self.clip_norm if replace else 0.0],
                  "counts": [self.n - 1, 1]}
        why = ("Chua et al.'s shuffle pair: the other records at −C, so both the canary's and "
               "the zero record's batch stand out (MoG(2) vs MoG(1))" if other else
               "the gradient canary: the other records contribute 0")
        if replace:
            why = ("one record replaced: its clipped gradient moves by 2C; "
                   + ("the other records at −C" if other else "the other records contribute 0"))
        against = "−C" if replace else "the zero record ⊥"
        return [NeighbourPair("canary", canary, zeroed,
                              f"the last record's gradient C vs {against}; {why}")]

    def pairs_size(self):
        return None

    def canary_source(self, plan, options: dict) -> CanarySource:
        from dpaudit.mechanisms.canaries.simulated import DPSGDCanaryRun

        return CanarySource(DPSGDCanaryRun(plan, self), None,
                            f"Dirac gradient canaries, {self.batch_sampler} batches, view "
                            f"{self.view}")

    def sample(self, dataset, n, rng) -> np.ndarray:
        size = validation.draw_request(n, rng)
        values = self.clipped(dataset)
        T = self.steps_per_epoch
        structure = canary_structure(values)
        epochs = []
        for _ in range(self.epochs):
            if structure is not None:
                v, u, i = structure
                others, member = self.batches.canary_epoch(self.n, T, i, size, rng,
                                                           count_others=v != 0.0)
                epochs.append(u * member if others is None else v * others + u * member)
            else:
                epochs.append(self.batches.epoch_sums(values, T, size, rng))
        sums = np.concatenate(epochs, axis=1)
        sums += self.noise_multiplier * rng.standard_normal(sums.shape)
        sums *= self.clip_norm
        return sums.sum(axis=1) if self.view == "final" else sums

    # -- exact laws ---------------------------------------------------------------------------
    def _law(self, dataset):
        """(v, u, i) of a canary dataset whose output law has a closed form, else None."""
        s = canary_structure(self.clipped(dataset))
        if s is None:
            return None
        v, u, i = s
        if self.view == "final" and self.batch_sampler != "poisson":
            return s
        if self.batch_sampler in ("poisson", "balls-and-bins") and v != 0.0:
            return None  # the other records' random counts add noise: no closed form here
        return s

    def log_density(self, dataset, outputs) -> np.ndarray:
        """The exact log-density of the output on a canary dataset (white-box audits)."""
        law = self._law(dataset)
        if law is None:
            raise ValueError("no closed-form law for this dataset: audit it black-box "
                             "(white_box = false)")
        v, u, i = law
        s, C = self.noise_multiplier, self.clip_norm
        x = np.asarray(outputs, dtype=float) / C
        T, b = self.steps_per_epoch, self.batch_size
        if self.view == "final":
            total = self.steps * s * s
            if self.batch_sampler == "poisson":  # u·Binomial(E·T, q) + N(0, E·T·σ²)
                k = np.arange(self.steps + 1)
                logw = stats.binom.logpmf(k, self.steps, self.q)
                z = (x[:, None] - u * k[None, :]) ** 2
                out = special.logsumexp(logw - 0.5 * z / total, axis=1)
            else:
                mean = self.epochs * (v * (self.n - 1) + u)
                out = -0.5 * (x - mean) ** 2 / total
            return out - 0.5 * math.log(2 * math.pi * total) - math.log(C)
        if x.ndim == 1:  # one step in all: the outputs may come as a vector
            x = x[:, None]
        base = v * b if self.batches.fixed_size else 0.0
        a = u - v if self.batches.fixed_size else u
        y = x - base
        gauss = (-0.5 * (y * y).sum(axis=1) / (s * s)
                 - y.shape[1] * (0.5 * math.log(2 * math.pi * s * s) + math.log(C)))
        factor = (2 * a * y - a * a) / (2 * s * s)  # mixture_component_log_factor
        if self.batch_sampler == "poisson":
            return gauss + np.logaddexp(math.log1p(-self.q), math.log(self.q) + factor).sum(1)
        blocks = factor.reshape(len(y), self.epochs, T)
        if self.batch_sampler == "deterministic":
            return gauss + blocks[:, :, i // b].sum(axis=1)
        return gauss + (special.logsumexp(blocks, axis=2) - math.log(T)).sum(axis=1)

    def exact_epsilon(self, d0, d1, delta: float = 0.0):
        """The pair's ε(δ) from :mod:`.curves` (module docstring); never above the true ε
        (a lower end or a lower bound where it is numerical), ``None`` where not covered."""
        l0, l1 = self._law(d0), self._law(d1)
        if l0 is None or l1 is None or l0[0] != l1[0] or l0[2] != l1[2]:
            return None
        u0, u1 = l0[1], l1[1]
        diff = abs(u0 - u1)
        s = self.noise_multiplier
        if diff == 0.0:
            return 0.0
        if self.view == "final":
            if self.batch_sampler != "poisson":
                return gaussian_epsilon(delta, self.epochs * diff / (s * math.sqrt(self.steps)))
            if min(abs(u0), abs(u1)) != 0.0:
                return None
            k = np.arange(self.steps + 1)
            sd = s * math.sqrt(self.steps)
            prof = GaussianMixtureProfile(stats.binom.pmf(k, self.steps, self.q),
                                          k * diff, np.full(k.size, sd), [1.0], [0.0], [sd])
            return float(prof.symmetric().epsilon(delta))
        if self.batch_sampler == "deterministic":
            return gaussian_epsilon(delta, DETERMINISTIC_MU(E=self.epochs, Delta=diff, sigma=s))
        if delta <= 0.0:
            return math.inf
        if self.batch_sampler == "poisson":
            pair = self._poisson_pair(u0, u1)
            if pair is None:
                return None
            scale, relation = pair
            return poisson_pld_lower(s / scale, self.q, self.steps, float(delta),
                                     relation=relation)
        shifts = self._max_statistic_shifts(l0, l1)
        if shifts is None:
            return None
        if self.epochs == 1:
            return shuffle_max_curve(*shifts, s, self.steps_per_epoch).epsilon(float(delta))
        return shuffle_epochs_bracket(*shifts, s, self.steps_per_epoch, self.epochs,
                                      float(delta)).lower

    @staticmethod
    def _poisson_pair(u0: float, u1: float) -> tuple[float, str] | None:
        """(scale, relation) of the Poisson pair of canary values u0 vs u1 (units of C, the
        other records at 0): the add/remove pair at shift |u0 − u1| when one is 0, the
        replace-one pair (1−q)N(0) + qN(±u) at u when u1 = −u0; else None (no curve)."""
        if min(abs(u0), abs(u1)) == 0.0:
            return abs(u0 - u1), "add-remove"
        if u0 == -u1:
            return abs(u0), "replace-one"
        return None

    def _max_statistic_shifts(self, l0, l1) -> tuple[float, float] | None:
        """(a_hi, a_lo) of the max-statistic pair MoG(a_hi) vs MoG(a_lo) of two canary laws of
        a shuffled or balls-and-bins epoch (in units of C), or None (offsets of both signs)."""
        v, u0, _ = l0
        u1 = l1[1]
        a0, a1 = (u0 - v, u1 - v) if self.batches.fixed_size else (u0, u1)
        if a0 * a1 < 0:
            return None
        sign = 1.0 if a0 + a1 > 0 else -1.0
        hi, lo = sorted((sign * a0, sign * a1), reverse=True)
        return hi, lo

    def epsilon_bracket(self, d0, d1, delta: float) -> EpsilonBracket | None:
        """[lower, upper] on the pair's ε(δ) (:class:`BracketedEpsilon`): the final view and
        deterministic batches in closed form (lower = upper); Poisson — the T-fold subsampled
        Gaussian's PLD bracket (:mod:`dpaudit.exact.subsampled_gaussian`); shuffle and balls-and-bins — the
        E-epoch max-statistic lower end (:mod:`dpaudit.exact.shuffle_epochs`) against the
        deterministic batches' closed form, an upper bound on every batch sampler that is a
        mixture of deterministic assignments (joint convexity).  ``None`` where
        ``exact_epsilon`` has no curve."""
        delta = validation.delta("delta", delta, allow_zero=False)
        l0, l1 = self._law(d0), self._law(d1)
        if l0 is None or l1 is None or l0[0] != l1[0] or l0[2] != l1[2]:
            return None
        diff, s = abs(l0[1] - l1[1]), self.noise_multiplier
        if diff == 0.0:
            return EpsilonBracket.closed_form(0.0, "identical output laws")
        if self.view == "final" or self.batch_sampler == "deterministic":
            exact = self.exact_epsilon(d0, d1, delta)
            return None if exact is None else EpsilonBracket.closed_form(
                exact, f"closed form ({self.view} view, {self.batch_sampler} batches)")
        if self.batch_sampler == "poisson":
            pair = self._poisson_pair(l0[1], l1[1])
            if pair is None:
                return None
            scale, relation = pair
            lower, upper = subsampled_gaussian_bracket(s / scale, self.q, self.steps, delta,
                                                       relation)
            return EpsilonBracket(lower, upper, f"privacy-loss distribution of the Poisson-"
                                                f"subsampled Gaussian, {relation} "
                                                f"(dp_accounting; optimistic and pessimistic "
                                                f"ends)")
        shifts = self._max_statistic_shifts(l0, l1)
        if shifts is None:
            return None
        lower = shuffle_epochs_bracket(*shifts, s, self.steps_per_epoch, self.epochs,
                                       delta).lower
        upper = gaussian_epsilon(delta, DETERMINISTIC_MU(E=self.epochs, Delta=diff, sigma=s))
        return EpsilonBracket(lower, max(lower, float(upper)),
                              f"{self.epochs}-epoch max-statistic lower end (Chua et al.); "
                              f"deterministic batches' closed form as the upper end")


class PoissonABLQ(ABLQ):
    """ABLQ with Poisson subsampling (rate q = b/n per record and step): DP-SGD as analysed.
    Its ``steps`` (default E·n/b) may be any number: one run of T Poisson steps at rate q."""

    name = "dpsgd-poisson"
    batch_sampler = "poisson"

    steps = Parameter(None, _optional(lambda name, value: int(parameter_number(
        name, value, integer=True, minimum=1))), "steps T in all (default E·n/b; with it, "
        "epochs stays 1)")

    def derive_steps(self, whole_epochs: int) -> None:
        self.batches = Poisson(rate=self.q)
        given = self.params["steps"]
        if given is not None:
            if self.epochs != 1:
                raise ValueError(f"give epochs or steps, not both (got epochs = {self.epochs}, "
                                 f"steps = {given})")
            self.steps_per_epoch = given
        self.resolve_parameter("steps", given if given is not None else whole_epochs)


class ShuffleABLQ(ABLQ):
    """ABLQ with shuffled fixed-size batches (a fresh permutation per epoch): DP-SGD as
    usually implemented."""

    name = "dpsgd-shuffle"
    batch_sampler = "shuffle"


class BallsAndBinsABLQ(ABLQ):
    """ABLQ with balls-and-bins batches (each record to one random step per epoch)."""

    name = "dpsgd-balls-and-bins"
    batch_sampler = "balls-and-bins"


class DeterministicABLQ(ABLQ):
    """ABLQ with deterministic batches (consecutive blocks of b, the same every epoch)."""

    name = "dpsgd-deterministic"
    batch_sampler = "deterministic"


__all__ = ["ABLQ", "BallsAndBinsABLQ", "DeterministicABLQ", "PoissonABLQ", "RELATIONS",
           "ShuffleABLQ", "VIEWS", "canary_structure", "expand_gradients", "one_record_replaced",
           "replace_one_relation"]
