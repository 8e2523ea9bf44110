#!/usr/bin/env python3
"""Reinforcement learning with simphant.gym: the cross-entropy method (CEM) learns a
linear policy that drives the slider-crank's motor to a target crank speed.

Each of the env's instances evaluates one candidate policy per iteration, all in one
batched rollout: u_i = clip(theta_i . [omega_crank_i, 1], -u_max, u_max), where
omega_crank is the crank's angular velocity about its bearing [rad/s] and u the motor
torque [N m]. Reward per env step: -((omega - target) / target)^2. Prints the return of
the mean policy before and after training.

    PYTHONPATH=build/python python3 examples/python/rl_cem_slider_crank.py
"""
from __future__ import annotations

import argparse
import pathlib
import time

import numpy as np

import simphant
from simphant.gym import VectorEnv

SCENE = pathlib.Path(__file__).resolve().parents[1] / "slider_crank.json"
TARGET = 8.0  # rad/s
U_MAX = 2.0   # N m


def crank_speed(obs: np.ndarray) -> np.ndarray:
    """omega_y of the crank: its bearing axis is the world (and body) y axis."""
    return obs[:, 1]


def policy_actions(theta: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """(n, 1) torques of the linear policies theta (n, 2) at the observations obs (n, 3)."""
    features = np.stack([crank_speed(obs), np.ones(len(obs))], axis=1)
    return np.clip(np.sum(theta * features, axis=1, keepdims=True), -U_MAX, U_MAX)


def rollout(env: VectorEnv, theta: np.ndarray) -> np.ndarray:
    """Returns (n,): the return of each instance under its policy theta[i], one episode."""
    obs, _ = env.reset()
    total = np.zeros(env.num_envs)
    for _ in range(env.max_episode_steps):
        obs, reward, terminated, truncated, _ = env.step(policy_actions(theta, obs))
        total += reward
        if np.any(terminated):
            raise RuntimeError("an instance diverged")
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--population", type=int, default=48, help="candidate policies per iteration (= instances)")
    ap.add_argument("--iterations", type=int, default=8)
    ap.add_argument("--episode", type=float, default=1.0, help="episode length [s]")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    frame_skip = 10  # env step = 10 x dt = 5 ms
    scene = simphant.load_scene(SCENE)
    env = VectorEnv(scene, num_envs=args.population, observation=["crank.omega"], action_low=-U_MAX,
                    action_high=U_MAX, reward=lambda sim, obs, u: -((crank_speed(obs) - TARGET) / TARGET) ** 2,
                    max_episode_steps=round(args.episode / (frame_skip * scene.dt)), frame_skip=frame_skip)
    rng = np.random.default_rng(args.seed)
    mean, std = np.zeros(2), np.array([0.5, 1.0])
    n_elite = max(2, args.population // 5)

    def score(theta_mean: np.ndarray) -> float:
        return float(rollout(env, np.tile(theta_mean, (env.num_envs, 1))).mean())

    t0 = time.perf_counter()
    before = score(mean)
    for it in range(args.iterations):
        theta = mean + std * rng.standard_normal((args.population, 2))
        returns = rollout(env, theta)
        elite = theta[np.argsort(returns)[-n_elite:]]
        mean, std = elite.mean(axis=0), elite.std(axis=0) + 0.02
        print(f"iteration {it + 1}: best return {returns.max():9.3f}, mean policy theta = {np.round(mean, 3)}")
    after = score(mean)
    print(f"return before {before:.3f}, after {after:.3f} ({env.num_envs} instances x "
          f"{env.max_episode_steps} steps per rollout, {time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
