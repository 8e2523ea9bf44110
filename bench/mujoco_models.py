"""The MuJoCo side of SimPhant's side-by-side benchmarks (bench/mujoco_compare.py,
bench/mjx_panda_bench.py, bench/mujoco_warp_bench.py; docs/benchmarks.md "MuJoCo"): a URDF
loaded in MuJoCo and checked against its own inertials, frames and axes, the model
configured as SimPhant runs it (RK4, constraints off), rollouts from a state, the four-bar
as MJCF, and the robot scenes of a `simphant bench --export` folder. A library: the
scripts import it, it runs nothing itself. mujoco is imported where it is needed."""
import json
import math
import os
import re
import xml.etree.ElementTree as ET

import numpy as np

#: Tolerance of the check of a MuJoCo model against its URDF.
TOL = 1e-9


# ---------------------------------------------------------------------------- math
def rpy_matrix(rpy):
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx  # URDF: fixed-axis roll, pitch, yaw


def quat_matrix(q):
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def matrix_quat(R):
    import mujoco
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.ascontiguousarray(R).reshape(9))
    return q


def wrap(a):
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


def vec(s, default):
    return np.array([float(v) for v in s.split()]) if s is not None else np.array(default, float)


# ---------------------------------------------------------------------------- URDF
def read_urdf_root(path):
    """The URDF's root element. Comments are dropped first: a comment holding "--" (not
    well-formed XML, but accepted by urdfdom / TinyXML) would stop Python's parser."""
    with open(path) as f:
        text = re.sub(r"<!--.*?-->", "", f.read(), flags=re.S)
    return ET.fromstring(text)


def parse_urdf(path):
    root = read_urdf_root(path)
    links, joints = {}, []
    for el in root.findall("link"):
        inert = el.find("inertial")
        if inert is None:
            links[el.get("name")] = None
            continue
        o = inert.find("origin")
        xyz = vec(o.get("xyz") if o is not None else None, [0, 0, 0])
        rpy = vec(o.get("rpy") if o is not None else None, [0, 0, 0])
        I = inert.find("inertia")
        g = lambda k: float(I.get(k, 0))
        Iu = np.array([[g("ixx"), g("ixy"), g("ixz")], [g("ixy"), g("iyy"), g("iyz")], [g("ixz"), g("iyz"), g("izz")]])
        R = rpy_matrix(rpy)
        links[el.get("name")] = {"mass": float(inert.find("mass").get("value")), "com": xyz, "inertia": R @ Iu @ R.T}
    for el in root.findall("joint"):
        o = el.find("origin")
        ax = el.find("axis")
        axis = vec(ax.get("xyz") if ax is not None else None, [1, 0, 0])
        joints.append({"name": el.get("name"), "type": el.get("type"), "parent": el.find("parent").get("link"),
                       "child": el.find("child").get("link"),
                       "xyz": vec(o.get("xyz") if o is not None else None, [0, 0, 0]),
                       "R": rpy_matrix(vec(o.get("rpy") if o is not None else None, [0, 0, 0])),
                       "axis": axis / np.linalg.norm(axis)})
    return links, joints


def urdf_xml_for_mujoco(urdf_path, compiler=None):
    """The URDF's text for MuJoCo: its geometry removed (its meshes need not load; the
    callers add the shapes they compare), and a <mujoco><compiler> that keeps every link
    a body with the URDF's own inertials; `compiler` adds or overrides attributes."""
    root = read_urdf_root(urdf_path)
    for old in root.findall("mujoco"):
        root.remove(old)
    for link in root.findall("link"):
        for el in link.findall("visual") + link.findall("collision"):
            link.remove(el)
    mj = ET.Element("mujoco")
    attrs = {"discardvisual": "true", "fusestatic": "false", "balanceinertia": "false", "strippath": "false"}
    attrs.update(compiler or {})
    ET.SubElement(mj, "compiler", attrs)
    root.insert(0, mj)
    return ET.tostring(root, encoding="unicode")


def load_urdf_in_mujoco(urdf_path):
    import mujoco
    return mujoco.MjModel.from_xml_string(urdf_xml_for_mujoco(urdf_path))  # contacts are off: no geometry


