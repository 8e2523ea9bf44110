"""examples/python/ppo_mujoco_tasks.py: its GAE and PPO loss on hand-checked cases, and
short training runs of InvertedDoublePendulum-v5, Hopper-v5 and Solo12StandUp-v0 that
must beat the untrained policy (seconds each)."""
from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from conftest import ROOT, require

torch = require("torch", "the PPO example trains torch policies")
require("gymnasium", "the PPO example reads Gymnasium's reward threshold")


@pytest.fixture(scope="module")
def ppo():
    spec = importlib.util.spec_from_file_location("ppo_mujoco_tasks", ROOT / "examples" / "python" /
                                                  "ppo_mujoco_tasks.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclass looks the module up there
    spec.loader.exec_module(mod)
    return mod


def test_gae_matches_a_direct_sum(ppo):
    """A_t = sum_k (gamma lam)^k delta_t+k within an episode, written out for 2 envs x 4
    steps: env 0 terminates at t = 1 (no bootstrap, no carry across), env 1 is truncated
    at t = 2 (bootstraps from V of its last observation, no carry across)."""
    g, lam = 0.9, 0.8
    r = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0], [2.0, 1.0]])
    v = torch.tensor([[0.2, 0.1], [0.4, 0.3], [0.0, 0.6], [1.0, -0.5]])
    nv = torch.tensor([[0.4, 0.3], [7.0, 0.6], [1.0, 2.5], [1.5, 0.8]])  # V(s_t+1), after the step
    term = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    done = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    d = r + g * nv * (1 - term) - v
    expected = torch.empty(4, 2)
    expected[:, 0] = torch.stack([d[0, 0] + g * lam * d[1, 0], d[1, 0],  # the episode ends at t = 1
                                  d[2, 0] + g * lam * d[3, 0], d[3, 0]])
    expected[:, 1] = torch.stack([d[0, 1] + g * lam * d[1, 1] + (g * lam) ** 2 * d[2, 1],
                                  d[1, 1] + g * lam * d[2, 1], d[2, 1], d[3, 1]])
    assert d[1, 0] == 3.0 - 0.4  # terminated: no bootstrap
    assert d[2, 1] == pytest.approx(4.0 + 0.9 * 2.5 - 0.6)  # truncated: bootstrapped
    got = ppo.gae(r, v, nv, term, done, g, lam)
    torch.testing.assert_close(got, expected)


def test_ppo_loss_clips_the_ratio(ppo):
    """With the old log-probabilities shifted by -+0.5 (ratios e^0.5, e^-0.5), the surrogate
    is the clipped one where that is the smaller (pessimistic) term, and the value term is
    the mean squared error."""
    torch.manual_seed(0)
    agent = ppo.Agent(3, 1)
    z, a = torch.randn(4, 3), torch.randn(4, 1)
    with torch.no_grad():
        logp = agent.dist(z).log_prob(a).sum(-1)
        v = agent.value(z)
    old = logp - torch.tensor([0.5, 0.5, -0.5, -0.5])
    adv = torch.tensor([1.0, -1.0, 1.0, -1.0])
    ret = v + torch.tensor([1.0, 2.0, 0.0, -1.0])
    loss, parts = ppo.ppo_loss(agent, z, a, old, adv, ret, clip=0.2, vf_coef=0.5)
    hi, lo = np.exp(0.5), np.exp(-0.5)
    # min(ratio A, clip(ratio) A): A > 0 takes 1.2 (ratio e^0.5) or e^-0.5; A < 0 takes -e^0.5 or -0.8
    surrogate = np.array([1.2, -hi, lo, -0.8])
    assert parts["policy"] == pytest.approx(-surrogate.mean(), rel=1e-5)
    assert parts["value"] == pytest.approx((1 + 4 + 0 + 1) / 4, rel=1e-5)
    assert loss.item() == pytest.approx(parts["policy"] + 0.5 * parts["value"], rel=1e-5)


def test_obs_stats_are_the_running_mean_and_variance(ppo):
    agent = ppo.Agent(2, 1)
    x = torch.randn(300, 2, dtype=torch.float64) * torch.tensor([3.0, 0.5]) + torch.tensor([1.0, -2.0])
    for chunk in x.split(70):
        agent.update_obs_stats(chunk)
    torch.testing.assert_close(agent.obs_mean, x.mean(0), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(agent.obs_var, x.var(0, unbiased=False), rtol=1e-5, atol=1e-5)


def short_training(ppo, task, obs_dim, act_dim, iterations):
    """(untrained, trained) mean deterministic returns over 32 seeded SimPhant episodes of
    `task` around `iterations` PPO iterations of 32 envs x 64 steps (seed 3, torch on one
    thread: the run is then a function of the seed alone)."""
    torch.set_num_threads(1)
    cfg = ppo.Config(task=task, num_envs=32, steps=64, seed=3)
    torch.manual_seed(cfg.seed)
    untrained = ppo.evaluate_simphant(ppo.Agent(obs_dim, act_dim, cfg.hidden, cfg.init_log_std), task, 32, seed=123)
    agent, stats = ppo.train(cfg, verbose=False, max_iterations=iterations)
    trained = ppo.evaluate_simphant(agent, task, 32, seed=123)
    print(f"\n{task} PPO, {stats['env_steps']} env steps in {stats['seconds']:.1f} s: deterministic return "
          f"{untrained.mean():.1f} untrained, {trained.mean():.1f} trained")
    assert stats["iterations"] == iterations and stats["env_steps"] == iterations * 32 * 64 and not stats["reached"]
    return untrained.mean(), trained.mean()


def test_short_training_beats_the_untrained_policy(ppo):
    """12 iterations (32 envs x 64 steps each, ~25k env steps, a few seconds): the
    deterministic policy's mean return over 32 seeded SimPhant episodes at least doubles
    the untrained one's (same seeds; ~90 untrained, several hundred trained)."""
    untrained, trained = short_training(ppo, "InvertedDoublePendulum-v5", 9, 1, 12)
    assert trained > 2 * untrained, (untrained, trained)


def test_short_hopper_training_beats_the_untrained_policy(ppo):
    """Hopper-v5 (ground contact): 24 iterations of 32 envs x 64 steps (~49k env steps,
    ~10 s); the deterministic policy's mean return over 32 seeded SimPhant episodes is at
    least 1.8 times the untrained one's (measured: 121 untrained, the hopper standing until
    it tips over; 273 trained, 2.3 times)."""
    untrained, trained = short_training(ppo, "Hopper-v5", 11, 3, 24)
    assert trained > 1.8 * untrained, (untrained, trained)


def test_short_solo12_stand_up_training_beats_the_untrained_policy(ppo):
    """Solo12StandUp-v0 (floating base, ground contact, the feet's forces observed): 16
    iterations of 32 envs x 64 steps (~33k env steps, ~7 s); the deterministic policy's
    mean return over 32 seeded episodes is at least twice the untrained one's (measured:
    13.8 untrained, lying where it was dropped; 49.9 trained, 3.6 times, rising toward
    standing)."""
    untrained, trained = short_training(ppo, "Solo12StandUp-v0", 38, 12, 16)
    assert trained > 2 * untrained, (untrained, trained)
