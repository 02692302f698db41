"""Zero-out neighbours of matrix datasets (the Gaussian mixing paper's relation).

A dataset is an n × d matrix whose rows are records.  X and X′ are *zero-out neighbours* when
they have the same shape and differ in exactly one row, which is the zero vector in one of them
("removing a row is identified with replacing it by 0⃗_d", Lev et al., footnote 1; also called
zero-out neighbouring).  The dataset in which the row is non-zero is the one that *contains*
the record.

:func:`zero_out_one_row` is the relation as a predicate ``(d0, d1) -> (ok, reason)``;
:func:`removed_row` returns (which side contains the record, its index).
"""

from __future__ import annotations

import numpy as np


def _matrix(d) -> np.ndarray:
    arr = np.asarray(d, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    return arr


def removed_row(d0, d1) -> tuple[int, int]:
    """(side, index): side 0 if d0 contains the record (d1 has the zero row), else 1.

    Raises ValueError when (d0, d1) are not zero-out neighbours."""
    a, b = _matrix(d0), _matrix(d1)
    if a.shape != b.shape:
        raise ValueError(f"zero-out neighbours have the same shape; got {a.shape} and {b.shape}")
    differ = np.flatnonzero(np.any(a != b, axis=1))
    if differ.size != 1:
        raise ValueError(f"zero-out neighbours differ in exactly one row; {differ.size} rows "
                         f"differ" + (f" (rows {differ[:5].tolist()})" if differ.size else ""))
    i = int(differ[0])
    if not np.any(a[i]):
        return 1, i
    if not np.any(b[i]):
        return 0, i
    return -1, i


def zero_out_one_row(d0, d1) -> tuple[bool, str]:
    """Same shape, one row differs, and that row is all zeros in one of the two datasets."""
    try:
        side, i = removed_row(d0, d1)
    except ValueError as exc:
        return False, str(exc)
    if side < 0:
        return False, (f"row {i} differs but is zero in neither dataset (zero-out neighbours "
                       f"replace one row by 0⃗)")
    return True, ""


__all__ = ["zero_out_one_row", "removed_row"]
