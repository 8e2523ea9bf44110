"""Every example under examples/python runs, and shows what it claims."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import python_env


def run_example(root, name, *args, cwd):
    proc = subprocess.run([sys.executable, str(root / "examples" / "python" / name), *args], cwd=cwd, env=python_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_rl_cem_improves_the_policy(root, tmp_path):
    out = run_example(root, "rl_cem_slider_crank.py", cwd=tmp_path)
    m = re.search(r"return before (-?[0-9.]+), after (-?[0-9.]+)", out)
    assert m, out
    before, after = float(m.group(1)), float(m.group(2))
    # returns are minus the squared relative speed error summed over the episode: the
    # trained policy must at least halve the untrained one's error
    assert before < 0 and after > before / 2, out


def test_monte_carlo_sweep_writes_the_figure(root, tmp_path):
    out = run_example(root, "monte_carlo_sweep.py", "--out-dir", str(tmp_path), "--instances", "16", "--t-end", "0.3",
                      cwd=tmp_path)
    assert "16 of 16 instances ok" in out
    png = tmp_path / "four_bar_sweep.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "four_bar_sweep.h5").exists()


def test_save_restore_is_bit_identical(root, tmp_path):
    out = run_example(root, "save_restore.py", "--file", str(tmp_path / "s.npz"), cwd=tmp_path)
    assert "bit-identical True" in out


def test_ppo_reaches_the_threshold_in_both_simulators(root, tmp_path):
    for module in ("torch", "gymnasium", "mujoco"):
        pytest.importorskip(module)
    out = run_example(root, "ppo_mujoco_tasks.py", "--seed", "0", "--save", str(tmp_path / "idp.pt"), cwd=tmp_path)
    assert "threshold 9100 reached" in out, out
    m = re.search(r"mean return over 10 episodes \(min\): SimPhant ([0-9.]+) \(([0-9.]+)\), "
                  r"Gymnasium \(MuJoCo\) ([0-9.]+) \(([0-9.]+)\)", out)
    assert m, out
    simphant_mean, simphant_min, gym_mean, gym_min = (float(g) for g in m.groups())
    # The policy trained on SimPhant holds the pole in Gymnasium's MuJoCo env as well:
    # every one of the 10 episodes above Gymnasium's reward threshold in both.
    assert min(simphant_min, gym_min) >= 9100, out
    assert abs(simphant_mean - gym_mean) < 0.01 * gym_mean, out
