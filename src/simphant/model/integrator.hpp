#pragma once
// The integrators behind solver.integrator (docs/solver.md, "Integrators"): the methods
// that advance the state Y' = f(t, Y) of the index-1 formulation around one evaluate(t, Y).
//   rk4               classical fixed-step Runge-Kutta, order 4 (the default)
//   euler             explicit (forward) Euler, fixed step, order 1
//   symplectic_euler  semi-implicit Euler: velocities first, positions from the new
//                     velocities; fixed step, order 1
//   dopri5            Dormand-Prince 5(4), adaptive step per instance, order 5
//   bdf               variable-order implicit BDF (SUNDIALS CVODE), adaptive, CPU only
// The batch clock is steps * dt for every integrator; the adaptive ones integrate to
// each grid time with their own internal steps (docs/solver.md, "Integrators").
#include <cstdint>
#include <string>

namespace simphant {

enum class Integrator : std::int8_t { Rk4 = 0, Euler = 1, SymplecticEuler = 2, Dopri5 = 3, Bdf = 4 };

/// The scene-format name: "rk4", "euler", "symplectic_euler", "dopri5", "bdf"
/// ("unknown" for a value outside the enum).
inline const char* integrator_name(Integrator k) {
  switch (k) {
    case Integrator::Rk4: return "rk4";
    case Integrator::Euler: return "euler";
    case Integrator::SymplecticEuler: return "symplectic_euler";
    case Integrator::Dopri5: return "dopri5";
    case Integrator::Bdf: return "bdf";
  }
  return "unknown";
}

/// Name -> Integrator; false (out unchanged) for any other name.
inline bool parse_integrator(const std::string& name, Integrator& out) {
  for (Integrator k : {Integrator::Rk4, Integrator::Euler, Integrator::SymplecticEuler, Integrator::Dopri5,
                       Integrator::Bdf}) {
    if (name == integrator_name(k)) {
      out = k;
      return true;
    }
  }
  return false;
}

/// True for the integrators with their own step-size control (dopri5, bdf).
inline bool is_adaptive(Integrator k) { return k == Integrator::Dopri5 || k == Integrator::Bdf; }

/// The order of accuracy in the step size: 4 (rk4), 1 (euler, symplectic_euler),
/// 5 (dopri5), 0 for bdf (variable order 1 to 5).
inline int integrator_order(Integrator k) {
  switch (k) {
    case Integrator::Rk4: return 4;
    case Integrator::Euler: return 1;
    case Integrator::SymplecticEuler: return 1;
    case Integrator::Dopri5: return 5;
    case Integrator::Bdf: return 0;
  }
  return 0;
}

}  // namespace simphant
