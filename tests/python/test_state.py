"""reset / get_state / set_state: round trips are bit-identical; domain randomisation."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import simphant


@pytest.fixture()
def scene(examples):
    return simphant.load_scene(examples / "slider_crank.json")


def make(scene, n=6):
    sim = simphant.Simulator(scene, instances=n, backend="cpu", threads=1)
    sim.set_inputs(np.linspace(0.2, 1.2, n).reshape(n, 1))
    return sim


def test_state_fields(scene):
    sim = make(scene)
    sim.step(7)
    s = sim.get_state()
    assert s.y.shape == (6, 39) and s.y.dtype == np.float64
    assert np.array_equal(s.ids, np.arange(6)) and s.ids.dtype == np.int32
    assert np.all(s.steps == 7) and np.allclose(s.time, 7 * sim.dt)
    assert np.all(s.status == 0) and np.all(s.status_steps == 0) and np.all(s.episodes == 0)
    x = sim.states()  # the same numbers grouped per body: y = [r, p per body; v, omega per body]
    assert np.array_equal(s.y[:, :21].reshape(6, 3, 7), x[:, :, :7])
    assert np.array_equal(s.y[:, 21:].reshape(6, 3, 6), x[:, :, 7:])


def test_status_reasons_are_part_of_the_state(tmp_path):
    """A damper with c dt / m = 3 (allowed) runs away: reason RUNAWAY, kept by get_state,
    written with its status by set_state (also from a saved state), reset to NONE."""
    doc = {"name": "damper", "gravity": [0, 0, 0],
           "bodies": [{"name": "box", "mass": 1.0, "inertia": [0.01, 0.01, 0.01], "position": [1, 0, 0],
                       "velocity": [1, 0, 0]}],
           "forces": [{"name": "dashpot", "type": "spring_damper", "body_i": "ground", "point_i": [0, 0, 0],
                       "body_j": "box", "point_j": [0, 0, 0], "stiffness": 0, "damping": 3000, "rest_length": 1}],
           "solver": {"dt": 0.001, "t_end": 0.1, "allow_unstable": True}}
    sim = simphant.Simulator(simphant.load_scene(doc), instances=2, backend="cpu", threads=1)
    sim.step(30)
    assert np.all(sim.status_reasons() == simphant.StatusReason.RUNAWAY)
    s = sim.get_state()
    assert s.status_reasons.dtype == np.int8 and np.all(s.status_reasons == simphant.StatusReason.RUNAWAY)
    np.savez(tmp_path / "s.npz", **s.to_arrays())
    sim.reset()
    assert np.all(sim.status_reasons() == simphant.StatusReason.NONE)
    sim.set_state(simphant.State.from_arrays(np.load(tmp_path / "s.npz")))
    assert np.all(sim.status_reasons() == simphant.StatusReason.RUNAWAY)
    s.status_reasons[:] = simphant.StatusReason.ASSEMBLY_FAILURE  # does not fit status 2
    with pytest.raises(ValueError, match="does not fit"):
        sim.set_state(s)
    s.status_reasons = None  # a state saved without reasons: each keeps the one that fits
    sim.set_state(s)
    assert np.all(sim.status_reasons() == simphant.StatusReason.RUNAWAY)


def test_reset_returns_to_the_initial_state_bit_for_bit(scene):
    sim = make(scene)
    initial = sim.get_state()
    sim.step(300)
    assert not np.array_equal(sim.get_state().y, initial.y)
    sim.reset([1, 4])
    s = sim.get_state()
    assert np.array_equal(s.y[[1, 4]], initial.y[[1, 4]]) and np.all(s.steps[[1, 4]] == 0)
    assert np.all(s.steps[[0, 2, 3, 5]] == 300)
    sim.reset()
    assert np.array_equal(sim.get_state().y, initial.y)


def test_reset_then_stepping_repeats_the_first_episode(scene):
    sim = make(scene)
    sim.step(250)
    first = sim.states()
    sim.reset()
    sim.step(250)
    assert np.array_equal(sim.states(), first)


def test_set_state_continues_bit_identically(scene, tmp_path):
    a = make(scene)
    a.step(200)
    saved = a.get_state()
    np.savez(tmp_path / "s.npz", **saved.to_arrays())
    a.step(300)
    b = make(scene)
    b.set_state(simphant.State.from_arrays(np.load(tmp_path / "s.npz")))
    b.step(300)
    assert np.array_equal(a.states(), b.states())
    assert np.array_equal(a.reactions(), b.reactions())
    assert np.array_equal(a.get_state().steps, b.get_state().steps)


def test_subset_state_moves_between_instances(scene):
    doc = scene.to_dict()
    del doc["sweep"]  # every instance the same model
    sim = make(simphant.load_scene(doc))
    sim.set_inputs(np.full((6, 1), 0.5))
    sim.step(100)
    s = sim.get_state([2])
    assert s.y.shape == (1, 39) and s.ids.tolist() == [2]
    sim.set_state(s, ids=[5])
    assert np.array_equal(sim.get_state([5]).y, s.y)
    sim.step(50)
    x = sim.states()
    assert np.array_equal(x[2], x[5])


def test_randomize_draws_new_parameters_and_set_state_restores_them(scene):
    sim = make(scene)
    sim.set_inputs(np.zeros((6, 1)))
    sim.step(200)
    episode0 = sim.states()
    before = sim.get_state()
    sim.reset([0, 1, 2], randomize=True)
    s = sim.get_state()
    assert s.episodes.tolist() == [1, 1, 1, 0, 0, 0]
    sim.step(200)
    after = sim.states()
    # other piston mass and gas load: other motion (the reset instances only)
    assert not np.array_equal(after[:3], episode0[:3])
    # a checkpoint of episode 0 restores episode 0's parameters too (new models come with
    # their actuators' default inputs: set them again)
    sim.set_state(before)
    sim.reset([0, 1, 2])
    sim.set_inputs(np.zeros((6, 1)))
    sim.step(200)
    assert np.array_equal(sim.states()[:3], episode0[:3])


def test_randomized_reset_is_reproducible(scene):
    runs = []
    for _ in range(2):
        sim = make(scene)
        sim.reset(randomize=True)
        sim.reset(randomize=True)
        sim.step(100)
        runs.append(sim.states())
    assert np.array_equal(runs[0], runs[1])


def test_bad_ids(scene):
    sim = make(scene)
    with pytest.raises(IndexError, match=r"instance 6 is out of range \[0, 6\)"):
        sim.reset([6])
    with pytest.raises(IndexError):
        sim.get_state([-1])
    with pytest.raises(ValueError):
        sim.reset([1, 1])
    with pytest.raises(TypeError, match="integers"):
        sim.reset([0.5])
    with pytest.raises(ValueError, match="mask"):
        sim.reset(np.ones(5, bool))
    with pytest.raises(ValueError, match="y"):
        sim.set_state(sim.get_state([0, 1]), ids=[0])
    sim.reset(np.array([True, False, False, False, False, True]))  # a mask is accepted


def test_negative_steps_complex_and_non_finite_values_are_refused(scene):
    """Nothing is taken silently: a negative step count, a complex state or input (whose
    imaginary part NumPy would drop) and a NaN or infinite input are refused, naming the
    argument, and the batch is unchanged."""
    sim = make(scene)
    sim.step(3)
    before = sim.get_state()
    bad = sim.get_state()
    bad.steps[2] = -4
    with pytest.raises(ValueError, match=r"steps\[2\] = -4: a step count cannot be negative"):
        sim.set_state(bad)
    with pytest.raises(TypeError, match="State.y: complex values"):
        dataclasses.replace(before, y=before.y + 1j)
    n = sim.n_instances
    with pytest.raises(TypeError, match="u: complex values"):
        sim.set_inputs(np.full((n, 1), 0.5 + 0.1j))
    u = np.full((n, 1), 0.5)
    u[4, 0] = np.nan
    with pytest.raises(ValueError, match=r"u\[4, 0\] is NaN"):
        sim.set_inputs(u)
    with pytest.raises(ValueError, match=r"u\[0, 0\] is infinite"):
        sim.set_inputs([np.inf], ids=[2])
    after = sim.get_state()
    assert np.array_equal(after.y, before.y) and np.array_equal(after.steps, before.steps)
