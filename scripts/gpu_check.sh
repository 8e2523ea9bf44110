#!/usr/bin/env bash
# The GPU check (docs/gpu-check.md), in phases that each fit one 600 s command on the GPU
# machine. It builds nothing: it runs the build that scripts/gpu_prepare.sh made on a
# machine without a GPU and packed into .gpu-prebuilt/ (carried with the checkout).
#
#   bash scripts/gpu_check.sh 1     # GPU tests (test_*cuda*), four-bar and Panda through the CLI on cuda, the Python GPU test
#   bash scripts/gpu_check.sh 2     # CPU-side kernel tests (test_*grid*)
#   bash scripts/gpu_check.sh 3     # benchmark suite and robot benchmark (about 4 min), plots
#   bash scripts/gpu_check.sh 1 2   # phases in one command, in the order given; `all` is 1 2 3
#
# Each step writes its line to $OUT/gpu-check.md (and to stdout) as soon as it ends, its
# output to $OUT/phase<N>.log. On a machine with a CUDA device (nvidia-smi lists one) a
# GPU test case that skips fails its step, with the case and the reason; without one each
# skipped case is listed as "skipped: no device", so that a run here shows what would run.
# Exit status: non-zero when a step failed (without a device: when something other than
# the device was missing).
# Environment: OUT (default ./gpu-check-out); SIMPHANT_COMMIT names the source in the
# report; SIMPHANT_BENCH_ARGS / SIMPHANT_ROBOT_BENCH_ARGS replace phase 3's arguments.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
phases=""
for a in "$@"; do
  case $a in 1|2|3) phases="$phases $a" ;; all) phases="$phases 1 2 3" ;; *) phases="" && break ;; esac
done
if [ -z "$phases" ]; then
  echo "usage: bash scripts/gpu_check.sh PHASE... (1, 2, 3 or all; docs/gpu-check.md)" >&2
  exit 2
fi
OUT="${OUT:-$PWD/gpu-check-out}"
mkdir -p "$OUT"
report="$OUT/gpu-check.md"
build="build-gpu"
pack=.gpu-prebuilt
failures=0
device=0
nvidia-smi -L 2>/dev/null | grep -q '^GPU' && device=1

say() { echo "$*" | tee -a "$report"; }

# --- The carried build: unpacked once, checked against this checkout's sources. -------
setup() {
  if [ ! -f "$pack/build.tar.gz" ]; then
    say "- setup: FAILED: no $pack/build.tar.gz (run scripts/gpu_prepare.sh on a machine with nvcc and carry $pack)"
    return 1
  fi
  if ! cmp -s "$pack/manifest.txt" "$build/manifest.txt" 2>/dev/null; then
    rm -rf "$build" lib-gpu robot-data-gpu
    local tmp
    tmp=$(mktemp -d)
    tar -C "$tmp" -xzf "$pack/build.tar.gz" || { say "- setup: FAILED: $pack/build.tar.gz does not unpack"; return 1; }
    mv "$tmp/build-gpu" "$build" && mv "$tmp/lib" lib-gpu
    [ -d "$tmp/robot-data" ] && mv "$tmp/robot-data" robot-data-gpu
    rm -rf "$tmp"
    cp "$pack/manifest.txt" "$build/manifest.txt"
  fi
  # The pack was built from these sources; a checkout that differs would test other code.
  local changed
  changed=$(sha1sum -c --quiet "$pack/files.sha1" 2>&1 | grep -E 'FAILED|No such file' | cut -d: -f1 | head -20)
  if [ -n "$changed" ]; then
    say "- setup: FAILED: the checkout differs from the sources of the pack (prepare again): $(echo "$changed" | tr '\n' ' ')"
    return 1
  fi
  # The tests open examples/ and tests/data through the source path compiled into them.
  local src
  src=$(sed -n 's/^source: //p' "$pack/manifest.txt")
  if [ "$(readlink -f "$src" 2>/dev/null)" != "$PWD" ]; then
    if [ -e "$src" ] && [ ! -L "$src" ]; then
      say "- setup: FAILED: $src is a folder here (the machine that prepared the pack?); the check links it to this checkout"
      return 1
    fi
    mkdir -p "$(dirname "$src")" && ln -sfn "$PWD" "$src"
  fi
  export LD_LIBRARY_PATH="$PWD/lib-gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if [ -z "${SIMPHANT_ROBOT_DATA:-}" ] && [ -d robot-data-gpu ]; then export SIMPHANT_ROBOT_DATA="$PWD/robot-data-gpu"; fi
  local missing=""
  if command -v ldd >/dev/null 2>&1; then
    missing=$(for f in "$build/simphant" "$build"/tests/test_*; do ldd "$f" 2>&1 | grep "not found"; done | sort -u)
  else
    say "- setup: ldd is not installed: shared libraries not checked before the tests"
  fi
  if [ -n "$missing" ]; then
    say "- setup: FAILED: shared libraries not found: $(echo "$missing" | awk '{print $1}' | tr '\n' ' ')"
    return 1
  fi
  return 0
}

