// Reduced-coordinate recursive dynamics (reduced/rnea.hpp, crba.hpp, aba.hpp), one call
// per iteration, on a generated 7-link revolute arm with realistic masses and inertias
// (a Panda-like chain: link masses 4.0 ... 0.7 kg, joint offsets 0.1-0.4 m, joint axes
// z with +-90 deg frame twists; CoMs off the axes, full inertia tensors). The inputs
// cycle through 256 seeded random states so that branch prediction cannot learn one.
// Baseline in the same binary: forward dynamics by CRBA + bias + dense Cholesky (Eigen).
// Floating base: the same arm hung from a free 5 kg base moving with a random twist
// (aba_floating, cga::cga_aba_floating), against the fixed-base aba of the same binary;
// BM_Aba<T, 7>: a workspace of capacity 7 (what a GPU thread uses) instead of 64.
// Reported time = ns per call; a measurement, not a test.
//
//   ./build/bench/bench_reduced_dynamics --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/reduced/rnea.hpp"

namespace simphant {
namespace {

constexpr int kN = 7;
constexpr int kStates = 256;

Mat3d rot_x(double a) {
  const double c = std::cos(a), s = std::sin(a);
  return {{{1, 0, 0}, {0, c, -s}, {0, s, c}}};
}

template <class T>
std::vector<ReducedLinkParams<T>> seven_link_arm() {
  // Per link: frame twist about x [rad], joint offset in the parent [m], mass [kg], CoM [m],
  // inertia about the CoM (diagonal, then a small product of inertia) [kg m^2].
  struct Row {
    double twist;
    Vec3d p;
    double m;
    Vec3d c;
    Vec3d I;
  };
  const Row rows[kN] = {
      {0.0, {0, 0, 0.333}, 4.0, {0, -0.03, -0.07}, {0.70, 0.70, 0.009}},
      {-M_PI / 2, {0, 0, 0}, 4.0, {0, -0.07, 0.03}, {0.008, 0.028, 0.026}},
      {M_PI / 2, {0, -0.316, 0}, 3.0, {0.04, 0.02, -0.05}, {0.037, 0.036, 0.011}},
      {M_PI / 2, {0.0825, 0, 0}, 2.7, {-0.04, 0.05, 0.03}, {0.026, 0.020, 0.008}},
      {-M_PI / 2, {-0.0825, 0.384, 0}, 1.7, {0, 0.04, -0.11}, {0.035, 0.029, 0.006}},
      {M_PI / 2, {0, 0, 0}, 1.5, {0.05, -0.01, 0.01}, {0.002, 0.004, 0.005}},
      {M_PI / 2, {0.088, 0, 0}, 0.7, {0.01, 0.0, 0.08}, {0.013, 0.010, 0.004}},
  };
  std::vector<ReducedLinkParams<T>> links(kN);
  for (int k = 0; k < kN; ++k) {
    const Row& r = rows[k];
    Mat3d I{{{r.I.x, -0.1 * r.I.z, 0.05 * r.I.z}, {-0.1 * r.I.z, r.I.y, 0.02 * r.I.z}, {0.05 * r.I.z, 0.02 * r.I.z, r.I.z}}};
    links[k] = {k - 1,         0,        cast33<T>(rot_x(r.twist)), cast3<T>(r.p), Vec3<T>{0, 0, 1},
                T(r.m),        cast3<T>(r.c), cast33<T>(I),              T(0)};
  }
  return links;
}

template <class T>
struct States {
  std::vector<T> q, qd, qdd, tau;  // (kStates, kN)
  States() : q(kStates * kN), qd(kStates * kN), qdd(kStates * kN), tau(kStates * kN) {
    std::mt19937_64 g(42);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < kStates * kN; ++i) {
      q[i] = T(M_PI * u(g));
      qd[i] = T(2 * u(g));
      qdd[i] = T(5 * u(g));
      tau[i] = T(20 * u(g));
    }
  }
};

template <class T>
void BM_Rnea(benchmark::State& state) {
  const auto links = seven_link_arm<T>();
  const States<T> s;
  auto ws = std::make_unique<RneaWorkspace<T>>();
  T tau[kN];
  const Vec3<T> g{0, 0, T(-9.81)};
  int i = 0;
  for (auto _ : state) {
    const int o = i * kN;
    rnea(kN, links.data(), g, &s.q[o], &s.qd[o], &s.qdd[o], tau, *ws);
    benchmark::DoNotOptimize(tau);
    benchmark::ClobberMemory();
    i = (i + 1) % kStates;
  }
  state.SetItemsProcessed(state.iterations());
}

template <class T, int Cap = kMaxReducedLinks>
void BM_Aba(benchmark::State& state) {
  const auto links = seven_link_arm<T>();
  const States<T> s;
  auto ws = std::make_unique<AbaWorkspace<T, Cap>>();
  T qdd[kN];
  const Vec3<T> g{0, 0, T(-9.81)};
  int i = 0;
  for (auto _ : state) {
    const int o = i * kN;
    aba(kN, links.data(), g, &s.q[o], &s.qd[o], &s.tau[o], qdd, *ws);
    benchmark::DoNotOptimize(qdd);
    benchmark::ClobberMemory();
    i = (i + 1) % kStates;
  }
  state.SetItemsProcessed(state.iterations());
}

/// A free base for the arm: 5 kg, CoM 5 cm off the origin, inertia about the CoM.
template <class T>
RobotBaseParams<T> arm_base() {
  return {T(5), Vec3<T>{T(0), T(0.01), T(0.05)},
          Mat3<T>{{{T(0.05), T(0.001), T(0)}, {T(0.001), T(0.06), T(0)}, {T(0), T(0), T(0.04)}}}};
}

/// Floating-base forward dynamics of the arm on arm_base(), base state from the cycled
/// random state (orientation from q[0..3], twist from qd[0..5]); kCga: the CGA form over
/// precomputed CgaLinks.
template <class T, bool kCga>
void BM_AbaFloating(benchmark::State& state) {
  const auto links = seven_link_arm<T>();
  std::vector<cga::CgaLink<T>> cga_links;
  for (const auto& l : links) cga_links.push_back(cga::cga_link(l));
  const RobotBaseParams<T> base = arm_base<T>();
  const States<T> s;
  auto ws = std::make_unique<AbaWorkspace<T>>();
  auto cws = std::make_unique<cga::CgaWorkspace<T>>();
  T qdd[kN];
  Vec3<T> vdot, wdot;
  const Vec3<T> g{0, 0, T(-9.81)}, p{T(0.1), T(0.2), T(0.3)};
  int i = 0;
  for (auto _ : state) {
    const int o = i * kN;
    const Quat<T> quat = normalized(Quat<T>{T(1), s.q[o], s.q[o + 1], s.q[o + 2]});
    const Vec3<T> v{s.qd[o], s.qd[o + 1], s.qd[o + 2]}, w{s.qd[o + 3], s.qd[o + 4], s.qd[o + 5]};
    if (kCga)
      cga::cga_aba_floating(kN, cga_links.data(), base, g, p, quat, v, w, &s.q[o], &s.qd[o], &s.tau[o], vdot, wdot,
                            qdd, *cws);
    else
      aba_floating(kN, links.data(), base, g, p, quat, v, w, &s.q[o], &s.qd[o], &s.tau[o], vdot, wdot, qdd, *ws);
    benchmark::DoNotOptimize(qdd);
    benchmark::DoNotOptimize(vdot);
    benchmark::DoNotOptimize(wdot);
    benchmark::ClobberMemory();
    i = (i + 1) % kStates;
  }
  state.SetItemsProcessed(state.iterations());
}

template <class T>
void BM_Crba(benchmark::State& state) {
  const auto links = seven_link_arm<T>();
  const States<T> s;
  auto ws = std::make_unique<CrbaWorkspace<T>>();
  T M[kN * kN];
  const Vec3<T> g{0, 0, T(-9.81)};
  int i = 0;
  for (auto _ : state) {
    crba(kN, links.data(), g, &s.q[i * kN], static_cast<const T*>(nullptr), M, static_cast<T*>(nullptr), *ws);
    benchmark::DoNotOptimize(M);
    benchmark::ClobberMemory();
    i = (i + 1) % kStates;
  }
  state.SetItemsProcessed(state.iterations());
}

// Baseline: qdd = M^-1 (tau - bias) with CRBA (M and bias) and Eigen's fixed-size LLT.
void BM_CrbaCholeskyForwardDynamics(benchmark::State& state) {
  const auto links = seven_link_arm<double>();
  const States<double> s;
  auto ws = std::make_unique<CrbaWorkspace<double>>();
  Eigen::Matrix<double, kN, kN, Eigen::RowMajor> M;
  Eigen::Matrix<double, kN, 1> bias, qdd;
  const Vec3d g{0, 0, -9.81};
  int i = 0;
  for (auto _ : state) {
    const int o = i * kN;
    crba(kN, links.data(), g, &s.q[o], &s.qd[o], M.data(), bias.data(), *ws);
    qdd = M.llt().solve(Eigen::Map<const Eigen::Matrix<double, kN, 1>>(&s.tau[o]) - bias);
    benchmark::DoNotOptimize(qdd.data());
    benchmark::ClobberMemory();
    i = (i + 1) % kStates;
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK_TEMPLATE(BM_Rnea, double);
BENCHMARK_TEMPLATE(BM_Aba, double);
BENCHMARK_TEMPLATE(BM_Aba, double, 7);
BENCHMARK_TEMPLATE(BM_AbaFloating, double, false);
BENCHMARK_TEMPLATE(BM_AbaFloating, double, true);
BENCHMARK_TEMPLATE(BM_Crba, double);
BENCHMARK(BM_CrbaCholeskyForwardDynamics);
BENCHMARK_TEMPLATE(BM_Rnea, float);
BENCHMARK_TEMPLATE(BM_Aba, float);

}  // namespace
}  // namespace simphant

BENCHMARK_MAIN();
