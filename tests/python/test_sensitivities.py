"""Forward sensitivities through the Python API and the output file (docs/sensitivities.md).

Simulator(..., sensitivities=[...]).state_sensitivities(), reaction_sensitivities() and
joint_state_sensitivities() are checked against central differences of the same backend's runs (set_parameters to
v +- h on every instance, which re-assembles or resets it, as the seeds do) on a Franka
Panda on the DAE path and in joint coordinates (aba, cga: a payload mass, an initial joint
rate, gravity; servo targets and gains), and on Solo-12's floating base (aba). A joint law
crossed at a discontinuity (the velocity cut) makes the derivatives NaN until a reset. The step is h = 1e-5 |v| (1e-5
for v = 0): its truncation error h^2 |y'''| / 6 and its rounding error eps |y| / h are each
about 1e-9 of the derivatives here; the bound is 1e-6 of the largest difference plus 10
times the difference's own rounding eps max |y| / h (_check_against_differences). The
file written by simphant.run with `sensitivities` (the four-bar) holds the same numbers as
the Simulator, bit for bit, though the run advances in slices of its own and the
Simulator in one call; so do two shards merged, the reductions' derivatives
(/reduction_sensitivities) included. Those are checked against central differences in
tests/test_sensitivities.cpp.
"""
import copy
import json
import pathlib

import h5py
import numpy as np
import pytest

import simphant

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _scene(name):
    return json.loads((ROOT / "examples" / name).read_text())


def _panda(solver):
    doc = _scene("panda_sweep.json")
    doc["solver"]["type"] = solver
    del doc["sweep"]
    return doc


def _step(v):
    return 1e-5 * abs(v) if v != 0 else 1e-5


def _central_difference(doc, n, path, value, steps, h):
    """{output: (central difference, the nominal run's values)} of two runs' states,
    reactions, joint state (q, qd, tau) and energy (total, kinetic). q and -q are one
    rotation: each body's quaternion of both runs is taken on the branch of the nominal
    run's (the branch the tangents follow)."""
    runs = []
    for v in (value, value + h, value - h):
        sim = simphant.Simulator(doc, instances=n, backend="cpu", threads=2)
        sim.set_parameters(np.arange(n), {path: np.full(n, v)})
        sim.step(steps)
        kinetic = np.empty(n)
        energy = sim.energy(kinetic=kinetic)
        q, qd, tau = sim.joint_state()
        runs.append({"state": sim.states(), "reactions": sim.reactions(), "joint q": q, "joint qd": qd,
                     "joint tau": tau, "energy": energy, "kinetic energy": kinetic})
    for r in runs[1:]:
        y = r["state"]
        flip = np.sum(y[..., 3:7] * runs[0]["state"][..., 3:7], axis=-1) < 0
        y[..., 3:7][flip] *= -1
    return {k: ((runs[1][k] - runs[2][k]) / (2 * h), runs[0][k]) for k in runs[0]}