# --- Steps ----------------------------------------------------------------------------
# gtest_step NAME BINARY TIMEOUT: runs one test binary, then one line: passed / failed /
# skipped counts, and each failed or skipped case with its reason.
gtest_step() {
  local name=$1 bin=$2 limit=$3 t0=$SECONDS rc=0 log
  log=$(mktemp)
  timeout "$limit" "$bin" --gtest_color=no >"$log" 2>&1 || rc=$?
  { echo "=== $name (exit $rc)"; cat "$log"; } >>"$OUT/phase$current.log"
  local passed failed skipped
  passed=$(grep -cE '^\[       OK \]' "$log")
  failed=$(grep -oE '^\[  FAILED  \] [A-Za-z0-9_/.]+ \(' "$log" | sort -u | wc -l)
  # Each skipped case with the message GTEST_SKIP gave (the line after "...: Skipped").
  local skips
  skips=$(awk '/: Skipped$/ {getline; reason = $0; next}
               /^\[  SKIPPED \] [A-Za-z0-9_\/.]+ \(/ {print "  - " $4 ": " reason; reason = ""}' "$log")
  skipped=$(printf '%s' "$skips" | grep -c '^  - ')
  local secs=$((SECONDS - t0)) verdict
  if [ "$rc" -eq 124 ]; then
    verdict="FAILED (stopped at its ${limit} s limit)"
  elif [ "$rc" -ne 0 ] || [ "$failed" -gt 0 ]; then
    verdict="FAILED"
  elif [ $((passed + skipped)) -eq 0 ]; then
    verdict="FAILED (no test ran)"
  elif [ "$skipped" -gt 0 ] && [ "$device" -eq 1 ]; then
    verdict="FAILED (cases skipped on a machine with a device)"
  elif [ "$skipped" -gt 0 ]; then
    verdict="ok without a device"
  else
    verdict="ok"
  fi
  say "- $name: $verdict: $passed passed, $failed failed, $skipped skipped ($secs s)"
  if [ "$failed" -gt 0 ]; then
    grep -oE '^\[  FAILED  \] [A-Za-z0-9_/.]+ \(' "$log" | sort -u | sed -E 's/^\[  FAILED  \] (.*) \(/  - \1: failed/' |
      tee -a "$report"
  fi
  if [ "$skipped" -gt 0 ]; then
    if [ "$device" -eq 1 ]; then
      echo "$skips" | tee -a "$report"
    else  # the reasons, once each, then the cases
      echo "$skips" | sed -E 's/^  - [^:]+: //' | sort | uniq -c | sed -E 's/^ *([0-9]+) /  - skipped: no device (\1 cases): /' |
        tee -a "$report"
      echo "$skips" | sed -E 's/^  - ([^:]+): .*/\1/' | tr '\n' ' ' | sed 's/^ */  - cases: /' | tee -a "$report"
      echo | tee -a "$report"
    fi
  fi
  case $verdict in FAILED*) failures=$((failures + 1)) ;; esac
  rm -f "$log"
}

# run_step KIND LIMIT NAME CMD...: a command (a CLI run, a benchmark, the plots) under a
# limit of LIMIT s, failed on a non-zero exit status. KIND gpu: a command that needs the
# GPU, whose refusal without a device is expected: "skipped: no device" with the message.
run_step() {
  local kind=$1 limit=$2 name=$3 t0=$SECONDS rc=0 log
  shift 3
  log=$(mktemp)
  timeout "$limit" "$@" >"$log" 2>&1 || rc=$?
  { echo "=== $name (exit $rc)"; cat "$log"; } >>"$OUT/phase$current.log"
  local secs=$((SECONDS - t0))
  if [ "$rc" -eq 0 ]; then
    say "- $name: ok ($secs s)$(grep -m1 -E 'instances ok|ok:|instance-steps' "$log" | sed 's/^ */: /')"
  elif [ "$kind" = gpu ] && [ "$device" -eq 0 ] && grep -qE 'no CUDA device|no CUDA support' "$log"; then
    say "- $name: skipped: no device ($(grep -m1 -oE '(no CUDA device|no CUDA support)[^.]*' "$log"))"
  else
    local why="exit $rc"
    [ "$rc" -eq 124 ] && why="stopped at its $limit s limit"
    say "- $name: FAILED ($why, $secs s); its last lines:"
    tail -15 "$log" | sed 's/^/    /' | tee -a "$report"
    failures=$((failures + 1))
  fi
  rm -f "$log"
}

# --- Phases ---------------------------------------------------------------------------
phase1() {
  local t
  for t in "$build"/tests/test_*cuda*; do gtest_step "GPU tests $(basename "$t")" "$t" 300; done
  local h5
  h5=$(mktemp -d)
  run_step gpu 240 "simphant run four_bar.json --backend cuda, 1000 instances" "$build/simphant" run examples/four_bar.json \
    --backend cuda --instances 1000 --out "$h5/four_bar.h5"
  run_step gpu 240 "simphant run panda.json --backend cuda (GPU joint-space backend), 1000 instances" "$build/simphant" run \
    examples/panda.json --backend cuda --instances 1000 --out "$h5/panda.h5"
  rm -rf "$h5"
  python_step
}

# The Python GPU test (DLPack device views and device inputs, tests/python/test_arrays.py)
# with the carried module; it needs that Python's version, pytest and numpy (torch for
# the torch cases).
python_step() {
  local want have t0=$SECONDS rc=0 log py=${SIMPHANT_GPU_PYTHON:-python3}
  want=$(sed -n 's/^python: //p' "$pack/manifest.txt")
  have=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo none)
  local missing=""
  [ "$want" = none ] && missing="the pack has no Python module (no Python 3.12 where it was prepared)"
  [ -z "$missing" ] && [ "$want" != "$have" ] && missing="$py is Python $have, the module is for $want (SIMPHANT_GPU_PYTHON)"
  [ -z "$missing" ] && missing=$("$py" -c 'import pytest, numpy' 2>&1 | tail -1 | grep -E 'Error' || true)
  if [ -n "$missing" ]; then
    if [ "$device" -eq 1 ]; then
      say "- Python GPU test (tests/python/test_arrays.py): FAILED: not run: $missing"
      failures=$((failures + 1))
    else
      say "- Python GPU test (tests/python/test_arrays.py): not run here: $missing"
    fi
    return
  fi
  log=$(mktemp)
  PYTHONPATH="$PWD/$build/python" SIMPHANT_CLI="$PWD/$build/simphant" timeout 240 "$py" -m pytest -q -rs \
    -p no:cacheprovider tests/python/test_arrays.py >"$log" 2>&1 || rc=$?
  { echo "=== Python GPU test (exit $rc)"; cat "$log"; } >>"$OUT/phase$current.log"
  local summary skips
  summary=$(grep -E '(passed|failed|skipped|error)' "$log" | tail -1)
  skips=$(grep -E '^SKIPPED' "$log" | sed 's/^/  - /')
  if [ "$rc" -ne 0 ] || { [ -n "$skips" ] && [ "$device" -eq 1 ]; }; then
    say "- Python GPU test (tests/python/test_arrays.py): FAILED ($((SECONDS - t0)) s): $summary"
    [ -n "$skips" ] && echo "$skips" | tee -a "$report"
    failures=$((failures + 1))
  else
    say "- Python GPU test (tests/python/test_arrays.py): ok$([ -n "$skips" ] && echo " without a device") ($((SECONDS - t0)) s): $summary"
    [ -n "$skips" ] && echo "$skips" | sed 's/^  - SKIPPED/  - skipped:/' | tee -a "$report"
  fi
  rm -f "$log"
}

