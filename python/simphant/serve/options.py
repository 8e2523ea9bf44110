"""JobOptions: the run options of POST /jobs, the `simphant run` flags of the same names
(README "Command line"); None keeps the scene's own value."""
from __future__ import annotations

import math
import re
from typing import Any, Dict, List, Literal, Optional, Tuple, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .. import _simphant

#: The per-frame datasets `--datasets` knows (docs/scene-format.md, "Output").
DATASETS = ("state", "reactions", "constraint_violation", "energy", "joint_state", "driver_loads", "joint_loads",
            "bearing_loads", "contacts")


#: The integrators a run takes (model/integrator.hpp).
INTEGRATORS = ("rk4", "euler", "symplectic_euler", "dopri5", "bdf")


class JobOptions(BaseModel):
    """Options of one job: instances overrides sweep.instances; dt, t_end [s] override
    solver.dt, solver.t_end; seed overrides sweep.seed; backend, precision, solver,
    projection, integrator, rtol, atol, error_estimate, frames, datasets, reductions,
    compression as the CLI flags of the same names."""

    model_config = ConfigDict(extra="forbid")

    instances: Optional[int] = Field(None, ge=1, description="number of instances (overrides sweep.instances)")
    dt: Optional[float] = Field(None, gt=0, description="step [s] of the fixed-step integrators, output grid of the "
                                "adaptive ones (overrides solver.dt)")
    t_end: Optional[float] = Field(None, gt=0, description="end time [s] (overrides solver.t_end)")
    seed: Optional[int] = Field(None, ge=0, le=2**64 - 1, description="sweep seed (overrides sweep.seed)")
    backend: Literal["auto", "cpu", "cpu-simd", "cuda", "cuda-fused"] = Field("auto", description="backend")
    precision: Literal["fp64", "fp32"] = Field("fp64", description="floating point of the cuda backends")
    solver: Optional[Literal["dae", "aba", "cga"]] = Field(None, description="robot scenes: dae (maximal "
                                                           "coordinates), aba or cga (joint coordinates)")
    projection: Optional[Literal["none", "velocity", "position_velocity", "auto"]] = Field(
        None, description="projection onto the constraint manifold after each step")
    integrator: Optional[Literal[INTEGRATORS]] = Field(None, description="integrator")  # type: ignore[valid-type]
    # bounds checked by the validators below, in the CLI's words; the schema states them too
    rtol: Optional[float] = Field(None, json_schema_extra={"exclusiveMinimum": 0},
                                  description="adaptive integrators: relative tolerance")
    atol: Optional[float] = Field(None, json_schema_extra={"minimum": 0},
                                  description="adaptive integrators: absolute tolerance")
    error_estimate: Optional[bool] = Field(None, description="fixed-step integrators: estimate the global error "
                                           "by a second batch at dt/2")
    frames: Optional[Literal["every", "first_last", "none"]] = Field(None, description="frames to record "
                                                                     "(overrides output.frames)")
    datasets: Optional[List[Literal[DATASETS]]] = Field(  # type: ignore[valid-type]
        None, min_length=1, description="per-frame datasets to write (overrides output.datasets)")
    reductions: Optional[Union[Literal["all", "none"], List[str]]] = Field(
        None, description="quantities reduced over time: all, none or names (overrides output.reductions)")
    compression: Optional[int] = Field(None, ge=0, le=9, description="deflate level of the frame datasets "
                                       "(overrides output.compression)")

    @field_validator("dt", "t_end")
    @classmethod
    def _finite(cls, v: Optional[float]) -> Optional[float]:
        if v is not None and not math.isfinite(v):
            raise ValueError("must be finite")
        return v

    @field_validator("rtol")
    @classmethod
    def _rtol(cls, v: Optional[float]) -> Optional[float]:
        if v is not None and not (math.isfinite(v) and v > 0):
            raise ValueError(f"must be a finite number > 0 (got {v:g})")
        return v

    @field_validator("atol")
    @classmethod
    def _atol(cls, v: Optional[float]) -> Optional[float]:
        if v is not None and not (math.isfinite(v) and v >= 0):
            raise ValueError(f"must be a finite number >= 0 (got {v:g})")
        return v

    @field_validator("reductions")
    @classmethod
    def _names(cls, v):
        if isinstance(v, list) and (not v or not all(n and "," not in n for n in v)):
            raise ValueError("expected \"all\", \"none\" or a non-empty list of names")
        return v


