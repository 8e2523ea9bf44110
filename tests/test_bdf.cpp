// The bdf integrator (SUNDIALS CVODE on the cpu backend; docs/solver.md, "The bdf
// integrator"), skipped in a build without SUNDIALS:
//  (a) a stiff spring-damper (c dt / m = 30 at the output interval dt): RK4 at dt runs
//      away, bdf matches the closed-form solution and RK4 at dt / 100;
//  (b) an underdamped oscillator against its exact solution: the error falls with rtol;
//  (c) the four-bar (a closed loop with Baumgarte): every instance ok, max |Phi| and the
//      quaternion norms bounded, step statistics sane, results independent of the thread
//      count;
//  (d) an instance whose CVODE fails at its minimum step is frozen with
//      step_size_underflow while the others go on;
//  (e) get_state / set_state mid-run restarts CVODE and continues within the tolerances;
//  (f) reductions over time are sampled at the grid times;
//  (g) an ill-conditioned four-bar instance matches RK4 at a fine step (the Newton
//      convergence coefficient);
//  (h) a bdf run stopped and resumed from its checkpoint (run_job) ends within the
//      tolerances of the uninterrupted run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "example_models.hpp"
#include "low_level_instance.hpp"
#include "temp_dir.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/formulas/reductions.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/bdf_support.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "simphant/sim/cvode_instance.hpp"

namespace simphant {
namespace {

using nlohmann::json;

#define SKIP_WITHOUT_SUNDIALS() \
  if (!bdf_available()) GTEST_SKIP() << "built without SUNDIALS (CMake SIMPHANT_SUNDIALS)"

/// A body of mass m on a prismatic joint along world x, held by a spring-damper (k, c)
/// to a ground point 1 m behind its rest position: m x'' + c x' + k x = 0 with x the
/// body's x [m], x(0) = x0, x'(0) = v0. No gravity.
json oscillator(double m, double k, double c, double x0, double v0, double dt) {
  return {{"bodies",
           {{{"name", "mass"}, {"mass", m}, {"inertia", {0.01, 0.01, 0.01}}, {"position", {x0, 0.0, 0.0}},
             {"velocity", {v0, 0.0, 0.0}}}}},
          {"joints",
           {{{"name", "slide"}, {"type", "prismatic"}, {"body_i", "ground"}, {"body_j", "mass"},
             {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {1.0, 0.0, 0.0}}}}}}},
          {"forces",
           {{{"name", "damper"}, {"type", "spring_damper"}, {"body_i", "ground"}, {"point_i", {-1.0, 0.0, 0.0}},
             {"body_j", "mass"}, {"point_j", {0.0, 0.0, 0.0}}, {"stiffness", k}, {"damping", c},
             {"rest_length", 1.0}}}},
          {"solver", {{"dt", dt}, {"t_end", 1.0}, {"baumgarte_alpha", 10.0}, {"baumgarte_beta", 10.0}}}};
}

/// Exact x(t) of m x'' + c x' + k x = 0, x(0) = x0, x'(0) = v0 (over- or underdamped).
double oscillator_exact(double m, double k, double c, double x0, double v0, double t) {
  const double disc = c * c - 4.0 * m * k;
  if (disc > 0) {
    const double r1 = (-c + std::sqrt(disc)) / (2 * m), r2 = (-c - std::sqrt(disc)) / (2 * m);
    const double A = (v0 - x0 * r2) / (r1 - r2), B = (x0 * r1 - v0) / (r1 - r2);
    return A * std::exp(r1 * t) + B * std::exp(r2 * t);
  }
  const double sigma = c / (2 * m), wd = std::sqrt(-disc) / (2 * m);
  return std::exp(-sigma * t) * (x0 * std::cos(wd * t) + (v0 + sigma * x0) / wd * std::sin(wd * t));
}

Model with_integrator(Model model, Integrator integrator, double rtol, double atol) {
  model.solver.integrator = integrator;
  model.solver.rtol = rtol;
  model.solver.atol = atol;
  return model;
}

