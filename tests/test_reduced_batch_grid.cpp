// The GPU joint-space backend's per-thread functions (kernels/reduced_batch.hpp,
// kernels/reduced_step.hpp) run on the CPU over their whole grid (5 instances in blocks of
// 4: 3 threads past the end), in the device's structure-of-arrays layout, with the model
// slots the backend packs (batch/robot_pack.hpp):
//  - link frames against central finite differences of the frame origins and rotations
//    along the state's own motion, fixed and floating base;
//  - link frames against the conversion from body records (sim/link_frames.hpp), the
//    route the other backends take;
//  - the read-back frame's kinetic energy against 1/2 qd^T M(q) qd with M from CRBA;
//  - 1000 steps over the grid in structure of arrays equal, bit for bit, to the same
//    per-thread step in the CPU backend's row-major layout, with one slot per instance.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "reduced_batch.hpp"
#include "simphant/batch/robot_pack.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/sim/link_frames.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {
namespace {

constexpr int kInstances = 5, kBlock = 4, kGrid = 2 * kBlock;  // threads 5, 6, 7 past the end
constexpr int kCap = 16;

/// A robot model of chain3.urdf; floating: the base frame B a free body of mass 2.5.
Model chain_model(bool floating, double gravity_z = -9.81) {
  auto r = std::make_shared<RobotJointSpace>();
  r->model = load_urdf(std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/chain3.urdf");
  r->model.gravity = Vec3d{0, 0, gravity_z};
  r->model.floating = floating;
  if (floating) {
    r->model.base.link = "base";
    r->model.base.mass = 2.5;
    r->model.base.com = Vec3d{0.02, -0.01, 0.05};
    r->model.base.inertia_com = Mat3d{{{0.04, 0.001, 0.0}, {0.001, 0.05, 0.002}, {0.0, 0.002, 0.06}}};
    r->base_q0 = {0.1, -0.2, 0.3, 1, 0, 0, 0};
    r->base_v0 = {0, 0, 0, 0, 0, 0};
  }
  const int n = r->n();
  r->q0.assign(static_cast<std::size_t>(n), 0.2);
  r->qd0.assign(static_cast<std::size_t>(n), 0.0);
  r->tau.assign(static_cast<std::size_t>(n), 0.0);
  r->solver = RobotSolver::Aba;
  Model m;
  m.name = "chain3";
  m.solver.dt = 1e-3;
  m.robot = r;
  return m;
}

/// Random states of kInstances instances, row-major (kInstances, ny), unit base quaternions.
std::vector<double> random_states(int n, int floating, unsigned seed) {
  const int ny = robot_state_size(n, floating);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  std::vector<double> y(static_cast<std::size_t>(kInstances) * ny);
  for (double& v : y) v = u(g);
  if (floating)
    for (int i = 0; i < kInstances; ++i) {
      double* q = y.data() + static_cast<std::size_t>(i) * ny + 3;
      const double s = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      for (int c = 0; c < 4; ++c) q[c] /= s;
    }
  return y;
}

/// The state moved along its own velocity by t: q + t qd, p_B + t v_B, quat_B (x) exp(t omega_B / 2).
std::vector<double> moved(const double* y, int n, int floating, double t) {
  const int ny = robot_state_size(n, floating), nq = robot_q_size(n, floating);
  std::vector<double> z(y, y + ny);
  const int q0 = floating ? 7 : 0, v0 = nq + (floating ? 6 : 0);
  for (int k = 0; k < n; ++k) z[static_cast<std::size_t>(q0 + k)] += t * y[v0 + k];
  if (floating) {
    for (int c = 0; c < 3; ++c) z[static_cast<std::size_t>(c)] += t * y[nq + c];
    const Quatd p{y[3], y[4], y[5], y[6]};
    const Quatd d = quat_from_rotvec(Vec3d{t * y[nq + 3], t * y[nq + 4], t * y[nq + 5]});
    const Quatd r = qmul(p, d);
    z[3] = r.w, z[4] = r.x, z[5] = r.y, z[6] = r.z;
  }
  return z;
}

/// The batch of kInstances instances over `slots`, state Y in structure of arrays.
struct GridBatch {
  batch::RobotSlots<double> slots;
  std::vector<double> Y, U;
  std::vector<std::int8_t> status, reason;
  std::vector<std::int64_t> status_step, offset;
  batch::ReducedBatchView<double> view(bool soa) {
    batch::ReducedBatchView<double> b{};
    b.n_instances = kInstances;
    slots.point(b);
    b.floating = slots.ny != 2 * slots.n;
    b.use_cga = 0;
    b.integrator = static_cast<int>(Integrator::Rk4);
    b.dt = 1e-3;
    b.Y = soa ? batch::structure_of_arrays(Y.data(), kInstances) : batch::row_major(Y.data(), slots.ny);
    b.U = soa ? batch::structure_of_arrays(static_cast<const double*>(U.data()), kInstances)
              : batch::row_major(static_cast<const double*>(U.data()), slots.n);
    b.status = status.data();
    b.status_step = status_step.data();
    b.reason = reason.data();
    b.offset = offset.data();
    return b;
  }
};

GridBatch grid_batch(const std::vector<Model>& models, const std::vector<double>& rows, bool soa) {
  GridBatch g;
  const Model& m0 = models.front();
  const int n = m0.robot->n(), fl = m0.robot->model.floating ? 1 : 0;
  g.slots.resize(n, fl, static_cast<int>(models.size()));
  for (std::size_t s = 0; s < models.size(); ++s) g.slots.write(static_cast<int>(s), models[s]);
  const int ny = g.slots.ny;
  g.Y.resize(rows.size());
  for (int i = 0; i < kInstances; ++i)
    for (int e = 0; e < ny; ++e)
      g.Y[soa ? static_cast<std::size_t>(e) * kInstances + i : static_cast<std::size_t>(i) * ny + e] =
          rows[static_cast<std::size_t>(i) * ny + e];
  g.U.assign(static_cast<std::size_t>(kInstances) * n, 0.0);
  g.status.assign(kInstances, 0);
  g.reason.assign(kInstances, 0);
  g.status_step.assign(kInstances, 0);
  g.offset.assign(kInstances, 0);
  return g;
}

/// All link frames of every instance (rows (kInstances, 13 F)) over the whole grid.
std::vector<double> link_frames_grid(const Model& m, const std::vector<double>& rows) {
  GridBatch g = grid_batch({m}, rows, true);
  const int F = batch::robot_frame_count(g.slots.n, m.robot->model.floating ? 1 : 0);
  std::vector<int> frames(static_cast<std::size_t>(F));
  for (int f = 0; f < F; ++f) frames[static_cast<std::size_t>(f)] = f;
  std::vector<double> out(static_cast<std::size_t>(13 * F) * kInstances, std::numeric_limits<double>::quiet_NaN());
  const batch::ReducedBatchView<double> b = g.view(true);
  batch::ReducedStepWorkspace<double, kCap> ws;
  for (int tid = 0; tid < kGrid; ++tid)
    batch::reduced_link_frames_thread(tid, b, frames.data(), F, batch::structure_of_arrays(out.data(), kInstances), ws);
  std::vector<double> res(out.size());
  for (int i = 0; i < kInstances; ++i)
    for (int e = 0; e < 13 * F; ++e)
      res[static_cast<std::size_t>(i) * 13 * F + e] = out[static_cast<std::size_t>(e) * kInstances + i];
  return res;
}

class ReducedBatchGrid : public ::testing::TestWithParam<bool> {};

// Velocity of each frame origin = d o / dt and angular velocity (frame axes) = R^T dR/dt,
// by central differences with h = 1e-5 along the state's own motion: truncation
// O(h^2 |d3o/dt3|) ~ 1e-10 and rounding ~ eps / h ~ 1e-11 for these O(1) states;
// tolerance 1e-8.
TEST_P(ReducedBatchGrid, LinkFramesEqualFiniteDifferencesOfThePoses) {
  const bool floating = GetParam();
  const Model m = chain_model(floating);
  const int n = m.robot->n(), fl = floating ? 1 : 0, ny = robot_state_size(n, fl);
  const int F = batch::robot_frame_count(n, fl);
  const std::vector<double> rows = random_states(n, fl, 11);
  const std::vector<double> fr = link_frames_grid(m, rows);
  const double h = 1e-5;
  for (int i = 0; i < kInstances; ++i) {
    const double* y = rows.data() + static_cast<std::size_t>(i) * ny;
    std::vector<double> yp(rows), ym(rows);
    const std::vector<double> a = moved(y, n, fl, h), b = moved(y, n, fl, -h);
    std::copy(a.begin(), a.end(), yp.begin() + static_cast<std::ptrdiff_t>(i) * ny);
    std::copy(b.begin(), b.end(), ym.begin() + static_cast<std::ptrdiff_t>(i) * ny);
    const std::vector<double> fp = link_frames_grid(m, yp), fm = link_frames_grid(m, ym);
    for (int f = 0; f < F; ++f) {
      SCOPED_TRACE("instance " + std::to_string(i) + " frame " + std::to_string(f));
      const double* r0 = fr.data() + static_cast<std::size_t>(i) * 13 * F + 13 * f;
      const double* rp = fp.data() + static_cast<std::size_t>(i) * 13 * F + 13 * f;
      const double* rm = fm.data() + static_cast<std::size_t>(i) * 13 * F + 13 * f;
      EXPECT_NEAR(std::sqrt(r0[3] * r0[3] + r0[4] * r0[4] + r0[5] * r0[5] + r0[6] * r0[6]), 1.0, 1e-12);
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(r0[7 + c], (rp[c] - rm[c]) / (2 * h), 1e-8) << "velocity " << c;
      const Mat3d R = rotation(Quatd{r0[3], r0[4], r0[5], r0[6]});
      const Mat3d Rp = rotation(Quatd{rp[3], rp[4], rp[5], rp[6]});
      const Mat3d Rm = rotation(Quatd{rm[3], rm[4], rm[5], rm[6]});
      // W = R^T dR/dt (skew): omega = (W32, W13, W21).
      Mat3d W{};
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) {
          double s = 0;
          for (int k = 0; k < 3; ++k) s += R.m[k][a] * (Rp.m[k][c] - Rm.m[k][c]) / (2 * h);
          W.m[a][c] = s;
        }
      EXPECT_NEAR(r0[10], W.m[2][1], 1e-8);
      EXPECT_NEAR(r0[11], W.m[0][2], 1e-8);
      EXPECT_NEAR(r0[12], W.m[1][0], 1e-8);
    }
  }
}

// The device route (link-frame kinematics at the origin) and the other backends' route
// (body records at the CoM converted by link_frames_from_states) agree to rounding.
TEST_P(ReducedBatchGrid, LinkFramesEqualTheConversionFromBodyRecords) {
  const bool floating = GetParam();
  const Model m = chain_model(floating);
  const int n = m.robot->n(), fl = floating ? 1 : 0, ny = robot_state_size(n, fl);
  const int F = batch::robot_frame_count(n, fl), B = robot_n_bodies(n, fl);
  EXPECT_EQ(F, link_frame_count(m));
  const std::vector<double> rows = random_states(n, fl, 12);
  const std::vector<double> fr = link_frames_grid(m, rows);
  GridBatch g = grid_batch({m}, rows, true);
  const batch::ReducedBatchView<double> b = g.view(true);
  batch::ReducedStepWorkspace<double, kCap> ws;
  const int size = batch::robot_frame_size(n, fl);
  std::vector<double> frame(static_cast<std::size_t>(size) * kInstances, std::numeric_limits<double>::quiet_NaN());
  for (int tid = 0; tid < kGrid; ++tid) batch::reduced_frame_thread(tid, b, frame.data(), ws);
  std::vector<int> frames(static_cast<std::size_t>(F));
  for (int f = 0; f < F; ++f) frames[static_cast<std::size_t>(f)] = f;
  for (int i = 0; i < kInstances; ++i) {
    std::vector<double> states(static_cast<std::size_t>(13 * B)), conv(static_cast<std::size_t>(13 * F));
    for (int e = 0; e < 13 * B; ++e) states[static_cast<std::size_t>(e)] = frame[static_cast<std::size_t>(e) * kInstances + i];
    link_frames_from_states(m, states.data(), frames.data(), F, conv.data());
    for (int e = 0; e < 13 * F; ++e)
      EXPECT_NEAR(conv[static_cast<std::size_t>(e)], fr[static_cast<std::size_t>(i) * 13 * F + e], 1e-13)
          << "instance " << i << " entry " << e;
    // The frame's joint state is the state's q and qd.
    const double* y = rows.data() + static_cast<std::size_t>(i) * ny;
    const int e0 = 13 * B + 2, q0 = fl ? 7 : 0, v0 = robot_q_size(n, fl) + (fl ? 6 : 0);
    for (int k = 0; k < n; ++k) {
      EXPECT_EQ(frame[static_cast<std::size_t>(e0 + k) * kInstances + i], y[q0 + k]);
      EXPECT_EQ(frame[static_cast<std::size_t>(e0 + n + k) * kInstances + i], y[v0 + k]);
      EXPECT_EQ(frame[static_cast<std::size_t>(e0 + 2 * n + k) * kInstances + i], 0.0);  // torque inputs 0
    }
  }
  EXPECT_THROW(link_frame_index(m, "nope"), std::invalid_argument);
  EXPECT_EQ(link_frame_index(m, "l2"), 1);
  if (floating) {
    EXPECT_EQ(link_frame_index(m, "base"), n);
  }
}

INSTANTIATE_TEST_SUITE_P(Base, ReducedBatchGrid, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Floating" : "Fixed"; });

// Kinetic energy of the read-back frame = 1/2 qd^T M(q) qd (CRBA, an independent
// algorithm), relative 1e-13 (a sum of O(10) products of O(1) numbers).
TEST(ReducedBatchGridFixed, FrameKineticEnergyEqualsTheMassMatrixForm) {
  const Model m = chain_model(false);
  const int n = m.robot->n(), ny = 2 * n;
  const std::vector<double> rows = random_states(n, 0, 13);
  GridBatch g = grid_batch({m}, rows, true);
  const batch::ReducedBatchView<double> b = g.view(true);
  batch::ReducedStepWorkspace<double, kCap> ws;
  const int size = batch::robot_frame_size(n, 0), e0 = 13 * n;
  std::vector<double> frame(static_cast<std::size_t>(size) * kInstances, std::numeric_limits<double>::quiet_NaN());
  for (int tid = 0; tid < kGrid; ++tid) batch::reduced_frame_thread(tid, b, frame.data(), ws);
  CrbaWorkspace<double> cw;
  for (int i = 0; i < kInstances; ++i) {
    const double* y = rows.data() + static_cast<std::size_t>(i) * ny;
    std::vector<double> M(static_cast<std::size_t>(n * n));
    crba(n, g.slots.links.data(), g.slots.gravity[0], y, y + n, M.data(), static_cast<double*>(nullptr), cw);
    double K = 0;
    for (int a = 0; a < n; ++a)
      for (int c = 0; c < n; ++c) K += 0.5 * y[n + a] * M[static_cast<std::size_t>(a * n + c)] * y[n + c];
    EXPECT_NEAR(frame[static_cast<std::size_t>(e0) * kInstances + i], K, 1e-13 * std::abs(K)) << "instance " << i;
  }
}

// 1000 RK4 steps of 5 instances with one model slot each (gravity and q0 differ): the
// grid in structure of arrays equals the same per-thread step in row-major layout bit for
// bit, the instances differ from each other, and the status stays ok.
TEST(ReducedBatchGridFixed, AdvanceInStructureOfArraysEqualsRowMajorWithSlotsPerInstance) {
  std::vector<Model> models;
  for (int i = 0; i < kInstances; ++i) models.push_back(chain_model(false, -9.81 + 0.5 * i));
  const int n = models[0].robot->n(), ny = 2 * n;
  const std::vector<double> rows = random_states(n, 0, 14);
  GridBatch soa = grid_batch(models, rows, true), rm = grid_batch(models, rows, false);
  for (GridBatch* g : {&soa, &rm})
    for (int i = 0; i < kInstances; ++i)
      for (int k = 0; k < n; ++k) g->U[static_cast<std::size_t>(g == &soa ? k * kInstances + i : i * n + k)] = 0.1 * (k - i);
  const batch::ReducedBatchView<double> bs = soa.view(true), br = rm.view(false);
  batch::ReducedStepWorkspace<double, kCap> ws;
  for (int chunk = 0; chunk < 10; ++chunk) {
    for (int tid = 0; tid < kGrid; ++tid) batch::reduced_advance_thread(tid, bs, 100LL * chunk, 100, ws);
    for (int i = 0; i < kInstances; ++i) batch::reduced_advance_thread(i, br, 100LL * chunk, 100, ws);
  }
  for (int i = 0; i < kInstances; ++i) {
    EXPECT_EQ(soa.status[static_cast<std::size_t>(i)], 0);
    for (int e = 0; e < ny; ++e) {
      const double a = soa.Y[static_cast<std::size_t>(e) * kInstances + i], c = rm.Y[static_cast<std::size_t>(i) * ny + e];
      EXPECT_TRUE(std::isfinite(a));
      EXPECT_EQ(a, c) << "instance " << i << " entry " << e;
    }
    if (i > 0) {
      EXPECT_NE(soa.Y[static_cast<std::size_t>(i)], soa.Y[0]);
    }
  }
}

// The packed initial state puts the base pose and twist around q0, qd0 (robot_dynamics.hpp's
// layout), and fp32 slots are the fp64 values rounded.
TEST(ReducedBatchGridFixed, RobotPackLayout) {
  Model m = chain_model(true);
  auto r = std::make_shared<RobotJointSpace>(*m.robot);
  r->base_q0 = {1, 2, 3, 0.5, 0.5, 0.5, 0.5};
  r->base_v0 = {4, 5, 6, 7, 8, 9};
  r->q0 = {0.1, 0.2, 0.3};
  r->qd0 = {-0.1, -0.2, -0.3};
  m.robot = r;
  batch::RobotSlots<float> s;
  s.resize(3, 1, 1);
  s.write(0, m);
  const std::vector<float> want = {1, 2, 3, 0.5f, 0.5f, 0.5f, 0.5f, 0.1f, 0.2f, 0.3f, 4, 5, 6, 7, 8, 9, -0.1f, -0.2f, -0.3f};
  ASSERT_EQ(s.y_init.size(), want.size());
  for (std::size_t e = 0; e < want.size(); ++e) EXPECT_EQ(s.y_init[e], want[e]) << e;
  EXPECT_EQ(s.base[0].mass, 2.5f);
  EXPECT_EQ(s.links[1].mass, static_cast<float>(m.robot->model.links[1].mass));
  EXPECT_THROW(batch::check_robot_model(m, 3, false, RobotSolver::Aba, "x"), std::invalid_argument);
  r->base_v0.pop_back();
  EXPECT_THROW(batch::check_robot_model(m, 3, true, RobotSolver::Aba, "x"), std::invalid_argument);
}

}  // namespace
}  // namespace simphant
