// CpuBackend's dopri5 integrator (docs/solver.md, "Integrators"). Placeholder until the
// integrator is built: advance_dopri5 refuses to run.
#include "simphant/sim/cpu_backend.hpp"

namespace simphant {

struct CpuDopri5State {};

void CpuDopri5StateDeleter::operator()(CpuDopri5State* s) const { delete s; }

void CpuBackend::advance_dopri5(int n_steps) {
  (void)n_steps;
  throw BackendError("integrator 'dopri5' on the cpu backend: not built yet");
}

int CpuBackend::dopri5_state_size() const { return 0; }
void CpuBackend::get_dopri5_state(double* out) const { (void)out; }
void CpuBackend::set_dopri5_state(const double* in) { (void)in; }
void CpuBackend::restart_dopri5(int i) { (void)i; }

}  // namespace simphant
