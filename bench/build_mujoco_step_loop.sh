#!/usr/bin/env bash
# Compiles bench/mujoco_step_loop.cpp (MuJoCo's C mj_step loop, timed) against the pip
# wheel `mujoco`: its headers (mujoco/include) and its shared library
# (mujoco/libmujoco.so.*). MuJoCo is an optional benchmark dependency: the main CMake
# build never needs it. Plain -O2, no -march=native: the timed work is inside the wheel's
# library, built as shipped.
#
#   bash bench/build_mujoco_step_loop.sh [OUT]   (default OUT: build/mujoco_step_loop)
# Prints the binary's path. Exit 77 when the wheel (or its headers / library) is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build/mujoco_step_loop}
MJ=$(python3 -c "import mujoco, os; print(os.path.dirname(mujoco.__file__))" 2>/dev/null) ||
  { echo "SKIP: the python package mujoco is not installed (python3 -m pip install mujoco)" >&2; exit 77; }
[ -f "$MJ/include/mujoco/mujoco.h" ] || { echo "SKIP: $MJ/include/mujoco/mujoco.h is missing" >&2; exit 77; }
LIB=$(ls "$MJ"/libmujoco.so* 2>/dev/null | head -n 1 || true)
[ -n "$LIB" ] || { echo "SKIP: no libmujoco.so* in $MJ" >&2; exit 77; }
mkdir -p "$(dirname "$OUT")"
if [ ! -x "$OUT" ] || [ bench/mujoco_step_loop.cpp -nt "$OUT" ] || [ "$LIB" -nt "$OUT" ]; then
  ${CXX:-g++} -std=c++17 -O2 -Wall -Wextra -I"$MJ/include" bench/mujoco_step_loop.cpp -o "$OUT" "$LIB" \
    -Wl,-rpath,"$MJ" -pthread
fi
echo "$OUT"
