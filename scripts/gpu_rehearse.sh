#!/usr/bin/env bash
# Rehearses the GPU check on a machine without a GPU (docs/gpu-check.md): copies the
# checkout as the GPU machine receives it (tracked and untracked-but-not-ignored files)
# with .gpu-prebuilt alone into a fresh folder, moves the folder that scripts/gpu_prepare.sh
# built in aside for the time (the check links that path to its checkout, as on the GPU
# machine), and runs the phases there. Each GPU case must then report "skipped: no
# device" by name, the CPU-side kernel tests must pass, and the report must be complete.
#
#   bash scripts/gpu_rehearse.sh [PHASE...]   # default 1 2 3; the report in gpu-rehearsal-out/
# Environment: SIMPHANT_GPU_PYTHON, a Python 3.12 with pytest and numpy for the Python step.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
phases=${*:-1 2 3}
[ -f .gpu-prebuilt/manifest.txt ] || { echo "no .gpu-prebuilt: run scripts/gpu_prepare.sh first" >&2; exit 2; }
src=$(sed -n 's/^source: //p' .gpu-prebuilt/manifest.txt)
tree=$(mktemp -d /tmp/gpu-rehearsal.XXXXXX)
out=$PWD/gpu-rehearsal-out
rm -rf "$out" && mkdir -p "$out"
git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | (cd "$tree" && tar -xf -)
cp -r .gpu-prebuilt "$tree/"
# One prepare or rehearsal at a time on this machine (they share $src).
exec 9>"$(dirname "$src")/.lock"
flock -n 9 || { echo "gpu_rehearse: another prepare or rehearsal holds $(dirname "$src")/.lock" >&2; exit 2; }
aside=""
if [ -e "$src" ] && [ ! -L "$src" ]; then
  aside="$src.aside-$$"
  mv "$src" "$aside"
fi
# shellcheck disable=SC2317  # called by the EXIT trap
restore() {
  [ -L "$src" ] && rm -f "$src"
  [ -n "$aside" ] && mv "$aside" "$src"
  rm -rf "$tree"
}
trap restore EXIT
rc=0
for p in $phases; do
  t0=$SECONDS
  prc=0
  OUT=$out bash "$tree/scripts/gpu_check.sh" "$p" >/dev/null || prc=$?
  echo "phase $p: $((SECONDS - t0)) s here (exit $prc)"
  [ "$prc" -eq 0 ] || rc=$prc
done
cat "$out/gpu-check.md"
exit "$rc"