def _check_against_differences(doc, paths, values, steps, label, rel_steps=None):
    """Every parameter's state, joint-state and energy tangents (and the reactions' on the
    DAE path) within 1e-6 of the largest central difference, plus 10 times that
    difference's own rounding eps max |y| / h (each run's values carry the rounding of its
    steps: measured up to 3.2 times it where the derivative is far smaller than the values,
    as the energy's under a change of the initial rate about 0, which conserves it up to
    the integrator's error, or under a servo gain that does no work in the air); a
    joint-space robot's reactions NaN, as its reactions. A joint torque that does not move
    (an actuator without a law: tau = its input) has tangents exactly 0. The step of
    parameter s is rel_steps[s] |v| (default _step)."""
    sim = simphant.Simulator(doc, instances=2, backend="cpu", threads=2, sensitivities=paths)
    assert sim.sensitivity_paths == paths
    sim.step(steps)
    assert not sim.sensitivity_crossed().any()
    q, qd, tau = sim.joint_state_sensitivities()
    energy, kinetic = sim.energy_sensitivities()
    tangents = {"state": sim.state_sensitivities(), "reactions": sim.reaction_sensitivities(), "joint q": q,
                "joint qd": qd, "joint tau": tau, "energy": energy, "kinetic energy": kinetic}
    eps = np.finfo(float).eps
    for s, (path, value) in enumerate(zip(paths, values)):
        h = rel_steps[s] * abs(value) if rel_steps else _step(value)
        for name, (diff, nominal) in _central_difference(doc, 2, path, value, steps, h).items():
            tangent = tangents[name][..., s]
            if name == "reactions" and doc["solver"]["type"] != "dae":
                assert np.isnan(tangent).all() and np.isnan(diff).all()
                continue
            scale = np.abs(diff).max()
            err = np.abs(tangent - diff).max()
            if name == "joint tau" and scale == 0:
                assert not tangent.any(), (label, path)
                continue
            rounding = eps * np.abs(nominal).max() / h
            print(f"{label}, {path}, {name}: max |d| {scale:.3e}, max |tangent - difference| {err:.2e} "
                  f"({err / scale:.1e}; {err / rounding:.1f} eps max |y| / h)")
            assert scale > 0
            assert err < 1e-6 * scale + 10 * rounding


@pytest.mark.parametrize("solver", ["dae", "aba", "cga"])
def test_panda_matches_central_differences(solver):
    # A payload mass (the link's mass, CoM and inertia), an initial joint rate, gravity.
    _check_against_differences(_panda(solver), ["robot.payload.mass", "robot.qd0[0]", "robot.gravity[2]"],
                               [1.0, 0.0, -9.81], 200, f"panda {solver}")


@pytest.mark.parametrize("solver", ["dae", "aba", "cga"])
def test_panda_servos_match_central_differences(solver):
    # A servo's target (the actuator's default input), its stiffness and damping (the
    # joint's law), and a starting joint angle; the URDF's limits off: the velocity cut and
    # the limits' dampers are not smooth (the next test).
    doc = _scene("panda_servo.json")
    del doc["sweep"]
    doc["solver"]["type"] = solver
    doc["robot"]["urdf_dynamics"] = {"limits": False}
    _check_against_differences(doc, ["robot.servos.panda_joint1.target", "robot.servos.panda_joint2.kp",
                                     "robot.servos.panda_joint4.kd", "robot.q0[3]"],
                               [0.5, 600.0, 25.0, -2.356194], 300, f"panda servos {solver}")


def test_a_floating_base_matches_central_differences():
    # Solo-12 in the air (no contact): servos, the base's initial spin and a starting joint angle.
    doc = _scene("solo12_stand.json")
    for key in ("contact", "sweep"):
        doc.pop(key, None)
    doc["robot"].pop("collision", None)
    doc["robot"]["base"]["angular_velocity"] = [0.3, -0.2, 0.5]
    doc["solver"]["type"] = "aba"
    # The servo gain moves the states by 2e-5 per unit: its step is 1e-3 |v|, where the
    # rounding of the difference (eps |y| / h) stays below 1e-7 of it (measured: 1e-5 |v|
    # leaves 1.3e-5 of rounding, 1e-4 |v| 1.4e-6, 1e-3 |v| 8e-8). The base's spin moves the
    # joint angles by 1.2e-4 per unit: its step is 1e-4 |v| (measured: 1e-5 |v| leaves
    # 2.0e-6 of the angles' derivative in rounding, 1e-4 |v| 1.7e-7).
    _check_against_differences(doc, ["robot.base.angular_velocity[0]", "robot.servos.FL_KFE.kp", "robot.q0[1]"],
                               [0.3, 6.0, 0.8], 200, "solo-12 aba", rel_steps=[1e-4, 1e-3, 1e-5])


