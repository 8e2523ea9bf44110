"""A run's file read by xarray through h5netcdf (the netCDF-4 view of HDF5): every
dataset has named dimensions from the file's dimension scales (h5netcdf refuses
unnamed ones unless phony_dims is given), coordinates with their labels, and a `units`
attribute (io/recorder.hpp, docs/scene-format.md "Output"). Needs the simphant
executable (SIMPHANT_CLI) and h5netcdf (scripts/setup.sh)."""
from __future__ import annotations

import h5py
import numpy as np
import pytest

from conftest import run_cli

xr = pytest.importorskip("xarray")
pytest.importorskip("h5netcdf")

STATE_UNITS = ["m"] * 3 + ["1"] * 4 + ["m/s"] * 3 + ["rad/s"] * 3
EXPECTED = {  # variable: (dims, units)
    "state": (("time", "instance", "body", "state_component"), STATE_UNITS),
    "reactions": (("time", "instance", "joint", "reaction_component"), ["N"] * 3 + ["N m"] * 3),
    "constraint_violation": (("time", "instance"), "m or 1 (max over position rows [m] and orientation rows [1])"),
    "energy": (("time", "instance"), "J"),
    "joint_loads": (("time", "instance", "joint", "joint_load_component"), ["N"] * 3 + ["N m"] * 3),
    "bearing_loads": (("time", "instance", "joint", "bearing_component"), ["N", "N", "N m", "N m"]),
    "status": (("instance",), "1"),
    "status_reason": (("instance",), "1"),
    "status_time": (("instance",), "s"),
}
ASSEMBLY_UNITS = {"position_residual": "m", "velocity_residual": "m/s", "iterations": "1", "position_change": "m",
                  "orientation_change": "rad", "velocity_change": "m/s", "angular_velocity_change": "rad/s"}


def _units(v):
    u = v.attrs["units"]
    return u if isinstance(u, str) else [str(x) for x in u]


@pytest.fixture(scope="module")
def slider(cli, examples, tmp_path_factory):
    d = tmp_path_factory.mktemp("netcdf")
    r = run_cli(cli, "run", str(examples / "slider_crank.json"), "-n", "3", "--t-end", "0.1", "--threads", "1",
                "--compression", "3", "--out", "slider.h5", cwd=d)
    assert r.returncode == 0, r.stderr
    return d / "slider.h5"


def test_root_dimensions_coordinates_and_units(slider):
    with xr.open_dataset(slider, engine="h5netcdf") as ds, h5py.File(slider, "r") as f:
        T = f["time"].shape[0]
        assert dict(ds.sizes) == {"time": T, "instance": 3, "body": 3, "joint": 4, "state_component": 13,
                                  "reaction_component": 6, "joint_load_component": 6, "bearing_component": 4}
        assert set(ds.coords) == {"time", "instance", "body", "joint", "state_component", "reaction_component",
                                  "joint_load_component", "bearing_component"}
        assert ds.time.attrs["units"] == "s"
        np.testing.assert_array_equal(ds.time.values, f["time"][:])
        assert ds.instance.values.tolist() == [0, 1, 2]
        assert ds.body.values.tolist() == ["crank", "conrod", "piston"]
        assert ds.joint.values.tolist() == ["main_bearing", "crank_pin", "wrist_pin", "cylinder"]
        assert ds.state_component.values.tolist()[:4] == ["r_x", "r_y", "r_z", "p_w"]
        assert ds.reaction_component.values.tolist() == ["f_x", "f_y", "f_z", "tau_x", "tau_y", "tau_z"]
        assert ds.joint_load_component.values.tolist() == ["f_a", "f_b", "f_v", "m_a", "m_b", "m_v"]
        assert ds.bearing_component.values.tolist() == ["axial_force", "radial_force", "axial_moment",
                                                        "bending_moment"]
        assert set(ds.data_vars) == set(EXPECTED)
        for name, (dims, units) in EXPECTED.items():
            assert ds[name].dims == dims, name
            assert _units(ds[name]) == units, name
        # The values are the file's (deflate round trip) and select by label.
        np.testing.assert_array_equal(ds.state.values, f["state"][:])
        np.testing.assert_array_equal(ds.reactions.sel(joint="cylinder").values, f["reactions"][:, :, 3, :])
        # Provenance.
        for a in ("version", "git_commit", "command_line", "host", "device", "start_time"):
            assert a in ds.attrs, a
        assert "--compression 3" in ds.attrs["command_line"]
        assert ds.attrs["start_time"].endswith("Z") and ds.attrs["start_time"][10] == "T"


