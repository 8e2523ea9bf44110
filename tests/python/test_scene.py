"""simphant.load_scene, Scene and Scene.check."""
from __future__ import annotations

import json

import pytest

import simphant
from conftest import run_cli


def test_load_from_path_dict_and_text_agree(examples):
    path = examples / "slider_crank.json"
    a = simphant.load_scene(path)
    b = simphant.load_scene(json.loads(path.read_text()))
    c = simphant.load_scene(path.read_text())
    assert a.body_names == b.body_names == c.body_names == ["crank", "conrod", "piston"]
    assert a.joint_names == ["main_bearing", "crank_pin", "wrist_pin", "cylinder"]
    assert a.input_names == ["motor"]
    assert a.file == str(path) and b.file is None and c.file is None
    assert a.to_dict() == b.to_dict() == json.loads(path.read_text())
    assert a.dt == 0.0005 and a.instances == 24 and a.seed == 3
    assert a.sweep_paths == ["forces.motor.value", "bodies.piston.mass", "forces.gas_load.force[0]"]
    assert simphant.load_scene(a) is a


def test_to_dict_round_trip(examples):
    scene = simphant.load_scene(examples / "four_bar.json")
    again = simphant.load_scene(scene.to_dict())
    assert again.to_dict() == scene.to_dict()


def test_check_matches_the_cli(examples, cli, tmp_path):
    path = examples / "four_bar.json"
    got = simphant.load_scene(path).check()
    proc = run_cli(cli, "check", str(path), "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert got == json.loads(proc.stdout)
    assert got["dof"] == 1 and got["redundant_rows"] == [16, 18, 19]


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        simphant.load_scene(tmp_path / "nope.json")
    with pytest.raises(IsADirectoryError):
        simphant.load_scene(tmp_path)


def test_bad_scene_is_value_error_naming_the_json_path(examples):
    doc = json.loads((examples / "pendulum.json").read_text())
    doc["bodies"][0]["mass"] = -1.0
    with pytest.raises(ValueError, match=r"^/bodies/0/mass: "):
        simphant.load_scene(doc)


def test_unparsable_text_is_value_error():
    with pytest.raises(ValueError, match="<string>"):
        simphant.load_scene("{ not json")


def test_other_source_is_type_error():
    with pytest.raises(TypeError, match="source"):
        simphant.load_scene(42)


def test_the_packaged_schema_validates_the_examples(examples):
    jsonschema = pytest.importorskip("jsonschema")
    schema = simphant.scene_schema()
    for path in sorted(examples.glob("*.json")):
        jsonschema.validate(json.loads(path.read_text()), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"bodies": "none"}, schema)
