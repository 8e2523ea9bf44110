// The energy balance of a model that does not conserve E (job/energy_check.hpp;
// docs/solver.md, "Energy check"): the power of the loads, drives and dampers
// (formulas/power_math.hpp) is the rate of E along the motion, checked against a central
// difference of E on every kind of element; Gregory's rule integrates it to fourth order
// (formulas/reductions.hpp); and a job reports E(T) - E(0) - W per instance, at the
// integrator's accuracy, where the raw energy change is of order one.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "example_models.hpp"
#include "temp_dir.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/formulas/reductions.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/merge.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/job/run_summary.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/assemble_batch.hpp"
#include "simphant/sim/reduction_names.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace simphant {
namespace {

const fs::path& temp_dir() {
  static const fs::path dir = test::make_process_temp_dir("energy_balance");
  return dir;
}

// The work from samples f(k h), k = 0 .. N, through the accumulator of the power channel.
double gregory(const std::vector<double>& f, double h) {
  bool power_only[kReductionQuantities] = {};
  power_only[static_cast<int>(ReductionQuantity::Power)] = true;
  const ReductionLayout L = make_reduction_layout(power_only, 0, 0, 0, true);
  std::vector<double> acc(static_cast<std::size_t>(L.size()));
  const ReductionAcc a{acc.data(), 1};
  reduction_clear(L, a);
  for (std::size_t k = 0; k < f.size(); ++k) reduction_add_instance<double>(L, a, 0.0, 0.0, f[k], static_cast<double>(k));
  return reduction_work(L, a, h);
}

// Exact for polynomials of degree 5 from six samples on (cubics from four, Simpson's
// rule from three, the trapezoid for a line from two), and of sixth order on a smooth
// power: the error falls 64-fold per halving of the step.
TEST(EnergyBalance, GregorysRuleIsExactForQuinticsAndOfSixthOrder) {
  const auto poly = [](double x, int degree) {
    double v = 0, p = 1;
    for (int d = 0; d <= degree; ++d, p *= x) v += (1.0 + 0.5 * d) * p;
    return v;
  };
  const auto integral = [](double x, int degree) {
    double v = 0, p = x;
    for (int d = 0; d <= degree; ++d, p *= x) v += (1.0 + 0.5 * d) * p / (d + 1);
    return v;
  };
  for (int N = 1; N <= 11; ++N) {
    const int degree = N >= 5 ? 5 : N >= 3 ? 3 : N;
    const double h = 0.7 / N;
    std::vector<double> f;
    for (int k = 0; k <= N; ++k) f.push_back(poly(k * h, degree));
    EXPECT_NEAR(gregory(f, h), integral(0.7, degree), 1e-14) << N;
  }
  EXPECT_EQ(gregory({4.0}, 0.5), 0.0);
  EXPECT_TRUE(std::isnan(gregory({}, 0.5)));
  double last = 0;
  for (int N : {10, 20, 40}) {
    std::vector<double> f;
    for (int k = 0; k <= N; ++k) f.push_back(std::sin(3.0 * k / N));
    const double err = std::fabs(gregory(f, 1.0 / N) - (1.0 - std::cos(3.0)) / 3.0);
    if (last > 0) {
      EXPECT_NEAR(last / err, 64.0, 12.0) << N;
    }
    last = err;
  }
}

// Every kind of element that does work: a cart on a track pushed by a force actuator
// with a law, a pole hinged on it under a torque actuator with a law, a body-frame point
// force with a law, a world torque, a spring-damper with a tabulated damping, a hinge
// spring-damper, and a wheel turned by a rheonomic driver against a damper.
json worked_scene() {
  return json::parse(R"({
    "name": "every element that works",
    "gravity": [0, 0, -9.81],
    "bodies": [
      {"name": "cart", "mass": 2.0, "inertia": [0.02, 0.05, 0.05], "position": [0, 0, 0], "velocity": [0.4, 0, 0]},
      {"name": "pole", "mass": 0.5, "inertia": [[0.015, 0, 0], [0, 0.015, 0], [0, 0, 0.0001]],
       "position": [0, 0, -0.3], "velocity": [-0.2, 0, 0], "angular_velocity_world": [0, 2.0, 0]},
      {"name": "wheel", "mass": 1.0, "inertia": [0.01, 0.02, 0.01], "position": [0, 1, 0]}
    ],
    "joints": [
      {"name": "track", "type": "prismatic", "body_i": "ground", "body_j": "cart",
       "frame": {"origin": [0, 0, 0], "z": [1, 0, 0], "x": [0, 0, 1]}},
      {"name": "hinge", "type": "revolute", "body_i": "cart", "body_j": "pole",
       "frame_i": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]},
       "frame_j": {"origin": [0, 0, 0.3], "z": [0, 1, 0], "x": [1, 0, 0]}},
      {"name": "axle", "type": "revolute", "body_i": "ground", "body_j": "wheel",
       "frame": {"origin": [0, 1, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}
    ],
    "drivers": [{"name": "spin", "joint": "axle", "coordinate": "angle",
                 "law": {"type": "harmonic", "offset": 0.0, "amplitude": 0.8, "frequency": 1.5, "phase": 0.3}}],
    "forces": [
      {"name": "centering", "type": "spring_damper", "body_i": "ground", "point_i": [-1, 0, 0.1],
       "body_j": "cart", "point_j": [0.05, 0, 0], "stiffness": 50.0, "rest_length": 1.0,
       "damping_table": {"rate": [-2, -0.5, 0, 0.5, 2], "force": [-3, -0.4, 0, 0.5, 4]}},
      {"name": "push", "type": "actuator", "joint": "track", "kind": "force", "value": 0.3,
       "law": {"type": "harmonic", "offset": 0.1, "amplitude": 1.0, "frequency": 2.0, "phase": 0.2}},
      {"name": "motor", "type": "actuator", "joint": "hinge", "kind": "torque", "value": -0.2,
       "law": {"type": "polynomial", "coefficients": [0.1, -0.5, 2.0]}},
      {"name": "wind", "type": "point_force", "body": "pole", "point": [0.02, 0, -0.3],
       "force": [0.2, 0.1, 0.3], "frame": "body",
       "law": {"type": "harmonic", "offset": 0.5, "amplitude": 1.0, "frequency": 3.0, "phase": 0.0}},
      {"name": "twist", "type": "torque", "body": "pole", "torque": [0.1, 0.3, -0.2], "frame": "world"},
      {"name": "hinge_damper", "type": "rotational_spring_damper", "joint": "hinge", "stiffness": 2.0,
       "damping": 0.3, "rest_angle": 0.1},
      {"name": "wheel_damper", "type": "rotational_spring_damper", "joint": "axle", "stiffness": 0.0,
       "damping": 0.5}
    ],
    "solver": {"dt": 0.001, "t_end": 2.0, "record_every": 10}
  })");
}

