// The batched CPU step in SIMD lanes (simd/simd_step.hpp, simd_group.hpp) against its
// scalar form (the same per-thread functions with T = double, one instance at a time).
//
// Two precisions of agreement are checked:
//   * This file is compiled with -ffp-contract=off (tests/CMakeLists.txt) for the
//     baseline x86-64 (no FMA), as is the library's scalar form: the group step compiled
//     here (simd::advance_group, not dispatched) performs the same IEEE operations in the
//     same order per lane as the scalar code, so it must equal it bit for bit -- every
//     function, every step, every example.
//   * simd::advance_groups(lanes = true) runs the clone for this CPU (simd_target()),
//     which on AVX2 / AVX-512 machines contracts a * b + c into FMAs: each contraction
//     changes a result by at most one rounding (2^-53 relative), so the two forms differ
//     by round-off amplified by the solve's conditioning and the dynamics' sensitivity
//     over the steps; kDispatchedTol below is that bound, measured.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "example_models.hpp"
#include "simd_batch.hpp"
#include "simphant/bench/bench_models.hpp"
#include "simphant/simd/simd_group.hpp"

namespace simphant {
namespace {

constexpr int W = simd::kLaneWidth;

/// Every examples/*.json scene usable on the fused fixed-step path (a robot scene in its
/// maximal DAE form), n instance models (a scene's sweep sampled: instances differ).
std::vector<std::string> fused_scene_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SIMPHANT_SOURCE_DIR) + "/examples"))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<Model> scene_models(const std::string& name, int n) {
  std::vector<Model> models = test::example_models(name, n);
  if (bench::is_joint_space(models.front()) || models.front().robot) {
    // The maximal DAE form of a robot scene (the one the fused path runs), every instance alike.
    const Model dae = bench::bench_model(name, std::string(SIMPHANT_SOURCE_DIR) + "/examples");
    models.assign(static_cast<std::size_t>(n), dae);
  }
  for (Model& m : models)
    if (m.solver.integrator != Integrator::Euler && m.solver.integrator != Integrator::SymplecticEuler)
      m.solver.integrator = Integrator::Rk4;  // the adaptive ones run elsewhere (dopri5_batch.hpp)
  return models;
}

/// The variants each scene runs in: its own settings, then other integrators / projections.
struct Variant {
  const char* name;
  int integrator;  // -1: the scene's
  int projection;  // -1: the scene's
};
const Variant kVariants[] = {{"scene", -1, -1},
                             {"euler", static_cast<int>(Integrator::Euler), -1},
                             {"symplectic_euler", static_cast<int>(Integrator::SymplecticEuler), -1},
                             {"velocity", static_cast<int>(Integrator::Rk4), static_cast<int>(Projection::Velocity)},
                             {"position_velocity", static_cast<int>(Integrator::Rk4),
                              static_cast<int>(Projection::PositionVelocity)}};

std::vector<Model> variant_models(const std::string& name, int n, const Variant& v) {
  std::vector<Model> models = scene_models(name, n);
  for (Model& m : models) {
    if (v.integrator >= 0) m.solver.integrator = static_cast<Integrator>(v.integrator);
    if (v.projection >= 0) m.solver.projection = static_cast<Projection>(v.projection);
  }
  return models;
}

