// Forward sensitivities of a constrained mechanism through the maximal-coordinate DAE's
// own per-thread step: the `cuda-fused` path's RK4 (kernels/batch_step.hpp enqueue_step
// with a Schur pattern: fused_stage_thread, one thread per instance doing the joint rows
// Phi, Phi_q, gamma*, the body forces Q, the Schur matrix C = Phi_q M^-1 Phi_q^T + eps I
// in its topology-ordered blocks, the block-sparse Cholesky and the refined solve, the
// accelerations, the stage update, the projection and the commit) instantiated with
// T = Dual<double, P> (math/dual.hpp). The batched ModelView<T> / BatchBuffers<T> are
// templates over T, so the Dual batch is the double batch's arrays converted entry by
// entry (DualBatch below): no second copy of the dynamics.
//
// On the shipped slider-crank and four-bar (examples/*.json, two differing instances
// sampled from each scene's sweep), P = 4 tangents are seeded:
//   0: the initial state along the crank's hinge rate, made consistent with the velocity
//      constraints (the least-norm qdot direction with Phi_q qdot = 0 and unit crank
//      rate about its hinge axis);
//   1: the crank's mass (a parameter shared by the instances);
//   2: a body mass that the sweep varies per instance (piston; coupler);
//   3: a joint frame origin component, u_i.x (slider-crank: crank_pin on the crank;
//      four-bar: rocker_pivot on the ground, varied by the sweep). The assembled state
//      is not re-assembled for it: the joint starts violated by the seed, and the
//      tangent includes the Baumgarte correction, as the differences do.
// The slider-crank runs once more with every step projected (position_velocity), which
// the scenes' auto projection never does in these steps.
// After kSteps RK4 steps the final state's tangents are compared with central
// differences of two double runs of the same step, (Y(p + h) - Y(p - h)) / 2h, each
// instance's error max |tangent - difference| / max |difference| over the 13 N state
// entries (printed); the value part is checked bit-identical to the double run, which
// is checked bit-identical to the CPU grid run of the cuda-fused path (HostBatch,
// CpuGridExec: what tests/test_kernel_grid.cpp compares with the CPU reference).
//
// Tolerance: central differences with h = 1e-5 |p| (1e-4 rad/s along the unit rate):
// truncation h^2 |Y'''| / 6 and rounding eps |Y| / h are both about 1e-8 of the
// derivatives' size or less here; the bound is 1e-6 relative (measured worst 1.0e-8 on
// x86-64, GCC 12: the projected slider-crank's crank-pin anchor), the measured values
// are printed.
// The tangents are exact derivatives of the discrete step up to rounding, with lambda's
// those of the converged Schur solve (the tangent-linear solve, kernels/fused_solve.hpp):
// every branch (the pivot checks, the auto projection's choice, lambda's refinement
// stopping test) is taken on values, the same in the three runs for steps this small.
//
// The cost of the dual step, through the library's engine at its own optimisation level,
// is measured by bench/bench_sensitivities.cpp (docs/sensitivities.md, "Cost").
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cpu_grid_exec.hpp"
#include "example_models.hpp"
#include "host_batch.hpp"
#include "simphant/batch/view_convert.hpp"
#include "simphant/math/dual.hpp"

