// sample_episode: the sweep parameters' values for one (instance, episode) of domain
// randomisation (docs/scene-format.md, "Sweep", "Episodes"). A counter-based generator:
// each value's u in [0, 1) is a hash of (seed, instance, episode, parameter index), so
// any instance's episode can be drawn alone, in any order, for any batch size.
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
  std::vector<double> values;
  values.reserve(sweep.parameters.size());
  for (std::size_t p = 0; p < sweep.parameters.size(); ++p) {
    const std::uint64_t x = mix(h ^ mix(static_cast<std::uint64_t>(p) + 4 * kGamma));
    const double u = static_cast<double>(x >> 11) * 0x1p-53;
    values.push_back(scene_detail::inverse_cdf(sweep.parameters[p], u));
  }
  return values;
}

}  // namespace simphant
