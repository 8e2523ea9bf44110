"""simphant.gym.TorchVectorEnv: VectorEnv with observations, rewards and actions as torch tensors."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

import numpy as np

from .vector_env import VectorEnv


class TorchVectorEnv(VectorEnv):
    """VectorEnv whose observations, rewards, terminations, truncations and actions are
    torch tensors (observations of `dtype`, np.float64 by default or np.float32 ->
    torch.float32; rewards and actions float64; bool flags).

    On a cuda backend the observation is taken from the simulator's device state through
    DLPack (Simulator.state_view) and actions go to the device without a host round trip
    (Simulator.set_inputs with a device tensor), so the tensors stay on the GPU; on the
    CPU they are CPU tensors. `device` is where the tensors live (default: "cuda" on a
    cuda backend, else "cpu"). The reward, terminated and observation callables receive
    and return torch tensors. Arguments otherwise as VectorEnv. Raises ImportError
    without torch.
    """

    def __init__(self, *args: Any, device: Optional[str] = None, **kwargs: Any) -> None:
        import torch  # optional dependency

        self._torch = torch
        super().__init__(*args, **kwargs)
        on_gpu = self.sim.backend.startswith("cuda")
        self.device = torch.device(device if device is not None else ("cuda" if on_gpu else "cpu"))
        self._device_state = on_gpu and self.device.type == "cuda"
        self._states_as_y = self._device_state  # the device view has State.y's layout
        self._torch_dtype = torch.float32 if self.dtype == np.float32 else torch.float64
        self._low = torch.as_tensor(self.single_action_space.low, device=self.device)
        self._high = torch.as_tensor(self.single_action_space.high, device=self.device)
        self._map_t = None if self._action_map is None else torch.as_tensor(self._action_map.T, device=self.device)
        offset = self._action_offset
        self._offset_t = None if offset is None else torch.as_tensor(offset, device=self.device)
        self.last_actions = torch.zeros((self.num_envs, len(self._low)), dtype=torch.float64, device=self.device)

    def set_parameters(self, ids: Any, params: Dict[str, Any]) -> None:
        """As VectorEnv.set_parameters; ids and values may also be torch tensors (on any
        device: they are copied to the host)."""
        t = self._torch

        def host(x: Any) -> Any:
            return x.detach().cpu().numpy() if isinstance(x, t.Tensor) else x

        super().set_parameters(host(ids), {path: host(v) for path, v in params.items()})

    def _read_states(self) -> Any:
        t = self._torch
        if self._device_state:
            self.sim.synchronize()
            return t.from_dlpack(self.sim.state_view()).to(t.float64)
        return t.from_numpy(self.sim.states().reshape(self.num_envs, -1)).to(self.device)

    def _read_joints(self) -> Any:
        q, qd, _ = self.sim.joint_state()
        return self._torch.from_numpy(q).to(self.device), self._torch.from_numpy(qd).to(self.device)

    def _actions(self, actions: Any) -> Any:
        t = self._torch
        a = t.as_tensor(actions, dtype=t.float64, device=self.device)
        self._check_action_shape(a.shape)
        a = a.reshape(self.num_envs, -1)
        if bool(t.isnan(a).any()):
            i, j = (int(k) for k in t.nonzero(t.isnan(a))[0])
            raise ValueError(f"actions[{i}, {j}] is NaN")
        return a

    def _apply_actions(self, a: Any) -> Any:
        t = self._torch
        self.last_actions = a.clone()
        a = t.clamp(a, self._low, self._high).contiguous()
        u = a if self._map_t is None else (a @ self._map_t).contiguous()
        if self._offset_t is not None:
            u = u + self._offset_t
        self.sim.set_inputs(u if self._device_state else u.cpu().numpy())
        return a

    def _zero_rows(self, x: Any, ids: np.ndarray) -> None:
        x[self._torch.as_tensor(ids, device=x.device)] = 0.0

    def _concat(self, cols: Sequence[Any]) -> Any:
        return self._torch.cat(cols, dim=1) if len(cols) > 1 else cols[0].clone()

    def _cast(self, obs: Any) -> Any:
        return obs if self._torch_dtype == self._torch.float64 else obs.to(self._torch_dtype)

    def _as_float(self, x: Any) -> Any:
        return self._torch.as_tensor(x, dtype=self._torch.float64, device=self.device)

    def _as_bool(self, x: Any) -> Any:
        return self._torch.as_tensor(x, dtype=self._torch.bool, device=self.device)

    def _zeros(self, n: int) -> Any:
        return self._torch.zeros(n, dtype=self._torch.float64, device=self.device)

    def _bools(self, n: int) -> Any:
        return self._torch.zeros(n, dtype=self._torch.bool, device=self.device)

    def _from_host(self, x: np.ndarray) -> Any:
        return self._torch.as_tensor(x, device=self.device)

    def _to_host(self, x: Any) -> np.ndarray:
        return x.cpu().numpy()

    def _where(self, mask: Any, value: float, x: Any) -> Any:
        return self._torch.where(mask, self._torch.full_like(x, value), x)
