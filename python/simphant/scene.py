"""Scenes: loading, inspecting and checking a SimPhant scene (docs/scene-format.md)."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Union

from . import _simphant

SceneSource = Union["Scene", str, "os.PathLike[str]", Dict[str, Any]]


class Scene:
    """A parsed, validated scene: the base model (no sweep applied) and its sweep.

    Create it with :func:`simphant.load_scene`. A Scene is immutable; simulators and runs
    made from it share it. Units are SI, quaternions (w, x, y, z) body to world.
    """

    def __init__(self, handle: "_simphant._Scene") -> None:
        self._handle = handle

    @property
    def name(self) -> str:
        """The scene's "name" ("" when it has none)."""
        return self._handle.name

    @property
    def source(self) -> str:
        """The file the scene was read from, or "<dict>" / "<string>"."""
        return self._handle.source

    @property
    def file(self) -> Union[str, None]:
        """The file the scene was read from, None for a scene given as a dict or a string."""
        s = self._handle.source
        return None if s in ("<dict>", "<string>") else s

    @property
    def text(self) -> str:
        """The scene's JSON text as read."""
        return self._handle.text

    @property
    def body_names(self) -> List[str]:
        """Names of the moving bodies, in state order (B entries; the ground is not one)."""
        return list(self._handle.body_names)

    @property
    def joint_names(self) -> List[str]:
        """Names of the joints, in reaction order (J entries)."""
        return list(self._handle.joint_names)

    @property
    def input_names(self) -> List[str]:
        """Names of the actuators, in input order: column k of Simulator.set_inputs is input k."""
        return list(self._handle.input_names)

    @property
    def dt(self) -> float:
        """The fixed step solver.dt [s]."""
        return self._handle.dt

    @property
    def t_end(self) -> float:
        """solver.t_end [s]: the end time of `simphant.run`."""
        return self._handle.t_end

    @property
    def instances(self) -> int:
        """sweep.instances: the number of instances a run or Simulator makes by default."""
        return self._handle.sweep_instances

    @property
    def seed(self) -> int:
        """sweep.seed: the seed of the sweep sampling."""
        return self._handle.sweep_seed

    @property
    def sweep_paths(self) -> List[str]:
        """The sweep's parameter paths, e.g. ["bodies.crank.mass"] (docs/scene-format.md, "Sweep")."""
        return list(self._handle.sweep_paths)

    def to_dict(self) -> Dict[str, Any]:
        """The scene as a JSON document (dict); `load_scene(scene.to_dict())` gives it back."""
        return json.loads(self._handle.doc_json())

    def check(self) -> Dict[str, Any]:
        """Validates every instance of the sweep and analyses the base model.

        Returns the object that `simphant check --json` prints: name, dt and t_end [s],
        bodies, joints (name,
        type, body_i, body_j, rows), constraint_rows m, rank of Phi_q at the assembled
        state, dof = 6N - rank, redundant_rows, assembly_ok, assembly_residual (max |Phi|),
        assembly_velocity_residual (max |Phi_q qdot|), assembly_iterations, instances,
        warnings. A failed assembly is reported (assembly_ok False), not raised.

        Raises ValueError when a sampled instance is invalid (the message names the
        instance and the JSON path).
        """
        return json.loads(_simphant.check_scene(self._handle))

    def __repr__(self) -> str:
        return (f"Scene({self.name!r}, source={self.source!r}, bodies={len(self.body_names)}, "
                f"joints={len(self.joint_names)}, inputs={len(self.input_names)}, instances={self.instances})")


def scene_schema() -> Dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the scene format, as shipped with the package.

    It checks a scene's structure (names, types, required keys); the physics checks
    (positive masses, a consistent sweep, ...) are load_scene's. For example
    ``jsonschema.validate(doc, simphant.scene_schema())``.
    """
    # installed beside the compiled module (wheel, editable install and build tree alike)
    path = os.path.join(os.path.dirname(os.path.abspath(_simphant.__file__)), "scene.schema.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_scene(source: SceneSource) -> Scene:
    """Loads and validates a scene.

    source: a file path (str or os.PathLike), a dict (the JSON document), a str holding
    the JSON text itself (it starts with "{"), or a Scene (returned as is).

    Raises FileNotFoundError / IsADirectoryError / PermissionError for a path that
    cannot be read, ValueError for an invalid scene (the message starts with the JSON
    path of the offending value, e.g. "/bodies/1/mass: must be > 0"), TypeError for
    another kind of source.
    """
    if isinstance(source, Scene):
        return source
    if isinstance(source, dict):
        return Scene(_simphant._Scene.from_text(json.dumps(source), "<dict>"))
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return Scene(_simphant._Scene.from_text(source, "<string>"))
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb"):  # FileNotFoundError, IsADirectoryError, PermissionError
            pass
        return Scene(_simphant._Scene.from_file(path))
    raise TypeError(f"source: a path, a dict or JSON text expected (got {type(source).__name__})")
