// Joint-frame loads and their bearing split (formulas/joint_loads.hpp; docs/solver.md,
// "Bearing loads"): a pendulum against the closed form, every joint type against the
// wrench -Phi_q,i^T lambda that the rows apply to body_i, the split's invariance to the
// choice of a_i, b_i, and the frames the recorder writes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/joint_loads.hpp"
#include "simphant/dynamics/load_indeterminacy.hpp"
#include "simphant/sim/joint_load_frames.hpp"
#include "example_models.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

const std::vector<JointType> kAllTypes = {JointType::Spherical, JointType::Revolute, JointType::Prismatic,
                                          JointType::Cylindrical, JointType::Planar, JointType::Fixed};

struct Pendulum {
  double m = 2.0, L = 0.8, h = 0.15, Izz = 0.05, theta = 0.7, omega = 2.3;
  Vec3d g{0.0, -9.81, -3.0};  // a component along the axis loads the bearing axially
};

// A bob hanging from a revolute about world z at the origin (body_i = ground, a_i = x,
// b_i = y), its CoM L from the axis and h below the anchor plane, at angle theta, rate omega.
Model pendulum_model(const Pendulum& P) {
  Model m;
  m.gravity = P.g;
  const double s = std::sin(P.theta), c = std::cos(P.theta);
  Body b = test::principal_body("bob", P.m, {0.04, 0.03, P.Izz}, {P.L * s, -P.L * c, -P.h});
  b.p0 = {std::cos(P.theta / 2), 0, 0, std::sin(P.theta / 2)};
  b.v0_W = {P.omega * P.L * c, P.omega * P.L * s, 0};
  b.omega0_B = {0, 0, P.omega};
  m.bodies.push_back(b);
  Joint j;
  j.name = "pivot";
  j.type = JointType::Revolute;
  j.body_i = kGround;
  j.body_j = 0;
  j.frame = test::frame_from_world(m, kGround, 0, {0, 0, 0}, {0, 0, 1}, {1, 0, 0}, {0, 1, 0});
  j.frame.a_j = {1, 0, 0};  // the bob's own x axis: the joint angle is theta
  j.frame.b_j = {0, 1, 0};
  m.joints.push_back(j);
  m.n_rows = 5;
  return m;
}

// The loads on the housing (ground) of a pendulum against Newton-Euler in closed form:
// alpha = m g_y L sin(theta) / (Izz + m L^2) about the axis (g_y = -9.81), CoM acceleration
// a = L alpha e_t - L omega^2 e_r; the joint's force on the bob F = m a - m g, its moment
// about the anchor T = Izz alpha z - s x F (s: CoM -> anchor). The housing carries -F and
// -T: axial force m g_z, radial |F_xy|, axial moment 0 (a revolute passes none), bending
// |(s x F)_xy|, which the anchor's offset h along the axis produces.
TEST(JointLoads, PendulumMatchesClosedForm) {
  const Pendulum P;
  const Model model = pendulum_model(P);
  std::vector<double> Y(model.ny()), Yd(model.ny());
  initial_state(model, Y.data());
  Data d(model);
  ASSERT_TRUE(evaluate(model, d, 0.0, Y.data(), nullptr, Yd.data()));
  double R[6], loads[6], bearing[4];
  joint_reactions(model, d, R);
  joint_loads_from_reaction(model.joints[0].frame, ground_kin<double>(), d.kin[0], R, 0.0, 0.0, loads);
  bearing_loads_from_joint_loads(loads, bearing);

  const double s = std::sin(P.theta), c = std::cos(P.theta);
  const double alpha = P.m * P.g.y * P.L * s / (P.Izz + P.m * P.L * P.L);
  const Vec3d e_r{s, -c, 0}, e_t{c, s, 0}, z{0, 0, 1};
  const Vec3d a = P.L * alpha * e_t - P.L * P.omega * P.omega * e_r;
  const Vec3d F = P.m * a - P.m * P.g;
  const Vec3d sv{-P.L * s, P.L * c, P.h};
  const Vec3d T = P.Izz * alpha * z - cross(sv, F);
  // Loads ~ 10 N and 1 N m from O(1) products: rounding plus the refined solve's
  // residual (eps^2 lambda) stay below 1e-10.
  const double tol = 1e-10;
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(loads[k], -F[k], tol) << k;
    EXPECT_NEAR(loads[3 + k], -T[k], tol) << k;
  }
  EXPECT_NEAR(bearing[0], P.m * P.g.z, tol);  // the housing is pulled along g's axial part
  EXPECT_NEAR(bearing[1], std::hypot(F.x, F.y), tol);
  EXPECT_NEAR(bearing[2], 0.0, tol);
  EXPECT_NEAR(bearing[3], std::hypot(T.x, T.y), tol);
  EXPECT_GT(bearing[3], 0.5);  // the offset h makes the bending moment finite
  // Without the offset the bending moment comes from the axial force alone: |s_xy| m |g_z|.
  Pendulum Q = P;
  Q.h = 0;
  const Model flat = pendulum_model(Q);
  initial_state(flat, Y.data());
  ASSERT_TRUE(evaluate(flat, d, 0.0, Y.data(), nullptr, Yd.data()));
  joint_reactions(flat, d, R);
  joint_loads_from_reaction(flat.joints[0].frame, ground_kin<double>(), d.kin[0], R, 0.0, 0.0, loads);
  bearing_loads_from_joint_loads(loads, bearing);
  EXPECT_NEAR(bearing[3], Q.L * Q.m * std::fabs(Q.g.z), tol);
}

