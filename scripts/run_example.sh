#!/usr/bin/env bash
# Set-up (scripts/setup.sh), then the main job on a shipped example: 1000 perturbed
# copies of a crank-rocker four-bar, written to ./four_bar.h5, with the summary printed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
./build/simphant run examples/four_bar.json --instances 1000 --out four_bar.h5
