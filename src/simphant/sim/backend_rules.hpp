#pragma once
// Which backend runs which settings (docs/solver.md, "Integrators"; docs/robots.md,
// "Backends"): the one owner of these rules and of their words. A refusal names the
// setting ("backend", "precision", "integrator") and the reason; each caller says where the
// setting came from: the CLI as its flag (--backend, job/job_checks.cpp), the service as
// its JSON path (/options/backend, python/simphant/serve/options.py, through the module),
// the Simulator as the setting itself.
//
//   if (auto r = simphant::refuse_backend_settings({"cuda", "fp64", Integrator::Bdf}))
//     throw SceneError("--" + r->setting, r->reason);   // integrator bdf runs on the cpu backend only ...
#include <optional>
#include <string>

#include "simphant/model/integrator.hpp"

namespace simphant {

/// What a run asks of its backend: the requested backend (auto, cpu, cpu-simd, cuda,
/// cuda-fused), the precision (fp64, fp32) and the integrator it steps with.
struct BackendSettings {
  std::string backend = "auto";
  std::string precision = "fp64";
  Integrator integrator = Integrator::Rk4;
};

struct BackendRefusal {
  std::string setting;  ///< "backend", "precision" or "integrator"
  std::string reason;   ///< e.g. "integrator bdf runs on the cpu backend only (got backend cuda)"
};

/// The first rule the settings break, whatever the model and the machine: bdf in a build
/// without SUNDIALS (integrator); bdf on cuda or cuda-fused, and an adaptive integrator
/// (dopri5, bdf) on cpu-simd (backend); fp32 on cpu or cpu-simd (precision). nullopt when
/// none: a named cuda backend may still find no device, and a model may still be one that
/// cpu-simd does not run (cpu_simd_unsupported, sim/cpu_simd_engine.hpp).
std::optional<BackendRefusal> refuse_backend_settings(const BackendSettings& s);

}  // namespace simphant
