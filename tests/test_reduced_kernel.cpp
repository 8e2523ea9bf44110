// The reduced-coordinate forward-dynamics kernel's per-thread function
// (kernels/reduced_dynamics.hpp) run on the CPU over its whole grid (5 differing
// instances in blocks of 4, so 3 threads past the end), outputs pre-filled with NaN:
// equal to aba / cga_aba called directly, instance by instance.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "reduced_dynamics.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {
namespace {

TEST(ReducedKernel, PerThreadFunctionOverWholeGridEqualsDirectCalls) {
  const ReducedModel rm = load_urdf(std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/chain3.urdf");
  const int n = rm.nq(), n_instances = 5, block = 4, grid = (n_instances + block - 1) / block;
  std::vector<ReducedLinkParams<double>> links;
  for (int k = 0; k < n; ++k) links.push_back(reduced_link_params<double>(rm, k));
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<double> q(n_instances * n), qd(n_instances * n), tau(n_instances * n);
  for (std::size_t e = 0; e < q.size(); ++e) {
    q[e] = u(g);
    qd[e] = u(g);
    tau[e] = u(g);
  }
  for (int use_cga : {0, 1}) {
    std::vector<double> out(n_instances * n, std::numeric_limits<double>::quiet_NaN());
    for (int tid = 0; tid < grid * block; ++tid)
      batch::reduced_forward_dynamics_thread(tid, n_instances, n, links.data(), rm.gravity, use_cga, q.data(), qd.data(),
                                             tau.data(), out.data());
    for (int i = 0; i < n_instances; ++i) {
      std::vector<double> ref(n);
      const std::size_t o = static_cast<std::size_t>(i) * n;
      if (use_cga) {
        cga::CgaWorkspace<double> ws;
        cga::cga_aba(n, links.data(), rm.gravity, q.data() + o, qd.data() + o, tau.data() + o, ref.data(), ws);
      } else {
        AbaWorkspace<double> ws;
        aba(n, links.data(), rm.gravity, q.data() + o, qd.data() + o, tau.data() + o, ref.data(), ws);
      }
      for (int k = 0; k < n; ++k) EXPECT_EQ(out[o + k], ref[k]) << "instance " << i << " joint " << k << " cga " << use_cga;
    }
    EXPECT_NE(out[0], out[n]) << "differing instances give differing accelerations";
  }
}

}  // namespace
}  // namespace simphant
