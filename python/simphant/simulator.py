"""Simulator: step many instances of one scene in lockstep, read and write their state."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import _simphant
from ._arrays import Ids, as_ids, out_array, real_array
from .scene import Scene, SceneSource, load_scene
from .state import State

_DLPACK_CPU, _DLPACK_CUDA = 1, 2


class Assembly(NamedTuple):
    """Result of assembling each instance (positions onto Phi = 0, velocities onto
    Phi_q qdot = 0), as Simulator.assembly() returns it.

    Fields: ok (n,) bool; iterations (n,) int32, Newton iterations of the position
    assembly; position_residual (n,) float64, max |Phi| after assembly [m | rad];
    velocity_residual (n,) float64, max |Phi_q qdot| after the projection [m/s | rad/s].
    """

    ok: np.ndarray
    iterations: np.ndarray
    position_residual: np.ndarray
    velocity_residual: np.ndarray


class Simulator:
    """n instances of one scene, stepped in lockstep on one backend.

    Built as ``simphant run`` builds its batch: the scene's sweep is sampled for
    `instances` instances (instance i gets the same parameters as instance i of a run
    with the same seed), each instance is assembled, and the domain randomisation of
    ``reset(ids, randomize=True)`` draws from the same sweep distributions.

    Arguments:
        scene: a Scene or anything :func:`simphant.load_scene` accepts.
        instances: the number of instances n (default: the scene's sweep.instances).
        backend: "auto" (the GPU when this build has CUDA and a device is present, else
            "cpu-simd" where it runs the scene and instances >= 8, else "cpu"), "cpu",
            "cpu-simd" (instances in SIMD lanes: the DAE's fixed-step integrators,
            docs/performance.md, and robots in joint coordinates, docs/robots.md), "cuda"
            or "cuda-fused" (docs/cuda-backend.md). ValueError names the setting when
            "cpu-simd" cannot run the scene (solver.integrator dopri5 / bdf).
        precision: "fp64", or "fp32" (cuda backends only).
        threads: CPU worker threads, 0 = every CPU this process may use (its affinity mask,
            capped by a cgroup CPU quota).
        seed: overrides the scene's sweep.seed.
        sensitivities: scene values to differentiate the state by, in sweep path syntax
            (e.g. ["bodies.crank.mass", "joints.j1.frame_i.origin[0]"]); replaces the
            scene's "sensitivities" section ([]: none). Read them with
            state_sensitivities() and reaction_sensitivities(); docs/sensitivities.md says
            what runs them and what they cost. With sensitivities, reset with randomize,
            set_state, set_parameters, state_view, inputs_view and device inputs raise
            RuntimeError (they would change the state or model behind the tangents).

    Arrays use the conventions of the output file (README "Output (HDF5)"): per body the
    13 numbers r (CoM, world) [m], p = (w, x, y, z) (body to world), v (CoM, world)
    [m/s], omega (body frame) [rad/s]; per joint the force [N] and torque [N m] it
    applies to its body_j at the anchor, world frame.

    Raises ValueError for a bad scene or argument, MemoryError before anything is
    allocated when the batch's host memory (the estimate ``simphant run`` refuses with:
    models and backend buffers) exceeds 80 % of this machine's, simphant.BackendError (a
    RuntimeError) when the backend cannot run here (no CUDA device, too many instances
    for the device). Calls from several threads are serialised; ``step`` releases the
    GIL while it runs.
    """

    def __init__(self, scene: SceneSource, instances: Optional[int] = None, backend: str = "auto",
                 precision: str = "fp64", threads: int = 0, seed: Optional[int] = None,
                 sensitivities: Optional[Sequence[str]] = None) -> None:
        self.scene: Scene = load_scene(scene)
        paths = None if sensitivities is None else _sensitivity_paths(sensitivities)
        self._sim = _simphant._Simulator(self.scene._handle, instances, backend, precision, threads, seed, paths)
        self._n = self._sim.n_instances

    # --- sizes and names -------------------------------------------------------------
    @property
    def n_instances(self) -> int:
        """n, the number of instances."""
        return self._n

    @property
    def n_bodies(self) -> int:
        """B, moving bodies per instance."""
        return self._sim.n_bodies

    @property
    def n_joints(self) -> int:
        """J, joints per instance."""
        return self._sim.n_joints

    @property
    def n_inputs(self) -> int:
        """Actuator inputs per instance (the scene's actuators, in input_names order)."""
        return self._sim.n_inputs

    @property
    def state_size(self) -> int:
        """Numbers per instance in State.y: 13 B (DAE backends), 2 n (joint-space backends)
        or 2 n + 13 (joint-space, floating base)."""
        return self._sim.state_size

    @property
    def body_names(self) -> List[str]:
        """(B) body names, the order of the body axis of states()."""
        return self.scene.body_names

    @property
    def joint_names(self) -> List[str]:
        """(J) joint names, the order of the joint axis of reactions()."""
        return self.scene.joint_names

    @property
    def input_names(self) -> List[str]:
        """(n_inputs) actuator names, the order of the columns of set_inputs."""
        return list(self._sim.input_names)

    @property
    def dt(self) -> float:
        """The fixed step [s]."""
        return self._sim.dt

    @property
    def backend(self) -> str:
        """The backend that runs the batch: "cpu", "cpu-simd", "cuda", "cuda-fused"; for robots
        in joint coordinates "reduced-aba" / "reduced-cga" (scalar), "reduced-aba-lanes" /
        "reduced-cga-lanes" (SIMD lanes) or "cuda-reduced-aba" / "cuda-reduced-cga" (GPU,
        "-fp32" in fp32)."""
        return self._sim.backend

    @property
    def backend_details(self) -> str:
        """One line: the backend and what it runs on."""
        return self._sim.backend_details

    @property
    def time(self) -> float:
        """Simulated time of the batch since creation, steps_taken * dt [s] (per-instance
        time since a reset: get_state().time)."""
        return self._sim.time()

    @property
    def steps_taken(self) -> int:
        """Steps taken by the batch since creation."""
        return self._sim.steps_taken()

    # --- stepping and inputs ---------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Advances every live instance by n fixed RK4 steps of dt (the GIL is released).

        Instances whose status is not ok stay frozen. On a GPU backend the steps may only
        be queued when this returns; every read waits for them (synchronize() waits
        explicitly). Raises ValueError for n < 0.
        """
        self._sim.step(int(n))

    def synchronize(self) -> None:
        """Waits for queued steps (GPU backends; nothing to do on the CPU)."""
        self._sim.synchronize()

    def set_inputs(self, u: Any, ids: Ids = None) -> None:
        """Sets actuator inputs [N m or N, per actuator], kept until changed.

        u: shape (k, n_inputs), k = len(ids) or n_instances; (k,) is accepted when
        n_inputs is 1. A NumPy array, anything convertible to one, or any DLPack array
        (torch, JAX, CuPy). On a GPU backend a float64 C-contiguous device array of all
        instances (ids None) goes to the device without a host round trip; it must stay
        unchanged until the next step has completed (the Simulator keeps a reference).
        ids: the instances to set: an index, a sequence or integer array of distinct
        indices, or a boolean mask of n_instances entries; None = every instance (the
        same for every method that takes ids).

        Raises ValueError for a wrong shape or a NaN or infinite entry (named; a device
        array is not checked), TypeError for complex values, IndexError for an id out of
        range, simphant.BackendError for a device array on a host backend.
        """
        k_ids = as_ids(ids, self._n)
        k = self._n if k_ids is None else k_ids.shape[0]
        if _dlpack_device_type(u) == _DLPACK_CUDA:
            self._sim.set_inputs(u, k_ids)
            return
        a = real_array(_host_array(u), "u")
        if a.shape not in ((k, self.n_inputs),) + (((k,),) if self.n_inputs == 1 else ()):
            raise ValueError(f"u: must have shape ({k}, {self.n_inputs}) (got {a.shape})")
        self._sim.set_inputs(a, k_ids)

    # --- per-instance state ----------------------------------------------------------
    def reset(self, ids: Ids = None, randomize: bool = False) -> None:
        """Returns the listed instances (None = all) to their assembled initial state,
        instance step 0 and their assembly status.

        randomize: each listed instance first moves to its next episode and gets
        parameters freshly drawn from the scene's sweep distributions (domain
        randomisation), deterministic in (seed, instance, episode), then is assembled
        again (a scene without sweep parameters keeps its one model). Values given by
        set_parameters hold in both cases (with randomize, written on top of the new
        draw). Raises IndexError / ValueError for bad ids, ValueError when a draw makes
        the model invalid (the instance is left unchanged).
        """
        self._sim.reset(as_ids(ids, self._n), bool(randomize))

    def set_parameters(self, ids: Ids, params: Mapping[str, Any]) -> None:
        """Sets physics parameters of the listed instances at run time (domain
        randomisation of any number in the scene, without building a new Simulator).

        params: {path: values}. A path in sweep path syntax (docs/scene-format.md,
        "Sweep"): any number of the scene outside its sweep section, e.g.
        "bodies.crank.mass" [kg], "bodies.crank.inertia[1]" [kg m^2],
        "joints.crank_coupler.frame_i.origin[0]" [m], "gravity[2]" [m/s^2],
        "robot.payload.mass" [kg], "robot.q0[3]" [rad]. Values in the scene's units (SI):
        an array of shape (k,), k = len(ids) (or n_instances for ids None), one value per
        listed instance in the order of ids, or a scalar for all of them.
        ids: as for set_inputs; None = every instance.

        Semantics: each listed instance keeps the values it was given, merged with those
        of earlier calls (a later value for the same path replaces the earlier one), and
        gets the model of its current episode (the sweep's sample, or after
        ``reset(randomize=True)`` that episode's draw) with all its values written on
        top; a path that is also a sweep parameter takes the value given here. The
        listed instances then restart as after a reset: their assembled initial state,
        instance step 0, their assembly status, and each actuator's input back to the
        scene's value. The values hold across ``reset()`` and across
        ``reset(randomize=True)``, where they are written on top of the new episode's
        sweep draw; get_state / set_state do not carry them. Instances not listed do not
        change. The same values give the same instance, bit for bit, as a scene file that
        holds them.

        Raises ValueError naming the path for a path that is malformed, names nothing or
        a non-number, points into the sweep section or names a setting of the whole run
        (solver.dt, t_end, record_every, the integrator's tolerances and steps,
        tikhonov_epsilon: as for a sweep, docs/scene-format.md), or for a NaN or infinite
        value; ValueError naming the instance and the path for a value that makes the
        model invalid (a mass <= 0, ...); ValueError for values of the wrong
        shape; TypeError for complex values; IndexError / ValueError for bad ids. On any
        error no listed instance changes.
        """
        a = as_ids(ids, self._n)
        k = self._n if a is None else a.shape[0]
        paths = list(params.keys())
        values = np.empty((k, len(paths)), np.float64)
        for p, path in enumerate(paths):
            if not isinstance(path, str):
                raise TypeError(f"params: keys must be path strings (got {type(path).__name__})")
            v = real_array(params[path], f"params[{path!r}]")
            if v.shape not in ((), (k,), (1,)):
                raise ValueError(f"params[{path!r}]: must be a scalar or have shape ({k},) (got {v.shape})")
            values[:, p] = v
        self._sim.set_parameters(a, paths, values)

    def parameters(self, instance: int) -> Dict[str, float]:
        """The values set_parameters gave instance `instance` ({path: value}, in the
        order first set; empty when none). Raises IndexError for an instance out of range."""
        return dict(self._sim.parameter_overrides(int(instance)))

    def get_state(self, ids: Ids = None) -> State:
        """A copy of the listed instances' state (None = all); see State.

        A state written back with set_state continues bit-identically to a run that
        never stopped.
        """
        a = as_ids(ids, self._n)
        k = self._n if a is None else a.shape[0]
        s = State(ids=np.arange(self._n, dtype=np.int32) if a is None else a,
                  y=np.empty((k, self.state_size)), steps=np.empty(k, np.int64), status=np.empty(k, np.int8),
                  status_steps=np.empty(k, np.int64), episodes=np.empty(k, np.uint64), dt=self.dt,
                  status_reasons=np.empty(k, np.int8))
        self._sim.get_state(a, s.y, s.steps, s.status, s.status_steps, s.episodes, s.status_reasons)
        return s

    def set_state(self, state: State, ids: Ids = None) -> None:
        """Writes a State into the listed instances (default: state.ids).

        y is taken as given (no projection onto the constraints); a status other than ok
        freezes the instance; an episode other than the instance's current one rebuilds
        its model for that episode (a checkpoint restores domain-randomised parameters).
        Raises ValueError when the state's size does not match or a step count (steps,
        status_steps) is negative, IndexError / ValueError for bad ids.
        """
        a = as_ids(state.ids if ids is None else ids, self._n)
        if a is not None and a.shape[0] == self._n and np.array_equal(a, np.arange(self._n)):
            a = None
        k = self._n if a is None else a.shape[0]
        if state.y.shape != (k, self.state_size):
            raise ValueError(f"state: y has shape {state.y.shape}, expected ({k}, {self.state_size})")
        reasons = state.status_reasons if state.status_reasons is not None else np.empty(0, np.int8)
        self._sim.set_state(a, state.y, state.steps, state.status, state.status_steps, state.episodes, reasons)

    # --- reads -----------------------------------------------------------------------
    def states(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n, B, 13) float64 body states: r [m], p (w x y z), v [m/s] (world), omega [rad/s] (body).

        out: a float64 C-contiguous array of that shape, written in place and returned.
        A copy: for a view without a copy see state_view().
        """
        o = out_array(out, (self._n, self.n_bodies, 13))
        self._sim.read_states(o)
        return o

    @property
    def contact_pair_names(self) -> List[str]:
        """(P) the scene's contact pairs in model order (joint clearances, ground pairs,
        then the pairs between bodies), named as the coordinate `contact_pair` of the
        output's /contacts (e.g. "contact ground FL_FOOT[0]": the ground and the first
        shape of the body or link FL_FOOT); empty for a scene without contact."""
        return list(self._sim.contact_pair_names)

    def contacts(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n, P, 4) float64: each contact pair of each instance at the current state, as
        the output's /contacts records a frame (docs/contact.md, "Outputs"):
        normal_force [N] (the sum of the pair's normal forces, >= 0), friction_force [N]
        (the magnitude of the sum of its friction forces), penetration [m] (its largest
        depth, 0 when apart) and count (its contacts, 0 .. 4); pairs in
        contact_pair_names order. Computed on the host from states() by the pair function
        the step evaluates (with each instance's current model), so the values are those
        of the force acting at this state, on every backend. NaN for an instance whose
        state is not finite. P = 0 without contact.

        out: a float64 C-contiguous array of that shape, written in place and returned.
        """
        o = out_array(out, (self._n, len(self._sim.contact_pair_names), 4))
        self._sim.read_contacts(o)
        return o

    def contact_wrenches(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n, P, 6) float64: each contact pair's wrench on the body of its shape B (the
        second shape of its name in contact_pair_names: the robot link of a ground pair) at
        the current state: the force [N] (W), then its moment about the origin of W [N m]
        (W), the sum of the pair's normal, friction and rolling-resistance forces as the
        step applies them (docs/contact.md, "Outputs"). Shape A's body takes the opposite
        wrench. Moments about W's origin add over pairs; about a point c the moment is
        tau - c x f (e.g. MuJoCo's cfrc_ext about a subtree's centre of mass, with
        centre_of_mass()). Computed on the host from states() by the pair function the
        step evaluates, with each instance's current model, on every backend. Zero for a
        pair apart; NaN for an instance whose state is not finite. P = 0 without contact.

        out: a float64 C-contiguous array of that shape, written in place and returned.
        """
        o = out_array(out, (self._n, len(self._sim.contact_pair_names), 6))
        self._sim.read_contact_wrenches(o)
        return o

    def centre_of_mass(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n, 3) float64: each instance's centre of mass [m] (W) at the current state,
        sum m_b r_b / sum m_b over the bodies of states() with each instance's current
        masses (a robot's links and its floating base; a fixed base does not move and is
        not counted). NaN for an instance whose body positions are not finite. Raises
        ValueError for a model without mass.

        out: a float64 C-contiguous array of that shape, written in place and returned.
        """
        o = out_array(out, (self._n, 3))
        self._sim.read_centres_of_mass(o)
        return o

    @property
    def sensitivity_paths(self) -> List[str]:
        """(S) the scene values whose sensitivities step with the state, in sweep path
        syntax (the `sensitivities` argument, else the scene's "sensitivities" section);
        empty without."""
        return list(self._sim.sensitivity_paths)

    def sensitivity_crossed(self) -> np.ndarray:
        """(n) bool: True where an instance's trajectory has crossed a discontinuity of a
        robot joint law since it started (the velocity cut switching at the velocity
        limit, or a position limit with damping entered: the force jumps at a time that
        moves with the parameters; docs/sensitivities.md, "Non-smooth laws"), counted
        while its status is ok. Its derivatives are NaN until reset() starts it again.
        Empty without sensitivities."""
        return np.asarray(self._sim.sensitivity_crossed, dtype=np.uint8).astype(bool)

    def sensitivity_refinement(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(unconverged, max_error, max_error_time), each (n,): as refinement() gives them
        for the values, the refined Schur solves of every instance's tangents in the steps
        since the simulator was made (reads record nothing), each parameter's tangent of a
        solve counted as a solve of its own, with the larger of its own error estimate and
        the values' (docs/sensitivities.md, "Method"): int64 how many ended above the refinement
        tolerance (the derivatives of the constraint forces, and through them of the
        state, are then off by about max_error of their size: an estimate), float64 the largest relative
        error estimate [1], float64 the instance time of that solve [s]. All 0 for a robot
        in joint coordinates (no Schur solve) and with solver.refinement_steps 0 (nothing
        checked). Raises RuntimeError without sensitivities."""
        if not self.sensitivity_paths:
            raise RuntimeError("sensitivity_refinement: this Simulator has no sensitivities (pass sensitivities=[...] "
                               "or give the scene a \"sensitivities\" section)")
        u = np.empty(self._n, np.int64)
        e = np.empty(self._n, np.float64)
        t = np.empty(self._n, np.float64)
        self._sim.read_sensitivity_refinement(u, e, t)
        return u, e, t

    def state_sensitivities(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n, B, 13, S) float64: d(states()) / d(value of sensitivity_paths[s]) at the
        current state, per instance, in the state's units per the parameter's scene unit
        (docs/sensitivities.md): forward mode, dual numbers through the backend family's
        per-thread step (the cuda-fused path's for the DAE, the joint-space step for a
        robot with solver aba or cga) run on the CPU beside the backend, exact for that
        discrete step up to rounding, from starting tangents that are central differences
        of the scene compiler and the assembly. NaN for an instance whose status is not ok,
        that crossed a joint law's discontinuity (sensitivity_crossed), or whose dual step
        failed (a non-finite tangent). reset()
        (without randomize) returns them to their values at the assembled initial state.

        out: a float64 C-contiguous array of that shape, written in place and returned.
        A copy. Raises RuntimeError (a logic error) for a Simulator without sensitivities.
        """
        S = len(self._sim.sensitivity_paths)
        o = out_array(out, (self._n, self.n_bodies, 13, S))
        self._sim.read_state_sensitivities(o)
        return o

    def state_sensitivities_view(self) -> np.ndarray:
        """The sensitivity engine's own state tangents, without a copy: a read-only
        float64 NumPy array (n, state_size, S), d(y) / d(value of sensitivity_paths[s]) in
        the layout of State.y (DAE: [q (7 B): r, p per body; qdot (6 B): v, omega per
        body]; joint coordinates: [q, qd]), per unit of each parameter's scene unit.

        It aliases the engine's memory (strided: each number's tangents sit beside its
        value), stays valid as long as the Simulator lives (it keeps it alive), and its
        contents change with step and reset. Unlike state_sensitivities() it is not
        masked: an instance that crossed a joint law's discontinuity
        (sensitivity_crossed) or whose status is not ok keeps the tangents of its last
        dual step. The engine runs its parameters in passes of at most 16 tangents,
        each with its own arrays: with more than 16 parameters there is no single view
        (ValueError; state_sensitivities() copies any number). Raises RuntimeError (a
        logic error) for a Simulator without sensitivities.
        """
        v = self._sim.state_sensitivities_view()
        v.flags.writeable = False
        return v

    def reaction_sensitivities(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n, J, 6, S) float64: d(reactions()) / d(value of sensitivity_paths[s]) at the
        current state: force [N] and torque [N m] each joint applies to its body_j at the
        anchor, world frame, per unit of each parameter's scene unit (one Schur solve per
        instance in dual numbers at the engine's state; docs/sensitivities.md). NaN for an
        instance whose status is not ok or that crossed a joint law's discontinuity, and
        for a robot in joint coordinates (aba, cga: no reactions).

        out: a float64 C-contiguous array of that shape, written in place and returned.
        Raises RuntimeError (a logic error) for a Simulator without sensitivities.
        """
        S = len(self._sim.sensitivity_paths)
        o = out_array(out, (self._n, self.n_joints, 6, S))
        self._sim.read_reaction_sensitivities(o)
        return o

    def energy_sensitivities(self) -> Tuple[np.ndarray, np.ndarray]:
        """(d_energy, d_kinetic), each (n, S) float64: d(energy()) and d(its kinetic part)
        / d(value of sensitivity_paths[s]) at the current state [J per unit of each
        parameter's scene unit], from the engine's dual frame (docs/sensitivities.md). NaN
        as state_sensitivities. Raises RuntimeError (a logic error) without sensitivities."""
        S = len(self._sim.sensitivity_paths)
        total, kinetic = np.empty((self._n, S)), np.empty((self._n, S))
        self._sim.read_energy_sensitivities(total, kinetic)
        return total, kinetic

    def joint_state_sensitivities(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dq, dqd, dtau), each (n, n_coordinates, S) float64: d(joint_state()) / d(value of
        sensitivity_paths[s]) at the current state: joint positions [rad | m], rates
        [rad/s | m/s] and applied joint torques / forces [N m | N] per unit of each
        parameter's scene unit, for a robot scene on either path (the DAE's from its dual
        body states, frames and laws; aba / cga from the joint-space dual state;
        docs/sensitivities.md). NaN as state_sensitivities. Raises RuntimeError for a scene
        that reports no joint coordinates, or (a logic error) without sensitivities."""
        c = self._sim.n_joint_coordinates
        if c == 0:
            raise RuntimeError("joint_state_sensitivities: this scene reports no joint coordinates "
                               "(robot scenes only, docs/robots.md)")
        S = len(self._sim.sensitivity_paths)
        dq, dqd, dtau = (np.empty((self._n, c, S)) for _ in range(3))
        self._sim.read_joint_state_sensitivities(dq, dqd, dtau)
        return dq, dqd, dtau

    def reactions(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n, J, 6) float64: force [N] and torque [N m] each joint applies to its body_j
        at the anchor, world frame, at the current state."""
        o = out_array(out, (self._n, self.n_joints, 6))
        self._sim.read_reactions(o)
        return o

    def constraint_violation(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """(n,) float64: max |Phi| at the current state [m or 1]."""
        o = out_array(out, (self._n,))
        self._sim.read_constraint_violation(o)
        return o

    def energy(self, out: Optional[np.ndarray] = None, kinetic: Optional[np.ndarray] = None) -> np.ndarray:
        """(n,) float64: kinetic + gravity potential + spring potential energy [J].

        kinetic: an optional (n,) float64 array that receives the kinetic energy alone.
        """
        o = out_array(out, (self._n,))
        k = out_array(kinetic, (self._n,), name="kinetic")
        self._sim.read_energy(o, k)
        return o

    def status(self) -> Tuple[np.ndarray, np.ndarray]:
        """(status, status_time): (n,) int8 InstanceStatus codes, and (n,) float64 the
        instance's time (since its last reset) at which each was set [s] (0 while ok)."""
        st = np.empty(self._n, np.int8)
        t = np.empty(self._n, np.float64)
        self._sim.read_status(st, t, np.empty(self._n, np.int8))
        return st, t

    def status_reasons(self) -> np.ndarray:
        """(n,) int8 StatusReason codes: why each instance's status is not ok (0 while ok)."""
        st = np.empty(self._n, np.int8)
        r = np.empty(self._n, np.int8)
        self._sim.read_status(st, np.empty(self._n, np.float64), r)
        return r

    def refinement(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(unconverged, max_error, max_error_time), each (n,): the refined Schur solves of
        every instance since the simulator was made (docs/solver.md, "The refined
        regularised solve"): int64 how many ended with an error estimate above the
        refinement tolerance (solver.refinement_steps corrections did not reach it; the
        constraint forces are then off by up to max_error), float64 the largest relative
        error estimate of the constraint forces [1] (NaN: a solve was not finite), and
        float64 the instance time of that solve [s]. All 0 for a scene without a Schur
        solve (no constraints, or solver aba / cga)."""
        u = np.empty(self._n, np.int64)
        e = np.empty(self._n, np.float64)
        t = np.empty(self._n, np.float64)
        self._sim.read_refinement(u, e, t)
        return u, e, t

    def joint_state(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(q, qd, tau), each (n, n_coordinates) float64: joint positions [rad | m], rates
        [rad/s | m/s] and applied joint torques / forces [N m | N] of a robot scene
        (docs/robots.md), in the order of its links. Raises RuntimeError for a scene that
        reports no joint coordinates (not a robot scene)."""
        c = self._sim.n_joint_coordinates
        if c == 0:
            raise RuntimeError("joint_state: this scene reports no joint coordinates (robot scenes only, docs/robots.md)")
        q, qd, tau = (np.empty((self._n, c)) for _ in range(3))
        self._sim.read_joint_state(q, qd, tau)
        return q, qd, tau

    def link_tree(self) -> Tuple[List[str], List[int], bool]:
        """The link frames of a robot scene as a tree (docs/robots.md, "Link frames"):
        (names, parents, floating). names: the URDF link of each frame, in frame order (the
        moving links, then the floating base's link); parents[f]: the index of frame f's
        parent in names, -1 for a link on the fixed base (W) and for the floating base
        itself; floating: whether the last frame is a floating base. Raises RuntimeError
        for a scene without a robot."""
        if self._sim.n_link_frames == 0:
            raise RuntimeError("link_tree: this scene has no robot (docs/robots.md)")
        names, parents, floating = self._sim.link_tree()
        return list(names), list(parents), bool(floating)

    def link_frames(self, names: Sequence[str]) -> Any:
        """Pose and twist of the named links of a robot scene (docs/robots.md, "Link
        frames"), shape (n, len(names), 13): per link its frame's origin in W [m], its
        orientation (w, x, y, z; link frame -> W), the velocity of its origin in W [m/s]
        and its angular velocity in the link's own axes [rad/s], at the current state.

        names: URDF link names: a moving link, or the base link of a floating robot (a
        link fixed to another by URDF fixed joints is named by that one, e.g. Panda's
        end effector is "panda_link7").

        On the GPU joint-space backend (solver aba / cga on a GPU) the frames are computed
        on the device and returned without a host copy as a DLPack device array
        (torch.from_dlpack, jax.dlpack.from_dlpack, cupy.from_dlpack), structure of arrays
        (strides (1, 13 n, n)), in the backend's precision; its memory is reused by the
        next link_frames call (copy it to keep it) and is written in the backend's stream
        order (call synchronize() before reading it from another stream). Elsewhere a
        float64 NumPy array (n, len(names), 13).

        Raises ValueError for an unknown link name (the message lists the links) and
        RuntimeError for a scene without a robot.
        """
        if self._sim.n_link_frames == 0:
            raise RuntimeError("link_frames: this scene has no robot (docs/robots.md)")
        frames = np.array([self._sim.link_frame_index(str(name)) for name in names], dtype=np.int32)
        v = self._sim.link_frames_view(frames)
        if v is not None:
            return v
        out = np.empty((self._n, len(frames), 13))
        self._sim.read_link_frames(frames, out)
        return out

    def assembly(self) -> Assembly:
        """The assembly result of each instance (from creation or its last re-assembly)."""
        ok = np.empty(self._n, np.uint8)
        it = np.empty(self._n, np.int32)
        pr = np.empty(self._n)
        vr = np.empty(self._n)
        self._sim.read_assembly(ok, it, pr, vr)
        return Assembly(ok.astype(bool), it, pr, vr)

    # --- zero-copy views -------------------------------------------------------------
    def state_view(self) -> Any:
        """The backend's own state array, without a copy: (n, state_size) in the
        layout of State.y (DAE backends: [q (7 B): r, p per body; qdot (6 B): v, omega
        per body]; joint-space backends: [q, qd]).

        On the CPU a float64 NumPy array aliasing the backend's memory. On a GPU backend
        an object with __dlpack__ / __dlpack_device__ over device memory
        (torch.from_dlpack, jax.dlpack.from_dlpack, cupy.from_dlpack see it without a
        copy), structure of arrays (strides (1, n)), float32 with precision "fp32".

        The view stays valid as long as the Simulator lives (it keeps the Simulator
        alive); its contents change with step, reset and set_state. Writing through it
        is as set_state of y (status, steps and episode stay). On a GPU backend call
        synchronize() before reading it from another stream, and after writing it from
        another stream wait for those writes (e.g. torch.cuda.synchronize()) and call
        synchronize() before the next call. Raises RuntimeError when the backend keeps
        no such array.
        """
        v = self._sim.state_view()
        if v is None:
            raise RuntimeError(f"state_view: backend '{self.backend}' keeps no state array to view; use get_state()")
        return v

    def inputs_view(self) -> Any:
        """The backend's actuator inputs, without a copy: (n, n_inputs), writable; as
        state_view (float64 NumPy on the CPU, DLPack on a device, in the backend's
        precision). Writing into it is as set_inputs. Raises RuntimeError when the
        backend keeps its inputs otherwise."""
        v = self._sim.inputs_view()
        if v is None:
            raise RuntimeError(f"inputs_view: backend '{self.backend}' keeps no input array to view; use set_inputs()")
        return v

    def __repr__(self) -> str:
        return (f"Simulator({self.scene.name or self.scene.source!r}, instances={self._n}, backend={self.backend!r}, "
                f"bodies={self.n_bodies}, joints={self.n_joints}, inputs={self.n_inputs}, dt={self.dt})")


def _sensitivity_paths(paths: Sequence[str]) -> List[str]:
    """The `sensitivities` argument as a list of strings (TypeError naming the entry)."""
    if isinstance(paths, (str, bytes)):
        raise TypeError("sensitivities: a list of sweep paths, not one string")
    out = list(paths)
    for k, p in enumerate(out):
        if not isinstance(p, str):
            raise TypeError(f"sensitivities[{k}]: a sweep path string (got {type(p).__name__})")
    return out


def _dlpack_device_type(x: Any) -> Optional[int]:
    """The DLPack device type of x (1 CPU, 2 CUDA), None for an object without DLPack."""
    if isinstance(x, np.ndarray) or not hasattr(x, "__dlpack_device__"):
        return None
    return int(x.__dlpack_device__()[0])


def _host_array(x: Any) -> np.ndarray:
    """x as a NumPy array: NumPy arrays and sequences as they are, other host DLPack
    arrays (torch CPU tensors, ...) without a copy through np.from_dlpack."""
    if _dlpack_device_type(x) == _DLPACK_CPU:
        return np.from_dlpack(x)
    dev = _dlpack_device_type(x)
    if dev is not None:
        raise ValueError(f"u: an array on DLPack device type {dev}; host memory or a CUDA device array expected")
    return np.asarray(x)
