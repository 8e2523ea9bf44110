"""simphant.open_results (xarray) and simphant.instance_table (pandas)."""
from __future__ import annotations

import h5py
import numpy as np
import pytest

import simphant


@pytest.fixture(scope="module")
def result(examples, tmp_path_factory):
    out = tmp_path_factory.mktemp("results") / "slider.h5"
    return simphant.run(examples / "slider_crank.json", out=out, instances=7, t_end=0.1, backend="cpu")


def test_dataset_layout(result):
    with simphant.open_results(result.out_file) as ds, h5py.File(result.out_file, "r") as f:
        T = f["time"].shape[0]
        assert dict(ds.sizes) == {"time": T, "instance": 7, "body": 3, "joint": 4, "state_component": 13,
                                  "reaction_component": 6, "joint_load_component": 6, "bearing_component": 4}
        assert ds.body.values.tolist() == ["crank", "conrod", "piston"]
        assert ds.joint.values.tolist()[0] == "main_bearing"
        assert ds.state_component.values.tolist()[:4] == ["r_x", "r_y", "r_z", "p_w"]
        assert ds.state_component_units.sel(state_component="omega_y").item() == "rad/s"
        assert ds.state.dims == ("time", "instance", "body", "state_component")
        assert ds.reactions.dims == ("time", "instance", "joint", "reaction_component")
        for name, units in (("time", "s"), ("energy", "J"), ("status_time", "s")):
            assert ds[name].attrs["units"] == units
        assert all("units" in ds[v].attrs for v in ds.data_vars if v not in ("status", "status_reason"))
        np.testing.assert_array_equal(ds.status_reason.values, f["status_reason"][:])
        np.testing.assert_array_equal(ds.state.values, f["state"][:])
        np.testing.assert_array_equal(ds.reactions.sel(joint="cylinder").values, f["reactions"][:, :, 3, :])
        np.testing.assert_array_equal(ds["bodies.piston.mass"].values, f["params/bodies.piston.mass"][:])
        assert sorted(ds.attrs["sweep_parameters"]) == sorted(f["params"].keys()) == [
            "bodies.piston.mass", "forces.gas_load.force[0]", "forces.motor.value"]
        assert ds.attrs["n_instances"] == 7 and ds.attrs["backend"] == "cpu"
        assert ds.attrs["body_names"] == ["crank", "conrod", "piston"]
        assert ds.attrs["version"] == simphant.__version__


def test_component_table_is_the_files_labels_and_units(result):
    # One table of components and units (src/simphant/model/components.hpp), exported by the
    # module: the file's labels and `units` attributes are the table's.
    table = simphant._simphant.components
    with h5py.File(result.out_file, "r") as f:
        def text(values):
            return [v.decode() if isinstance(v, bytes) else v for v in values]
        for dataset, label, key in (("state", "state_component", "state"),
                                    ("reactions", "reaction_component", "reactions"),
                                    ("joint_loads", "joint_load_component", "joint_loads"),
                                    ("bearing_loads", "bearing_component", "bearing_loads")):
            assert text(f[label][:]) == [name for name, _ in table[key]], label
            assert text(f[dataset].attrs["units"]) == [unit for _, unit in table[key]], dataset
    assert simphant.results.STATE_UNITS == [unit for _, unit in table["state"]]


def test_status_reason_names_are_the_files_codes(result):
    # The package's names of /status_reason codes are the ones the C++ recorder writes
    # (attribute codes), step_size_underflow (6) included.
    with h5py.File(result.out_file, "r") as f:
        codes = [c.decode() if isinstance(c, bytes) else c for c in f["status_reason"].attrs["codes"]]
    assert codes == simphant.results.STATUS_REASON_NAMES
    assert codes[6] == "step_size_underflow"


def test_selection_reads_lazily(result):
    with simphant.open_results(result.out_file) as ds:
        assert not ds.state.variable._in_memory
        z = ds.state.sel(body="piston", state_component="r_x").isel(time=-1)
        assert z.shape == (7,)


def test_instance_table(result):
    with simphant.open_results(result.out_file) as ds:
        table = simphant.instance_table(ds)
        energy = ds.energy.values
    assert list(table.index) == list(range(7)) and table.index.name == "instance"
    for col in ("bodies.piston.mass", "status", "status_reason", "status_time", "assembly_position_residual",
                "assembly_iterations", "assembly_velocity_change", "max_constraint_violation", "energy_drift_abs_J",
                "energy_final_J"):
        assert col in table.columns, col
    assert (table["status"] == "ok").all()
    assert (table["status_reason"] == "none").all()
    np.testing.assert_array_equal(table["energy_drift_abs_J"], np.abs(energy - energy[0]).max(axis=0))


def test_not_simphant_output(tmp_path):
    with h5py.File(tmp_path / "x.h5", "w") as f:
        f["a"] = 1
    with pytest.raises(ValueError, match="not a SimPhant output file"):
        simphant.open_results(tmp_path / "x.h5")
    with pytest.raises(FileNotFoundError):
        simphant.open_results(tmp_path / "missing.h5")