@pytest.mark.parametrize("solver", ["dae", "aba"])
def test_a_crossed_joint_law_gives_nan_until_reset(solver):
    # The Panda's servos drive joint 1 past its URDF velocity limit within 10 ms: the cut
    # sets the actuator's torque to 0 there, a jump the discrete step's tangents miss.
    doc = _scene("panda_servo.json")
    del doc["sweep"]
    doc["solver"]["type"] = solver
    sim = simphant.Simulator(doc, instances=2, backend="cpu", threads=2, sensitivities=["robot.payload.mass"])
    seeds = sim.state_sensitivities()
    assert not sim.sensitivity_crossed().any() and np.isfinite(seeds).all()
    sim.step(20)
    assert sim.sensitivity_crossed().all()
    assert np.isnan(sim.state_sensitivities()).all()
    assert (sim.status()[0] == 0).all()  # the run itself goes on
    sim.reset(np.arange(2))
    assert not sim.sensitivity_crossed().any()
    np.testing.assert_array_equal(sim.state_sensitivities(), seeds)


def test_a_run_records_which_instances_crossed(tmp_path):
    # Two Pandas on servos, one with the URDF's limits: only that one crosses (its joint 1
    # reaches the velocity limit); the file says which, and its derivatives are NaN.
    doc = _scene("panda_servo.json")
    del doc["sweep"]
    doc["solver"]["type"] = "aba"
    doc["solver"]["t_end"] = 0.05
    out = {}
    for limits in (True, False):
        doc["robot"]["urdf_dynamics"] = {"limits": limits}
        out[limits] = tmp_path / f"limits_{limits}.h5"
        assert simphant.run(doc, out=out[limits], instances=2, backend="cpu", threads=2,
                            sensitivities=["robot.payload.mass"]).exit_code == 0
    for limits, crossed in ((True, True), (False, False)):
        ds = simphant.open_results(out[limits])
        assert ds["sensitivity_crossed"].dtype == bool
        assert (ds["sensitivity_crossed"].values == crossed).all()
        with h5py.File(out[limits], "r") as f:
            last = f["state_sensitivities"][-1]
            assert np.isnan(last).all() if crossed else np.isfinite(last).all()
    # The joint state's derivatives in the file are the Simulator's, labelled in the reader.
    steps = int(round(0.05 / doc["solver"]["dt"]))
    sim = simphant.Simulator(doc, instances=2, backend="cpu", threads=2, sensitivities=["robot.payload.mass"])
    sim.step(steps)
    ds = simphant.open_results(out[False])
    with h5py.File(out[False], "r") as f:
        for name, tangent in zip(("q", "qd", "tau"), sim.joint_state_sensitivities()):
            d = f[f"joint_state_sensitivities/{name}"]
            assert d.shape[1:] == f[f"joint_state/{name}"].shape[1:] + (1,)
            np.testing.assert_array_equal(d[-1], tangent)
            v = ds[f"joint_{name}_sensitivities"]
            assert v.dims == ("time", "instance", "joint_coordinate", "parameter")
            np.testing.assert_array_equal(v.sel(parameter="robot.payload.mass").values[-1], tangent[..., 0])


def test_unconverged_tangent_solves_are_recorded_and_warned(tmp_path):
    # With one correction (solver.refinement_steps 1) no refined solve reaches the
    # tolerance, the tangents' included: the run warns about them and writes their record,
    # which the Simulator reads too (the steps' solves; reading a frame records nothing);
    # at the scene's settings none is above it and nothing warns.
    paths = ["bodies.piston.mass"]
    for steps in (1, 10):
        doc = _scene("slider_crank.json")
        doc["solver"]["t_end"] = 0.02
        doc["solver"]["refinement_steps"] = steps
        out = tmp_path / f"steps_{steps}.h5"
        result = simphant.run(doc, out=out, instances=2, backend="cpu", threads=2, sensitivities=paths)
        assert result.exit_code == 0
        warned = [w for w in result.summary["warnings"] if "refined Schur solves of the tangents" in w]
        ds = simphant.open_results(out)
        unconverged = ds["sensitivity_refinement_unconverged"].values
        sim = simphant.Simulator(doc, instances=2, backend="cpu", threads=2, sensitivities=paths)
        sim.step(int(round(0.02 / doc["solver"]["dt"])))
        u, e, t = sim.sensitivity_refinement()
        if steps == 1:
            assert len(warned) == 1 and "solver.refinement_steps = 1" in warned[0], result.summary["warnings"]
            assert (unconverged > 0).all() and (e > 3.7e-11).all()
        else:
            assert warned == [] and (unconverged == 0).all() and (e <= 3.7e-11).all()
        np.testing.assert_array_equal(u, unconverged)
        np.testing.assert_array_equal(e, ds["sensitivity_refinement_max_error"].values)
        assert ds["sensitivity_refinement_max_error_time"].attrs["units"] == "s"
    with pytest.raises(RuntimeError, match="no sensitivities"):
        simphant.Simulator(_scene("slider_crank.json"), instances=1, backend="cpu").sensitivity_refinement()


