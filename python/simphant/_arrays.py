"""Argument checks shared by the package: instance ids and caller-provided `out` arrays."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

#: Instance ids: one index, a sequence or 1-D integer array of distinct indices in
#: [0, n_instances), or a boolean mask of length n_instances; None means every instance.
Ids = Union[None, int, Sequence[int], np.ndarray]


def as_ids(ids: Ids, n_instances: int, name: str = "ids") -> Optional[np.ndarray]:
    """Returns ids as a C-contiguous int32 array, or None for every instance.

    Raises TypeError for a non-integer array, IndexError for an index outside
    [0, n_instances) and ValueError for a mask of the wrong length or a 2-D array.
    Repeated ids are refused by the core (ValueError).
    """
    if ids is None:
        return None
    a = np.asarray(ids)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise ValueError(f"{name}: must be 1-D (got shape {a.shape})")
    if a.dtype == np.bool_:
        if a.shape[0] != n_instances:
            raise ValueError(f"{name}: a boolean mask must have n_instances = {n_instances} entries (got {a.shape[0]})")
        a = np.flatnonzero(a)
    elif a.size == 0:
        a = a.astype(np.int64)
    elif not np.issubdtype(a.dtype, np.integer):
        raise TypeError(f"{name}: instance indices must be integers (got dtype {a.dtype})")
    if a.size and (a.min() < 0 or a.max() >= n_instances):
        bad = int(a.min()) if a.min() < 0 else int(a.max())
        raise IndexError(f"{name}: instance {bad} is out of range [0, {n_instances})")
    return np.ascontiguousarray(a, dtype=np.int32)


def out_array(out: Optional[np.ndarray], shape: Tuple[int, ...], dtype=np.float64, name: str = "out") -> np.ndarray:
    """Returns `out` after checking it can be written in place, or a new array.

    Raises TypeError when `out` is not a NumPy array of `dtype`, ValueError when it is
    not C-contiguous, not writable or not of `shape`.
    """
    if out is None:
        return np.empty(shape, dtype=dtype)
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{name}: must be a numpy.ndarray (got {type(out).__name__})")
    if out.dtype != np.dtype(dtype):
        raise TypeError(f"{name}: must have dtype {np.dtype(dtype).name} (got {out.dtype.name})")
    if out.shape != tuple(shape):
        raise ValueError(f"{name}: must have shape {tuple(shape)} (got {out.shape})")
    if not out.flags.c_contiguous:
        raise ValueError(f"{name}: must be C-contiguous")
    if not out.flags.writeable:
        raise ValueError(f"{name}: is read-only")
    return out


def real_array(value: Any, name: str) -> np.ndarray:
    """`value` as a C-contiguous float64 array. Raises TypeError for complex values (their
    imaginary part would be dropped without a word), naming the argument `name`."""
    a = np.asarray(value)
    if np.iscomplexobj(a):
        raise TypeError(f"{name}: complex values (dtype {a.dtype.name}) are not accepted: give real numbers")
    return np.ascontiguousarray(a, dtype=np.float64)
