// The joint-rows kernel's per-thread function run on the CPU over its whole grid (two
// differing instances x every joint type, plus threads past the end), outputs pre-filled
// with NaN so that an unwritten entry fails; equal to joint_eval called directly.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "joint_rows.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

TEST(JointRowsKernel, PerThreadFunctionOverWholeGridEqualsJointEval) {
  std::mt19937_64 g(21);
  const std::vector<JointType> types = {JointType::Spherical, JointType::Revolute, JointType::Prismatic,
                                        JointType::Cylindrical, JointType::Planar, JointType::Fixed};
  const int n_joints = static_cast<int>(types.size()), n_instances = 3;
  std::vector<JointFrame<double>> frames;
  for (int k = 0; k < n_joints; ++k) frames.push_back(test::random_frame(g));
  std::vector<BodyKin<double>> kin_i, kin_j;
  for (int t = 0; t < n_instances * n_joints; ++t) {
    kin_i.push_back(make_body_kin(test::random_vec(g), test::random_quat(g), test::random_vec(g), test::random_vec(g)));
    kin_j.push_back(t % 4 == 0 ? ground_kin<double>()
                               : make_body_kin(test::random_vec(g), test::random_quat(g), test::random_vec(g), test::random_vec(g)));
  }
  JointRows<double> nan_rows;
  nan_rows.m = -1;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int r = 0; r < kMaxJointRows; ++r) {
    nan_rows.phi[r] = nan_rows.gamma[r] = nan_rows.phi_dot[r] = nan;
    for (int c = 0; c < 12; ++c) nan_rows.jac[r][c] = nan;
  }
  std::vector<JointRows<double>> out(n_instances * n_joints, nan_rows);
  const int block = 8, grid = (n_instances * n_joints + block - 1) / block;  // 24 threads for 18 items
  for (int tid = 0; tid < grid * block; ++tid)
    joint_rows_thread(tid, n_instances, n_joints, types.data(), frames.data(), kin_i.data(), kin_j.data(), out.data());
  for (int t = 0; t < n_instances * n_joints; ++t) {
    JointRows<double> ref;
    joint_eval(types[t % n_joints], frames[t % n_joints], kin_i[t], kin_j[t], ref);
    ASSERT_EQ(out[t].m, ref.m);
    for (int r = 0; r < ref.m; ++r) {
      EXPECT_EQ(out[t].phi[r], ref.phi[r]);
      EXPECT_EQ(out[t].gamma[r], ref.gamma[r]);
      EXPECT_EQ(out[t].phi_dot[r], ref.phi_dot[r]);
      for (int c = 0; c < 12; ++c) EXPECT_EQ(out[t].jac[r][c], ref.jac[r][c]);
    }
  }
  // Two instances of the same joint with different kinematics give different rows.
  EXPECT_NE(out[1].phi[0], out[1 + n_joints].phi[0]);
}

}  // namespace
}  // namespace simphant
