"""Observation specs of simphant.gym: which numbers of the simulator an env observes."""
from __future__ import annotations

from typing import Any, Callable, List, Sequence, Union

import numpy as np

from ..simulator import Simulator

#: The fields of a body's 13 state numbers (State, docs/state.md).
BODY_FIELDS = {"r": slice(0, 3), "p": slice(3, 7), "v": slice(7, 10), "omega": slice(10, 13), "state": slice(0, 13)}

#: One item of an observation spec: "state" (every body's 13 numbers), "<body>.<field>"
#: with field r [m], p (w x y z), v [m/s] (world), omega [rad/s] (body frame) or state,
#: "joint_q" / "joint_qd" (robot scenes: joint positions [rad | m] and rates), or a
#: callable sim -> (n_instances, k) array.
ObservationItem = Union[str, Callable[[Simulator], Any]]


class Observation:
    """A compiled observation spec: the columns of the body states it reads (in the
    flat (n, 13 B) layout of Simulator.states() and in the layout of State.y), the
    joint-coordinate blocks, and the callables, in the order given.

    Raises ValueError for an unknown body or field, or for joint_q / joint_qd in a
    scene without joint coordinates.
    """

    def __init__(self, sim: Simulator, spec: Sequence[ObservationItem]) -> None:
        if isinstance(spec, str) or callable(spec):
            spec = [spec]
        if len(spec) == 0:
            raise ValueError("observation: the spec is empty")
        # ("state", columns of states(), columns of y) | ("joint", 0 | 1, width) | ("call", f, width)
        self.parts: List[Any] = []
        self._n_bodies = sim.n_bodies
        self.uses_states = False
        self.uses_joints = False
        bodies = sim.body_names
        for item in spec:
            if callable(item):
                width = int(np.asarray(item(sim)).reshape(sim.n_instances, -1).shape[1])
                self.parts.append(("call", item, width))
            elif item == "state":
                self._add_state(np.arange(13 * len(bodies)))
            elif item in ("joint_q", "joint_qd"):
                if sim._sim.n_joint_coordinates == 0:
                    raise ValueError(f"observation: {item!r} needs a scene with joint coordinates (robot scenes)")
                self.uses_joints = True
                self.parts.append(("joint", 0 if item == "joint_q" else 1, sim._sim.n_joint_coordinates))
            elif isinstance(item, str) and "." in item:
                body, field = item.rsplit(".", 1)
                if body not in bodies:
                    raise ValueError(f"observation: {item!r}: no body {body!r} (bodies: {', '.join(bodies)})")
                if field not in BODY_FIELDS:
                    raise ValueError(f"observation: {item!r}: field must be one of {', '.join(BODY_FIELDS)}")
                b = bodies.index(body)
                self._add_state(13 * b + np.arange(13)[BODY_FIELDS[field]])
            else:
                raise ValueError(f"observation: {item!r} is not 'state', '<body>.<field>', 'joint_q', 'joint_qd' "
                                 "or a callable")
        self.size = sum(p[2] if p[0] != "state" else len(p[1]) for p in self.parts)

    def _add_state(self, columns: np.ndarray) -> None:
        """columns: of the flat (n, 13 B) states(); also stored as columns of y =
        [r, p per body (7 B); v, omega per body (6 B)]."""
        c = np.asarray(columns, dtype=np.int64)
        body, comp = c // 13, c % 13
        y = np.where(comp < 7, 7 * body + comp, 7 * self._n_bodies + 6 * body + comp - 7)
        self.uses_states = True
        self.parts.append(("state", c, y))