/// Assembles m's initial state into d, evaluates it at t = 0 and writes the joint
/// reactions (6 per joint, formulas/joint_loads.hpp) into R.
void reactions_at_initial_state(const Model& m, Data& d, std::vector<double>& R) {
  std::vector<double> Y(m.ny()), Yd(m.ny());
  initial_state(m, Y.data());
  ASSERT_TRUE(assemble(m, d, Y.data()).ok);
  ASSERT_TRUE(evaluate(m, d, 0.0, Y.data(), nullptr, Yd.data()));
  R.assign(6 * m.n_joints(), 0.0);
  joint_reactions(m, d, R.data());
}

// For every joint type at a consistent state, with the anchors of prismatic, cylindrical
// and planar joints apart (P_j slid along the joint), the loads from the reaction on
// body_j equal the wrench that the joint's rows apply to body_i directly, -Phi_q,i^T lambda
// = [F (W), T_B about the CoM], moved to P_i and expressed on (a_i, b_i, v_i). This
// checks the moment transfer M_i = -T_Pj - (P_j - P_i) x F of formulas/joint_loads.hpp.
TEST(JointLoads, EqualTheRowsWrenchOnBodyIForEveryType) {
  std::mt19937_64 g(4242);
  for (int trial = 0; trial < 8; ++trial) {
    Model m = test::consistent_chain(g, kAllTypes);
    for (Joint& j : m.joints) {
      const double slide = 0.3 + 0.1 * trial;
      if (j.type == JointType::Prismatic || j.type == JointType::Cylindrical) j.frame.u_j = j.frame.u_j + slide * j.frame.v_j;
      if (j.type == JointType::Planar) j.frame.u_j = j.frame.u_j + slide * j.frame.a_j - 0.5 * slide * j.frame.b_j;
    }
    Data d(m);
    std::vector<double> R;
    ASSERT_NO_FATAL_FAILURE(reactions_at_initial_state(m, d, R));
    for (int j = 0; j < m.n_joints(); ++j) {
      const Joint& jt = m.joints[j];
      const BodyKin<double> Bi = jt.body_i >= 0 ? d.kin[jt.body_i] : ground_kin<double>();
      const BodyKin<double> Bj = d.kin[jt.body_j];
      double loads[6];
      joint_loads_from_reaction(jt.frame, Bi, Bj, &R[6 * j], 0.0, 0.0, loads);
      Vec3d F = zero3<double>(), T_B = zero3<double>();
      for (int r = 0; r < d.rows[j].m; ++r) {
        const double l = d.lambda[jt.row_offset + r];
        for (int c = 0; c < 3; ++c) {
          F[c] -= d.rows[j].jac[r][c] * l;
          T_B[c] -= d.rows[j].jac[r][3 + c] * l;
        }
      }
      const Vec3d s_i = mul(Bi.A, jt.frame.u_i);
      const Vec3d M = mul(Bi.A, T_B) - cross(s_i, F);
      const Vec3d a = mul(Bi.A, jt.frame.a_i), b = mul(Bi.A, jt.frame.b_i), v = mul(Bi.A, jt.frame.v_i);
      const double want[6] = {dot(F, a), dot(F, b), dot(F, v), dot(M, a), dot(M, b), dot(M, v)};
      double scale = 1.0;
      for (double w : want) scale = std::max(scale, std::fabs(w));
      // The two differ by lambda times the residual of Phi after assembly (~1e-12) and
      // rounding of loads ~ 100: 1e-9 relative.
      for (int c = 0; c < 6; ++c)
        EXPECT_NEAR(loads[c], want[c], 1e-9 * scale) << joint_type_name(jt.type) << " trial " << trial << " c " << c;
    }
  }
}