@pytest.fixture(scope="module")
def driven_shards(examples, tmp_path_factory):
    """A driven slider-crank run as 2 shards (every frame dataset, reductions all), merged with
    virtual datasets (the default) and by copy."""
    d = tmp_path_factory.mktemp("merged")
    files = [simphant.run(examples / "slider_crank_driven.json", out=d / f"s{k}.h5", shard=(k, 2), instances=5,
                          t_end=0.05, seed=3, backend="cpu", threads=1).out_file for k in (0, 1)]
    simphant.merge(d / "virtual.h5", files)
    simphant.merge(d / "copy.h5", files, copy=True)
    return d


def test_merged_virtual_file_keeps_every_frame_dataset(driven_shards):
    """A per-frame dataset is one whose first dimension is `time`, extendible (a run's file) or
    not (the virtual datasets of a merged file)."""
    with h5py.File(driven_shards / "virtual.h5", "r") as f:
        assert f["driver_loads"].is_virtual and f["driver_loads"].maxshape[0] is not None
    with simphant.open_results(driven_shards / "virtual.h5") as v, \
            simphant.open_results(driven_shards / "copy.h5") as c:
        frames = {n for n in c.data_vars if "time" in c[n].dims}
        assert {"state", "reactions", "energy", "constraint_violation", "driver_loads", "joint_loads",
                "bearing_loads"} <= frames
        assert {n for n in v.data_vars if "time" in v[n].dims} == frames
        for n in frames:
            assert v[n].dims == c[n].dims, n
            np.testing.assert_array_equal(v[n].values, c[n].values, err_msg=n)


def test_every_label_coordinate_of_the_file(driven_shards):
    """Every string dimension scale of the file is a coordinate, so .sel by name works."""
    path = driven_shards / "virtual.h5"
    with simphant.open_results(path) as ds, h5py.File(path, "r") as f:
        scales = [n for n, d in f.items() if isinstance(d, h5py.Dataset) and d.attrs.get("CLASS") == b"DIMENSION_SCALE"
                  and d.dtype.kind in "OS"]
        assert {"driver", "bearing_component", "joint_load_component", "state_component"} <= set(scales)
        for n in scales:
            assert ds[n].values.tolist() == [x.decode() for x in f[n][:]], n
        driver = ds.driver.values[0]
        np.testing.assert_array_equal(ds.driver_loads.sel(driver=driver).values, f["driver_loads"][:, :, 0])
        np.testing.assert_array_equal(ds.bearing_loads.sel(bearing_component="radial_force").values,
                                      f["bearing_loads"][:, :, :, 1])
        name = f["joint_load_component"][4].decode()
        np.testing.assert_array_equal(ds.joint_loads.sel(joint_load_component=name).values,
                                      f["joint_loads"][:, :, :, 4])


def test_docs_open_results_example_runs(root, examples, tmp_path, monkeypatch):
    """docs/python.md's open_results example runs as written on a four_bar run."""
    import re

    blocks = [b for b in re.findall(r"```python\n(.*?)```", (root / "docs" / "python.md").read_text(), re.S)
              if 'open_results("four_bar.h5")' in b]
    assert len(blocks) == 1
    simphant.run(examples / "four_bar.json", out=tmp_path / "four_bar.h5", instances=3, t_end=0.05, backend="cpu",
                 threads=1)
    monkeypatch.chdir(tmp_path)
    scope = {"simphant": simphant}
    exec(blocks[0], scope)
    assert scope["z"].dims == ("time", "instance") and scope["load"].dims == ("time", "instance")


def test_error_estimate_and_step_statistics(examples, tmp_path):
    # A fixed-step run with the error estimate: /error_estimate/{position, orientation} per
    # instance, and the step figures in the summary and the root attributes.
    r = simphant.run(examples / "pendulum.json", out=tmp_path / "est.h5", instances=3, t_end=0.2, backend="cpu",
                     error_estimate=True)
    assert r.summary["integrator"] == "rk4" and r.summary["rejected_steps"] == 0
    assert r.summary["accepted_steps"] == 3 * r.summary["steps"]
    assert r.summary["min_step_s"] == r.summary["max_step_s"] == r.summary["dt_s"]
    with simphant.open_results(r.out_file) as ds:
        pos = ds.error_estimate_position
        assert pos.dims == ("instance",) and pos.attrs["units"] == "m" and pos.attrs["order"] == 4
        assert pos.attrs["method"] == "Richardson extrapolation against a dt/2 run"
        assert ds.error_estimate_orientation.attrs["units"] == "rad"
        assert np.isfinite(pos.values).all() and (pos.values > 0).all()
        assert pos.values.max() == pytest.approx(r.summary["error_estimate_position_m"], rel=0, abs=0)
        assert ds.attrs["integrator"] == "rk4" and ds.attrs["accepted_steps"] == r.summary["accepted_steps"]
        assert "step_statistics_accepted" not in ds  # fixed steps: the root attributes say it all
    # An adaptive run: per-instance step statistics.
    a = simphant.run(examples / "pendulum.json", out=tmp_path / "bdf.h5", instances=2, t_end=0.2, backend="cpu",
                     integrator="bdf")
    with simphant.open_results(a.out_file) as ds:
        assert ds.attrs["integrator"] == "bdf"
        assert int(ds.step_statistics_accepted.sum()) == a.summary["accepted_steps"]
        assert int(ds.step_statistics_rejected.sum()) == a.summary["rejected_steps"]
        assert float(ds.step_statistics_min_step.min()) == a.summary["min_step_s"]
        assert ds.step_statistics_max_step.attrs["units"] == "s"
