#!/usr/bin/env bash
# Set-up (scripts/setup.sh: build packages and every target; scripts/setup_tests.sh: the
# packages only the tests need), then every test: the C++ suites (ctest) and the Python
# package's suite (pytest tests/python, against the module in build/python). Both run
# even when the first fails; the exit status is non-zero when either fails. Under CI (CI
# set and not "false") a skipped test that tests/skip_allow_list.txt does not list fails
# the run (scripts/check_skips.py). SIMPHANT_SETUP_DONE=1: the set-up already ran (.ci/run).
# The last lines printed are each runner's summary and the totals of both, e.g.
#   ctest: 100% tests passed, 0 tests failed out of 40
#   pytest: 95 passed, 3 skipped in 61.2s
#   tests: 125 passed, 0 failed, 13 skipped
# and the seconds each part took (with .ci/run's steps before it, SIMPHANT_CI_STEP_SECONDS).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
start=$SECONDS
if [ -z "${SIMPHANT_SETUP_DONE:-}" ]; then
  bash scripts/setup.sh
  bash scripts/setup_tests.sh
fi
setup_s=$((SECONDS - start))
skips=build/skipped_tests.txt
rm -f "$skips"
log=build/ctest.log
start=$SECONDS
set +e
ctest --test-dir build --output-on-failure -j2 2>&1 | tee "$log"
ctest_rc=${PIPESTATUS[0]}
set -e
ctest_s=$((SECONDS - start))
ctest_summary=$(grep -E '[0-9]+% tests passed' "$log" | tail -n 1 || true)
skipped=$(grep -cE '^\s+[0-9]+ - .*\(Skipped\)' "$log" || true)
python3 scripts/check_skips.py ctest-log "$log" >>"$skips"

pylog=build/pytest.log
# One test file per worker, as many workers as cores (pytest-xdist, when installed): a
# file's tests share its module fixtures (a Slurm cluster, a Ray cluster, a browser) and
# most wait on subprocesses and servers, so two cores run the suite in about half the time.
parallel=()
if python3 -c 'import xdist' >/dev/null 2>&1; then parallel=(-n auto --dist loadfile); fi
start=$SECONDS
set +e
PYTHONPATH="$PWD/build/python${PYTHONPATH:+:$PYTHONPATH}" SIMPHANT_CLI="$PWD/build/simphant" \
  SIMPHANT_SKIPPED_TESTS="$PWD/$skips" python3 -m pytest tests/python "${parallel[@]}" -rs -p no:cacheprovider \
  --durations=15 2>&1 | tee "$pylog"
pytest_rc=${PIPESTATUS[0]}
set -e
pytest_s=$((SECONDS - start))
pytest_summary=$(grep -E '^=+ .*(passed|failed|error).* =+$' "$pylog" | tail -n 1 | sed -E 's/^=+ //; s/ =+$//' || true)

# Totals over both runners (ctest counts a skipped test among the passed ones).
count() { echo "$1" | grep -oE "[0-9]+ $2" | head -n 1 | grep -oE '^[0-9]+' || echo 0; }
ctest_total=$(echo "$ctest_summary" | grep -oE 'out of [0-9]+' | grep -oE '[0-9]+' || echo 0)
ctest_failed=$(echo "$ctest_summary" | grep -oE '[0-9]+ tests failed' | grep -oE '^[0-9]+' || echo 0)
passed=$((ctest_total - ctest_failed - ${skipped:-0} + $(count "$pytest_summary" passed)))
failed=$((ctest_failed + $(count "$pytest_summary" failed) + $(count "$pytest_summary" error)))
skipped_all=$((${skipped:-0} + $(count "$pytest_summary" skipped)))
[ "$ctest_rc" -eq 0 ] || [ "$ctest_failed" -gt 0 ] || failed=$((failed + 1))  # ctest failed without a count
[ "$pytest_rc" -eq 0 ] || [ -n "$pytest_summary" ] || failed=$((failed + 1))

# Every skip with its reason; under CI one that the allow-list does not name is a failure.
skips_rc=0
python3 scripts/check_skips.py check "$skips" || skips_rc=$?
[ "$skips_rc" -eq 0 ] || failed=$((failed + 1))

echo "ctest: ${ctest_summary:-no summary (exit status $ctest_rc)}"
echo "pytest: ${pytest_summary:-no summary (exit status $pytest_rc)}"
echo "tests: $passed passed, $failed failed, $skipped_all skipped"
echo "seconds:${SIMPHANT_CI_STEP_SECONDS:+$SIMPHANT_CI_STEP_SECONDS,} set-up and build $setup_s s, ctest $ctest_s s, pytest $pytest_s s"
[ "$ctest_rc" -eq 0 ] && [ "$pytest_rc" -eq 0 ] && [ "$skips_rc" -eq 0 ]