def test_run_writes_what_the_simulator_reads(tmp_path):
    doc = _scene("four_bar.json")
    doc["solver"]["t_end"] = 0.1
    paths = ["bodies.coupler.mass", "joints.rocker_pivot.frame_i.origin[0]"]
    out = tmp_path / "sens.h5"
    result = simphant.run(doc, out=out, instances=3, backend="cpu", threads=2, sensitivities=paths,
                          reductions="all")
    assert result.exit_code == 0
    with h5py.File(out, "r") as f:
        # The reductions' derivatives: each statistic but the time of the max, per parameter.
        g = f["reduction_sensitivities/bearing_loads"]
        assert sorted(g.keys()) == ["max", "mean", "min", "rms"]
        assert g["max"].shape == f["reductions/bearing_loads/max"].shape + (2,)
        assert g["max"].attrs["units"] == "(bearing_loads unit) / parameter unit"
        assert list(g.attrs["units"]) == ["N", "N", "N m", "N m"]
        assert np.isfinite(g["max"][:]).all() and np.abs(g["max"][:]).max() > 0
        reduction_tangents = {q: {s: f[f"reduction_sensitivities/{q}/{s}"][:] for s in ("max", "min", "mean", "rms")}
                              for q in f["reduction_sensitivities"]}
        # The frame's other derivatives, each shaped as its frame with the parameter last
        # (checked against central differences in tests/test_sensitivities.cpp).
        for name, base in (("joint_load_sensitivities", "joint_loads"), ("bearing_load_sensitivities", "bearing_loads"),
                           ("energy_sensitivities", "energy")):
            assert f[name].shape == f[base].shape + (2,), name
            assert np.isfinite(f[name][-1]).all() and np.abs(f[name][-1]).max() > 0, name
        d = f["state_sensitivities"]
        assert d.shape[1:] == (3, 3, 13, 2)
        assert [p.decode() for p in f["parameter"][:]] == paths
        assert d.attrs["units"] == "state unit / parameter unit"
        reactions = f["reaction_sensitivities"][-1]
        full = d[:]
        recorded = full[-1]
        steps = int(round(0.1 / doc["solver"]["dt"]))
    sim = simphant.Simulator(doc, instances=3, backend="cpu", threads=2, sensitivities=paths)
    sim.step(steps)  # in one advance, where the run advances in slices: the same tangents
    np.testing.assert_array_equal(recorded, sim.state_sensitivities())
    np.testing.assert_array_equal(reactions, sim.reaction_sensitivities())
    # The results reader labels the parameter axis with the paths.
    ds = simphant.open_results(out)
    np.testing.assert_array_equal(ds["state_sensitivities"].sel(parameter=paths[1]).values, full[..., 1])
    # The values they are taken at: both paths are swept, so the samples.
    values = ds["sensitivity_values"]
    assert values.dims == ("instance", "parameter")
    for path in paths:
        np.testing.assert_array_equal(values.sel(parameter=path).values, ds[path].values)
    # Two shards merged hold the one-shot run's numbers.
    shards = [tmp_path / f"shard{k}.h5" for k in range(2)]
    for k, path in enumerate(shards):
        simphant.run(doc, out=path, instances=3, backend="cpu", threads=2, sensitivities=paths, shard=(k, 2),
                     reductions="all")
    simphant.merge(tmp_path / "merged.h5", shards)
    with h5py.File(tmp_path / "merged.h5", "r") as f:
        np.testing.assert_array_equal(f["state_sensitivities"][:], full)
        for q, stats in reduction_tangents.items():
            for s, a in stats.items():
                np.testing.assert_array_equal(f[f"reduction_sensitivities/{q}/{s}"][:], a)


