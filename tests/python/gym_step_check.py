"""The step of a simphant.gym task against a finer one, for the task tests
(test_gym_humanoid.py, test_gym_ant.py)."""
from __future__ import annotations

import numpy as np

import simphant.gym


def one_step_errors(task: str, n: int, steps: int, fine_substeps: int, seed: int = 0, **options):
    """(steps, 3): per env step, the largest difference over n envs between the task as
    given (`options`) and the same with substeps=fine_substeps, each env step started from
    the coarse run's state: the base's position [m], the joint angles [rad] and every rate
    of the state [m/s, rad/s] (a floating base's state: position, quaternion, joint angles,
    then the rates). Actions uniform over the action space, drawn from `seed`."""
    options = dict(backend="cpu", terminate_when_unhealthy=False, **options)
    coarse = simphant.gym.make(task, num_envs=n, **options)
    fine = simphant.gym.make(task, num_envs=n, **{**options, "substeps": fine_substeps})
    coarse.reset(seed=seed)
    fine.reset(seed=seed)
    rng = np.random.default_rng(seed + 1)
    low, high = coarse.single_action_space.low, coarse.single_action_space.high
    ids = np.arange(n)
    nq = 7 + coarse.sim.joint_state()[0].shape[1]
    err = []
    for _ in range(steps):
        s = fine.sim.get_state(ids)
        s.y[:] = coarse.sim.get_state(ids).y
        fine.sim.set_state(s)
        a = rng.uniform(low, high, (n, len(low)))
        coarse.step(a)
        fine.step(a)
        y1, y2 = coarse.sim.get_state(ids).y, fine.sim.get_state(ids).y
        err.append([np.abs(y1[:, :3] - y2[:, :3]).max(), np.abs(y1[:, 7:nq] - y2[:, 7:nq]).max(),
                    np.abs(y1[:, nq:] - y2[:, nq:]).max()])
    return np.array(err)