std::unique_ptr<CpuBackend> backend_of(std::vector<Model> models, int n, int threads) {
  return std::make_unique<CpuBackend>(std::make_shared<const std::vector<Model>>(std::move(models)), n, threads);
}

struct Status {
  std::vector<std::int8_t> status, reason;
  std::vector<double> time;
};

Status status_of(const Backend& b) {
  const int n = b.n_instances();
  Status s{std::vector<std::int8_t>(n), std::vector<std::int8_t>(n), std::vector<double>(n)};
  b.read_status(s.status.data(), s.time.data(), s.reason.data());
  return s;
}

std::vector<double> states_of(const Backend& b) {
  std::vector<double> y(static_cast<std::size_t>(b.n_instances()) * b.state_size());
  b.get_state(nullptr, b.n_instances(), y.data(), nullptr, nullptr, nullptr, nullptr);
  return y;
}

// ---------------------------------------------------------------------------------------
// (a) m = 1 kg, c = 3e4 N s/m, k = 3e5 N/m, dt = 1 ms: eigenvalues -10.003 and -29990 1/s,
// c dt / m = 30, ten times RK4's real-axis stability limit 2.785 (dynamics/stability.hpp).
TEST(Bdf, StiffDamperRunsWhereRk4RunsAwayAndMatchesReferences) {
  SKIP_WITHOUT_SUNDIALS();
  const double m = 1.0, c = 3e4, k = 3e5, x0 = 0.1, v0 = 1.0, dt = 1e-3;
  ASSERT_NEAR(c * dt / m, 30.0, 1e-12);
  const Model model = compile_model(oscillator(m, k, c, x0, v0, dt));
  const int n_steps = 300;  // 0.3 s: three time constants of the slow mode

  // RK4 at dt: |R(-30)| = 1 - 30 + 450 - 4500 + 33750 ~ 2.97e4 per step, so the state grows
  // until the runaway bound (derived from the initial energy) stops the instance.
  auto rk4 = backend_of({model}, 1, 1);
  rk4->advance(n_steps);
  const Status s_rk4 = status_of(*rk4);
  EXPECT_EQ(s_rk4.status[0], static_cast<std::int8_t>(InstanceStatus::Diverged));
  std::printf("stiff damper, rk4 at dt: status %d reason %d at t = %.3f s\n", s_rk4.status[0], s_rk4.reason[0],
              s_rk4.time[0]);

  // bdf at dt, rtol 1e-6, atol 1e-9.
  const double rtol = 1e-6, atol = 1e-9;
  auto bdf = backend_of({with_integrator(model, Integrator::Bdf, rtol, atol)}, 1, 1);
  // The fine RK4 reference: dt / 100 (h |lambda| = 0.3), compared at every grid time.
  test::Instance fine(oscillator(m, k, c, x0, v0, dt));
  double err_exact = 0, err_fine = 0, fine_exact = 0;
  for (int s = 1; s <= n_steps; ++s) {
    bdf->advance(1);
    fine.run(dt / 100, 100);
    const double t = s * dt;
    const std::vector<double> y = states_of(*bdf);
    const double x_exact = oscillator_exact(m, k, c, x0, v0, t);
    err_exact = std::max(err_exact, std::abs(y[0] - x_exact));
    err_fine = std::max(err_fine, std::abs(y[0] - fine.Y[0]));
    fine_exact = std::max(fine_exact, std::abs(fine.Y[0] - x_exact));
  }
  const Status s_bdf = status_of(*bdf);
  ASSERT_EQ(s_bdf.status[0], static_cast<std::int8_t>(InstanceStatus::Ok)) << int(s_bdf.reason[0]);
  std::int64_t accepted = 0, rejected = 0;
  double hmin = 0, hmax = 0;
  bdf->read_step_statistics(&accepted, &rejected, &hmin, &hmax);
  std::printf("stiff damper, bdf: max |x - exact| %.3e m, max |x - rk4(dt/100)| %.3e m (reference vs exact %.3e m); "
              "%lld steps, %lld rejected, h in [%.3e, %.3e] s\n",
              err_exact, err_fine, fine_exact, static_cast<long long>(accepted), static_cast<long long>(rejected), hmin,
              hmax);
  // The fine reference is exact to far below the bound (RK4's error at h |lambda| = 0.3).
  EXPECT_LT(fine_exact, 1e-9);
  // CVODE keeps the local error per step below rtol |x| + atol (weighted RMS, x <= 0.1 m);
  // the global error accumulates over the steps of the slow mode; bound 10 (rtol x0 + atol)
  // = 1e-6 m.
  EXPECT_LT(err_exact, 10 * (rtol * x0 + atol));
  EXPECT_LT(err_fine, 10 * (rtol * x0 + atol));
  // Implicit steps far beyond the fast mode's 1 / 3e4 s once it has decayed: fewer steps
  // than grid intervals.
  EXPECT_GT(accepted, 0);
  EXPECT_LT(accepted, n_steps);
  EXPECT_GT(hmax, dt);
  EXPECT_LE(hmin, hmax);
}

