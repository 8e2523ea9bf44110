#pragma once
// Writes the per-instance reductions over time into a run file (docs/solver.md,
// "Reductions over time"):
//
//   /reductions/<quantity>/{max, min, mean, rms, time_of_max}   each (I, ...) shaped like
//       one frame of <quantity> without T: reactions (I, J, 8), joint_loads (I, J, 6),
//       bearing_loads (I, J, 4), driver_loads (I, D), constraint_violation (I),
//       energy (I), joint_coordinates (I, J), power (I), contacts (I, P, 4); each with
//       dimension scales (instance, joint, driver, contact_pair and the component axes
//       reaction_reduction_component, joint_load_component, bearing_component,
//       contact_component, io/h5_dims.hpp) and units (time_of_max: s)
//   group attributes: units, components (string lists over the quantity's components),
//   sampled = "every step"
//
//   /reduction_sensitivities/<quantity>/{max, min, mean, rms}   each (I, ..., S): their
//       derivatives with respect to the S sensitivity parameters (docs/sensitivities.md),
//       the dimension `parameter` last (its coordinate the paths); units "(<quantity>
//       unit) / parameter unit", each component's unit being the group's `units` entry;
//       the group attributes as above
#include <string>
#include <vector>

#include "simphant/io/recorder.hpp"
#include "simphant/sim/reduction_names.hpp"

namespace simphant {

/// stats (n_instances, L.channels, kReductionStats) as Backend::read_reductions gives
/// them; the quantities in `written` (enabled in L) are written, none when it is empty
/// (the run may accumulate power for its energy balance alone, job/energy_check.hpp).
/// Replaces a /reductions group the file already holds (a resumed run's output).
/// driver names and units: (D) each. Throws h5::H5Error when a write fails.
void write_reductions(Recorder& recorder, const Model& model, const ReductionLayout& L, int n_instances, const double* stats,
                      const std::vector<std::string>& driver_names, const std::vector<std::string>& driver_units,
                      const std::vector<ReductionQuantity>& written);

/// dstats (n_instances, L.channels, kReductionTangentStats, S) as
/// Simulator::read_reduction_sensitivities gives them, S = paths.size() >= 1: writes
/// /reduction_sensitivities for the quantities in `written` but constraint_violation
/// (rounding, not a smooth output), as write_reductions does.
void write_reduction_sensitivities(Recorder& recorder, const Model& model, const ReductionLayout& L, int n_instances,
                                   const double* dstats, const std::vector<std::string>& paths,
                                   const std::vector<std::string>& driver_names,
                                   const std::vector<std::string>& driver_units,
                                   const std::vector<ReductionQuantity>& written);

}  // namespace simphant
