"""Set-up shared by the Pinocchio cross-checks (tests/pinocchio_check.py,
pinocchio_urdf_check.py, pinocchio_floating_check.py, pinocchio_inertia_check.py).

Each check runs as `python3 <script> <dump binary> ...` under ctest with
SKIP_RETURN_CODE 77: it exits 77 (skipped) when pinocchio or example-robot-data is not
importable (pip install pin example-robot-data), 2 when the dump tool fails, 1 on a
mismatch and 0 when everything agrees.

The robots folder is $SIMPHANT_ROBOT_DATA when set, else example-robot-data's
`robots` folder (the cmeel wheel's share/example-robot-data/robots).
"""
import json
import os
import subprocess
import sys

SKIP_RETURN_CODE = 77


def robots_dir():
    """The example-robot-data robots folder, or "" when there is none."""
    if os.environ.get("SIMPHANT_ROBOT_DATA"):
        return os.environ["SIMPHANT_ROBOT_DATA"]
    try:
        import importlib.metadata as m
        d = str(m.distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots"))
    except Exception:
        return ""
    return d if os.path.isdir(d) else ""


def prerequisites():
    """(numpy, pinocchio, robots folder), or None after printing why the check is skipped
    (the caller then returns SKIP_RETURN_CODE)."""
    try:
        import numpy as np
        import pinocchio as pin
    except ImportError as e:
        print(f"SKIP: pinocchio is not importable ({e}); pip install pin")
        return None
    rdir = robots_dir()
    if not rdir:
        print("SKIP: example-robot-data is not installed; pip install example-robot-data")
        return None
    return np, pin, rdir


def run(check, doc, max_args=None):
    """A check script's entry (sys.exit(run(main, __doc__))): prints doc and returns 2
    without arguments (or more than max_args), returns SKIP_RETURN_CODE when
    prerequisites() fails, else check(args, numpy, pinocchio, robots folder) with args
    the script's arguments (sys.argv[1:])."""
    args = sys.argv[1:]
    if not args or (max_args is not None and len(args) > max_args):
        print(doc)
        return 2
    found = prerequisites()
    if found is None:
        return SKIP_RETURN_CODE
    return check(args, *found)


def tolerance(args, default=1e-10):
    """The value after `--tol` in args, else default."""
    return float(args[args.index("--tol") + 1]) if "--tol" in args else default


def run_dump(argv, out):
    """Runs the dump tool (argv, which writes JSON to the file out) and returns the parsed
    JSON, or None after printing the failure (the caller then returns 2)."""
    rc = subprocess.call(argv)
    if rc != 0:
        print(f"FAIL: {argv[0]} exited with {rc}")
        return None
    with open(out) as f:
        return json.load(f)


def load_model(pin, urdf, free_flyer=False, **kwargs):
    """pinocchio.buildModelFromUrdf(urdf[, JointModelFreeFlyer()], **kwargs): the robot
    with a free-flyer root joint when free_flyer, else as the URDF has it."""
    if free_flyer:
        return pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer(), **kwargs)
    return pin.buildModelFromUrdf(urdf, **kwargs)


def gravity_matches(model, robot):
    """True when Pinocchio's gravity equals the dump's robot["gravity"] (m/s^2, to 1e-15);
    else prints the mismatch and returns False."""
    import numpy as np
    if np.allclose(model.gravity.linear, robot["gravity"], rtol=0, atol=1e-15):
        return True
    print(f"FAIL {robot['name']}: gravity {model.gravity.linear} vs ours {robot['gravity']}")
    return False


def set_joint_positions(q, joints, values):
    """Writes our joint positions `values` (one per joint of `joints`, Pinocchio joint
    models) into Pinocchio's configuration q: a continuous joint (nq = 2) as (cos, sin)."""
    import numpy as np
    for k, j in enumerate(joints):
        if j.nq == 2:  # continuous: (cos, sin)
            q[j.idx_q], q[j.idx_q + 1] = np.cos(values[k]), np.sin(values[k])
        else:
            q[j.idx_q] = values[k]


def rel_err(ours, ref):
    """max |ours - ref| / max(1, max |ref|); inf when either holds a NaN or an infinity
    (a NaN must fail, not vanish in max())."""
    import numpy as np
    ours, ref = np.asarray(ours, dtype=float), np.asarray(ref, dtype=float)
    if not (np.isfinite(ours).all() and np.isfinite(ref).all()):
        return float("inf")
    return float(np.max(np.abs(ours - ref)) / max(1.0, np.max(np.abs(ref))))


def report(label, worst, tol):
    """Prints "ok   <label>: <key> <error>, ..." (or FAIL when an error in the dict worst
    exceeds tol) and returns whether all are within tol."""
    line = ", ".join(f"{k} {e:.2e}" for k, e in worst.items())
    bad = any(e > tol for e in worst.values())
    print(f"{'FAIL' if bad else 'ok  '} {label}: {line}")
    return not bad
