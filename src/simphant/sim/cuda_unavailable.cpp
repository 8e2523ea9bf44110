// The CUDA backend entry points of a build without CUDA (SIMPHANT_CUDA=OFF or no nvcc):
// CMakeLists.txt compiles this file only then. Each entry throws require_cuda_device()'s
// BackendError ("this build has no CUDA support ...").
#include <stdexcept>

#include "simphant/sim/cuda_factory.hpp"

namespace simphant {

bool cuda_backend_built() { return false; }

int cuda_device_count() { return 0; }

void cuda_check_fits(const Model&, int, int, const std::string&, const std::string&) { require_cuda_device(); }

std::unique_ptr<Backend> make_cuda_backend(std::shared_ptr<const std::vector<Model>>, int, AssembledBatch,
                                           const std::string&, bool, bool) {
  require_cuda_device();
  throw std::logic_error("unreachable: require_cuda_device() throws in a build without CUDA");
}

std::size_t cuda_bytes_per_instance(const Model&, int, const std::string&, const std::string&) {
  require_cuda_device();
  return 0;
}

std::unique_ptr<Backend> make_cuda_reduced_backend(std::shared_ptr<const std::vector<Model>>, int, const std::string&) {
  require_cuda_device();
  throw std::logic_error("unreachable: require_cuda_device() throws in a build without CUDA");
}

void cuda_reduced_check_fits(const Model&, int, bool, const std::string&) { require_cuda_device(); }

CudaDeviceInfo cuda_device_info() {
  require_cuda_device();
  return {};
}

}  // namespace simphant
