#pragma once
// Per-thread function of the reduced-coordinate forward-dynamics kernel: one thread per
// instance runs the articulated-body algorithm, spatial-vector
// (Featherstone ch. 7, simphant/reduced/aba.hpp) or its conformal-geometric-algebra form
// (simphant/reduced/cga/cga_dynamics.hpp), on that instance's joint state. The reduced
// backend runs on the CPU today (sim/reduced_backend.cpp); kernels/reduced_dynamics.cu
// compiles this function for the device so every CUDA build proves the solvers build
// there, and tests/test_reduced_kernel.cpp runs it over a grid on the CPU.
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"

namespace simphant::batch {

/// tid = instance i. links (n_links) shared; q, qd, tau, qdd_out: (n_instances, n_links)
/// instance-major [rad | m, /s, N m | N, /s^2]. use_cga: 0 spatial ABA, 1 CGA ABA.
/// Threads past n_instances return.
template <class T>
SP_HD void reduced_forward_dynamics_thread(int tid, int n_instances, int n_links, const ReducedLinkParams<T>* links,
                                           Vec3<T> gravity, int use_cga, const T* q, const T* qd, const T* tau,
                                           T* qdd_out) {
  if (tid >= n_instances) return;
  const std::size_t o = static_cast<std::size_t>(tid) * n_links;
  if (use_cga) {
    cga::CgaWorkspace<T> ws;
    cga::cga_aba(n_links, links, gravity, q + o, qd + o, tau + o, qdd_out + o, ws);
  } else {
    AbaWorkspace<T> ws;
    aba(n_links, links, gravity, q + o, qd + o, tau + o, qdd_out + o, ws);
  }
}

}  // namespace simphant::batch
