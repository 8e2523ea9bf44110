#!/usr/bin/env python3
"""Solo-12 standing on four foot spheres, SimPhant beside MuJoCo on one core
(docs/benchmarks.md, "Contact: Solo-12 on the ground"; docs/contact.md, "Contact in joint
coordinates").

The robot is examples/solo12_stand.json: Solo-12 from example-robot-data, a floating
base, a 16 mm sphere on each foot that touches the ground only, every joint held at the
standing pose by a servo (kp 6 N m/rad, kd 0.2 N m s/rad), RK4 at dt = 1e-4 s.
  * MuJoCo: the same URDF with its meshes removed (<compiler discardvisual
    fusestatic="false" inertiafromgeom="false">, so the URDF's inertials are the model's),
    a free joint on the base, a ground plane, the four spheres on the *_FOOT bodies
    (contype 1, conaffinity 0; friction 0.9), the servos as joint springs (stiffness kp,
    springref the target, damping kd: the same force inside the effort limit), joint
    limits off, RK4 at the same dt. Its contact is MuJoCo's soft constraint (default
    solref / solimp, pyramidal cone, Newton solver), not SimPhant's compliant law: the
    robots stand alike, the contact forces are not the same function.
    Timed by MuJoCo's own C loop (bench/mujoco_step_loop, built against the pip wheel by
    bench/build_mujoco_step_loop.sh) from the example's initial pose.
  * SimPhant: `simphant bench` one thread (cpu1-dense and cpu1-sparse, the better kept)
    at --instances instances of three scenes written to a temporary examples folder: the
    example in joint coordinates (solo12_stand_aba), the same without contact (its
    `contact` section and the robot's shapes removed: the robot falls freely, which costs
    the same per step as standing without contact), and the example itself in maximal
    coordinates (solver dae); and the two joint-space scenes in SIMD lanes (cpu1-simd, one
    thread, --lane-instances instances: groups of 8 in lanes, the contact pairs evaluated
    one lane at a time).
The runs are interleaved, --repeats rounds; medians. Ratios: SimPhant's instance-steps/s
over MuJoCo's steps/s, and the contact's cost (aba without contact over aba with it).

Usage: solo12_contact_bench.py [--simphant build/simphant] [--repeats 3]
                               [--min-seconds 0.3] [--instances 1] [--lane-instances 64]
                               [--json OUT]
Exit 77 when mujoco, example-robot-data or the C loop is missing.
"""
import argparse
import copy
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from mujoco_models import urdf_xml_for_mujoco  # noqa: E402
from robot_scenes import example_robot_data_dir  # noqa: E402

JOINTS = [f"{leg}_{j}" for leg in ("FL", "FR", "HL", "HR") for j in ("HAA", "HFE", "KFE")]


def mujoco_solo(scene):
    """MuJoCo's model of the example's robot (module docstring) and its initial qpos."""
    import mujoco
    robot = scene["robot"]
    rel = robot["urdf"].split(":", 1)[1]  # "example-robot-data:<path under its robots/ folder>"
    xml = urdf_xml_for_mujoco(os.path.join(example_robot_data_dir(), rel), {"inertiafromgeom": "false"})
    spec = mujoco.MjSpec.from_string(xml)
    spec.body("base_link").add_freejoint()
    mat = scene["contact"]["materials"]["default"]
    mu = [mat["friction"], 0.005, 0.0001]
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1], contype=1, conaffinity=1, friction=mu)
    for link, shape in robot["collision"].items():
        spec.body(link).add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[shape["radius"], 0, 0], contype=1,
                                 conaffinity=0, friction=mu)
    m = spec.compile()
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = scene["solver"]["dt"]
    m.opt.gravity[:] = [0, 0, -9.81]
    q0 = robot["q0"]
    for k, name in enumerate(JOINTS):
        servo = robot["servos"][name]
        j = m.joint(name)
        m.jnt_stiffness[j.id] = servo["kp"]
        m.qpos_spring[j.qposadr[0]] = servo["target"]
        m.dof_damping[j.dofadr[0]] = servo["kd"]
        m.jnt_limited[j.id] = 0
    qpos = list(robot["base"]["position"]) + [1.0, 0.0, 0.0, 0.0] + [float(q0[JOINTS.index(j.name)]) for j in
                                                                     (m.joint(n) for n in JOINTS)]
    return m, qpos


def scenes(example, folder):
    """The three scenes of the SimPhant side, written to `folder` (module docstring)."""
    base = copy.deepcopy(example)
    base.pop("sweep", None)
    with open(os.path.join(folder, "solo12_stand.json"), "w") as f:
        json.dump(base, f)
    free = copy.deepcopy(base)
    free.pop("contact")
    free["robot"].pop("collision")
    with open(os.path.join(folder, "solo12_free.json"), "w") as f:
        json.dump(free, f)