// dE/dt along the motion, by a central difference of E over y +- h ydot, against the
// power: dE/dt = P - sum over the joints' and mimic rows of lambda_r (Phi_q qdot)_r, the
// last term (their constraint forces) zero on Phi_q qdot = 0 and kept here so that the
// identity is exact at any state. Central difference error h^2 E''' / 6 and round-off
// u |E| / h = 1e-11 |E| at h = 1e-5 s: within 1e-8 of the largest term, as E is within a
// few hundred of it here (measured 7e-14 .. 2e-11).
void expect_power_is_energy_rate(const Model& model, const std::vector<double>& Y0, double t, const std::string& what,
                                 bool moving = true) {
  Data d(model);
  const int ny = model.ny();
  std::vector<double> ydot(static_cast<std::size_t>(ny)), scratch(ydot.size()), Y(Y0);
  ASSERT_TRUE(evaluate(model, d, t, Y.data(), nullptr, ydot.data())) << what;
  const double P = nonconservative_power(model, d, t, nullptr);
  double joints = 0, scale = std::fabs(P);
  for (int j = 0; j < model.n_joints(); ++j)
    for (int r = 0; r < joint_rows(model.joints[j].type); ++r) {
      const int R = model.joints[j].row_offset + r;
      joints -= d.lambda[R] * d.phi_dot[R];
    }
  for (const Mimic& mi : model.mimics) joints -= d.lambda[mi.row_offset] * d.phi_dot[mi.row_offset];
  const double h = 1e-5;
  double E[2];
  for (int s = 0; s < 2; ++s) {
    const double sign = s == 0 ? 1.0 : -1.0;
    for (int e = 0; e < ny; ++e) Y[e] = Y0[e] + sign * h * ydot[e];
    ASSERT_TRUE(evaluate(model, d, t + sign * h, Y.data(), nullptr, scratch.data())) << what;
    E[s] = total_energy(model, d);
    // The kinetic energy's rate sets the scale where the loads' power is small.
    double K = 0;
    for (int k = 0; k < model.n_bodies(); ++k)
      K += body_kinetic_energy(model.bodies[k].mass, model.bodies[k].inertia_B, d.kin[k]);
    scale = std::max(scale, K);
  }
  const double rate = (E[0] - E[1]) / (2 * h);
  EXPECT_NEAR(rate, P + joints, 1e-8 * std::max({scale, std::fabs(rate), 1e-3})) << what << " P = " << P;
  if (moving) {
    EXPECT_NE(P, 0.0) << what;
  }
}

