// Device build of the shared joint math (src/simphant/joints/joint_math.hpp): a thin
// __global__ trampoline, one thread per (instance, joint), around joint_rows_thread
// (kernels/joint_rows.hpp). Every CUDA-enabled build compiles it, so the one copy of the
// joint math is proven to build for the device; the batched CUDA backend (design.md §4,
// a later issue) adds its launcher.
#include "joint_rows.hpp"

namespace simphant {

template <class T>
__global__ void joint_rows_kernel(int n_instances, int n_joints, const JointType* types, const JointFrame<T>* frames,
                                  const BodyKin<T>* kin_i_in, const BodyKin<T>* kin_j_in, JointRows<T>* rows_out) {
  joint_rows_thread(static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x), n_instances, n_joints, types, frames,
                    kin_i_in, kin_j_in, rows_out);
}

template __global__ void joint_rows_kernel<double>(int, int, const JointType*, const JointFrame<double>*,
                                                   const BodyKin<double>*, const BodyKin<double>*, JointRows<double>*);
template __global__ void joint_rows_kernel<float>(int, int, const JointType*, const JointFrame<float>*,
                                                  const BodyKin<float>*, const BodyKin<float>*, JointRows<float>*);

}  // namespace simphant
