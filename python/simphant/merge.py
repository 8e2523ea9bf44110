"""simphant.merge: `simphant merge OUT SHARD... [--copy]` as a function call."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Sequence, Union

from . import _simphant

PathLike = Union[str, "os.PathLike[str]"]


def merge(out: PathLike, shards: Sequence[PathLike], copy: bool = False) -> Dict[str, Any]:
    """Merges the shard files of one design (``simphant.run(..., shard=(K, N))`` or
    ``simphant run --shard K/N``) into one file that reads like the one-shot run's: the
    same datasets, shapes, types and values bit for bit, n_instances = I, no shard
    attributes (README "Output (HDF5)", docs/scaling-out.md).

    Arguments:
        out: the merged file; written through a temporary file beside it and renamed
            onto it at the end, so an existing file is untouched on any failure.
        shards: the shard files, in any order; together they must cover the design's
            instances [0, I) once.
        copy: False (default): every dataset with an instance axis is an HDF5 virtual
            dataset over the shards, named relative to out's folder (nothing is copied;
            out and the shards must stay together, and a missing shard reads as NaN or
            -1). True: the data is copied into a self-contained file.

    Returns the merge's summary: out, shards, instances, frames, mode ("virtual" or
    "copy"), bytes (the instance datasets' data [B]), seconds (wall time [s]).

    Raises ValueError when the shards do not make one design, naming the shard files and
    what differs (scene, seed, version, solver settings, datasets, frames), the instance
    range missing or held twice, or a shard that did not complete; RuntimeError when
    another process is writing out; OSError when a file cannot be read or written.
    The GIL is released while the merge runs.
    """
    if isinstance(shards, (str, os.PathLike)):
        raise TypeError("shards: a sequence of paths expected (got one path)")
    summary = _simphant.merge_shards(os.fspath(out), [os.fspath(s) for s in shards], bool(copy))
    return json.loads(summary)