// Y with every velocity coordinate moved off the assembled one (the joints' term is then
// not zero; the identity holds at any state).
std::vector<double> shaken(std::vector<double> Y, int n_bodies) {
  for (std::size_t e = 7 * static_cast<std::size_t>(n_bodies); e < Y.size(); ++e) Y[e] += 0.05 * std::sin(1.0 + e);
  return Y;
}

TEST(EnergyBalance, PowerIsTheRateOfEnergyOnEveryElement) {
  const Scene scene = parse_scene(worked_scene().dump());
  const std::vector<Model> models = build_instance_models(scene, sample_sweep(scene.sweep));
  const AssembledBatch a = assemble_batch(models, 1, 1);
  ASSERT_EQ(a.status[0], 0);
  for (double t : {0.0, 0.37, 1.1})  // the laws at three times, the assembled state
    expect_power_is_energy_rate(models[0], a.Y, t, "worked scene t = " + std::to_string(t));
  expect_power_is_energy_rate(models[0], shaken(a.Y, 3), 0.5, "worked scene, velocities off Phi_q qdot = 0");
}

// The shipped examples that do work (a driver, dampers, loads), and a robot's joint laws
// in the DAE (servo, damping, limits of the arm with its default gains in joint
// coordinates -- docs/robots.md).
TEST(EnergyBalance, PowerIsTheRateOfEnergyOnTheExamples) {
  for (const char* name : {"four_bar", "slider_crank_driven", "crank_press", "stiff_damper", "panda_servo"}) {
    const std::vector<Model> models = test::example_models(name, 2);  // a robot's: its maximal form
    const AssembledBatch a = assemble_batch(models, 2, 1);
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(a.status[i], 0) << name;
      const std::vector<double> Y(a.Y.begin() + static_cast<std::ptrdiff_t>(i) * models[i].ny(),
                                  a.Y.begin() + static_cast<std::ptrdiff_t>(i + 1) * models[i].ny());
      const std::string what = std::string(name) + " instance " + std::to_string(i);
      expect_power_is_energy_rate(models[i], Y, 0.2, what, false);  // some start at rest
      expect_power_is_energy_rate(models[i], shaken(Y, models[i].n_bodies()), 0.2, what + ", shaken");
    }
  }
}

