"""The layers of src/simphant (docs/architecture.md, "Layers"): every #include of a
simphant header runs from a folder to one below it in LAYERS, never upwards or across
the front end (urdf/, mjcf/, scene/) and the engine (batch/ to host/), which meet in job/."""
from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: Innermost first: a folder may include the folders before it (and itself).
LAYERS = ["core", "math", "log", "joints", "contact", "reduced", "formulas", "model", "dynamics", "urdf", "mjcf",
          "scene", "batch", "kernels", "simd", "sim", "host", "io", "job", "bench", "cli"]
#: The two branches on dynamics/ that do not include each other.
FRONT_END = {"urdf", "mjcf", "scene"}
ENGINE = {"batch", "kernels", "simd", "sim", "host"}

INCLUDE = re.compile(r'#include "simphant/([a-z_]+)/')


def folder_files():
    for folder in LAYERS:
        base = ROOT / folder if folder in ("kernels", "host") else ROOT / "src" / "simphant" / folder
        for path in sorted(base.rglob("*")):
            if path.suffix in (".hpp", ".cpp", ".cuh", ".cu", ".h"):
                yield folder, path


def test_no_include_runs_upwards_or_across():
    rank = {name: k for k, name in enumerate(LAYERS)}
    wrong = []
    for folder, path in folder_files():
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.search(line)
            if not m or m.group(1) not in rank:
                continue
            target = m.group(1)
            across = (folder in FRONT_END and target in ENGINE) or (folder in ENGINE and target in FRONT_END)
            if rank[target] > rank[folder] or across:
                wrong.append(f"{path.relative_to(ROOT)}:{n}: {folder}/ includes {target}/")
    assert not wrong, "\n".join(wrong)


def test_every_source_folder_has_a_layer():
    folders = {p.name for p in (ROOT / "src" / "simphant").iterdir() if p.is_dir()}
    assert folders <= set(LAYERS), sorted(folders - set(LAYERS))
