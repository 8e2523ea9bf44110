#include "simphant/sim/sensitivity_seeds.hpp"

#include <algorithm>
#include <exception>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "simphant/batch/batch_pack.hpp"
#include "simphant/batch/robot_pack.hpp"
#include "simphant/core/stop_flag.hpp"
#include "simphant/sim/assemble_batch.hpp"
#include "simphant/sim/quaternion_sign.hpp"
#include "simphant/sim/reduced_backend.hpp"

namespace simphant {

namespace {

/// What the seeds difference of one compiled model: its packed parameters, its
/// actuators' default inputs and its assembled state (nullopt: it did not assemble).
struct Compiled {
  std::size_t state_size = 0;  ///< the backend's: 13 N, or robot_state_size
  std::vector<double> params, inputs;
  std::optional<std::vector<double>> y0;
  std::vector<int> quaternions;  ///< state_quaternion_offsets
};

Compiled compile_at(const SensitivityRebuild& rebuild, int instance, const std::string& path, double value) {
  Model m = rebuild(instance, {{path, value}});
  // The seeds difference two assembled states: assembled to well below the run's
  // tolerance, so that their difference over 2 h holds more digits.
  m.solver.assembly_tolerance = std::min(m.solver.assembly_tolerance, kSeedAssemblyTolerance);
  Compiled c;
  c.quaternions = state_quaternion_offsets(m);
  if (m.robot && m.robot->solver != RobotSolver::Dae) {  // joint coordinates: nothing to assemble
    c.params = batch::robot_flat_params(m);
    c.inputs = m.robot->tau;
    const ReducedBackend backend(std::make_shared<const std::vector<Model>>(1, std::move(m)), 1, 1);
    c.state_size = static_cast<std::size_t>(backend.state_size());
    std::vector<double> y(c.state_size);
    std::int8_t status = 0;
    backend.get_state(nullptr, 1, y.data(), nullptr, &status, nullptr, nullptr);  // after its reset (mimic, normalised)
    if (status == 0) c.y0 = std::move(y);  // ok
    return c;
  }
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
  std::vector<int> quaternions;  ///< state_quaternion_offsets of the models
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
        const std::size_t nq = 4 * quaternions.size();
        std::copy_n(seeds.quaternion_ref.begin() + static_cast<std::ptrdiff_t>(s * n * nq), nq,
                    seeds.quaternion_ref.begin() + static_cast<std::ptrdiff_t>((s * n + i) * nq));
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
        quaternions = hi.quaternions;
        seeds.quaternion_ref.assign(S * n * quaternions.size() * 4, 1.0);
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
      std::vector<double> y_hi = ok ? *hi.y0 : std::vector<double>(), y_lo = ok ? *lo.y0 : std::vector<double>();
      for (std::size_t e = 0; e < ny; ++e) seeds.dy0[(s * n + i) * ny + e] = nan;
      if (ok) {
        // Each quaternion of y_lo on y_hi's branch; y_hi's kept as the branch of the seeds.
        for (std::size_t k = 0; k < quaternions.size(); ++k) {
          const std::size_t o = static_cast<std::size_t>(quaternions[k]);
          const double sign = quaternion_sign(y_lo.data() + o, y_hi.data() + o);
          for (std::size_t c = 0; c < 4; ++c) {
            y_lo[o + c] *= sign;
            seeds.quaternion_ref[((s * n + i) * quaternions.size() + k) * 4 + c] = y_hi[o + c];
          }
        }
        for (std::size_t e = 0; e < ny; ++e) seeds.dy0[(s * n + i) * ny + e] = (y_hi[e] - y_lo[e]) / width;
      }
    }
  }
  return seeds;
}

}  // namespace simphant
