"""Zero-copy views and DLPack: NumPy on the CPU, torch CPU tensors, device arrays on a GPU."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import simphant

try:
    import torch
except ImportError:  # torch is optional
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed (pip install torch)")
needs_gpu = pytest.mark.skipif(not simphant.cuda_available(), reason="no CUDA device (or a build without CUDA)")


@pytest.fixture()
def sim(examples):
    return simphant.Simulator(examples / "slider_crank.json", instances=4, backend="cpu", threads=1)


def test_state_view_aliases_the_backend_memory(sim):
    v = sim.state_view()
    assert isinstance(v, np.ndarray) and v.shape == (4, 39) and v.dtype == np.float64
    assert np.array_equal(v, sim.get_state().y)
    sim.step(20)
    assert np.array_equal(v, sim.get_state().y)  # the view follows the steps
    before = sim.get_state()
    v[1, 0] += 1e-3  # writing through it is as set_state of y
    assert sim.get_state([1]).y[0, 0] == before.y[1, 0] + 1e-3


def test_state_view_keeps_the_simulator_alive(examples):
    v = simphant.Simulator(examples / "pendulum.json", instances=2, backend="cpu").state_view()
    gc.collect()
    assert np.all(np.isfinite(v)) and v.shape[0] == 2


def test_inputs_view_sets_the_inputs(examples):
    a = simphant.Simulator(examples / "slider_crank.json", instances=4, backend="cpu")
    b = simphant.Simulator(examples / "slider_crank.json", instances=4, backend="cpu")
    u = np.array([[0.1], [0.4], [0.7], [1.0]])
    assert a.inputs_view().shape == (4, 1)
    a.inputs_view()[:] = u
    b.set_inputs(u)
    a.step(50)
    b.step(50)
    assert np.array_equal(a.states(), b.states())


def test_numpy_dlpack_round_trip(sim):
    v = sim.state_view()
    w = np.from_dlpack(v)
    assert np.shares_memory(v, w)


class HostDLPack:
    """A DLPack producer that is not a NumPy array (as a torch CPU tensor or a JAX array is)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_set_inputs_from_any_host_dlpack_array(examples):
    a = simphant.Simulator(examples / "slider_crank.json", instances=3, backend="cpu")
    b = simphant.Simulator(examples / "slider_crank.json", instances=3, backend="cpu")
    u = np.array([[0.2], [0.5], [0.9]])
    a.set_inputs(HostDLPack(u))
    b.set_inputs(u)
    a.step(40)
    b.step(40)
    assert np.array_equal(a.states(), b.states())


def test_device_arrays_on_a_host_backend_are_refused(sim):
    class Elsewhere:
        def __dlpack_device__(self):
            return (4, 0)  # OpenCL

    with pytest.raises(ValueError, match="device type 4"):
        sim.set_inputs(Elsewhere())


@needs_torch
def test_torch_cpu_tensor_round_trip(sim):
    t = torch.from_dlpack(sim.state_view())
    assert t.shape == (4, 39) and t.dtype == torch.float64
    assert t.data_ptr() == sim.state_view().ctypes.data  # no copy
    sim.step(5)
    assert np.array_equal(t.numpy(), sim.get_state().y)
    # actions from a torch CPU tensor
    ref = simphant.Simulator(sim.scene, instances=4, backend="cpu")
    u = torch.linspace(0.1, 0.9, 4, dtype=torch.float64).reshape(4, 1)
    sim.reset()
    sim.set_inputs(u)
    ref.set_inputs(u.numpy())
    sim.step(30)
    ref.step(30)
    assert np.array_equal(sim.states(), ref.states())


@needs_gpu
@needs_torch
def test_device_state_view_and_device_inputs(examples):
    sim = simphant.Simulator(examples / "slider_crank.json", instances=64, backend="cuda")
    dev = sim.state_view()
    assert dev.__dlpack_device__()[0] == 2  # kDLCUDA
    t = torch.from_dlpack(dev)
    assert t.is_cuda and tuple(t.shape) == (64, 39) and t.stride() == (1, 64)
    u = torch.full((64, 1), 0.5, dtype=torch.float64, device="cuda")
    sim.set_inputs(u)
    sim.step(20)
    sim.synchronize()
    assert np.array_equal(t.cpu().numpy(), sim.get_state().y)
    ref = simphant.Simulator(examples / "slider_crank.json", instances=64, backend="cuda")
    ref.set_inputs(np.full((64, 1), 0.5))
    ref.step(20)
    assert np.array_equal(ref.states(), sim.states())
