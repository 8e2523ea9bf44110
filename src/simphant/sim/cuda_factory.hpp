#pragma once
// The CUDA backend as the core library sees it (defined in host/cuda_backend.cu when
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

/// Throws BackendError("backend 'cuda': <reason>; use --backend cpu or auto") unless the
/// cuda backend can run here.
inline void require_cuda_device() {
  const std::string why = cuda_unavailable_reason();
  if (!why.empty()) throw BackendError("backend 'cuda': " + why + "; use --backend cpu or auto");
}

/// Checks, before any work, that n_instances of `model` fit on device 0 in `precision`
/// (and that the kernels' thread counts fit an int). n_varied: the parameters stored per
/// instance (batch::count_varied_params). Throws BackendError saying how many fit.
void cuda_check_fits(const Model& model, int n_instances, int n_varied, const std::string& precision);

/// Creates the `cuda` backend (design.md §4) on device 0 for the assembled batch.
/// precision: "fp64" or "fp32". use_graph: capture one step as a CUDA graph and replay
/// it (false: plain launches, for the graph-vs-launch test).
/// Throws BackendError (no device, device too small: the message says how many
/// instances fit, a CUDA / cuSOLVER call failed) and std::invalid_argument.
std::unique_ptr<Backend> make_cuda_backend(std::shared_ptr<const std::vector<Model>> models, int n_instances,
                                           AssembledBatch assembled, const std::string& precision, bool use_graph);

}  // namespace simphant
