#pragma once
// view_with<T>: a ModelView<T> over the topology of another view, with its own parameter
// arrays of number type T: Dual<double, P> over a packed double batch for forward
// sensitivities (sim/sensitivity_engine.hpp), Lanes over it for the SIMD groups, or
// double over a Dual view for the values alone (the tangent-linear solve,
// kernels/fused_solve.hpp). The shared topology pointers are reused, every number field
// is converted through its value (value_of: no tangent), and the parameters are read from
// the caller's arrays.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "simphant/batch/model_view.hpp"
#include "simphant/math/lane_ops.hpp"

namespace simphant::batch {

/// v's topology and settings with parameters shared (n_params), slot (n_params; -1:
/// shared, else the row of varied) and varied (rows of v.n_instances), all owned by the
/// caller and outliving the view. T must construct from U's value type.
template <class T, class U>
ModelView<T> view_with(const ModelView<U>& v, const T* shared, const int* slot, const T* varied) {
  ModelView<T> r{};
  r.n_instances = v.n_instances;
  r.n_bodies = v.n_bodies;
  r.n_joints = v.n_joints;
  r.n_rows = v.n_rows;
  r.n_forces = v.n_forces;
  r.n_inputs = v.n_inputs;
  r.n_params = v.n_params;
  r.dt = T(value_of(v.dt));
  r.eps_relative = T(value_of(v.eps_relative));
  r.refine_steps = v.refine_steps;
  r.projection = v.projection;
  r.joint_type = v.joint_type;
  r.joint_body = v.joint_body;
  r.row_offset = v.row_offset;
  r.coupling_start = v.coupling_start;
  r.coupling = v.coupling;
  r.body_joint_start = v.body_joint_start;
  r.body_joint = v.body_joint;
  r.force = v.force;
  r.param_shared = shared;
  r.param_slot = slot;
  r.param_varied = varied;
  r.n_drivers = v.n_drivers;
  r.n_laws = v.n_laws;
  r.driver = v.driver;
  r.law_type = v.law_type;
  r.law_start = v.law_start;
  r.integrator = v.integrator;
  r.rtol = T(value_of(v.rtol));
  r.atol = T(value_of(v.atol));
  r.min_step = T(value_of(v.min_step));
  r.max_step = T(value_of(v.max_step));
  r.first_step = T(value_of(v.first_step));
  r.removed_mask = v.removed_mask;
  r.auto_pivot = T(value_of(v.auto_pivot));
  r.sides = v.sides;
  r.n_mimics = v.n_mimics;
  r.mimic = v.mimic;
  r.mimic_param = v.mimic_param;
  return r;
}

/// The parameters' values as BatchBuffers::param_values lays them out for the
/// tangent-linear solve (kernels/fused_solve.hpp), (n + 1, n_params): row 0 the shared
/// values (shared, n_params), row 1 + i instance i's per-instance values by slot (varied:
/// (n_varied, n), a packed batch's layout, n_varied <= n_params).
inline std::vector<double> param_value_rows(const std::vector<double>& shared, const std::vector<double>& varied, int n,
                                            int n_params) {
  const std::size_t nn = static_cast<std::size_t>(n), np = static_cast<std::size_t>(n_params);
  const std::size_t n_varied = nn ? varied.size() / nn : 0;
  std::vector<double> rows((nn + 1) * np, 0.0);
  std::copy(shared.begin(), shared.begin() + static_cast<std::ptrdiff_t>(std::min(shared.size(), np)), rows.begin());
  for (std::size_t i = 0; i < nn; ++i)
    for (std::size_t s = 0; s < n_varied && s < np; ++s) rows[(i + 1) * np + s] = varied[s * nn + i];
  return rows;
}

}  // namespace simphant::batch
