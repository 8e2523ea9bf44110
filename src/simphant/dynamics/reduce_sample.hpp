#pragma once
// One sample of the per-instance reductions (formulas/reductions.hpp) on the host, from
// an evaluation held in Data: the CPU reference's step hook (dynamics/rk4.hpp) and its
// end-state sample (sim/cpu_backend.cpp).
#include "simphant/dynamics/data.hpp"
#include "simphant/formulas/reductions.hpp"

namespace simphant {

/// Adds the sample of the state evaluated in d (set_kinematics, evaluate_constraints and
/// the solve done: d.kin, d.rows, d.phi, d.lambda) at time t [s] with the actuator
/// inputs (model.n_inputs, nullptr: the defaults) to one instance's accumulator row acc
/// (L.size() numbers), taken at instance step `step`.
void sample_reductions(const Model& model, const Data& d, double t, const double* inputs, const ReductionLayout& L,
                       double* acc, double step);

/// Where the step loop adds its samples: a layout and one instance's accumulator row,
/// and the instance step of the step's start state. rk4_step adds the start state's
/// sample after its first evaluation succeeds.
struct ReductionSink {
  const ReductionLayout* layout;
  double* acc;
  double step;
};

}  // namespace simphant