def check_model_against_urdf(m, urdf_path):
    """Assert MuJoCo's inertials / frames / axes are the URDF's; return the largest deviations."""
    import mujoco
    links, joints = parse_urdf(urdf_path)
    dev = {"mass": 0.0, "com": 0.0, "inertia": 0.0, "frame": 0.0, "axis": 0.0}
    names = [m.body(i).name for i in range(m.nbody)]
    for lname, inert in links.items():
        assert lname in names, f"URDF link {lname} is not a MuJoCo body (bodies: {names})"
        b = names.index(lname)
        mass, com = (inert["mass"], inert["com"]) if inert else (0.0, np.zeros(3))
        I = inert["inertia"] if inert else np.zeros((3, 3))
        Rm = quat_matrix(m.body_iquat[b])
        Im = Rm @ np.diag(m.body_inertia[b]) @ Rm.T
        dev["mass"] = max(dev["mass"], abs(m.body_mass[b] - mass))
        dev["com"] = max(dev["com"], np.max(np.abs(m.body_ipos[b] - com)) if mass > 0 else 0.0)
        scale = max(np.max(np.abs(I)), 1e-300) if inert else 1.0  # relative to the largest entry
        dev["inertia"] = max(dev["inertia"], np.max(np.abs(Im - I)) / scale)
    for j in joints:
        b = names.index(j["child"])
        assert names[m.body_parentid[b]] == j["parent"], f"{j['child']}: MuJoCo parent {names[m.body_parentid[b]]}"
        dev["frame"] = max(dev["frame"], np.max(np.abs(m.body_pos[b] - j["xyz"])),
                           np.max(np.abs(quat_matrix(m.body_quat[b]) - j["R"])))
        if j["type"] == "fixed":
            assert m.body_jntnum[b] == 0, f"fixed joint {j['name']} became a MuJoCo joint"
            continue
        jid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, j["name"])
        assert jid >= 0 and m.jnt_bodyid[jid] == b, f"joint {j['name']} not found on body {j['child']}"
        want = {"revolute": mujoco.mjtJoint.mjJNT_HINGE, "continuous": mujoco.mjtJoint.mjJNT_HINGE,
                "prismatic": mujoco.mjtJoint.mjJNT_SLIDE}[j["type"]]
        assert m.jnt_type[jid] == want, f"joint {j['name']}: MuJoCo type {m.jnt_type[jid]}"
        assert np.max(np.abs(m.jnt_pos[jid])) < TOL, f"joint {j['name']}: anchor not at the link origin"
        dev["axis"] = max(dev["axis"], np.max(np.abs(m.jnt_axis[jid] - j["axis"])))
    for k, v in dev.items():
        assert v < TOL, f"MuJoCo's {k} differs from the URDF by {v:.3g}"
    return dev


DISABLE_ALL = ("mjDSBL_CONSTRAINT", "mjDSBL_CONTACT", "mjDSBL_LIMIT", "mjDSBL_EQUALITY", "mjDSBL_FRICTIONLOSS",
               "mjDSBL_SPRING", "mjDSBL_DAMPER", "mjDSBL_ACTUATION", "mjDSBL_SENSOR", "mjDSBL_CLAMPCTRL",
               "mjDSBL_WARMSTART")


def configure(m, dt, gravity, disable=DISABLE_ALL):
    import mujoco
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = dt
    m.opt.gravity[:] = gravity
    flags = 0
    for name in disable:
        flags |= int(getattr(mujoco.mjtDisableBit, name))
    m.opt.disableflags = flags
    m.opt.enableflags = 0
    m.dof_armature[:] = 0
    m.dof_frictionloss[:] = 0
    m.jnt_stiffness[:] = 0
    if "mjDSBL_DAMPER" in disable:
        m.dof_damping[:] = 0


