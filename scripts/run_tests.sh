#!/usr/bin/env bash
# Set-up (scripts/setup.sh), then every test. The last line printed is ctest's pass
# count ("100% tests passed, 0 tests failed out of N"); the exit status is ctest's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
log=build/ctest.log
set +e
ctest --test-dir build --output-on-failure -j2 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
summary=$(grep -E '[0-9]+% tests passed' "$log" | tail -n 1 || true)
skipped=$(grep -cE '^\s+[0-9]+ - .*\(Skipped\)' "$log" || true)
if [ "${skipped:-0}" -gt 0 ]; then
  echo "ctest: $skipped tests skipped (GPU tests without a CUDA device; robot tests without example-robot-data / pin; the scene schema test without jsonschema)"
fi
echo "${summary:-ctest: no test summary (exit status $rc)}"
exit "$rc"