def test_a_robot_run_writes_its_energy_reductions_derivatives(tmp_path):
    """A robot in joint coordinates (arm7, aba) with sensitivities and output.reductions:
    /reduction_sensitivities/energy (checked against central differences in
    tests/test_sensitivities.cpp); the same numbers in one run and in two merged shards."""
    doc = _scene("arm7.json")
    doc["robot"]["urdf"] = str(ROOT / "examples" / "arm7.urdf")
    doc["robot"]["urdf_dynamics"] = {"limits": False}
    doc["solver"].update({"type": "aba", "t_end": 0.1})
    paths = ["robot.qd0[1]", "robot.gravity[2]"]
    out = tmp_path / "arm.h5"
    assert simphant.run(doc, out=out, instances=2, backend="cpu", threads=2, sensitivities=paths,
                        reductions=["energy"]).exit_code == 0
    with h5py.File(out, "r") as f:
        g = f["reduction_sensitivities/energy"]
        assert sorted(g.keys()) == ["max", "mean", "min", "rms"]
        assert g["mean"].shape == f["reductions/energy/mean"].shape + (2,)
        assert np.isfinite(g["mean"][:]).all() and np.abs(g["mean"][:]).min() > 0
        one = {s: g[s][:] for s in g}
    shards = [tmp_path / f"arm{k}.h5" for k in range(2)]
    for k, path in enumerate(shards):
        simphant.run(doc, out=path, instances=2, backend="cpu", threads=2, sensitivities=paths, shard=(k, 2),
                     reductions=["energy"])
    simphant.merge(tmp_path / "merged.h5", shards)
    with h5py.File(tmp_path / "merged.h5", "r") as f:
        for s, a in one.items():
            np.testing.assert_array_equal(f[f"reduction_sensitivities/energy/{s}"][:], a)


def test_the_state_tangents_view_aliases_the_engine():
    """state_sensitivities_view(): (n, state_size, S) over the engine's own tangents, no
    copy. On the DAE path (the four-bar) its q and qdot blocks are state_sensitivities()'s
    r, p and v, omega per body; for a robot in joint coordinates (arm7, aba) they are
    joint_state_sensitivities()'s dq and dqd. It follows a step without a new call, is
    read-only, and is refused with more than 16 parameters (more than one pass) and
    without sensitivities."""
    doc = _scene("four_bar.json")
    paths = ["bodies.coupler.mass", "joints.rocker_pivot.frame_i.origin[0]"]
    sim = simphant.Simulator(doc, instances=3, backend="cpu", threads=2, sensitivities=paths)
    view = sim.state_sensitivities_view()
    N = sim.n_bodies
    assert view.shape == (3, sim.state_size, 2) and view.dtype == np.float64 and not view.flags.writeable
    for steps in (0, 50):
        sim.step(steps)  # the same array, updated in place
        copy = sim.state_sensitivities()
        np.testing.assert_array_equal(view[:, :7 * N].reshape(3, N, 7, 2), copy[:, :, :7])
        np.testing.assert_array_equal(view[:, 7 * N:].reshape(3, N, 6, 2), copy[:, :, 7:])
    assert np.abs(view).max() > 0
    with pytest.raises(ValueError):
        view[0, 0, 0] = 1.0
    arm = _scene("arm7.json")
    arm["robot"]["urdf"] = str(ROOT / "examples" / "arm7.urdf")
    arm["robot"]["urdf_dynamics"] = {"limits": False}
    arm["solver"]["type"] = "aba"
    sim = simphant.Simulator(arm, instances=2, backend="cpu", sensitivities=["robot.qd0[1]", "robot.gravity[2]"])
    sim.step(30)
    view = sim.state_sensitivities_view()
    dq, dqd, _ = sim.joint_state_sensitivities()
    np.testing.assert_array_equal(view[:, :7], dq)
    np.testing.assert_array_equal(view[:, 7:], dqd)
    many = [f"robot.qd0[{k}]" for k in range(7)] + [f"robot.q0[{k}]" for k in range(7)]
    many += ["robot.gravity[0]", "robot.gravity[1]", "robot.gravity[2]"]
    with pytest.raises(ValueError, match="17 parameters run in 2 passes of 16 tangents"):
        simphant.Simulator(arm, instances=1, backend="cpu", sensitivities=many).state_sensitivities_view()
    with pytest.raises(RuntimeError, match="no sensitivities"):
        simphant.Simulator(arm, instances=1, backend="cpu").state_sensitivities_view()


