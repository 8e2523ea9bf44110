#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/: clang, ASan + UBSan, SIMPHANT_FUZZ=ON) in
# build-fuzz and runs each for SECONDS seconds (default 60) on a corpus seeded from
# examples/ and tests/data/urdf (docs/reliability.md, "Fuzzing").
# Usage: scripts/fuzz.sh [SECONDS] [TARGET ...]     targets: fuzz_scene fuzz_urdf fuzz_design (default all)
# The growing corpus stays in build-fuzz/corpus/<target>; a finding (crash, sanitizer
# report, leak, timeout, out-of-memory) is written to build-fuzz/findings/<target>/ and
# the script exits 1 after running every target. Installs clang and libclang-rt-dev
# (apt-get) when missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-60}
if [ $# -gt 0 ]; then shift; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(fuzz_scene fuzz_urdf fuzz_design); fi
# clang with libFuzzer's runtime: installed with apt-get when missing.
missing=()
for p in clang libclang-rt-dev; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "fuzz: installing ${missing[*]}"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMPHANT_CUDA=OFF \
  -DSIMPHANT_BUILD_TESTS=OFF -DSIMPHANT_BUILD_BENCH=OFF -DSIMPHANT_FUZZ=ON "${launcher[@]}"
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
  # Absolute paths: fuzz_scene works in examples/ (robot scenes name arm7.urdf there).
  corpus=$PWD/build-fuzz/corpus/$t
  findings=$PWD/build-fuzz/findings/$t
  mkdir -p "$corpus" "$findings"
  case $t in
    fuzz_scene) seeds=(examples/*.json fuzz/seeds/scene/*) ;;
    fuzz_urdf) seeds=(examples/*.urdf tests/data/urdf/*.urdf fuzz/seeds/urdf/*) ;;
    fuzz_design) seeds=(fuzz/seeds/design/*) ;;
    *) echo "fuzz: unknown target $t" >&2; exit 2 ;;
  esac
  for s in "${seeds[@]}"; do
    if [ -f "$s" ]; then cp -n "$s" "$corpus/" 2>/dev/null || true; fi
  done
  echo "fuzz: $t for $seconds s (corpus $corpus)"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 4 GiB is a runaway.
  if ! "$PWD/build-fuzz/fuzz/$t" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
       -max_len=16384 -dict="$PWD/fuzz/$t.dict" -artifact_prefix="$findings/" -print_final_stats=1; then
    echo "fuzz: $t found a problem: see $findings/" >&2
    status=1
  fi
done
exit "$status"