// Rotating a_i, b_i about v_i by any angle rotates (f_a, f_b) and (m_a, m_b) by it and
// leaves the bearing split unchanged.
TEST(JointLoads, BearingSplitDoesNotDependOnTheChoiceOfAB) {
  std::mt19937_64 g(99);
  Model m = test::consistent_chain(g, kAllTypes);
  Data d(m);
  std::vector<double> R;
  ASSERT_NO_FATAL_FAILURE(reactions_at_initial_state(m, d, R));
  for (int j = 0; j < m.n_joints(); ++j) {
    const Joint& jt = m.joints[j];
    const BodyKin<double> Bi = jt.body_i >= 0 ? d.kin[jt.body_i] : ground_kin<double>();
    double base[6], split[4];
    joint_loads_from_reaction(jt.frame, Bi, d.kin[jt.body_j], &R[6 * j], 0.0, 0.0, base);
    bearing_loads_from_joint_loads(base, split);
    for (double phi : {0.3, 1.9, -2.6}) {
      JointFrame<double> f = jt.frame;
      f.a_i = std::cos(phi) * jt.frame.a_i + std::sin(phi) * jt.frame.b_i;
      f.b_i = cross(f.v_i, f.a_i);
      double turned[6], split2[4];
      joint_loads_from_reaction(f, Bi, d.kin[jt.body_j], &R[6 * j], 0.0, 0.0, turned);
      bearing_loads_from_joint_loads(turned, split2);
      const double c = std::cos(phi), s = std::sin(phi);
      for (int k = 0; k < 2; ++k) {  // force, then moment
        const double x = base[3 * k], y = base[3 * k + 1];
        EXPECT_NEAR(turned[3 * k], c * x + s * y, 1e-11 * (1 + std::hypot(x, y)));
        EXPECT_NEAR(turned[3 * k + 1], -s * x + c * y, 1e-11 * (1 + std::hypot(x, y)));
        EXPECT_DOUBLE_EQ(turned[3 * k + 2], base[3 * k + 2]);
      }
      for (int k = 0; k < 4; ++k) EXPECT_NEAR(split2[k], split[k], 1e-11 * (1 + std::fabs(split[k]))) << k;
    }
  }
}

// The recorded frames (sim/joint_load_frames.hpp) from read_states / read_reactions
// layouts equal the function applied to the Data of each instance.
TEST(JointLoads, FramesFromRecordedStatesAndReactions) {
  const Pendulum P;
  const std::vector<Model> models{pendulum_model(P)};
  const Model& model = models[0];
  std::vector<double> Y(model.ny()), Yd(model.ny());
  initial_state(model, Y.data());
  Data d(model);
  ASSERT_TRUE(evaluate(model, d, 0.0, Y.data(), nullptr, Yd.data()));
  double R[6], want[6], rec[13];
  joint_reactions(model, d, R);
  joint_loads_from_reaction(model.joints[0].frame, ground_kin<double>(), d.kin[0], R, 0.0, 0.0, want);
  const Body& b = model.bodies[0];
  const double state[13] = {b.r0_W.x, b.r0_W.y, b.r0_W.z, b.p0.w, b.p0.x, b.p0.y, b.p0.z,
                            b.v0_W.x, b.v0_W.y, b.v0_W.z, b.omega0_B.x, b.omega0_B.y, b.omega0_B.z};
  std::copy(state, state + 13, rec);
  double loads[6], bearing[4], want_b[4];
  joint_load_frames(models, 1, rec, R, nullptr, loads, bearing);
  bearing_loads_from_joint_loads(want, want_b);
  for (int c = 0; c < 6; ++c) EXPECT_DOUBLE_EQ(loads[c], want[c]);
  for (int c = 0; c < 4; ++c) EXPECT_DOUBLE_EQ(bearing[c], want_b[c]);
}

