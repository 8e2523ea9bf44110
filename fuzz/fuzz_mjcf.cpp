// libFuzzer target: MJCF text -> import_mjcf (tinyxml2, defaults, the body tree, inertia
// from geoms, joints, actuators, options, the mass rules) -> the maximal-coordinate model
// at q = 0. Bad input must end in MjcfError; any other exception, a crash, a sanitizer
// report or a leak is a finding.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/mjcf/mjcf_import.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace simphant;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const MjcfModel mj = import_mjcf(text, "fuzz.xml");
    const ReducedModel& rm = mj.model;
    if (rm.nq() <= kMaxReducedLinks) {
      bool massive = true;  // the maximal model needs mass on every body (require_dae_masses)
      for (const ReducedLink& l : rm.links) massive = massive && l.mass > 0;
      const std::vector<double> zero(static_cast<std::size_t>(rm.nq()), 0.0);
      if (massive && !rm.floating) maximal_model_from_urdf(rm, zero, zero);
    }
  } catch (const MjcfError&) {
  }
  return 0;
}
