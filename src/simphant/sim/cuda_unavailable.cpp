// The CUDA backend entry points of a build without CUDA (SIMPHANT_CUDA=OFF or no nvcc):
// CMakeLists.txt compiles this file only then.
#include "simphant/sim/backend_error.hpp"
#include "simphant/sim/cuda_factory.hpp"

namespace simphant {

bool cuda_backend_built() { return false; }

int cuda_device_count() { return 0; }

void cuda_check_fits(const Model&, int, int, const std::string&) {
  throw BackendError("backend 'cuda': this build has no CUDA support (configure with -DSIMPHANT_CUDA=ON on a "
                     "machine with the CUDA toolkit)");
}

std::unique_ptr<Backend> make_cuda_backend(std::shared_ptr<const std::vector<Model>>, int, AssembledBatch,
                                           const std::string&, bool) {
  throw BackendError("backend 'cuda': this build has no CUDA support (configure with -DSIMPHANT_CUDA=ON on a "
                     "machine with the CUDA toolkit)");
}

}  // namespace simphant
