#include "simphant/sim/sensitivity_seeds.hpp"

#include <algorithm>
#include <exception>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "simphant/batch/batch_pack.hpp"
#include "simphant/core/stop_flag.hpp"
#include "simphant/sim/assemble_batch.hpp"

namespace simphant {

namespace {

/// What the seeds difference of one compiled model: its packed parameters, its
/// actuators' default inputs and its assembled state (nullopt: it did not assemble).
struct Compiled {
  std::size_t state_size = 0;  ///< 13 N
  std::vector<double> params, inputs;
  std::optional<std::vector<double>> y0;
};

Compiled compile_at(const SensitivityRebuild& rebuild, int instance, const std::string& path, double value) {
  Model m = rebuild(instance, {{path, value}});
  // The seeds difference two assembled states: assembled to well below the run's
  // tolerance, so that their difference over 2 h holds more digits.
  m.solver.assembly_tolerance = std::min(m.solver.assembly_tolerance, kSeedAssemblyTolerance);
  Compiled c;
  c.state_size = 13 * static_cast<std::size_t>(m.n_bodies());
  c.params = batch::flatten_params(m);
  c.inputs.assign(static_cast<std::size_t>(m.n_inputs), 0.0);
  for (const ForceElement& f : m.forces)
    if (f.type == ForceType::Actuator) c.inputs[static_cast<std::size_t>(f.input_index)] = f.value;
  const std::vector<Model> one{std::move(m)};
  const AssembledBatch a = assemble_batch(one, 1, 1);
  if (a.status.front() == 0) c.y0 = a.Y;
  return c;
}

}  // namespace

SensitivitySeeds sensitivity_seeds(const std::vector<std::string>& paths, const std::vector<std::vector<double>>& values,
                                   int n_instances, bool shared, const SensitivityRebuild& rebuild) {
  SensitivitySeeds seeds;
  seeds.paths = paths;
  const std::size_t S = paths.size(), n = static_cast<std::size_t>(n_instances);
  std::size_t np = 0, ny = 0, nu = 0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t s = 0; s < S; ++s) {
    for (std::size_t i = 0; i < n; ++i) {
      if (stop_requested()) throw Interrupted("seeding the sensitivities");
      const double v = values[s][i], h = kSeedStep * std::max(std::abs(v), kSeedFloor);
      if (i > 0 && shared && v == values[s][0]) {  // the same model and value as instance 0
        std::copy_n(seeds.dparam.begin() + static_cast<std::ptrdiff_t>(s * n * np), np,
                    seeds.dparam.begin() + static_cast<std::ptrdiff_t>((s * n + i) * np));
        std::copy_n(seeds.dinput.begin() + static_cast<std::ptrdiff_t>(s * n * nu), nu,
                    seeds.dinput.begin() + static_cast<std::ptrdiff_t>((s * n + i) * nu));
        std::copy_n(seeds.dy0.begin() + static_cast<std::ptrdiff_t>(s * n * ny), ny,
                    seeds.dy0.begin() + static_cast<std::ptrdiff_t>((s * n + i) * ny));
        continue;
      }
      const int id = static_cast<int>(i);
      // Central where both sides compile; one-sided (error O(h)) at a bound of the value's
      // range (a damping or a payload mass of 0), from the side that compiles.
      std::optional<Compiled> plus, minus;
      std::exception_ptr error;
      for (int side = 0; side < 2; ++side) {
        try {
          (side == 0 ? plus : minus) = compile_at(rebuild, id, paths[s], side == 0 ? v + h : v - h);
        } catch (const Interrupted&) {
          throw;
        } catch (const std::runtime_error&) {  // a value the scene refuses (SceneError)
          error = std::current_exception();
        }
      }
      if (!plus && !minus) std::rethrow_exception(error);
      const Compiled center = (plus && minus) ? Compiled{} : compile_at(rebuild, id, paths[s], v);
      const Compiled& hi = plus ? *plus : center;
      const Compiled& lo = minus ? *minus : center;
      const double width = (plus && minus) ? 2 * h : h;
      if (np == 0) {
        np = hi.params.size();
        nu = hi.inputs.size();
        ny = hi.state_size;
        seeds.dparam.assign(S * n * np, 0.0);
        seeds.dinput.assign(S * n * nu, 0.0);
        seeds.dy0.assign(S * n * ny, 0.0);
      }
      if (hi.params.size() != np || lo.params.size() != np || hi.inputs.size() != nu || lo.inputs.size() != nu ||
          hi.state_size != ny || lo.state_size != ny)
        throw std::invalid_argument("sensitivities: a change of " + paths[s] + " changes the model's structure");
      for (std::size_t q = 0; q < np; ++q) seeds.dparam[(s * n + i) * np + q] = (hi.params[q] - lo.params[q]) / width;
      for (std::size_t e = 0; e < nu; ++e) seeds.dinput[(s * n + i) * nu + e] = (hi.inputs[e] - lo.inputs[e]) / width;
      const bool ok = hi.y0 && lo.y0;
      for (std::size_t e = 0; e < ny; ++e)
        seeds.dy0[(s * n + i) * ny + e] = ok ? ((*hi.y0)[e] - (*lo.y0)[e]) / width : nan;
    }
  }
  return seeds;
}

}  // namespace simphant
