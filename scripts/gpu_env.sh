#!/usr/bin/env bash
# Sourced by bench/robot_gpu_bench.sh (which builds on the GPU machine): the CMake arguments of the
# CUDA build (`cmake_args`) and the environment for the copied build dependencies of
# .gpu-deps/ (scripts/gpu_deps.sh; docs/gpu-check.md). Without .gpu-deps (a machine with
# the packages installed, docker/Dockerfile) only the plain CUDA arguments are set.
# SIMPHANT_ROBOT_DATA points at the example-robot-data URDFs copied in
# .gpu-deps/robot-data (or .mjx-deps/robot-data) unless it is set or the package is
# installed.
cmake_args=(-S . -B "${build:-build-gpu}" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSIMPHANT_CUDA=ON)
deps="$PWD/.gpu-deps/root"
if [ -d "$deps" ]; then
  lib="$deps/usr/lib/x86_64-linux-gnu"
  export LD_LIBRARY_PATH="$lib:$lib/hdf5/serial:${LD_LIBRARY_PATH:-}"
  # Some packages' CMake exports name libraries by absolute path (urdfdom:
  # /usr/lib/x86_64-linux-gnu/libtinyxml.so); point them into the copied tree.
  grep -rlE '["; ]/usr/lib/x86_64-linux-gnu/lib' --include='*.cmake' "$deps" 2>/dev/null |
    xargs -r sed -i -E "s#([\"; ])/usr/lib/x86_64-linux-gnu/lib#\\1$lib/lib#g"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$deps/usr;$lib/cmake"
               -DCMAKE_CXX_FLAGS="-isystem $deps/usr/include -isystem $deps/usr/include/hdf5/serial"
               -DCMAKE_CUDA_FLAGS="-isystem $deps/usr/include"
               -DHDF5_C_INCLUDE_DIR="$deps/usr/include/hdf5/serial"
               -DHDF5_C_LIBRARY_hdf5="$lib/hdf5/serial/libhdf5.so"
               -DHDF5_NO_FIND_PACKAGE_CONFIG_FILE=ON)
fi
if [ -z "${SIMPHANT_ROBOT_DATA:-}" ] && ! python3 -c "import importlib.metadata as m; m.distribution('example-robot-data')" 2>/dev/null; then
  for d in "$PWD/.gpu-deps/robot-data" "$PWD/.mjx-deps/robot-data"; do
    if [ -d "$d" ]; then export SIMPHANT_ROBOT_DATA="$d"; break; fi
  done
fi
