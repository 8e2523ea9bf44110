// Contact on robots in joint coordinates (solver aba / cga; docs/contact.md, "Contact in
// joint coordinates"; reduced/robot_contact.hpp): the pairs' wrenches enter the ABA as
// generalised forces J^T (M, F), the floating base's share as its external wrench.
//  - virtual power: at a state where the feet press into the ground, the generalised
//    forces times the rates equal the power of the contact wrenches on the bodies
//    (sum F . v_c + M_c . omega), for random rates, to rounding;
//  - the same robot in maximal coordinates (solver dae, an independent formulation: body
//    states, joint constraints, Baumgarte): Solo-12 dropped tilted onto its feet, and a
//    fixed-base leg whose foot scrapes the ground, agree in every body's position at the
//    end within 10 times the DAE's largest constraint drift max |Phi| (velocities within
//    10 max |Phi| / dt): far below RK4's own error, which both formulations share; aba
//    and cga agree to rounding;
//  - a floating base landing on a box of its own (no robot data needed), aba, cga and
//    dae alike, as above;
//  - the load-time step check makes the same contact modes as for the DAE;
//  - the GPU's per-thread step over its grid, in structure of arrays with the packed
//    model slots (batch/robot_pack.hpp), equals the CPU backend bit for bit;
//  - a robot file of one link and no joint (an object) is a free body: it lands alike in
//    aba, cga and dae (within RK4's own error: the coordinates differ), flies on its
//    parabola, steps alike on the GPU's grid, and a fixed base for it is refused;
//  - the reductions over time of a robot (energy and contacts, sampled in the step loop):
//    equal to the frames of every step (the energy bit for bit, the pair's numbers from
//    the recorded body states to rounding), the SIMD lanes equal to the scalar form to
//    rounding, the GPU's grid accumulators bit for bit, a resumed batch bit for bit; the
//    other quantities refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reduced_step.hpp"
#include "robot_data.hpp"
#include "robot_joint_test_data.hpp"
#include "solo12_scene.hpp"
#include "simphant/batch/robot_pack.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/job/stability_check.hpp"
#include "simphant/reduced/robot_contact.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/backend_error.hpp"
#include "simphant/sim/contact_frames.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "simphant/sim/reduction_names.hpp"

