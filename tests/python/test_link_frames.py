"""Simulator.link_frames: pose and twist of named links of a robot scene (docs/robots.md,
"Link frames"). At the initial state the maximal (dae) and the joint-space (aba) models of
the same robot hold the same link poses and velocities (the dae state is forward
kinematics of q0, qd0), reached by two routes: the dae body states converted at the CoM
offset, and the joint-space body records."""
from __future__ import annotations

import json

import numpy as np
import pytest

import simphant


def robot_scene(root, tmp_path, solver: str) -> str:
    doc = {
        "name": "chain3",
        "robot": {"urdf": str(root / "tests" / "data" / "urdf" / "chain3.urdf"),
                  "q0": [0.3, -0.7, 0.05], "qd0": [0.9, -1.1, 0.4]},
        "solver": {"type": solver, "dt": 0.001, "t_end": 0.01},
        "sweep": {"mode": "random", "instances": 3, "seed": 1,
                  "parameters": [{"path": "robot.qd0[0]", "dist": "uniform", "low": -1, "high": 1}]},
    }
    path = tmp_path / f"chain3_{solver}.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_link_frames_agree_between_dae_and_aba_at_the_initial_state(root, tmp_path):
    names = ["l1", "l2", "l3"]
    frames = {}
    for solver in ("dae", "aba"):
        sim = simphant.Simulator(robot_scene(root, tmp_path, solver), backend="cpu")
        f = sim.link_frames(names)
        assert isinstance(f, np.ndarray) and f.shape == (3, 3, 13) and f.dtype == np.float64
        np.testing.assert_allclose(np.linalg.norm(f[..., 3:7], axis=-1), 1.0, atol=1e-12)
        assert np.all(f[..., 3] >= 0)
        frames[solver] = f
    # The dae state is forward kinematics of q0, qd0 (assembly leaves it, residual 0): the
    # two routes agree to rounding (measured 1.9e-16).
    np.testing.assert_allclose(frames["dae"], frames["aba"], atol=1e-12)
    # The instances differ (qd0[0] swept).
    assert not np.allclose(frames["aba"][0, :, 7:], frames["aba"][1, :, 7:])


def test_link_frames_follow_the_motion(root, tmp_path):
    # The origin's velocity is the rate of the origin's position: a central difference over
    # two steps of 1 ms agrees to O(dt^2) (|d3 o/dt3| ~ 10 m/s^3 here: 1e-5).
    sim = simphant.Simulator(robot_scene(root, tmp_path, "aba"), backend="cpu")
    a = sim.link_frames(["l3"])
    sim.step(1)
    b = sim.link_frames(["l3"])
    sim.step(1)
    c = sim.link_frames(["l3"])
    np.testing.assert_allclose(b[..., 7:10], (c[..., 0:3] - a[..., 0:3]) / 0.002, atol=1e-4)


def test_unknown_links_and_scenes_without_a_robot_are_refused(root, tmp_path, examples):
    sim = simphant.Simulator(robot_scene(root, tmp_path, "aba"), backend="cpu")
    with pytest.raises(ValueError, match="unknown link 'nope'.*l1, l2, l3"):
        sim.link_frames(["nope"])
    assert sim.link_frames([]).shape == (3, 0, 13)
    plain = simphant.Simulator(examples / "four_bar.json", instances=2, backend="cpu")
    with pytest.raises(RuntimeError, match="no robot"):
        plain.link_frames(["l1"])


def test_link_tree_follows_the_urdf_with_links_merged_by_fixed_joints(root, tmp_path):
    """merge.urdf: base -(fixed)- plate -(j1)- a -(fixed)- b -(fixed)- tool; b -(j2)- c,
    tool -(j3)- d, plate -(j4)- e. The links fixed to another are named by it (b and tool
    by a, plate by the base); on a fixed base a link on it has parent -1 (W), on a floating
    base the base's own frame, last in the list."""
    doc = {"name": "merge", "robot": {"urdf": str(root / "tests" / "data" / "urdf" / "merge.urdf")},
           "solver": {"type": "aba", "dt": 0.001, "t_end": 0.01}}
    fixed = simphant.Simulator(doc, instances=1, backend="cpu")
    assert fixed.link_tree() == (["a", "c", "d", "e"], [-1, 0, 0, -1], False)
    doc["robot"]["floating_base"] = True
    free = simphant.Simulator(doc, instances=1, backend="cpu")
    names, parents, floating = free.link_tree()
    assert (names, parents, floating) == (["a", "c", "d", "e", "base"], [4, 0, 0, 4, -1], True)
    # the tree's names are the link frames' names, in frame order
    assert free.link_frames(names).shape == (1, 5, 13)
    plain = simphant.Simulator(root / "examples" / "four_bar.json", instances=1, backend="cpu")
    with pytest.raises(RuntimeError, match="no robot"):
        plain.link_tree()
