"""Black-box input-space canaries: mislabelled examples, scored by the trained model's loss.

For users who can only see the final model.  Canary i is a real input x with a label y′ drawn
uniformly from the *other* classes (a mislabelled example: the model learns it only by
memorising it).  The included canaries join the training dataset as ordinary items
(:class:`.torch_common.CanaryDataset`): the user's loader samples them, their gradients are
the model's own, Opacus clips and noises them like every record — dpaudit hooks nothing in
the training.  After the run each canary's score is −loss(model(x_i), y′_i) (default: the
per-example cross-entropy; or the user's ``loss(model, inputs, labels) -> per-example
losses``), computed by dpaudit on the m canaries alone, in evaluation mode, without
gradients.  Higher = "looks memorised" = guessed included.

The same one-run statistics apply (the score is a function of the released model alone).
Input-space canaries on a real model are far weaker than gradient canaries (Steinke et al.
2023, Sec. 6; Nasr et al. 2023): their gradients are clipped and share the model with the
data, so a consistent verdict here says little; the report's power line says how little.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from dpaudit.mechanisms.canaries.certify import CanaryError
from dpaudit.mechanisms.canaries.design import CanaryPlan, run_seed
from dpaudit.mechanisms.canaries.torch_common import (CanaryDataset, OpacusTraining, built,
                                                      require_torch)


def _labels(dataset) -> np.ndarray:
    tensors = getattr(dataset, "tensors", None)
    if tensors is not None and len(tensors) == 2:
        return tensors[1].numpy()
    return np.asarray([int(dataset[i][1]) for i in range(len(dataset))])


@dataclass
class InputCanaryRun:
    """``run(index, bits) -> scores`` of mislabelled input canaries (module docstring).

    Attributes:
      plan, training: the audit's plan and the user's hand-over.
      num_classes: the number of classes (default: 1 + the largest label of the dataset).
      loss: ``loss(model, inputs, labels) -> per-example losses`` (default cross-entropy).
    """

    plan: CanaryPlan
    training: OpacusTraining
    num_classes: int | None = None
    loss: Callable | None = None
    engine: object = field(default=None, init=False)
    canaries: tuple | None = field(default=None, init=False)

    def _make(self, torch):
        """The m canaries (x, y′): fixed by the plan's seed, the same in every run."""
        base = self.training.dataset
        labels = _labels(base)
        k = int(self.num_classes or labels.max() + 1)
        if k < 2:
            raise CanaryError("mislabelled canaries need at least two classes")
        rng = np.random.default_rng(np.random.SeedSequence(int(self.plan.seed),
                                                           spawn_key=(0x1C, 0)))
        rows = rng.integers(0, len(base), size=self.plan.canaries)
        shift = rng.integers(1, k, size=self.plan.canaries)
        inputs = torch.stack([torch.as_tensor(base[int(r)][0]) for r in rows])
        wrong = torch.as_tensor((labels[rows] + shift) % k, dtype=torch.long)
        return inputs, wrong

    def __call__(self, index: int, bits) -> np.ndarray:
        torch = require_torch()
        if self.canaries is None:
            self.canaries = self._make(torch)
        inputs, wrong = self.canaries
        included = np.flatnonzero(np.asarray(bits, dtype=bool))
        dataset = CanaryDataset(self.training.dataset,
                                lambda j: (inputs[included[j]], wrong[included[j]]),
                                included.size)
        torch.manual_seed(run_seed(self.plan, index) % (2 ** 63))
        model, optimizer, loader, engine = built(self.training.build(dataset), dataset)
        self.training.train(model, optimizer, loader)
        self.engine = engine
        was_training = model.training
        model.eval()
        try:
            with torch.no_grad():
                if self.loss is None:
                    losses = torch.nn.functional.cross_entropy(model(inputs), wrong,
                                                               reduction="none")
                else:
                    losses = torch.as_tensor(self.loss(model, inputs, wrong))
        finally:
            model.train(was_training)
        return -losses.detach().numpy().astype(float).reshape(-1)


__all__ = ["InputCanaryRun"]
