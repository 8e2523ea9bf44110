#!/usr/bin/env bash
# Builds SimPhant with AddressSanitizer + UndefinedBehaviorSanitizer (SIMPHANT_SANITIZE=ON,
# CPU only, RelWithDebInfo) in build-asan and runs the CTest suite there; any sanitizer
# report fails the test that triggered it (docs/reliability.md, "Sanitizers").
# Usage: scripts/sanitize_tests.sh [extra ctest arguments, e.g. -R Urdf]
# SIMPHANT_SANITIZE_EXCLUDE: a ctest -E regex of tests left out (default: the Pinocchio
# cross-checks, Python scripts, the peak-RSS comparisons, the random-kill test and the
# large parallelogram chains below).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The memory-estimate tests that compare with measured peak RSS are left out too: ASan's
# redzones, quarantine and shadow memory change what a run holds. So is the random-kill
# test of checkpoints: it bounds the work lost to a kill in wall-clock seconds (the
# checkpoint interval plus a slice of steps), which the sanitizers' 2-3x slowdown breaks,
# and its 40 runs take about 40 s in Release; the resume after SIGINT, SIGTERM and
# SIGKILL (Checkpoint.ResumeAfter...) runs there.
# The 8- and 40-cell parallelogram chains (13 s and 9 s in Release, minutes under ASan)
# run the same code as the 1- and 2-cell ones, which stay in.
exclude=${SIMPHANT_SANITIZE_EXCLUDE:-Pinocchio[A-Za-z]*Check|MemoryEstimate\..*MatchesPeakRss|Checkpoint\.TwentyRandomKills|ParallelogramChainCells\..*/N(8|40)( |$)}
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# -g1: line tables only, enough for the reports' file:line stacks, and a much smaller
# build and link than full debug information.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DSIMPHANT_CUDA=OFF -DSIMPHANT_BUILD_BENCH=OFF -DSIMPHANT_SANITIZE=ON "${launcher[@]}"
cmake --build build-asan -j"$(nproc)"
# The build stops at the first UBSan report (-fno-sanitize-recover); detect_leaks:
# LeakSanitizer at exit; print_stacktrace: where UBSan's report came from.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# A leak inside HDF5 itself on a failed file creation (scripts/lsan.supp says which).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp}
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -E "$exclude" "$@"
