#pragma once
// The bdf integrator's host memory; whether this build has it: core/build_features.hpp.
#include "simphant/core/build_features.hpp"

namespace simphant {

/// Host bytes the bdf integrator holds per instance once it has stepped, for a state of
/// ny numbers and n_inputs inputs: CVODE's memory (its history of up to 6 vectors, work
/// vectors, the Newton and linear-solver vectors, about 240 ny bytes with the vectors'
/// headers; the dense Newton matrix and the saved Jacobian, 16 ny^2; 13 kB of structures
/// and the SUNContext) and sim/cpu_bdf.cpp's copy of the last output and inputs. Fitted
/// to glibc's allocated bytes (mallinfo2) after the first step: within 5 % above them for
/// the pendulum (ny 13), the double pendulum, the four-bar and Bricard's linkage (ny 65).
inline double bdf_instance_bytes(int ny, int n_inputs) {
  const double n = ny;
  return 13000.0 + 240.0 * n + 16.0 * n * n + 8.0 * n + 8.0 * n_inputs + 9.0;
}

}  // namespace simphant
