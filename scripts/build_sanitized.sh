#!/usr/bin/env bash
# The sanitizer build in build-asan, shared by scripts/sanitize_tests.sh (the C++ tests)
# and scripts/fuzz.sh (the libFuzzer targets): clang with AddressSanitizer and
# UndefinedBehaviorSanitizer, the library compiled with libFuzzer's coverage
# (SIMPHANT_FUZZ=ON), CPU only, no benchmarks. -O2 -g1 (line tables: the reports'
# file:line stacks, a small build) for the library, where the tests spend their time (at
# -O1 with the coverage, Mechanisms.EveryExampleRunsWithAllInstancesOk ran past its 900 s
# on a loaded 2-core machine where the Release build takes 52 s); the test files compile
# at -O0 without the sanitizers (linked with them), most of those that run per-thread
# templates of their own at -O1 with them (tests/CMakeLists.txt). Installs clang and libclang-rt-dev (apt-get) when missing.
# Usage: scripts/build_sanitized.sh [cmake --build arguments, e.g. --target fuzz_scene]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup_common.sh
apt_install_missing clang libclang-rt-dev
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [ ! -f build-asan/CMakeCache.txt ]; then
  CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DSIMPHANT_CUDA=OFF -DSIMPHANT_BUILD_BENCH=OFF \
    -DSIMPHANT_SANITIZE=ON -DSIMPHANT_FUZZ=ON "${launcher[@]}"
fi
cmake --build build-asan -j"$(nproc)" "$@"
