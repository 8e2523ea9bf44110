#include "simphant/sim/backend_rules.hpp"

#include "simphant/core/build_features.hpp"

namespace simphant {

std::optional<BackendRefusal> refuse_backend_settings(const BackendSettings& s) {
  const bool named_cuda = s.backend == "cuda" || s.backend == "cuda-fused";
  const bool cpu = s.backend == "cpu" || s.backend == "cpu-simd";
  const std::string integrator = integrator_name(s.integrator);
  if (s.integrator == Integrator::Bdf && !bdf_available()) return BackendRefusal{"integrator", kBdfUnavailable};
  if (s.integrator == Integrator::Bdf && named_cuda)
    return BackendRefusal{"backend", "integrator bdf runs on the cpu backend only (got backend " + s.backend + ")"};
  if (s.backend == "cpu-simd" && is_adaptive(s.integrator))
    return BackendRefusal{"backend", "cpu-simd runs the fixed-step integrators (rk4, euler, symplectic_euler); integrator " +
                                         integrator + " runs on the cpu backend"};
  if (s.precision == "fp32" && cpu)
    return BackendRefusal{"precision", "fp32 runs on the cuda backends only (got backend " + s.backend +
                                           "; the cpu backends run fp64)"};
  return std::nullopt;
}

}  // namespace simphant
