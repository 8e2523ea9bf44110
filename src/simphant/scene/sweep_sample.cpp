// sample_sweep: deterministic sampling of the sweep parameters (docs/scene-format.md,
// "Sweep"). Random numbers: std::mt19937_64 seeded with the sweep seed; a uniform
// double in [0, 1) is (x >> 11) * 2^-53 (portable, unlike the <random> distributions).
// Every mode but grid and design first fills the values with uniforms u in [0, 1), then
// maps each instance's u through the distributions (scene_detail::map_point, which also
// correlates the correlated normals).
#include <climits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "simphant/core/system_memory.hpp"
#include "simphant/scene/sweep_detail.hpp"

namespace simphant {

namespace {

class Uniform01 {
 public:
  explicit Uniform01(std::uint64_t seed) : engine_(seed) {}
  /// A double in [0, 1) with 53 random bits.
  double operator()() { return static_cast<double>(engine_() >> 11) * 0x1p-53; }
  /// An index in [0, n): floor(u n), clamped.
  std::size_t index(std::size_t n) {
    const auto k = static_cast<std::size_t>((*this)() * static_cast<double>(n));
    return k < n ? k : n - 1;
  }

 private:
  std::mt19937_64 engine_;
};

/// Uniforms -> values, instance by instance (map_point).
void map_uniforms(const SweepSpec& sweep, SweepSamples& s) {
  std::vector<double> x(sweep.parameters.size());
  for (std::size_t k = 0; k < static_cast<std::size_t>(s.n_instances); ++k) {
    for (std::size_t p = 0; p < x.size(); ++p) x[p] = s.values[p][k];
    scene_detail::map_point(sweep, x.data());
    for (std::size_t p = 0; p < x.size(); ++p) s.values[p][k] = x[p];
  }
}

/// Random mode: one draw per (instance, parameter), instance-major, parameter-minor.
void sample_random(const SweepSpec& sweep, SweepSamples& s) {
  Uniform01 rng(sweep.seed);
  for (int k = 0; k < s.n_instances; ++k) {
    for (std::size_t p = 0; p < sweep.parameters.size(); ++p) {
      s.values[p][static_cast<std::size_t>(k)] = rng();
    }
  }
}

/// Latin hypercube: per parameter (in order) a Fisher-Yates permutation of the strata
/// (i = n-1 .. 1, swap i with index(i + 1)), then one jitter per instance k = 0..n-1;
/// instance k gets u = (perm[k] + jitter_k) / n.
void sample_lhs(const SweepSpec& sweep, SweepSamples& s) {
  Uniform01 rng(sweep.seed);
  const auto n = static_cast<std::size_t>(s.n_instances);
  std::vector<std::size_t> perm(n);
  for (std::size_t p = 0; p < sweep.parameters.size(); ++p) {
    std::iota(perm.begin(), perm.end(), std::size_t{0});
    for (std::size_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.index(i + 1)]);
    for (std::size_t k = 0; k < n; ++k) {
      const double u = (static_cast<double>(perm[k]) + rng()) / static_cast<double>(n);
      s.values[p][k] = u < 1.0 ? u : 1.0 - 0x1p-53;
    }
  }
}

/// Grid: Cartesian product of the lists, last parameter fastest.
void sample_grid(const SweepSpec& sweep, SweepSamples& s) {
  for (int k = 0; k < s.n_instances; ++k) {
    auto rest = static_cast<std::size_t>(k);
    for (std::size_t p = sweep.parameters.size(); p-- > 0;) {
      const std::vector<double>& v = sweep.parameters[p].values;
      s.values[p][static_cast<std::size_t>(k)] = v[rest % v.size()];
      rest /= v.size();
    }
  }
}

}  // namespace