# ---------------------------------------------------------------------------- MuJoCo runs
def initial_state(m, qpos, qvel):
    import mujoco
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    d.qvel[:] = qvel
    mujoco.mj_forward(m, d)
    s = np.empty(mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS))
    mujoco.mj_getState(m, d, s, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    return d, s


def mj_rollout(m, qpos, qvel, qfrc, nstep):
    """States after steps 1..nstep: (times, qpos, qvel) from mujoco.rollout (native loop, one MjData)."""
    import mujoco
    from mujoco import rollout
    d, s0 = initial_state(m, qpos, qvel)
    spec = int(mujoco.mjtState.mjSTATE_QFRC_APPLIED)
    ctrl = np.asarray(qfrc, float).reshape(1, 1, m.nv)
    state, _ = rollout.rollout(m, d, s0[None, :], ctrl, control_spec=spec, nstep=nstep)
    st = state[0]
    return st[:, 0], st[:, 1:1 + m.nq], st[:, 1 + m.nq:1 + m.nq + m.nv]


# ---------------------------------------------------------------------------- four-bar
def fourbar_mjcf(scene, solref, solimp):
    """MJCF for a scene of revolute joints (a spanning tree from the ground + loop closures
    as `connect` equalities); torques (world frame) and rotational dampers on tree joints.
    Returns (xml, body names, tree joint names) or raises ValueError if unsupported."""
    bodies = {b["name"]: b for b in scene["bodies"]}
    pose = {}
    for b in scene["bodies"]:
        R = quat_matrix(b.get("orientation", [1, 0, 0, 0]))
        pose[b["name"]] = (np.array(b.get("position", [0, 0, 0]), float), R)
        if any(abs(v) > 0 for v in b.get("velocity", [0, 0, 0]) + b.get("angular_velocity", [0, 0, 0])):
            raise ValueError("initial velocities not supported here")
    pose["ground"] = (np.zeros(3), np.eye(3))

    def world_frame(j, side):
        if "frame" in j:
            return np.array(j["frame"]["origin"], float), np.array(j["frame"]["z"], float)
        f = j["frame_" + side]
        p, R = pose[j["body_" + side]]
        return p + R @ np.array(f["origin"], float), R @ np.array(f["z"], float)

    for j in scene["joints"]:
        if j["type"] != "revolute":
            raise ValueError(f"joint type {j['type']} not converted")
    parent, tree, closures, seen = {}, [], [], {"ground"}
    pending = list(scene["joints"])
    changed = True
    while changed:
        changed = False
        for j in list(pending):
            a, b = j["body_i"], j["body_j"]
            if (a in seen) != (b in seen):
                p, c = (a, b) if a in seen else (b, a)
                parent[c] = (p, j)
                seen.add(c)
                tree.append(j)
                pending.remove(j)
                changed = True
    closures = pending
    if set(bodies) - seen:
        raise ValueError("bodies not connected to the ground")
    damping = {}
    torque = {}
    for f in scene.get("forces", []):
        if f["type"] == "rotational_spring_damper" and f.get("stiffness", 0) == 0:
            damping[f["joint"]] = f.get("damping", 0.0)
        elif f["type"] == "torque" and f.get("frame", "world") == "world":
            torque[f["body"]] = np.array(f["torque"], float)
        else:
            raise ValueError(f"force {f['type']} not converted")
    for jn in damping:
        if jn not in [j["name"] for j in tree]:
            raise ValueError("damper on a loop-closing joint")

    def fmt(v):
        return " ".join(repr(float(x)) for x in v)

    def body_xml(name, depth):
        p_par, R_par = pose[parent[name][0]]
        p, R = pose[name]
        j = parent[name][1]
        anchor, axis = world_frame(j, "i")
        lp = R_par.T @ (p - p_par)
        lq = matrix_quat(R_par.T @ R)
        b = bodies[name]
        s = "  " * depth + f'<body name="{name}" pos="{fmt(lp)}" quat="{fmt(lq)}">\n'
        s += "  " * depth + f'  <inertial pos="0 0 0" mass="{b["mass"]!r}" diaginertia="{fmt(b["inertia"])}"/>\n'
        s += "  " * depth + (f'  <joint name="{j["name"]}" type="hinge" pos="{fmt(R.T @ (anchor - p))}" '
                             f'axis="{fmt(R.T @ axis)}" damping="{damping.get(j["name"], 0.0)!r}"/>\n')
        for c in bodies:
            if parent.get(c, (None,))[0] == name:
                s += body_xml(c, depth + 1)
        s += "  " * depth + "</body>\n"
        return s

    world = "".join(body_xml(c, 2) for c in bodies if parent[c][0] == "ground")
    eq = ""
    for j in closures:
        side, other = ("i", "j") if j["body_i"] != "ground" else ("j", "i")
        anchor, _ = world_frame(j, side)
        bi = j["body_" + side]
        p, R = pose[bi]
        b2 = f'body2="{j["body_" + other]}"' if j["body_" + other] != "ground" else ""
        eq += (f'    <connect name="{j["name"]}" body1="{bi}" {b2} anchor="{fmt(R.T @ (anchor - p))}" '
               f'solref="{solref}" solimp="{solimp}"/>\n')
    xml = (f'<mujoco model="four_bar">\n  <compiler angle="radian" balanceinertia="false"/>\n'
           f'  <option timestep="{scene["solver"]["dt"]}" integrator="RK4" solver="Newton" iterations="100" '
           f'tolerance="1e-15" gravity="{fmt(scene.get("gravity", [0, 0, -9.81]))}"/>\n'
           f'  <worldbody>\n{world}  </worldbody>\n  <equality>\n{eq}  </equality>\n</mujoco>\n')
    return xml, torque, closures


def fourbar_qfrc(m, torque):
    """Constant generalised forces of world-frame body torques (exact only for a body hinged
    to the ground, whose angular-velocity Jacobian does not depend on the configuration)."""
    import mujoco
    qfrc = np.zeros(m.nv)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    for bname, tq in torque.items():
        b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, bname)
        if m.body_parentid[b] != 0:
            raise ValueError("torque on a body not hinged to the ground")
        jr = np.zeros((3, m.nv))
        mujoco.mj_jacBody(m, d, None, jr, b)
        qfrc += jr.T @ tq
    return qfrc


def is_robot_scene(folder, f):
    if not f.endswith(".json"):
        return False
    try:
        with open(os.path.join(folder, f)) as fh:
            return "robot" in json.load(fh)
    except (OSError, ValueError):
        return False
