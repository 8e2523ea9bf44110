#!/usr/bin/env python3
"""Robot scenes of Panda, UR5 and xArm7 for the benchmarks (bench/mujoco_compare.py,
bench/robot_bench.sh): the URDFs of the pip package example-robot-data, by absolute path
(so that MuJoCo, which does not know SimPhant's `example-robot-data:` prefix, reads the
same file).

  Panda: examples/panda.json (ready pose, 0.3 rad/s on the arm joints, fingers at rest),
  UR5, xArm7: q0 = 0, 0.3 rad/s on every joint;
  all: tau = 0, gravity (0, 0, -9.81) m/s^2, solver aba, dt 1e-3 s, t_end 1 s, and
  robot.urdf_dynamics all off (no joint limits, damping, friction or mimic: docs/robots.md),
  as MuJoCo runs in the side by side and as Pinocchio's aba computes.

`simphant bench --examples FOLDER --models panda_aba,ur5_aba,xarm7_aba` then times their
joint-space form, --models panda,ur5,xarm7 their maximal DAE form.

Usage: robot_scenes.py OUT_FOLDER [--examples examples/]   (prints the scene stems written;
exit 77 when example-robot-data is missing)
"""
import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

ROBOT_URDFS = {"panda": "panda_description/urdf/panda.urdf", "ur5": "ur_description/urdf/ur5_robot.urdf",
               "xarm7": "xarm_description/urdf/xarm7.urdf"}


def example_robot_data_dir():
    """The robots/ folder of the pip package example-robot-data, or None."""
    try:
        import importlib.metadata as md
        p = str(md.distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots"))
    except Exception:  # noqa: BLE001 - not installed, or an unusual layout
        return None
    return p if os.path.isdir(p) else None


def moving_joints(urdf):
    """Count of the URDF's joints that are not fixed (comments dropped first: a comment
    holding "--" is accepted by urdfdom but not by Python's parser)."""
    with open(urdf) as f:
        root = ET.fromstring(re.sub(r"<!--.*?-->", "", f.read(), flags=re.S))
    return sum(1 for j in root.findall("joint") if j.get("type") != "fixed")


def write_robot_scenes(examples, folder):
    """Writes FOLDER/<robot>.json for the robots whose URDF is present. Returns (names,
    None) or ([], reason)."""
    robots = example_robot_data_dir()
    if robots is None:
        return [], "example-robot-data is not installed (python3 -m pip install example-robot-data)"
    os.makedirs(folder, exist_ok=True)
    names = []
    for name, rel in ROBOT_URDFS.items():
        urdf = os.path.join(robots, rel)
        if not os.path.isfile(urdf):
            continue
        panda = os.path.join(examples, "panda.json")
        if name == "panda" and os.path.isfile(panda):
            with open(panda) as f:
                scene = json.load(f)
            scene.pop("sweep", None)
        else:
            n = moving_joints(urdf)
            scene = {"robot": {"q0": [0.0] * n, "qd0": [0.3] * n, "tau": [0.0] * n, "gravity": [0.0, 0.0, -9.81]},
                     "solver": {"type": "aba", "dt": 0.001, "t_end": 1.0}}
        scene["name"] = f"{name} (example-robot-data): the benchmarks' robot scene"
        scene["robot"]["urdf"] = urdf
        scene["robot"]["urdf_dynamics"] = {"limits": False, "damping": False, "friction": False, "mimic": False}
        scene["solver"]["record_every"] = 10
        with open(os.path.join(folder, name + ".json"), "w") as f:
            json.dump(scene, f, indent=1)
        names.append(name)
    return names, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--examples", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
    a = ap.parse_args()
    names, why = write_robot_scenes(a.examples, a.out)
    if why:
        print(f"SKIP: {why}", file=sys.stderr)
        return 77
    print("\n".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
