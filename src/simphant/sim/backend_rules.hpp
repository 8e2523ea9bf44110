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
#include "simphant/model/model.hpp"

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

/// The automatic choice, and a named backend's form: the backend a batch of `model` runs
/// on, "cpu", "cpu-simd", "cuda" or "cuda-fused" (a robot in joint coordinates: its
/// joint-space backend as scalar "cpu", lanes "cpu-simd" or "cuda"). requested: "auto" or
/// a name; schur: the Schur factorisation option ("auto", "dense", "sparse");
/// design_size: the instances auto decides for (the whole design: a shard decides as the
/// one-shot run); cuda_devices: the CUDA devices present (read for "auto" only).
/// auto: a GPU path when a device is present and the integrator is not bdf (cuda-fused
/// from 4096 instances or for at most 5 constraint rows: prefer_fused), else cpu-simd where
/// it runs the model and the batch fills a group of SIMD lanes, else cpu.
std::string choose_backend(const Model& model, const std::string& requested, const std::string& schur,
                           long long design_size, int cuda_devices);

/// Whether auto takes cuda-fused over cuda on a device (measured crossover, sim/backend_rules.cpp).
bool prefer_fused(const Model& model, long long design_size);

/// Whether a batch that runs on the CPU runs on cpu-simd: requested "cpu-simd", or "auto"
/// where cpu-simd runs the model (cpu_simd_unsupported, sim/cpu_simd_engine.hpp), schur is
/// not "dense" and design_size is at least simd::kLaneWidth.
bool cpu_simd_selected(const Model& model, const std::string& requested, const std::string& schur,
                       long long design_size);

/// The CPU backend auto runs a design of design_size instances on where no CUDA path is
/// chosen: "cpu-simd" or "cpu". The distributed sweep pins it for every task without a
/// GPU, so that all shards run the one-shot run's backend.
std::string cpu_backend_of_auto(const Model& model, long long design_size);

}  // namespace simphant
