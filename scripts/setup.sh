#!/usr/bin/env bash
# One-time (idempotent) set-up on Debian / Ubuntu: installs the missing packages with
# apt-get, makes h5py and numpy importable, pip-installs the Python package's build and
# test dependencies, then configures and builds SimPhant in ./build (Release, Ninja,
# SIMPHANT_CUDA=AUTO, SIMPHANT_PYTHON=ON: the module in build/python/simphant) with all
# cores. Safe to run again: it installs nothing that is present and rebuilds only what
# changed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

packages=(build-essential cmake ninja-build pkg-config libeigen3-dev nlohmann-json3-dev libcli11-dev
          libhdf5-dev libspdlog-dev libboost-dev libgtest-dev libbenchmark-dev liburdfdom-dev
          libsundials-dev python3)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then
    $SUDO apt-get update
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "$@"
}
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  apt_install "${missing[@]}"
fi

# h5py + numpy, to read the output in Python (README). Distribution packages first
# (pip refuses to touch the system Python on Debian 12 / Ubuntu 24.04), pip as fallback.
# The distribution packages serve /usr/bin/python3; when `python3` is another
# interpreter (pyenv, a venv), pip installs into it. Only reading the output needs
# them: a failure here warns and does not stop the build.
if ! python3 -c 'import h5py, numpy' >/dev/null 2>&1; then
  echo "setup: installing h5py and numpy"
  apt_install python3-h5py python3-numpy || true
  if ! python3 -c 'import h5py, numpy' >/dev/null 2>&1; then
    python3 -m pip install h5py numpy ||
      python3 -m pip install --break-system-packages h5py numpy ||
      echo "setup: warning: h5py is not importable by $(command -v python3); reading the output in Python needs it"
  fi
fi

# jsonschema, for the test that keeps schema/scene.schema.json true to the scenes
# (tests/scene_schema_check.py; draft 2020-12 needs jsonschema >= 4). Test-time only: the
# test skips with the reason without it, so a failure here warns and does not stop the build.
if ! python3 -c 'import jsonschema; jsonschema.Draft202012Validator' >/dev/null 2>&1; then
  echo "setup: installing jsonschema"
  apt_install python3-jsonschema || true
  if ! python3 -c 'import jsonschema; jsonschema.Draft202012Validator' >/dev/null 2>&1; then
    python3 -m pip install jsonschema ||
      python3 -m pip install --break-system-packages jsonschema ||
      echo "setup: warning: jsonschema is not importable by $(command -v python3); the scene schema test will skip"
  fi
fi

# The robots of the tests and examples/panda_sweep.json (example-robot-data: URDFs, BSD,
# used in place, never copied here) and Pinocchio (pin) for the cross-check and the
# benchmark (docs/robots.md). Test-time only: the tests that need them skip with the
# reason when they are missing, so a failure here warns and does not stop the build.
if ! python3 -c 'import example_robot_data, pinocchio' >/dev/null 2>&1 &&
   ! python3 -c 'import importlib.metadata as m; m.distribution("example-robot-data"); import pinocchio' >/dev/null 2>&1; then
  echo "setup: installing example-robot-data and pin (Pinocchio)"
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip || true
  python3 -m pip install example-robot-data pin ||
    python3 -m pip install --break-system-packages example-robot-data pin ||
    echo "setup: warning: example-robot-data / pin not installed for $(command -v python3); the robot tests will skip"
fi

# The Python package (python/, docs/python.md): nanobind builds the module; pytest and
# the libraries of simphant.results / simphant.gym / simphant.report (scipy, SALib) / the
# examples run tests/python.
# Needed by the build and the tests: a failure here stops the set-up.
py_needed=(nanobind numpy pytest h5py xarray h5netcdf pandas gymnasium matplotlib scipy SALib)
if ! python3 -c 'import nanobind, numpy, pytest, h5py, xarray, h5netcdf, pandas, gymnasium, matplotlib, scipy, SALib' >/dev/null 2>&1; then
  echo "setup: installing the Python package's build and test dependencies: ${py_needed[*]}"
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  python3 -m pip install "${py_needed[@]}" ||
    python3 -m pip install --break-system-packages "${py_needed[@]}" ||
    { echo "setup: error: could not pip-install ${py_needed[*]} for $(command -v python3)"; exit 1; }
