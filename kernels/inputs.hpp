#pragma once
// Per-thread function of the inputs kernel: actuator inputs given as rows (n, n_inputs)
// (Backend::set_inputs' layout, double) into the batch's structure of arrays
// (n_inputs, n) of T.
#include <cstddef>

#include "simphant/core/hd.hpp"

namespace simphant::batch {

/// tid = a * n + i. u_rows_in (n, n_inputs) double; inputs_out (n_inputs, n).
template <class T>
SP_HD void inputs_thread(int tid, int n, int n_inputs, const double* u_rows_in, T* inputs_out) {
  if (tid >= n * n_inputs) return;
  const int i = tid % n, a = tid / n;
  inputs_out[static_cast<std::size_t>(a) * n + i] = static_cast<T>(u_rows_in[static_cast<std::size_t>(i) * n_inputs + a]);
}

}  // namespace simphant::batch
