#pragma once
// The CUDA backend as the core library sees it (defined in host/cuda_backend_fp64.cu when
// the build has CUDA, in sim/cuda_unavailable.cpp otherwise), so that nothing outside
// host/ and kernels/ needs the CUDA headers.
#include <memory>
#include <string>
#include <vector>

#include "simphant/sim/assemble_batch.hpp"
#include "simphant/sim/backend.hpp"
#include "simphant/sim/backend_error.hpp"

namespace simphant {

/// True when this build has the CUDA backend.
bool cuda_backend_built();

/// Number of usable CUDA devices; 0 without a device, a driver, or a CUDA build.
int cuda_device_count();

/// Why the cuda backend cannot run here ("" when it can): no CUDA support in this build,
/// or no visible device.
inline std::string cuda_unavailable_reason() {
  if (!cuda_backend_built()) return "this build has no CUDA support (configure with -DSIMPHANT_CUDA=ON)";
  if (cuda_device_count() == 0) return "no CUDA device is visible (cudaGetDeviceCount found none)";
  return "";
}

/// Throws BackendError("backend '<backend>': <reason>; use --backend cpu or auto") unless
/// the GPU backends can run here. backend: the name the user asked for ("cuda",
/// "cuda-fused").
inline void require_cuda_device(const std::string& backend = "cuda") {
  const std::string why = cuda_unavailable_reason();
  if (!why.empty()) throw BackendError("backend '" + backend + "': " + why + "; use --backend cpu or auto");
}

/// Checks, before any work, that n_instances of `model` fit on device 0 for `backend`
/// ("cuda" | "cuda-fused") in `precision` (and that the kernels' thread counts fit an
/// int). n_varied: the parameters stored per instance (batch::count_varied_params). A
/// robot model with solver aba / cga is checked for the GPU joint-space backend
/// (cuda_reduced_check_fits, one slot per instance when n_varied > 0). Throws
/// BackendError saying how many fit.
void cuda_check_fits(const Model& model, int n_instances, int n_varied, const std::string& backend,
                     const std::string& precision);

/// Creates the `cuda` backend (docs/cuda-backend.md) on device 0 for the assembled batch, or
/// with fused the `cuda-fused` one (kernels/fused_stage.hpp: one thread per instance per
/// RK4 stage, topology-ordered block-sparse Cholesky, no cuSOLVER).
/// precision: "fp64" or "fp32". use_graph: capture one step as a CUDA graph and replay
/// it (false: plain launches, for the graph-vs-launch test).
/// Throws BackendError (no device, device too small: the message says how many
/// instances fit, a CUDA / cuSOLVER call failed) and std::invalid_argument.
std::unique_ptr<Backend> make_cuda_backend(std::shared_ptr<const std::vector<Model>> models, int n_instances,
                                           AssembledBatch assembled, const std::string& precision, bool use_graph,
                                           bool fused = false);

/// Device memory per instance [bytes] of `backend` ("cuda" | "cuda-fused") in `precision` ("fp64" |
/// "fp32") for `model` with n_varied per-instance parameters: the figure cuda_check_fits
/// checks against the free memory (host/cuda_backend_fp64.cu; docs/cuda-backend.md "Memory per
/// instance"); for a robot model with solver aba / cga the GPU joint-space backend's
/// (cuda_reduced_bytes_per_instance, one slot per instance when n_varied > 0). Pure
/// arithmetic, no device needed. Throws std::invalid_argument for a backend without a
/// formula; BackendError in a build without CUDA.
std::size_t cuda_bytes_per_instance(const Model& model, int n_varied, const std::string& backend,
                                    const std::string& precision);

/// The GPU joint-space backend of a robot scene with solver aba or cga
/// (host/cuda_reduced_backend.cuh; docs/cuda-backend.md, "Robots"): one thread per
/// instance, fixed-step rk4 / euler / symplectic_euler, state in structure of arrays, one
/// model slot per instance when models has one model per instance. precision "fp64" |
/// "fp32". Throws BackendError (no device, a failed CUDA call, the batch does not fit) and
/// std::invalid_argument (not a robot model with solver aba / cga, another integrator).
std::unique_ptr<Backend> make_cuda_reduced_backend(std::shared_ptr<const std::vector<Model>> models, int n_instances,
                                                   const std::string& precision);

/// Device memory per instance [bytes] of the GPU joint-space backend for robot model
/// `model` in `precision`, with one model slot per instance when models_per_instance.
/// Pure arithmetic (batch/robot_batch_layout.hpp: robot_batch_bytes_per_instance); the
/// same figure in a build without CUDA.
std::size_t cuda_reduced_bytes_per_instance(const Model& model, bool models_per_instance, const std::string& precision);

/// As cuda_check_fits for the GPU joint-space backend: throws BackendError saying how many
/// instances fit on device 0.
void cuda_reduced_check_fits(const Model& model, int n_instances, bool models_per_instance,
                             const std::string& precision);

/// Device 0's name, size and peaks (host/device_info.cu), for the benchmark's achieved
/// fraction of peak. Peaks are theoretical: mem_bandwidth_GBps = 2 x memory clock x bus
/// width / 8 [GB/s, 1e9 B/s]; fp64 / fp32 peak = SMs x boost clock x FMA lanes per SM per
/// clock x 2 [GFLOP/s] (lanes per architecture in device_info.cu, e.g. sm_90: 64 fp64,
/// 128 fp32).
struct CudaDeviceInfo {
  std::string name;
  int sm_count = 0;
  double mem_bandwidth_GBps = 0;
  double fp64_peak_GFLOPs = 0, fp32_peak_GFLOPs = 0;
  std::size_t total_memory = 0;  ///< [bytes]
};

/// Throws BackendError without a device or a CUDA build (require_cuda_device()), or when a
/// CUDA call fails.
CudaDeviceInfo cuda_device_info();

}  // namespace simphant