// ---------------------------------------------------------------------------------------
// (b) m = 1 kg, k = 100 N/m, c = 2 N s/m: omega = 10 rad/s, zeta = 0.1; 2 s (three periods).
TEST(Bdf, DampedOscillatorErrorFallsWithTolerance) {
  SKIP_WITHOUT_SUNDIALS();
  const double m = 1.0, k = 100.0, c = 2.0, x0 = 0.1, v0 = 0.0, dt = 1e-3;
  const Model model = compile_model(oscillator(m, k, c, x0, v0, dt));
  const int n_steps = 2000;
  const std::vector<double> rtols = {1e-4, 1e-6, 1e-8};
  std::vector<double> errs;
  for (double rtol : rtols) {
    auto bdf = backend_of({with_integrator(model, Integrator::Bdf, rtol, rtol * 1e-3)}, 1, 1);
    double err = 0;
    for (int s = 1; s <= n_steps; s += 10) {
      bdf->advance(10);
      const std::vector<double> y = states_of(*bdf);
      err = std::max(err, std::abs(y[0] - oscillator_exact(m, k, c, x0, v0, (s + 9) * dt)));
    }
    ASSERT_EQ(status_of(*bdf).status[0], 0);
    std::int64_t accepted = 0;
    bdf->read_step_statistics(&accepted, nullptr, nullptr, nullptr);
    std::printf("damped oscillator, bdf rtol %.0e: max |x - exact| %.3e m, %lld steps\n", rtol, err,
                static_cast<long long>(accepted));
    errs.push_back(err);
  }
  // Each factor 100 in rtol buys at least a factor 10 in the achieved error (tolerance
  // proportionality of a variable-order BDF code is roughly linear; measured above), and
  // the loosest run stays within 100 rtol x0.
  EXPECT_LT(errs[1], errs[0] / 10);
  EXPECT_LT(errs[2], errs[1] / 10);
  EXPECT_LT(errs[0], 100 * rtols[0] * x0);
}