fi
# scipy and SALib, for the designs of experiments' cross-checks (tests/python/test_doe.py:
# Sobol' points against scipy.stats.qmc, Saltelli designs and Sobol' indices against
# SALib, docs/scene-format.md "Sweep"). Test-time only: those tests skip with the reason
# without them, so a failure here warns.
if ! python3 -c 'import scipy.stats.qmc, SALib.sample.sobol, SALib.analyze.sobol' >/dev/null 2>&1; then
  echo "setup: installing scipy and SALib"
  python3 -m pip install scipy 'SALib>=1.6' ||
    python3 -m pip install --break-system-packages scipy 'SALib>=1.6' ||
    echo "setup: warning: scipy / SALib not installed for $(command -v python3); tests/python/test_doe.py will skip parts"
fi
# PyTorch, for the DLPack round trips and the torch vector env of the tests
# (tests/python/test_arrays.py, test_gym.py). PyPI's Linux wheel brings its CUDA
# runtime libraries (about 3 GB, a few minutes); set SIMPHANT_SKIP_TORCH=1 to leave it
# out. Test-time only: those tests skip with the reason without it.
if [ -z "${SIMPHANT_SKIP_TORCH:-}" ] && ! python3 -c 'import torch' >/dev/null 2>&1; then
  echo "setup: installing torch (set SIMPHANT_SKIP_TORCH=1 to skip)"
  python3 -m pip install torch ||
    python3 -m pip install --break-system-packages torch ||
    echo "setup: warning: torch not installed for $(command -v python3); the PyTorch tests will skip"
fi
# Ray, for simphant.distributed and its test (tests/python/test_distributed.py: a local
# Ray cluster runs a sharded sweep). Test-time only: outside CI the test skips with the
# reason without it, so a failure here warns; under CI (CI=true) the test fails instead.
if ! python3 -c 'import ray' >/dev/null 2>&1; then
  echo "setup: installing ray"
  python3 -m pip install 'ray>=2.9' ||
    python3 -m pip install --break-system-packages 'ray>=2.9' ||
    echo "setup: warning: ray not installed for $(command -v python3); the Ray sweep test will skip (fail under CI)"
fi
# FastAPI, uvicorn, python-multipart for the simulation service `simphant serve`, and
# httpx for its tests (docs/service.md, tests/python/test_serve_*.py). Only the service
# needs them: a failure here warns and does not stop the build.
if ! python3 -c 'import fastapi, uvicorn, multipart, httpx' >/dev/null 2>&1; then
  echo "setup: installing fastapi, uvicorn, python-multipart, httpx"
  python3 -m pip install fastapi uvicorn python-multipart httpx ||
    python3 -m pip install --break-system-packages fastapi uvicorn python-multipart httpx ||
    echo "setup: warning: the service's packages are not installed for $(command -v python3); simphant serve and its tests will not run"
fi
# The web page's 3D replay and its browser tests (docs/service.md, "Web page and replay"):
# three.js from Debian's libjs-three (served by the service, never from a CDN), and
# Debian's chromium driven by Playwright for Python (tests/python/test_web_browser.py;
# Playwright's own browser download is never used). Test- and page-time only: without
# them the replay page says three.js is missing and the browser tests skip with the
# reason, so a failure here warns.
web_missing=()
for p in chromium libjs-three; do
  dpkg -s "$p" >/dev/null 2>&1 || web_missing+=("$p")
done
if [ "${#web_missing[@]}" -gt 0 ]; then
  echo "setup: installing ${web_missing[*]}"
  apt_install "${web_missing[@]}" ||
    echo "setup: warning: ${web_missing[*]} not installed; the replay page or its browser tests will not run"
fi
if ! python3 -c 'import playwright.sync_api' >/dev/null 2>&1; then
  echo "setup: installing playwright (the Python package only; the browser is Debian's chromium)"
  python3 -m pip install playwright ||
    python3 -m pip install --break-system-packages playwright ||
    echo "setup: warning: playwright not installed for $(command -v python3); the browser tests will skip"
fi
# The module is built for the python3 on PATH (the one the packages above went into).
python=$(python3 -c 'import sys; print(sys.executable)')
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSIMPHANT_CUDA=AUTO -DSIMPHANT_PYTHON=ON \
    -DPython_EXECUTABLE="$python"
else
  cmake -S . -B build -DSIMPHANT_PYTHON=ON -DPython_EXECUTABLE="$python"
fi
cmake --build build -j"$(nproc)"
