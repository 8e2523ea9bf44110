// Names and descriptions of a sweep for the output's attributes (io/recorder.hpp).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "simphant/scene/scene.hpp"

namespace simphant {

const char* sweep_mode_name(SweepMode mode) {
  switch (mode) {
    case SweepMode::Random: return "random";
    case SweepMode::LatinHypercube: return "lhs";
    case SweepMode::Grid: return "grid";
    case SweepMode::Sobol: return "sobol";
    case SweepMode::Saltelli: return "saltelli";
    case SweepMode::Design: return "design";
  }
  return "random";
}

std::string salib_problem(const SweepSpec& sweep) {
  if (sweep.parameters.empty()) return "";
  nlohmann::json names = nlohmann::json::array(), bounds = nlohmann::json::array(), dists = nlohmann::json::array();
  for (const SweepParameter& p : sweep.parameters) {
    names.push_back(p.path);
    switch (p.dist) {
      case Distribution::Uniform:
        bounds.push_back({p.low, p.high});
        dists.push_back("unif");
        break;
      case Distribution::Normal:
        if (p.truncated) {
          bounds.push_back({p.trunc_low, p.trunc_high, p.mean, p.std});
          dists.push_back("truncnorm");
        } else {
          bounds.push_back({p.mean, p.std});
          dists.push_back("norm");
        }
        break;
      case Distribution::List: {
        const auto mm = std::minmax_element(p.values.begin(), p.values.end());
        bounds.push_back({*mm.first, *mm.second});
        dists.push_back("unif");
        break;
      }
    }
  }
  return nlohmann::json{{"num_vars", sweep.parameters.size()}, {"names", names}, {"bounds", bounds}, {"dists", dists}}
      .dump();
}

}  // namespace simphant