// Joint coordinates: a revolute's angle and a prismatic's slide at known states.
TEST(JointLoads, JointCoordinateOfRevoluteAndPrismatic) {
  const Pendulum P;
  const Model model = pendulum_model(P);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  Data d(model);
  set_kinematics(model, d, Y.data());
  EXPECT_NEAR(joint_coordinate(JointType::Revolute, model.joints[0].frame, ground_kin<double>(), d.kin[0]), P.theta, 1e-14);
  EXPECT_TRUE(std::isnan(joint_coordinate(JointType::Spherical, model.joints[0].frame, ground_kin<double>(), d.kin[0])));
  JointFrame<double> f = model.joints[0].frame;
  f.u_j = f.u_j + 0.25 * f.v_j;  // body_j's anchor 0.25 m along the axis
  EXPECT_NEAR(joint_coordinate(JointType::Prismatic, f, ground_kin<double>(), d.kin[0]), 0.25, 1e-14);
}

}  // namespace
}  // namespace simphant

namespace simphant {
namespace {

// The four-bar's four parallel revolutes close a loop with 3 redundant rows: its
// self-stresses are an axial force around the loop and two bending moments, so f_v,
// m_a and m_b are statically indeterminate at every joint while the in-plane forces
// (radial) and the axial moment are determinate. A double pendulum (no loop) has none.
TEST(LoadIndeterminacy, RedundantFourBarNamesAxialForceAndBending) {
  const std::vector<Model> models = test::example_models("four_bar", 1);
  Model m = models[0];
  m.removed_rows.clear();  // the analysis is of the full Phi_q (as the job runs it)
  std::vector<double> Y(m.ny());
  initial_state(m, Y.data());
  Data d(m);
  ASSERT_TRUE(assemble(m, d, Y.data()).ok);
  const LoadIndeterminacy a = analyse_load_indeterminacy(m, d, Y.data());
  EXPECT_EQ(a.self_stresses, 3);
  for (int j = 0; j < m.n_joints(); ++j) {
    EXPECT_FALSE(a.loads[j][0] || a.loads[j][1] || a.loads[j][5]) << m.joints[j].name;
    EXPECT_TRUE(a.loads[j][2] && a.loads[j][3] && a.loads[j][4]) << m.joints[j].name;
    EXPECT_TRUE(a.bearing[j][0] && !a.bearing[j][1] && !a.bearing[j][2] && a.bearing[j][3]) << m.joints[j].name;
  }
  const std::vector<std::string> text = indeterminate_components(m, a, true);
  ASSERT_EQ(text.size(), static_cast<size_t>(m.n_joints()));
  EXPECT_EQ(text[0], m.joints[0].name + ": axial_force bending_moment");

  const std::vector<Model> chain = test::example_models("double_pendulum", 1);
  std::vector<double> Y2(chain[0].ny());
  initial_state(chain[0], Y2.data());
  Data d2(chain[0]);
  ASSERT_TRUE(assemble(chain[0], d2, Y2.data()).ok);
  const LoadIndeterminacy b = analyse_load_indeterminacy(chain[0], d2, Y2.data());
  EXPECT_EQ(b.self_stresses, 0);
  EXPECT_TRUE(indeterminate_components(chain[0], b, false).empty());
}

}  // namespace
}  // namespace simphant
