// Reduced-coordinate recursive dynamics (reduced/rnea.hpp, crba.hpp, aba.hpp), one call
// per iteration, on a generated 7-link revolute arm with realistic masses and inertias
// (a Panda-like chain: link masses 4.0 ... 0.7 kg, joint offsets 0.1-0.4 m, joint axes
// z with +-90 deg frame twists; CoMs off the axes, full inertia tensors). The inputs
// cycle through 256 seeded random states so that branch prediction cannot learn one.
// Baseline in the same binary: forward dynamics by CRBA + bias + dense Cholesky (Eigen).
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
                T(r.m),        cast3<T>(r.c), cast33<T>(I)};
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

template <class T>
void BM_Aba(benchmark::State& state) {
  const auto links = seven_link_arm<T>();
  const States<T> s;
  auto ws = std::make_unique<AbaWorkspace<T>>();
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
BENCHMARK_TEMPLATE(BM_Crba, double);
BENCHMARK(BM_CrbaCholeskyForwardDynamics);
BENCHMARK_TEMPLATE(BM_Rnea, float);
BENCHMARK_TEMPLATE(BM_Aba, float);

}  // namespace
}  // namespace simphant

BENCHMARK_MAIN();