def test_groups_name_the_instance_dimension(slider):
    with xr.open_dataset(slider, engine="h5netcdf", group="assembly") as ds:
        assert set(ds.data_vars) == set(ASSEMBLY_UNITS)
        for name, units in ASSEMBLY_UNITS.items():
            assert ds[name].dims == ("instance",) and ds[name].attrs["units"] == units, name
    with xr.open_dataset(slider, engine="h5netcdf", group="params") as ds:
        assert set(ds.data_vars) == {"bodies.piston.mass", "forces.gas_load.force[0]", "forces.motor.value"}
        for name in ds.data_vars:
            assert ds[name].dims == ("instance",), name
        assert ds["bodies.piston.mass"].attrs["units"] == "kg"
        assert ds["forces.gas_load.force[0]"].attrs["units"] == "N"


def test_robot_joint_state(cli, examples, tmp_path):
    r = run_cli(cli, "run", str(examples / "arm7.json"), "-n", "2", "--t-end", "0.03", "--threads", "1",
                "--out", "arm.h5", cwd=tmp_path)
    if r.returncode != 0 and "example-robot-data" in r.stderr:
        pytest.skip(r.stderr)
    assert r.returncode == 0, r.stderr
    with xr.open_dataset(tmp_path / "arm.h5", engine="h5netcdf", group="joint_state") as ds:
        for name, units in (("q", "rad"), ("qd", "rad/s"), ("tau", "N m")):
            assert ds[name].dims == ("time", "instance", "joint_coordinate"), name
            assert set(_units(ds[name])) == {units}, name
        assert ds.sizes["joint_coordinate"] == 7


@pytest.mark.parametrize("frames", ["first_last", "none"])
def test_frame_selections_open(cli, examples, tmp_path, frames):
    r = run_cli(cli, "run", str(examples / "slider_crank.json"), "-n", "2", "--t-end", "0.1", "--threads", "1",
                "--frames", frames, "--datasets", "state,energy", "--out", "f.h5", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    with xr.open_dataset(tmp_path / "f.h5", engine="h5netcdf") as ds:
        if frames == "none":
            assert "time" not in ds.dims and "state" not in ds
        else:
            assert ds.sizes["time"] == 2
            assert set(ds.data_vars) == {"state", "energy", "status", "status_reason", "status_time"}
            assert ds.state.dims == EXPECTED["state"][0]
        assert ds.status.dims == ("instance",)


def test_python_run_takes_the_output_options(examples, tmp_path):
    simphant = pytest.importorskip("simphant")
    r = simphant.run(examples / "slider_crank.json", out=tmp_path / "p.h5", instances=2, t_end=0.1, backend="cpu",
                     threads=1, datasets=["energy"], frames="first_last", compression=2)
    assert r.exit_code == 0 and r.summary["frames"] == 2
    with xr.open_dataset(r.out_file, engine="h5netcdf") as ds:
        assert set(ds.data_vars) == {"energy", "status", "status_reason", "status_time"}
        assert ds.attrs["output_compression"] == 2 and ds.attrs["output_frames"] == "first_last"
    with pytest.raises(ValueError, match="--compression: must be a deflate level 0..9"):
        simphant.run(examples / "slider_crank.json", out=tmp_path / "q.h5", instances=1, t_end=0.1, compression=10)
    with pytest.raises(ValueError, match="datasets: expected a non-empty list of names"):
        simphant.run(examples / "slider_crank.json", out=tmp_path / "q.h5", datasets="state")
