"""Counting the kept events over the certification split, in chunk ranges.

The certification split of a certificate is two chunked sample streams (one per side, see
:class:`dpaudit.distinguish.sampling.Stream`).  Every chunk draws from its own
``SeedSequence`` child keyed by (seed, phase, side, chunk index), and the count of an event
over a stream is the sum of its counts over the chunks.  So the counts of *any* partition of a
stream's chunks into ranges, computed anywhere and summed, are the counts of the whole stream,
bit for bit (integer sums do not depend on the order).  That is the contract every
:class:`EventCounter` keeps, and what makes a certificate independent of where it was counted.

* :class:`CountJob` — what to count: the sampler, the two streams and their datasets, the
  fitted statistics and the kept events (all picklable).
* :func:`count_chunks` — the unit of work: the counts of the chunks ``[start, stop)`` of one
  side.
* :class:`EventCounter` — where the work runs: :class:`SerialCounter` (this process),
  :class:`ProcessCounter` (the two sides in two local processes); the Dask backend
  (:mod:`dpaudit.backends.dask_backend`) splits the chunk ranges across a cluster.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.distinguish.events import count_events
from dpaudit.distinguish.sampling import Stream, draw
from dpaudit.util.processes import process_pool, submit


@dataclass(frozen=True)
class CountJob:
    """The certification split of one certificate.

    Attributes:
      sampler: ``sampler(dataset, n, rng)``, as the selection split saw it.
      datasets: (d0, d1).
      streams: the two certification streams (side 0 and side 1).
      stats: the fitted statistics.
      chosen: the kept candidate events.
      shape: the per-output shape every chunk must have (``()`` for scalars).
    """

    sampler: Any
    datasets: tuple
    streams: tuple[Stream, Stream]
    stats: tuple
    chosen: tuple
    shape: tuple

    def n_chunks(self, side: int) -> int:
        """Number of chunks of side ``side``'s stream."""
        stream = self.streams[side]
        return -(-stream.total // stream.chunk_rows)


def count_chunks(job: CountJob, side: int, start: int, stop: int) -> np.ndarray:
    """Counts (int64, one per kept event) of the chunks ``start ≤ index < stop`` of one side.

    Raises:
      ValueError: the sampler's output shape changed between chunks (or any
        :class:`~dpaudit.distinguish.sampling.SamplerError`).
    """
    stream = job.streams[side]
    label = f"d{side}"
    total = np.zeros(len(job.chosen), dtype=np.int64)
    for index in range(start, stop):
        rows = min(stream.chunk_rows, stream.total - index * stream.chunk_rows)
        x = draw(job.sampler, job.datasets[side], rows, stream.rng(index), side=label)
        if x.shape[1:] != job.shape:
            raise ValueError(f"sampler output shape changed on {label}: {x.shape[1:]} vs "
                             f"{job.shape}")
        total += count_events(list(job.stats), list(job.chosen), x)
    return total


def count_side(job: CountJob, side: int) -> np.ndarray:
    """Counts of the whole stream of one side."""
    return count_chunks(job, side, 0, job.n_chunks(side))


class EventCounter(abc.ABC):
    """Where a certificate's certification split is counted.

    Implementations may split the chunks of each side however they like; they must return
    exactly the sums of :func:`count_chunks` over all chunks (see the module docstring)."""

    @abc.abstractmethod
    def count(self, job: CountJob) -> list[np.ndarray]:
        """[counts of side 0, counts of side 1], each int64 with one entry per kept event."""


class SerialCounter(EventCounter):
    """Both sides in this process, chunk by chunk (memory: one chunk at a time)."""

    def count(self, job: CountJob) -> list[np.ndarray]:
        return [count_side(job, 0), count_side(job, 1)]


class ProcessCounter(EventCounter):
    """The two sides in two local worker processes (:func:`dpaudit.util.processes.process_pool`);
    the sampler must be serialisable by cloudpickle."""

    def count(self, job: CountJob) -> list[np.ndarray]:
        with process_pool(2) as pool:
            futures = [submit(pool, count_side, job, side) for side in (0, 1)]
            return [f.result() for f in futures]


__all__ = ["CountJob", "EventCounter", "ProcessCounter", "SerialCounter", "count_chunks",
           "count_side"]