#: The kinds of form control the submit form (static/jobs.js, buildOptionsForm) draws.
FORM_KINDS = ("choice", "integer", "number", "boolean", "multi", "names")


def form_controls() -> List[Dict[str, Any]]:
    """The submit form's controls, one per JobOptions field in the model's order, derived
    from its JSON schema so that an option added to the model appears in the form:
    {"name", "kind" (FORM_KINDS), "label", "help", "default", "nullable" (None: the
    scene's value), and by kind "choices" (choice, multi, names: the named values),
    "minimum", "maximum", "exclusiveMinimum" (integer, number)}.

    choice: one of `choices`; integer / number: a number within the bounds; boolean: on /
    off; multi: a non-empty subset of `choices`; names: one of `choices` or a
    comma-separated list of names. ValueError for a field whose schema maps to none of
    them (a new kind of option needs a new control)."""
    schema = JobOptions.model_json_schema()
    out = []
    for name, prop in schema["properties"].items():
        variants = [v for v in prop.get("anyOf", [prop]) if v.get("type") != "null"]
        unit = re.search(r"\[([^\]]+)\]", prop.get("description", ""))
        c: Dict[str, Any] = {"name": name, "label": f"{name} [{unit.group(1)}]" if unit else name,
                             "help": prop.get("description", ""),
                             "default": prop.get("default"), "nullable": len(variants) < len(prop.get("anyOf", [prop]))}
        kinds = [v.get("type") for v in variants]
        v = variants[0] if variants else {}
        if kinds == ["string"] and "enum" in v:
            c.update(kind="choice", choices=list(v["enum"]))
        elif kinds in (["integer"], ["number"]):
            c["kind"] = kinds[0]
            for bound in ("minimum", "maximum", "exclusiveMinimum"):
                if bound in v or bound in prop:
                    c[bound] = v.get(bound, prop.get(bound))
        elif kinds == ["boolean"]:
            c["kind"] = "boolean"
        elif kinds == ["array"] and "enum" in v.get("items", {}):
            c.update(kind="multi", choices=list(v["items"]["enum"]))
        elif sorted(kinds) == ["array", "string"] and all("enum" in x or x.get("items", {}).get("type") == "string"
                                                          for x in variants):
            c.update(kind="names", choices=[e for x in variants for e in x.get("enum", [])])
        else:
            raise ValueError(f"JobOptions.{name}: no form control for the schema {prop}")
        out.append(c)
    return out


def refused_combination(opts: JobOptions, scene: Any) -> Optional[Tuple[str, str]]:
    """(JSON path, reason) of a combination of the options with the scene's solver that
    `simphant run` refuses (docs/solver.md, "Integrators", "Refused settings"), or None.

    The integrator and atol are the options' values, else the scene's `solver.integrator` /
    `solver.atol`: the backend rules of the core (sim/backend_rules.hpp, through
    simphant._simphant.refuse_backend_settings: /options/backend, /options/precision,
    /options/integrator, in the words `simphant run` uses), error_estimate
    with dopri5 or bdf (/options/error_estimate), atol 0 with bdf (/options/atol, or
    /options/integrator when the atol of 0 is the scene's). A
    combination within the scene alone is left to the scene validator (its path)."""
    solver = scene.get("solver") if isinstance(scene, dict) else None
    solver = solver if isinstance(solver, dict) else {}
    integrator = opts.integrator or solver.get("integrator")
    integrator = integrator if isinstance(integrator, str) else "rk4"
    via = "" if opts.integrator else " (solver.integrator)"
    if opts.error_estimate and integrator in ("dopri5", "bdf"):
        return ("/options/error_estimate", "applies to the fixed-step integrators (rk4, euler, symplectic_euler); "
                f"integrator {integrator}{via} controls its error itself (rtol, atol)")
    if integrator in INTEGRATORS:  # the backend rules, worded by the core (sim/backend_rules.hpp)
        refused = _simphant.refuse_backend_settings(opts.backend, opts.precision, integrator)
        if refused is not None:
            return (f"/options/{refused[0]}", refused[1])
    atol = opts.atol if opts.atol is not None else solver.get("atol")
    if integrator == "bdf" and isinstance(atol, (int, float)) and not atol > 0:
        why = ("(CVODE weighs each component's error by 1 / (rtol |y| + atol), infinite where a component is 0)")
        if opts.atol is not None:
            return ("/options/atol", f"must be > 0 with integrator bdf {why}")
        return ("/options/integrator", f"bdf needs atol > 0 (the scene's solver.atol is {atol:g}) {why}")
    return None
