"""Bit-for-bit comparison of two simphant output files (h5py): every dataset's values,
dtype and shape, and every attribute of every object, wall_time_s aside (the run's wall
time; a merge takes its shards' largest) and the provenance of the start (start_time,
command_line, device: the threads of the run, git_commit); dimension scales compared by the names of the scales attached to each axis."""
from __future__ import annotations

from typing import Dict, Optional, Tuple

import h5py
import numpy as np

TIMING_ATTRS = {"wall_time_s", "start_time", "command_line", "device", "git_commit"}
#: Dimension-scale links: object references, compared by the scales' names instead.
LINK_ATTRS = {"DIMENSION_LIST", "REFERENCE_LIST"}


def _contents(path) -> Tuple[Dict[str, np.ndarray], Dict[str, dict]]:
    data: Dict[str, np.ndarray] = {}
    attrs: Dict[str, dict] = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            attrs[name] = {k: v for k, v in obj.attrs.items() if k not in TIMING_ATTRS | LINK_ATTRS}
            if isinstance(obj, h5py.Dataset):
                data[name] = obj[()]
                attrs[name]["(dimensions)"] = [list(d.keys()) for d in obj.dims]

        visit("/", f)
        f.visititems(visit)
    return data, attrs


def assert_same_file(expected, actual, nan_frames: Optional[Tuple[int, int, int]] = None) -> int:
    """Asserts that `actual` holds what `expected` holds, bit for bit; returns the number
    of datasets compared. nan_frames = (frame_from, begin, end): in every (time, instance,
    ...) dataset of `actual` the frames from frame_from of the instances [begin, end) are
    NaN instead (a merged file whose shard of those instances ended early, all of them
    failed: README "Shards and merge")."""
    want, want_attrs = _contents(expected)
    got, got_attrs = _contents(actual)
    assert sorted(got) == sorted(want)
    for name, a in want.items():
        b = got[name]
        assert a.dtype == b.dtype and a.shape == b.shape, name
        if nan_frames is not None and want_attrs[name]["(dimensions)"][:2] == [["time"], ["instance"]]:
            f0, lo, hi = nan_frames
            assert b[f0:, lo:hi].size > 0 and np.isnan(b[f0:, lo:hi]).all(), name
            a = a.copy()
            a[f0:, lo:hi] = b[f0:, lo:hi]
        if a.dtype.kind in "fc":  # compare the bytes: NaN == NaN, and -0.0 != 0.0
            assert a.tobytes() == b.tobytes(), name
        else:
            assert np.array_equal(a, b), name
    assert sorted(got_attrs) == sorted(want_attrs)
    for name, a in want_attrs.items():
        b = got_attrs[name]
        assert sorted(a) == sorted(b), name
        for k in a:
            assert np.array_equal(np.asarray(a[k]), np.asarray(b[k])), f"{name} attribute {k}"
    return len(want)
