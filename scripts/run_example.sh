#!/usr/bin/env bash
# The main job on a shipped example: set-up of what the run needs (scripts/setup.sh: the
# build packages, h5py and numpy; the library and the CLI only), then 1000 perturbed
# copies of a crank-rocker four-bar, written to ./four_bar.h5, with the summary printed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh --target simphant
./build/simphant run examples/four_bar.json --instances 1000 --out four_bar.h5
