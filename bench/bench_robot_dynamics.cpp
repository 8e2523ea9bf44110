// Time per call of RNEA, ABA, CGA-RNEA, CGA-ABA and one DAE evaluation (dynamics/
// evaluate.hpp on urdf/maximal_from_urdf's model) on Panda (9 dof with the fingers),
// UR5 (6) and xArm7 (7) from example-robot-data (KUKA iiwa is not in its 6.0.0), one
// thread. The inputs cycle through 256 seeded random states. The
// Pinocchio side is bench/pinocchio_bench.py and bench/pinocchio_aba_bench.cpp, all run
// by bench/robot_bench.sh. A measurement, not a test. Without example-robot-data the
// binary prints why and exits 0.
//
//   ./build/bench/bench_robot_dynamics --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../tests/robot_data.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/rnea.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {
namespace {

constexpr int kStates = 256;

struct Robot {
  std::string name;
  ReducedModel rm;
  std::vector<ReducedLinkParams<double>> links;
  std::vector<cga::CgaLink<double>> cga_links;
  std::vector<std::vector<double>> q, qd, x;  ///< (kStates, n): x = qdd or tau
};

Robot make_robot(const std::string& name, const std::string& urdf) {
  Robot r{name, load_urdf(urdf), {}, {}, {}, {}, {}};
  for (int k = 0; k < r.rm.nq(); ++k) {
    r.links.push_back(reduced_link_params<double>(r.rm, k));
    r.cga_links.push_back(cga::cga_link(r.links.back()));
  }
  std::mt19937_64 g(42);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int s = 0; s < kStates; ++s) {
    std::vector<double> q, qd, x;
    for (const ReducedLink& l : r.rm.links) {
      q.push_back(l.type == ReducedJointType::Revolute ? M_PI * u(g) : 0.02 + 0.02 * u(g));
      qd.push_back(2 * u(g));
      x.push_back(3 * u(g));
    }
    r.q.push_back(q);
    r.qd.push_back(qd);
    r.x.push_back(x);
  }
  return r;
}

void run_alg(benchmark::State& st, const Robot& r, int alg) {
  static AbaWorkspace<double> aws;
  static RneaWorkspace<double> rws;
  static cga::CgaWorkspace<double> cws;
  const int n = r.rm.nq();
  std::vector<double> out(n);
  int s = 0;
  for (auto _ : st) {
    const double *q = r.q[s].data(), *qd = r.qd[s].data(), *x = r.x[s].data();
    switch (alg) {
      case 0: rnea(n, r.links.data(), r.rm.gravity, q, qd, x, out.data(), rws); break;
      case 1: aba(n, r.links.data(), r.rm.gravity, q, qd, x, out.data(), aws); break;
      case 2: cga::cga_rnea(n, r.cga_links.data(), r.rm.gravity, q, qd, x, out.data(), cws); break;
      default: cga::cga_aba(n, r.cga_links.data(), r.rm.gravity, q, qd, x, out.data(), cws); break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    s = (s + 1) & (kStates - 1);
  }
}

/// One evaluate() of the maximal model (Schur complement + Cholesky) at the DAE states
/// of the same joint states (forward kinematics done outside the timing).
void run_dae(benchmark::State& st, const Robot& r) {
  std::vector<Model> models;
  std::vector<std::vector<double>> Y;
  const int S = 32;
  for (int s = 0; s < S; ++s) {
    models.push_back(maximal_model_from_urdf(r.rm, r.q[s], r.qd[s]));
    std::vector<double> y(13 * models.back().n_bodies());
    initial_state(models.back(), y.data());
    Y.push_back(y);
  }
  Data d(models.front());
  std::vector<double> Ydot(Y.front().size());
  int s = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(evaluate(models[s], d, 0.0, Y[s].data(), nullptr, Ydot.data()));
    benchmark::ClobberMemory();
    s = (s + 1) % S;
  }
}

}  // namespace
}  // namespace simphant

int main(int argc, char** argv) {
  using namespace simphant;
  benchmark::Initialize(&argc, argv);
  const std::string dir = test::robot_data_dir();
  if (dir.empty()) {
    std::fprintf(stderr, "bench_robot_dynamics: example-robot-data is not installed (pip install example-robot-data)\n");
    return 0;
  }
  static std::vector<std::unique_ptr<Robot>> robots;
  for (const test::TestRobot& t : test::test_robots())
    robots.push_back(std::make_unique<Robot>(make_robot(t.name, dir + "/" + t.path)));
  const char* algs[] = {"rnea", "aba", "cga_rnea", "cga_aba"};
  for (const auto& r : robots) {
    for (int a = 0; a < 4; ++a)
      benchmark::RegisterBenchmark((std::string(algs[a]) + "/" + r->name).c_str(),
                                   [&r, a](benchmark::State& st) { run_alg(st, *r, a); });
    benchmark::RegisterBenchmark(("dae_evaluate/" + r->name).c_str(),
                                 [&r](benchmark::State& st) { run_dae(st, *r); });
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
