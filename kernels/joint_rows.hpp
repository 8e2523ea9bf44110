#pragma once
// Per-thread function of the joint-rows kernel (kernels/joint_rows_kernel.cu), callable
// on the host so that CPU tests run it over the whole grid (design.md §2).
#include "simphant/joints/joint_math.hpp"

namespace simphant {

/// Joint k = tid % n_joints of instance tid / n_joints: Phi, Phi_q (x12), gamma.
/// types: (n_joints), frames: (n_joints) shared by all instances; kin_i_in, kin_j_in,
/// rows_out: (n_instances * n_joints), instance-major. Threads past the grid return.
template <class T>
SP_HD void joint_rows_thread(int tid, int n_instances, int n_joints, const JointType* types, const JointFrame<T>* frames,
                             const BodyKin<T>* kin_i_in, const BodyKin<T>* kin_j_in, JointRows<T>* rows_out) {
  if (tid >= n_instances * n_joints) return;
  const int k = tid % n_joints;
  joint_eval(types[k], frames[k], kin_i_in[tid], kin_j_in[tid], rows_out[tid]);
}

}  // namespace simphant