def simphant_rates(args, folder, models, configs, instances, suffix=""):
    """instance-steps/s per model (name + suffix) of one `simphant bench` run (the best of
    `configs`)."""
    out = os.path.join(folder, "bench.json")
    cmd = [args.simphant, "bench", "--examples", folder, "--models", ",".join(models), "--configs", configs,
           "--cpu-sizes", str(instances), "--min-seconds", repr(args.min_seconds), "--no-cpu-peak", "--json", out]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    rates = {}
    for row in json.load(open(out))["rows"]:
        if row.get("status", "ok") != "ok":
            continue
        key = row["model"] + suffix
        rates[key] = max(rates.get(key, 0.0), row["instance_steps_per_s"])
    return rates


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--simphant", default=os.path.join(ROOT, "build", "simphant"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--min-seconds", type=float, default=0.3)
    ap.add_argument("--instances", type=int, default=1)
    ap.add_argument("--lane-instances", type=int, default=64)
    ap.add_argument("--json")
    args = ap.parse_args()
    try:
        import mujoco
    except ImportError:
        print("SKIP: the python package mujoco is not installed", file=sys.stderr)
        return 77
    if example_robot_data_dir() is None:
        print("SKIP: example-robot-data is not installed", file=sys.stderr)
        return 77
    build = subprocess.run(["bash", os.path.join(HERE, "build_mujoco_step_loop.sh")], capture_output=True, text=True,
                           cwd=ROOT)
    if build.returncode != 0:
        print(build.stderr, file=sys.stderr)
        return 77
    step_loop = os.path.join(ROOT, build.stdout.strip())
    example = json.load(open(os.path.join(ROOT, "examples", "solo12_stand.json")))
    m, qpos = mujoco_solo(example)
    with tempfile.TemporaryDirectory() as tmp:
        scenes(example, tmp)
        mjb = os.path.join(tmp, "solo12.mjb")
        mujoco.mj_saveModel(m, mjb, None)
        loop = [step_loop, mjb, "--qpos", ",".join(repr(float(v)) for v in qpos), "--repeats", "1"]
        steps = json.loads(subprocess.run(loop + ["--steps", "0", "--min-seconds", repr(args.min_seconds)],
                                          check=True, capture_output=True, text=True).stdout)["steps"]
        mj_rates, sp_rates = [], []
        for _ in range(args.repeats):
            r = json.loads(subprocess.run(loop + ["--steps", str(steps)], check=True, capture_output=True,
                                          text=True).stdout)
            mj_rates.append(r["steps_per_s_median"])
            rates = simphant_rates(args, tmp, ["solo12_stand_aba", "solo12_free_aba", "solo12_stand"],
                                   "cpu1-dense,cpu1-sparse", args.instances)
            rates.update(simphant_rates(args, tmp, ["solo12_stand_aba", "solo12_free_aba"], "cpu1-simd",
                                        args.lane_instances, "_lanes"))
            sp_rates.append(rates)
    med = {k: statistics.median(r[k] for r in sp_rates) for k in sp_rates[0]}
    mj = statistics.median(mj_rates)
    report = {
        "machine": platform.processor() or platform.machine(),
        "mujoco_version": mujoco.__version__,
        "repeats": args.repeats,
        "instances": args.instances,
        "lane_instances": args.lane_instances,
        "mujoco_c_loop_steps_per_s": mj,
        "simphant_instance_steps_per_s": med,
        "ratios": {
            "aba_over_mujoco": med["solo12_stand_aba"] / mj,
            "dae_over_mujoco": med["solo12_stand"] / mj,
            "aba_without_over_with_contact": med["solo12_free_aba"] / med["solo12_stand_aba"],
            "aba_over_dae": med["solo12_stand_aba"] / med["solo12_stand"],
            "aba_lanes_over_mujoco": med["solo12_stand_aba_lanes"] / mj,
            "aba_lanes_over_aba": med["solo12_stand_aba_lanes"] / med["solo12_stand_aba"],
            "aba_lanes_without_over_with_contact": med["solo12_free_aba_lanes"] / med["solo12_stand_aba_lanes"],
        },
    }
    print("| one core, RK4, dt 1e-4 s | steps/s | ratio to MuJoCo |")
    print("|---|---|---|")
    print(f"| MuJoCo {mujoco.__version__} C loop, 4 foot spheres | {mj:.3g} | 1 |")
    for name, label in (("solo12_stand_aba", "SimPhant aba, 4 foot spheres"),
                        ("solo12_free_aba", "SimPhant aba, no contact"),
                        ("solo12_stand", "SimPhant dae, 4 foot spheres"),
                        ("solo12_stand_aba_lanes", f"SimPhant aba in SIMD lanes ({args.lane_instances} instances), "
                                                   "4 foot spheres"),
                        ("solo12_free_aba_lanes", "SimPhant aba in SIMD lanes, no contact")):
        print(f"| {label} | {med[name]:.3g} | {med[name] / mj:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
