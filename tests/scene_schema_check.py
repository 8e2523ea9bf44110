#!/usr/bin/env python3
"""The scene JSON Schema (schema/scene.schema.json) against the scenes and the code.

Usage: scene_schema_check.py SOURCE_DIR [SIMPHANT_BINARY]

1. The schema is a valid draft 2020-12 schema.
2. Every scene is valid: examples/*.json, the complete scenes in the ```json blocks of
   docs/scene-format.md and docs/robots.md, and (with SIMPHANT_BINARY) the scenes that
   `simphant bench --export` writes.
3. Typical mistakes are rejected, each with an error at the expected JSON location; with
   SIMPHANT_BINARY, `simphant check` rejects each of them as well (exit 2), so that the
   schema describes mistakes the code refuses.

Exit codes: 0 all as expected, 1 a failure, 77 skipped (jsonschema is not importable:
pip install jsonschema).
"""
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError as e:
    print(f"SKIP: jsonschema is not importable ({e}); pip install jsonschema")
    sys.exit(77)


def doc_scenes(path):
    """The ```json blocks of a Markdown file that are complete scenes (they have "solver")."""
    with open(path) as f:
        text = f.read()
    scenes = []
    for k, block in enumerate(re.findall(r"```json\n(.*?)```", text, re.S)):
        try:
            doc = json.loads(block)
        except json.JSONDecodeError:
            continue  # an excerpt with comments or ellipses, not a scene
        if isinstance(doc, dict) and "solver" in doc:
            scenes.append((f"{os.path.basename(path)} block {k}", doc))
    return scenes