struct Balance {
  json summary;
  std::vector<double> work, balance, relative, change;
};

Balance run(const json& doc, const std::string& name, const std::string& backend, int instances) {
  JobOptions o;
  o.scene = (temp_dir() / (name + ".json")).string();
  o.scene_text = doc.dump();
  o.threads = 2;
  o.backend = backend;
  o.instances = instances;
  o.out = (temp_dir() / (name + "_" + backend + ".h5")).string();
  o.checkpoint_every_s = 0;
  const JobResult r = run_job(o, JobHooks{});
  EXPECT_EQ(r.exit_code, 0) << name;
  Balance b;
  b.summary = r.summary;
  const h5::Handle f = h5::open_file_readonly(o.out);
  b.change = h5::read_doubles(f.id(), "energy_check/relative_error");
  if (!h5::exists(f.id(), "energy_check/work")) return b;
  b.work = h5::read_doubles(f.id(), "energy_check/work");
  b.balance = h5::read_doubles(f.id(), "energy_check/balance");
  b.relative = h5::read_doubles(f.id(), "energy_check/balance_relative");
  EXPECT_FALSE(h5::exists(f.id(), "reductions")) << "power is written only when the scene asks for it";
  return b;
}

// The worked scene over 2 s at dt = 1 ms: E changes by 7 times its scale while the
// balance closes to RK4's accuracy (measured 5.9e-10 relative on cpu and cpu-simd); the
// two backends agree. The same scene at dt = 4 ms: the balance grows 4^4-fold (measured
// 260-fold), the fourth order of RK4 -- it measures the integration error, as E(T) - E(0)
// does for a conservative model.
TEST(EnergyBalance, JobReportsTheBalanceOnEveryBackend) {
  json doc = worked_scene();
  doc["sweep"] = {{"mode", "grid"},
                  {"parameters", {{{"path", "forces.push.law.amplitude"}, {"dist", "list"}, {"values", {0.5, 1.0, 2.0}}}}}};
  const Balance cpu = run(doc, "worked", "cpu", 3), simd = run(doc, "worked", "cpu-simd", 3);
  ASSERT_EQ(cpu.work.size(), 3u);
  ASSERT_EQ(simd.work.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(cpu.change[i], 1e-2) << i;
    EXPECT_LT(cpu.relative[i], 5e-9) << i;
    EXPECT_NEAR(simd.work[i], cpu.work[i], 1e-9 * std::fabs(cpu.work[i])) << i;
    EXPECT_LT(simd.relative[i], 5e-9) << i;
  }
  EXPECT_LT(cpu.summary["energy_balance_rel"].get<double>(), 5e-9);
  EXPECT_GT(cpu.summary["energy_work_abs_J"].get<double>(), 0.0);
  const std::string text = summary_text(cpu.summary);
  EXPECT_NE(text.find("energy balance"), std::string::npos) << text;

  doc["solver"]["dt"] = 0.004;
  doc["solver"]["record_every"] = 1;
  const Balance coarse = run(doc, "worked_coarse", "cpu", 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(coarse.relative[i], 128 * cpu.relative[i]) << i;
    EXPECT_LT(coarse.relative[i], 512 * cpu.relative[i]) << i;
  }
}

// dopri5's steps are not on the grid: no balance (the raw change is still reported),
// also where the scene asks for the power reduction; a model without an element that
// does work has none either.
TEST(EnergyBalance, NoBalanceWithoutGridStepsOrWithoutWork) {
  json doc = worked_scene();
  doc["solver"]["integrator"] = "dopri5";
  doc["solver"]["t_end"] = 0.5;
  doc["output"] = {{"reductions", {"power"}}};
  const Balance adaptive = run(doc, "worked_dopri5", "cpu", 1);
  EXPECT_TRUE(adaptive.work.empty());
  EXPECT_TRUE(adaptive.summary["energy_balance_rel"].is_null());
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/examples/pendulum.json");
  json pendulum = json::parse(in);
  pendulum.erase("sweep");
  pendulum["solver"]["t_end"] = 0.2;
  const Balance conservative = run(pendulum, "pendulum", "cpu", 1);
  EXPECT_TRUE(conservative.work.empty());
  EXPECT_TRUE(conservative.summary["energy_balance_rel"].is_null());
}