def test_the_scene_section_and_the_argument(tmp_path):
    doc = _scene("four_bar.json")
    doc["sensitivities"] = {"parameters": ["bodies.coupler.mass"]}
    assert simphant.Simulator(doc, instances=2, backend="cpu").sensitivity_paths == ["bodies.coupler.mass"]
    # The argument replaces the section; [] turns them off.
    sim = simphant.Simulator(doc, instances=2, backend="cpu", sensitivities=["forces.drive.torque[1]"])
    assert sim.sensitivity_paths == ["forces.drive.torque[1]"]
    assert simphant.Simulator(doc, instances=2, backend="cpu", sensitivities=[]).sensitivity_paths == []
    # reset() returns the tangents to their seeds.
    seeds = sim.state_sensitivities()
    sim.step(20)
    assert not np.array_equal(seeds, sim.state_sensitivities())
    sim.reset(np.arange(2))
    np.testing.assert_array_equal(seeds, sim.state_sensitivities())


def test_bad_sensitivities_name_the_field():
    doc = _scene("four_bar.json")
    with pytest.raises(ValueError, match=r"sensitivities/parameters/0: .*names nothing"):
        simphant.Simulator(doc, instances=2, sensitivities=["bodies.nobody.mass"])
    with pytest.raises(ValueError, match=r"sensitivities/parameters/1: .*names the same value"):
        simphant.Simulator(doc, instances=2, sensitivities=["bodies.coupler.mass", "bodies[1].mass"])
    with pytest.raises(ValueError, match=r"shared by all instances"):
        simphant.Simulator(doc, instances=2, sensitivities=["solver.dt"])
    with pytest.raises(TypeError, match="not one string"):
        simphant.Simulator(doc, instances=2, sensitivities="bodies.coupler.mass")
    dopri = copy.deepcopy(doc)
    dopri["solver"]["integrator"] = "dopri5"
    with pytest.raises(ValueError, match="solver.integrator"):
        simphant.Simulator(dopri, instances=2, backend="cpu", sensitivities=["bodies.coupler.mass"])
    solo = _scene("solo12_stand.json")
    solo["solver"]["type"] = "aba"
    with pytest.raises(ValueError, match="contact"):
        simphant.Simulator(solo, instances=2, sensitivities=["robot.servos.FL_KFE.kp"])
    sim = simphant.Simulator(doc, instances=2, backend="cpu", sensitivities=["bodies.coupler.mass"])
    with pytest.raises(RuntimeError, match="not available with sensitivities"):
        sim.set_parameters([0], {"bodies.coupler.mass": [1.0]})
    with pytest.raises(RuntimeError, match="not available with sensitivities"):
        sim.reset([0], randomize=True)
    with pytest.raises(RuntimeError, match="no sensitivities"):
        simphant.Simulator(doc, instances=2, backend="cpu").state_sensitivities()


