#pragma once
// OutputSettings: what a run writes to its HDF5 file (the scene's "output" section and
// the `simphant run` flags --datasets, --frames, --reductions, --compression;
// docs/scene-format.md "Output", README "Output (HDF5)").
//
// The names below are the one list of per-frame datasets and of reduced quantities.
// Adding a dataset is one line in kFrameDatasetNames (plus its FrameDatasetSpec where the
// job runner registers it with the recorder, io/recorder.hpp); the parser, the CLI and the
// schema check read the list from here.
#include <string>
#include <vector>

namespace simphant {

/// Per-frame datasets (T, I, ...) a run can record. A selected dataset that does not
/// apply to the scene (joint_state without a robot, driver_loads without drivers) is not
/// written.
inline const std::vector<std::string>& frame_dataset_names() {
  static const std::vector<std::string> names = {
      "state",          // (T, I, B, 13)
      "reactions",      // (T, I, J, 6)
      "constraint_violation",  // (T, I)
      "energy",         // (T, I)
      "joint_state",    // /joint_state/{q, qd, tau} (T, I, n), robot scenes
      "driver_loads",   // (T, I, D), scenes with drivers
      "joint_loads",    // (T, I, J, 6)
      "bearing_loads",  // (T, I, J, 4)
      "contacts",       // (T, I, P, 4), scenes with contact (sim/contact_frames.hpp)
      "contact_impulses",  // (T, I, P), scenes with contact and the contacts reductions (job/contact_impulses.hpp)
      "state_sensitivities",  // (T, I, B, 13, S), scenes with sensitivities (docs/sensitivities.md)
      "reaction_sensitivities",  // (T, I, J, 6, S), scenes with sensitivities
      "joint_load_sensitivities",    // (T, I, J, 6, S), scenes with sensitivities
      "bearing_load_sensitivities",  // (T, I, J, 4, S), scenes with sensitivities
      "driver_load_sensitivities",   // (T, I, D, S), scenes with sensitivities and drivers
      "energy_sensitivities",        // (T, I, S), scenes with sensitivities
      "joint_state_sensitivities",   // /joint_state_sensitivities/{q, qd, tau} (T, I, n, S), robot scenes with sensitivities
  };
  return names;
}

/// Quantities reduced over time per instance (/reductions/<quantity>/...).
inline const std::vector<std::string>& reduction_names() {
  static const std::vector<std::string> names = {"reactions",  "joint_loads", "bearing_loads",    "driver_loads",
                                                 "constraint_violation", "energy", "joint_coordinates", "power",
                                                 "contacts"};
  return names;
}

/// Which frames a run records: every record point (every solver.record_every steps),
/// the initial and the final frame only (the final also when the run stops early), or
/// none (the status, params, assembly and reductions are still written).
enum class FrameSelection { Every, FirstLast, None };

/// "every", "first_last", "none".
const char* frame_selection_name(FrameSelection f);
/// Parses a FrameSelection name; false when unknown.
bool parse_frame_selection(const std::string& name, FrameSelection& out);

struct OutputSettings {
  /// Per-frame datasets to write, names from frame_dataset_names() in that order, no
  /// duplicates. Default: all of them (each written when it applies).
  std::vector<std::string> datasets = frame_dataset_names();
  FrameSelection frames = FrameSelection::Every;
  /// Quantities to reduce over time, names from reduction_names() in that order ("all"
  /// expanded). Default: none.
  std::vector<std::string> reductions;
  /// Deflate level 0..9 of the frame datasets (0: no filter); with level > 0 the
  /// shuffle filter runs before deflate.
  int compression = 0;

  /// Whether the per-frame dataset `name` is selected.
  bool wants_dataset(const std::string& name) const;
  /// Whether the quantity `name` is to be reduced.
  bool wants_reduction(const std::string& name) const;
};

}  // namespace simphant