// ---------------------------------------------------------------------------------------
// (c) The four-bar: a closed loop of three bodies with Baumgarte stabilisation, 4 sampled
// instances, 0.5 s.
TEST(Bdf, FourBarKeepsConstraintsAndIsThreadIndependent) {
  SKIP_WITHOUT_SUNDIALS();
  std::vector<Model> models = test::example_models("four_bar", 4);
  for (Model& m : models) m = with_integrator(m, Integrator::Bdf, 1e-7, 1e-9);
  const int n = static_cast<int>(models.size());
  const int n_steps = static_cast<int>(std::lround(0.5 / models[0].solver.dt));
  auto one = backend_of(models, n, 1);
  auto two = backend_of(models, n, 2);
  double worst_violation = 0, worst_norm = 0;
  std::vector<double> viol(n);
  for (int s = 0; s < n_steps; s += 25) {
    one->advance(25);
    two->advance(25);
    one->read_constraint_violation(viol.data());
    for (double v : viol) worst_violation = std::max(worst_violation, v);
    const std::vector<double> y = states_of(*one);
    for (int i = 0; i < n; ++i)
      for (int b = 0; b < models[0].n_bodies(); ++b) {
        const Quatd p = state_p(y.data() + static_cast<std::size_t>(i) * one->state_size(), b);
        worst_norm = std::max(worst_norm, std::abs(std::sqrt(p.w * p.w + p.x * p.x + p.y * p.y + p.z * p.z) - 1.0));
      }
  }
  const Status st = status_of(*one);
  for (int i = 0; i < n; ++i) EXPECT_EQ(st.status[i], 0) << "instance " << i << " reason " << int(st.reason[i]);
  EXPECT_EQ(states_of(*one), states_of(*two));  // each instance's arithmetic is its own
  std::vector<std::int64_t> acc(n), rej(n);
  std::vector<double> hmin(n), hmax(n);
  one->read_step_statistics(acc.data(), rej.data(), hmin.data(), hmax.data());
  for (int i = 0; i < n; ++i) {
    EXPECT_GT(acc[i], 0);
    EXPECT_GE(rej[i], 0);
    EXPECT_GT(hmin[i], 0);
    EXPECT_LE(hmin[i], hmax[i]);
    EXPECT_LE(hmax[i], 0.5);
  }
  std::printf("four-bar, bdf rtol 1e-7: max |Phi| %.3e, max ||p| - 1| %.3e; instance 0: %lld steps, %lld rejected, "
              "h in [%.3e, %.3e] s\n",
              worst_violation, worst_norm, static_cast<long long>(acc[0]), static_cast<long long>(rej[0]), hmin[0],
              hmax[0]);
  // Baumgarte holds the drift at the level of the integration error (rtol 1e-7 on
  // positions of ~0.2 m): bound 1e-6, the violation bound of the mechanism tests.
  EXPECT_LT(worst_violation, 1e-6);
  EXPECT_LT(worst_norm, 4 * std::numeric_limits<double>::epsilon());  // renormalised at each output
}

// ---------------------------------------------------------------------------------------
// (d) Three instances of the stiff damper; instance 1 has min_step = dt, which the start
// of the fast transient (|lambda| = 3e4 1/s) cannot accept: CVODE fails at its minimum
// step; instance 2 has max_step = dt / 1e4, more than kBdfMaxStepsPerInterval steps to
// the first grid time (a stall). Both are frozen with step_size_underflow in their first
// grid interval, and instance 0 runs on.
TEST(Bdf, FailureAtMinimumStepFreezesOnlyThatInstance) {
  SKIP_WITHOUT_SUNDIALS();
  const Model base = with_integrator(compile_model(oscillator(1.0, 3e5, 3e4, 0.1, 1.0, 1e-3)), Integrator::Bdf, 1e-6, 1e-9);
  Model stuck = base, stalled = base;
  stuck.solver.min_step = base.solver.dt;
  stalled.solver.max_step = base.solver.dt / 1e4;
  auto bdf = backend_of({base, stuck, stalled}, 3, 1);
  const std::vector<double> y0 = states_of(*bdf);
  bdf->advance(50);
  const Status st = status_of(*bdf);
  EXPECT_EQ(st.status[0], 0);
  for (int i : {1, 2}) {
    EXPECT_EQ(st.status[i], static_cast<std::int8_t>(InstanceStatus::Diverged)) << "instance " << i;
    EXPECT_EQ(st.reason[i], kReasonStepSizeUnderflow) << "instance " << i;
    EXPECT_EQ(st.time[i], 0.0) << "instance " << i;
  }
  std::vector<std::int64_t> acc(3);
  std::vector<double> hmax(3);
  bdf->read_step_statistics(acc.data(), nullptr, nullptr, hmax.data());
  EXPECT_EQ(acc[2], kBdfMaxStepsPerInterval);  // the stall's steps, each at most max_step
  EXPECT_LE(hmax[2], stalled.solver.max_step);
  const std::vector<double> y = states_of(*bdf);
  const int ny = bdf->state_size();
  EXPECT_TRUE(std::equal(y.begin() + ny, y.end(), y0.begin() + ny));  // frozen at their last good state
  EXPECT_NE(y[0], y0[0]);
}

