#include "simphant/sim/backend_rules.hpp"

#include "simphant/core/build_features.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/sim/cpu_simd_engine.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "simphant/simd/simd_step.hpp"

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

// auto on a CUDA device: cuda-fused (one thread per instance and RK4 stage,
// topology-ordered block-sparse Cholesky) or cuda (per-joint kernels + cuSOLVER batched
// dense Cholesky). Crossover measured on one H200 (simphant bench, 2026-11-30,
// docs/performance.md), fused / cuda instance-steps per second in fp64:
//   instances        1     256    4096   65536
//   chain_1 (m 5)  1.39   1.77    2.42    6.02
//   chain_4 (m 20) 0.51   0.60    0.94    4.85
//   chain_8 (m 40) 0.35   0.38    1.11    6.38
//   chain_32 (m160)0.25   0.34    2.85   18.2
// (fp32 alike; at 4096 the loops and arm7 give 0.95-1.08). One thread per instance
// leaves a small batch latency-bound, where the per-joint kernels spread an instance over
// many threads; from 4096 instances the two are within 10 % and above it the fused path
// wins by 4-18x; with at most 5 rows (one revolute or spherical joint) it wins at any size.
bool prefer_fused(const Model& model, long long design_size) { return design_size >= 4096 || model.n_rows <= 5; }

bool cpu_simd_selected(const Model& model, const std::string& requested, const std::string& schur,
                       long long design_size) {
  if (requested == "cpu-simd") return true;
  if (requested != "auto") return false;
  // auto without a CUDA device: cpu-simd (sim/cpu_simd_engine.hpp) where it runs the
  // scene and the batch fills at least one group of SIMD lanes; a smaller batch would
  // step padding copies of its instances, so the cpu backend runs it.
  return cpu_simd_unsupported(model).empty() && parse_schur_factorization(schur) != SchurFactorization::Dense &&
         design_size >= simd::kLaneWidth;
}

std::string choose_backend(const Model& model, const std::string& requested, const std::string& schur,
                           long long design_size, int cuda_devices) {
  const bool named_cuda = requested == "cuda" || requested == "cuda-fused";
  const bool bdf = model.solver.integrator == Integrator::Bdf;
  // auto picks a GPU path when the build has CUDA and a device is present, also for robot
  // scenes (docs/robots.md, "Backends"); bdf stays on the CPU.
  const bool cuda = named_cuda || (requested == "auto" && !bdf && cuda_devices > 0);
  if (model.robot && model.robot->solver != RobotSolver::Dae) {
    // The joint-space backend: one thread per instance on the GPU (`cuda` and
    // `cuda-fused` name the same path), scalar or in SIMD lanes on the CPU.
    if (cuda) return "cuda";
    return ReducedBackend::lanes_for(requested, design_size) ? "cpu-simd" : "cpu";
  }
  if (cuda)
    return requested == "cuda-fused" || (requested == "auto" && prefer_fused(model, design_size)) ? "cuda-fused"
                                                                                                 : "cuda";
  return cpu_simd_selected(model, requested, schur, design_size) ? "cpu-simd" : "cpu";
}

std::string cpu_backend_of_auto(const Model& model, long long design_size) {
  return choose_backend(model, "auto", "auto", design_size > 0 ? design_size : 1, 0);
}

}  // namespace simphant
