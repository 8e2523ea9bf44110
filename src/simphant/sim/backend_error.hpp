#pragma once
// BackendError: a back end could not run the batch (no CUDA device, a device too small
// for the batch, a CUDA runtime or cuSOLVER call that failed, a backend not in this
// build). The message names the call and the batch. The CLI maps it to exit code 3.
#include <stdexcept>
#include <string>

namespace simphant {

class BackendError : public std::runtime_error {
 public:
  explicit BackendError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace simphant
