#!/usr/bin/env bash
# Set-up (scripts/setup.sh), then every test: the C++ suites (ctest) and the Python
# package's suite (pytest tests/python, against the module in build/python). Both run
# even when the first fails; the exit status is non-zero when either fails. The last
# line printed is the summary of both, e.g.
#   "tests: ctest 100% tests passed, 0 tests failed out of 40; pytest 95 passed, 3 skipped"
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
log=build/ctest.log
set +e
ctest --test-dir build --output-on-failure -j2 2>&1 | tee "$log"
ctest_rc=${PIPESTATUS[0]}
set -e
ctest_summary=$(grep -E '[0-9]+% tests passed' "$log" | tail -n 1 || true)
skipped=$(grep -cE '^\s+[0-9]+ - .*\(Skipped\)' "$log" || true)
if [ "${skipped:-0}" -gt 0 ]; then
  echo "ctest: $skipped tests skipped (GPU tests without a CUDA device; robot tests without example-robot-data / pin; the scene schema test without jsonschema)"
fi

pylog=build/pytest.log
set +e
PYTHONPATH="$PWD/build/python${PYTHONPATH:+:$PYTHONPATH}" SIMPHANT_CLI="$PWD/build/simphant" \
  python3 -m pytest tests/python -rs -p no:cacheprovider 2>&1 | tee "$pylog"
pytest_rc=${PIPESTATUS[0]}
set -e
pytest_summary=$(grep -E '^=+ .*(passed|failed|error).* =+$' "$pylog" | tail -n 1 | sed -E 's/^=+ //; s/ =+$//' || true)

echo "tests: ctest ${ctest_summary:-no summary (exit status $ctest_rc)}; pytest ${pytest_summary:-no summary (exit status $pytest_rc)}"
[ "$ctest_rc" -eq 0 ] && [ "$pytest_rc" -eq 0 ]
