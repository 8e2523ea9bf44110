"""MuJoCo's per-body quantities (mjData's xipos, cinert, cvel, cfrc_ext) of an MJCF model
simulated by SimPhant, built from the C++ core's outputs: the link frames
(Simulator.link_frames), the centre of mass (Simulator.centre_of_mass), the contact
wrenches (Simulator.contact_wrenches) and the importer's per-body mass properties
(_simphant.mjcf_model's "bodies"). Gymnasium's Ant-v5 and Humanoid-v5 observe and reward
them. Conventions are MuJoCo's (mujoco.readthedocs.io, "Computation" and mjData):
"com-based" quantities are in W's axes about the subtree centre of mass of the body's root
(for these models, one root below the world: the model's centre of mass).
tests/python/test_gym_humanoid.py checks them against mj_forward at the same state.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Tuple

import numpy as np

from .. import _simphant
from .._joint_anchors import rotation_matrix
from . import mdp
from .mujoco_tasks import _host

_GROUND_PAIR = re.compile(r"^contact ground (.+)\[[^\]]*\]$")
_BODY_PAIR = re.compile(r"^contact (\S+)\[[^\]]*\] (\S+)\[[^\]]*\]$")


def mujoco_bodies(xml: str) -> List[str]:
    """MuJoCo's body names of an MJCF file in body-id order: "world", then every <body>
    depth first in document order, an unnamed body as SimPhant's importer names it
    ("body<id>", its MuJoCo id)."""
    names = ["world"]
    for body in ET.parse(xml).getroot().iter("body"):
        names.append(body.get("name") or f"body{len(names)}")
    return names


def cfrc_ext_map(pair_names: List[str], bodies: List[str]) -> np.ndarray:
    """(P, 2) int: per contact pair (Simulator.contact_pair_names), the MuJoCo body ids of
    its shapes A and B (the bodies that declare the geoms, named in the pair's name; 0, the
    world, for the ground). Raises ValueError for a pair whose name is not a contact pair's
    or names a body not in `bodies`."""
    ids = np.zeros((len(pair_names), 2), np.int64)
    for k, name in enumerate(pair_names):
        g, b = _GROUND_PAIR.match(name), _BODY_PAIR.match(name)
        got = [g.group(1)] if g is not None else [b.group(1), b.group(2)] if b is not None else []
        if not got or any(x not in bodies for x in got):
            raise ValueError(f"cfrc_ext: contact pair {name!r} does not name bodies of the MJCF file "
                             f"(bodies: {', '.join(bodies)})")
        ids[k, 2 - len(got):] = [bodies.index(x) for x in got]
    return ids


def pair_sides(pair_bodies: np.ndarray, n_bodies: int) -> np.ndarray:
    """(P, n_bodies): +1 where a pair's shape B lies on the body, -1 where its shape A
    does (the ground's side on the world body, 0). pair_bodies: cfrc_ext_map's ids."""
    sides = np.zeros((len(pair_bodies), n_bodies))
    np.add.at(sides, (np.arange(len(pair_bodies)), pair_bodies[:, 1]), 1.0)
    np.add.at(sides, (np.arange(len(pair_bodies)), pair_bodies[:, 0]), -1.0)
    return sides


def cfrc_ext(sim: Any, sides: np.ndarray) -> np.ndarray:
    """(n, n_bodies, 6) float64: MuJoCo's cfrc_ext of a model whose bodies all hang from
    one root below the world: per MuJoCo body the contact wrenches on it
    (Simulator.contact_wrenches: the wrench on shape B, its opposite on shape A) as MuJoCo
    writes them (mj_rnePostConstraint): [torque about the model's centre of mass
    (Simulator.centre_of_mass) [N m], force [N]], both in W; zero for the world body and
    for a body not touching. sides: pair_sides of the simulator's pairs."""
    w = sim.contact_wrenches()  # (n, P, 6): force, moment about W's origin
    c = sim.centre_of_mass()  # (n, 3)
    per_body = np.matmul(np.swapaxes(w, 1, 2), sides)  # (n, 6, B): force, moment about W's origin
    f, tau_o = np.swapaxes(per_body[:, :3], 1, 2), np.swapaxes(per_body[:, 3:], 1, 2)
    out = np.concatenate([tau_o - np.cross(c[:, None, :], f), f], axis=2)
    out[:, 0] = 0.0
    return out


class CfrcExt:
    """cfrc_ext (below) of a task's simulator, computed at most once per state: a task's
    observation and its contact cost read the same array. `forget` is both a pre-step and
    a reset event (VectorEnv's pre_step_events, reset_events): every step and every reset
    changes the state. xml: the MJCF file the simulator's robot was built from."""

    def __init__(self, xml: str) -> None:
        self.bodies = mujoco_bodies(xml)
        self._sides: Any = None  # pair_sides, from the first simulator's pair names
        self._value: Any = None

    def __call__(self, sim: Any) -> np.ndarray:
        """(n, len(bodies), 6): cfrc_ext at the current state (read-only: shared)."""
        if self._value is None:
            if self._sides is None:
                self._sides = pair_sides(cfrc_ext_map(sim.contact_pair_names, self.bodies), len(self.bodies))
            self._value = cfrc_ext(sim, self._sides)
            self._value.setflags(write=False)
        return self._value

    def forget(self, *event_args: Any) -> None:
        self._value = None


class FreeBase:
    """MuJoCo's qpos and qvel of an MJCF model on a free joint (the floating base) from the
    simulator's state, and Gymnasium's reset noise on them. info: _simphant.mjcf_model of
    the file. qpos (7 + J): the base's position [m] (W), its quaternion (w, x, y, z), the
    joints' MuJoCo coordinates (SimPhant's q + ref); qvel (6 + J): the base's velocity
    [m/s] (W), its angular velocity [rad/s] (base axes), the joint rates."""

    def __init__(self, info: Dict[str, Any]) -> None:
        self.ref = np.array([link["ref"] for link in info["links"]])
        self.qpos0 = np.concatenate([info["base"]["position"], info["base"]["orientation"], self.ref])
        self._frame = mdp.link_frame(info["base"]["link"], "frame")

    def qpos_qvel(self, sim: Any) -> Tuple[np.ndarray, np.ndarray]:
        """(n, 7 + J) qpos and (n, 6 + J) qvel at the current state."""
        base = _host(self._frame(sim)).reshape(sim.n_instances, 13)
        q, qd, _ = sim.joint_state()
        return (np.concatenate([base[:, :7], q + self.ref], axis=1), np.concatenate([base[:, 7:], qd], axis=1))

    def finite(self, sim: Any) -> np.ndarray:
        """(n,) bool: qpos and qvel finite and the instance's status ok (an instance whose
        step failed keeps its last finite state)."""
        qpos, qvel = self.qpos_qvel(sim)
        return np.isfinite(qpos).all(axis=1) & np.isfinite(qvel).all(axis=1) & (sim.status()[0] == 0)

    def reset_event(self, scale: float, qvel_noise: str) -> Any:
        """Reset event of Gymnasium's reset_model for these tasks: qpos = qpos0 + U(-scale,
        scale), then qvel = scale N(0, 1) (qvel_noise "normal", Ant-v5) or U(-scale, scale)
        ("uniform", Humanoid-v5), drawn with the env's np_random in Gymnasium's order. The
        quaternion is normalised (MuJoCo normalises it where it uses it); the state is
        [p, quat, q, v, omega, qd] (a floating base, docs/robots.md), q = qpos - ref."""
        if qvel_noise not in ("normal", "uniform"):
            raise ValueError(f"qvel_noise: 'normal' or 'uniform' (got {qvel_noise!r})")
        nq = len(self.qpos0)

        def event(env: Any, ids: np.ndarray, rng: np.random.Generator) -> None:
            k = len(ids)
            qpos = self.qpos0 + rng.uniform(-scale, scale, (k, nq))
            qvel = (scale * rng.standard_normal((k, nq - 1)) if qvel_noise == "normal"
                    else rng.uniform(-scale, scale, (k, nq - 1)))
            qpos[:, 3:7] /= np.linalg.norm(qpos[:, 3:7], axis=1, keepdims=True)
            qpos[:, 7:] -= self.ref
            s = env.sim.get_state(ids)
            s.y[:, :nq] = qpos
            s.y[:, nq:] = qvel
            env.sim.set_state(s)

        return event


class BodyInertias:
    """The MuJoCo bodies of an MJCF file (ids 1..B) with their own mass properties, each on
    the link frame that carries it (the importer's "bodies": a welded body on its owner's
    frame). Raises ValueError for a body welded to the world (no frame moves it: MuJoCo's
    cinert of it would be constant; no shipped task has one) and for a file with <compiler
    fusestatic="true"> (MuJoCo's body list is not the file's)."""

    def __init__(self, xml: str) -> None:
        bodies = _simphant.mjcf_model(str(xml))["bodies"]
        if not bodies:
            raise ValueError(f"{xml}: no per-body mass properties (<compiler fusestatic=\"true\"> fuses MuJoCo's "
                             "bodies without joints into their parents)")
        fixed = [b["name"] for b in bodies if b["owner"] == "world"]
        if fixed:
            raise ValueError(f"{xml}: bodies welded to the world ({', '.join(fixed)}) are not supported here")
        self.names: List[str] = [b["name"] for b in bodies]
        self.owners: List[str] = [b["owner"] for b in bodies]
        self.mass = np.array([b["mass"] for b in bodies])  # (B,) [kg]
        self.com = np.array([b["com"] for b in bodies])  # (B, 3) in the owner's frame [m]
        self.inertia = np.array([b["inertia"] for b in bodies])  # (B, 3, 3) about com, owner axes
        self._frames = mdp.link_frame(self.owners, "frame")

    def frames(self, sim: Any) -> np.ndarray:
        """(n, B, 13) float64 on the host: each body's owner's link frame
        (Simulator.link_frames, through simphant.gym.mdp.link_frame)."""
        return _host(self._frames(sim)).reshape(sim.n_instances, len(self.owners), 13)

    def xipos(self, frames: np.ndarray) -> np.ndarray:
        """(n, B, 3): MuJoCo's xipos, each body's centre of mass in W [m]."""
        return frames[..., :3] + np.einsum("nbij,bj->nbi", rotation_matrix(frames[..., 3:7]), self.com)

    def cinert(self, frames: np.ndarray, centre: np.ndarray) -> np.ndarray:
        """(n, B, 10): MuJoCo's cinert (mj_comPos, mju_inertCom): the body's inertia about
        the point `centre` (n, 3) [m] along W's axes (xx, yy, zz, xy, xz, yz) [kg m^2],
        mass times the offset of its centre of mass from `centre` (3) [kg m], its mass [kg]."""
        R = rotation_matrix(frames[..., 3:7])
        I_w = np.einsum("nbij,bjk,nblk->nbil", R, self.inertia, R)
        d = self.xipos(frames) - centre[:, None, :]
        m = self.mass
        out = np.empty(d.shape[:2] + (10,))
        out[..., 0] = I_w[..., 0, 0] + m * (d[..., 1] ** 2 + d[..., 2] ** 2)
        out[..., 1] = I_w[..., 1, 1] + m * (d[..., 0] ** 2 + d[..., 2] ** 2)
        out[..., 2] = I_w[..., 2, 2] + m * (d[..., 0] ** 2 + d[..., 1] ** 2)
        out[..., 3] = I_w[..., 0, 1] - m * d[..., 0] * d[..., 1]
        out[..., 4] = I_w[..., 0, 2] - m * d[..., 0] * d[..., 2]
        out[..., 5] = I_w[..., 1, 2] - m * d[..., 1] * d[..., 2]
        out[..., 6:9] = m[:, None] * d
        out[..., 9] = m
        return out

    def cvel(self, frames: np.ndarray, centre: np.ndarray) -> np.ndarray:
        """(n, B, 6): MuJoCo's cvel, each body's twist at the point `centre` (n, 3) [m]:
        angular velocity [rad/s], then the velocity of the body's material point at
        `centre` [m/s], both in W."""
        omega = np.einsum("nbij,nbj->nbi", rotation_matrix(frames[..., 3:7]), frames[..., 10:13])
        v = frames[..., 7:10] + np.cross(omega, centre[:, None, :] - frames[..., :3])
        return np.concatenate([omega, v], axis=-1)
