#pragma once
// What this build of simphant has, for the checks that refuse a setting it lacks before
// any work (scene/solver_compile.cpp, job/job_checks.cpp).

namespace simphant {

/// True when simphant was built with SUNDIALS' CVODE (CMake SIMPHANT_SUNDIALS): the bdf
/// integrator runs on the cpu backend. Defined by sim/cpu_bdf.cpp, or in a build without
/// SUNDIALS by sim/cpu_bdf_unavailable.cpp.
bool bdf_available();

/// The reason of the refusal of bdf in a build without SUNDIALS (after the field's name).
constexpr const char* kBdfUnavailable = "bdf needs SUNDIALS; this simphant was built without it";

}  // namespace simphant