def mistakes(base, robot):
    """(label, scene, expected error location as a list of keys / indices)."""
    out = []

    def mutate(label, where, fn, doc=base):
        d = copy.deepcopy(doc)
        fn(d)
        out.append((label, d, where))

    mutate("unknown joint type", ["joints", 0, "type"], lambda d: d["joints"][0].update(type="hinge"))
    mutate("missing mass", ["bodies", 0], lambda d: d["bodies"][0].pop("mass"))
    mutate("position of 2 numbers", ["bodies", 0, "position"], lambda d: d["bodies"][0].update(position=[0, 0]))
    mutate("joint axis of 4 numbers", ["joints", 0, "frame", "z"],
           lambda d: d["joints"][0]["frame"].update(z=[0, 1, 0, 0]))
    mutate("unknown top-level key", [], lambda d: d.update(colour="red"))
    mutate("unknown body key", ["bodies", 0], lambda d: d["bodies"][0].update(colour="red"))
    mutate("negative mass", ["bodies", 0, "mass"], lambda d: d["bodies"][0].update(mass=-1.0))
    mutate("mass as a string", ["bodies", 0, "mass"], lambda d: d["bodies"][0].update(mass="1 kg"))
    mutate("body named ground", ["bodies", 0, "name"], lambda d: d["bodies"][0].update(name="ground"))
    mutate("name with a dot", ["bodies", 0, "name"], lambda d: d["bodies"][0].update(name="a.b"))
    mutate("missing solver", [], lambda d: d.pop("solver"))
    mutate("missing dt", ["solver"], lambda d: d["solver"].pop("dt"))
    mutate("record_every 0.5", ["solver", "record_every"], lambda d: d["solver"].update(record_every=0.5))
    mutate("sensitivities without parameters", ["sensitivities"], lambda d: d.update(sensitivities={}))
    mutate("sensitivities with an empty list", ["sensitivities", "parameters"],
           lambda d: d.update(sensitivities={"parameters": []}))
    mutate("a sensitivity path that is not a string", ["sensitivities", "parameters", 0],
           lambda d: d.update(sensitivities={"parameters": [3]}))
    mutate("unknown sweep mode", ["sweep", "mode"], lambda d: d.setdefault("sweep", {}).update(mode="halton"))
    mutate("saltelli without base", ["sweep"], lambda d: d.setdefault("sweep", {}).update(mode="saltelli"))
    mutate("design without file", ["sweep"], lambda d: d.update(sweep={"mode": "design"}))
    mutate("scramble in random mode", ["sweep"], lambda d: d.update(sweep={"mode": "random", "scramble": True}))
    mutate("correlation without matrix", ["sweep", "correlation"], lambda d: d.update(
        sweep={"mode": "lhs", "correlation": {"parameters": ["a", "b"]}}))
    mutate("unknown distribution", ["sweep", "parameters", 0, "dist"], lambda d: d.setdefault("sweep", {}).update(
        parameters=[{"path": "gravity[2]", "dist": "gamma", "low": 0, "high": 1}]))
    mutate("grid with a uniform parameter", ["sweep", "parameters", 0, "dist"],
           lambda d: d.setdefault("sweep", {}).update(
               mode="grid", parameters=[{"path": "gravity[2]", "dist": "uniform", "low": -10, "high": -9}]))
    mutate("force of unknown type", ["forces", 0, "type"],
           lambda d: d.setdefault("forces", []).insert(0, {"name": "f", "type": "magnet", "body": "crank"}))
    mutate("stiffness on a torque", ["forces", 0], lambda d: d.setdefault("forces", []).insert(
        0, {"name": "f", "type": "torque", "body": "crank", "torque": [0, 0, 1], "stiffness": 1}))
    mutate("stiffness table of one point", ["forces", 0, "stiffness_table", "deflection"],
           lambda d: d.setdefault("forces", []).insert(0, {
               "name": "f", "type": "rotational_spring_damper", "joint": "main_bearing",
               "stiffness_table": {"deflection": [0.0], "force": [0.0]}}))
    mutate("law on a spring", ["forces", 0], lambda d: d.setdefault("forces", []).insert(0, {
        "name": "f", "type": "rotational_spring_damper", "joint": "main_bearing", "stiffness": 1.0,
        "law": {"type": "harmonic", "offset": 0, "amplitude": 1, "frequency": 1, "phase": 0}}))
    mutate("harmonic load law without amplitude", ["forces", 2, "law"],
           lambda d: d["forces"][2].update(law={"type": "harmonic", "frequency": 2.0}))
    mutate("initial angle on a prismatic", ["joints", 3, "initial", "angle"],
           lambda d: d["joints"][3].update(initial={"angle": 0.1}))
    mutate("robot beside bodies", [], lambda d: d.update(robot={"urdf": "x.urdf"}))
    mutate("aba without a robot", [], lambda d: d["solver"].update(type="aba"))
    mutate("unknown output dataset", ["output", "datasets", 1],
           lambda d: d.update(output={"datasets": ["state", "velocities"]}))
    mutate("compression level 12", ["output", "compression"], lambda d: d.update(output={"compression": 12}))
    mutate("unknown frames selection", ["output", "frames"], lambda d: d.update(output={"frames": "last"}))
    mutate("unknown reduction", ["output", "reductions"], lambda d: d.update(output={"reductions": "max"}))
    mutate("visual sphere of radius 0", ["bodies", 0, "visual", "radius"],
           lambda d: d["bodies"][0].update(visual={"type": "sphere", "radius": 0}))
    mutate("visual box with a radius", ["bodies", 0, "visual"],
           lambda d: d["bodies"][0].update(visual={"type": "box", "size": [1, 1, 1], "radius": 1}))
    mutate("visual of unknown type", ["bodies", 0, "visual", "type"],
           lambda d: d["bodies"][0].update(visual=[{"type": "cone", "radius": 1}]))
    mutate("visual colour by name", ["bodies", 0, "visual", "color"],
           lambda d: d["bodies"][0].update(visual={"type": "sphere", "radius": 1, "color": "red"}))
    contact = {"ground": {}, "materials": {"default": {"stiffness": 1e6, "restitution": 0.5}}}
    sphere = {"type": "sphere", "radius": 0.01}

    def with_contact(d, collision, **changes):
        d["bodies"][0]["collision"] = collision
        d["contact"] = copy.deepcopy(contact)
        d["contact"].update(changes)

    mutate("collision without contact", [], lambda d: d["bodies"][0].update(collision=sphere))
    mutate("contact without collision", [], lambda d: d.update(contact=copy.deepcopy(contact)))
    mutate("collision sphere of radius 0", ["bodies", 0, "collision", "radius"],
           lambda d: with_contact(d, {"type": "sphere", "radius": 0}))
    mutate("collision mesh", ["bodies", 0, "collision", "type"],
           lambda d: with_contact(d, [{"type": "mesh", "file": "crank.stl"}]))
    mutate("collision box with a radius", ["bodies", 0, "collision"],
           lambda d: with_contact(d, {"type": "box", "size": [1, 1, 1], "radius": 1}))
    mutate("restitution above 1", ["contact", "materials", "default", "restitution"],
           lambda d: with_contact(d, sphere, materials={"default": {"stiffness": 1e6, "restitution": 1.2}}))
    mutate("stiffness and youngs_modulus", ["contact", "materials", "default"], lambda d: with_contact(
        d, sphere, materials={"default": {"stiffness": 1e6, "youngs_modulus": 1e9, "poisson_ratio": 0.3,
                                          "restitution": 0.5}}))
    mutate("hunt_crossley without reference_speed", ["contact"],
           lambda d: with_contact(d, sphere, law="hunt_crossley"))
    mutate("impact law", ["contact", "law"], lambda d: with_contact(d, sphere, law="flores"))
    mutate("negative contype", ["bodies", 0, "collision", "contype"],
           lambda d: with_contact(d, dict(sphere, contype=-1)))
    mutate("robot without urdf", ["robot"], lambda d: d["robot"].pop("urdf"), doc=robot)
    mutate("robot gravity of 2 numbers", ["robot", "gravity"], lambda d: d["robot"].update(gravity=[0, -9.81]),
           doc=robot)
    mutate("velocity servo with kp", ["robot", "servos", "panda_joint1"],
           lambda d: d["robot"].update(servos={"panda_joint1": {"mode": "velocity", "kp": 1, "kd": 1}}), doc=robot)
    mutate("servo of unknown mode", ["robot", "servos", "panda_joint1", "mode"],
           lambda d: d["robot"].update(servos={"panda_joint1": {"mode": "torque", "kp": 1}}), doc=robot)
    mutate("position servo without kp", ["robot", "servos", "panda_joint1"],
           lambda d: d["robot"].update(servos={"panda_joint1": {"mode": "position", "kd": 1}}), doc=robot)
    mutate("base orientation of 3 numbers", ["robot", "base", "orientation"],
           lambda d: d["robot"].update(floating_base=True, base={"orientation": [1, 0, 0]}), doc=robot)
    mutate("friction_velocity 0", ["robot", "friction_velocity"],
           lambda d: d["robot"].update(friction_velocity=0), doc=robot)
    mutate("unknown limit_law", ["robot", "limit_law"], lambda d: d["robot"].update(limit_law="stiff"), doc=robot)
    mutate("urdf_dynamics with a number", ["robot", "urdf_dynamics", "limits"],
           lambda d: d["robot"].update(urdf_dynamics={"limits": 1}), doc=robot)
    mutate("negative armature", ["robot", "armature", "panda_joint1"],
           lambda d: d["robot"].update(armature={"panda_joint1": -0.1}), doc=robot)
    foot = {"panda_link7": {"type": "sphere", "radius": 0.02}}
    mutate("robot collision without contact", [], lambda d: d["robot"].update(collision=foot), doc=robot)
    mutate("robot contact without robot.collision", ["robot"], lambda d: d.update(contact=copy.deepcopy(contact)),
           doc=robot)
    mutate("robot collision radius 0", ["robot", "collision", "panda_link7", "radius"],
           lambda d: (d["robot"].update(collision={"panda_link7": {"type": "sphere", "radius": 0}}),
                      d.update(contact=copy.deepcopy(contact))), doc=robot)
    mutate("robot urdf_collision as a string", ["robot", "urdf_collision"],
           lambda d: (d["robot"].update(urdf_collision="yes"), d.update(contact=copy.deepcopy(contact))), doc=robot)
    pin = {"radial": 1e-3, "journal_radius": 0.01}
    mutate("clearance without contact", [], lambda d: d["joints"][0].update(clearance=pin))
    mutate("clearance on a spherical joint", ["joints", 0, "clearance"],
           lambda d: (d["joints"][0].update(type="spherical", clearance=pin), d.update(contact=copy.deepcopy(contact))))
    mutate("clearance radial 0", ["joints", 0, "clearance", "radial"],
           lambda d: (d["joints"][0].update(clearance=dict(pin, radial=0)), d.update(contact=copy.deepcopy(contact))))
    mutate("clearance with an initial angle", ["joints", 0, "initial"],
           lambda d: (d["joints"][0].update(clearance=pin, initial={"angle": 0.1}),
                      d.update(contact=copy.deepcopy(contact))))
    stop = {"lower": -0.5, "upper": 0.5, "stiffness": 1e4, "restitution": 0.5}
    mutate("limits on a spherical joint", ["joints", 0, "limits"],
           lambda d: d["joints"][0].update(type="spherical", limits=stop))
    mutate("limits without lower or upper", ["joints", 0, "limits"],
           lambda d: d["joints"][0].update(limits={"stiffness": 1e4, "restitution": 0.5}))
    mutate("limits stiffness 0", ["joints", 0, "limits", "stiffness"],
           lambda d: d["joints"][0].update(limits=dict(stop, stiffness=0)))
    mutate("limits restitution 1.5", ["joints", 0, "limits", "restitution"],
           lambda d: d["joints"][0].update(limits=dict(stop, restitution=1.5)))
    mutate("limits on a clearance joint", ["joints", 0, "limits"],
           lambda d: (d["joints"][0].update(clearance=pin, limits=stop), d.update(contact=copy.deepcopy(contact))))
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 1
    src = sys.argv[1]
    binary = sys.argv[2] if len(sys.argv) > 2 else None
    with open(os.path.join(src, "schema", "scene.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = 0

    scenes = []
    for path in sorted(glob.glob(os.path.join(src, "examples", "*.json"))):
        with open(path) as f:
            scenes.append((os.path.relpath(path, src), json.load(f)))
    for md in ("scene-format.md", "robots.md"):
        found = doc_scenes(os.path.join(src, "docs", md))
        if not found:
            print(f"FAIL: no complete scene found in docs/{md}")
            failures += 1
        scenes += found
    with tempfile.TemporaryDirectory() as tmp:
        if binary:
            export = os.path.join(tmp, "export")
            rc = subprocess.call([binary, "bench", "--export", export, "--examples", os.path.join(src, "examples")],
                                 stdout=subprocess.DEVNULL)
            exported = sorted(glob.glob(os.path.join(export, "*.json")))
            if rc != 0 or not exported:
                print(f"FAIL: simphant bench --export exited {rc} with {len(exported)} scenes")
                failures += 1
            for path in exported:
                with open(path) as f:
                    scenes.append(("bench --export " + os.path.basename(path), json.load(f)))
        for label, doc in scenes:
            errors = list(validator.iter_errors(doc))
            for e in errors[:3]:
                print(f"FAIL: {label}: /{'/'.join(map(str, e.absolute_path))}: {e.message}")
            failures += bool(errors)
        print(f"{len(scenes)} scenes valid" if not failures else f"{failures} failures among {len(scenes)} scenes")

        with open(os.path.join(src, "examples", "slider_crank.json")) as f:
            base = json.load(f)
        with open(os.path.join(src, "examples", "arm7.json")) as f:
            robot = json.load(f)
        robot["robot"]["urdf"] = os.path.join(src, "examples", robot["robot"]["urdf"])
        cases = mistakes(base, robot)
        for k, (label, doc, where) in enumerate(cases):
            errors = list(validator.iter_errors(doc))
            # An error at the expected location, or at one of its parents / children
            # (oneOf / if-then report at the object that holds the mistake).
            at = [list(e.absolute_path) for e in errors]
            near = [p for p in at if p[:len(where)] == where or (p and where[:len(p)] == p)]
            if not errors or not near:
                print(f"FAIL: schema accepts or misplaces mistake '{label}' (expected at {where}, errors at {at})")
                failures += 1
            if binary:
                path = os.path.join(tmp, f"mistake_{k}.json")
                with open(path, "w") as f:
                    json.dump(doc, f)
                rc = subprocess.call([binary, "check", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                if rc != 2:
                    print(f"FAIL: simphant check exits {rc}, not 2, on mistake '{label}'")
                    failures += 1
        print(f"{len(cases)} mistakes checked")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