namespace simphant {
namespace {

using json = nlohmann::json;
using robot_test::TempDir;

/// Solo-12 on the ground (tests/solo12_scene.hpp), the base at base_z tilted 0.1 rad
/// about x, slip speed 5 cm/s, 0.2 s.
json solo_doc(const std::string& solver, double base_z, double dt) {
  json d = test::solo12_doc(solver, base_z, dt, 0.05);
  d["robot"]["base"]["orientation"] = {std::cos(0.05), std::sin(0.05), 0, 0};
  d["solver"]["t_end"] = 0.2;
  return d;
}

/// A leg on a fixed torso 0.36 m above the ground, started 1.2 rad from hanging: its foot
/// sphere (3 cm, lowest point 0.373 m below the torso when hanging) sweeps 1.3 cm into
/// the ground at the bottom of the swing, with friction.
const char* kLeg = R"(<robot name="leg">
  <link name="torso"><inertial><origin xyz="0.01 0 0.02"/><mass value="2"/>
    <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/></inertial></link>
  <joint name="hip" type="revolute"><parent link="torso"/><child link="leg"/>
    <origin xyz="0 0 -0.05"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="10" velocity="10"/></joint>
  <link name="leg"><inertial><origin xyz="0 0 -0.15"/><mass value="0.5"/>
    <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.0005"/></inertial></link>
  <joint name="knee" type="revolute"><parent link="leg"/><child link="shin"/>
    <origin xyz="0 0 -0.15"/><axis xyz="1 0 0"/><limit lower="-2" upper="2" effort="10" velocity="10"/></joint>
  <link name="shin"><inertial><origin xyz="0 0 -0.1"/><mass value="0.3"/>
    <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.0003"/></inertial></link>
  <joint name="ankle" type="fixed"><parent link="shin"/><child link="foot"/><origin xyz="0.02 0 -0.15" rpy="0.3 0 0"/></joint>
  <link name="foot"><inertial><mass value="0.1"/>
    <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial></link>
</robot>)";

json leg_doc(const std::string& urdf, const std::string& solver) {
  return {{"name", "leg"},
          {"robot",
           {{"urdf", urdf},
            {"q0", {1.2, 0.3}},
            {"collision", {{"foot", {{"type", "sphere"}, {"radius", 0.03}}}}}}},
          {"contact",
           {{"ground", {{"point", {0, 0, -0.36}}}},
            {"materials",
             {{"default",
               {{"stiffness", 1e5}, {"exponent", 1.5}, {"restitution", 0.5}, {"friction", 0.4}, {"slip_speed", 0.05}}}}}}},
          {"solver", {{"type", solver}, {"dt", 1e-4}, {"t_end", 0.4}}}};
}

/// Every body's record (13 per body, Backend::read_states) after `steps` steps of the
/// joint-space CPU backend (one instance, scalar).
std::vector<double> reduced_run(const Model& m, int steps) {
  ReducedBackend b(std::make_shared<const std::vector<Model>>(1, m), 1, 1, false);
  b.advance(steps);
  std::vector<double> rec(static_cast<std::size_t>(13 * m.n_bodies()));
  b.read_states(rec.data());
  std::int8_t status = -1, reason = 0;
  double t = 0;
  b.read_status(&status, &t, &reason);
  EXPECT_EQ(status, 0) << "reason " << int(reason) << " at t = " << t;
  return rec;
}

/// The body records of the DAE (CPU reference RK4) after `steps` steps, and its largest
/// constraint violation max |Phi| over the run (at the steps' starts).
std::vector<double> dae_run(const Model& m, int steps, double* drift) {
  Data d(m);
  std::vector<double> Y(static_cast<std::size_t>(m.ny()));
  initial_state(m, Y.data());
  assemble(m, d, Y.data());
  double t = 0;
  *drift = 0;
  for (int k = 0; k < steps; ++k) {
    EXPECT_TRUE(rk4_step(m, d, t, Y.data(), nullptr, m.solver.dt)) << "step " << k;
    t += m.solver.dt;
    *drift = std::max(*drift, d.violation_start);  // max |Phi| at the step's start
  }
  const int N = m.n_bodies();
  std::vector<double> rec(static_cast<std::size_t>(13 * N));
  for (int k = 0; k < N; ++k) {
    const Vec3d r = state_r(Y.data(), k), v = state_v(Y.data(), N, k), w = state_omega(Y.data(), N, k);
    const Quatd p = state_p(Y.data(), k);
    const double row[13] = {r.x, r.y, r.z, p.w, p.x, p.y, p.z, v.x, v.y, v.z, w.x, w.y, w.z};
    std::copy(row, row + 13, rec.begin() + 13 * k);
  }
  return rec;
}

/// max over bodies of |r_a - r_b| (CoM positions) and of |v_a - v_b| (CoM velocities).
void compare_records(const std::vector<double>& a, const std::vector<double>& b, double* dr, double* dv) {
  *dr = *dv = 0;
  for (std::size_t k = 0; k + 13 <= a.size(); k += 13)
    for (int c = 0; c < 3; ++c) {
      *dr = std::max(*dr, std::abs(a[k + c] - b[k + c]));
      *dv = std::max(*dv, std::abs(a[k + 7 + c] - b[k + 7 + c]));
    }
}

/// The largest CoM height change of any body between two records: how far the run moved.
double moved_by(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t k = 0; k + 13 <= a.size(); k += 13)
    for (int c = 0; c < 3; ++c) m = std::max(m, std::abs(a[k + c] - b[k + c]));
  return m;
}

/// Runs the same robot scene `steps` steps with aba, cga (the CPU joint-space backend) and
/// dae (the CPU reference) and checks that every body's position and velocity at the end
/// agree: aba with cga to rounding (1e-12 m, 1e-11 m/s), aba with dae within 10 times the
/// DAE's largest drift max |Phi| (10 max |Phi| / dt for the velocities). Returns how far
/// the run moved a body (moved_by from the initial records).
double compare_formulations(const char* label, const Model& aba, const Model& cga, const Model& dae, int steps) {
  std::vector<double> start(static_cast<std::size_t>(13 * aba.n_bodies()));
  {
    ReducedBackend b(std::make_shared<const std::vector<Model>>(1, aba), 1, 1, false);
    b.read_states(start.data());
  }
  const std::vector<double> ra = reduced_run(aba, steps), rc = reduced_run(cga, steps);
  double drift = 0;
  const std::vector<double> rd = dae_run(dae, steps, &drift);
  double dr = 0, dv = 0;
  compare_records(ra, rc, &dr, &dv);
  std::printf("%s: aba vs cga |dr| %.3e m, |dv| %.3e m/s\n", label, dr, dv);
  EXPECT_LT(dr, 1e-12) << label << ": aba against cga";
  EXPECT_LT(dv, 1e-11) << label << ": aba against cga";
  compare_records(ra, rd, &dr, &dv);
  const double moved = moved_by(start, ra);
  std::printf("%s: moved %.3e m; aba vs dae |dr| %.3e m, |dv| %.3e m/s; dae drift %.3e m\n", label, moved, dr, dv,
              drift);
  EXPECT_LT(dr, 10 * drift) << label;
  EXPECT_LT(dv, 10 * drift / aba.solver.dt) << label;
  return moved;
}