phase2() {
  local t
  for t in "$build"/tests/test_*grid*; do gtest_step "CPU-side kernel tests $(basename "$t")" "$t" 300; done
}

# About 4 minutes on an H200: the suite's --time-limit skips the rows not started after
# 150 s, the robot benchmark's after 50 s.
phase3() {
  local bench_args robot_args
  read -r -a bench_args <<<"${SIMPHANT_BENCH_ARGS:---configs gpu,cpu --cpu-sizes 4096 --min-seconds 0.1 --time-limit 150}"
  run_step gpu 540 "benchmark suite (simphant bench ${bench_args[*]})" "$build/simphant" bench "${bench_args[@]}" \
    --json "$OUT/bench-gpu.json"
  read -r -a robot_args <<<"${SIMPHANT_ROBOT_BENCH_ARGS:---models panda_aba,panda_cga,arm7_aba,arm7_cga --configs cuda64,cuda32,cpu-dense --gpu-sizes 1,4096,262144 --cpu-sizes 4096 --min-seconds 0.05 --time-limit 50}"
  run_step gpu 540 "robot benchmark (simphant bench ${robot_args[*]})" "$build/simphant" bench "${robot_args[@]}" \
    --json "$OUT/bench-robots.json"
  if [ -f "$OUT/bench-gpu.json" ] && python3 -c "import matplotlib" 2>/dev/null; then
    local plots
    plots=$(mktemp -d)
    run_step any 120 "plots (bench/plot_bench.py)" python3 bench/plot_bench.py "$OUT/bench-gpu.json" --out "$plots"
    tar -C "$plots" -czf "$OUT/plots.tar.gz" . && rm -rf "$plots"
  fi
}

# --- Report ---------------------------------------------------------------------------
if [ ! -f "$report" ]; then
  {
    echo "# GPU check"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- source: ${SIMPHANT_COMMIT:-$(sed -n 's/^commit: //p' "$pack/manifest.txt" 2>/dev/null)}"
    if [ "$device" -eq 1 ]; then
      echo "- device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -1)"
    else
      echo "- device: none (nvidia-smi lists no GPU): GPU cases are listed as skipped, CLI runs on cuda as refused"
    fi
    echo "- host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
    echo "- pack: $(tr '\n' ';' <"$pack/manifest.txt" 2>/dev/null)"
  } >"$report"
fi
cat "$report"
current=setup
if setup; then
  for current in $phases; do
    say ""
    say "## Phase $current ($(date -u +%H:%M:%SZ))"
    : >"$OUT/phase$current.log"
    t_phase=$SECONDS
    "phase$current"
    say "phase $current: $((SECONDS - t_phase)) s, failed steps so far: $failures"
  done
else
  failures=$((failures + 1))
fi
say ""
say "failed steps: $failures"
[ "$failures" -eq 0 ]