// ---------------------------------------------------------------------------------------
// (e) A run stopped at 0.25 s, its state read and written back (as a checkpoint resume
// does), continues to 0.5 s within the tolerances of the uninterrupted run: CVODE
// restarts there at order 1 (its history cannot be stored), so the two differ by the
// integration error, not bit for bit.
TEST(Bdf, SetStateRestartsWithinTolerance) {
  SKIP_WITHOUT_SUNDIALS();
  std::vector<Model> models = test::example_models("four_bar", 2);
  const double rtol = 1e-8, atol = 1e-10;
  for (Model& m : models) m = with_integrator(m, Integrator::Bdf, rtol, atol);
  const int half = static_cast<int>(std::lround(0.25 / models[0].solver.dt));
  auto straight = backend_of(models, 2, 1);
  auto resumed = backend_of(models, 2, 1);
  straight->advance(2 * half);
  resumed->advance(half);
  const std::vector<double> mid = states_of(*resumed);
  std::vector<std::int64_t> steps(2);
  resumed->get_state(nullptr, 2, nullptr, steps.data(), nullptr, nullptr, nullptr);
  resumed->set_state(nullptr, 2, mid.data(), steps.data(), nullptr, nullptr, nullptr);
  resumed->advance(half);
  const std::vector<double> a = states_of(*straight), b = states_of(*resumed);
  double diff = 0, scale = 0;
  for (std::size_t j = 0; j < a.size(); ++j) {
    diff = std::max(diff, std::abs(a[j] - b[j]));
    scale = std::max(scale, std::abs(a[j]));
  }
  std::printf("four-bar, bdf rtol 1e-8: resumed vs uninterrupted at 0.5 s: max diff %.3e (max |y| %.3f)\n", diff, scale);
  EXPECT_GT(diff, 0.0);  // a restart, not a copy of CVODE's history
  // Both runs are within their global error (~1e2 rtol |y| on this run) of the exact
  // solution; bound 1e4 rtol max|y|.
  EXPECT_LT(diff, 1e4 * rtol * scale);
}

// ---------------------------------------------------------------------------------------
// (f) The energy reduction of the (dissipating) stiff damper over 50 grid steps: its max,
// min, mean and time of max are those of the energies read at the 51 grid times
// 0, dt, ..., 50 dt (the step-start samples plus the current state), not of CVODE's
// internal steps.
TEST(Bdf, ReductionsAreSampledAtTheGridTimes) {
  SKIP_WITHOUT_SUNDIALS();
  const Model model =
      with_integrator(compile_model(oscillator(1.0, 3e5, 3e4, 0.1, 1.0, 1e-3)), Integrator::Bdf, 1e-6, 1e-9);
  auto bdf = backend_of({model}, 1, 1);
  bdf->set_reductions({ReductionQuantity::Energy});
  std::vector<double> energies;
  for (int s = 0; s <= 50; ++s) {
    double e = 0;
    bdf->read_energy(&e, nullptr);
    energies.push_back(e);
    if (s < 50) bdf->advance(1);
  }
  double stats[kReductionStats];
  bdf->read_reductions(stats);
  const auto max_it = std::max_element(energies.begin(), energies.end());
  double mean = 0;
  for (double e : energies) mean += e / energies.size();
  EXPECT_DOUBLE_EQ(stats[0], *max_it);
  EXPECT_DOUBLE_EQ(stats[1], *std::min_element(energies.begin(), energies.end()));
  EXPECT_NEAR(stats[2], mean, 1e-12 * std::abs(mean));
  EXPECT_DOUBLE_EQ(stats[4], (max_it - energies.begin()) * model.solver.dt);
  std::int64_t accepted = 0;
  bdf->read_step_statistics(&accepted, nullptr, nullptr, nullptr);
  EXPECT_NE(accepted, 50);  // CVODE's own steps are not the grid
}

