"""Simulator.set_parameters and VectorEnv.set_parameters: per-instance physics parameters
at run time, checked against simulators built from scenes that hold the same values."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import simphant

STEPS = 150


def scene_dict(examples, name):
    return json.loads((examples / name).read_text())


def element(doc, section, name):
    return next(e for e in doc[section] if e["name"] == name)


def four_bar_with(doc, rocker_mass, origin_z):
    """four_bar with the rocker's mass [kg] and the z of the coupler-rocker joint's origin [m] written in."""
    d = copy.deepcopy(doc)
    element(d, "bodies", "rocker")["mass"] = rocker_mass
    element(d, "joints", "coupler_rocker")["frame"]["origin"][2] = origin_z
    return d


def states_after(sim, steps=STEPS):
    sim.step(steps)
    return sim.get_state().y


@pytest.mark.parametrize("backend", ["cpu", "cpu-simd"])
def test_values_give_the_trajectories_of_a_scene_holding_them(examples, backend):
    doc = scene_dict(examples, "four_bar.json")
    n = 16
    sim = simphant.Simulator(doc, instances=n, backend=backend, threads=1)
    plain = simphant.Simulator(doc, instances=n, backend=backend, threads=1)
    assert sim.backend == backend
    ids = np.array([2, 9, 13])
    masses = np.array([0.40, 0.47, 0.52])
    z0 = element(doc, "joints", "coupler_rocker")["frame"]["origin"][2]
    origins = z0 + np.array([0.001, -0.0015, 0.002])
    sim.set_parameters(ids, {"bodies.rocker.mass": masses, "joints.coupler_rocker.frame.origin[2]": origins})
    assert sim.parameters(9) == {"bodies.rocker.mass": 0.47, "joints.coupler_rocker.frame.origin[2]": origins[1]}
    assert sim.parameters(0) == {}
    y, y_plain = states_after(sim), states_after(plain)
    for k, i in enumerate(ids):
        ref = simphant.Simulator(four_bar_with(doc, masses[k], origins[k]), instances=n, backend=backend, threads=1)
        y_ref = states_after(ref)
        np.testing.assert_array_equal(y[i], y_ref[i], err_msg=f"instance {i}")  # bit for bit
        assert not np.allclose(y[i], y_plain[i], rtol=1e-6, atol=1e-9)
    untouched = np.setdiff1d(np.arange(n), ids)
    assert np.array_equal(y[untouched], y_plain[untouched])  # bit for bit


@pytest.mark.parametrize("backend, name", [("cpu", "reduced-aba"), ("cpu-simd", "reduced-aba-lanes")])
def test_robot_scene_with_aba(examples, backend, name):
    doc = scene_dict(examples, "arm7.json")
    doc["robot"]["urdf"] = str(examples / "arm7.urdf")
    doc["robot"]["payload"] = {"link": "panda_link7", "mass": 1.0, "com": [0.0, 0.0, 0.1]}
    doc["solver"]["type"] = "aba"
    n = 8
    sim = simphant.Simulator(doc, instances=n, backend=backend, threads=1)
    plain = simphant.Simulator(doc, instances=n, backend=backend, threads=1)
    assert sim.backend == name
    ids = [1, 6]
    sim.set_parameters(ids, {"robot.payload.mass": [2.5, 0.25], "robot.q0[3]": -2.0})
    y = states_after(sim)
    for i, mass in zip(ids, (2.5, 0.25)):
        d = copy.deepcopy(doc)
        d["robot"]["payload"]["mass"] = mass
        d["robot"]["q0"][3] = -2.0
        y_ref = states_after(simphant.Simulator(d, instances=n, backend=backend, threads=1))
        np.testing.assert_array_equal(y[i], y_ref[i], err_msg=f"instance {i}")  # bit for bit
    untouched = [0, 2, 3, 4, 5, 7]
    assert np.array_equal(y[untouched], states_after(plain)[untouched])


def test_a_sweep_parameter_takes_the_value_set(examples):
    doc = scene_dict(examples, "four_bar.json")
    sim = simphant.Simulator(doc, instances=8, backend="cpu", threads=1)
    sim.set_parameters(5, {"bodies.coupler.mass": 0.7})
    # The reference: the same sweep with that parameter's draw fixed to the value.
    d = copy.deepcopy(doc)
    p = next(p for p in d["sweep"]["parameters"] if p["path"] == "bodies.coupler.mass")
    p.clear()
    p.update({"path": "bodies.coupler.mass", "dist": "list", "values": [0.7]})
    ref = simphant.Simulator(d, instances=8, backend="cpu", threads=1)
    np.testing.assert_array_equal(states_after(sim)[5], states_after(ref)[5])  # bit for bit


def test_values_hold_across_resets_and_new_episodes(examples):
    doc = scene_dict(examples, "slider_crank.json")
    sim = simphant.Simulator(doc, instances=6, backend="cpu", threads=1)
    sim.set_parameters([1, 3], {"bodies.conrod.mass": [0.3, 0.2]})
    first = states_after(sim, 100)
    sim.reset()
    assert np.array_equal(states_after(sim, 100), first)
    # A new episode: its sweep draw, then the values set.
    d = copy.deepcopy(doc)
    element(d, "bodies", "conrod")["mass"] = 0.3
    ref = simphant.Simulator(d, instances=6, backend="cpu", threads=1)
    sim.reset([1], randomize=True)
    ref.reset([1], randomize=True)
    assert sim.get_state([1]).episodes[0] == 1
    assert np.array_equal(states_after(sim, 100)[1], states_after(ref, 100)[1])
    assert sim.parameters(1) == {"bodies.conrod.mass": 0.3}


def test_later_values_replace_earlier_ones_for_the_same_path(examples):
    sim = simphant.Simulator(examples / "slider_crank.json", instances=4, backend="cpu", threads=1)
    sim.set_parameters([0, 2], {"bodies.crank.mass": [0.31, 0.32], "gravity[2]": -9.7})
    sim.set_parameters(2, {"bodies.crank.mass": 0.35})
    assert sim.parameters(0) == {"bodies.crank.mass": 0.31, "gravity[2]": -9.7}
    assert sim.parameters(2) == {"bodies.crank.mass": 0.35, "gravity[2]": -9.7}
    sim.set_parameters(None, {"bodies.piston.mass": np.full(4, 0.45)})
    assert all(sim.parameters(i)["bodies.piston.mass"] == 0.45 for i in range(4))


def test_restart_from_the_initial_state_with_default_inputs(examples):
    sim = simphant.Simulator(examples / "slider_crank.json", instances=4, backend="cpu", threads=1)
    initial = sim.get_state()
    sim.set_inputs(np.full((4, 1), 3.0))
    sim.step(50)
    sim.set_parameters([1], {"forces.gas_load.force[0]": -20.0})
    s = sim.get_state([1])
    assert s.steps[0] == 0 and np.array_equal(s.y[0], initial.y[1])  # the force does not move the assembly
    assert sim.get_state([0]).steps[0] == 50


def test_errors_name_the_path_and_change_nothing(examples):
    sim = simphant.Simulator(examples / "slider_crank.json", instances=4, backend="cpu", threads=1)
    sim.step(20)
    before = sim.get_state()
    for path in ("bodies.nobody.mass", "bodies..mass", "name", "sweep.seed", "gravity[5]"):
        with pytest.raises(ValueError, match=path.replace(".", r"\.").replace("[", r"\[")):
            sim.set_parameters([1], {path: 1.0})
    with pytest.raises(ValueError, match=r"instance 3.*bodies\.crank\.mass|bodies\.crank\.mass.*instance 3"):
        sim.set_parameters([1, 3], {"bodies.crank.mass": [0.5, -0.1]})
    with pytest.raises(ValueError, match="not finite"):
        sim.set_parameters([1], {"bodies.crank.mass": np.nan})
    with pytest.raises(ValueError, match="shape"):
        sim.set_parameters([1, 3], {"bodies.crank.mass": [0.5, 0.6, 0.7]})
    for shared in ("solver.dt", "solver.tikhonov_epsilon"):  # the run's, not an instance's
        with pytest.raises(ValueError, match="shared by all instances"):
            sim.set_parameters([1], {shared: 0.001})
    with pytest.raises(IndexError):
        sim.set_parameters([4], {"bodies.crank.mass": 0.5})
    with pytest.raises(ValueError):
        sim.set_parameters([1, 1], {"bodies.crank.mass": 0.5})
    with pytest.raises(TypeError):
        sim.set_parameters([1], {"bodies.crank.mass": 0.5 + 1j})
    with pytest.raises(IndexError):
        sim.parameters(4)
    after = sim.get_state()
    assert np.array_equal(after.y, before.y) and np.array_equal(after.steps, before.steps)
    assert all(sim.parameters(i) == {} for i in range(4))


def test_vector_env_sets_parameters_in_a_reset_event_and_keeps_them_across_seeds(examples):
    from simphant.gym import VectorEnv

    def masses(env, ids, rng):
        env.set_parameters(ids, {"bodies.piston.mass": rng.uniform(0.3, 0.5, len(ids))})

    env = VectorEnv(examples / "slider_crank.json", num_envs=4, observation=["crank.omega"], action_low=-1.0,
                    action_high=1.0, backend="cpu", threads=1, reset_events=[masses])
    env.reset(seed=3)
    held = [env.sim.parameters(i)["bodies.piston.mass"] for i in range(4)]
    assert all(0.3 <= m <= 0.5 for m in held)
    env.step(np.zeros((4, 1)))
    env.set_parameters([2], {"gravity[2]": -9.0})
    assert env.sim.get_state([2]).steps[0] == 0
    env.reset_events.clear()
    env.reset(seed=4)  # a new simulator: the values are set again
    assert [env.sim.parameters(i)["bodies.piston.mass"] for i in range(4)] == held
    assert env.sim.parameters(2)["gravity[2]"] == -9.0 and "gravity[2]" not in env.sim.parameters(0)
    env.close()
