"""simphant.Simulator: sizes, reads, out= arrays, stepping, and agreement with the CLI."""
from __future__ import annotations

import json

import h5py
import numpy as np
import pytest

import simphant
from conftest import run_cli


@pytest.fixture()
def sim(examples):
    return simphant.Simulator(examples / "slider_crank.json", instances=5, backend="cpu", threads=1)


def test_sizes_and_names(sim):
    assert (sim.n_instances, sim.n_bodies, sim.n_joints, sim.n_inputs) == (5, 3, 4, 1)
    assert sim.body_names == ["crank", "conrod", "piston"]
    assert sim.joint_names == ["main_bearing", "crank_pin", "wrist_pin", "cylinder"]
    assert sim.input_names == ["motor"]
    assert sim.state_size == 39 and sim.dt == 0.0005 and sim.backend == "cpu"
    assert sim.time == 0.0 and sim.steps_taken == 0
    assert "instances=5" in repr(sim)


def test_reads_have_the_documented_shapes_and_dtypes(sim):
    sim.step(10)
    assert sim.steps_taken == 10 and sim.time == pytest.approx(10 * sim.dt)
    for arr, shape in ((sim.states(), (5, 3, 13)), (sim.reactions(), (5, 4, 6)), (sim.constraint_violation(), (5,)),
                       (sim.energy(), (5,))):
        assert arr.shape == shape and arr.dtype == np.float64 and np.all(np.isfinite(arr))
    status, status_time = sim.status()
    assert status.dtype == np.int8 and np.all(status == simphant.InstanceStatus.OK) and np.all(status_time == 0)
    a = sim.assembly()
    assert a.ok.dtype == bool and a.ok.all() and a.iterations.dtype == np.int32
    assert np.all(a.position_residual < 1e-9)
    # unit quaternions, and the constraints hold
    assert np.allclose(np.linalg.norm(sim.states()[:, :, 3:7], axis=-1), 1.0)
    assert np.all(sim.constraint_violation() < 1e-6)


def test_out_arrays_are_written_in_place(sim):
    out = np.full((5, 3, 13), np.nan)
    assert sim.states(out=out) is out and np.all(np.isfinite(out))
    kinetic = np.full(5, np.nan)
    total = sim.energy(kinetic=kinetic)
    assert np.all(kinetic >= 0) and np.all(np.isfinite(total))


@pytest.mark.parametrize("bad, exc, match", [
    (np.zeros((5, 3, 13), np.float32), TypeError, "dtype float64"),
    (np.zeros((5, 3, 12)), ValueError, r"shape \(5, 3, 13\)"),
    (np.zeros((5, 3, 26))[:, :, ::2], ValueError, "C-contiguous"),
    ([0.0] * 195, TypeError, "numpy.ndarray"),
])
def test_bad_out_arrays_are_refused(sim, bad, exc, match):
    with pytest.raises(exc, match=match):
        sim.states(out=bad)


def test_bad_arguments(examples, sim):
    with pytest.raises(ValueError, match="n: must be >= 0"):
        sim.step(-1)
    with pytest.raises(ValueError, match="instances"):
        simphant.Simulator(examples / "pendulum.json", instances=0)
    with pytest.raises(ValueError, match="unknown backend 'gpu'"):
        simphant.Simulator(examples / "pendulum.json", backend="gpu")
    with pytest.raises(ValueError, match=r"u: must have shape \(5, 1\)"):
        sim.set_inputs(np.zeros((5, 2)))
    with pytest.raises(RuntimeError, match="joint coordinates"):
        sim.joint_state()


def test_a_batch_that_would_not_fit_is_refused_before_allocating(examples):
    """The memory guard of `simphant run` (about 2 TB for 2e8 four-bars), before any
    model is built: MemoryError naming the estimate and what to do."""
    with pytest.raises(MemoryError, match=r"200000000 instances needs about .* GiB.*use fewer instances"):
        simphant.Simulator(examples / "four_bar.json", instances=200_000_000)