/// Solo-12's base height with its lowest foot sphere 1 cm above the ground.
double solo_drop_height(double clearance) {
  const Scene probe = parse_scene(solo_doc("aba", 0.5, 1e-4).dump());
  std::vector<double> Y(static_cast<std::size_t>(probe.model.ny()));
  initial_state(probe.model, Y.data());
  double lowest = 1e9;
  for (const ForceElement& f : probe.model.forces)
    if (f.type == ForceType::Contact)
      lowest = std::min(lowest, shape_pose_W(f.shape_j, state_r(Y.data(), f.body_j), state_p(Y.data(), f.body_j)).pos_W.z -
                                    f.shape_j.size[0]);
  return 0.5 - lowest + clearance;
}

TEST(RobotContactJointSpace, GeneralisedForcesDoTheContactsVirtualPower) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  // The lowest foot 4 cm into the ground (the tilted base puts the others 1 to 4 cm in),
  // random joint rates and base twist.
  const Model m = parse_scene(solo_doc("aba", solo_drop_height(-0.04), 1e-4).dump()).model;
  batch::RobotSlots<double> slots;
  const std::vector<RobotContactPair<double>> pairs = batch::robot_contact_pairs<double>(m);
  ASSERT_EQ(pairs.size(), 4u);
  slots.resize(m.robot->n(), 1, 1, 4);
  slots.write(0, m);
  RobotView<double> r{m.robot->n(), 1, 0, slots.links.data(), slots.cga_links.data(), slots.joints.data(),
                      slots.base[0], slots.gravity[0], 4, slots.contacts.data()};
  const int n = r.n, N = robot_state_size(n, 1);
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> y(slots.y_init.begin(), slots.y_init.end());
    for (int e = robot_q_size(n, 1); e < N; ++e) y[static_cast<std::size_t>(e)] = 0.3 * u(g);
    std::vector<double> Q(static_cast<std::size_t>(n), 0.0);
    SpatialForce<double> base{};
    RobotLinkKinematics<double, kMaxReducedLinks> kin;
    robot_contact_forces(r, y.data(), Q.data(), base, kin);
    // The power of the wrenches on the bodies, from the pair function itself.
    double P = 0, scale = 0;
    int touching = 0;
    for (const RobotContactPair<double>& c : pairs) {
      const BodyKin<double> ka = robot_contact_detail::owner_kin(r, y.data(), kin, c.owner_a),
                            kb = robot_contact_detail::owner_kin(r, y.data(), kin, c.owner_b);
      const ContactPairWrench<double> w = contact_pair_wrench(c.shape_a, ka, c.shape_b, kb, c.params, nullptr, true);
      touching += w.contacts.count;
      for (const auto& [k, bw] : {std::make_pair(kb, w.b), std::make_pair(ka, w.a)}) {
        const double p = dot(bw.force_W, k.v) + dot(bw.torque_W, k.omega_W);
        P += p;
        scale += std::abs(p);
      }
    }
    EXPECT_EQ(touching, 4);
    ASSERT_GT(scale, 1e-3);
    // The generalised side: Q . qd + base wrench . (omega_B, R_B^T v_B).
    const Mat3d R_B = rotation(normalized(Quatd{y[3], y[4], y[5], y[6]}));
    const double* v = y.data() + robot_q_size(n, 1);
    const Vec3d v_B{v[0], v[1], v[2]}, omega_B{v[3], v[4], v[5]};
    double Pq = dot(base.ang, omega_B) + dot(base.lin, mul_t(R_B, v_B));
    for (int k = 0; k < n; ++k) Pq += Q[static_cast<std::size_t>(k)] * v[6 + k];
    EXPECT_NEAR(Pq, P, 1e-12 * scale) << "trial " << trial;
  }
}

TEST(RobotContactJointSpace, Solo12LandsAsInMaximalCoordinates) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  // Dropped from 1 cm, tilted 0.1 rad about x: the feet land one after another, slide and settle.
  const double z0 = solo_drop_height(0.01), dt = 1e-4;
  const int steps = 2000;  // 0.2 s
  const json aba_doc = solo_doc("aba", z0, dt);
  const Model aba = parse_scene(aba_doc.dump()).model;
  json cga_doc = aba_doc;
  cga_doc["solver"]["type"] = "cga";
  const Model cga = parse_scene(cga_doc.dump()).model;
  const json dae_doc = solo_doc("dae", z0, dt);
  const Model dae = parse_scene(dae_doc.dump()).model;
  // The same contact modes at load: the check reads the maximal model in both cases.
  const StabilityCheck ca = check_step_stability({aba}, aba_doc), cd = check_step_stability({dae}, dae_doc);
  EXPECT_EQ(ca.refused_field, "") << ca.refused_reason;
  EXPECT_EQ(ca.warnings, cd.warnings);
  // Measured: aba against cga 1.7e-16 m (rounding); against dae 3.9e-9 m and 4.6e-8 m/s
  // with a drift of 1.8e-8 m (RK4's own error, aba at dt against dt / 2, is 6.5e-6 m:
  // both formulations make the same one).
  const double moved = compare_formulations("solo12 landing", aba, cga, dae, steps);
  EXPECT_GT(moved, 0.005) << "the robot fell and settled";
}

