#!/usr/bin/env bash
# The GPU check (docs/gpu-check.md), in phases that each fit one 600 s command on the GPU
# machine. It builds nothing: it runs the build that scripts/gpu_prepare.sh made on a
# machine without a GPU and packed into .gpu-prebuilt/ (copied with the checkout).
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

# --- The copied build: unpacked once, checked against this checkout's sources. -------
setup() {
  local f
  for f in build.tar.gz manifest.txt files.sha1; do
    if [ ! -f "$pack/$f" ]; then
      say "- setup: FAILED: no $pack/$f (run scripts/gpu_prepare.sh on a machine with nvcc and copy $pack)"
      return 1
    fi
  done
  local src
  src=$(sed -n 's/^source: //p' "$pack/manifest.txt")
  if [ -z "$src" ]; then
    say "- setup: FAILED: $pack/manifest.txt names no source path (prepare again)"
    return 1
  fi
  if ! cmp -s "$pack/manifest.txt" "$build/manifest.txt" 2>/dev/null; then
    rm -rf "$build" lib-gpu robot-data-gpu
    local tmp
    tmp=$(mktemp -d)
    if ! tar -C "$tmp" -xzf "$pack/build.tar.gz"; then
      rm -rf "$tmp"
      say "- setup: FAILED: $pack/build.tar.gz does not unpack (copy it again)"
      return 1
    fi
    mv "$tmp/build-gpu" "$build" && mv "$tmp/lib" lib-gpu
    [ -d "$tmp/robot-data" ] && mv "$tmp/robot-data" robot-data-gpu
    rm -rf "$tmp"
    cp "$pack/manifest.txt" "$build/manifest.txt"
  fi
  # The pack was built from these sources; a checkout that differs would test other code:
  # a file changed or gone, or a source file the pack does not list (a new .cpp).
  local changed added
  changed=$(sha1sum -c --quiet "$pack/files.sha1" 2>/dev/null | sed -E 's/: (FAILED.*)$//' | head -20)
  added=$(find src kernels host tests python cmake -type f ! -path '*/__pycache__/*' 2>/dev/null | sort |
          comm -23 - <(sed -E 's/^[0-9a-f]+ +//' "$pack/files.sha1" | sort) | head -20)
  if [ -n "$changed$added" ]; then
    say "- setup: FAILED: the checkout differs from the sources of the pack (prepare again):" \
        "$(echo "$changed" | sed '/^$/d; s/$/ (changed or missing)/' | tr '\n' ' ')" \
        "$(echo "$added" | sed '/^$/d; s/$/ (not in the pack)/' | tr '\n' ' ')"
    return 1
  fi
  # The tests open examples/ and tests/data through the source path compiled into them.
  if [ "$(readlink -f "$src" 2>/dev/null)" != "$PWD" ]; then
    if [ -e "$src" ] && [ ! -L "$src" ]; then
      say "- setup: FAILED: $src is a folder here (the machine that prepared the pack: rehearse with" \
          "scripts/gpu_rehearse.sh); the check links that path to this checkout"
      return 1
    fi
    if ! { mkdir -p "$(dirname "$src")" && ln -sfn "$PWD" "$src"; }; then
      say "- setup: FAILED: cannot link $src to this checkout"
      return 1
    fi
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
# The skip reasons of the GPU tests and the refusals of the CLI without a CUDA device.
no_device='no CUDA device|build without CUDA|no CUDA support'

# gtest_step NAME BINARY TIMEOUT: runs one test binary, then one line (passed / failed /
# skipped counts) and each failed, crashed or skipped case with GoogleTest's message.
gtest_step() {
  local name=$1 bin=$2 limit=$3 t0=$SECONDS rc=0 log
  log=$(mktemp)
  timeout -k 10 "$limit" "$bin" --gtest_color=no >"$log" 2>&1 || rc=$?
  { echo "=== $name (exit $rc)"; cat "$log"; } >>"$OUT/phase$current.log"
  # One line per case: result, name (parameterised ones included), its first failure or
  # skip message (lines joined, about 300 characters); a case that started and never
  # ended crashed the binary.
  local cases
  cases=$(awk '/^\[ RUN      \] / {cur = $4; msg = ""; inmsg = 0; next}
               /: (Failure|Skipped)$/ {inmsg = (msg == ""); next}
               /^\[/ {inmsg = 0}
               inmsg && length(msg) < 300 && NF > 0 {msg = msg (msg == "" ? "" : " / ") $0; next}
               /^\[       OK \] / && cur != "" {print "ok\t" cur "\t"; cur = ""; next}
               /^\[  FAILED  \] / && cur != "" {print "failed\t" cur "\t" msg; cur = ""; next}
               /^\[  SKIPPED \] / && cur != "" {print "skipped\t" cur "\t" msg; cur = ""; next}
               END {if (cur != "") print "crashed\t" cur "\t(the binary stopped in this case)"}' "$log")
  local passed failed skipped other_skips
  passed=$(printf '%s\n' "$cases" | grep -c $'^ok\t')
  failed=$(printf '%s\n' "$cases" | grep -cE $'^(failed|crashed)\t')
  skipped=$(printf '%s\n' "$cases" | grep -c $'^skipped\t')
  other_skips=$(printf '%s\n' "$cases" | grep $'^skipped\t' | grep -cvE "$no_device")
  local secs=$((SECONDS - t0)) verdict
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    verdict="FAILED (stopped at its ${limit} s limit)"
  elif [ "$rc" -ne 0 ] || [ "$failed" -gt 0 ]; then
    verdict="FAILED"
  elif [ $((passed + skipped)) -eq 0 ]; then
    verdict="FAILED (no test ran)"
  elif [ "$skipped" -gt 0 ] && [ "$device" -eq 1 ]; then
    verdict="FAILED (cases skipped on a machine with a device)"
  elif [ "$other_skips" -gt 0 ]; then
    verdict="incomplete ($other_skips cases skipped for another reason than the missing device)"
  elif [ "$skipped" -gt 0 ]; then
    verdict="ok without a device"
  else
    verdict="ok"
  fi
  say "- $name: $verdict: $passed passed, $failed failed, $skipped skipped ($secs s)"
  printf '%s\n' "$cases" | awk -F'\t' '$1 == "failed" || $1 == "crashed" {print "  - " $2 ": " $1 ": " $3}' |
    tee -a "$report"
  local skip_lines
  skip_lines=$(printf '%s\n' "$cases" | awk -F'\t' '$1 == "skipped" {print "  - " $2 ": skipped: " $3}')
  if [ "$device" -eq 1 ]; then
    printf '%s\n' "$skip_lines" | grep . | tee -a "$report"
  else  # the other reasons case by case; the missing device's once each, then its cases
    printf '%s\n' "$skip_lines" | grep -vE "$no_device" | grep . | tee -a "$report"
    if [ $((skipped - other_skips)) -gt 0 ]; then
      printf '%s\n' "$skip_lines" | grep -E "$no_device" | sed -E 's/^  - [^ ]+: skipped: //' | sort | uniq -c |
        sed -E 's/^ *([0-9]+) /  - skipped: no device (\1 cases): /' | tee -a "$report"
      printf '%s\n' "$skip_lines" | grep -E "$no_device" | sed -E 's/^  - ([^ ]+): skipped: .*/\1/' | tr '\n' ' ' |
        sed 's/^/  - cases: /; s/ *$//' | tee -a "$report"
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
  timeout -k 10 "$limit" "$@" >"$log" 2>&1 || rc=$?
  { echo "=== $name (exit $rc)"; cat "$log"; } >>"$OUT/phase$current.log"
  local secs=$((SECONDS - t0))
  if [ "$rc" -eq 0 ]; then
    say "- $name: ok ($secs s)$(grep -m1 -E 'instances ok|ok:|instance-steps' "$log" | sed 's/^ */: /')"
  elif [ "$kind" = gpu ] && [ "$device" -eq 0 ] && grep -qE "$no_device" "$log" &&
       ! grep -iE 'error' "$log" | grep -vE 'rows failed:$' | grep -qvE "$no_device"; then
    # Every error is the missing device's (a benchmark's CPU rows ran and are kept; its
    # closing "N of M rows failed:" counts those).
    say "- $name: skipped on the GPU: no device ($(grep -m1 -oE "($no_device)[^.;]*" "$log")); nothing else failed"
  else
    local why="exit $rc"
    { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && why="stopped at its $limit s limit"
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
# with the copied module; it needs that Python's version, pytest and numpy (torch for
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
  local xml="$log.xml"
  PYTHONPATH="$PWD/$build/python" SIMPHANT_CLI="$PWD/$build/simphant" timeout -k 10 240 "$py" -m pytest -v \
    -p no:cacheprovider --junitxml="$xml" tests/python/test_arrays.py >"$log" 2>&1 || rc=$?
  { echo "=== Python GPU test (exit $rc)"; cat "$log"; } >>"$OUT/phase$current.log"
  # Each test that failed or skipped, with its message, from pytest's JUnit XML report.
  local summary skips other failed verdict
  summary=$(grep -E '(passed|failed|skipped|error)' "$log" | tail -1 | sed 's/=//g; s/^ *//; s/ *$//')
  local listed
  listed=$("$py" - "$xml" 2>/dev/null <<'PY'
import sys
import xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    for kind in ("failure", "error", "skipped"):
        e = case.find(kind)
        if e is not None:
            message = " ".join((e.get("message") or e.text or "").split())[:300]
            print(f"{kind}\t{case.get('name')}\t{message}")
PY
)
  skips=$(printf '%s\n' "$listed" | awk -F'\t' '$1 == "skipped" {print "  - " $2 ": skipped: " $3}')
  other=$(printf '%s\n' "$skips" | grep . | grep -vE "$no_device")
  failed=$(printf '%s\n' "$listed" | awk -F'\t' '$1 != "skipped" && NF > 1 {print "  - " $2 ": " $1 ": " $3}')
  rm -f "$xml"
  if [ "$rc" -ne 0 ]; then
    verdict="FAILED"
  elif [ -n "$skips" ] && [ "$device" -eq 1 ]; then
    verdict="FAILED (tests skipped on a machine with a device)"
  elif [ -n "$other" ]; then
    verdict="incomplete (tests skipped for another reason than the missing device)"
  elif [ -n "$skips" ]; then
    verdict="ok without a device"
  else
    verdict="ok"
  fi
  say "- Python GPU test (tests/python/test_arrays.py): $verdict ($((SECONDS - t0)) s): $summary"
  printf '%s\n' "$failed" "$skips" | grep . | tee -a "$report"
  case $verdict in FAILED*) failures=$((failures + 1)) ;; esac
  rm -f "$log"
}

phase2() {
  local t
  for t in "$build"/tests/test_*grid*; do gtest_step "CPU-side kernel tests $(basename "$t")" "$t" 300; done
}

# About 4 minutes on an H200: the suite's --time-limit skips the rows not started after
# 150 s, the robot benchmark's after 50 s; the commands' own limits (300 + 150 + 60 s)
# keep a hang inside one 600 s command.
phase3() {
  local bench_args robot_args
  read -r -a bench_args <<<"${SIMPHANT_BENCH_ARGS:---configs gpu,cpu --cpu-sizes 4096 --min-seconds 0.1 --time-limit 150}"
  run_step gpu 300 "benchmark suite (simphant bench ${bench_args[*]})" "$build/simphant" bench "${bench_args[@]}" \
    --json "$OUT/bench-gpu.json"
  read -r -a robot_args <<<"${SIMPHANT_ROBOT_BENCH_ARGS:---models panda_aba,panda_cga,arm7_aba,arm7_cga --configs cuda64,cuda32,cpu-dense --gpu-sizes 1,4096,262144 --cpu-sizes 4096 --min-seconds 0.05 --time-limit 50}"
  run_step gpu 150 "robot benchmark (simphant bench ${robot_args[*]})" "$build/simphant" bench "${robot_args[@]}" \
    --json "$OUT/bench-robots.json"
  if [ ! -f "$OUT/bench-gpu.json" ]; then
    say "- plots: not made (no bench-gpu.json)"
  elif ! python3 -c "import matplotlib" 2>/dev/null; then
    say "- plots: not made (python3 has no matplotlib)"
  else
    local plots
    plots=$(mktemp -d)
    run_step any 60 "plots (bench/plot_bench.py)" python3 bench/plot_bench.py "$OUT/bench-gpu.json" --out "$plots"
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
