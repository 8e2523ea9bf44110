#!/usr/bin/env python3
"""Parameter identification with forward sensitivities: the crank's and the piston's mass
of the slider-crank fitted to a recorded trajectory by Gauss-Newton.

    PYTHONPATH=build/python python3 examples/python/identify_masses.py [--noise 1e-5] [--seed 1]

The "recording" is a run with the true masses (0.3 kg crank, 0.4 kg piston), its body
positions sampled every 10 ms over 0.5 s with Gaussian noise of --noise metres added.
Each Gauss-Newton iteration is one simulation of the model at the current masses with
sensitivities (docs/sensitivities.md): the residuals are the model's positions minus the
recording, the Jacobian d(positions)/d(masses) comes from state_sensitivities(), and the
step solves the linear least-squares problem. Central differences would need 1 + 2 P = 5
runs per iteration for P = 2 masses; this needs one. The standard errors are those of
the linearised fit, sigma_noise * sqrt(diag((J^T J)^-1)).
"""
from __future__ import annotations

import argparse
import json
import pathlib
from typing import List, Tuple

import numpy as np

import simphant

SCENE = pathlib.Path(__file__).resolve().parents[1] / "slider_crank.json"
PATHS = ["bodies.crank.mass", "bodies.piston.mass"]
TRUE = np.array([0.3, 0.4])


def scene_with(masses: np.ndarray) -> dict:
    """The slider-crank without its sweep, with these masses [kg] (PATHS order)."""
    doc = json.loads(SCENE.read_text())
    del doc["sweep"]
    for body in doc["bodies"]:
        for path, m in zip(PATHS, masses):
            if path == f"bodies.{body['name']}.mass":
                body["mass"] = float(m)
    return doc


def simulate(masses: np.ndarray, frames: int, every: int) -> Tuple[np.ndarray, np.ndarray]:
    """Body positions (frames, B * 3) [m] after every `every` steps and their derivatives
    (frames, B * 3, P) [m/kg] with respect to the masses."""
    sim = simphant.Simulator(scene_with(masses), instances=1, backend="cpu", threads=1, sensitivities=PATHS)
    y, J = [], []
    for _ in range(frames):
        sim.step(every)
        y.append(sim.states()[0, :, 0:3].reshape(-1))
        J.append(sim.state_sensitivities()[0, :, 0:3, :].reshape(-1, len(PATHS)))
    return np.array(y), np.array(J)


def identify(recorded: np.ndarray, start: np.ndarray, frames: int, every: int, iterations: int = 20,
             tol: float = 1e-10) -> Tuple[np.ndarray, List[Tuple[np.ndarray, float]], np.ndarray]:
    """Gauss-Newton from `start` until the step is below tol relative: the masses, the
    history (masses, residual RMS [m]) and the final Jacobian (frames * B * 3, P)."""
    p = start.astype(float).copy()
    history = []
    for _ in range(iterations):
        y, J = simulate(p, frames, every)
        r = (y - recorded).reshape(-1)
        J = J.reshape(-1, len(PATHS))
        history.append((p.copy(), float(np.sqrt(np.mean(r ** 2)))))
        step = np.linalg.lstsq(J, -r, rcond=None)[0]
        p = p + step
        if np.all(np.abs(step) <= tol * np.abs(p)):
            break
    y, J = simulate(p, frames, every)
    history.append((p.copy(), float(np.sqrt(np.mean((y - recorded) ** 2)))))
    return p, history, J.reshape(-1, len(PATHS))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--noise", type=float, default=1e-5, help="position noise of the recording [m]")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=float, nargs=2, default=[0.5, 0.2], help="initial guess [kg]")
    args = ap.parse_args()
    frames, every = 50, 20  # 50 frames of 20 steps of 0.5 ms: 0.5 s
    truth, _ = simulate(TRUE, frames, every)
    rng = np.random.default_rng(args.seed)
    recorded = truth + args.noise * rng.standard_normal(truth.shape)
    p, history, J = identify(recorded, np.array(args.start), frames, every)
    for k, (masses, rms) in enumerate(history):
        print(f"iteration {k}: crank {masses[0]:.6f} kg, piston {masses[1]:.6f} kg, residual RMS {rms:.3e} m")
    sigma = args.noise * np.sqrt(np.diag(np.linalg.inv(J.T @ J)))
    print(f"identified: crank {p[0]:.9f} +- {sigma[0]:.1e} kg (true {TRUE[0]}), "
          f"piston {p[1]:.9f} +- {sigma[1]:.1e} kg (true {TRUE[1]}); {len(history)} simulations")


if __name__ == "__main__":
    main()