TEST(RobotContactJointSpace, FixedBaseLegScrapesTheGroundAsInMaximalCoordinates) {
  TempDir t;
  const std::string file = (t.dir / "leg.urdf").string();
  std::ofstream(file) << kLeg;
  const int steps = 4000;  // 0.4 s: down through the ground and up the other side
  const Model aba = parse_scene(leg_doc(file, "aba").dump()).model;
  const Model cga = parse_scene(leg_doc(file, "cga").dump()).model;
  const Model dae = parse_scene(leg_doc(file, "dae").dump()).model;
  // Measured: aba against cga 9e-19 m; against dae 2.0e-12 m and 1.2e-11 m/s with a drift
  // of 1.8e-12 m (RK4's own error: 2.6e-7 m at dt against dt / 2).
  compare_formulations("leg scraping", aba, cga, dae, steps);
  // Without contact the leg swings to the other side unhindered: contact changed the run.
  Model free_leg = aba;
  free_leg.forces.erase(std::remove_if(free_leg.forces.begin(), free_leg.forces.end(),
                                       [](const ForceElement& f) { return f.type == ForceType::Contact; }),
                        free_leg.forces.end());
  double dr = 0, dv = 0;
  compare_records(reduced_run(aba, steps), reduced_run(free_leg, steps), &dr, &dv);
  EXPECT_GT(dr, 0.01) << "the foot did not touch the ground";
}

TEST(RobotContactJointSpace, FloatingLegLandsAsInMaximalCoordinates) {
  // The leg with its torso free (no robot data needed), swung up beside it, dropped 7 cm
  // tilted onto the torso's box: the floating base takes the contact wrench itself.
  TempDir t;
  const std::string file = (t.dir / "floating_leg.urdf").string();
  std::ofstream(file) << kLeg;
  const auto doc = [&file](const std::string& solver) {
    json d = leg_doc(file, solver);
    d["robot"]["floating_base"] = true;
    d["robot"]["q0"] = {2.0, 0.3};  // the leg swung up beside the torso
    d["robot"]["base"] = {{"position", {0, 0, -0.25}}, {"orientation", {std::cos(0.15), std::sin(0.15), 0, 0}}};
    d["robot"]["collision"]["torso"] = {{"type", "box"}, {"size", {0.2, 0.1, 0.05}}};
    d["solver"]["t_end"] = 0.3;
    return d;
  };
  const int steps = 3000;
  const Model aba = parse_scene(doc("aba").dump()).model, cga = parse_scene(doc("cga").dump()).model;
  const Model dae = parse_scene(doc("dae").dump()).model;
  // Measured: aba against cga 7e-18 m; against dae 1.6e-11 m with a drift of 2.4e-11 m.
  const double moved = compare_formulations("floating leg", aba, cga, dae, steps);
  EXPECT_GT(moved, 0.02) << "it fell onto the ground";
  EXPECT_LT(moved, 0.15) << "and the box stopped it (free, it would fall 0.44 m)";
}