def test_cpu_simd_backend_equals_cpu(examples):
    """backend="cpu-simd" (instances in SIMD lanes, docs/performance.md) against the cpu
    reference: the same statuses and clocks, states to round-off. 9 instances: one group
    of lanes and one padded one. The bound: both evaluate the same formulas in fp64 in a
    different order (and cpu factorises four_bar's Schur complement dense, cpu-simd
    topology-ordered sparse), a few ulps per step; tests/test_cpu_simd_backend.cpp holds
    300 steps of every example to 1e-12 relative against the same factorisation."""
    a = simphant.Simulator(examples / "four_bar.json", instances=9, backend="cpu-simd", threads=2)
    b = simphant.Simulator(examples / "four_bar.json", instances=9, backend="cpu", threads=1)
    assert a.backend == "cpu-simd" and "SIMD lanes" in a.backend_details
    a.step(200)
    b.step(200)
    sa, sb = a.get_state(), b.get_state()
    assert np.array_equal(sa.status, sb.status) and np.array_equal(sa.steps, sb.steps)
    assert (sa.status == 0).all()
    np.testing.assert_allclose(a.states(), b.states(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(a.energy(), b.energy(), rtol=1e-10)


def test_contact_example_cpu_simd_equals_cpu(examples):
    """The ball dropped on a block (examples/ball_on_block.json, docs/contact.md "Contact in
    the DAE"): cpu-simd evaluates the contact pairs one lane at a time with the CPU
    reference's per-thread function, so the two backends differ by the rounding of their
    other sums only. Each impact amplifies such differences (measured 3.5e-13 in the
    state over the example's 5000 steps); 2500 steps cover the ball's first impact."""
    a = simphant.Simulator(examples / "ball_on_block.json", backend="cpu-simd", threads=2)
    b = simphant.Simulator(examples / "ball_on_block.json", backend="cpu", threads=1)
    # Contact values are parameters like any other: the first four instances get the
    # restitution 0.3 .. 0.9 and a central drop point.
    e = np.array([0.3, 0.5, 0.7, 0.9])
    for s in (a, b):
        s.set_parameters([0, 1, 2, 3], {"contact.materials.default.restitution": e, "bodies.ball.position[0]": 0.0})
    a.step(2500)
    b.step(2500)
    sa, sb = a.get_state(), b.get_state()
    assert (sa.status == 0).all() and np.array_equal(sa.status, sb.status)
    np.testing.assert_allclose(a.states(), b.states(), rtol=0, atol=1e-10)
    # After 0.25 s the ball has hit the block once (at 0.23 s) and rises, above the block's
    # top (0.1 m), faster the larger the restitution of the pair (min(0.9, e) = e).
    ball = b.states()[:, 1]
    assert (ball[:, 2] > 0.1).all() and (ball[:, 9] > 0).all()
    assert np.all(np.diff(ball[:4, 9]) > 0)


def test_cpu_simd_refuses_what_it_does_not_run(examples):
    # The backend rules' words (src/simphant/sim/backend_rules.hpp), as `simphant run` says them.
    with pytest.raises(ValueError, match=r"backend: cpu-simd runs the fixed-step integrators .*; integrator bdf runs on "
                                         r"the cpu backend"):
        simphant.Simulator(examples / "stiff_damper.json", instances=8, backend="cpu-simd")


def test_cuda_backend_without_a_device_is_backend_error(examples):
    if simphant.cuda_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(simphant.BackendError, match="cuda"):
        simphant.Simulator(examples / "pendulum.json", backend="cuda")


def test_inputs_change_the_motion(examples):
    sims = [simphant.Simulator(examples / "slider_crank.json", instances=4, backend="cpu") for _ in range(2)]
    sims[1].set_inputs(np.array([[0.0], [1.0], [2.0], [3.0]]))
    for s in sims:
        s.step(200)
    speed = [s.states()[:, 0, 11] for s in sims]  # crank omega about its y (bearing) axis [rad/s]
    assert not np.array_equal(speed[0], speed[1])
    assert np.all(np.diff(speed[1]) > 0)  # more torque, faster crank


def test_stepping_matches_the_cli_bit_for_bit(examples, cli, tmp_path):
    """Python stepping reproduces `simphant run` exactly: same sweep sample, same states,
    reactions, energies and constraint violations at every recorded frame."""
    scene = examples / "slider_crank.json"
    proc = run_cli(cli, "run", str(scene), "--instances", "6", "--t-end", "0.1", "--backend", "cpu", "--seed", "11",
                   "--out", str(tmp_path / "cli.h5"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    sim = simphant.Simulator(scene, instances=6, backend="cpu", seed=11)
    with h5py.File(tmp_path / "cli.h5", "r") as f:
        every = int(f.attrs["record_every"])
        for k in range(f["time"].shape[0]):
            if k:
                sim.step(every)
            assert f["time"][k] == sim.time
            assert np.array_equal(f["state"][k], sim.states())
            assert np.array_equal(f["reactions"][k], sim.reactions())
            assert np.array_equal(f["energy"][k], sim.energy())
            assert np.array_equal(f["constraint_violation"][k], sim.constraint_violation())
        assert np.array_equal(f["status"][:], sim.status()[0])
        assert np.array_equal(f["assembly/position_residual"][:], sim.assembly().position_residual)


def test_refinement_record_flags_unconverged_solves(tmp_path):
    """A point-mass bob (inertia 1e-9 kg m^2; the run lowers tikhonov_epsilon to 1e-12 for
    it, docs/solver.md "The shift of a run") with at most 2 refinement corrections: every
    instance records unconverged solves with their largest error (about 2e-9); the default
    refinement records none (docs/solver.md, "The refined regularised solve")."""
    scene = {
        "gravity": [0, -9.81, 0],
        "bodies": [{"name": "bob", "mass": 1.0, "inertia": [1e-9, 1e-9, 1e-9], "position": [0.8414709848, -0.5403023059, 0]}],
        "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                    "frame": {"origin": [0, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]}}],
        "solver": {"dt": 0.001, "t_end": 1.0},
    }
    for steps in (2, None):
        if steps is not None:
            scene["solver"]["refinement_steps"] = steps
        else:
            scene["solver"].pop("refinement_steps")
        path = tmp_path / f"bob_{steps}.json"
        path.write_text(json.dumps(scene))
        sim = simphant.Simulator(path, instances=2, backend="cpu", threads=1)
        sim.step(10)
        unconverged, max_error, max_error_time = sim.refinement()
        assert unconverged.shape == (2,) and unconverged.dtype == np.int64
        assert max_error.dtype == np.float64 and max_error_time.dtype == np.float64
        if steps == 2:
            assert np.all(unconverged == 4 * 10)  # every RK4 stage
            assert np.all(max_error > 3.7e-11)
            # an RK4 stage time: up to the end of the 10th step (t + dt, rounded)
            assert np.all((max_error_time >= 0) & (max_error_time <= 10 * sim.dt * (1 + 1e-12)))
        else:
            assert np.all(unconverged == 0) and np.all(max_error <= 3.7e-11)
