#!/usr/bin/env python3
"""Design optimisation with forward sensitivities: the crank press's throw and conrod
length chosen to minimise its peak main-bearing load, by SciPy's L-BFGS-B with the
gradients SimPhant computes.

    PYTHONPATH=build/python python3 examples/python/optimise_crank_press.py [--grid 0]

The press (examples/crank_press.json) forms a part at bottom dead centre: the ram pushes
into the die, whose force grows with the depth the ram reaches, r + L - 0.444 m for a
throw r and a conrod of length L (0.05 m and 0.4 m: 6 mm, 100 kN). A shorter stroke
lowers every load, so the part's demand is part of the problem: it needs a forming force
of at least F_req = 60 kN, read as the peak radial load of the wrist pin (the conrod's
push on the ram). The objective, in kN,

    J(r, L) = P_main(r, L) + rho * max(0, F_req - P_wrist(r, L))^2,

P the peak radial loads over the first stroke (0.5 s, /reductions/bearing_loads/max),
rho = 10 / kN, is minimised over r in [0.045, 0.055] m and the conrod's half length
(the wrist pin's offset from its centre of mass) in [0.19, 0.21] m. Each evaluation is
one run with sensitivities of the two paths (docs/sensitivities.md): J and its gradient
come from /reduction_sensitivities/bearing_loads/max, the derivative of each peak at its
own step. With --grid N the example also evaluates J on an N x N grid over the same box,
the sweep one would run instead, and prints how close its best point comes.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import tempfile
from typing import Dict, Tuple

import h5py
import numpy as np
from scipy.optimize import minimize

import simphant

SCENE = pathlib.Path(__file__).resolve().parents[1] / "crank_press.json"
#: The design parameters: the crank throw r [m] and the conrod's half length [m].
PATHS = ["joints.crank_pin.frame_i.origin[0]", "joints.wrist_pin.frame_i.origin[0]"]
BOUNDS = [(0.045, 0.055), (0.19, 0.21)]
F_REQ = 60.0  # [kN] forming force the part needs
RHO = 10.0  # [1/kN] weight of the shortfall's square


def scene_with(x: np.ndarray) -> dict:
    """The press without its sweep, over its first stroke, with throw x[0] and conrod
    half length x[1] [m]."""
    doc = json.loads(SCENE.read_text())
    del doc["sweep"]
    doc["solver"]["t_end"] = 0.5
    # The ram's and the conrod's velocities follow from the crank's drive at assembly (the
    # scene gives those of the nominal throw).
    for body in doc["bodies"]:
        body.pop("velocity", None)
    for joint in doc["joints"]:
        for path, v in zip(PATHS, x):
            if path.startswith(f"joints.{joint['name']}."):
                joint["frame_i"]["origin"][0] = float(v)
    return doc


def peaks(x: np.ndarray, folder: str) -> Dict[str, Tuple[float, np.ndarray]]:
    """One run at x: {joint: (peak radial load [kN], its gradient [kN/m])}."""
    out = pathlib.Path(folder) / "press.h5"
    result = simphant.run(scene_with(x), out=out, instances=1, backend="cpu", threads=1, sensitivities=PATHS,
                          reductions="bearing_loads", frames="none")
    if result.exit_code != 0:
        raise RuntimeError(f"the run at {x} failed: {result.stop_reason}")
    with h5py.File(out, "r") as f:
        joints = [j.decode() if isinstance(j, bytes) else j for j in f["joint"][:]]
        comps = [c.decode() if isinstance(c, bytes) else c for c in f["reductions/bearing_loads"].attrs["components"]]
        c = comps.index("radial_force")
        peak = f["reductions/bearing_loads/max"][0, :, c]  # (J)
        grad = f["reduction_sensitivities/bearing_loads/max"][0, :, c, :]  # (J, 2)
    return {j: (peak[k] / 1e3, grad[k] / 1e3) for k, j in enumerate(joints)}


def objective(x_mm: np.ndarray, folder: str, calls: list) -> Tuple[float, np.ndarray]:
    """J at x_mm (the parameters in mm, so that the optimiser's steps are of order 1) [kN],
    and its gradient [kN/mm]."""
    x = x_mm * 1e-3
    p = peaks(x, folder)
    (main, g_main), (wrist, g_wrist) = p["main_bearing"], p["wrist_pin"]
    short = max(0.0, F_REQ - wrist)
    J = main + RHO * short ** 2
    g = g_main - 2.0 * RHO * short * g_wrist
    calls.append((x.copy(), J, main, wrist))
    return J, g * 1e-3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grid", type=int, default=0, help="also evaluate J on an N x N grid (N^2 runs)")
    args = ap.parse_args()
    x0 = np.array([0.05, 0.2])
    calls: list = []
    with tempfile.TemporaryDirectory() as folder:
        res = minimize(objective, x0 * 1e3, args=(folder, calls), jac=True, method="L-BFGS-B",
                       bounds=[(lo * 1e3, hi * 1e3) for lo, hi in BOUNDS])
        x, J, main, wrist = min(calls, key=lambda c: c[1])
        print(f"start: throw {x0[0] * 1e3:.3f} mm, conrod half length {x0[1] * 1e3:.3f} mm: "
              f"J {calls[0][1]:.3f} kN, main bearing {calls[0][2]:.3f} kN, forming {calls[0][3]:.3f} kN")
        print(f"L-BFGS-B ({res.message}): {len(calls)} runs with sensitivities")
        print(f"optimum: throw {x[0] * 1e3:.3f} mm, conrod half length {x[1] * 1e3:.3f} mm: J {J:.3f} kN, "
              f"main bearing {main:.3f} kN, forming {wrist:.3f} kN (required {F_REQ:g} kN)")
        print(f"result: {json.dumps({'x': list(map(float, x)), 'J': float(J), 'main_bearing_kN': float(main), 'forming_kN': float(wrist), 'runs': len(calls)})}")
        if args.grid > 1:
            best = None
            for r in np.linspace(*BOUNDS[0], args.grid):
                for h in np.linspace(*BOUNDS[1], args.grid):
                    Jg = objective(np.array([r, h]) * 1e3, folder, [])[0]
                    if best is None or Jg < best[0]:
                        best = (Jg, r, h)
            print(f"grid of {args.grid}^2 = {args.grid ** 2} runs: best J {best[0]:.3f} kN at throw "
                  f"{best[1] * 1e3:.3f} mm, conrod half length {best[2] * 1e3:.3f} mm")


if __name__ == "__main__":
    main()
