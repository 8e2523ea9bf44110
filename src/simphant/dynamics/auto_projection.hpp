#pragma once
// solver.projection: auto (docs/solver.md, "Singular configurations"). A mechanism whose
// Phi_q loses rank at some configuration (links lining up, as a parallelogram passing its
// flat position) leaves its branch there without projection: the stage states of an RK4
// step carry a velocity residual of order h that the near-singular Schur matrix turns
// into a kick. Projecting every step (position_velocity) carries the passage at about
// 2.5x the cost of a step; auto projects only the fixed steps that come near such a
// configuration, seen by the rank watch (formulas/pivot_watch.hpp): a step projects
// (position_velocity, stage states included) when the smallest relative pivot of its Schur
// factorisations so far is below
//   rho_auto = min(kAutoProjectionPivot, the power of ten at or above kAutoProjectionRatio rho_0),
// rho_0 the smallest relative pivot at the first instance's assembled start, of the dense
// and the sparse factorisation (the relative pivot depends on the row order; rounded up to
// a power of ten so that the shards of a sweep, each starting from its own first instance,
// choose alike; `simphant merge` refuses shards that did not). The relative pivot falls as
// theta^2 near a flat passage (0.9 theta^2 on the parallelogram chains), so rho_auto = 1e-3
// there switches projection on within 0.033 rad of flat; the decision uses the
// factorisations before each projection (the start state's for the second stage's state,
// and so on), which lag by half a step: the chain's fastest passage moves 0.011 rad per
// step of 1 ms. The ratio keeps a mechanism whose rows are near-dependent throughout
// (Bricard's linkage: rho 1.8e-5 at every configuration, rho_auto 1e-6) from projecting
// every step.
// The decision depends only on the step's own factorisations, so it needs no state between
// steps (nothing in a checkpoint). A mechanism that starts at a singular configuration
// (rho_0 near the shift) gets rho_auto near it and is not helped: use position_velocity.
#include <vector>

#include "simphant/model/model.hpp"

namespace simphant {

/// The largest relative pivot below which auto projects.
constexpr double kAutoProjectionPivot = 1e-3;
/// rho_auto as a fraction of the start's smallest relative pivot.
constexpr double kAutoProjectionRatio = 1e-2;

/// Resolves solver.projection auto for the run of `models` (one per instance or one for
/// all): none where no fixed step can meet a singular configuration or no projection
/// applies (a model whose joints form a tree: its Phi_q never loses rank; no constraint
/// rows; an adaptive integrator, whose step-size control is its own answer, and which
/// does not take the per-step decision); else auto with SolverSettings::
/// auto_projection_pivot = rho_auto above, from the first model's assembled initial
/// state. Other projection settings are left alone.
void set_auto_projection(std::vector<Model>& models);

/// rho_auto of a start whose smallest relative pivot is rho0 (above); 0 (never) when
/// kAutoProjectionRatio rho0 is not positive.
double auto_projection_pivot(double rho0);

/// rho_0: the smallest relative pivot of the Schur factorisation at `model`'s assembled
/// initial state (its initial state when it does not assemble), the smaller of the dense
/// factorisation's (rows in order) and the sparse one's (topology order), since the
/// relative pivot depends on the order and the backends use both; +infinity without
/// constraint rows.
double start_relative_pivot(const Model& model);

}  // namespace simphant
