// libFuzzer target: URDF text -> parse_urdf (bounds, urdfdom, tree, mass rules, mimic,
// warnings) -> the maximal-coordinate model at q = 0, then the same with the base made
// floating (make_floating_base) and a base pose. Bad input must end in UrdfError; any
// other exception, a crash, a sanitizer report or a leak is a finding.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/reduced/reduced_params.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"
#include "simphant/urdf/urdf_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace simphant;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const ReducedModel rm = parse_urdf(text, "fuzz.urdf");
    if (rm.nq() <= kMaxReducedLinks) {
      const std::vector<double> zero(static_cast<std::size_t>(rm.nq()), 0.0);
      maximal_model_from_urdf(rm, zero, zero);
      ReducedModel floating = rm;
      make_floating_base(floating);
      maximal_model_from_urdf(floating, zero, zero, {0, 0, 1, 0.5, 0.5, 0.5, 0.5}, {0, 0, 0, 1, 0, 0});
    }
  } catch (const UrdfError&) {
  }
  return 0;
}
