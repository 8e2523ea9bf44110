"""The contact pairs' forces in the results and the report (docs/contact.md "Outputs",
docs/report.md "Peak loads"): a short run of the shipped clearance example, a sweep of the
wrist pin's radial clearance and restitution; the report's peak bearing force of the
clearance against the swept clearance, checked against numpy on the file's /contacts."""
from __future__ import annotations

import h5py
import numpy as np
import pytest

from conftest import run_cli

report = pytest.importorskip("simphant.report")
pytest.importorskip("matplotlib")
pytest.importorskip("scipy")

PAIR = "clearance wrist_pin"
CLEARANCE = "joints.wrist_pin.clearance.radial"


@pytest.fixture(scope="module")
def clearance_run(cli, examples, tmp_path_factory):
    d = tmp_path_factory.mktemp("clearance")
    # 6 ms (4000 steps of 1.5 us, several impacts of the journal at 5000 rpm), 8 instances.
    p = run_cli(cli, "run", str(examples / "slider_crank_clearance.json"), "--t-end", "0.006", "--backend", "cpu",
                "--out", "c.h5", cwd=d)
    assert p.returncode == 0, p.stderr
    return d / "c.h5"


def test_contacts_open_with_their_pair_names_and_units(clearance_run):
    from simphant import _simphant
    from simphant.results import open_results

    table = _simphant.components["contacts"]
    with open_results(clearance_run) as ds:
        c = ds.contacts
        assert c.dims == ("time", "instance", "contact_pair", "contact_component")
        assert list(ds.contact_pair.values) == [PAIR]
        assert list(ds.contact_component.values) == [name for name, _ in table]
        assert list(ds.contact_component_units.values) == [unit for _, unit in table]
        normal = c.sel(contact_pair=PAIR, contact_component="normal_force").values
        assert np.isfinite(normal).all() and normal.min() >= 0 and normal.max() > 0


def test_report_relates_the_peak_bearing_force_to_the_swept_clearance(clearance_run, tmp_path):
    r = report.make_report(str(clearance_run), str(tmp_path / "rep"))
    with h5py.File(clearance_run) as f:
        frames = np.asarray(f["contacts"][:])
        clearance = np.asarray(f["params"][CLEARANCE][:])
        ok = np.asarray(f["status"][:]) == 0
    assert ok.all()
    outputs = r["peak_loads"]["outputs"]
    normal = outputs[f"contacts/{PAIR}/normal_force"]
    assert normal["units"] == "N" and normal["source"] == "/contacts frames (max |x| over time)"
    peak = np.abs(frames[:, :, 0, 0]).max(axis=0)  # per instance, over the frames
    assert normal["n"] == peak.size
    assert normal["quantiles"]["max"] == pytest.approx(peak.max(), rel=1e-12)
    # A larger clearance lets the journal strike the bore faster: the peak force rises with
    # it (Flores et al., Nonlinear Dyn. 61 (2010) 633: the peaks grow with the clearance).
    rho = normal["spearman"][CLEARANCE]["rho"]
    ranks = lambda x: np.argsort(np.argsort(x))  # noqa: E731 (no ties in an LHS design)
    assert rho == pytest.approx(np.corrcoef(ranks(clearance), ranks(peak))[0, 1], abs=1e-12)
    assert rho > 0.5
    friction = outputs[f"contacts/{PAIR}/friction_force"]  # frictionless steel: zero, not ranked
    assert friction["quantiles"]["max"] == 0 and friction["r2"] is None
    assert not any(k.endswith(("/penetration", "/count")) for k in outputs)  # not loads
    files = {x["file"] for x in r["figures"]}
    assert "scatter_contacts.png" in files and "traces_contacts.png" in files
    traces = r["traces"]["traces"]["contacts"]
    assert set(traces) == {f"{PAIR}/normal_force", f"{PAIR}/friction_force"}
    assert traces[f"{PAIR}/normal_force"]["units"] == "N"


@pytest.fixture(scope="module")
def clearance_reduced(cli, examples, tmp_path_factory):
    d = tmp_path_factory.mktemp("clearance_reduced")
    p = run_cli(cli, "run", str(examples / "slider_crank_clearance.json"), "--t-end", "0.006", "--backend", "cpu",
                "--reductions", "contacts", "--out", "c.h5", cwd=d)
    assert p.returncode == 0, p.stderr
    return d / "c.h5"


def test_contact_reductions_see_every_step_and_feed_the_report(clearance_reduced, tmp_path):
    """/reductions/contacts samples every step's start state, the frames only every
    record_every steps: its max is at least each instance's largest frame (a frame's state
    is a step's start), and the report takes its peaks from it."""
    with h5py.File(clearance_reduced) as f:
        frames = np.asarray(f["contacts"][:])
        g = f["reductions/contacts"]
        rmax, when = np.asarray(g["max"][:]), np.asarray(g["time_of_max"][:])
        assert [x.decode() if isinstance(x, bytes) else x for x in g.attrs["components"]] == \
            ["normal_force", "friction_force", "penetration", "count"]
    assert rmax.shape == (frames.shape[1], 1, 4)
    assert (rmax[:, 0, 0] >= frames[:, :, 0, 0].max(axis=0)).all()
    assert (rmax[:, 0, 0] > frames[:, :, 0, 0].max(axis=0)).any(), "a peak between frames"
    assert ((when >= 0) & (when <= 0.006 + 1e-12)).all()
    r = report.make_report(str(clearance_reduced), str(tmp_path / "rep"))
    normal = r["peak_loads"]["outputs"][f"contacts/{PAIR}/normal_force"]
    assert normal["source"] == "/reductions/contacts/max, min"
    assert normal["quantiles"]["max"] == pytest.approx(rmax[:, 0, 0].max(), rel=1e-12)
    assert not any(k.endswith(("/penetration", "/count")) for k in r["peak_loads"]["outputs"])
