// pinocchio_aba_bench URDF...: Pinocchio's own C++ aba / rnea per call (no Python), for
// the ratios of bench/robot_bench.sh. Not part of the CMake build: Pinocchio is a
// test-time pip package (pin); robot_bench.sh compiles this against the wheel's headers
// and libraries when they are present. Prints one line per robot and algorithm:
//   <urdf> <aba|rnea> <ns per call>
// Method: 256 random states (q in the joint's range by pinocchio::randomConfiguration on
// [-pi, pi] limits, v, tau uniform), cycled; best of 5 repeats of >= 0.3 s each.
#include <chrono>
#include <cstdio>
#include <vector>

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/parsers/urdf.hpp>

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  for (int r = 1; r < argc; ++r) {
    pinocchio::Model model;
    pinocchio::urdf::buildModel(argv[r], model);
    pinocchio::Data data(model);
    const int S = 256;
    std::vector<Eigen::VectorXd> q(S), v(S), u(S);
    const Eigen::VectorXd lo = Eigen::VectorXd::Constant(model.nq, -3.14), hi = -lo;
    for (int s = 0; s < S; ++s) {
      q[s] = pinocchio::randomConfiguration(model, lo, hi);
      v[s] = Eigen::VectorXd::Random(model.nv) * 2;
      u[s] = Eigen::VectorXd::Random(model.nv) * 5;
    }
    for (int alg = 0; alg < 2; ++alg) {
      double best = 1e30;
      for (int rep = 0; rep < 5; ++rep) {
        long calls = 0;
        double sink = 0;
        const auto t0 = Clock::now();
        double el = 0;
        do {
          for (int s = 0; s < S; ++s) {
            if (alg == 0) sink += pinocchio::aba(model, data, q[s], v[s], u[s])[0];
            else sink += pinocchio::rnea(model, data, q[s], v[s], u[s])[0];
          }
          calls += S;
          el = std::chrono::duration<double>(Clock::now() - t0).count();
        } while (el < 0.3);
        if (sink == 12345.678) std::printf(" ");
        best = std::min(best, 1e9 * el / calls);
      }
      std::printf("%s %s %.1f\n", argv[r], alg == 0 ? "aba" : "rnea", best);
    }
  }
  return 0;
}