// ---------------------------------------------------------------------------------------
// (g) Instance 2525 of the four-bar's own sweep sampled for 3000 instances (a geometry
// whose f is ill-conditioned off the constraint manifold: redundant rows, Tikhonov),
// no projection, rtol 1e-6, 10 ms, against RK4 at dt / 100. With CVODE's default Newton
// convergence coefficient 0.1 the crank's angular velocity was off by 1.2 rad/s of 1.68;
// with kBdfNonlinConvCoef (1e-3) by 2.1e-5 rad/s.
TEST(Bdf, IllConditionedFourBarMatchesFineRk4) {
  SKIP_WITHOUT_SUNDIALS();
  const Model model = with_integrator(test::example_models("four_bar", 3000)[2525], Integrator::Bdf, 1e-6, 1e-9);
  auto bdf = backend_of({model}, 1, 1);
  std::vector<double> ref = states_of(*bdf);
  Data d(model);
  const double dt = model.solver.dt;
  bdf->advance(10);
  for (int k = 0; k < 1000; ++k) ASSERT_TRUE(rk4_step(model, d, k * dt / 100, ref.data(), nullptr, dt / 100));
  const std::vector<double> y = states_of(*bdf);
  double err = 0, scale = 0;
  for (std::size_t j = 0; j < y.size(); ++j) {
    err = std::max(err, std::abs(y[j] - ref[j]));
    scale = std::max(scale, std::abs(ref[j]));
  }
  std::printf("four-bar instance 2525, bdf rtol 1e-6, 10 ms: max |y - rk4(dt/100)| %.3e (max |y| %.3f)\n", err, scale);
  EXPECT_LT(err, 100 * 1e-6 * scale);  // measured 2.1e-5 of 1.7
}

// ---------------------------------------------------------------------------------------
// (h) examples/stiff_damper.json (4 instances, 0.5 s) through run_job: stopped by the stop
// hook after 4 slices (the output stores the checkpoint) and resumed. CVODE restarts at
// the checkpoint's time, so the final states differ from the uninterrupted run's by the
// integration error (rtol 1e-6, atol 1e-9, |x| <= 0.1 m), not bit for bit.
TEST(Bdf, ResumedRunContinuesWithinTolerance) {
  SKIP_WITHOUT_SUNDIALS();
  JobOptions o;
  o.scene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/stiff_damper.json";
  o.threads = 1;
  o.checkpoint_every_s = 0;
  o.out = (test::make_process_temp_dir("bdf") / "bdf_ref.h5").string();
  const JobResult ref = run_job(o);
  ASSERT_EQ(ref.exit_code, 0);
  o.out = (test::make_process_temp_dir("bdf") / "bdf_resumed.h5").string();
  o.checkpoint_every_s = 1e-9;  // a checkpoint after every slice
  int slices = 0;
  JobHooks hooks;
  hooks.progress = [&](const JobProgress&) { ++slices; };
  hooks.stop_requested = [&] { return slices >= 4; };
  ASSERT_EQ(run_job(o, hooks).exit_code, 130);
  JobOptions r;
  r.resume = o.out;
  r.threads = 1;
  const JobResult resumed = run_job(r);
  ASSERT_EQ(resumed.exit_code, 0);
  EXPECT_GT(resumed.summary.at("resumed_from_step").get<std::int64_t>(), 0);
  const auto final_states = [](const std::string& file) {
    const h5::Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    return h5::read_doubles(f.id(), "state");
  };
  const std::vector<double> a = final_states(ref.out_file), b = final_states(o.out);
  ASSERT_EQ(a.size(), b.size());
  double diff = 0;
  for (std::size_t j = 0; j < a.size(); ++j) diff = std::max(diff, std::abs(a[j] - b[j]));
  std::printf("stiff damper, resumed vs uninterrupted run: max |state difference| %.3e over all frames\n", diff);
  EXPECT_GT(diff, 0.0);  // CVODE restarted, not continued
  // Velocities up to ~1 m/s and positions up to 0.1 m, each run within ~10 (rtol |y| + atol)
  // of the exact solution (test (a)): bound 1e-4.
  EXPECT_LT(diff, 1e-4);
}

}  // namespace
}  // namespace simphant
