"""JobOptions: the run options of POST /jobs, the `simphant run` flags of the same names
(README "Command line"); None keeps the scene's own value."""
from __future__ import annotations

import math
from typing import List, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: The per-frame datasets `--datasets` knows (docs/scene-format.md, "Output").
DATASETS = ("state", "reactions", "constraint_violation", "energy", "joint_state", "driver_loads", "joint_loads",
            "bearing_loads")


class JobOptions(BaseModel):
    """Options of one job: instances overrides sweep.instances; dt, t_end [s] override
    solver.dt, solver.t_end; seed overrides sweep.seed; backend, precision, solver,
    projection, integrator, rtol, atol, error_estimate, frames, datasets, reductions,
    compression as the CLI flags of the same names."""

    model_config = ConfigDict(extra="forbid")

    instances: Optional[int] = Field(None, ge=1)
    dt: Optional[float] = Field(None, gt=0)
    t_end: Optional[float] = Field(None, gt=0)
    seed: Optional[int] = Field(None, ge=0, le=2**64 - 1)
    backend: Literal["auto", "cpu", "cuda", "cuda-fused"] = "auto"
    precision: Literal["fp64", "fp32"] = "fp64"
    solver: Optional[Literal["dae", "aba", "cga"]] = None
    projection: Optional[Literal["none", "velocity", "position_velocity"]] = None
    integrator: Optional[Literal["rk4", "euler", "symplectic_euler", "dopri5", "bdf"]] = None
    rtol: Optional[float] = Field(None, gt=0)
    atol: Optional[float] = Field(None, ge=0)
    error_estimate: Optional[bool] = None
    frames: Optional[Literal["every", "first_last", "none"]] = None
    datasets: Optional[List[Literal[DATASETS]]] = Field(None, min_length=1)  # type: ignore[valid-type]
    reductions: Optional[Union[Literal["all", "none"], List[str]]] = None
    compression: Optional[int] = Field(None, ge=0, le=9)

    @field_validator("dt", "t_end", "rtol", "atol")
    @classmethod
    def _finite(cls, v: Optional[float]) -> Optional[float]:
        if v is not None and not math.isfinite(v):
            raise ValueError("must be finite")
        return v

    @field_validator("reductions")
    @classmethod
    def _names(cls, v):
        if isinstance(v, list) and (not v or not all(n and "," not in n for n in v)):
            raise ValueError("expected \"all\", \"none\" or a non-empty list of names")
        return v
