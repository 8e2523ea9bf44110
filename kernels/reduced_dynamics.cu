// Device build of the reduced-coordinate forward dynamics (kernels/reduced_dynamics.hpp):
// a thin __global__ trampoline, one thread per instance, instantiated for fp64 and fp32.
// No launcher yet: the reduced backend runs on the CPU; a GPU one would launch this.
#include "reduced_dynamics.hpp"

namespace simphant::batch {

template <class T>
__global__ void reduced_forward_dynamics_kernel(int n_instances, int n_links, const ReducedLinkParams<T>* links,
                                                Vec3<T> gravity, int use_cga, const T* q, const T* qd, const T* tau,
                                                T* qdd_out) {
  reduced_forward_dynamics_thread(static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x), n_instances, n_links, links,
                                  gravity, use_cga, q, qd, tau, qdd_out);
}

template __global__ void reduced_forward_dynamics_kernel<double>(int, int, const ReducedLinkParams<double>*, Vec3<double>,
                                                                 int, const double*, const double*, const double*,
                                                                 double*);
template __global__ void reduced_forward_dynamics_kernel<float>(int, int, const ReducedLinkParams<float>*, Vec3<float>,
                                                                int, const float*, const float*, const float*, float*);

}  // namespace simphant::batch
