// CudaBackend<double> and the CUDA backend's entry points (sim/cuda_factory.hpp).
#include "cuda_backend_impl.cuh"
#include "cuda_backend_state.cuh"
#include "cuda_backend_reductions.cuh"
#include "cuda_backend_dopri5.cuh"
#include "simphant/model/robot.hpp"

namespace simphant::cuda {

template class CudaBackend<double>;

}  // namespace simphant::cuda

namespace simphant {

bool cuda_backend_built() { return true; }

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" / "no driver" error
    return 0;
  }
  return count;
}

void cuda_check_fits(const Model& model, int n_instances, int n_varied_bound, const std::string& backend,
                     const std::string& precision) {
  if (model.robot && model.robot->solver != RobotSolver::Dae) {  // the GPU joint-space backend
    cuda_reduced_check_fits(model, n_instances, n_varied_bound > 0, precision);
    return;
  }
  cuda::check_fits(model, n_instances, n_varied_bound, cuda_bytes_per_instance(model, n_varied_bound, backend, precision),
                   cuda::batch_name(model, n_instances, precision, backend == "cuda-fused"));
}

std::unique_ptr<Backend> make_cuda_backend(std::shared_ptr<const std::vector<Model>> models, int n_instances,
                                           AssembledBatch assembled, const std::string& precision, bool use_graph,
                                           bool fused) {
  require_cuda_device();
  if (precision == "fp32")
    return std::make_unique<cuda::CudaBackend<float>>(std::move(models), n_instances, std::move(assembled), use_graph,
                                                      fused);
  return std::make_unique<cuda::CudaBackend<double>>(std::move(models), n_instances, std::move(assembled), use_graph,
                                                     fused);
}

std::size_t cuda_bytes_per_instance(const Model& model, int n_varied, const std::string& backend,
                                    const std::string& precision) {
  if (backend != "cuda" && backend != "cuda-fused")
    throw std::invalid_argument("cuda_bytes_per_instance: no memory formula for backend '" + backend + "'");
  if (precision != "fp64" && precision != "fp32")
    throw std::invalid_argument("cuda_bytes_per_instance: unknown precision '" + precision + "' (fp64 or fp32)");
  // A robot scene with solver aba / cga runs on the GPU joint-space backend (either name).
  if (model.robot && model.robot->solver != RobotSolver::Dae)
    return cuda_reduced_bytes_per_instance(model, n_varied > 0, precision);
  const bool fused = backend == "cuda-fused";
  return precision == "fp32" ? cuda::bytes_per_instance<float>(model, n_varied, fused)
                             : cuda::bytes_per_instance<double>(model, n_varied, fused);
}

}  // namespace simphant
