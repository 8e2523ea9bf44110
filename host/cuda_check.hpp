#pragma once
// Error checks of the CUDA host driver: every CUDA runtime and cuSOLVER call goes
// through one of these, which throw BackendError naming the call, the batch and the
// library's own message (the CLI turns it into exit code 3).
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <string>

#include "simphant/sim/backend_error.hpp"

namespace simphant::cuda {

/// Throws BackendError("cuda: <call> failed for <batch>: <error name>: <message>").
inline void check(cudaError_t e, const char* call, const std::string& batch) {
  if (e == cudaSuccess) return;
  throw BackendError(std::string("cuda: ") + call + " failed for " + batch + ": " + cudaGetErrorName(e) + ": " +
                     cudaGetErrorString(e));
}

inline const char* cusolver_status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "CUSOLVER_STATUS_(other)";
  }
}

/// Throws BackendError("cusolver: <call> failed for <batch>: <status>").
inline void check(cusolverStatus_t s, const char* call, const std::string& batch) {
  if (s == CUSOLVER_STATUS_SUCCESS) return;
  throw BackendError(std::string("cusolver: ") + call + " failed for " + batch + ": " + cusolver_status_name(s) +
                     " (" + std::to_string(static_cast<int>(s)) + ")");
}

}  // namespace simphant::cuda