def test_a_chaotic_double_pendulum_grows_at_its_lyapunov_exponent():
    """The double pendulum released horizontal is chaotic: d(state)/d(lower mass) grows
    like e^(lambda t), lambda its largest Lyapunov exponent. Over 10 s the tangent grows
    by more than 1e8 and stays on the central difference of two runs h = 1e-8 kg apart
    (the linear regime: their separation below 1e-4 m) to 1e-5 relative plus the
    difference's rounding, 4 eps (1 m) / 2h = 7e-8; the exponent,
    fitted to log |dr/dm| over t in [1, 10] s, is printed."""
    doc = _scene("double_pendulum.json")
    del doc["sweep"]
    m = doc["bodies"][1]["mass"]
    h = 1e-8 * m
    sim = simphant.Simulator(doc, instances=1, backend="cpu", sensitivities=["bodies.lower.mass"])
    runs = []
    for sign in (1.0, -1.0):
        x = simphant.Simulator(doc, instances=1, backend="cpu")
        x.set_parameters([0], {"bodies.lower.mass": [m + sign * h]})
        runs.append(x)
    times, tangent, checked = [], [], 0
    for _ in range(200):  # 200 x 100 steps of 0.5 ms
        for s in [sim] + runs:
            s.step(100)
        d = sim.state_sensitivities()[0, :, 0:3, 0]
        sep = runs[0].states()[0, :, 0:3] - runs[1].states()[0, :, 0:3]
        times.append(sim.time)
        tangent.append(np.abs(d).max())
        if np.abs(sep).max() < 1e-4:
            checked += 1
            # The difference's own rounding: a few eps of the positions (under 1 m) over 2 h.
            rounding = 4 * np.finfo(float).eps * 1.0 / (2 * h)
            assert np.abs(d - sep / (2 * h)).max() < 1e-5 * np.abs(d).max() + rounding, sim.time
    times, tangent = np.array(times), np.array(tangent)
    window = times >= 1.0
    rate = np.polyfit(times[window], np.log(tangent[window]), 1)[0]
    print(f"double pendulum: |dr/dm| grows from {tangent[0]:.2e} to {tangent[-1]:.2e} in {times[-1]:.1f} s; "
          f"fitted exponent {rate:.2f} 1/s; checked against the difference at {checked} of {len(times)} frames")
    assert checked > 100
    assert tangent[-1] > 1e6 * tangent[0]
    assert rate > 1.0


@pytest.mark.parametrize("scene, solver, paths", [
    ("slider_crank.json", None, ["bodies.crank.mass", "bodies.piston.mass", "bodies.conrod.mass", "gravity[0]",
                                 "gravity[1]", "gravity[2]", "bodies.crank.inertia[0]", "bodies.crank.inertia[2]",
                                 "bodies.crank.inertia[1]"]),
    ("panda_servo.json", "aba", ["robot.servos.panda_joint1.target", "robot.payload.mass"] +
     [f"robot.servos.panda_joint{k}.target" for k in range(2, 8)] + ["robot.q0[0]"])])
def test_a_parameter_has_the_same_derivatives_in_every_pass_width(scene, solver, paths):
    # The parameters run in one pass of 1, 4, 8 or 16 tangents (docs/sensitivities.md,
    # "Cost"): each tangent is computed on its own, so a parameter's derivatives are the
    # same, bit for bit, in a pass of one tangent as beside 2, 5 or 8 others.
    doc = _scene(scene)
    doc.pop("sweep", None)
    if solver:
        doc["solver"]["type"] = solver
        doc["robot"]["urdf_dynamics"] = {"limits": False}
    one = simphant.Simulator(doc, instances=2, backend="cpu", threads=2, sensitivities=paths[:1])
    one.step(200)
    for count in (3, 6, 9):  # passes of 4, 8 and 16 tangents
        many = simphant.Simulator(doc, instances=2, backend="cpu", threads=2, sensitivities=paths[:count])
        many.step(200)
        np.testing.assert_array_equal(one.state_sensitivities()[..., 0], many.state_sensitivities()[..., 0])
        np.testing.assert_array_equal(one.energy_sensitivities()[0][..., 0], many.energy_sensitivities()[0][..., 0])
        assert np.abs(many.state_sensitivities()[..., count - 1]).max() > 0
    assert np.abs(one.state_sensitivities()).max() > 0
