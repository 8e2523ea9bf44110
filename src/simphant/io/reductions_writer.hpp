#pragma once
// Writes the per-instance reductions over time into a run file (docs/solver.md,
// "Reductions over time"; contract of the layout: io/recorder.hpp):
//
//   /reductions/<quantity>/{max, min, mean, rms, time_of_max}   each (I, ...) shaped like
//       one frame of <quantity> without T: reactions (I, J, 8), joint_loads (I, J, 6),
//       bearing_loads (I, J, 4), driver_loads (I, D), constraint_violation (I),
//       energy (I), joint_coordinates (I, J)
//   group attributes: units, components (string lists over the trailing component axis;
//   time_of_max is in s), sampled = "every step"
#include <string>
#include <vector>

#include "simphant/io/h5_file.hpp"
#include "simphant/model/model.hpp"
#include "simphant/sim/reduction_names.hpp"

namespace simphant {

/// stats (n_instances, L.channels, kReductionStats) as Backend::read_reductions gives
/// them. Replaces a /reductions group the file already holds (a resumed run's). driver
/// names and units: (D) each. Throws h5::H5Error when a write fails.
void write_reductions(hid_t file, const Model& model, const ReductionLayout& L, int n_instances, const double* stats,
                      const std::vector<std::string>& driver_names, const std::vector<std::string>& driver_units);

}  // namespace simphant