// Whether a run forms the balance follows the model's elements, not their values: shards
// of a sweep whose damping is 0 in one shard and 0.5 in the other (a conservative and a
// damped pendulum) both write the balance and merge into the one-shot run's file.
TEST(EnergyBalance, ShardsOfASweepThroughZeroDampingMerge) {
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/examples/pendulum.json");
  json doc = json::parse(in);
  doc.erase("sweep");
  doc["solver"]["t_end"] = 0.2;
  doc["forces"] = json::array({{{"name", "hinge_damper"}, {"type", "rotational_spring_damper"},
                                {"joint", doc["joints"][0]["name"]}, {"stiffness", 0.0}, {"damping", 0.5}}});
  doc["sweep"] = {{"mode", "grid"},
                  {"parameters", {{{"path", "forces.hinge_damper.damping"}, {"dist", "list"}, {"values", {0.0, 0.5}}}}}};
  const fs::path scene = temp_dir() / "swept_damping.json";
  std::ofstream(scene) << doc.dump();
  MergeOptions m;
  m.out = (temp_dir() / "swept_damping_merged.h5").string();
  for (int k = 0; k < 2; ++k) {
    JobOptions o;
    o.scene = scene.string();
    o.threads = 1;
    o.backend = "cpu";
    o.instances = 2;
    o.shard_index = k;
    o.shard_count = 2;
    o.out = (temp_dir() / ("swept_damping_" + std::to_string(k) + ".h5")).string();
    o.checkpoint_every_s = 0;
    ASSERT_EQ(run_job(o, JobHooks{}).exit_code, 0) << k;
    m.shards.push_back(o.out);
  }
  merge_shards(m);
  const h5::Handle f = h5::open_file_readonly(m.out);
  const std::vector<double> work = h5::read_doubles(f.id(), "energy_check/work");
  const std::vector<double> conservative = h5::read_doubles(f.id(), "energy_check/conservative");
  ASSERT_EQ(work.size(), 2u);
  EXPECT_EQ(conservative, (std::vector<double>{1, 0}));
  EXPECT_EQ(work[0], 0.0);  // no damping: no power
  EXPECT_LT(work[1], 0.0);  // the damper dissipates
  EXPECT_LT(h5::read_doubles(f.id(), "energy_check/balance_relative")[1], 1e-8);
}

// A scene that asks for the power reduction gets it written, its mean times the run's
// duration being the work of the balance.
TEST(EnergyBalance, PowerReductionIsTheWorkRate) {
  json doc = worked_scene();
  doc["solver"]["t_end"] = 0.5;
  doc["output"] = {{"reductions", {"power"}}};
  JobOptions o;
  o.scene = (temp_dir() / "power.json").string();
  o.scene_text = doc.dump();
  o.threads = 1;
  o.backend = "cpu";
  o.instances = 1;
  o.out = (temp_dir() / "power.h5").string();
  o.checkpoint_every_s = 0;
  ASSERT_EQ(run_job(o, JobHooks{}).exit_code, 0);
  const h5::Handle f = h5::open_file_readonly(o.out);
  const std::vector<double> mean = h5::read_doubles(f.id(), "reductions/power/mean");
  const std::vector<double> work = h5::read_doubles(f.id(), "energy_check/work");
  ASSERT_EQ(mean.size(), 1u);
  EXPECT_NEAR(mean[0] * 0.5, work[0], 1e-12 * std::fabs(work[0]));
  EXPECT_GE(h5::read_doubles(f.id(), "reductions/power/max")[0], mean[0]);
}

}  // namespace
}  // namespace simphant
