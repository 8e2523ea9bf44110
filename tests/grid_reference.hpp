#pragma once
// Test helper: the cuda and cuda-fused per-thread RK4 steps on the CPU grid
// (host_batch.hpp, cpu_grid_exec.hpp) against the CPU reference (dynamics/rk4.hpp) for
// models whose forces the batched kernels evaluate (kernels/body_forces.hpp, power.hpp,
// frame.hpp). Header-only, for any test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

#include "cpu_grid_exec.hpp"
#include "frame.hpp"
#include "host_batch.hpp"
#include "power.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/sim/assemble_batch.hpp"

namespace simphant::test {

/// n instances of `models` (one shared or one per instance) stepped `steps` times on the
/// CPU grid, cuda and cuda-fused paths, and by the CPU reference from the same assembled
/// state. The states agree to state_tol times the instance's largest state entry (0: bit
/// for bit, where no constraint row is solved; the batched Schur solve rounds differently
/// from the reference's). At the grid's final state the per-thread body forces, energy and
/// power equal the reference's bit for bit, and at_end(model, instance, d) runs with d
/// evaluated there (d.kin, the applied forces d.Q).
inline void expect_grid_matches_reference(const std::vector<Model>& models, int n, int steps, double state_tol,
                                          const std::function<void(const Model&, int, const Data&)>& at_end = {}) {
  for (bool fused : {false, true}) {
    const AssembledBatch asm_batch = assemble_batch(models, n, 1);
    HostBatch<double> hb(models, n, asm_batch, fused);
    CpuGridExec<double> x;
    for (int s = 0; s < steps; ++s) hb.rk4_step(x);
    const double t = steps * models[0].solver.dt;
    for (int i = 0; i < n; ++i) {
      const Model& m = models[models.size() == 1 ? 0 : static_cast<std::size_t>(i)];
      const int N = m.n_bodies();
      Data d(m, fused ? SchurFactorization::Sparse : SchurFactorization::Dense);
      std::vector<double> Y(asm_batch.Y.begin() + static_cast<std::ptrdiff_t>(i) * m.ny(),
                            asm_batch.Y.begin() + static_cast<std::ptrdiff_t>(i + 1) * m.ny());
      for (int s = 0; s < steps; ++s) ASSERT_TRUE(rk4_step(m, d, s * m.solver.dt, Y.data(), nullptr, m.solver.dt));
      double worst = 0, scale = 0;
      for (int e = 0; e < m.ny(); ++e) {
        worst = std::max(worst, std::fabs(hb.at(hb.Y, e, n, i) - Y[e]));
        scale = std::max(scale, std::fabs(Y[e]));
      }
      EXPECT_LE(worst, state_tol * scale) << (fused ? "fused" : "cuda") << " instance " << i;
      // The per-thread functions at the grid's own state.
      for (int e = 0; e < m.ny(); ++e) Y[e] = hb.at(hb.Y, e, n, i);
      std::vector<double> Ydot(m.ny());
      ASSERT_TRUE(evaluate(m, d, t, Y.data(), nullptr, Ydot.data()));
      compute_forces(m, d, t, nullptr);  // d.Q: the applied forces alone (evaluate leaves more there)
      std::vector<double> Q(static_cast<std::size_t>(6 * N * n));  // (6N, n) as the kernels keep it
      for (int k = 0; k < N; ++k) {
        batch::body_forces_thread(k * n + i, hb.mv, hb.time.data(), hb.Y.data(), hb.inputs.data(), Q.data());
        for (int c = 0; c < 6; ++c)
          EXPECT_EQ(hb.at(Q, 6 * k + c, n, i), d.Q[6 * k + c]) << "instance " << i << " body " << k << " Q " << c;
      }
      double kinetic = 0;
      EXPECT_EQ(batch::soa_energy(hb.mv, hb.Y.data(), i, kinetic), total_energy(m, d)) << "instance " << i;
      EXPECT_EQ(batch::nonconservative_power(i, hb.mv, t, hb.Y.data(), hb.inputs.data(), hb.jac.data(),
                                             hb.lambda_work.data(), 0),
                nonconservative_power(m, d, t, nullptr))
          << "instance " << i;
      if (at_end) at_end(m, i, d);
    }
  }
}

}  // namespace simphant::test