/// The GPU's per-thread step (batch::reduced_advance_thread) over a grid of one thread
/// more than the instances, in structure of arrays with one model slot per instance,
/// against the CPU backend after `steps` steps: the states, the accumulators of the
/// reductions energy and contacts and their read bit for bit. Returns the CPU's states
/// (I x ny).
std::vector<double> expect_grid_step_equals_cpu_backend(const std::vector<Model>& models, int steps) {
  const int I = static_cast<int>(models.size()), kGridThreads = I + 1;
  ReducedBackend cpu(std::make_shared<const std::vector<Model>>(models), I, 1, false);
  cpu.set_reductions({ReductionQuantity::Energy, ReductionQuantity::Contacts});
  const ReductionLayout L = cpu.reduction_layout();
  cpu.advance(steps);
  batch::RobotSlots<double> slots;
  slots.resize(models[0].robot->n(), models[0].robot->model.floating ? 1 : 0, I, models[0].contact_pair_count());
  for (int s = 0; s < I; ++s) slots.write(s, models[static_cast<std::size_t>(s)]);
  const int ny = slots.ny;
  std::vector<double> Y(static_cast<std::size_t>(I) * ny), U(static_cast<std::size_t>(I) * slots.n);
  for (int i = 0; i < I; ++i)
    for (int e = 0; e < ny; ++e) Y[static_cast<std::size_t>(e) * I + i] = slots.y_init[static_cast<std::size_t>(i) * ny + e];
  for (int i = 0; i < I; ++i)
    for (int k = 0; k < slots.n; ++k)
      U[static_cast<std::size_t>(k) * I + i] = models[static_cast<std::size_t>(i)].robot->tau[static_cast<std::size_t>(k)];
  std::vector<std::int8_t> status(I, 0), reason(I, 0);
  std::vector<std::int64_t> status_step(I, 0), offset(I, 0);
  batch::ReducedBatchView<double> b{};
  b.n_instances = I;
  slots.point(b);
  b.floating = models[0].robot->model.floating ? 1 : 0;
  b.integrator = static_cast<int>(Integrator::Rk4);
  b.dt = models[0].solver.dt;
  b.Y = batch::structure_of_arrays(Y.data(), I);
  b.U = batch::structure_of_arrays(static_cast<const double*>(U.data()), I);
  b.status = status.data();
  b.status_step = status_step.data();
  b.reason = reason.data();
  b.offset = offset.data();
  // The reductions' accumulators in structure of arrays too (L.size(), I).
  std::vector<double> acc(static_cast<std::size_t>(L.size()) * I);
  b.red = L;
  b.red_acc = acc.data();
  b.red_stride_i = 1;
  b.red_stride_e = I;
  for (int i = 0; i < I; ++i) reduction_clear(L, batch::reduced_reduction_acc(b, i));
  batch::ReducedStepWorkspace<double, 16> ws;
  for (int tid = 0; tid < kGridThreads; ++tid) batch::reduced_advance_thread(tid, b, 0, steps, ws);
  std::vector<double> y(static_cast<std::size_t>(I) * ny), cpu_acc(acc.size());
  cpu.get_state(nullptr, I, y.data(), nullptr, nullptr, nullptr, nullptr);
  cpu.get_reduction_state(cpu_acc.data());
  for (int i = 0; i < I; ++i)
    for (int e = 0; e < L.size(); ++e)
      EXPECT_EQ(acc[static_cast<std::size_t>(e) * I + i], cpu_acc[static_cast<std::size_t>(i) * L.size() + e])
          << "accumulator of instance " << i << " element " << e;
  EXPECT_EQ(cpu_acc[0], steps) << "a sample per step";
  // A read (the GPU's reduced_reduce_read_thread over its grid, then the statistics on the
  // host) against the CPU backend's read: bit for bit.
  std::vector<double> copy(acc.size()), stats(static_cast<std::size_t>(I) * L.channels * kReductionStats),
      cpu_stats(stats.size());
  for (int tid = 0; tid < kGridThreads; ++tid) batch::reduced_reduce_read_thread(tid, b, steps, copy.data(), ws);
  for (int i = 0; i < I; ++i)
    for (int c = 0; c < L.channels; ++c)
      reduction_stats(L, {copy.data() + i, static_cast<std::size_t>(I)}, c, b.dt,
                      stats.data() + (static_cast<std::size_t>(i) * L.channels + c) * kReductionStats);
  cpu.read_reductions(cpu_stats.data());
  EXPECT_EQ(stats, cpu_stats);
  for (int i = 0; i < I; ++i) {
    EXPECT_EQ(status[static_cast<std::size_t>(i)], 0);
    for (int e = 0; e < ny; ++e)
      EXPECT_EQ(Y[static_cast<std::size_t>(e) * I + i], y[static_cast<std::size_t>(i) * ny + e]) << i << " " << e;
  }
  return y;
}

TEST(RobotContactJointSpace, GridStepInStructureOfArraysEqualsTheCpuBackend) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  // Three instances, one slot each (friction swept), on a grid of four: one thread past the end.
  std::vector<Model> models;
  for (int i = 0; i < 3; ++i) {
    json d = solo_doc("aba", solo_drop_height(0.002 * i), 1e-4);
    d["contact"]["materials"]["default"]["friction"] = 0.5 + 0.2 * i;
    models.push_back(parse_scene(d.dump()).model);
  }
  const std::vector<double> y = expect_grid_step_equals_cpu_backend(models, 300);
  // The swept friction reached the instances: their states differ.
  EXPECT_NE(y[0], y[y.size() / 3]);
}

