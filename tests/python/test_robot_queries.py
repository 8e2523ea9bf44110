"""simphant.Robot: batched forward kinematics, link Jacobians, mass matrix, inverse and
forward dynamics of a scene's robot (docs/robots.md, "Kinematics and dynamics
queries"), against Pinocchio on the same URDFs at random states: example-robot-data's
Panda, UR5 and Allegro hand on a fixed base, Solo-12 on a floating one. Both compute in
fp64, a few hundred operations per entry on values of order one: agreement to 1e-10
(relative to each quantity's scale) is rounding."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import require

pin = require("pinocchio", "the cross-check of the robot queries")

import simphant  # noqa: E402

TOL = 1e-10


def robot_data_dir():
    """example-robot-data's robots folder, as the package finds it (simphant/_robot_data.py)."""
    import importlib.metadata
    import os

    return os.environ.get("SIMPHANT_ROBOT_DATA") or str(importlib.metadata.distribution(
        "example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots"))


def scene_of(urdf):
    return {"name": "robot", "robot": {"urdf": urdf}, "solver": {"type": "aba", "dt": 0.001, "t_end": 0.01}}


def chain_scene(root):
    return scene_of(str(root / "tests" / "data" / "urdf" / "chain3.urdf"))


#: Fixed-base robots of example-robot-data: an arm with a two-finger gripper (a branch at
#: the hand), a six-joint arm, a hand of four fingers (a tree of four branches).
ROBOTS = ["panda_description/urdf/panda.urdf", "ur_description/urdf/ur5_robot.urdf",
          "allegro_hand_description/urdf/allegro_left_hand.urdf"]


def pinocchio_model(urdf, robot):
    """Pinocchio's model of the URDF, and for each of our joint coordinates k the index of
    Pinocchio's (matched through the link each moves)."""
    model = pin.buildModelFromUrdf(urdf)
    order = []
    for link in robot.links:
        joint = model.frames[model.getFrameId(link)].parentJoint
        order.append(model.joints[joint].idx_q)
    assert not robot.floating and model.nq == model.nv == robot.nq == robot.nv
    assert sorted(order) == list(range(robot.nv))
    return model, np.array(order)


@pytest.mark.parametrize("urdf", ROBOTS)
def test_queries_agree_with_pinocchio(urdf):
    robot = simphant.Robot(scene_of("example-robot-data:" + urdf))
    model, order = pinocchio_model(robot_data_dir() + "/" + urdf, robot)
    data = model.createData()
    rng = np.random.default_rng(7)
    B, n = 6, robot.nv
    q, qd, qdd, tau = (rng.uniform(-1, 1, (B, n)) for _ in range(4))
    fk, J = robot.forward_kinematics(q), robot.link_jacobians(q)
    M = robot.mass_matrix(q)
    tau_id = robot.inverse_dynamics(q, qd, qdd)
    qdd_fd = robot.forward_dynamics(q, qd, tau)
    assert fk.shape == (B, n, 7) and J.shape == (B, n, 6, n) and M.shape == (B, n, n)
    for b in range(B):
        P = np.zeros((n, n))
        P[order, np.arange(n)] = 1.0  # ours -> Pinocchio's coordinates: x_pin = P x
        qp, vp, ap, tp = P @ q[b], P @ qd[b], P @ qdd[b], P @ tau[b]
        pin.framesForwardKinematics(model, data, qp)
        pin.computeJointJacobians(model, data, qp)
        for k, link in enumerate(robot.links):
            fid = model.getFrameId(link)
            placement = data.oMf[fid]
            np.testing.assert_allclose(fk[b, k, :3], placement.translation, atol=TOL)
            R = pin.Quaternion(*fk[b, k, 3:7]).toRotationMatrix()  # (w, x, y, z)
            np.testing.assert_allclose(R, placement.rotation, atol=TOL)
            Jp = pin.getFrameJacobian(model, data, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
            np.testing.assert_allclose(J[b, k], Jp @ P, atol=TOL)
        Mp = pin.crba(model, data, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        scale = np.abs(Mp).max()
        np.testing.assert_allclose(M[b], P.T @ Mp @ P, atol=TOL * scale)
        np.testing.assert_allclose(M[b], M[b].T, atol=0)
        t = pin.rnea(model, data, qp, vp, ap)
        np.testing.assert_allclose(tau_id[b], P.T @ t, atol=TOL * max(1.0, np.abs(t).max()))
        a = pin.aba(model, data, qp, vp, tp)
        np.testing.assert_allclose(qdd_fd[b], P.T @ a, atol=TOL * max(1.0, np.abs(a).max()))
    # forward and inverse dynamics are each other's inverse; M is their Jacobian in qdd
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, qdd_fd), tau, atol=1e-9)
    bias = robot.inverse_dynamics(q, qd, np.zeros_like(q))
    np.testing.assert_allclose(np.einsum("bij,bj->bi", M, qdd) + bias, tau_id, atol=1e-9)


