#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/: clang, ASan + UBSan, in build-asan, the build that
# scripts/sanitize_tests.sh shares: scripts/build_sanitized.sh) and runs each for SECONDS
# seconds (default 60), as many at once as there are cores, on a corpus seeded from
# examples/ and tests/data/urdf (docs/reliability.md, "Fuzzing").
# Usage: scripts/fuzz.sh [SECONDS] [TARGET ...]     targets: fuzz_scene fuzz_urdf fuzz_mjcf fuzz_design (default all)
# The growing corpus stays in build-asan/corpus/<target>; a finding (crash, sanitizer
# report, leak, timeout, out-of-memory) is written to build-asan/findings/<target>/ and
# the script exits 1 after running every target; each target's output is in
# build-asan/fuzz-<target>.log, printed when it ends.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-60}
if [ $# -gt 0 ]; then shift; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(fuzz_scene fuzz_urdf fuzz_mjcf fuzz_design); fi
build_args=()
for t in "${targets[@]}"; do build_args+=(--target "$t"); done
bash scripts/build_sanitized.sh "${build_args[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# One target: seeds its corpus, fuzzes for $seconds, exit status 1 on a finding.
fuzz_one() {
  local t=$1 corpus=$PWD/build-asan/corpus/$1 findings=$PWD/build-asan/findings/$1 seeds=() s
  mkdir -p "$corpus" "$findings"
  case $t in
    fuzz_scene) seeds=(examples/*.json fuzz/seeds/scene/*) ;;
    fuzz_urdf) seeds=(examples/*.urdf tests/data/urdf/*.urdf fuzz/seeds/urdf/*) ;;
    fuzz_mjcf) seeds=(python/simphant/gym/assets/*.xml) ;;
    fuzz_design) seeds=(fuzz/seeds/design/*) ;;
    *) echo "fuzz: unknown target $t" >&2; return 2 ;;
  esac
  for s in "${seeds[@]}"; do
    if [ -f "$s" ]; then cp -n "$s" "$corpus/" 2>/dev/null || true; fi
  done
  # Absolute paths: fuzz_scene works in examples/ (robot scenes name arm7.urdf there).
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 4 GiB is a runaway.
  if ! "$PWD/build-asan/fuzz/$t" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
       -max_len=16384 -dict="$PWD/fuzz/$t.dict" -artifact_prefix="$findings/" -print_final_stats=1; then
    echo "fuzz: $t found a problem: see $findings/" >&2
    return 1
  fi
}
status=0
jobs_max=$(nproc)
pids=() names=()
# Waits for the oldest running target and prints its log.
reap() {
  local rc=0
  wait "${pids[0]}" || rc=$?
  echo "fuzz: ${names[0]} for $seconds s, exit status $rc"
  cat "build-asan/fuzz-${names[0]}.log"
  [ "$rc" -eq 0 ] || status=1
  pids=("${pids[@]:1}") names=("${names[@]:1}")
}
for t in "${targets[@]}"; do
  [ "${#pids[@]}" -lt "$jobs_max" ] || reap
  fuzz_one "$t" >"build-asan/fuzz-$t.log" 2>&1 &
  pids+=($!) names+=("$t")
done
while [ "${#pids[@]}" -gt 0 ]; do reap; done
exit "$status"
