#pragma once
// Sizes of the CPU backend's dopri5 storage (sim/cpu_dopri5.cpp), for the memory estimate
// (sim/host_memory.cpp) and the integrator state's row (Backend::integrator_state_size).

namespace simphant {

/// Numbers per instance of the dopri5 integrator state row: the header (11), y and k1
/// (ny each), the dense-output coefficients r1..r5 (5 ny) and the inputs (n_inputs).
int cpu_dopri5_row_size(int ny, int n_inputs);

/// Doubles of scratch per worker thread: the stages k2..k7, the stage state and y1 (8 ny).
int cpu_dopri5_worker_doubles(int ny);

}  // namespace simphant
