#pragma once
// Whether this build has the bdf integrator: SUNDIALS' CVODE found at configure time
// (CMake SIMPHANT_SUNDIALS; sim/cpu_bdf.cpp, else sim/cpu_bdf_unavailable.cpp).

namespace simphant {

/// True when simphant was built with SUNDIALS (the bdf integrator runs on the cpu backend).
bool bdf_available();

/// The reason of the refusal of bdf in a build without SUNDIALS (after the field's name).
constexpr const char* kBdfUnavailable = "bdf needs SUNDIALS; this simphant was built without it";

}  // namespace simphant
