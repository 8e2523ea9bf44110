#pragma once
// The recorded frames /joint_loads (I, J, 6) and /bearing_loads (I, J, 4) (contract in
// formulas/joint_loads.hpp; docs/solver.md, "Bearing loads"), computed on the host from
// a frame's states and reactions as every backend records them. Exact: the same
// formula as the per-instance reductions apply on each backend to the same reaction.
#include <vector>

#include "simphant/model/model.hpp"

namespace simphant {

/// states (n, B, 13) as Backend::read_states, reactions (n, J, 6) as read_reactions,
/// driver_loads (n, D) as read_driver_loads (null: no driver's load is added; a driver
/// adds its load to its joint's axial moment or force); models: one shared or one per
/// instance. loads (n, J, 6), bearing (n, J, 4); either may be null. An instance whose
/// reactions are NaN (a failed evaluation) gets NaN.
void joint_load_frames(const std::vector<Model>& models, int n, const double* states, const double* reactions,
                       const double* driver_loads, double* loads, double* bearing);

}  // namespace simphant
