"""What the PyTorch/Opacus canary harnesses share: the user's two functions, the dataset with
canaries, and the checks that turn a wrong hand-over into one line.

**What the user hands over** (:class:`OpacusTraining`): ``build(dataset)`` — their own code
that makes a model, an optimizer and a ``DataLoader`` over *the dataset it is given* and calls
``PrivacyEngine.make_private`` (any accountant, Poisson or shuffled batches, any optimizer),
returning ``(model, optimizer, data_loader, privacy_engine)``; ``train(model, optimizer,
data_loader)`` — their training loop (epochs, loss, learning-rate schedule).  dpaudit calls
``build`` once per run with the training data plus the canaries, then ``train``; it
never edits their model, loss, loop, sampler, clipping, noise or accountant.

**What dpaudit touches**: the dataset (it appends canaries after the user's records — all m
for gradient canaries, whose excluded ones get a zero gradient; the included ones for input
canaries — and notes which items each batch fetched), and — for gradient canaries only — the
DPOptimizer instance's ``clip_and_accumulate`` (the canary rows' per-sample gradients are
replaced by their Dirac vectors before Opacus clips them) and ``step`` (it reads the noisy
gradient at the canaries' coordinates after each step).  Nothing else.

**Checks** (:class:`CanaryDataset`, :func:`built`): ``build`` must return the four objects, an
Opacus ``DPOptimizer``, and a loader over the dataset it was given (else it would train
without canaries: "fewer canaries than asked"); every item the loader fetches must reach the
optimizer (reading the canary dataset outside training batches — an evaluation pass over it —
would leak canaries into evaluation, and ``num_workers > 0`` hides the fetches): each is one
:class:`~dpaudit.mechanisms.canaries.certify.CanaryError` line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from dpaudit.mechanisms.canaries.certify import CanaryError


def require_torch():
    """torch and opacus, or one line saying how to install them."""
    try:
        import opacus  # noqa: F401
        import torch
    except ImportError as exc:
        raise CanaryError(f"canary audits of PyTorch training need torch and opacus "
                          f"(pip install 'dpaudit[opacus]'): {exc}") from None
    return torch


@dataclass(frozen=True)
class OpacusTraining:
    """The user's hand-over (module docstring).

    Attributes:
      build: ``build(dataset) -> (model, optimizer, data_loader, privacy_engine)``, after
        ``PrivacyEngine.make_private`` on a loader over ``dataset``.
      train: ``train(model, optimizer, data_loader)``: the training loop.
      dataset: the training data (a map-style ``torch.utils.data.Dataset``).
    """

    build: Callable[[Any], tuple]
    train: Callable[[Any, Any, Any], Any]
    dataset: Any

    def __post_init__(self):
        for name in ("build", "train"):
            if not callable(getattr(self, name)):
                raise CanaryError(f"{name} must be a function, got "
                                  f"{type(getattr(self, name)).__name__}")
        try:
            n = len(self.dataset)
        except TypeError:
            raise CanaryError("dataset must be a map-style torch Dataset (with len and "
                              "indexing)") from None
        if n < 1:
            raise CanaryError("the training dataset is empty")


class CanaryDataset:
    """The user's records followed by ``count`` canary items; records each fetched index.

    ``canary_item(j)`` gives the j-th canary item (0-based after the user's records)."""

    def __init__(self, base, canary_item: Callable[[int], Any], count: int):
        self.base, self.canary_item, self.included = base, canary_item, int(count)
        self.n = len(base)
        self.fetched: list[int] = []

    def __len__(self) -> int:
        return self.n + self.included

    def __getitem__(self, index):
        index = int(index)
        if not 0 <= index < len(self):
            raise IndexError(f"index {index} out of range for {len(self)} items")
        self.fetched.append(index)
        return self.base[index] if index < self.n else self.canary_item(index - self.n)

    def take_fetched(self) -> list[int]:
        out, self.fetched = self.fetched, []
        return out


def built(result, dataset: CanaryDataset):
    """``build``'s four objects, checked (module docstring)."""
    from opacus import PrivacyEngine
    from opacus.optimizers import DPOptimizer

    if not isinstance(result, tuple) or len(result) != 4:
        raise CanaryError(f"build(dataset) must return (model, optimizer, data_loader, "
                          f"privacy_engine), got {type(result).__name__}"
                          f"{f' of {len(result)}' if isinstance(result, tuple) else ''}")
    model, optimizer, loader, engine = result
    if not isinstance(optimizer, DPOptimizer):
        raise CanaryError(f"build(dataset) returned a {type(optimizer).__name__} as the "
                          f"optimizer: return the DPOptimizer PrivacyEngine.make_private made")
    if not isinstance(engine, PrivacyEngine):
        raise CanaryError(f"build(dataset) returned a {type(engine).__name__} as the privacy "
                          f"engine: return the PrivacyEngine whose make_private you called")
    if getattr(loader, "dataset", None) is not dataset:
        raise CanaryError("build(dataset) trains on another dataset than the one it was given: "
                          "the canaries would never be trained on (fewer canaries than asked); "
                          "build the DataLoader over the dataset argument")
    dataset.take_fetched()  # make_private's DPDataLoader reads dataset[0] for its shapes
    if getattr(loader, "num_workers", 0):
        raise CanaryError(f"the DataLoader has num_workers = {loader.num_workers}: canary "
                          f"audits need num_workers = 0 (the batches' items are read in "
                          f"this process)")
    return model, optimizer, loader, engine


def check_all_reached(dataset: CanaryDataset) -> None:
    """No item fetched after the last optimizer step (an evaluation pass over the canary
    dataset)."""
    left = dataset.take_fetched()
    if left:
        raise CanaryError(f"the training read {len(left)} items of the training dataset that "
                          f"never reached the optimizer: do not evaluate on the dataset "
                          f"build() was given (canaries would leak into evaluation)")


__all__ = ["CanaryDataset", "OpacusTraining", "built", "check_all_reached", "require_torch"]
