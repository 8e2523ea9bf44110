#!/usr/bin/env python3
"""The slowest build steps of a Ninja build folder, from its .ninja_log (the newest entry
of each output), in seconds of one core.

  ninja_slowest.py BUILD_DIR [N]     N slowest steps (default 25) and the sum of all steps
"""
import os
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build, n = argv[1], int(argv[2]) if len(argv) > 2 else 25
    steps = {}
    with open(os.path.join(build, ".ninja_log")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 4:
                steps[parts[3]] = (int(parts[1]) - int(parts[0])) / 1000.0
    total = sum(steps.values())
    print(f"build {build}: {len(steps)} steps, {total:.0f} s of one core in all; the {min(n, len(steps))} slowest:")
    for out, s in sorted(steps.items(), key=lambda kv: -kv[1])[:n]:
        print(f"  {s:7.1f} s  {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