SweepSamples sample_sweep(const SweepSpec& sweep, int n_instances_override) {
  SweepSamples s;
  const bool fixed = sweep.mode == SweepMode::Grid || sweep.mode == SweepMode::Saltelli || sweep.mode == SweepMode::Design;
  if (sweep.mode == SweepMode::Grid) {
    long long product = 1;
    for (std::size_t p = 0; p < sweep.parameters.size(); ++p) {
      if (sweep.parameters[p].dist != Distribution::List || sweep.parameters[p].values.empty()) {
        throw SceneError("/sweep/parameters/" + std::to_string(p) + "/dist", "grid mode needs a non-empty list");
      }
      product *= static_cast<long long>(sweep.parameters[p].values.size());
      if (product > INT_MAX) throw SceneError("/sweep/parameters", "grid has more than 2^31 - 1 instances");
    }
    s.n_instances = static_cast<int>(product);
  } else if (sweep.mode == SweepMode::Saltelli) {
    const long long rows = scene_detail::saltelli_rows(sweep.saltelli_base, static_cast<long long>(sweep.parameters.size()),
                                                       sweep.saltelli_second_order);
    if (rows < 1) throw SceneError("/sweep/base", "the design would have more than 2^31 - 1 instances");
    s.n_instances = static_cast<int>(rows);
  } else if (sweep.mode == SweepMode::Design) {
    s.n_instances = sweep.instances;
    for (const SweepParameter& p : sweep.parameters)
      if (p.values.size() != static_cast<std::size_t>(sweep.instances))
        throw std::invalid_argument("sample_sweep: a design column's length is not the sweep's instances");
  } else {
    s.n_instances = n_instances_override > 0 ? n_instances_override : sweep.instances;
    if (s.n_instances < 1) {
      throw SceneError("/sweep/instances", "must be >= 1 (got " + std::to_string(s.n_instances) + ")");
    }
  }
  if (fixed && n_instances_override > 0 && n_instances_override != s.n_instances) {
    const char* rule = sweep.mode == SweepMode::Grid       ? "grid mode runs the product of list lengths, "
                       : sweep.mode == SweepMode::Saltelli ? "saltelli mode runs base (2 D + 2) or base (D + 2) = "
                                                           : "design mode runs the design file's rows, ";
    throw SceneError("/sweep/instances", rule + std::to_string(s.n_instances) + " instances; the requested " +
                                             std::to_string(n_instances_override) + " differs");
  }
  const double value_bytes = 8.0 * static_cast<double>(sweep.parameters.size()) * s.n_instances;
  const double have = physical_memory_bytes();
  if (have > 0 && value_bytes > kMemoryFraction * have) {
    throw SceneError("/sweep/instances", std::to_string(s.n_instances) + " instances of " +
                                             std::to_string(sweep.parameters.size()) +
                                             " parameters: the sampled values alone would not fit in memory (" +
                                             std::to_string(static_cast<long long>(value_bytes / (1 << 20))) +
                                             " MiB); use fewer instances");
  }
  for (const SweepParameter& p : sweep.parameters) {
    s.paths.push_back(p.path);
    s.json_pointers.push_back(p.json_pointer);
  }
  if (sweep.mode == SweepMode::Design) {
    for (const SweepParameter& p : sweep.parameters) s.values.push_back(p.values);
    return s;
  }
  if (sweep.mode == SweepMode::Sobol) {
    scene_detail::sobol_uniforms(sweep, s.n_instances, s.values);
  } else if (sweep.mode == SweepMode::Saltelli) {
    scene_detail::saltelli_uniforms(sweep, s.values);
  } else {
    for (std::size_t p = 0; p < sweep.parameters.size(); ++p) s.values.emplace_back(static_cast<std::size_t>(s.n_instances), 0.0);
  }
  switch (sweep.mode) {
    case SweepMode::Random:
      sample_random(sweep, s);
      break;
    case SweepMode::LatinHypercube:
      sample_lhs(sweep, s);
      break;
    case SweepMode::Grid:
      sample_grid(sweep, s);
      return s;
    default:
      break;
  }
  map_uniforms(sweep, s);
  return s;
}

}  // namespace simphant
