#!/usr/bin/env python3
"""PPO (torch, CPU) trains one of Gymnasium's MuJoCo tasks on SimPhant (--task:
InvertedDoublePendulum-v5, the default, or Hopper-v5); the policy is then evaluated in
Gymnasium's own MuJoCo env (sim-to-sim transfer). --task Solo12StandUp-v0 trains
SimPhant's own Solo-12 stand-up (simphant.gym.legged_tasks), evaluated on SimPhant alone.

Training runs on simphant.gym.make(task, num_envs=N, torch=True) (one batched simulator,
NEXT_STEP autoreset) until the deterministic policy (the mean action) reaches Gymnasium's
reward threshold (InvertedDoublePendulum 9100, Hopper 3800; Solo12StandUp 90, OWN_THRESHOLDS)
in a check on SimPhant, or the --max-minutes budget ends. Then the policy is evaluated for --eval-episodes episodes in
gymnasium.make(task) (MuJoCo) and in SimPhant's env.

The PPO: clipped surrogate objective, GAE(lambda), a Gaussian policy with a
state-independent log-std, a separate value net, observation normalisation by a running
mean/std that is part of the saved policy (--save), advantage normalisation, a constant
reward scale. No RL library.

    PYTHONPATH=build/python python3 examples/python/ppo_mujoco_tasks.py --save idp.pt
    PYTHONPATH=build/python python3 examples/python/ppo_mujoco_tasks.py --task Hopper-v5 --max-minutes 5
    PYTHONPATH=build/python python3 examples/python/ppo_mujoco_tasks.py --task Solo12StandUp-v0 --max-minutes 10
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import gymnasium
import numpy as np
import torch
from torch import nn

import simphant.gym

TASKS = ("InvertedDoublePendulum-v5", "Hopper-v5", "Solo12StandUp-v0")
#: per task: rewards times this are the value targets (the double pendulum earns ~9.x per
#: step, the hopper ~1-3: both O(1..10) over the horizon)
REWARD_SCALE = {"InvertedDoublePendulum-v5": 0.01, "Hopper-v5": 0.1, "Solo12StandUp-v0": 0.1}


#: the return that ends training on SimPhant's own tasks, which Gymnasium has no threshold
#: for: Solo-12 standing within about 0.2 s of an episode's 2 s and holding it (a constant
#: standing action scores about 98; lying scores about 14)
OWN_THRESHOLDS = {"Solo12StandUp-v0": 90.0}


def threshold(task: str) -> float:
    """The reward threshold of the task: Gymnasium's (InvertedDoublePendulum-v5 9100,
    Hopper-v5 3800), or OWN_THRESHOLDS' for SimPhant's own tasks."""
    return OWN_THRESHOLDS[task] if task in OWN_THRESHOLDS else float(gymnasium.spec(task).reward_threshold)


@dataclass
class Config:
    task: str = TASKS[0]
    num_envs: int = 64        # SimPhant sub-environments, stepped as one batch
    steps: int = 64           # env steps per env and iteration (batch = num_envs * steps)
    epochs: int = 10          # passes over the batch per iteration
    minibatches: int = 4
    lr: float = 1e-3
    gamma: float = 0.99
    lam: float = 0.95         # GAE lambda
    clip: float = 0.2         # PPO ratio clip
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    reward_scale: float = -1.0  # <= 0: REWARD_SCALE[task]
    init_log_std: float = -0.5
    hidden: int = 64
    seed: int = 0
    max_minutes: float = 10.0
    check_every: int = 5      # iterations between deterministic threshold checks (once training returns are close)


class Agent(nn.Module):
    """Actor (mean of a Gaussian, state-independent log-std), critic, and the running
    observation statistics (buffers: saved in the state_dict with the nets)."""

    def __init__(self, obs_dim: int, act_dim: int, hidden: int = 64, init_log_std: float = -0.5) -> None:
        super().__init__()

        def mlp(out: int, gain: float) -> nn.Sequential:
            net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                nn.Linear(hidden, out))
            for layer in net:
                if isinstance(layer, nn.Linear):  # orthogonal init, small last layer (common PPO practice)
                    nn.init.orthogonal_(layer.weight, gain if layer is net[-1] else 2 ** 0.5)
                    nn.init.zeros_(layer.bias)
            return net

        self.actor, self.critic = mlp(act_dim, 0.01), mlp(1, 1.0)
        self.log_std = nn.Parameter(torch.full((act_dim,), float(init_log_std)))
        self.register_buffer("obs_mean", torch.zeros(obs_dim, dtype=torch.float64))
        self.register_buffer("obs_var", torch.ones(obs_dim, dtype=torch.float64))
        self.register_buffer("obs_count", torch.tensor(1e-4, dtype=torch.float64))

    def update_obs_stats(self, x: torch.Tensor) -> None:
        """Merges a batch (k, obs_dim) into the running mean/variance (Chan et al.)."""
        x = x.to(torch.float64)
        n, mean, var = x.shape[0], x.mean(0), x.var(0, unbiased=False)
        tot = self.obs_count + n
        delta = mean - self.obs_mean
        self.obs_var.copy_((self.obs_var * self.obs_count + var * n + delta ** 2 * self.obs_count * n / tot) / tot)
        self.obs_mean.add_(delta * n / tot)
        self.obs_count.copy_(tot)

    def normalize(self, obs: torch.Tensor) -> torch.Tensor:
        z = (obs.to(torch.float64) - self.obs_mean) / torch.sqrt(self.obs_var + 1e-8)
        return z.clamp(-10.0, 10.0).to(torch.float32)

    def dist(self, z: torch.Tensor) -> torch.distributions.Normal:
        return torch.distributions.Normal(self.actor(z), self.log_std.exp())

    def value(self, z: torch.Tensor) -> torch.Tensor:
        return self.critic(z).squeeze(-1)

    @torch.no_grad()
    def act(self, obs: torch.Tensor) -> torch.Tensor:
        """The deterministic action (the mean) at raw observations (k, obs_dim)."""
        return self.actor(self.normalize(torch.as_tensor(obs))).clamp(-1.0, 1.0)


def gae(rewards: torch.Tensor, values: torch.Tensor, next_values: torch.Tensor, terminated: torch.Tensor,
        done: torch.Tensor, gamma: float, lam: float) -> torch.Tensor:
    """GAE advantages, all arrays (T, N): delta_t = r_t + gamma V(s_t+1) (1 - terminated_t)
    - V(s_t); A_t = delta_t + gamma lam (1 - done_t) A_t+1. A truncated step (done, not
    terminated) bootstraps from V of its last observation and cuts the recursion."""
    adv = torch.zeros_like(rewards)
    last = torch.zeros_like(rewards[0])
    for t in reversed(range(rewards.shape[0])):
        delta = rewards[t] + gamma * next_values[t] * (1.0 - terminated[t]) - values[t]
        last = delta + gamma * lam * (1.0 - done[t]) * last
        adv[t] = last
    return adv


def ppo_loss(agent: Agent, z: torch.Tensor, actions: torch.Tensor, old_logp: torch.Tensor, adv: torch.Tensor,
             returns: torch.Tensor, clip: float, vf_coef: float) -> Tuple[torch.Tensor, Dict[str, float]]:
    """Clipped surrogate + vf_coef * squared value error over one minibatch (no entropy bonus)."""
    logp = agent.dist(z).log_prob(actions).sum(-1)
    ratio = (logp - old_logp).exp()
    policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
    value_loss = (agent.value(z) - returns).pow(2).mean()
    return policy_loss + vf_coef * value_loss, {"policy": policy_loss.item(), "value": value_loss.item()}


def train(cfg: Config, verbose: bool = True, stop_at: Optional[float] = None, max_iterations: int = 10 ** 9,
          log_every: int = 10) -> Tuple[Agent, Dict[str, float]]:
    """Trains cfg.task until the deterministic policy scores >= stop_at (default: the task's
    threshold) on SimPhant (checked every cfg.check_every iterations once the mean training
    return exceeds 0.8 * stop_at), the time budget or max_iterations; returns (agent,
    {"seconds", "env_steps", "iterations", "reached"})."""
    stop_at = threshold(cfg.task) if stop_at is None else stop_at
    scale = cfg.reward_scale if cfg.reward_scale > 0 else REWARD_SCALE[cfg.task]
    torch.manual_seed(cfg.seed)
    env = simphant.gym.make(cfg.task, num_envs=cfg.num_envs, torch=True, dtype=np.float32)
    obs, _ = env.reset(seed=cfg.seed)
    n, t_len, act_dim = cfg.num_envs, cfg.steps, env.single_action_space.shape[0]
    agent = Agent(obs.shape[1], act_dim, cfg.hidden, cfg.init_log_std)
    agent.update_obs_stats(obs)
    opt = torch.optim.Adam(agent.parameters(), lr=cfg.lr, eps=1e-5)
    # NEXT_STEP autoreset: the step after an episode ended only resets that env (action
    # ignored, reward 0): such transitions are masked out of the loss ("valid").
    after_done = torch.zeros(n, dtype=torch.bool)
    ep_return, finished = torch.zeros(n, dtype=torch.float64), []
    t0, env_steps, it, reached = time.perf_counter(), 0, 0, False
    while it < max_iterations and time.perf_counter() - t0 < 60 * cfg.max_minutes:
        it += 1
        buf_z = torch.zeros(t_len, n, obs.shape[1])
        buf_a = torch.zeros(t_len, n, act_dim)
        buf_logp, buf_v, buf_r = (torch.zeros(t_len, n) for _ in range(3))
        buf_term, buf_done, buf_valid = (torch.zeros(t_len, n) for _ in range(3))
        raw = []
        with torch.no_grad():  # --- rollout: t_len batched steps of all envs
            for t in range(t_len):
                z = agent.normalize(obs)
                d = agent.dist(z)
                a = d.sample()
                buf_z[t], buf_a[t], buf_logp[t], buf_v[t] = z, a, d.log_prob(a).sum(-1), agent.value(z)
                buf_valid[t] = (~after_done).float()
                raw.append(obs)
                obs, r, term, trunc, _ = env.step(a)  # the env clips a to [-1, 1]
                buf_r[t] = r.float() * scale
                buf_term[t], done = term.float(), term | trunc
                buf_done[t] = done.float()
                ep_return = torch.where(after_done, torch.zeros_like(ep_return), ep_return + r)
                finished += ep_return[done].tolist()
                after_done = done
            # V(s_t+1): with NEXT_STEP the observation after a step that ended an episode is that
            # episode's last one, so a truncated episode bootstraps from the right state
            next_v = torch.cat([buf_v[1:], agent.value(agent.normalize(obs))[None]])
            adv = gae(buf_r, buf_v, next_v, buf_term, buf_done, cfg.gamma, cfg.lam)
        env_steps += t_len * n
        agent.update_obs_stats(torch.cat(raw)[buf_valid.flatten() > 0])
        # --- update: cfg.epochs passes of minibatch SGD over the valid transitions
        keep = buf_valid.flatten() > 0
        z, a, logp = buf_z.reshape(-1, buf_z.shape[-1])[keep], buf_a.reshape(-1, act_dim)[keep], buf_logp.flatten()[keep]
        ret, adv = (adv + buf_v).flatten()[keep], adv.flatten()[keep]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        size = max(1, len(adv) // cfg.minibatches)
        for _ in range(cfg.epochs):
            for idx in torch.randperm(len(adv)).split(size):
                loss, parts = ppo_loss(agent, z[idx], a[idx], logp[idx], adv[idx], ret[idx], cfg.clip, cfg.vf_coef)
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), cfg.max_grad_norm)
                opt.step()
        recent = float(np.mean(finished[-50:])) if finished else 0.0
        if verbose and it % log_every == 0:
            print(f"iter {it:4d}  steps {env_steps:8d}  {time.perf_counter() - t0:6.1f} s  train return "
                  f"{recent:7.1f}  std {agent.log_std.exp().mean().item():.3f}  value loss {parts['value']:.3f}", flush=True)
        if recent > 0.8 * stop_at and it % cfg.check_every == 0:
            # stop only when every one of 256 fresh episodes (one batch) scores the threshold: the mean
            # alone passes with policies that still drop the poles in 1-2 % of the episodes
            scores = evaluate_simphant(agent, cfg.task, 256, seed=10_000 + it)
            if verbose:
                print(f"  check: deterministic returns on SimPhant: mean {scores.mean():.1f}, min {scores.min():.1f}",
                      flush=True)
            if scores.min() >= stop_at:
                reached = True
                break
    return agent, {"seconds": time.perf_counter() - t0, "env_steps": env_steps, "iterations": it, "reached": reached}


def evaluate_simphant(agent: Agent, task: str, episodes: int, seed: int) -> np.ndarray:
    """(episodes,) returns of the deterministic policy, one episode of each of `episodes`
    SimPhant envs of `task` (batched; an env's episode ends at its first termination or
    truncation)."""
    env = simphant.gym.make(task, num_envs=episodes, torch=True, dtype=np.float32)
    obs, _ = env.reset(seed=seed)
    total, running = torch.zeros(episodes, dtype=torch.float64), torch.ones(episodes, dtype=torch.bool)
    while running.any():
        obs, r, term, trunc, _ = env.step(agent.act(obs))
        total += torch.where(running, r, torch.zeros_like(r))
        running &= ~(term | trunc)
    return total.numpy()


def evaluate_gymnasium(agent: Agent, task: str, episodes: int, seed: int) -> np.ndarray:
    """(episodes,) returns of the deterministic policy in Gymnasium's MuJoCo env of `task`
    (episode i seeded seed + i)."""
    env = gymnasium.make(task)
    returns = []
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        total, done = 0.0, False
        while not done:
            a = agent.act(torch.as_tensor(obs, dtype=torch.float32)[None])[0].numpy()
            obs, r, term, trunc, _ = env.step(a)
            total, done = total + float(r), term or trunc
        returns.append(total)
    env.close()
    return np.array(returns)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", choices=TASKS, default=Config.task)
    ap.add_argument("--num-envs", type=int, default=Config.num_envs)
    ap.add_argument("--max-minutes", type=float, default=Config.max_minutes, help="training time budget")
    ap.add_argument("--seed", type=int, default=Config.seed)
    ap.add_argument("--eval-episodes", type=int, default=10)
    ap.add_argument("--save", metavar="PATH", help="write the policy (nets and observation statistics) here")
    args = ap.parse_args()
    torch.set_num_threads(1)  # small nets: one thread is fastest on a 2-core machine
    cfg = Config(task=args.task, num_envs=args.num_envs, max_minutes=args.max_minutes, seed=args.seed)
    agent, stats = train(cfg)
    goal = threshold(cfg.task)
    print(f"training {cfg.task}: {stats['seconds']:.1f} s wall, {stats['env_steps']} env steps, "
          f"{stats['iterations']} iterations, threshold {goal:g} "
          f"{'reached' if stats['reached'] else 'NOT reached'} (deterministic check)")
    if args.save:
        torch.save({"state_dict": agent.state_dict(), "config": vars(cfg)}, args.save)
        print(f"policy saved to {args.save}")
    sim = evaluate_simphant(agent, cfg.task, args.eval_episodes, seed=args.seed + 1000)
    if cfg.task in OWN_THRESHOLDS:  # no MuJoCo env of this task in Gymnasium
        print(f"deterministic policy, mean return over {args.eval_episodes} episodes (min): SimPhant {sim.mean():.1f} "
              f"({sim.min():.1f}), threshold {goal:g}")
        return
    gym_ret = evaluate_gymnasium(agent, cfg.task, args.eval_episodes, seed=args.seed + 1000)
    print(f"deterministic policy, mean return over {args.eval_episodes} episodes (min): SimPhant {sim.mean():.1f} "
          f"({sim.min():.1f}), Gymnasium (MuJoCo) {gym_ret.mean():.1f} ({gym_ret.min():.1f}), threshold {goal:g}")


if __name__ == "__main__":
    main()
