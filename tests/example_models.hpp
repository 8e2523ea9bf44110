#pragma once
// The shipped examples as the batch tests use them: every examples/*.json scene, and n
// instance models sampled from its own sweep (so the instances differ).
#include <string>
#include <vector>

#include "simphant/dynamics/auto_projection.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant::test {

inline const std::vector<std::string>& example_names() {
  static const std::vector<std::string> names = {"pendulum",     "double_pendulum", "four_bar",
                                                 "slider_crank", "bricard",         "spinning_top",
                                                 "planar_puck",  "fixed_weld",      "cylindrical_collar",
                                                 "slider_crank_driven"};
  return names;
}

/// n instance models of examples/<name>.json, sampled from the scene's sweep, with the
/// redundant rows removed and solver.projection auto resolved as a run does it
/// (Simulator::create; set_removed_rows, set_auto_projection).
inline std::vector<Model> example_models(const std::string& name, int n) {
  const Scene scene = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name + ".json");
  std::vector<Model> models = build_instance_models(scene, sample_sweep(scene.sweep, n));
  set_removed_rows(models);
  set_auto_projection(models);
  return models;
}

}  // namespace simphant::test
