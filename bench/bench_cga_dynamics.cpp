// CGA recursive dynamics (reduced/cga/cga_dynamics.hpp), one call per iteration, on a
// generated 7-link revolute arm with realistic masses and inertias (Panda-like: link
// masses 4.6 ... 0.6 kg, offsets 0.08-0.38 m, z joint axes with +-90 deg frame twists,
// CoMs off the axes, full inertia tensors). Inputs cycle through 256 seeded random
// states. Variants: over ReducedLinkParams (the rotor of R_parent_joint and the inertia
// of eq. 19 rebuilt per call) and over precomputed CgaLink; the transform of an inertia
// by the cheap congruence and by the paper's 12 sandwich products; and, as the baseline
// in the same binary, the spatial-vector RNEA / ABA (reduced/rnea.hpp, aba.hpp).
// Reported time = ns per call; a measurement, not a test.
//
//   ./build/bench/bench_cga_dynamics --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/rnea.hpp"

namespace simphant {
namespace {

constexpr int kN = 7;
constexpr int kStates = 256;

std::vector<ReducedLinkParams<double>> arm7() {
  struct Row {
    double twist_x;  // frame rotation about x [rad]
    Vec3d p;         // joint origin in the parent [m]
    double m;        // [kg]
    Vec3d c;         // CoM [m]
    Vec3d I;         // principal-ish moments about the CoM [kg m^2]
  };
  const Row rows[kN] = {
      {0.0, {0, 0, 0.333}, 4.6, {0.003, -0.03, -0.08}, {0.62, 0.61, 0.011}},
      {-M_PI / 2, {0, 0, 0}, 4.2, {-0.003, -0.08, 0.03}, {0.011, 0.030, 0.025}},
      {M_PI / 2, {0, -0.316, 0}, 3.1, {0.03, 0.03, -0.06}, {0.036, 0.034, 0.010}},
      {M_PI / 2, {0.0825, 0, 0}, 2.6, {-0.05, 0.06, 0.03}, {0.025, 0.021, 0.009}},
      {-M_PI / 2, {-0.0825, 0.384, 0}, 1.9, {-0.01, 0.04, -0.1}, {0.036, 0.028, 0.007}},
      {M_PI / 2, {0, 0, 0}, 1.4, {0.06, -0.01, 0.01}, {0.002, 0.004, 0.005}},
      {M_PI / 2, {0.088, 0, 0}, 0.6, {0.01, 0.01, 0.07}, {0.012, 0.010, 0.004}},
  };
  std::vector<ReducedLinkParams<double>> links(kN);
  for (int k = 0; k < kN; ++k) {
    const Row& r = rows[k];
    const double c = std::cos(r.twist_x), s = std::sin(r.twist_x), e = r.I.z;
    links[k].parent = k - 1;
    links[k].type = 0;
    links[k].R_parent_joint = {{{1, 0, 0}, {0, c, -s}, {0, s, c}}};
    links[k].p_parent_joint = r.p;
    links[k].axis = {0, 0, 1};
    links[k].mass = r.m;
    links[k].com = r.c;
    links[k].inertia_com = {{{r.I.x, -0.08 * e, 0.03 * e}, {-0.08 * e, r.I.y, 0.04 * e}, {0.03 * e, 0.04 * e, e}}};
  }
  return links;
}

struct States {
  std::vector<double> q, qd, qdd, tau;  // (kStates, kN)
  States() : q(kStates * kN), qd(kStates * kN), qdd(kStates * kN), tau(kStates * kN) {
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < kStates * kN; ++i) {
      q[i] = M_PI * u(g);
      qd[i] = 2 * u(g);
      qdd[i] = 5 * u(g);
      tau[i] = 20 * u(g);
    }
  }
};

const Vec3d kGravity{0, 0, -9.81};

template <class Link, class Fn>
void run(benchmark::State& state, const std::vector<Link>& links, Fn fn) {
  static const States s;
  double out[kN];
  int i = 0;
  for (auto _ : state) {
    const int o = (i++ & (kStates - 1)) * kN;
    fn(links.data(), &s.q[o], &s.qd[o], &s.qdd[o], &s.tau[o], out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
}

void BM_CgaRnea(benchmark::State& state) {
  static cga::CgaWorkspace<double> ws;
  run(state, arm7(), [&](const ReducedLinkParams<double>* L, const double* q, const double* qd, const double* qdd,
                         const double*, double* out) { cga::cga_rnea(kN, L, kGravity, q, qd, qdd, out, ws); });
}
void BM_CgaAba(benchmark::State& state) {
  static cga::CgaWorkspace<double> ws;
  run(state, arm7(), [&](const ReducedLinkParams<double>* L, const double* q, const double* qd, const double*,
                         const double* tau, double* out) { cga::cga_aba(kN, L, kGravity, q, qd, tau, out, ws); });
}
std::vector<cga::CgaLink<double>> arm7_cga() {
  const auto L = arm7();
  std::vector<cga::CgaLink<double>> C(kN);
  for (int k = 0; k < kN; ++k) C[k] = cga::cga_link(L[k]);
  return C;
}
void BM_CgaRneaPrecomputed(benchmark::State& state) {
  static cga::CgaWorkspace<double> ws;
  run(state, arm7_cga(), [&](const cga::CgaLink<double>* L, const double* q, const double* qd, const double* qdd,
                             const double*, double* out) { cga::cga_rnea(kN, L, kGravity, q, qd, qdd, out, ws); });
}
void BM_CgaAbaPrecomputed(benchmark::State& state) {
  static cga::CgaWorkspace<double> ws;
  run(state, arm7_cga(), [&](const cga::CgaLink<double>* L, const double* q, const double* qd, const double*,
                             const double* tau, double* out) { cga::cga_aba(kN, L, kGravity, q, qd, tau, out, ws); });
}
void BM_SpatialRnea(benchmark::State& state) {
  static RneaWorkspace<double> ws;
  run(state, arm7(), [&](const ReducedLinkParams<double>* L, const double* q, const double* qd, const double* qdd,
                         const double*, double* out) { rnea(kN, L, kGravity, q, qd, qdd, out, ws); });
}
void BM_SpatialAba(benchmark::State& state) {
  static AbaWorkspace<double> ws;
  run(state, arm7(), [&](const ReducedLinkParams<double>* L, const double* q, const double* qd, const double*,
                         const double* tau, double* out) { aba(kN, L, kGravity, q, qd, tau, out, ws); });
}

/// One inertia transform M * I: the closed-form congruence (motor_action + transform)
/// against the paper's eq. 16 with 12 sandwich products.
cga::Inertia<double> some_inertia() {
  const auto L = arm7();
  return cga::body_inertia(L[3].mass, L[3].com, L[3].inertia_com);
}
cga::Motor<double> some_motor() {
  return cga::motor_from_rt(arm7()[2].R_parent_joint, Vec3d{0.1, -0.3, 0.2}) * cga::rotor(Vec3d{0, 0, 1}, 0.7);
}
void BM_InertiaTransformCongruence(benchmark::State& state) {
  cga::Motor<double> M = some_motor();
  cga::Inertia<double> I = some_inertia();
  for (auto _ : state) {
    benchmark::DoNotOptimize(M);
    benchmark::DoNotOptimize(I);
    cga::Inertia<double> r = cga::transform(cga::motor_action(M), I);
    benchmark::DoNotOptimize(r);
  }
}
void BM_InertiaTransformSandwiches(benchmark::State& state) {
  cga::Motor<double> M = some_motor();
  cga::Inertia<double> I = some_inertia();
  for (auto _ : state) {
    benchmark::DoNotOptimize(M);
    benchmark::DoNotOptimize(I);
    cga::Inertia<double> r = cga::transform_sandwich(M, I);
    benchmark::DoNotOptimize(r);
  }
}

/// Baseline: the spatial-vector articulated-inertia transform X^T IA X (spatial.hpp).
void BM_InertiaTransformSpatial(benchmark::State& state) {
  const auto L = arm7();
  SpatialTransform<double> X = link_transform(L[2], 0.7);
  ArticulatedInertia<double> A = articulated(link_inertia(L[3]));
  for (auto _ : state) {
    benchmark::DoNotOptimize(X);
    benchmark::DoNotOptimize(A);
    ArticulatedInertia<double> r = transform_transpose(X, A);
    benchmark::DoNotOptimize(r);
  }
}

BENCHMARK(BM_CgaRnea);
BENCHMARK(BM_CgaAba);
BENCHMARK(BM_CgaRneaPrecomputed);
BENCHMARK(BM_CgaAbaPrecomputed);
BENCHMARK(BM_SpatialRnea);
BENCHMARK(BM_SpatialAba);
BENCHMARK(BM_InertiaTransformCongruence);
BENCHMARK(BM_InertiaTransformSandwiches);
BENCHMARK(BM_InertiaTransformSpatial);

}  // namespace
}  // namespace simphant

BENCHMARK_MAIN();
