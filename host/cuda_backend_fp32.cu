// CudaBackend<float> (the fp32 paths), compiled apart from the fp64 one.
#include "cuda_backend_impl.cuh"
#include "cuda_backend_state.cuh"
#include "cuda_backend_reductions.cuh"
#include "cuda_backend_dopri5.cuh"

namespace simphant::cuda {

template class CudaBackend<float>;

}  // namespace simphant::cuda
