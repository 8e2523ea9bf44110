// CpuBackend's bdf integrator (docs/solver.md, "Integrators"). Placeholder until the
// integrator is built: advance_bdf refuses to run.
#include "simphant/sim/cpu_backend.hpp"

namespace simphant {

struct CpuBdfState {};

void CpuBdfStateDeleter::operator()(CpuBdfState* s) const { delete s; }

void CpuBackend::advance_bdf(int n_steps) {
  (void)n_steps;
  throw BackendError("integrator 'bdf' on the cpu backend: not built yet");
}

int CpuBackend::bdf_state_size() const { return 0; }
void CpuBackend::get_bdf_state(double* out) const { (void)out; }
void CpuBackend::set_bdf_state(const double* in) { (void)in; }
void CpuBackend::restart_bdf(int i) { (void)i; }

}  // namespace simphant
