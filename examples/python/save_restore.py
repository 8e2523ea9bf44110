#!/usr/bin/env python3
"""Saving and restoring simulator state: get_state -> np.savez -> a new Simulator ->
set_state continues bit-identically to a run that never stopped.

    PYTHONPATH=build/python python3 examples/python/save_restore.py [--file state.npz]
"""
from __future__ import annotations

import argparse
import os
import pathlib
import tempfile

import numpy as np

import simphant

SCENE = pathlib.Path(__file__).resolve().parents[1] / "slider_crank.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=os.path.join(tempfile.gettempdir(), "simphant_state.npz"))
    args = ap.parse_args()

    sim = simphant.Simulator(SCENE, instances=16, backend="cpu")
    sim.set_inputs(np.full((16, 1), 0.6))       # motor torque [N m]
    sim.step(400)                               # 0.2 s
    np.savez(args.file, **sim.get_state().to_arrays())
    sim.step(600)                               # the run that never stopped: 0.5 s in all
    reference = sim.states()

    restored = simphant.Simulator(SCENE, instances=16, backend="cpu")
    restored.set_state(simphant.State.from_arrays(np.load(args.file)))
    restored.set_inputs(np.full((16, 1), 0.6))  # inputs are not part of the state
    restored.step(600)
    same = np.array_equal(restored.states(), reference)
    print(f"restored from {args.file} at t = 0.2 s, stepped to t = {restored.get_state().time[0]:.3f} s: "
          f"bit-identical {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
