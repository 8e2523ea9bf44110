#!/usr/bin/env bash
# Copies the URDF files (no meshes) of the example-robot-data robots that the robot tests
# and the robot benchmark load (panda, ur5, xarm7, solo, anymal, go1, a1, double pendulum)
# into DEST, for SIMPHANT_ROBOT_DATA on the GPU machine, which cannot install the package
# (docs/gpu-check.md). BSD-2-Clause, used in place. Without the package here it says so
# and copies nothing (the robot tests then skip there, which the GPU check counts as a
# failure).
#
#   bash scripts/gpu_robot_data.sh DEST
set -euo pipefail
dest=${1:?usage: gpu_robot_data.sh DEST}
robots=$(python3 -c "import importlib.metadata as m; print(m.distribution('example-robot-data').locate_file('cmeel.prefix/share/example-robot-data/robots'))" 2>/dev/null || true)
if [ -z "$robots" ] || [ ! -d "$robots" ]; then
  echo "note: example-robot-data is not installed here (pip install example-robot-data): no robot URDFs copied"
  exit 0
fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
for d in panda_description ur_description xarm_description solo_description anymal_b_simple_description \
         anymal_c_simple_description go1_description a1_description double_pendulum_description; do
  (cd "$robots" && find "$d" -name '*.urdf' -exec cp --parents {} "$dest/" \;)
done
