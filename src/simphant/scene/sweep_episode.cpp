// sample_episode: the sweep parameters' values for one (instance, episode) of domain
// randomisation (docs/scene-format.md, "Sweep", "Episodes"). A counter-based generator:
// each value's u in [0, 1) is a hash of (seed, instance, episode, parameter index), so
// any instance's episode can be drawn alone, in any order, for any batch size.
#include <algorithm>

#include "simphant/scene/sweep_detail.hpp"

namespace simphant {

namespace {

constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;  ///< 2^64 / golden ratio (SplitMix64's increment)

/// SplitMix64's finaliser: a bijection of 64-bit words that mixes every input bit.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<double> sample_episode(const SweepSpec& sweep, int instance, std::uint64_t episode) {
  std::uint64_t h = mix(sweep.seed + kGamma);
  h = mix(h ^ mix(static_cast<std::uint64_t>(instance) + 2 * kGamma));
  h = mix(h ^ mix(episode + 3 * kGamma));
  const auto uniform = [h](std::size_t p) {
    const std::uint64_t x = mix(h ^ mix(static_cast<std::uint64_t>(p) + 4 * kGamma));
    return static_cast<double>(x >> 11) * 0x1p-53;
  };
  std::vector<double> values(sweep.parameters.size());
  if (sweep.mode == SweepMode::Design) {  // one row of the design, uniformly chosen
    if (values.empty()) return values;
    const std::size_t rows = sweep.parameters.front().values.size();
    const std::size_t row = std::min(static_cast<std::size_t>(uniform(0) * static_cast<double>(rows)), rows - 1);
    for (std::size_t p = 0; p < values.size(); ++p) values[p] = sweep.parameters[p].values[row];
    return values;
  }
  for (std::size_t p = 0; p < values.size(); ++p) values[p] = uniform(p);
  scene_detail::map_point(sweep, values.data());
  return values;
}

}  // namespace simphant