def test_floating_base_queries_agree_with_pinocchio():
    """Solo-12 with a floating base, against Pinocchio's free-flyer model. Pinocchio's base
    velocity is (R_B^T v_B, omega_B) and its quaternion (x, y, z, w): with
    T = diag(R_B^T, I, P), nu_pin = T nu, so M = T^T M_pin T, J = J_pin T, forces
    Q = T^T Q_pin, and nudot_pin = T nudot + (-omega_B x R_B^T v_B, 0, 0)."""
    urdf = "solo_description/robots/solo12.urdf"
    doc = scene_of("example-robot-data:" + urdf)
    doc["robot"]["floating_base"] = True
    robot = simphant.Robot(doc)
    assert robot.floating and robot.nq == 19 and robot.nv == 18 and len(robot.links) == 13
    model = pin.buildModelFromUrdf(robot_data_dir() + "/" + urdf, pin.JointModelFreeFlyer())
    data = model.createData()
    n = robot.nv - 6
    order = [model.joints[model.frames[model.getFrameId(link)].parentJoint].idx_v - 6 for link in robot.links[:n]]
    assert sorted(order) == list(range(n))
    P = np.zeros((n, n))
    P[order, np.arange(n)] = 1.0
    rng = np.random.default_rng(11)
    B = 4
    quat = rng.normal(size=(B, 4))
    quat /= np.linalg.norm(quat, axis=1, keepdims=True)
    q = np.concatenate([rng.uniform(-1, 1, (B, 3)), quat, rng.uniform(-1, 1, (B, n))], axis=1)
    qd, qdd, tau = (rng.uniform(-1, 1, (B, robot.nv)) for _ in range(3))
    fk, J, M = robot.forward_kinematics(q), robot.link_jacobians(q), robot.mass_matrix(q)
    Q = robot.inverse_dynamics(q, qd, qdd)
    a = robot.forward_dynamics(q, qd, tau)
    for b in range(B):
        w, x, y, z = q[b, 3:7]
        R = pin.Quaternion(w, x, y, z).toRotationMatrix()
        T = np.zeros((robot.nv, robot.nv))
        T[:3, :3], T[3:6, 3:6], T[6:, 6:] = R.T, np.eye(3), P
        qp = np.concatenate([q[b, :3], [x, y, z, w], P @ q[b, 7:]])
        vp = T @ qd[b]
        c = np.zeros(robot.nv)
        c[:3] = -np.cross(qd[b, 3:6], R.T @ qd[b, :3])
        pin.framesForwardKinematics(model, data, qp)
        pin.computeJointJacobians(model, data, qp)
        for k, link in enumerate(robot.links):
            fid = model.getFrameId(link)
            np.testing.assert_allclose(fk[b, k, :3], data.oMf[fid].translation, atol=TOL)
            np.testing.assert_allclose(pin.Quaternion(*fk[b, k, 3:7]).toRotationMatrix(), data.oMf[fid].rotation,
                                       atol=TOL)
            Jp = pin.getFrameJacobian(model, data, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
            np.testing.assert_allclose(J[b, k], Jp @ T, atol=TOL)
        Mp = pin.crba(model, data, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        np.testing.assert_allclose(M[b], T.T @ Mp @ T, atol=TOL * np.abs(Mp).max())
        Qp = pin.rnea(model, data, qp, vp, T @ qdd[b] + c)
        np.testing.assert_allclose(Q[b], T.T @ Qp, atol=TOL * max(1.0, np.abs(Qp).max()))
        ap = pin.aba(model, data, qp, vp, np.linalg.solve(T.T, tau[b]))
        np.testing.assert_allclose(a[b], np.linalg.solve(T, ap - c), atol=TOL * max(1.0, np.abs(ap).max()))
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, a), tau, atol=1e-9)
    np.testing.assert_array_equal(M, np.swapaxes(M, 1, 2))
    q[1, 3:7] = 0.0
    with pytest.raises(ValueError, match=r"q: the base quaternion q\[1, 3:7\] is zero"):
        robot.mass_matrix(q)


def test_one_state_and_link_subsets(root):
    robot = simphant.Robot(chain_scene(root))
    q = np.array([0.3, -0.7, 0.05])
    one = robot.forward_kinematics(q, ["l3", "l1"])
    assert one.shape == (2, 7)
    np.testing.assert_array_equal(one, robot.forward_kinematics(q[None])[0][[2, 0]])
    assert robot.mass_matrix(q).shape == (3, 3) and robot.link_jacobians(q, ["l2"]).shape == (1, 6, 3)


def test_bad_input_is_refused_naming_it(root, examples):
    robot = simphant.Robot(chain_scene(root))
    with pytest.raises(ValueError, match=r"q: must have shape \(B, 3\) or \(3,\)"):
        robot.mass_matrix(np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"qd: must have shape \(2, 3\)"):
        robot.inverse_dynamics(np.zeros((2, 3)), np.zeros((3, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"tau: entry \[1, 2\] is nan"):
        robot.forward_dynamics(np.zeros((2, 3)), np.zeros((2, 3)), np.array([[0, 0, 0], [0, 0, np.nan]]))
    with pytest.raises(ValueError, match="unknown link 'nope'"):
        robot.forward_kinematics(np.zeros(3), ["nope"])
    with pytest.raises(ValueError, match="no robot"):
        simphant.Robot(examples / "four_bar.json")
