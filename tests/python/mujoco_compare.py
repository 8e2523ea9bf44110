"""Joint-space quantities of a SimPhant robot against MuJoCo's on the same MJCF file, for
the MJCF tests (test_mjcf_mujoco.py, test_mjcf_armature_models.py)."""
from __future__ import annotations

import numpy as np


def rel(a, b) -> float:
    """max abs difference / max(1, max abs b)."""
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(1.0, float(np.max(np.abs(b)))))


def joint_space_differences(mujoco, m, robot, qpos, qvel, qacc):
    """(M, bias, inverse dynamics): the largest relative differences over the states
    (rows of qpos, qvel, qacc; MuJoCo's coordinates) between simphant.Robot's mass_matrix /
    inverse_dynamics at q = qpos - qpos0 (SimPhant's q = qpos - ref) and MuJoCo's mj_fullM,
    mj_rne(flg_acc = 0) and mj_rne(flg_acc = 1) + armature * qacc (MuJoCo adds the
    armature in mj_crb, not in mj_rne)."""
    d = mujoco.MjData(m)
    q = qpos - m.qpos0
    M_ours = robot.mass_matrix(q)
    bias_ours = robot.inverse_dynamics(q, qvel, np.zeros_like(qvel))
    id_ours = robot.inverse_dynamics(q, qvel, qacc)
    worst = [0.0, 0.0, 0.0]
    for i in range(len(qpos)):
        d.qpos[:] = qpos[i]
        d.qvel[:] = qvel[i]
        mujoco.mj_forward(m, d)
        d.qacc[:] = qacc[i]
        M = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, M)
        bias = np.zeros(m.nv)
        mujoco.mj_rne(m, d, 0, bias)
        full = np.zeros(m.nv)
        mujoco.mj_rne(m, d, 1, full)
        worst = [max(worst[0], rel(M_ours[i], M)), max(worst[1], rel(bias_ours[i], bias)),
                 max(worst[2], rel(id_ours[i], full + m.dof_armature * qacc[i]))]
    return tuple(worst)
