#include "simphant/dynamics/euler.hpp"

#include "simphant/dynamics/step_common.hpp"

namespace simphant {

bool euler_step(EulerKind kind, const Model& model, Data& d, double t, double* Y, const double* inputs, double dt,
                double kinetic_bound, const ReductionSink* sink) {
  if (!begin_step(model, d, t, Y, inputs, sink)) return false;
  const int N = model.n_bodies();
  double* ys = d.y_stage.data();
  const double* k1 = d.k1.data();
  // Y = [q (7N): r, p per body; qdot (6N): v, omega_B per body], Ydot likewise.
  for (int k = 0; k < N; ++k)
    euler_body_step(kind, dt, Y + 7 * k, Y + 7 * N + 6 * k, k1 + 7 * k, k1 + 7 * N + 6 * k, ys + 7 * k,
                    ys + 7 * N + 6 * k);
  return finish_step(model, d, t + dt, ys, kinetic_bound, Y);
}

}  // namespace simphant