/// A robot file of one link and no joint (tests/data/urdf/box_object.urdf: a 0.5 kg box,
/// its centre of mass 1 cm off the link origin), loaded as the free body it is, with its
/// URDF box as its collision shape, 10 cm above the ground, tilted 0.2 rad and spinning.
json object_doc(const std::string& solver) {
  return {{"name", "box object"},
          {"robot",
           {{"urdf", std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/box_object.urdf"},
            {"urdf_collision", true},
            {"base",
             {{"position", {0, 0, 0.1}}, {"orientation", {std::cos(0.1), std::sin(0.1), 0, 0}},
              {"velocity", {0.3, 0, 0}}, {"angular_velocity", {0, 1, 0}}}}}},
          {"contact",
           {{"ground", json::object()},
            {"materials",
             {{"default",
               {{"stiffness", 1e5}, {"exponent", 1.5}, {"restitution", 0.5}, {"friction", 0.5}, {"slip_speed", 0.05}}}}}}},
          {"solver", {{"type", solver}, {"dt", 1e-4}, {"t_end", 0.3}}}};
}

TEST(RobotContactJointSpace, ObjectFileIsAFreeBodyThatLandsAsInMaximalCoordinates) {
  const Model aba = parse_scene(object_doc("aba").dump()).model, cga = parse_scene(object_doc("cga").dump()).model;
  const Model dae = parse_scene(object_doc("dae").dump()).model;
  ASSERT_EQ(aba.robot->n(), 0);
  ASSERT_TRUE(aba.robot->model.floating) << "no moving joint: a free body without robot.floating_base";
  ASSERT_EQ(aba.n_bodies(), 1);
  EXPECT_DOUBLE_EQ(aba.bodies[0].mass, 0.5);
  ASSERT_EQ(aba.contact_pair_count(), 1) << "the URDF's <collision> box";
  const int steps = 3000;  // 0.3 s: it lands on an edge, tips and slides
  std::vector<double> start(13);
  {
    ReducedBackend b(std::make_shared<const std::vector<Model>>(1, aba), 1, 1, false);
    b.read_states(start.data());
  }
  const std::vector<double> ra = reduced_run(aba, steps), rc = reduced_run(cga, steps);
  double drift = 0, dr = 0, dv = 0;
  const std::vector<double> rd = dae_run(dae, steps, &drift);
  EXPECT_EQ(drift, 0) << "one body: no constraint";
  compare_records(ra, rc, &dr, &dv);
  EXPECT_LT(dr, 1e-12) << "aba against cga";
  EXPECT_LT(dv, 1e-11) << "aba against cga";
  // Joint space (the base's pose and body-frame twist) and maximal coordinates (the body's
  // CoM state) are different coordinates of the same motion: RK4 errs differently in
  // each, so they agree within RK4's own error, estimated by the run at dt / 2.
  Model aba_half = aba;
  aba_half.solver.dt = aba.solver.dt / 2;
  double er = 0, ev = 0;
  compare_records(ra, reduced_run(aba_half, 2 * steps), &er, &ev);
  compare_records(ra, rd, &dr, &dv);
  std::printf("box object: moved %.3e m; aba vs dae |dr| %.3e m, |dv| %.3e m/s; RK4 error %.3e m, %.3e m/s\n",
              moved_by(start, ra), dr, dv, er, ev);
  EXPECT_LT(dr, 2 * er);
  EXPECT_LT(dv, 2 * ev);
  EXPECT_GT(moved_by(start, ra), 0.05) << "it slid along x";
  EXPECT_GT(ra[2], 0.02) << "and rests on the ground, not through it";
  EXPECT_LT(ra[2], 0.06);
}

TEST(RobotContactJointSpace, ObjectFileInFreeFlightFollowsItsParabola) {
  json doc = object_doc("aba");
  doc.erase("contact");
  doc["robot"]["urdf_collision"] = false;
  const Model m = parse_scene(doc.dump()).model;
  const int steps = 3000;
  std::vector<double> start(13);
  {
    ReducedBackend b(std::make_shared<const std::vector<Model>>(1, m), 1, 1, false);
    b.read_states(start.data());
  }
  const std::vector<double> r = reduced_run(m, steps);
  const double t = steps * m.solver.dt, g = -9.81;
  // The centre of mass moves on r0 + v0 t + g t^2 / 2, which RK4 integrates exactly.
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(r[c], start[c] + start[7 + c] * t + (c == 2 ? 0.5 * g * t * t : 0.0), 1e-12) << c;
  EXPECT_NEAR(r[9], start[9] + g * t, 1e-12);
}

TEST(RobotContactJointSpace, ObjectGridStepInStructureOfArraysEqualsTheCpuBackend) {
  std::vector<Model> models;
  for (int i = 0; i < 3; ++i) {
    json d = object_doc("aba");
    d["robot"]["base"]["position"] = {0, 0, 0.03 + 0.002 * i};  // in contact within the 300 steps
    models.push_back(parse_scene(d.dump()).model);
  }
  const std::vector<double> y = expect_grid_step_equals_cpu_backend(models, 300);
  EXPECT_NE(y[2], y[y.size() / 3 + 2]);
}

TEST(RobotContactJointSpace, ObjectFileWithAFixedBaseIsRefused) {
  json doc = object_doc("aba");
  doc["robot"]["floating_base"] = false;
  doc["robot"].erase("base");
  try {
    parse_scene(doc.dump());
    FAIL() << "a fixed object with no joint loaded";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/robot/floating_base");
    EXPECT_NE(std::string(e.what()).find("no moving joint"), std::string::npos) << e.what();
  }
}

/// The leg scraping the ground (kLeg, leg_doc) with the solver and its first joint
/// started at q0: the scene's model, its URDF written to `dir`.
Model leg_model(const TempDir& t, const std::string& solver, double q0 = 1.2) {
  const std::string file = (t.dir / "leg.urdf").string();
  std::ofstream(file) << kLeg;
  json d = leg_doc(file, solver);
  d["robot"]["q0"][0] = q0;
  return parse_scene(d.dump()).model;
}

/// The statistics of the reductions (read_reductions: (I, channels, kReductionStats)).
std::vector<double> read_reductions(const ReducedBackend& b) {
  std::vector<double> out(static_cast<std::size_t>(b.n_instances()) * b.reduction_layout().channels * kReductionStats);
  b.read_reductions(out.data());
  return out;
}

TEST(RobotContactJointSpace, ReductionsEqualTheFramesOfEveryStep) {
  TempDir t;
  for (const char* solver : {"aba", "cga"}) {
    SCOPED_TRACE(solver);
    const std::vector<Model> models(1, leg_model(t, solver));
    ReducedBackend b(std::make_shared<const std::vector<Model>>(models), 1, 1, false);
    b.set_reductions(parse_reduction_quantities({"all"}, 0, "output.reductions", 1, true));
    const ReductionLayout L = b.reduction_layout();
    ASSERT_EQ(L.channels, 1 + kContactSummaryComponents) << "energy and the pair's four numbers";
    const int e = L.offset[static_cast<int>(ReductionQuantity::Energy)],
              c = L.offset[static_cast<int>(ReductionQuantity::Contacts)];
    // Frames of every step, the end state's included: what the reductions sample.
    const int steps = 2500, B = models[0].n_bodies();
    std::vector<double> rec(static_cast<std::size_t>(13 * B)), pair(kContactSummaryComponents);
    double e_max = -INFINITY, e_min = INFINITY, e_sum = 0, f_max = -INFINITY, f_sum = 0, d_max = -INFINITY;
    int e_arg = -1, f_arg = -1;
    for (int s = 0; s <= steps; ++s) {
      double E = 0;
      b.read_energy(&E, nullptr);
      b.read_states(rec.data());
      contact_frames(models, 1, rec.data(), pair.data());
      if (E > e_max) e_max = E, e_arg = s;
      e_min = std::min(e_min, E);
      e_sum += E;
      if (pair[0] > f_max) f_max = pair[0], f_arg = s;
      f_sum += pair[0];
      d_max = std::max(d_max, pair[2]);
      if (s < steps) b.advance(1);
    }
    const std::vector<double> r = read_reductions(b);
    const double* E = r.data() + e * kReductionStats;
    const double* F = r.data() + c * kReductionStats;  // normal_force
    const double* D = r.data() + (c + 2) * kReductionStats;  // penetration
    const double dt = models[0].solver.dt;
    // The energy: the function read_energy evaluates, at the same states.
    EXPECT_EQ(E[0], e_max);
    EXPECT_EQ(E[1], e_min);
    EXPECT_EQ(E[4], e_arg * dt);
    EXPECT_NEAR(E[2], e_sum / (steps + 1), 1e-14 * std::abs(e_max));
    // The pair: the robot's kinematics here, the recorded body states there.
    std::printf("%s: peak normal force %.6f N at %.4f s (frames: %.1e N apart, at %.4f s), penetration %.3e m "
                "(%.1e m apart), mean %.1e N apart\n",
                solver, F[0], F[4], F[0] - f_max, f_arg * dt, D[0], D[0] - d_max, F[2] - f_sum / (steps + 1));
    EXPECT_GT(f_max, 10.0) << "the foot pressed into the ground";
    EXPECT_NEAR(F[0], f_max, 1e-12 * f_max);
    EXPECT_EQ(F[4], f_arg * dt);
    EXPECT_NEAR(F[2], f_sum / (steps + 1), 1e-12 * f_max);
    EXPECT_NEAR(D[0], d_max, 1e-12);
    EXPECT_EQ(r[(c + 3) * kReductionStats], 1.0) << "one contact: a sphere on the ground";
  }
}

TEST(RobotContactJointSpace, ReductionsInLanesEqualTheScalarForm) {
  TempDir t;
  std::vector<Model> models;
  for (int i = 0; i < 11; ++i) models.push_back(leg_model(t, "aba", 1.1 + 0.02 * i));  // a partial second group
  const auto run = [&](bool lanes, int threads) {
    ReducedBackend b(std::make_shared<const std::vector<Model>>(models), 11, threads, lanes);
    b.set_reductions({ReductionQuantity::Energy, ReductionQuantity::Contacts});
    b.advance(1300);
    b.advance(1200);
    return read_reductions(b);
  };
  const std::vector<double> scalar = run(false, 1), lanes = run(true, 2);
  const int C = 1 + kContactSummaryComponents;
  double worst = 0;
  for (std::size_t k = 0; k < scalar.size(); ++k)
    if (k % kReductionStats != 4)
      worst = std::max(worst, std::abs(scalar[k] - lanes[k]) / std::max(1.0, std::abs(scalar[k])));
  std::printf("lanes against scalar: %.1e of the scale at worst\n", worst);
  for (int i = 0; i < 11; ++i)
    for (int ch = 0; ch < C; ++ch) {
      const double* a = scalar.data() + (i * C + ch) * kReductionStats;
      const double* l = lanes.data() + (i * C + ch) * kReductionStats;
      const double scale = std::max({1.0, std::abs(a[0]), std::abs(a[1])});
      for (int s = 0; s < 4; ++s)  // the states differ by rounding (1e-12: test_reduced_lanes.cpp's kRoundOff)
        EXPECT_NEAR(a[s], l[s], 1e-12 * scale) << "instance " << i << " channel " << ch << " stat " << s;
      if (ch == 1) {
        EXPECT_GT(a[0], 10.0) << "instance " << i << " touched the ground";
        EXPECT_EQ(a[4], l[4]) << "instance " << i << ": the step of the peak force";
      }
    }
  EXPECT_NE(scalar[kReductionStats + 4], scalar[(2 * C + 1) * kReductionStats + 4])
      << "the instances' peaks differ in time";
}

TEST(RobotContactJointSpace, ReductionsResumeBitForBit) {
  TempDir t;
  const std::vector<Model> models(9, leg_model(t, "aba"));
  for (const bool lanes : {false, true}) {
    SCOPED_TRACE(lanes ? "lanes" : "scalar");
    const auto make = [&] {
      auto b = std::make_unique<ReducedBackend>(std::make_shared<const std::vector<Model>>(models), 9, 1, lanes);
      b->set_reductions({ReductionQuantity::Energy, ReductionQuantity::Contacts});
      return b;
    };
    const auto whole = make();
    whole->advance(2000);
    const auto first = make();
    first->advance(1100);
    std::vector<double> y(static_cast<std::size_t>(9 * first->state_size())),
        acc(static_cast<std::size_t>(9 * first->reduction_layout().size()));
    std::vector<std::int64_t> steps(9);
    first->get_state(nullptr, 9, y.data(), steps.data(), nullptr, nullptr, nullptr);
    first->get_reduction_state(acc.data());
    const auto second = make();  // a fresh batch, as a checkpoint's resume makes
    second->set_state(nullptr, 9, y.data(), steps.data(), nullptr, nullptr, nullptr);
    second->set_reduction_state(acc.data());
    second->advance(900);
    EXPECT_EQ(read_reductions(*whole), read_reductions(*second));
    // A reset instance starts its reductions afresh: one sample, its initial state.
    const int id = 4;
    second->reset(&id, 1);
    const std::vector<double> r = read_reductions(*second);
    const int C = second->reduction_layout().channels;
    EXPECT_EQ(r[static_cast<std::size_t>(id * C * kReductionStats + 4)], 0.0) << "the energy's max at t = 0";
    EXPECT_EQ(r[static_cast<std::size_t>((id * C + 1) * kReductionStats)], 0.0) << "no force at the start";
  }
}

TEST(RobotContactJointSpace, ReductionsOtherThanEnergyAndContactsAreRefused) {
  for (const char* name : {"reactions", "joint_loads", "bearing_loads", "constraint_violation", "joint_coordinates",
                           "power", "driver_loads"}) {
    try {
      parse_reduction_quantities({name}, 0, "output.reductions", 1, true);
      ADD_FAILURE() << name << " accepted for a robot in joint coordinates";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("output.reductions: reduction quantity '") + name + "'"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("energy and contacts"), std::string::npos) << e.what();
    }
  }
  TempDir t;
  const Model m = leg_model(t, "aba");
  EXPECT_TRUE(joint_space_reductions(m));
  EXPECT_FALSE(forms_energy_balance(m)) << "no power channel in joint coordinates";
  ReducedBackend b(std::make_shared<const std::vector<Model>>(1, m), 1, 1, false);
  EXPECT_THROW(b.set_reductions({ReductionQuantity::Reactions}), BackendError);
}

}  // namespace
}  // namespace simphant