/// The group step compiled in this file (baseline target, no contraction): the lane code
/// exactly as the dispatched clones run it, minus the FMAs.
void advance_lanes_here(test::SimdBatch& B, int n_steps) {
  std::vector<unsigned char> scalar_forces;
  std::vector<BodyKin<double>> kin;
  const simd::GroupContext ctx = simd::make_group_context(B.view, scalar_forces, kin);
  for (int g = 0; g < B.groups(); ++g) simd::advance_group(ctx, g, n_steps);
  *B.view.b.step += n_steps;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Bitwise equality of everything a step leaves per instance.
void expect_identical(const test::SimdBatch& A, int ia, const test::SimdBatch& B, int ib, const std::string& what) {
  const int ny = 13 * A.hb.N;
  for (int e = 0; e < ny; ++e)
    ASSERT_TRUE(same_bits(A.Y(e, ia), B.Y(e, ib)))
        << what << ": Y[" << e << "] of instance " << ia << " " << A.Y(e, ia) << " vs " << B.Y(e, ib);
  EXPECT_EQ(A.hb.status[ia], B.hb.status[ib]) << what;
  EXPECT_EQ(A.hb.status_step[ia], B.hb.status_step[ib]) << what;
  EXPECT_EQ(A.hb.status_reason[ia], B.hb.status_reason[ib]) << what;
  EXPECT_EQ(A.hb.recoveries[ia], B.hb.recoveries[ib]) << what;
  EXPECT_EQ(A.hb.refine_unconverged[ia], B.hb.refine_unconverged[ib]) << what;
  EXPECT_TRUE(same_bits(A.hb.refine_worst[ia], B.hb.refine_worst[ib])) << what << ": refine_worst";
  EXPECT_TRUE(same_bits(A.hb.refine_worst_time[ia], B.hb.refine_worst_time[ib])) << what << ": refine_worst_time";
  EXPECT_EQ(A.hb.fail[ia], B.hb.fail[ib]) << what;
  const double va = A.view.b.violation[ia], vb = B.view.b.violation[ib];
  EXPECT_TRUE(same_bits(va, vb) || (std::isnan(va) && std::isnan(vb))) << what << ": violation";
}

constexpr int kSteps = 100;

/// The scenes that also run the other integrators and projections (kVariants): the closed
/// loops (redundant rows), drivers, force elements and free rotation; every scene runs its
/// own settings. (All scenes in all variants take several times as long, the sanitizer
/// run's budget, for the same code paths.)
bool runs_variants(const std::string& name) {
  for (const char* v : {"four_bar", "bricard", "slider_crank_driven", "crank_press", "stiff_damper", "spinning_top",
                        "double_pendulum", "cylindrical_collar"})
    if (name == v) return true;
  return false;
}
constexpr int kReal = 13, kPad = 16;  // two groups, three padding lanes

/// The models of a batch of kReal instances padded to kPad with copies of instance 0.
std::vector<Model> padded(std::vector<Model> models) {
  models.resize(kReal);
  while (static_cast<int>(models.size()) < kPad) models.push_back(models.front());
  return models;
}

// Bound of the dispatched clone against the scalar form: the measured largest difference
// over every example and variant after kSteps steps, relative to max(1, |Y|), is below
// 3.1e-13 on AVX-512 (the test prints it); kDispatchedTol = 1e-10 leaves a factor 300 for
// other CPUs' clones, while a wrong lane (a swapped instance, a missed term) differs at O(1e-3) or more.
constexpr double kDispatchedTol = 1e-10;

// On every example and variant after kSteps steps (statuses, recoveries, violations
// included): the lane code compiled here, without contraction, equals the scalar form bit
// for bit; the dispatched clone (FMAs on AVX2 / AVX-512) equals it to round-off.
TEST(SimdLanes, EqualToScalarFormOnEveryExample) {
  std::printf("simd_target: %s\n", simd::simd_target());
  double worst = 0;
  for (const std::string& name : fused_scene_names())
    for (const Variant& v : kVariants) {
      if (&v != &kVariants[0] && !runs_variants(name)) continue;
      const std::vector<Model> models = padded(variant_models(name, kReal, v));
      test::SimdBatch S(models, kPad), L(models, kPad), D(models, kPad);
      S.advance(kSteps, false);
      advance_lanes_here(L, kSteps);
      D.advance(kSteps, true);
      for (int i = 0; i < kPad; ++i) expect_identical(S, i, L, i, name + "/" + v.name);
      double d = 0;
      for (int i = 0; i < kReal; ++i) {
        EXPECT_EQ(S.hb.status[i], D.hb.status[i]) << name << "/" << v.name << " instance " << i;
        EXPECT_EQ(S.hb.recoveries[i], D.hb.recoveries[i]) << name << "/" << v.name << " instance " << i;
        EXPECT_EQ(S.hb.refine_unconverged[i], D.hb.refine_unconverged[i]) << name << "/" << v.name << " instance " << i;
        for (int e = 0; e < 13 * S.hb.N; ++e) {
          const double a = S.Y(e, i), b = D.Y(e, i);
          if (std::isnan(a) && std::isnan(b)) continue;
          d = std::max(d, std::fabs(a - b) / std::max(1.0, std::fabs(a)));
        }
      }
      EXPECT_LE(d, kDispatchedTol) << name << "/" << v.name;
      worst = std::max(worst, d);
    }
  std::printf("largest relative difference of the dispatched clone: %.3g\n", worst);
}

/// kPad distinct instances of a swept scene (four_bar's sweep varies its parameters).
std::vector<Model> distinct_models(const std::string& name) {
  std::vector<Model> models = scene_models(name, kPad);
  for (int i = 0; i < kPad; ++i) models[i].solver.baumgarte_alpha = 5.0 + i;  // per-instance parameters
  return models;
}

// A lane's result does not depend on the lane or the group it runs in: the same batch
// permuted gives every instance the same bits (dispatched clone, FMAs included).
TEST(SimdLanes, InstanceResultIndependentOfLaneAndGroup) {
  for (const char* name : {"four_bar", "slider_crank_driven", "crank_press", "double_pendulum"}) {
    const std::vector<Model> models = distinct_models(name);
    std::vector<int> perm(kPad);
    for (int i = 0; i < kPad; ++i) perm[i] = (5 * i + 3) % kPad;  // moves each instance to another lane and group
    std::vector<Model> permuted(kPad);
    for (int i = 0; i < kPad; ++i) permuted[perm[i]] = models[i];
    test::SimdBatch A(models, kPad), B(permuted, kPad);
    A.advance(kSteps, true);
    B.advance(kSteps, true);
    for (int i = 0; i < kPad; ++i) expect_identical(A, i, B, perm[i], name);
  }
}

// An instance whose state is not finite (its factorisation rejects every pivot, then
// every recovery) fails and is frozen as in the scalar form, and the other lanes of its
// group -- real ones and padding -- get the same bits as without it.
TEST(SimdLanes, FailingLaneLeavesItsGroupAlone) {
  for (const char* name : {"four_bar", "slider_crank_driven"}) {
    const std::vector<Model> models = distinct_models(name);
    test::SimdBatch clean(models, kPad), bad(models, kPad), scalar(models, kPad);
    const int victim = 10;  // group 1, lane 2
    for (test::SimdBatch* B : {&bad, &scalar})
      for (int e = 7 * B->hb.N; e < 13 * B->hb.N; ++e)
        B->Y_ptr()[static_cast<std::size_t>(e) * kPad + victim] = std::numeric_limits<double>::quiet_NaN();
    clean.advance(kSteps, true);
    bad.advance(kSteps, true);
    scalar.advance(kSteps, false);
    for (int i = 0; i < kPad; ++i)
      if (i != victim) expect_identical(clean, i, bad, i, std::string(name) + " beside a failing lane");
    EXPECT_NE(bad.hb.status[victim], 0) << name;
    EXPECT_EQ(bad.hb.status[victim], scalar.hb.status[victim]) << name;
    EXPECT_EQ(bad.hb.status_step[victim], scalar.hb.status_step[victim]) << name;
    EXPECT_EQ(bad.hb.status_reason[victim], scalar.hb.status_reason[victim]) << name;
  }
}

// An instance that needs the pivot recovery (four_bar's redundant rows with eps = 0:
// C is singular up to round-off) recovers in the lanes as in the scalar form, and its
// group's other lanes keep the lane arithmetic (bitwise as without it).
TEST(SimdLanes, RecoveringLaneMatchesScalarForm) {
  std::vector<Model> models = distinct_models("four_bar");
  for (Model& m : models) m.removed_rows.clear();  // the redundant rows kept: C singular at eps = 0
  const int victim = 4;
  std::vector<Model> with_zero_eps = models;
  with_zero_eps[victim].solver.tikhonov_epsilon = 0.0;
  test::SimdBatch clean(models, kPad), lanes(with_zero_eps, kPad), scalar(with_zero_eps, kPad);
  clean.advance(20, true);
  lanes.advance(20, true);
  scalar.advance(20, false);
  EXPECT_GT(scalar.hb.recoveries[victim], 0);
  EXPECT_EQ(lanes.hb.recoveries[victim], scalar.hb.recoveries[victim]);
  for (int e = 0; e < 13 * lanes.hb.N; ++e)
    EXPECT_NEAR(lanes.Y(e, victim), scalar.Y(e, victim), kDispatchedTol * std::max(1.0, std::fabs(scalar.Y(e, victim))));
  for (int i = 0; i < kPad; ++i)
    if (i != victim) expect_identical(clean, i, lanes, i, "four_bar beside a recovering lane");
}

// Padding lanes are harmless: whatever they hold (copies of instance 0, or NaN), the real
// instances get the same bits.
TEST(SimdLanes, PaddingLanesAreHarmless) {
  const std::vector<Model> models = padded(scene_models("slider_crank", kReal));
  test::SimdBatch A(models, kPad), B(models, kPad);
  for (int i = kReal; i < kPad; ++i)
    for (int e = 0; e < 13 * B.hb.N; ++e)
      B.Y_ptr()[static_cast<std::size_t>(e) * kPad + i] = std::numeric_limits<double>::quiet_NaN();
  A.advance(50, true);
  B.advance(50, true);
  for (int i = 0; i < kReal; ++i) expect_identical(A, i, B, i, "slider_crank with NaN padding");
}

// The per-group pieces against the per-thread functions they replace, one evaluation at
// a generic state, bit for bit (this file: no contraction): rows, Phi_q, gamma*, Q,
// lambda, the accelerations, the RK4 stage and final updates, the Euler update.
TEST(SimdLanes, PiecesEqualPerThreadFunctions) {
  for (const char* name : {"crank_press", "slider_crank_driven", "bricard", "arm7"}) {
    const std::vector<Model> models = padded(scene_models(name, kReal));
    test::SimdBatch A(models, kPad);
    A.advance(30, false);  // a generic state
    const batch::ModelView<double>& mv = A.view.mv;
    batch::BatchBuffers<double> b = A.view.b;
    const int n = kPad, N = mv.n_bodies, m = mv.n_rows;
    // Scalar reference.
    for (int i = 0; i < n; ++i) batch::fused_solve_thread(i, mv, A.view.P, b, static_cast<const double*>(b.Y), 0.25 * mv.dt);
    for (int t = 0; t < n * N; ++t)
      batch::accelerations_thread(t, mv, static_cast<const double*>(b.Y), static_cast<const double*>(b.jac),
                                  static_cast<const double*>(b.Q), static_cast<const double*>(b.rhs), 1,
                                  static_cast<const int*>(b.info), b.k[0], b.fail);
    for (int t = 0; t < n * N; ++t)
      batch::rk4_stage_thread(t, mv, 0.5 * mv.dt, static_cast<const double*>(b.Y), static_cast<const double*>(b.k[0]),
                              b.y_stage);
    auto copy = [](const double* p, std::size_t count) { return std::vector<double>(p, p + count); };
    const std::size_t ny = 13 * static_cast<std::size_t>(N) * n;
    const std::vector<double> phi = copy(b.phi, m * n), jac = copy(b.jac, static_cast<std::size_t>(mv.jac_cols()) * m * n), gs = copy(b.gamma_star, m * n),
                              Q = copy(b.Q, 6 * N * n), lambda = copy(b.rhs, m * n), k0 = copy(b.k[0], ny),
                              ys = copy(b.y_stage, ny);
    for (int t = 0; t < n * N; ++t)
      batch::rk4_final_thread(t, mv, static_cast<const double*>(b.Y), static_cast<const double*>(b.k[0]),
                              static_cast<const double*>(b.k[0]), static_cast<const double*>(b.k[0]),
                              static_cast<const double*>(b.k[0]), b.y_stage);
    const std::vector<double> yf = copy(b.y_stage, ny);
    for (int t = 0; t < n * N; ++t)
      batch::euler_final_thread(t, mv, static_cast<const double*>(b.Y), static_cast<const double*>(b.k[0]), b.y_stage);
    const std::vector<double> ye = copy(b.y_stage, ny);

    // The same in groups.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (double* p : {b.phi, b.gamma_star, b.rhs}) std::fill(p, p + m * n, nan);
    std::fill(b.jac, b.jac + static_cast<std::size_t>(mv.jac_cols()) * m * n, nan);
    std::fill(b.Q, b.Q + 6 * N * n, nan);
    std::fill(b.k[0], b.k[0] + ny, nan);
    std::fill(b.y_stage, b.y_stage + ny, nan);
    std::vector<unsigned char> scalar_forces;
    std::vector<BodyKin<double>> kin;
    simd::GroupContext ctx = simd::make_group_context(A.view, scalar_forces, kin);
    auto expect_bits = [&](const std::vector<double>& ref, const double* got, const char* what) {
      for (std::size_t e = 0; e < ref.size(); ++e)
        ASSERT_TRUE(same_bits(ref[e], got[e])) << name << " " << what << "[" << e << "]: " << ref[e] << " vs " << got[e];
    };
    for (int g = 0; g < A.groups(); ++g) {
      simd::GroupState s{&ctx, &A.view.mv, A.view.b, *A.view.b.step, g, g * W, simd::group_solve};
      s.b.step = &s.step;
      simd::group_solve(s, A.view.b.Y, 0.25 * mv.dt, -1);
      simd::group_accelerations(s, A.view.b.Y, A.view.b.k[0]);
      for (int k = 0; k < N; ++k)
        batch::rk4_stage_thread(k * ctx.mvL.n_instances + g, ctx.mvL, simd::L8(0.5 * mv.dt),
                                static_cast<const simd::L8*>(ctx.bL.Y), static_cast<const simd::L8*>(ctx.bL.k[0]),
                                ctx.bL.y_stage);
    }
    expect_bits(phi, b.phi, "phi");
    expect_bits(jac, b.jac, "jac");
    expect_bits(gs, b.gamma_star, "gamma_star");
    expect_bits(Q, b.Q, "Q");
    expect_bits(lambda, b.rhs, "lambda");
    expect_bits(k0, b.k[0], "ydot");
    expect_bits(ys, b.y_stage, "rk4 stage");
    for (int g = 0; g < A.groups(); ++g)
      for (int k = 0; k < N; ++k) {
        const simd::L8* k0L = static_cast<const simd::L8*>(ctx.bL.k[0]);
        batch::rk4_final_thread(k * ctx.mvL.n_instances + g, ctx.mvL, static_cast<const simd::L8*>(ctx.bL.Y), k0L, k0L,
                                k0L, k0L, ctx.bL.y_stage);
      }
    expect_bits(yf, b.y_stage, "rk4 final");
    for (int g = 0; g < A.groups(); ++g)
      for (int k = 0; k < N; ++k)
        batch::euler_final_thread(k * ctx.mvL.n_instances + g, ctx.mvL, static_cast<const simd::L8*>(ctx.bL.Y),
                                  static_cast<const simd::L8*>(ctx.bL.k[0]), ctx.bL.y_stage);
    expect_bits(ye, b.y_stage, "euler");
  }
}

/// CPU time of this thread [s] (a loaded machine's other processes do not count).
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Throughput of the two forms on one core (not run by default: a measurement, run with
// --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'): instance-steps per
// second of RK4 for 64 instances (per second of this thread's CPU time), the scalar form
// and the dispatched lanes.
TEST(SimdLanes, DISABLED_Throughput) {
  const std::string examples = std::string(SIMPHANT_SOURCE_DIR) + "/examples";
  const char* only = std::getenv("SIMPHANT_THROUGHPUT_MODEL");  // one model, for a profiler
  for (const char* name : {"arm7", "chain_4", "chain_8", "chain_16", "chain_32", "four_bar", "slider_crank"}) {
    if (only && std::string(only) != name) continue;
    const std::vector<Model> models(1, bench::bench_model(name, examples));
    const int n = 64;
    double rate[2] = {1, 1};
    for (int lanes = std::getenv("SIMPHANT_THROUGHPUT_LANES_ONLY") ? 1 : 0; lanes < 2; ++lanes) {
      test::SimdBatch B(models, n);
      B.advance(5, lanes != 0);
      int steps = 20;
      for (;;) {
        const double t0 = thread_seconds();
        B.advance(steps, lanes != 0);
        const double t = thread_seconds() - t0;
        if (t > 0.5 || steps > 100000) {
          rate[lanes] = static_cast<double>(n) * steps / t;
          break;
        }
        steps *= 4;
      }
    }
    std::printf("%-14s scalar %10.0f  lanes(%s) %10.0f instance-steps/s  x%.2f\n", name, rate[0], simd::simd_target(),
                rate[1], rate[1] / rate[0]);
  }
}

TEST(SimdLanes, TargetIsNamed) {
  const std::string t = simd::simd_target();
  EXPECT_TRUE(t == "avx512" || t == "avx2" || t == "sse2" || t == "generic") << t;
}

}  // namespace
}  // namespace simphant
