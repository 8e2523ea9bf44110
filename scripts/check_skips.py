#!/usr/bin/env python3
"""Skipped tests against the allow-list tests/skip_allow_list.txt.

  check_skips.py ctest-log LOG   prints one line per test that ctest skipped,
                                 "ctest<TAB>name<TAB>reason", reading LOG (ctest's output)
                                 and the reasons from Testing/Temporary/LastTest.log of the
                                 build folder LOG lies in
  check_skips.py check FILE      reads such lines (pytest's come from tests/python/conftest.py)
                                 and prints each skip with its reason; a skip that no line
                                 of the allow-list matches is unexpected. Exit status: 1 when
                                 there is an unexpected skip and CI is set (and not "false"),
                                 else 0.

An allow-list line is "RUNNER REGEX REASON...": RUNNER ctest or pytest, REGEX (Python re,
searched in the test's name: ctest's name, pytest's node id) without spaces, then why that
test may skip in CI. Blank lines and lines starting with # are ignored.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALLOW_LIST = os.path.join(ROOT, "tests", "skip_allow_list.txt")


def in_ci():
    return os.environ.get("CI", "") not in ("", "false", "0")


def ctest_skips(log):
    """(name, reason) of each test ctest lists as skipped in LOG."""
    names = []
    with open(log, errors="replace") as f:
        for line in f:
            m = re.match(r"^\s+\d+ - (.+) \(Skipped\)\s*$", line)
            if m:
                names.append(m.group(1))
    reasons = {}
    last = os.path.join(os.path.dirname(os.path.abspath(log)), "Testing", "Temporary", "LastTest.log")
    if os.path.exists(last):
        # Each test's section starts with "N/M Testing: NAME"; GoogleTest prints the
        # skip's message on the line after "...: Skipped"; a script's own line "SKIP..." too.
        current, text = None, open(last, errors="replace").read()
        for line in text.splitlines():
            m = re.match(r"^\d+/\d+ Testing: (.+)$", line)
            if m:
                current, expect = m.group(1).strip(), False
                continue
            if current is None or current in reasons:
                continue
            if expect and line.strip():
                reasons[current] = line.strip()
            elif line.rstrip().endswith(": Skipped"):
                expect = True
            elif re.match(r"^(SKIP|skipped)\b", line.strip()):
                reasons[current] = line.strip()
    return [(n, reasons.get(n, "")) for n in names]


def read_allow_list():
    rules = []
    with open(ALLOW_LIST) as f:
        for k, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[0] not in ("ctest", "pytest"):
                sys.exit(f"{ALLOW_LIST}:{k}: expected 'ctest|pytest REGEX REASON', got {line!r}")
            rules.append((parts[0], re.compile(parts[1]), parts[2]))
    return rules


def check(path):
    skips = []
    if os.path.exists(path):
        with open(path, errors="replace") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 2:
                    skips.append((parts[0], parts[1], parts[2] if len(parts) > 2 else ""))
    rules = read_allow_list()
    unexpected = []
    for runner, name, reason in skips:
        allowed = next((why for r, rx, why in rules if r == runner and rx.search(name)), None)
        if allowed is None:
            unexpected.append((runner, name, reason))
    print(f"skipped: {len(skips)} tests, {len(skips) - len(unexpected)} of them on tests/skip_allow_list.txt")
    for runner, name, reason in unexpected:
        print(f"  unexpected skip ({runner}): {name}: {reason or 'no reason given'}")
    if unexpected and in_ci():
        print(f"skipped: {len(unexpected)} skips not on tests/skip_allow_list.txt fail the run under CI")
        return 1
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "ctest-log":
        for name, reason in ctest_skips(argv[2]):
            print(f"ctest\t{name}\t{reason}")
        return 0
    if len(argv) == 3 and argv[1] == "check":
        return check(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