namespace simphant {
namespace {

constexpr int kInstances = 2;
constexpr int kSteps = 400;

bool same_bits(double a, double b) {
  std::uint64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

/// The executor of enqueue_step for the cuda-fused path: each launch a loop over the
/// grid. The fused path factorises inside its per-thread functions and never asks for
/// the batched dense Cholesky of the `cuda` path (cuSOLVER on the GPU, double or float
/// only): those members fail the test if called.
struct FusedExec {
  template <class F>
  void launch(const char*, int n_threads, F f) {
    for (int tid = 0; tid < n_threads; ++tid) f(tid);
  }
  template <class T>
  void cholesky_factor(int, T**, int*, int) {
    ADD_FAILURE() << "the fused path has no batched Cholesky";
  }
  template <class T>
  void cholesky_solve(int, T**, T**, int) {
    ADD_FAILURE() << "the fused path has no batched Cholesky";
  }
};

/// A cuda-fused batch in host memory with number type T, its parameters, state and
/// records converted from the double batch `hb` (HostBatch, fused layout) entry by entry;
/// workspaces filled with NaN. Seeds are set on param_shared / param_varied / Y before
/// the first step (seed_param, seed_state).
template <class T>
struct DualBatch {
  int n, N, m;
  std::vector<T> param_shared, param_varied;
  std::vector<double> param_values;  ///< BatchBuffers::param_values (a Dual T's tangent-linear solve)
  std::vector<T> Y, y_stage, k[4], phi, jac, gamma_star, Q, C, rhs, lambda_work, refine, floor, diag, inputs, violation,
      time, runaway, refine_worst, refine_worst_time, pivot_min, pivot_min_time, step_pivot;
  std::vector<int> info, fail, recoveries, refine_unconverged;
  std::vector<std::int8_t> status, status_reason;
  std::vector<std::int64_t> status_step, step, clock_offset;
  batch::ModelView<T> mv;
  batch::BatchBuffers<T> b{};
  SchurPatternView P;

  explicit DualBatch(const test::HostBatch<double>& hb) : n(hb.n), N(hb.N), m(hb.m), P(hb.P) {
    const auto conv = [](const std::vector<double>& a) { return std::vector<T>(a.begin(), a.end()); };
    param_shared = conv(hb.packed.param_shared);
    param_varied = conv(hb.packed.param_varied);
    mv = batch::view_with<T>(hb.mv, param_shared.data(), hb.mv.param_slot, param_varied.data());
    param_values = batch::param_value_rows(hb.packed.param_shared, hb.packed.param_varied, n, hb.mv.n_params);
    const T nan = T(std::numeric_limits<double>::quiet_NaN());
    Y = conv(hb.Y);
    for (std::vector<T>* v : {&y_stage, &k[0], &k[1], &k[2], &k[3]}) v->assign(Y.size(), nan);
    for (std::vector<T>* v : {&phi, &gamma_star, &rhs, &lambda_work, &refine, &floor, &diag})
      v->assign(static_cast<std::size_t>(m) * n, nan);
    jac.assign(hb.jac.size(), nan);
    Q.assign(hb.Q.size(), nan);
    C.assign(hb.C.size(), nan);
    inputs = conv(hb.inputs);
    violation.assign(n, nan);
    time.assign(n, nan);
    runaway = conv(hb.runaway);
    refine_worst = conv(hb.refine_worst);
    refine_worst_time = conv(hb.refine_worst_time);
    pivot_min = conv(hb.pivot_min);
    pivot_min_time = conv(hb.pivot_min_time);
    step_pivot.assign(n, nan);
    info = hb.info;
    fail = hb.fail;
    recoveries = hb.recoveries;
    refine_unconverged = hb.refine_unconverged;
    status = hb.status;
    status_reason = hb.status_reason;
    status_step = hb.status_step;
    step = hb.step;
    clock_offset = hb.clock_offset;
    b.Y = Y.data();
    b.y_stage = y_stage.data();
    for (int s = 0; s < 4; ++s) b.k[s] = k[s].data();
    b.phi = phi.data();
    b.jac = jac.data();
    b.gamma_star = gamma_star.data();
    b.Q = Q.data();
    b.C = C.data();
    b.rhs = rhs.data();
    b.lambda = lambda_work.data();
    b.floor = floor.data();
    b.diag = diag.data();
    b.recoveries = recoveries.data();
    b.info = info.data();
    b.fail = fail.data();
    b.inputs = inputs.data();
    b.violation = violation.data();
    b.status = status.data();
    b.status_step = status_step.data();
    b.status_reason = status_reason.data();
    b.runaway = runaway.data();
    b.step = step.data();
    b.lambda_soa = 1;
    b.time = time.data();
    b.clock_offset = clock_offset.data();
    b.refine = refine.data();
    b.refine_worst = refine_worst.data();
    b.refine_worst_time = refine_worst_time.data();
    b.refine_unconverged = refine_unconverged.data();
    b.pivot_min = pivot_min.data();
    b.pivot_min_time = pivot_min_time.data();
    b.step_pivot = step_pivot.data();
    b.param_values = param_values.data();
  }
  DualBatch(const DualBatch&) = delete;
  DualBatch& operator=(const DualBatch&) = delete;

  /// f(x) on parameter p of every instance (its shared value and, where the batch stores
  /// it per instance, each instance's).
  template <class F>
  void seed_param(int p, F f) {
    f(param_shared[p]);
    const int slot = mv.param_slot[p];
    if (slot >= 0)
      for (int i = 0; i < n; ++i) f(param_varied[static_cast<std::size_t>(slot) * n + i]);
  }
  /// f(x, dir[i][e]) on state entry e of instance i, for every nonzero direction entry.
  template <class F>
  void seed_state(const std::vector<std::vector<double>>& dir, F f) {
    for (int i = 0; i < n; ++i)
      for (int e = 0; e < 13 * N; ++e)
        if (dir[i][e] != 0) f(Y[static_cast<std::size_t>(e) * n + i], dir[i][e]);
  }
  /// One RK4 step of every instance on the cuda-fused path.
  void rk4_step() {
    FusedExec x;
    batch::enqueue_step(x, mv, b, &P);
  }
  T at(int e, int i) const { return Y[static_cast<std::size_t>(e) * n + i]; }
};

/// Per instance the least-norm velocity direction (13 N entries, zero on positions) with
/// Phi_q qdot = 0 and unit rate of body `crank` about its hinge axis axis_B (body frame):
/// qdot = Z c, Z the null space of Phi_q (from hb.jac after a solve at Y), c minimising
/// |c| with (e . Z) c = 1, e the unit rate about axis_B in the qdot layout.
std::vector<std::vector<double>> crank_rate_direction(const test::HostBatch<double>& hb, int crank,
                                                      const Vec3<double>& axis_B) {
  const int n = hb.n, N = hb.N, m = hb.m, w = hb.packed.jac_cols();
  const batch::ModelView<double>& mv = hb.mv;
  std::vector<std::vector<double>> dir(n, std::vector<double>(13 * N, 0.0));
  for (int i = 0; i < n; ++i) {
    Eigen::MatrixXd Jq = Eigen::MatrixXd::Zero(m, 6 * N);
    for (int a = 0; a < mv.n_constraints(); ++a)
      for (int r = 0; r < mv.rows_of(a); ++r) {
        const int R = mv.row_offset[a] + r;
        for (int s = 0; s < mv.sides; ++s) {
          const int k = mv.body_of(a, s);
          if (k < 0) continue;
          for (int c = 0; c < 6; ++c) Jq(R, 6 * k + c) += hb.at(hb.jac, w * R + 6 * s + c, n, i);
        }
      }
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(Jq, Eigen::ComputeFullV);
    const Eigen::VectorXd& sv = svd.singularValues();
    int rank = 0;
    for (int r = 0; r < sv.size(); ++r) rank += sv[r] > 1e-9 * sv[0];
    const Eigen::MatrixXd Z = svd.matrixV().rightCols(6 * N - rank);
    Eigen::VectorXd e = Eigen::VectorXd::Zero(6 * N);
    for (int c = 0; c < 3; ++c) e[6 * crank + 3 + c] = axis_B[c];
    const Eigen::VectorXd g = Z.transpose() * e;
    const Eigen::VectorXd qd = Z * (g / g.squaredNorm());
    EXPECT_LT((Jq * qd).norm(), 1e-12) << "consistent direction";
    for (int c = 0; c < 6 * N; ++c) dir[i][7 * N + c] = qd[c];
  }
  return dir;
}

struct Seed {
  std::string name;
  int param;  ///< parameter index, or -1: the state direction
  double h;   ///< central-difference step
};

struct SceneCase {
  std::string scene;
  int crank;  ///< body index of the crank, its hinge the first joint (ground -> crank)
  std::vector<Seed> seeds;  ///< kSeeds, seed 0 the state direction
};

constexpr int kSeeds = 4;
/// Central-difference steps: relative to a parameter's value, and along the unit crank
/// rate [rad/s].
constexpr double kRelativeStep = 1e-5, kRateStep = 1e-4;
using D4 = Dual<double, kSeeds>;

int body_index(const Model& model, const std::string& name) {
  for (int k = 0; k < model.n_bodies(); ++k)
    if (model.bodies[k].name == name) return k;
  ADD_FAILURE() << "no body " << name;
  return 0;
}
int joint_index(const Model& model, const std::string& name) {
  for (int j = 0; j < model.n_joints(); ++j)
    if (model.joints[j].name == name) return j;
  ADD_FAILURE() << "no joint " << name;
  return 0;
}

/// The double batch's final state (13 N, n) after kSteps steps with f applied to it
/// before the first (a perturbation of a parameter or of the state).
template <class F>
std::vector<double> run_double(const test::HostBatch<double>& hb, F perturb) {
  DualBatch<double> db(hb);
  perturb(db);
  for (int s = 0; s < kSteps; ++s) db.rk4_step();
  for (std::int8_t st : db.status) EXPECT_EQ(st, batch::kStatusOk);
  return db.Y;
}

/// The checks of the file's header on examples/<scene>.json. projection >= 0: every
/// instance projected with that mode (ModelView::projection: 2 position_velocity) instead
/// of the scene's auto, which for these scenes and steps never projects.
void check_scene(const std::string& scene, const std::string& crank_name, const std::string& mass_b,
                 const std::string& frame_joint, int projection = -1) {
  const std::vector<Model> models = test::example_models(scene, kInstances);
  const AssembledBatch asm_batch = assemble_batch(models, kInstances, 1);
  test::HostBatch<double> hb(models, kInstances, asm_batch, /*fused_path=*/true);
  if (projection >= 0) hb.mv.projection = projection;
  const std::string label = scene + (projection >= 0 ? " projected" : "");
  const Model& model = models.front();
  const int n = kInstances, N = hb.N;
  const int crank = body_index(model, crank_name);
  const int hinge = 0;
  ASSERT_EQ(model.joints[hinge].body_j, crank) << "the first joint is the crank's hinge";

  // The state direction, from Phi_q at the initial state (one evaluation of the fused path).
  std::vector<std::vector<double>> dir;
  {
    test::HostBatch<double> h0(models, kInstances, asm_batch, true);
    test::CpuGridExec<double> x;
    h0.solve(x, h0.b.Y);
    dir = crank_rate_direction(h0, crank, model.joints[hinge].frame.v_j);
  }
  const batch::ModelView<double>& mv = hb.mv;
  const int p_mass_crank = mv.body_param(crank), p_mass_b = mv.body_param(body_index(model, mass_b));
  const int p_origin = mv.joint_param(joint_index(model, frame_joint));  // u_i.x
  const auto rel_step = [&](int p) { return kRelativeStep * std::fabs(hb.packed.param_shared[p]); };
  const auto stored = [&](int p) { return std::string(mv.param_slot[p] >= 0 ? " (per instance)" : " (shared)"); };
  const std::vector<Seed> seeds = {{"crank rate (consistent qdot)", -1, kRateStep},
                                   {"mass " + crank_name + stored(p_mass_crank), p_mass_crank, rel_step(p_mass_crank)},
                                   {"mass " + mass_b + stored(p_mass_b), p_mass_b, rel_step(p_mass_b)},
                                   {"u_i.x of " + frame_joint + stored(p_origin), p_origin, rel_step(p_origin)}};
  ASSERT_EQ(static_cast<int>(seeds.size()), kSeeds);
  for (const Seed& s : seeds) ASSERT_GT(s.h, 0.0) << s.name;

  // The Dual run, every tangent seeded at once.
  DualBatch<D4> dual(hb);
  for (int k = 0; k < kSeeds; ++k) {
    if (seeds[k].param < 0)
      dual.seed_state(dir, [k](D4& x, double d) { x.d[k] = d; });
    else
      dual.seed_param(seeds[k].param, [k](D4& x) { x.d[k] = 1.0; });
  }
  for (int s = 0; s < kSteps; ++s) dual.rk4_step();
  for (int i = 0; i < n; ++i) EXPECT_EQ(dual.status[i], batch::kStatusOk) << "instance " << i;

  // The double run: the same step, and the CPU grid run of the cuda-fused path.
  const std::vector<double> y0 = run_double(hb, [](DualBatch<double>&) {});
  {
    test::HostBatch<double> grid(models, kInstances, asm_batch, true);
    grid.mv.projection = hb.mv.projection;
    test::CpuGridExec<double> x;
    for (int s = 0; s < kSteps; ++s) grid.rk4_step(x);
    for (std::size_t e = 0; e < y0.size(); ++e) ASSERT_TRUE(same_bits(grid.Y[e], y0[e])) << "grid run, entry " << e;
  }
  int value_mismatch = 0;
  for (int i = 0; i < n; ++i)
    for (int e = 0; e < 13 * N; ++e)
      value_mismatch += !same_bits(dual.at(e, i).v, y0[static_cast<std::size_t>(e) * n + i]);
  EXPECT_EQ(value_mismatch, 0) << "the Dual run's values are the double run's, bit for bit";

  const double t_end = kSteps * hb.packed.dt;
  std::printf("[ dual dae %s ] %d RK4 steps (%.3g s), %d instances, N = %d bodies, m = %d rows; "
              "values bit-identical: %s\n",
              label.c_str(), kSteps, t_end, n, N, hb.m, value_mismatch == 0 ? "yes" : "NO");
  for (int k = 0; k < kSeeds; ++k) {
    const Seed& sd = seeds[k];
    const auto perturb = [&](double sign) {
      return [&, sign](DualBatch<double>& db) {
        if (sd.param < 0)
          db.seed_state(dir, [&](double& x, double d) { x += sign * sd.h * d; });
        else
          db.seed_param(sd.param, [&](double& x) { x += sign * sd.h; });
      };
    };
    const std::vector<double> yp = run_double(hb, perturb(+1)), ym = run_double(hb, perturb(-1));
    for (int i = 0; i < n; ++i) {
      double diff = 0, scale = 0;
      int e_max = 0;
      for (int e = 0; e < 13 * N; ++e) {
        const std::size_t o = static_cast<std::size_t>(e) * n + i;
        const double fd = (yp[o] - ym[o]) / (2 * sd.h);
        const double t = dual.at(e, i).d[k];
        if (std::fabs(fd) > scale) {
          scale = std::fabs(fd);
          e_max = e;
        }
        diff = std::max(diff, std::fabs(t - fd));
      }
      const double rel = diff / scale;
      EXPECT_LE(rel, 1e-6) << label << " seed " << sd.name << " instance " << i;
      EXPECT_GT(scale, 0.0) << label << " seed " << sd.name << " moves the state";
      const std::size_t o_max = static_cast<std::size_t>(e_max) * n + i;
      std::printf("[ dual dae %s ]   d/d %-40s instance %d: max |dY| %.3e (entry %d: %.6e vs difference %.6e), "
                  "error %.2e relative\n",
                  label.c_str(), sd.name.c_str(), i, scale, e_max, dual.at(e_max, i).d[k],
                  (yp[o_max] - ym[o_max]) / (2 * sd.h), rel);
    }
  }
}

// The slider-crank: crank rate, crank mass, the piston's mass (varied by the sweep), the
// crank pin's anchor on the crank.
TEST(DualDae, SliderCrankTangentsMatchCentralDifferences) {
  check_scene("slider_crank", "crank", "piston", "crank_pin");
}

// The slider-crank with every step projected (position_velocity: the stage states'
// velocities, two Newton steps onto Phi = 0 and the velocities at the end of each step,
// kernels/projection.hpp), the projection's solves and corrections differentiated too.
TEST(DualDae, SliderCrankProjectedTangentsMatchCentralDifferences) {
  check_scene("slider_crank", "crank", "piston", "crank_pin", /*projection=*/2);
}

// The four-bar: crank rate, crank mass, the coupler's mass (varied by the sweep), the
// rocker pivot's ground anchor (varied by the sweep).
TEST(DualDae, FourBarTangentsMatchCentralDifferences) {
  check_scene("four_bar", "crank", "coupler", "rocker_pivot");
}

}  // namespace
}  // namespace simphant
