#!/usr/bin/env bash
# Prepares .mjx-deps/ (git-ignored) for bench/mjx_panda_bench.py on the GPU machine, which
# has Python 3.12 with JAX, NumPy, SciPy, absl-py and etils but neither mujoco nor
# mujoco-mjx, and no network (docs/gpu-check.md). Downloads, for CPython 3.12 on
# manylinux x86_64 (the machine's; change with PYVER), the wheels of
#   mujoco (4.0.0; with mujoco-core, its compiled library and bindings),
#   mujoco-mjx (the newest release, 3.17.0: it requires mujoco >= 3.17 and there is no
#   4.0 release of it), trimesh (mujoco-mjx imports it)
# and unpacks them into .mjx-deps/site (a site-packages tree: `PYTHONPATH=.mjx-deps/site`),
# with example-robot-data's panda.urdf in .mjx-deps/robot-data (SIMPHANT_ROBOT_DATA),
# without MuJoCo's documentation, C headers and MJX's test data (MJX's own test models with
# their meshes), to stay well inside the 64 MiB of files copied to the GPU machine. mujoco-studio, glfw and
# pyopengl (viewer and rendering; mujoco's declared dependencies) are not fetched: the
# benchmark imports neither. Run it here (network), then copy ".mjx-deps":
#
#   bash bench/fetch_mjx_wheels.sh          # about 32 MB unpacked
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
MUJOCO_VERSION=${MUJOCO_VERSION:-4.0.0}
MJX_VERSION=${MJX_VERSION:-3.17.0}
PYVER=${PYVER:-3.12}
dest=.mjx-deps
rm -rf "$dest" && mkdir -p "$dest/wheels" "$dest/site"
pip_download() {
  python3 -m pip download --no-deps --only-binary=:all: --python-version "$PYVER" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$dest/wheels" "$@"
}
pip_download "mujoco==$MUJOCO_VERSION" "mujoco-core==$MUJOCO_VERSION" "mujoco-mjx==$MJX_VERSION" trimesh
# A wheel is a zip of its site-packages files: unpacking them into one folder merges the
# `mujoco` namespace that mujoco, mujoco-core and mujoco-mjx share.
for w in "$dest"/wheels/*.whl; do python3 -m zipfile -e "$w" "$dest/site"; done
rm -rf "$dest/wheels" "$dest/site/mujoco/doc" "$dest/site/mujoco/include" "$dest/site/mujoco/mjx/test_data"
find "$dest/site" -name '*_test.py' -delete
find "$dest/site" -name '__pycache__' -prune -exec rm -rf {} +
# The Panda's URDF (no meshes), for a machine without example-robot-data (BSD-2-Clause).
robots=$(python3 -c "import importlib.metadata as m; print(m.distribution('example-robot-data').locate_file('cmeel.prefix/share/example-robot-data/robots'))" 2>/dev/null || true)
if [ -n "$robots" ] && [ -f "$robots/panda_description/urdf/panda.urdf" ]; then
  mkdir -p "$dest/robot-data/panda_description/urdf"
  cp "$robots/panda_description/urdf/panda.urdf" "$dest/robot-data/panda_description/urdf/"
else
  echo "note: example-robot-data is not installed here: the machine needs it or .gpu-deps/robot-data (scripts/gpu_deps.sh)"
fi
echo "mujoco $MUJOCO_VERSION, mujoco-mjx $MJX_VERSION for CPython $PYVER: $(du -sh "$dest" | cut -f1) in $dest"
echo "copy $dest to the GPU machine with the checkout; bench/robot_gpu_bench.sh puts $dest/site on PYTHONPATH"
