// CpuBackend's bdf integrator in a build without SUNDIALS (CMake SIMPHANT_SUNDIALS): the
// scene and option checks refuse bdf (sim/bdf_support.hpp), and a backend made anyway
// refuses to advance.
#include "simphant/sim/bdf_support.hpp"
#include "simphant/sim/cpu_backend.hpp"

namespace simphant {

bool bdf_available() { return false; }

struct CpuBdfState {};

void CpuBdfStateDeleter::operator()(CpuBdfState* s) const { delete s; }

void CpuBackend::advance_bdf(int n_steps) {
  (void)n_steps;
  throw BackendError(std::string("solver.integrator: ") + kBdfUnavailable);
}

int CpuBackend::bdf_state_size() const { return 0; }
void CpuBackend::get_bdf_state(double* out) const { (void)out; }
void CpuBackend::set_bdf_state(const double* in) { (void)in; }
void CpuBackend::restart_bdf(int i) { (void)i; }

}  // namespace simphant
